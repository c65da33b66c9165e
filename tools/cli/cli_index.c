/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: opening the index from a command front end (see cli_index.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_index.h"
#include "output.h"

#define MAX_SHOWN_WARNINGS 20

static bool meter_drawn;
static double meter_last;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void meter_clear(void)
{
	if (meter_drawn) {
		fputs("\r\033[K", stderr);
		meter_drawn = false;
	}
}

static void on_log(void *ctx, int level, const char *msg)
{
	tk_cli *cli = ctx;
	if (cli->verbose < level)
		return;
	meter_clear();
	fprintf(stderr, "%s: %s\n", cli->prog, msg);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	tk_cli *cli = ctx;
	double t = now_s();
	if (t - meter_last < 0.1 && done < total)
		return;
	meter_last = t;
	if (total) {
		unsigned pct = (unsigned)(done * 100 / total);
		char bar[41];
		unsigned filled = pct * 40 / 100;
		memset(bar, '#', filled);
		memset(bar + filled, '.', 40 - filled);
		bar[40] = 0;
		fprintf(stderr, "\rindexing %s [%s] %3u%%", cli->trace, bar, pct);
	} else {
		fprintf(stderr, "\rindexing %s: %.0f MB", cli->trace, done / 1e6);
	}
	meter_drawn = true;
}

static void on_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	if (d->level != TK_DIAG_ERROR) {
		cli->warnings++;
		if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
			return;
	}
	meter_clear();
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" :
			  d->level == TK_DIAG_WARNING ? "warning" : "note";
	if (d->file && d->line)
		fprintf(stderr, "%s:%llu: %s: %s\n", d->file, (unsigned long long)d->line, lvl, d->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : cli->prog, lvl, d->msg);
}

static void on_calls_debug(void *ctx, const char *msg)
{
	(void)ctx;
	meter_clear();
	fprintf(stderr, "call_heuristics: %s\n", msg);
}

/* Errors of writing the index file, not of reading the trace. */
static bool index_unwritable(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EROFS || e == EACCES ||
	       e == EPERM;
}

int tk_cli_open_index(tk_cli *cli, bool need, tk_index **out)
{
	*out = NULL;
	bool may_build = need || cli->force_index || cli->only_index;
	if (!strcmp(cli->trace, "-")) {
		if (need || cli->only_index) {
			tk_cli_error(cli, "standard input cannot be indexed: give a trace file");
			return -1;
		}
		return 1;
	}
	if (cli->memory_index) {
		/* As Arm's tools: the other index options give way. */
		if (cli->no_index)
			fprintf(stderr, "%s: warning: ignoring --no-index: the index is in memory\n",
				cli->prog);
		if (cli->index)
			fprintf(stderr, "%s: warning: ignoring --index: the index is in memory\n",
				cli->prog);
		/* Streaming the trace is what an index in memory would give
		 * the report tools, faster. */
		if (!need && !cli->only_index && !cli->force_index)
			return 1;
	}
	/* The index is written: it must not be one of the inputs. */
	char defpath_buf[4096];
	const char *index_path = cli->index;
	if (!index_path) {
		snprintf(defpath_buf, sizeof defpath_buf, "%s.index", cli->trace);
		index_path = defpath_buf;
	}
	const char *input;
	tk_out_protect(cli->trace);
	tk_out_protect(cli->image);
	if (!cli->memory_index && tk_out_is_input(index_path, &input)) {
		tk_cli_error(cli, "the index file %s is the input %s: refusing to overwrite it",
			     index_path, input);
		return -1;
	}
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = cli->memory_index ? NULL : cli->index;
	o.in_memory = cli->memory_index;
	o.big_endian = cli->endian == 'b';
	o.implicit_thumb = cli->implicit_thumb;
	o.log = on_log;
	o.log_ctx = cli;
	if (cli->progress) {
		o.progress = on_progress;
		o.progress_ctx = cli;
		meter_last = 0;
	}
	o.diag = on_diag;
	o.diag_ctx = cli;
	if (tk_cli_debug(cli, "call_heuristics"))
		o.calls_debug = on_calls_debug;
	if (cli->force_index || cli->memory_index)
		o.mode = TK_INDEX_FORCE;
	else if (cli->no_index)
		o.mode = TK_INDEX_NEVER;
	else
		o.mode = may_build ? TK_INDEX_AUTO : TK_INDEX_IF_VALID;

	errno = 0;
	int rc = tk_index_open(cli->trace, &o, out);
	if (rc == TK_ERR_IO && need && !o.in_memory && index_unwritable(errno)) {
		/* The index file cannot be written (a full disk, a read-only
		 * file system): index into memory for this run, as the report
		 * tools would stream. */
		meter_clear();
		fprintf(stderr, "%s: cannot write the index %s (%s): using a temporary index "
			"in memory for this run\n", cli->prog, index_path, strerror(errno));
		o.in_memory = true;
		o.mode = TK_INDEX_FORCE;
		errno = 0;
		rc = tk_index_open(cli->trace, &o, out);
	}
	meter_clear();
	if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
		fprintf(stderr, "%s: %llu warnings in %s (%llu not shown; -v shows all)\n",
			cli->prog, (unsigned long long)cli->warnings, cli->trace,
			(unsigned long long)(cli->warnings - MAX_SHOWN_WARNINGS));
	if (rc >= 0)
		return 0;
	if (!need && (rc == TK_ERR_NOTFOUND || (cli->no_index && rc != TK_ERR_OPEN &&
						rc != TK_ERR_ISDIR)))
		return 1;	/* no usable index: the caller streams */
	char defpath[4096];
	const char *ipath = cli->index;
	if (!ipath) {	/* the default, as tk_index_open makes it */
		snprintf(defpath, sizeof defpath, "%s.index", cli->trace);
		ipath = defpath;
	}
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
	case TK_ERR_CORRUPT:
	case TK_ERR_FORMAT:
		tk_cli_error(cli, "the index of %s is unusable (%s) and --no-index given",
			     cli->trace, tk_strerror(rc));
		break;
	case TK_ERR_IO:
		tk_cli_error(cli, "cannot index %s: %s%s%s", cli->trace, tk_strerror(rc),
			     errno ? ": " : "", errno ? strerror(errno) : "");
		break;
	default:
		tk_cli_error(cli, "cannot index %s: %s", cli->trace, tk_strerror(rc));
	}
	return -1;
}

int tk_cli_index_calltree(tk_cli *cli, tk_calltree **out)
{
	*out = NULL;
	tk_index *idx;
	int rc = tk_cli_open_index(cli, false, &idx);
	if (rc)
		return rc;
	if (cli->only_index) {
		tk_index_free(idx);
		return 2;
	}
	if (tk_index_count(idx) == 0) {
		tk_index_free(idx);
		tk_cli_error(cli, "%s: no instructions found in the trace", cli->trace);
		return -1;
	}
	rc = tk_index_calltree_copy(idx, out);
	tk_index_free(idx);
	if (rc < 0) {
		tk_cli_error(cli, "%s", tk_strerror(rc));
		return -1;
	}
	return 0;
}
