/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit profile (tarmac-profile): time spent in every function.
 *
 * The seed's table, columns 12 characters wide and left-aligned:
 *   Address     Count       Time        Function name
 *   0x8000      1           1234
 *   0x8034      10          1020        foo
 * One row per function entry address, the root (the whole trace, count 1)
 * included, sorted by address.  Time is the sum over the function's
 * activations of (exit - entry + 1), from the timestamps the activation's
 * 'o' line in calltree shows: both its first and its last instruction
 * count, as in Arm's tarmac-profile (a one-instruction activation takes 1).
 * It includes callees, and recursion counts the inner activations again.  The name column needs --image; a row without a name
 * ends after the time.  Rows are accumulated as calls are confirmed, so
 * memory is one entry per function.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/srclines.h"
#include "json/json_api.h"

static bool json;
static const struct option json_opt[] = {{"json", no_argument, NULL, 256}, {NULL, 0, NULL, 0}};

static int json_flag(tk_cli *cli, int val, const char *arg, void *ctx)
{
	json = true;	/* --json: the only extra option */
	return 0;
}

static const tk_cli_spec spec = {
	.usage = "[OPTIONS] TRACE",
	.summary =
		"Print simple profiling data: for every function entry address found\n"
		"in the trace (and the trace's first instruction, for the whole trace),\n"
		"the number of calls and the total time spent in it, callees included\n"
		"(the sum of exit - entry + 1 timestamps over its activations: the first\n"
		"and the last instruction both count).",
	.options_help = "  --json                   print the table as JSON (docs/API.md)\n",
	.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE | TK_CLI_CONTEXT | TK_CLI_SOURCE_LINES,
	.min_args = 0,
	.max_args = 0,
	.extra = json_opt,
	.handle = json_flag,
};

struct row {
	uint64_t addr, count, time;
};

/* Open addressing, keyed by address; count == 0 marks an empty slot. */
struct profile {
	struct row *rows;
	size_t cap, used;
	bool finished;
};

static size_t slot(const struct profile *p, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 20) & (p->cap - 1);
	while (p->rows[i].count && p->rows[i].addr != addr)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static int add(struct profile *p, const tk_call *call)
{
	if (2 * (p->used + 1) > p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 256;
		struct row *old = p->rows;
		size_t ocap = p->cap;
		if (!(p->rows = calloc(ncap, sizeof *p->rows))) {
			p->rows = old;
			return TK_ERR_NOMEM;
		}
		p->cap = ncap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].count)
				p->rows[slot(p, old[i].addr)] = old[i];
		free(old);
	}
	struct row *r = &p->rows[slot(p, call->entry.pc)];
	if (!r->count) {
		r->addr = call->entry.pc;
		p->used++;
	}
	r->count++;
	/* Both ends count; timestamps that go back count as one instant. */
	r->time += call->exit.time >= call->entry.time ? call->exit.time - call->entry.time + 1 : 1;
	return 0;
}

static int confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return add(ctx, call);
}

static int join(void *ctx, uint32_t a, uint32_t b, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return 0;
}

static int finish(void *ctx, const tk_call *root, uint32_t children)
{
	struct profile *p = ctx;
	p->finished = true;
	return add(p, root);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A column: the text padded to 12, or followed by one space if longer. */
static void column(FILE *fp, const char *text)
{
	size_t n = strlen(text);
	fprintf(fp, "%s%*s", text, n < 12 ? (int)(12 - n) : 1, "");
}

int tk_cmd_profile(int argc, char **argv)
{
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	struct profile p = {0};
	tk_calls_sink sink = {&p, confirm, join, finish};
	int status = TK_EXIT_FAIL;
	tk_srclines *lines = NULL;	/* --source-lines: a last column, Source */
	tk_status st = tk_cli_load_image(&cli);
	if (st == TK_ST_OK && cli.source_lines && tk_srclines_open(&cli, &lines))
		st = TK_ST_FAIL;
	if (st == TK_ST_OK)
		st = tk_cli_run_calls(&cli, &sink, NULL);
	if (st != TK_ST_OK) {
		status = tk_cli_exit(st);
		goto out;
	}
	if (!p.finished) {
		tk_cli_error(&cli, "%s: no instructions found in the trace", cli.trace);
		goto out;
	}
	/* Compact the table and sort it by address. */
	size_t n = 0;
	for (size_t i = 0; i < p.cap; i++)
		if (p.rows[i].count)
			p.rows[n++] = p.rows[i];
	qsort(p.rows, n, sizeof *p.rows, cmp_addr);

	FILE *fp = tk_cli_open_output(&cli);
	if (!fp)
		goto out;
	if (json) {
		tkj_stream js;
		const tkj_api *jw = tkj_load(&cli);
		int rc = jw ? jw->profile_begin(&js, fp, &cli) : -1;
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = jw->profile_row(&js, &cli, p.rows[i].addr, p.rows[i].count, p.rows[i].time);
		if (rc || jw->stream_end(&js))
			tk_cli_discard_output(&cli, fp);
		else if (tk_cli_close_output(&cli, fp) == 0)
			status = TK_EXIT_OK;
		goto out;
	}
	fprintf(fp, "Address     Count       Time        Function name%s\n", lines ? " Source" : "");
	for (size_t i = 0; i < n; i++) {
		char buf[32];
		const struct row *r = &p.rows[i];
		snprintf(buf, sizeof buf, "0x%" PRIx64, r->addr);
		column(fp, buf);
		snprintf(buf, sizeof buf, "%" PRIu64, r->count);
		column(fp, buf);
		const char *name = tk_cli_symbol_name(&cli, r->addr);
		const char *src = lines ? tk_srclines_get(lines, r->addr) : NULL;
		if (src) {
			snprintf(buf, sizeof buf, "%" PRIu64, r->time);
			column(fp, buf);
			column(fp, name ? name : "");
			fprintf(fp, "%s\n", src);
		} else if (name) {
			snprintf(buf, sizeof buf, "%" PRIu64, r->time);
			column(fp, buf);
			fprintf(fp, "%s\n", name);
		} else {
			fprintf(fp, "%" PRIu64 "\n", r->time);
		}
	}
	status = tk_cli_close_output(&cli, fp) ? TK_EXIT_FAIL : TK_EXIT_OK;
out:
	tk_srclines_free(lines);
	free(p.rows);
	tk_cli_fini(&cli);
	return status;
}
