/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The call spill (tk_callspill) gives, node for node, the tree the
 * detector builds in memory: on random streams of function events in
 * several contexts (nested calls, returns that unwind several frames,
 * returns matching nothing, calls never returned) and on a deep chain.
 * Built twice by tests/calls.cmake: as is, and with tiny buffers
 * (TK_IDX_SMALL_BUFFERS) so that the spill file, the backward pass's
 * window and the external sort's runs are all exercised. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../rand.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"

/* One stream fed to two detectors: one building the tree, one spilling. */
struct pair {
	tk_calls *tree, *spill;
	tk_callspill *sp;
	uint64_t line;
};

static void pair_init(struct pair *p)
{
	memset(p, 0, sizeof *p);
	tk_calls_sink sink;
	tk_calls_opts o;
	if (tk_callspill_new(&p->sp, &sink) < 0 || tk_calls_new(NULL, &p->tree) < 0)
		abort();
	tk_calls_opts_init(&o);
	o.sink = &sink;
	if (tk_calls_new(&o, &p->spill) < 0)
		abort();
}

static void pair_feed(struct pair *p, tk_event_kind kind, uint32_t ctx, uint64_t addr)
{
	tk_event ev = {.kind = kind, .context = ctx};
	ev.u.func.addr = addr;
	ev.line = ++p->line;
	ev.offset = p->line * 37;
	ev.time = p->line * 3 + rnd(3);
	if (tk_calls_feed(p->tree, &ev) < 0 || tk_calls_feed(p->spill, &ev) < 0)
		abort();
}

static bool same(const tk_call *a, const tk_call *b)
{
	return !memcmp(a, b, sizeof *a);
}

/* Finish both and compare, whole and for one context. */
static void pair_check(struct pair *p, uint32_t keep)
{
	tk_calltree *t;
	tk_callwalk *w, *w2;
	CHECK(tk_calls_finish(p->tree, &t) == 0);
	CHECK(tk_calls_finish(p->spill, NULL) == 0);
	CHECK_EQ(tk_callspill_count(p->sp), t->count);
	CHECK(tk_callspill_walk(p->sp, &w) == 0);
	CHECK(tk_callspill_walk(p->sp, &w2) == 0);	/* twice: the spill is kept */
	CHECK_EQ(tk_callwalk_count(w), t->count);
	CHECK_EQ(tk_callwalk_roots(w), t->nroots);
	tk_call c;
	uint32_t bad = 0, n = 0;
	while (tk_callwalk_next(w, &c) == 1) {
		if (n >= t->count || !same(&c, &t->calls[n]))
			bad++;
		n++;
	}
	CHECK_EQ(n, t->count);
	CHECK_EQ(bad, 0);
	/* one context, renumbered, as tk_calltree_keep_context does */
	int rk = tk_callwalk_keep_context(w2, keep);
	int rt = tk_calltree_keep_context(t, keep);
	CHECK_EQ(rk, rt);
	if (rt == 0) {
		CHECK_EQ(tk_callwalk_count(w2), t->count);
		n = bad = 0;
		while (tk_callwalk_next(w2, &c) == 1) {
			if (n >= t->count || !same(&c, &t->calls[n]))
				bad++;
			n++;
		}
		CHECK_EQ(n, t->count);
		CHECK_EQ(bad, 0);
	}
	CHECK(tk_callwalk_keep_context(w, keep) == TK_ERR_INVAL || rt != 0);
	tk_callwalk_free(w);
	tk_callwalk_free(w2);
	tk_calltree_free(t);
	tk_calls_free(p->tree);
	tk_calls_free(p->spill);
	tk_callspill_free(p->sp);
}

/* Random streams: each context has a stack of open functions; a step
 * calls, returns from the top, returns from deeper down (unwinding), or
 * returns from a function not open at all. */
static void test_random(unsigned events, unsigned contexts, unsigned maxdepth)
{
	struct pair p;
	pair_init(&p);
	enum { MAXCTX = 8 };
	uint64_t *stack[MAXCTX];
	unsigned depth[MAXCTX] = {0};
	for (unsigned i = 0; i < contexts; i++)
		if (!(stack[i] = malloc(maxdepth * sizeof *stack[i])))
			abort();
	for (unsigned e = 0; e < events; e++) {
		uint32_t ctx = rnd(contexts);
		unsigned *d = &depth[ctx];
		uint32_t r = rnd(100);
		if (*d == 0 || (r < 52 && *d < maxdepth)) {
			uint64_t fn = 0x1000 + 0x10 * rnd(64);
			stack[ctx][(*d)++] = fn;
			pair_feed(&p, TK_EV_CALL, ctx * 2 + 1, fn);
		} else if (r < 95) {
			pair_feed(&p, TK_EV_RETURN, ctx * 2 + 1, stack[ctx][--*d]);
		} else if (r < 98) {
			unsigned k = rnd(*d);	/* unwinds the frames above k */
			pair_feed(&p, TK_EV_RETURN, ctx * 2 + 1, stack[ctx][k]);
			/* the innermost open frame of that function is closed */
			unsigned j = *d;
			while (j > 0 && stack[ctx][j - 1] != stack[ctx][k])
				j--;
			*d = j - 1;
		} else {
			pair_feed(&p, TK_EV_RETURN, ctx * 2 + 1, 0xdead0);
		}
	}
	pair_check(&p, 3);
	for (unsigned i = 0; i < contexts; i++)
		free(stack[i]);
}

/* A chain 100,000 deep, then siblings under each level on the way out. */
static void test_deep(void)
{
	enum { DEPTH = 100000 };
	struct pair p;
	pair_init(&p);
	for (unsigned i = 0; i < DEPTH; i++)
		pair_feed(&p, TK_EV_CALL, 0, 0x4000 + 4 * (i % 7));
	for (unsigned i = DEPTH; i-- > 0;) {
		pair_feed(&p, TK_EV_CALL, 0, 0x9000);
		pair_feed(&p, TK_EV_RETURN, 0, 0x9000);
		pair_feed(&p, TK_EV_RETURN, 0, 0x4000 + 4 * (i % 7));
	}
	pair_check(&p, 0);
}

/* Nothing at all: an empty walk. */
static void test_empty(void)
{
	struct pair p;
	pair_init(&p);
	pair_check(&p, 0);
}

int main(void)
{
	test_empty();
	test_random(2000, 1, 50);
	test_random(50000, 3, 400);
	test_random(200000, 5, 3000);
	test_deep();
	return check_report("callspill");
}
