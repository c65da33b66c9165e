/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: the traces, their lines, positions and symbols. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json_out.h"
#include "serve.h"
#include "view/highlight.h"

json_t *tks_api_traces(tks_server *s, tks_trace *unused, const tks_request *rq, tks_error *e)
{
	json_t *list = json_array();
	for (uint32_t i = 0; list && i < s->ntraces; i++) {
		tks_trace *t = &s->traces[i];
		tk_index_pos first, last;
		json_t *j = json_pack("{s:I,s:s,s:s,s:I,s:I,s:I,s:I,s:s,s:b}", "id", (json_int_t)t->id,
				      "file", t->cli.trace, "name", t->name, "size",
				      (json_int_t)t->info.trace_size, "lines",
				      (json_int_t)t->info.lines, "instructions",
				      (json_int_t)t->ninsns, "calls", (json_int_t)t->info.calls,
				      "index", tk_index_path(t->idx), "big_endian",
				      t->info.big_endian);
		if (!j)
			break;
		json_object_set_new(j, "image", t->cli.image ? json_string(t->cli.image) : json_null());
		/* What the source can tell: the page shows only the panes it fills. */
		unsigned caps = t->info.caps;
		json_object_set_new(j, "format", json_string(t->info.format ? t->info.format : ""));
		json_object_set_new(j, "time_unit", json_string(tk_time_unit_name(t->info.time_unit)));
		json_object_set_new(j, "context_name",
				    json_string(t->info.context_name ? t->info.context_name : "cpu"));
		json_object_set_new(j, "contexts", json_integer((json_int_t)t->info.contexts));
		json_object_set_new(j, "caps", json_pack("{s:b,s:b,s:b,s:b,s:b,s:b,s:b}",
				"instructions", !!(caps & TK_CAP_INSNS), "registers",
				!!(caps & TK_CAP_REGS), "memory", !!(caps & TK_CAP_MEM),
				"memory_values", !!(caps & TK_CAP_MEM_VALUES), "calls",
				!!(caps & TK_CAP_CALLS), "functions", !!(caps & TK_CAP_FUNCS),
				"contexts", !!(caps & TK_CAP_CONTEXTS)));
		if (t->ninsns && !tk_index_get_pos(t->idx, 0, &first) &&
		    !tk_index_get_pos(t->idx, t->ninsns - 1, &last)) {
			json_object_set_new(j, "time", json_pack("{s:I,s:I}", "first",
					(json_int_t)first.time, "last", (json_int_t)last.time));
			json_object_set_new(j, "isa", json_string(tk_isa_name(first.isa)));
			json_object_set_new(j, "first_line", json_integer((json_int_t)first.line));
		} else {
			json_object_set_new(j, "time", json_null());
			json_object_set_new(j, "isa", json_null());
		}
		json_array_append_new(list, j);
	}
	if (!list)
		return tks_fail(e, 500, "out of memory");
	return json_pack("{s:i,s:o}", "version", TKS_API_VERSION, "traces", list);
}

/* ---- lines ------------------------------------------------------------- */

typedef struct lines_ctx {
	tks_trace *t;
	json_t *out;
	bool events, classes, symbolic;
	uint32_t last_call_pos_checked;
} lines_ctx;

/* Syntax classes as runs: [[start, length, class], ...]. */
static json_t *class_runs(const char *text, int len)
{
	uint8_t cls[TKS_MAX_LINE_TEXT];
	json_t *runs = json_array();
	tkv_classify(text, len, cls);
	for (int x = 0; x < len && runs;) {
		int e = x;
		while (e < len && cls[e] == cls[x])
			e++;
		if (cls[x] != TKV_C_PLAIN)
			json_array_append_new(runs, json_pack("[i,i,i]", x, e - x, cls[x]));
		x = e;
	}
	return runs;
}

/* For the line of a call instruction: the call it makes. */
static json_t *call_made(tks_trace *t, uint64_t pos)
{
	uint32_t c;
	tk_index_call_pos cp;
	if (pos + 1 >= t->ninsns || tk_index_call_at(t->idx, pos + 1, &c) || c == 0 ||
	    tk_index_get_call_pos(t->idx, c, &cp) || cp.call != pos)
		return NULL;
	tk_call node, *call = &node;
	if (tk_index_get_call(t->idx, c, call))
		return NULL;
	uint64_t first, end;
	char name[256];
	tks_call_lines(t, c, &first, &end);
	json_t *j = json_pack("{s:I,s:o,s:I,s:I,s:I,s:I}", "id", (json_int_t)c, "addr",
			      tks_hex(call->entry.pc), "first_line", (json_int_t)first, "end_line",
			      (json_int_t)end, "exit_line", (json_int_t)call->exit.line, "insns",
			      (json_int_t)(cp.exit - cp.entry + 1));
	const char *n = tks_func_name(t, call->entry.pc, name, sizeof name);
	if (j && n)
		json_object_set_new(j, "name", json_string(n));
	return j;
}

static int add_line(void *vctx, const tks_line *l)
{
	lines_ctx *c = vctx;
	size_t len = l->len < TKS_MAX_LINE_TEXT ? l->len : TKS_MAX_LINE_TEXT;
	json_t *j = json_pack("{s:I,s:o,s:I}", "n", (json_int_t)l->n, "text",
			      tks_text(l->text, len), "insn", (json_int_t)l->pos);
	if (!j)
		return -1;
	if (len < l->len)
		json_object_set_new(j, "truncated", json_integer((json_int_t)l->len));
	if (l->is_insn) {
		json_object_set_new(j, "is_insn", json_true());
		json_t *call = call_made(c->t, l->pos);
		if (call)
			json_object_set_new(j, "calls", call);
	}
	if (c->classes)
		json_object_set_new(j, "cls", class_runs(l->text, (int)len));
	if (c->symbolic && l->is_insn && c->t->cli.symtab) {
		char sym[TKS_MAX_LINE_TEXT + 256];
		int n = tkv_symbolise(c->t->cli.symtab, l->text, (int)len, sym, (int)sizeof sym);
		if (n != (int)len || memcmp(sym, l->text, len)) {
			json_object_set_new(j, "sym", tks_text(sym, (size_t)n));
			if (c->classes && n <= TKS_MAX_LINE_TEXT)
				json_object_set_new(j, "sym_cls", class_runs(sym, n));
		}
	}
	if (c->events) {
		json_t *evs = json_array();
		for (size_t i = 0; evs && i < l->nevents; i++)
			json_array_append_new(evs, tkj_event(&l->events[i]));
		json_object_set_new(j, "events", evs);
	}
	return json_array_append_new(c->out, j);
}

static bool flag(const tks_request *rq, const char *key, bool def)
{
	const char *v = rq->param(rq->ctx, key);
	if (!v)
		return def;
	return strcmp(v, "0") && strcasecmp(v, "false") && strcasecmp(v, "no");
}

json_t *tks_api_lines(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t from, count = 100;
	if (tks_param_need_u64(rq, "from", &from, e) || tks_param_u64(rq, "count", &count, e) < 0)
		return NULL;
	if (count > TKS_MAX_LINES)
		return tks_fail(e, 400, "parameter 'count': at most %d lines per request", TKS_MAX_LINES);
	if (from == 0)
		return tks_fail(e, 400, "parameter 'from': lines are numbered from 1");
	lines_ctx c = {
		.t = t, .out = json_array(), .events = flag(rq, "events", true),
		.classes = flag(rq, "classes", false), .symbolic = flag(rq, "symbolic", false),
	};
	if (!c.out)
		return tks_fail(e, 500, "out of memory");
	int rc = tks_read_lines(t, from, count, add_line, &c);
	if (rc < 0) {
		json_decref(c.out);
		return tks_fail(e, 500, "cannot read the trace's lines");
	}
	return json_pack("{s:I,s:I,s:o}", "from", (json_int_t)from, "total",
			 (json_int_t)(tks_end_line(t) - 1), "lines", c.out);
}

/* ---- position ------------------------------------------------------------ */

json_t *tks_api_position(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t pos = 0, v;
	const char *pc_text = NULL, *dir = NULL;
	int have_line, have_time, have_insn, have_pc;
	if ((have_line = tks_param_u64(rq, "line", &v, e)) < 0 ||
	    (have_time = tks_param_u64(rq, "time", &v, e)) < 0 ||
	    (have_insn = tks_param_u64(rq, "insn", &v, e)) < 0 ||
	    (have_pc = tks_param_str(rq, "pc", TKS_MAX_EXPR, &pc_text, e)) < 0 ||
	    tks_param_str(rq, "dir", 8, &dir, e) < 0)
		return NULL;
	if (have_line + have_time + have_insn + have_pc != 1)
		return tks_fail(e, 400, "give one of line=, time=, insn= or pc=");
	if (!t->ninsns)
		return tks_fail(e, 404, "the trace has no instructions");
	if (have_line) {
		if (tks_param_line_pos(rq, t, "line", &pos, e))
			return NULL;
	} else if (have_insn) {
		if (v >= t->ninsns)
			return tks_fail(e, 400, "parameter 'insn': the trace has %" PRIu64
					" instructions", t->ninsns);
		pos = v;
	} else if (have_time) {
		if (tk_index_find_time(t->idx, v, &pos))
			return tks_fail(e, 404, "no instruction at or after time %" PRIu64, v);
	} else {
		/* pc=EXPR, from the position of from=LINE (registers there) in
		 * direction dir, or the visit=K'th visit from the start. */
		uint64_t from = TK_POS_NONE, visit = 1, pc;
		bool forward = !dir || !strcmp(dir, "next");
		if (dir && strcmp(dir, "next") && strcmp(dir, "prev"))
			return tks_fail(e, 400, "parameter 'dir': next or prev");
		if (rq->param(rq->ctx, "from") && tks_param_line_pos(rq, t, "from", &from, e))
			return NULL;
		if (tks_param_u64(rq, "visit", &visit, e) < 0)
			return NULL;
		if (visit == 0 || visit > 1000000)
			return tks_fail(e, 400, "parameter 'visit': 1 to 1000000");
		if (tks_eval_addr(t, from == TK_POS_NONE ? 0 : from, pc_text, &pc, e))
			return NULL;
		uint64_t at = from;
		for (uint64_t k = 0; k < visit; k++)
			if (tk_index_find_pc(t->idx, at, pc, forward, &at))
				return tks_fail(e, 404, "pc 0x%" PRIx64 ": no %s visit", pc,
						from == TK_POS_NONE ? "such" : forward ? "later" : "earlier");
		pos = at;
	}
	json_t *j = tks_position_json(t, pos);
	return j ? j : tks_fail(e, 500, "cannot read position %" PRIu64, pos);
}

/* ---- symbols ------------------------------------------------------------- */

json_t *tks_api_symbols(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	const char *q = "";
	uint64_t limit = 50, addr;
	int have_addr;
	if (tks_param_str(rq, "q", 256, &q, e) < 0 || tks_param_u64(rq, "limit", &limit, e) < 0 ||
	    (have_addr = tks_param_u64(rq, "addr", &addr, e)) < 0)
		return NULL;
	if (limit > 1000)
		limit = 1000;
	json_t *list = json_array();
	if (!list)
		return tks_fail(e, 500, "out of memory");
	uint32_t n = 0;
	const tk_symbol *syms = t->cli.symtab ? tk_symtab_symbols(t->cli.symtab, &n) : NULL;
	size_t ql = strlen(q);
	uint64_t found = 0;
	const tk_symbol *at = have_addr && t->cli.symtab ? tk_symtab_containing(t->cli.symtab, addr)
							 : NULL;
	for (uint32_t i = 0; i < n && found < limit; i++) {
		const tk_symbol *sym = &syms[i];
		if (have_addr ? sym != at : strncasecmp(sym->name, q, ql) != 0)
			continue;
		json_array_append_new(list, json_pack("{s:s,s:o,s:I,s:s}", "name", sym->name, "addr",
						      tks_hex(sym->addr), "size", (json_int_t)sym->size,
						      "kind", sym->kind == TK_SYM_FUNC ? "func" : "object"));
		found++;
	}
	return json_pack("{s:b,s:o}", "image", t->cli.symtab != NULL, "symbols", list);
}
