/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit export --to=speedscope: an evented speedscope profile (see
 * export.h).  https://www.speedscope.app/file-format-schema.json */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json/json_out.h"

/* Frame index of each function, by entry address (open addressing). */
typedef struct frames {
	uint64_t *addr;
	uint32_t *id;
	uint32_t cap, n;
	json_t *list;
} frames;

static int frame_of(frames *f, tk_cli *cli, uint64_t addr, uint32_t *out)
{
	if (2 * (f->n + 1) > f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 1024;
		uint64_t *a = calloc(cap, sizeof *a);
		uint32_t *id = malloc(cap * sizeof *id);
		if (!a || !id) {
			free(a);
			free(id);
			return -1;
		}
		for (uint32_t i = 0; i < cap; i++)
			id[i] = UINT32_MAX;
		for (uint32_t i = 0; i < f->cap; i++)
			if (f->id[i] != UINT32_MAX) {
				uint32_t h = (uint32_t)((f->addr[i] * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
				while (id[h] != UINT32_MAX)
					h = (h + 1) & (cap - 1);
				a[h] = f->addr[i];
				id[h] = f->id[i];
			}
		free(f->addr);
		free(f->id);
		f->addr = a;
		f->id = id;
		f->cap = cap;
	}
	uint32_t h = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 40) & (f->cap - 1);
	while (f->id[h] != UINT32_MAX && f->addr[h] != addr)
		h = (h + 1) & (f->cap - 1);
	if (f->id[h] == UINT32_MAX) {
		const char *name = tk_cli_symbol_name(cli, addr);
		char hex[32];
		snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)addr);
		f->addr[h] = addr;
		f->id[h] = f->n++;
		if (json_array_append_new(f->list, json_pack("{s:s}", "name", name ? name : hex)))
			return -1;
	}
	*out = f->id[h];
	return 0;
}

static double at(const tke_opts *o, const tk_tpos *p, bool end)
{
	if (o->insns)
		return (double)p->pos + (end ? 1 : 0);
	return (double)p->time * o->scale;
}

static int event(tkj_stream *js, const char *type, uint32_t frame, double t, double *last)
{
	if (t < *last)
		t = *last;	/* timestamps that go back are held */
	*last = t;
	return tkj_stream_item(js, json_pack("{s:s,s:i,s:f}", "type", type, "frame", (int)frame,
					     "at", t));
}

int tke_speedscope(tk_cli *cli, FILE *fp, const tke_opts *o)
{
	tk_callwalk *t = NULL;
	if (tk_cli_run_calls(cli, NULL, &t) != TK_ST_OK)
		return -1;
	const char *base = strrchr(cli->trace, '/');
	base = base ? base + 1 : cli->trace;
	frames f = {.list = json_array()};
	/* The open calls: the ancestors of the node being read. */
	size_t cap = 64, sp = 0;
	tk_call *stack = malloc(cap * sizeof *stack), node;
	int rc = -1;
	double last = 0;
	if (!stack || !f.list)
		goto nomem;
	if (tk_callwalk_next(t, &node) <= 0) {
		tk_cli_error(cli, "%s: cannot read the call tree", cli->trace);
		goto out;
	}
	char *pre = NULL;
	json_t *head = json_pack("{s:s,s:s,s:i,s:s}", "$schema",
				 "https://www.speedscope.app/file-format-schema.json", "name", base,
				 "activeProfileIndex", 0, "exporter", "tracekit " TK_VERSION_STRING);
	if (!head)
		goto nomem;
	/* {head..., "profiles":[{prof..., "events":[ ... ]}, ...], "shared":{"frames":[...]}} */
	pre = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(head);
	if (!pre)
		goto nomem;
	pre[strlen(pre) - 1] = '\0';
	fprintf(fp, "%s,\"profiles\":[", pre);
	free(pre);
	tkj_stream js;
	uint32_t profiles = 0;
	/* Preorder: before opening a call, close the open ones it is not in
	 * (those at its depth or deeper).  Each context's root starts a
	 * profile of its own (one per CPU or thread). */
	int more = 1;
	for (const tk_call *call = &node; more > 0; more = tk_callwalk_next(t, &node)) {
		while (sp > call->depth) {
			const tk_call *top = &stack[--sp];
			uint32_t fr;
			if (frame_of(&f, cli, top->entry.pc, &fr))
				goto nomem;
			if (event(&js, "C", fr, at(o, &top->exit, true), &last))
				goto io;
		}
		if (call->depth == 0) {
			if (profiles++ && fputs("]},", fp) < 0)
				goto io;
			char name[48];
			tke_context_name(cli, call->context, name, sizeof name);
			json_t *prof = json_pack("{s:s,s:s,s:s,s:f,s:f}", "type", "evented", "name",
						 name, "unit", o->insns ? "none" : "microseconds",
						 "startValue", at(o, &call->entry, false), "endValue",
						 at(o, &call->exit, true));
			if (!prof)
				goto nomem;
			if (tkj_stream_begin(&js, fp, prof, "events"))
				goto io;
			last = at(o, &call->entry, false);
		}
		uint32_t fr;
		if (frame_of(&f, cli, call->entry.pc, &fr))
			goto nomem;
		if (event(&js, "O", fr, at(o, &call->entry, false), &last))
			goto io;
		if (sp == cap) {
			tk_call *ns = realloc(stack, 2 * cap * sizeof *ns);
			if (!ns)
				goto nomem;
			stack = ns;
			cap *= 2;
		}
		stack[sp++] = *call;
	}
	if (more < 0) {
		tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(more));
		goto out;
	}
	while (sp) {
		const tk_call *top = &stack[--sp];
		uint32_t fr;
		if (frame_of(&f, cli, top->entry.pc, &fr) ||
		    event(&js, "C", fr, at(o, &top->exit, true), &last))
			goto io;
	}
	/* The events array's "]}" closes the profile object. */
	if (fputs("]}", fp) < 0)
		goto io;
	fputs("],\"shared\":{\"frames\":", fp);
	if (json_dumpf(f.list, fp, JSON_COMPACT) || fputs("}}\n", fp) < 0)
		goto io;
	rc = 0;
	goto out;
nomem:
	tk_cli_error(cli, "out of memory");
	goto out;
io:
	tk_cli_error(cli, "error writing the output");
out:
	json_decref(f.list);
	free(f.addr);
	free(f.id);
	free(stack);
	tk_callwalk_free(t);
	return rc;
}
