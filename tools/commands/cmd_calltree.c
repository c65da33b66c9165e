/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit calltree (tarmac-calltree): the whole tree of function calls.
 *
 * The seed's format, which scripts parse:
 *   o t:89 l:283 pc:0x20784 - t:376 l:930 pc:0x20b48 : NAME
 *     - t:100 l:308 pc:0x207b0 - t:166 l:463 pc:0x207b4
 *       o t:101 l:310 pc:0x20b4c - t:165 l:458 pc:0x20b80 :
 * An "o" line is an activation (entry and exit instructions), at column 4 *
 * depth; each "-" line is a call from the activation above it (the call
 * instruction and the instruction where the caller resumed), two columns
 * less deep than the callee's "o" line that follows it.  " NAME" is the
 * symbol at the entry address, with --image.
 *
 * A trace of several contexts (CPUs, threads) has one tree per context,
 * each after a line "cpu1:" (the context's kind and number), in the order
 * the contexts first appear; --context=N prints one tree, without it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/srclines.h"
#include "json/json_api.h"

static const struct option json_opt[] = {{"json", no_argument, NULL, 256}, {NULL, 0, NULL, 0}};

static int json_flag(tk_cli *cli, int val, const char *arg, void *ctx)
{
	*(bool *)ctx = true;	/* --json: the only extra option */
	return 0;
}

static bool json;

static const tk_cli_spec spec = {
	.usage = "[OPTIONS] TRACE",
	.summary =
		"Show the hierarchy of function calls identified in the trace: each\n"
		"activation ('o' lines: entry and return instruction) with the calls it\n"
		"made ('-' lines: call instruction and where the caller resumed),\n"
		"indented by depth.  With --image, function names follow the ':'.\n"
		"--debug=call_heuristics explains how each call was found.",
	.options_help = "  --json                   print the tree as JSON (docs/API.md)\n",
	.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE | TK_CLI_CONTEXT | TK_CLI_SOURCE_LINES,
	.min_args = 0,
	.max_args = 0,
	.extra = json_opt,
	.handle = json_flag,
	.ctx = &json,
};

static void print_span(FILE *fp, const tk_tpos *a, const tk_tpos *b)
{
	fprintf(fp, "t:%" PRIu64 " l:%" PRIu64 " pc:0x%" PRIx64 " - t:%" PRIu64 " l:%" PRIu64
		" pc:0x%" PRIx64, a->time, a->line, a->pc, b->time, b->line, b->pc);
}

int tk_cmd_calltree(int argc, char **argv)
{
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	tk_callwalk *t = NULL;
	FILE *fp;
	int status = TK_EXIT_FAIL;
	tk_srclines *lines = NULL;	/* --source-lines */
	tk_status st = tk_cli_load_image(&cli);
	if (st == TK_ST_OK && cli.source_lines && tk_srclines_open(&cli, &lines))
		st = TK_ST_FAIL;
	if (st == TK_ST_OK)
		st = tk_cli_run_calls(&cli, NULL, &t);
	if (st != TK_ST_OK) {
		status = tk_cli_exit(st);
		goto out;
	}
	if (!(fp = tk_cli_open_output(&cli)))
		goto out;
	const tkj_api *jw = json ? tkj_load(&cli) : NULL;
	if (json && !jw) {
		tk_cli_discard_output(&cli, fp);
		goto out;
	}
	if (json) {
		if (jw->calltree(fp, &cli, t))
			tk_cli_discard_output(&cli, fp);
		else if (tk_cli_close_output(&cli, fp) == 0)
			status = TK_EXIT_OK;
		goto out;
	}
	/* Calls are numbered in preorder: printing them in order is a walk. */
	bool several = tk_callwalk_roots(t) > 1;
	tk_call node, *c = &node;
	int rc;
	while ((rc = tk_callwalk_next(t, c)) > 0) {
		int indent = 4 * (int)c->depth;
		if (!c->depth && several)
			fprintf(fp, "%s%u:\n", cli.tinfo.context_name, c->context);
		if (c->depth) {
			fprintf(fp, "%*s- ", indent - 2, "");
			print_span(fp, &c->call, &c->resume);
			tk_srclines_put(fp, lines, " at ", c->call.pc);
			fputc('\n', fp);
		}
		fprintf(fp, "%*so ", indent, "");
		print_span(fp, &c->entry, &c->exit);
		const char *name = tk_cli_symbol_name(&cli, c->entry.pc);
		fprintf(fp, " :%s%s", name ? " " : "", name ? name : "");
		tk_srclines_put(fp, lines, " at ", c->entry.pc);
		fputc('\n', fp);
	}
	if (rc < 0) {
		tk_cli_error(&cli, "%s: %s", cli.trace, tk_strerror(rc));
		tk_cli_discard_output(&cli, fp);
	} else if (tk_cli_close_output(&cli, fp) == 0) {
		status = TK_EXIT_OK;
	}
out:
	tk_srclines_free(lines);
	tk_callwalk_free(t);
	tk_cli_fini(&cli);
	return status;
}
