/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: opening the index from a command front end (see cli_index.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_index.h"
#include "output.h"

/* The last decision the index library explained: quoted when an index
 * given with --no-index cannot be used. */
static char last_decision[512];

static void on_log(void *ctx, int level, const char *msg)
{
	tk_cli *cli = ctx;
	if (level == TK_INDEX_LOG_DECISION)
		snprintf(last_decision, sizeof last_decision, "%s", msg);
	if (cli->verbose < level)
		return;
	tk_cli_progress_clear();
	fprintf(stderr, "%s: %s\n", cli->prog, msg);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	tk_cli_progress(ctx, "indexing", done, total);
}

static void set_trace_info(tk_cli *cli, const tk_index *idx)
{
	tk_index_info in = {.size = sizeof in};
	if (tk_index_get_info(idx, &in) < 0)
		return;
	snprintf(cli->tinfo.format, sizeof cli->tinfo.format, "%s", in.format);
	snprintf(cli->tinfo.context_name, sizeof cli->tinfo.context_name, "%s", in.context_name);
	cli->tinfo.caps = in.caps;
	cli->tinfo.time_unit = in.time_unit;
}

/* The index path tk_index_open uses. */
static const char *index_path(const tk_cli *cli, char *buf, size_t size)
{
	if (cli->index)
		return cli->index;
	snprintf(buf, size, "%s.index", cli->trace);
	return buf;
}

static void report(tk_cli *cli, int rc, bool need)
{
	char buf[4096];
	const char *ipath = index_path(cli, buf, sizeof buf);
	switch (rc) {
	case TK_ERR_OPEN:
		tk_cli_error(cli, "%s: %s", cli->trace, strerror(errno ? errno : ENOENT));
		break;
	case TK_ERR_ISDIR:
		tk_cli_error(cli, "%s: is a directory, not a trace file", cli->trace);
		break;
	case TK_ERR_NOTFOUND:
		tk_cli_error(cli, "no index for %s (%s) and --no-index given", cli->trace, ipath);
		break;
	case TK_ERR_STALE:
		if (need)
			tk_cli_error(cli, "%s", last_decision);
		else
			tk_cli_warning(cli, "%s; reading the trace instead", last_decision);
		break;
	case TK_ERR_CORRUPT:
	case TK_ERR_FORMAT:
		if (cli->no_index)
			tk_cli_error(cli, "the index of %s is unusable (%s) and --no-index given",
				     cli->trace, tk_strerror(rc));
		/* else the trace is in no format tracekit reads: the source
		 * registry's diagnostic said so */
		break;
	case TK_ERR_BINARY:
		break;	/* the source's diagnostic said why */
	case TK_ERR_IO:
		tk_cli_error(cli, "cannot index %s: %s%s%s", cli->trace, tk_strerror(rc),
			     errno ? ": " : "", errno ? strerror(errno) : "");
		break;
	default:
		tk_cli_error(cli, "cannot index %s: %s", cli->trace, tk_strerror(rc));
	}
}

/* Errors of writing the index file, not of reading the trace. */
static bool index_unwritable(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EROFS || e == EACCES ||
	       e == EPERM;
}

tk_status tk_cli_open_index(tk_cli *cli, bool need, tk_index **out)
{
	*out = NULL;
	bool may_build = need || cli->force_index || cli->only_index;
	if (!strcmp(cli->trace, "-")) {
		if (need || cli->only_index) {
			tk_cli_error(cli, "standard input cannot be indexed: give a trace file");
			return TK_ST_FAIL;
		}
		return TK_ST_OK;
	}
	if (cli->memory_index) {
		/* As Arm's tools: the other index options give way. */
		if (cli->no_index)
			tk_cli_warning(cli, "ignoring --no-index: the index is in memory");
		if (cli->index)
			tk_cli_warning(cli, "ignoring --index: the index is in memory");
		/* Streaming the trace is what an index in memory would give
		 * the report tools, faster. */
		if (!need && !cli->only_index && !cli->force_index)
			return TK_ST_OK;
	}
	/* The index is written: it must not be one of the inputs. */
	char defpath_buf[4096];
	const char *ipath = index_path(cli, defpath_buf, sizeof defpath_buf);
	const char *input;
	tk_out_protect(cli->trace);
	tk_out_protect(cli->image);
	if (!cli->memory_index && tk_out_is_input(ipath, &input)) {
		tk_cli_error(cli, "the index file %s is the input %s: refusing to overwrite it",
			     ipath, input);
		return TK_ST_FAIL;
	}
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = cli->memory_index ? NULL : cli->index;
	o.in_memory = cli->memory_index;
	o.source = &cli->spec;
	o.log = on_log;
	o.log_ctx = cli;
	if (cli->progress) {
		o.progress = on_progress;
		o.progress_ctx = cli;
	}
	o.diag = tk_cli_print_diag;
	o.diag_ctx = cli;
	o.threads = cli->threads;
	if (tk_cli_debug(cli, "call_heuristics"))
		o.calls_debug = tk_cli_print_calls_debug;
	if (cli->force_index || cli->memory_index)
		o.mode = TK_INDEX_FORCE;
	else if (cli->no_index)
		o.mode = TK_INDEX_NEVER;
	else
		o.mode = may_build ? TK_INDEX_AUTO : TK_INDEX_IF_VALID;

	errno = 0;
	last_decision[0] = 0;
	int rc = tk_index_open(cli->trace, &o, out);
	if (rc == TK_ERR_IO && need && !o.in_memory && index_unwritable(errno)) {
		/* The index file cannot be written (a full disk, a read-only
		 * file system): index into memory for this run, as the report
		 * tools would stream. */
		tk_cli_progress_clear();
		fprintf(stderr, "%s: cannot write the index %s (%s): using a temporary index "
			"in memory for this run\n", cli->prog, ipath, strerror(errno));
		o.in_memory = true;
		o.mode = TK_INDEX_FORCE;
		errno = 0;
		rc = tk_index_open(cli->trace, &o, out);
	}
	tk_cli_progress_clear();
	tk_cli_warning_summary(cli);
	if (rc >= 0) {
		set_trace_info(cli, *out);
		return TK_ST_OK;
	}
	if (!need && (rc == TK_ERR_NOTFOUND || rc == TK_ERR_STALE ||
		      (cli->no_index && (rc == TK_ERR_CORRUPT || rc == TK_ERR_FORMAT)))) {
		if (rc == TK_ERR_STALE)
			report(cli, rc, need);
		return TK_ST_OK;	/* no usable index: the caller streams */
	}
	report(cli, rc, need);
	return TK_ST_FAIL;
}
