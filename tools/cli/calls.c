/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call tree for the report commands: from a usable index,
 * or by streaming the trace through the call detector; --context keeps
 * one context. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_index.h"

/* A sink that passes on only the calls of one context. */
typedef struct context_filter {
	const tk_calls_sink *next;
	uint32_t context;
	bool found;
} context_filter;

static int filter_confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	context_filter *f = ctx;
	if (call->context != f->context) {
		*out = TK_CALL_NONE;
		return 0;
	}
	return f->next->confirm(f->next->ctx, call, children, out);
}

static int filter_join(void *ctx, uint32_t a, uint32_t b, uint32_t *out)
{
	context_filter *f = ctx;
	if (a == TK_CALL_NONE || b == TK_CALL_NONE) {
		*out = a == TK_CALL_NONE ? b : a;
		return 0;
	}
	return f->next->join(f->next->ctx, a, b, out);
}

static int filter_finish(void *ctx, const tk_call *root, uint32_t children)
{
	context_filter *f = ctx;
	if (root->context != f->context)
		return 0;
	f->found = true;
	return f->next->finish(f->next->ctx, root, children);
}

static void cli_read_progress(void *ctx, uint64_t done, uint64_t total)
{
	tk_cli_progress(ctx, "reading", done, total);
}

static int add_name(void *ctx, uint64_t addr, const char *name)
{
	return tk_namemap_add(ctx, addr, name, strlen(name));
}

/* The calls from a valid index: to the sink, or as a walk (*out).  Sets
 * *used if an index was used (else: stream instead); TK_ST_DONE after
 * --only-index, TK_ST_FAIL. */
static tk_status from_index(tk_cli *cli, const tk_calls_sink *sink, tk_callwalk **out,
			    bool *used)
{
	*used = false;
	/* The heuristic's explanations come from running it: stream. */
	if (tk_cli_debug(cli, "call_heuristics") && !cli->force_index && !cli->only_index)
		return TK_ST_OK;
	tk_index *idx;
	tk_status st = tk_cli_open_index(cli, false, &idx);
	if (st != TK_ST_OK || !idx)
		return st;
	if (cli->only_index) {
		tk_index_free(idx);
		return TK_ST_DONE;
	}
	*used = true;
	/* the names the trace gives its functions */
	int rc = tk_index_func_names(idx, add_name, &cli->names);
	if (rc == 0 && sink) {
		rc = tk_index_calls_replay(idx, sink);
		tk_index_free(idx);
	} else if (rc == 0) {
		rc = tk_index_calls_walk_own(idx, out);
	} else {
		tk_index_free(idx);
	}
	if (rc < 0) {
		tk_cli_error(cli, "%s", tk_strerror(rc));
		return TK_ST_FAIL;
	}
	return TK_ST_OK;
}

/* Stream the trace through the detector: into the sink, or into a spill
 * read back as a walk. */
static tk_status from_trace(tk_cli *cli, const tk_calls_sink *sink, tk_callwalk **out)
{
	tk_source *src;
	tk_status st = tk_cli_open_trace(cli, &src);
	if (st != TK_ST_OK)
		return st;
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(src, &si);
	tk_source_want_runs(src);	/* the detector needs no more of them */
	tk_calls_opts co;
	tk_calls_opts_init(&co);
	if (tk_cli_debug(cli, "call_heuristics"))
		co.debug = tk_cli_print_calls_debug;
	tk_calls_sink spill_sink;
	tk_callspill *spill = NULL;
	int rc = 0;
	if (!sink) {
		rc = tk_callspill_new(&spill, &spill_sink);
		sink = &spill_sink;
	}
	co.sink = sink;
	co.steps = tk_source_info_func_steps(&si) ? TK_STEPS_FUNCS : TK_STEPS_INSNS;
	tk_calls *calls = NULL;
	if (rc == 0)
		rc = tk_calls_new(&co, &calls);
	if (rc < 0) {
		tk_cli_error(cli, "%s", tk_strerror(rc));
		tk_source_free(src);
		tk_callspill_free(spill);
		return TK_ST_FAIL;
	}
	/* On every core when the format can be read in pieces; else in order. */
	tk_calls_read_opts ro;
	tk_calls_read_opts_init(&ro);
	ro.threads = cli->threads;
	ro.names = &cli->names;
	if (cli->progress) {
		ro.progress = cli_read_progress;
		ro.progress_ctx = cli;
	}
	int read_rc = 0;
	bool reported = false;
	rc = tk_calls_read(calls, src, &ro);
	if (rc == TK_ERR_UNSUPPORTED) {
		tk_event evs[64];	/* runs come many at a time */
		rc = 0;
		/* tk_cli_next_many prints its own errors */
		while (rc >= 0 && (read_rc = tk_cli_next_many(cli, src, evs, 64)) > 0)
			rc = tk_calls_feed_many(calls, evs, (size_t)read_rc);
		reported = read_rc < 0;
		if (reported)
			rc = read_rc;
	} else if (rc < 0 && rc != TK_ERR_NOMEM) {
		reported = rc == TK_ERR_BINARY;	/* the source's diagnostic said why */
	}
	tk_cli_close_trace(cli, src);
	if (rc == 0)
		rc = tk_calls_finish(calls, NULL);
	tk_calls_free(calls);
	if (rc == 0 && spill)
		rc = tk_callspill_walk(spill, out);
	tk_callspill_free(spill);
	if (rc < 0) {
		if (!reported)
			tk_cli_error(cli, "%s", tk_strerror(rc));
		return TK_ST_FAIL;
	}
	return TK_ST_OK;
}

tk_status tk_cli_run_calls(tk_cli *cli, const tk_calls_sink *sink, tk_callwalk **out)
{
	if (out)
		*out = NULL;
	context_filter filter = {sink, (uint32_t)cli->context, false};
	tk_calls_sink filtered = {&filter, filter_confirm, filter_join, filter_finish};
	if (sink && cli->context >= 0)
		sink = &filtered;

	bool used;
	tk_status st = from_index(cli, sink, out, &used);
	if (st != TK_ST_OK)
		return st;
	if (!used && (st = from_trace(cli, sink, out)) != TK_ST_OK)
		return st;

	if (cli->context >= 0) {
		int rc = sink ? (filter.found ? 0 : TK_ERR_NOTFOUND)
			      : tk_callwalk_keep_context(*out, (uint32_t)cli->context);
		if (rc < 0) {
			if (rc == TK_ERR_NOTFOUND)
				tk_cli_error(cli, "%s: no context %lld in the trace", cli->trace,
					     (long long)cli->context);
			else
				tk_cli_error(cli, "%s", tk_strerror(rc));
			if (!sink) {
				tk_callwalk_free(*out);
				*out = NULL;
			}
			return TK_ST_FAIL;
		}
	}
	if (!sink && tk_callwalk_count(*out) == 0) {
		tk_cli_error(cli, "%s: no instructions found in the trace", cli->trace);
		tk_callwalk_free(*out);
		*out = NULL;
		return TK_ST_FAIL;
	}
	return TK_ST_OK;
}
