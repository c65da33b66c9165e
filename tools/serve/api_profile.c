/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: the profile (time per function) and the flame graph
 * (time per call stack), each made once from the index's call tree and
 * kept as JSON text.
 *
 * For an activation, total time is its exit time less its entry time, plus
 * one (its first and last instruction both count, as tarmac-profile counts)
 * and total instructions its instructions, first and last included; self is total less the direct callees' totals.  A
 * flame graph frame is one distinct call stack; its activations are
 * listed (the first 64 ids) so that a click can jump to one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_out.h"
#include "serve.h"

#define IDS_PER_FRAME 64

typedef struct acc {
	uint64_t addr, count;
	uint64_t time, self_time, insns, self_insns;
	uint32_t first;		/* first activation */
	uint32_t parent;	/* flame graph: parent frame */
	uint32_t nids;
	uint32_t *ids;
} acc;

/* A table of accumulators keyed by (parent frame, address). */
typedef struct table {
	acc *rows;
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: row + 1, 0 = empty */
	uint32_t nslots;
} table;

static uint64_t hash(uint32_t parent, uint64_t addr)
{
	return (addr * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)parent * 0xc2b2ae3d27d4eb4full);
}

static int grow(table *tb)
{
	uint32_t ns = tb->nslots ? tb->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t i = 0; i < tb->n; i++) {
		uint64_t h = hash(tb->rows[i].parent, tb->rows[i].addr) & (ns - 1);
		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = i + 1;
	}
	free(tb->slots);
	tb->slots = slots;
	tb->nslots = ns;
	return 0;
}

static acc *lookup(table *tb, uint32_t parent, uint64_t addr, uint32_t *row)
{
	if (2 * (tb->n + 1) > tb->nslots && grow(tb))
		return NULL;
	uint64_t h = hash(parent, addr) & (tb->nslots - 1);
	for (; tb->slots[h]; h = (h + 1) & (tb->nslots - 1)) {
		acc *a = &tb->rows[tb->slots[h] - 1];
		if (a->addr == addr && a->parent == parent) {
			*row = tb->slots[h] - 1;
			return a;
		}
	}
	if (tb->n == tb->cap) {
		uint32_t cap = tb->cap ? tb->cap * 2 : 256;
		acc *rows = realloc(tb->rows, cap * sizeof *rows);
		if (!rows)
			return NULL;
		tb->rows = rows;
		tb->cap = cap;
	}
	acc *a = &tb->rows[tb->n];
	memset(a, 0, sizeof *a);
	a->addr = addr;
	a->parent = parent;
	tb->slots[h] = tb->n + 1;
	*row = tb->n++;
	return a;
}

static void table_free(table *tb)
{
	for (uint32_t i = 0; i < tb->n; i++)
		free(tb->rows[i].ids);
	free(tb->rows);
	free(tb->slots);
}

static uint64_t span_time(const tk_call *c)
{
	return c->exit.time >= c->entry.time ? c->exit.time - c->entry.time + 1 : 0;
}

static uint64_t span_insns(const tk_call *c)
{
	return c->exit.pos - c->entry.pos + 1;
}

/* An activation whose callees are still being read. */
typedef struct open_call {
	uint32_t depth, row;
	uint64_t t, n;		/* its totals */
	uint64_t ct, cn;	/* its direct callees' totals so far */
} open_call;

static void close_call(table *tb, const open_call *o)
{
	acc *a = &tb->rows[o->row];
	a->self_time += o->t > o->ct ? o->t - o->ct : 0;
	a->self_insns += o->n > o->cn ? o->n - o->cn : 0;
}

/* Fill tb: by_stack false gives one row per function, true one per call
 * stack (frame of the parent's stack + the function).  The tree is walked
 * in preorder from the index; the open activations (one per depth) wait
 * for their callees' totals. */
static int accumulate(const tk_index *idx, bool by_stack, table *tb)
{
	tk_callwalk *w;
	if (tk_index_calls_walk(idx, 0, &w) < 0)
		return -1;
	open_call *st = NULL;
	size_t sp = 0, cap = 0;
	tk_call node, *call = &node;
	int rc = 0, more = 0;
	for (uint32_t c = 0; rc == 0 && (more = tk_callwalk_next(w, call)) > 0; c++) {
		while (sp && st[sp - 1].depth >= call->depth)
			close_call(tb, &st[--sp]);
		uint64_t t = span_time(call), n = span_insns(call);
		uint32_t parent = UINT32_MAX;
		if (sp && call->parent != TK_CALL_NONE) {
			st[sp - 1].ct += t;
			st[sp - 1].cn += n;
			if (by_stack)
				parent = st[sp - 1].row;
		}
		uint32_t row;
		acc *a = lookup(tb, parent, call->entry.pc, &row);
		if (!a) {
			rc = -1;
			break;
		}
		if (!a->count)
			a->first = c;
		a->count++;
		a->time += t;
		a->insns += n;
		if (by_stack && a->nids < IDS_PER_FRAME) {
			uint32_t *ids = realloc(a->ids, (a->nids + 1) * sizeof *ids);
			if (!ids) {
				rc = -1;
				break;
			}
			a->ids = ids;
			a->ids[a->nids++] = c;
		}
		if (sp == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			open_call *ns = realloc(st, ncap * sizeof *ns);
			if (!ns) {
				rc = -1;
				break;
			}
			st = ns;
			cap = ncap;
		}
		st[sp++] = (open_call){call->depth, row, t, n, 0, 0};
	}
	if (more < 0)
		rc = -1;
	while (rc == 0 && sp)
		close_call(tb, &st[--sp]);
	free(st);
	tk_callwalk_free(w);
	return rc;
}

static json_t *row_json(tks_trace *t, const acc *a)
{
	char name[256];
	const char *n = tks_func_name(t, a->addr, name, sizeof name);
	json_t *j = json_pack("{s:o,s:I,s:I,s:I,s:I,s:I,s:I}", "addr", tks_hex(a->addr), "count",
			      (json_int_t)a->count, "time", (json_int_t)a->time, "self_time",
			      (json_int_t)a->self_time, "insns", (json_int_t)a->insns, "self_insns",
			      (json_int_t)a->self_insns, "first", (json_int_t)a->first);
	if (j)
		json_object_set_new(j, "name", n ? json_string(n) : json_null());
	return j;
}

static char *make_profile(tks_trace *t)
{
	table tb = {0};
	json_t *rows = json_array(), *out = NULL;
	if (rows && accumulate(t->idx, false, &tb) == 0) {
		for (uint32_t i = 0; i < tb.n; i++)
			json_array_append_new(rows, row_json(t, &tb.rows[i]));
		out = json_pack("{s:O}", "functions", rows);
	}
	json_decref(rows);
	table_free(&tb);
	char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	return text;
}

static char *make_flame(tks_trace *t)
{
	table tb = {0};
	json_t *frames = json_array(), *out = NULL;
	if (frames && accumulate(t->idx, true, &tb) == 0) {
		/* Frames were created parents first (preorder): ids are row
		 * numbers and a parent always precedes its children. */
		for (uint32_t i = 0; i < tb.n; i++) {
			const acc *a = &tb.rows[i];
			json_t *j = row_json(t, a), *ids = json_array();
			for (uint32_t k = 0; ids && k < a->nids; k++)
				json_array_append_new(ids, json_integer(a->ids[k]));
			json_object_set_new(j, "ids", ids);
			json_object_set_new(j, "parent", a->parent == UINT32_MAX ? json_integer(-1)
						 : json_integer(a->parent));
			json_array_append_new(frames, j);
		}
		tk_call root;
		bool advance = tk_index_get_call(t->idx, 0, &root) == 0 && span_time(&root) > 0;
		out = json_pack("{s:O,s:s}", "frames", frames, "unit",
				advance ? "time" : "instructions");
	}
	json_decref(frames);
	table_free(&tb);
	char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	return text;
}

static json_t *cached(tks_trace *t, char **slot, char *(*make)(tks_trace *), tks_error *e)
{
	pthread_mutex_lock(&t->lock);
	if (!*slot)
		*slot = make(t);
	pthread_mutex_unlock(&t->lock);
	if (!*slot)
		return tks_fail(e, 500, "out of memory");
	return tks_raw_json(*slot);
}

json_t *tks_api_profile(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	if (!tk_index_call_count(t->idx))
		return tks_fail(e, 404, "the trace has no instructions, so no profile");
	return cached(t, &t->profile, make_profile, e);
}

json_t *tks_api_flamegraph(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	if (!tk_index_call_count(t->idx))
		return tks_fail(e, 404, "the trace has no instructions, so no flame graph");
	return cached(t, &t->flame[0], make_flame, e);
}
