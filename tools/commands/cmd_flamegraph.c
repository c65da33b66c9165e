/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit flamegraph (tarmac-flamegraph): profile by call stack.
 *
 * Default output: "folded stacks", the input of FlameGraph's flamegraph.pl,
 * one line per distinct call stack, sorted (flamegraph_folded.h: memory
 * linear in the distinct stacks, whatever their depth):
 *   _start;main;quicksort;quicksort 1234
 * Frames are named by the symbol at the function's entry address (with
 * --image), else by the address in hex; the first frame is the root (the
 * trace's first instruction), or, in a function trace (no instructions),
 * the outermost traced function.  The number is the stack's *self* value:
 * what was spent in its last function, not in the functions it called, so
 * each line's number adds up to the whole trace.  It counts trace time
 * (the difference of exit and entry timestamps of activations, as
 * tarmac-profile does), or, when the trace's timestamps never advance (or
 * with --unit=instructions), instructions executed.  Lines worth 0 are left
 * out.
 *
 * --svg writes a self-contained interactive SVG flame graph instead (see
 * flamegraph_svg.h): no Perl needed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "flamegraph_folded.h"
#include "flamegraph_lines.h"
#include "flamegraph_svg.h"

enum { OPT_SVG = 256, OPT_UNIT, OPT_TITLE };
enum unit { UNIT_AUTO, UNIT_TIME, UNIT_INSNS };

struct options {
	bool svg;
	enum unit unit;
	const char *title;
};

static const struct option extra[] = {
	{"svg", no_argument, NULL, OPT_SVG},
	{"unit", required_argument, NULL, OPT_UNIT},
	{"title", required_argument, NULL, OPT_TITLE},
	{NULL, 0, NULL, 0},
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct options *o = ctx;
	switch (val) {
	case OPT_SVG: o->svg = true; return 0;
	case OPT_TITLE: o->title = arg; return 0;
	case OPT_UNIT:
		if (!strcmp(arg, "time"))
			o->unit = UNIT_TIME;
		else if (!strcmp(arg, "instructions") || !strcmp(arg, "insns"))
			o->unit = UNIT_INSNS;
		else if (!strcmp(arg, "auto"))
			o->unit = UNIT_AUTO;
		else {
			tk_cli_error(cli, "--unit: '%s' is not time, instructions or auto", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

static const tk_cli_spec base_spec = {
	.usage = "[OPTIONS] TRACE",
	.summary =
		"Write profiling data by call stack: the 'folded stacks' that FlameGraph's\n"
		"flamegraph.pl turns into a flame graph (tracekit flamegraph TRACE |\n"
		"flamegraph.pl > out.svg), or with --svg an interactive SVG flame graph\n"
		"made by tracekit itself.  Each stack's number is the time spent in its\n"
		"last function itself (trace timestamps), or instructions executed when\n"
		"the trace's timestamps do not advance.",
	.options_help =
		"  --svg                    write an interactive SVG flame graph instead\n"
		"  --unit=UNIT              what to count: time (trace timestamps),\n"
		"                           instructions, or auto (default: time, unless\n"
		"                           the timestamps never advance)\n"
		"  --title=TEXT             the SVG's title\n",
	.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE | TK_CLI_OUTPUT | TK_CLI_CONTEXT |
		 TK_CLI_SOURCE_LINES,
	.min_args = 0,
	.max_args = 0,
	.extra = extra,
	.handle = handle,
};

int tk_cmd_flamegraph(int argc, char **argv)
{
	struct options o = {0};
	tk_cli_spec spec = base_spec;
	spec.ctx = &o;
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	tk_calls_sink sink;
	tk_callstacks *cs = NULL;
	int status = TK_EXIT_FAIL;
	char **names = NULL;
	uint32_t nframes = 0;
	tk_srclines *lines = NULL;	/* --source-lines: NAME@BASENAME:LINE */
	tk_fg_lines fl = {0};
	if (tk_cli_load_image(&cli))
		goto out;
	if (cli.source_lines && tk_srclines_open(&cli, &lines))
		goto out;
	if (lines)
		tk_srclines_basenames(lines, true);
	if ((lines ? tk_callstacks_new_by_site : tk_callstacks_new)(&cs, &sink) < 0)
		goto nomem;
	tk_status st = tk_cli_run_calls(&cli, &sink, NULL);
	if (st != TK_ST_OK) {
		status = tk_cli_exit(st);
		goto out;
	}
	uint32_t root;
	const tk_stack_frame *f = tk_callstacks_frames(cs, &nframes, &root);
	if (root == TK_CALL_NONE) {
		tk_cli_error(&cli, "%s: no instructions found in the trace", cli.trace);
		goto out;
	}
	bool insns = o.unit == UNIT_INSNS || (o.unit == UNIT_AUTO && f[root].total_time == 0);
	if (insns && o.unit == UNIT_AUTO && !cli.quiet)
		fprintf(stderr, "%s: the trace's timestamps do not advance: counting instructions\n",
			cli.prog);

	/* Names of the frames (those merged away get one too: harmless).
	 * With several contexts, each stack starts with its context: a root
	 * frame is named "cpu1;NAME". */
	bool several = f[root].next_sibling != TK_CALL_NONE;
	/* In a function trace the root is no function (it stands for the
	 * whole context): stacks start at the outermost traced function,
	 * after the context's name when there are several. */
	bool func_trace = !(cli.tinfo.caps & TK_CAP_INSNS) && (cli.tinfo.caps & TK_CAP_FUNCS);
	names = calloc(nframes, sizeof *names);
	if (!names)
		goto nomem;
	for (uint32_t i = 0; i < nframes; i++) {
		const char *sym = tk_cli_symbol_name(&cli, f[i].addr);
		char hex[24];
		if (!sym) {
			snprintf(hex, sizeof hex, "0x%" PRIx64, f[i].addr);
			sym = hex;
		}
		if (!(names[i] = strdup(sym)))
			goto nomem;
	}
	for (uint32_t r = root; several && r != TK_CALL_NONE; r = f[r].next_sibling) {
		size_t n = strlen(cli.tinfo.context_name) + strlen(names[r]) + 16;
		char *s = malloc(n);
		if (!s)
			goto nomem;
		if (func_trace)
			snprintf(s, n, "%s%u", cli.tinfo.context_name, f[r].context);
		else
			snprintf(s, n, "%s%u;%s", cli.tinfo.context_name, f[r].context, names[r]);
		free(names[r]);
		names[r] = s;
	}

	FILE *fp = tk_cli_open_output(&cli);
	if (!fp)
		goto out;
	int rc;
	if (lines) {
		/* Frames by source line: each context's stacks under "all". */
		rc = 0;
		for (uint32_t r = root; rc == 0 && r != TK_CALL_NONE; r = f[r].next_sibling) {
			tk_fg_lines_free(&fl);
			memset(&fl, 0, sizeof fl);
			rc = tk_fg_lines_build(f, r, (const char *const *)names, lines, &fl);
			if (rc == 0 && o.svg)
				rc = tk_flamegraph_svg(fp, fl.frames, fl.root,
						       (const char *const *)fl.names,
						       &(tk_flamegraph_svg_opts){
							       .title = o.title ? o.title : cli.trace,
							       .unit = insns ? "instructions" : "time units",
							       .insns = insns});
			else if (rc == 0)
				rc = tk_flamegraph_folded(fp, fl.frames, fl.count, fl.root,
							  (const char *const *)fl.names, insns, true);
			if (o.svg)
				break;	/* one picture: the first context */
		}
	} else if (o.svg) {
		char title[512];
		const char *base = strrchr(cli.trace, '/');
		snprintf(title, sizeof title, "Flame graph: %s", base ? base + 1 : cli.trace);
		tk_flamegraph_svg_opts so = {
			.title = o.title ? o.title : title,
			.unit = insns ? "instructions" : "time units",
			.insns = insns,
		};
		if (several) {
			/* one picture: the contexts side by side under "all" */
			tk_stack_frame *all = malloc((nframes + 1) * sizeof *all);
			char **allnames = malloc((nframes + 1) * sizeof *allnames);
			rc = all && allnames ? 0 : TK_ERR_NOMEM;
			if (rc == 0) {
				memcpy(all, f, nframes * sizeof *all);
				memcpy(allnames, names, nframes * sizeof *allnames);
				tk_stack_frame *t = &all[nframes];
				memset(t, 0, sizeof *t);
				t->calls = 1;
				t->first_child = root;
				t->next_sibling = TK_CALL_NONE;
				for (uint32_t r = root; r != TK_CALL_NONE; r = f[r].next_sibling) {
					t->total_time += f[r].total_time;
					t->total_insns += f[r].total_insns;
				}
				allnames[nframes] = "all";
				rc = tk_flamegraph_svg(fp, all, nframes,
						       (const char *const *)allnames, &so);
			}
			free(all);
			free(allnames);
		} else {
			rc = tk_flamegraph_svg(fp, f, root, (const char *const *)names, &so);
		}
	} else {
		rc = 0;
		for (uint32_t r = root; rc == 0 && r != TK_CALL_NONE; r = f[r].next_sibling)
			rc = tk_flamegraph_folded(fp, f, nframes, r, (const char *const *)names,
						  insns, func_trace && !several);
	}
	if (rc < 0) {
		/* Not close_output: that would rename the half-written
		 * temporary file into place. */
		tk_cli_discard_output(&cli, fp);
		if (rc == TK_ERR_IO)
			tk_cli_error(&cli, "error writing %s", cli.output ? cli.output : "standard output");
		else
			tk_cli_error(&cli, "out of memory");
		goto out;
	}
	if (tk_cli_close_output(&cli, fp))
		goto out;
	status = TK_EXIT_OK;
	goto out;
nomem:
	tk_cli_error(&cli, "out of memory");
out:
	for (uint32_t i = 0; names && i < nframes; i++)
		free(names[i]);
	free(names);
	tk_fg_lines_free(&fl);
	tk_srclines_free(lines);
	tk_callstacks_free(cs);
	tk_cli_fini(&cli);
	return status;
}
