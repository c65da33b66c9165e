/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs of instructions (TK_EV_RUN) against the same instructions one by
 * one: the call detector must find exactly the same calls, read directly
 * and through piece summaries (callsum.h), on random x86-64 flows with
 * calls, calls to the next instruction, returns, longjmp-like returns,
 * returns matching nothing, recursion deeper than the stack's unhashed
 * top, jumps, gaps and two interleaved contexts.  Only the byte offsets
 * may differ: a run has one, its first instruction's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../rand.h"
#include "callsum.h"
#include "tracekit/calls.h"

struct ins {
	uint64_t pc;
	uint8_t width;
	tk_branch branch;
	bool gap_before;
};

static uint64_t func_addr(void)
{
	return 0x400000 + (uint64_t)rnd(64) * 0x1000 + rnd(16) * 8;
}

/* n instructions of one context's flow. */
static struct ins *make_flow(size_t n)
{
	struct ins *f = calloc(n, sizeof *f);
	uint64_t stack[256];
	unsigned depth = 0;
	uint64_t pc = func_addr();
	unsigned dive = 0;	/* calls to make in a row (deep recursion) */
	if (!f)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct ins *in = &f[i];
		in->pc = pc;
		in->width = (uint8_t)(1 + rnd(7));
		in->gap_before = i && rnd(2000) == 0;
		uint32_t r = dive ? 70 : rnd(100);
		if (!dive && rnd(3000) == 0)
			dive = 20 + rnd(40);
		if (r < 58) {
			in->branch = TK_BR_NONE;
			pc += in->width;
		} else if (r < 66) {
			in->branch = TK_BR_JUMP;
			pc = rnd(2) ? pc + in->width : func_addr();
		} else if (r < 80) {
			in->branch = TK_BR_CALL;
			if (dive)
				dive--;
			if (rnd(20) == 0) {	/* the PIC idiom: no call */
				pc += in->width;
				continue;
			}
			if (depth < sizeof stack / sizeof stack[0])
				stack[depth++] = pc + in->width;
			pc = func_addr();
		} else if (r < 94 && depth) {
			in->branch = TK_BR_RETURN;
			if (rnd(30) == 0) {
				pc = func_addr() + 3;	/* matches no frame */
			} else {
				if (rnd(15) == 0)	/* longjmp: skip frames */
					depth -= rnd(depth);
				pc = stack[--depth];
			}
		} else {
			in->branch = TK_BR_NONE;
			pc += in->width;
		}
	}
	return f;
}

/* The trace: two contexts' flows interleaved in segments, as INSN events
 * and as RUN events (cut after each call and return, and at random). */
struct trace {
	tk_event *insns, *runs;
	size_t ninsns, nruns;
};

static tk_insn insn_of(const struct ins *in)
{
	return (tk_insn){.pc = in->pc, .isa = TK_ISA_X86_64, .width = in->width,
			 .branch = in->branch, .executed = true, .mode = "", .disasm = ""};
}

static void make_trace(struct trace *t, size_t per_context)
{
	struct ins *flow[2] = {make_flow(per_context), make_flow(per_context)};
	size_t at[2] = {0, 0};
	t->insns = calloc(4 * per_context, sizeof *t->insns);
	t->runs = calloc(4 * per_context, sizeof *t->runs);
	if (!t->insns || !t->runs)
		abort();
	t->ninsns = t->nruns = 0;
	uint64_t line = 0;
	unsigned ctx = 0;
	while (at[0] < per_context || at[1] < per_context) {
		if (at[ctx] == per_context || rnd(40) == 0)
			ctx ^= 1;
		if (at[ctx] == per_context)
			continue;
		/* one run of context ctx */
		tk_event *run = NULL;
		while (at[ctx] < per_context) {
			struct ins *in = &flow[ctx][at[ctx]];
			if (in->gap_before) {
				if (run)
					break;	/* the gap ends the run */
				in->gap_before = false;
				line++;
				tk_event g = {.kind = TK_EV_GAP, .context = ctx, .line = line,
					      .time = line, .offset = line * 16};
				g.u.gap.kind = TK_GAP_OVERFLOW;
				t->insns[t->ninsns++] = g;
				t->runs[t->nruns++] = g;
			}
			at[ctx]++;
			line++;
			t->insns[t->ninsns++] = (tk_event){.kind = TK_EV_INSN, .context = ctx,
							   .line = line, .time = line,
							   .offset = line * 16,
							   .u.insn = insn_of(in)};
			if (!run) {
				run = &t->runs[t->nruns++];
				*run = (tk_event){.kind = TK_EV_RUN, .context = ctx, .line = line,
						  .time = line, .offset = line * 16};
				run->u.run.first_pc = in->pc;
			}
			run->u.run.count++;
			run->u.run.last = insn_of(in);
			if (in->branch == TK_BR_CALL || in->branch == TK_BR_RETURN || rnd(12) == 0)
				break;
		}
	}
	free(flow[0]);
	free(flow[1]);
}

static tk_calls *new_calls(void)
{
	tk_calls_opts o;
	tk_calls_opts_init(&o);
	o.steps = TK_STEPS_INSNS;
	tk_calls *c;
	if (tk_calls_new(&o, &c) < 0)
		abort();
	return c;
}

static tk_calltree *direct(const tk_event *evs, size_t n)
{
	tk_calls *c = new_calls();
	for (size_t i = 0; i < n; i++)
		if (tk_calls_feed(c, &evs[i]) < 0)
			abort();
	tk_calltree *t;
	if (tk_calls_finish(c, &t) < 0)
		abort();
	tk_calls_free(c);
	return t;
}

static uint64_t steps_of(const tk_event *ev)
{
	return ev->kind == TK_EV_RUN ? ev->u.run.count : ev->kind == TK_EV_INSN;
}

static uint64_t lines_of(const tk_event *ev)
{
	return ev->kind == TK_EV_RUN ? ev->u.run.count : 1;
}

/* Through summaries of pieces cut at random events, lines renumbered
 * from 1 in each piece as a piece reader numbers them. */
static tk_calltree *in_pieces(const tk_event *evs, size_t n)
{
	tk_calls *c = new_calls();
	tk_callsum *sum;
	if (tk_callsum_new(TK_STEPS_INSNS, &sum) < 0)
		abort();
	uint64_t step_base = 0, line_base = 0;
	for (size_t i = 0; i < n;) {
		size_t end = i + 1 + rnd(5000);
		if (end > n)
			end = n;
		tk_callsum_reset(sum);
		uint64_t steps = 0, lines = 0;
		for (; i < end; i++) {
			tk_event ev = evs[i];
			ev.line -= line_base;
			if (tk_callsum_feed(sum, &ev) < 0)
				abort();
			steps += steps_of(&evs[i]);
			lines += lines_of(&evs[i]);
		}
		if (tk_callsum_end(sum) < 0 ||
		    tk_calls_feed_summary(c, sum, step_base, line_base) < 0)
			abort();
		step_base += steps;
		line_base += lines;
	}
	tk_callsum_free(sum);
	tk_calltree *t;
	if (tk_calls_finish(c, &t) < 0)
		abort();
	tk_calls_free(c);
	return t;
}

static bool same_pos(const tk_tpos *a, const tk_tpos *b)
{
	return a->time == b->time && a->line == b->line && a->pc == b->pc && a->pos == b->pos;
}

/* The same calls, offsets aside; the number of differences. */
static unsigned compare(const char *what, const tk_calltree *a, const tk_calltree *b)
{
	if (a->count != b->count) {
		printf("%s: %u calls, not %u\n", what, b->count, a->count);
		return 1;
	}
	unsigned bad = 0;
	for (uint32_t i = 0; i < a->count; i++) {
		const tk_call *x = &a->calls[i], *y = &b->calls[i];
		if (same_pos(&x->call, &y->call) && same_pos(&x->entry, &y->entry) &&
		    same_pos(&x->exit, &y->exit) && same_pos(&x->resume, &y->resume) &&
		    x->parent == y->parent && x->depth == y->depth && x->flags == y->flags &&
		    x->context == y->context)
			continue;
		if (bad++ < 5)
			printf("%s: call %u differs: entry line %llu/%llu exit line %llu/%llu "
			       "flags %x/%x\n", what, i, (unsigned long long)x->entry.line,
			       (unsigned long long)y->entry.line, (unsigned long long)x->exit.line,
			       (unsigned long long)y->exit.line, x->flags, y->flags);
	}
	return bad;
}

static void test_runs(size_t per_context)
{
	struct trace t;
	make_trace(&t, per_context);
	CHECK(t.nruns < t.ninsns);
	tk_calltree *ref = direct(t.insns, t.ninsns);
	CHECK(ref->count > per_context / 20);	/* plenty of calls */
	unsigned unwound = 0, unreturned = 0;
	for (uint32_t i = 0; i < ref->count; i++) {
		unwound += !!(ref->calls[i].flags & TK_CALL_UNWOUND);
		unreturned += !!(ref->calls[i].flags & TK_CALL_UNRETURNED);
	}
	CHECK(unwound > 0);	/* the longjmp-like returns were exercised */
	tk_calltree *runs = direct(t.runs, t.nruns);
	CHECK(compare("runs", ref, runs) == 0);
	tk_calltree *pieces = in_pieces(t.runs, t.nruns);
	CHECK(compare("runs in pieces", ref, pieces) == 0);
	tk_calltree *ipieces = in_pieces(t.insns, t.ninsns);
	CHECK(compare("instructions in pieces", ref, ipieces) == 0);
	printf("%zu instructions, %zu runs, %u calls (%u unwound, %u unreturned)\n", t.ninsns,
	       t.nruns, ref->count, unwound, unreturned);
	tk_calltree_free(ref);
	tk_calltree_free(runs);
	tk_calltree_free(pieces);
	tk_calltree_free(ipieces);
	free(t.insns);
	free(t.runs);
}

int main(void)
{
	test_runs(2000);
	test_runs(300000);
	return check_report("calls.runs");
}
