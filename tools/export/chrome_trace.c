/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit export --to=chrome: Chrome Trace Event JSON (see export.h). */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json/json_out.h"

typedef struct chrome {
	tk_cli *cli;
	tkj_stream js;
	const tke_opts *o;
	int err;
	uint64_t events;
	bool advanced;		/* some activation took time */
	/* Contexts whose track is named already (one bit each, the first
	 * 4096; beyond, tracks are left unnamed). */
	uint8_t named[4096 / 8];
} chrome;

/* Name the track of a context the first time one of its calls is seen:
 * "cpu0", "thread 12"... as the trace calls its contexts. */
static int name_track(chrome *c, uint32_t context)
{
	if (context >= 4096 || (c->named[context / 8] & (1u << (context % 8))))
		return 0;
	c->named[context / 8] |= (uint8_t)(1u << (context % 8));
	char name[48];
	tke_context_name(c->cli, context, name, sizeof name);
	return tkj_stream_item(&c->js, json_pack("{s:s,s:s,s:i,s:I,s:{s:s}}", "name",
						 "thread_name", "ph", "M", "pid", 1, "tid",
						 (json_int_t)context, "args", "name", name));
}

static double ts(const chrome *c, const tk_tpos *p)
{
	return c->o->insns ? (double)p->pos : (double)p->time * c->o->scale;
}

static int emit(chrome *c, const tk_call *call, bool root)
{
	const char *name = tk_cli_symbol_name(c->cli, call->entry.pc);
	char hex[32];
	if (!name) {
		snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)call->entry.pc);
		name = hex;
	}
	double t0 = ts(c, &call->entry), t1 = ts(c, &call->exit);
	if (c->o->insns)
		t1 += 1;	/* the last instruction counts */
	if (t1 > t0)
		c->advanced = true;
	json_t *args = json_pack("{s:I,s:I,s:o}", "entry_line", (json_int_t)call->entry.line,
				 "exit_line", (json_int_t)call->exit.line, "pc",
				 tkj_hex(call->entry.pc));
	if (args && !root)
		json_object_set_new(args, "call_line", json_integer((json_int_t)call->call.line));
	json_t *ev = json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:I,s:o}", "name", name, "cat",
			       root ? "trace" : "call", "ph", "X", "ts", t0, "dur", t1 - t0,
			       "pid", 1, "tid", (json_int_t)call->context, "args", args);
	c->events++;
	if (name_track(c, call->context) || tkj_stream_item(&c->js, ev)) {
		c->err = TK_ERR_IO;
		return TK_ERR_IO;
	}
	return 0;
}

static int confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return emit(ctx, call, false);
}

static int join(void *ctx, uint32_t a, uint32_t b, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return 0;
}

static int finish(void *ctx, const tk_call *root, uint32_t children)
{
	return emit(ctx, root, true);
}

int tke_chrome(tk_cli *cli, FILE *fp, const tke_opts *o)
{
	chrome c = {.cli = cli, .o = o};
	const char *base = strrchr(cli->trace, '/');
	json_t *head = json_pack("{s:s,s:{s:s,s:s,s:s,s:f}}", "displayTimeUnit", "ns",
				 "otherData", "exporter", "tracekit " TK_VERSION_STRING, "trace",
				 base ? base + 1 : cli->trace, "unit",
				 o->insns ? "instructions" : "trace time", "us_per_unit",
				 o->insns ? 1.0 : o->scale);
	if (tkj_stream_begin(&c.js, fp, head, "traceEvents"))
		goto io;
	/* Name the process; each context's track is named as it appears. */
	if (tkj_stream_item(&c.js, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "process_name",
					     "ph", "M", "pid", 1, "tid", 0, "args", "name",
					     base ? base + 1 : cli->trace)))
		goto io;
	tk_calls_sink sink = {&c, confirm, join, finish};
	if (tk_cli_run_calls(cli, &sink, NULL))
		return -1;
	if (c.err || tkj_stream_end(&c.js))
		goto io;
	if (!c.advanced && !o->insns && !cli->quiet)
		fprintf(stderr, "%s: the trace's timestamps do not advance: --unit=instructions "
			"gives a more useful time line\n", cli->prog);
	return 0;
io:
	tk_cli_error(cli, "error writing the output");
	return -1;
}
