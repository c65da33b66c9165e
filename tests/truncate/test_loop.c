/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test of lib/loop_detect.c: the streaming detector must give exactly
 * the answer of the rules in loop.h, computed here the slow way, on
 * hand-made and random key sequences; and its safe offset must never pass
 * the cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/loop.h"

#include "../check.h"

/* The rules of loop.h, directly: O(max_period * n). */
static int reference(const tk_loop_opts *o, const uint64_t *k, const bool *insn, uint64_t n,
		     tk_loop *out)
{
	memset(out, 0, sizeof *out);
	for (uint64_t p = 1; p <= o->max_period && p < n; p++) {
		uint64_t r = 0;
		while (r < n - p && k[n - 1 - r] == k[n - 1 - r - p])
			r++;
		uint64_t len = r + p;
		uint64_t need = p * o->min_repeats > o->min_lines ? p * o->min_repeats : o->min_lines;
		if (len < need)
			continue;
		out->period = (uint32_t)p;
		out->start = n - len;
		out->first = out->start;
		for (uint64_t a = out->start; a < out->start + p; a++)
			if (insn[a]) {
				out->first = a;
				break;
			}
		out->cut = out->first + (uint64_t)o->keep * p;
		return 1;
	}
	return 0;
}

/* Feed k[0..n) (offset of line i = 10 * i) and compare with the reference. */
static void run(const char *what, const tk_loop_opts *o, const uint64_t *k, const bool *insn,
		uint64_t n)
{
	tk_loopdet *d;
	if (tk_loopdet_new(o, &d)) {
		CHECKF(0, "%s: tk_loopdet_new", what);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		tk_loopdet_feed(d, k[i], insn[i], 10 * i);
	uint64_t safe = tk_loopdet_safe_offset(d);
	tk_loop got, want;
	int g = tk_loopdet_result(d, &got);
	int w = reference(o, k, insn, n, &want);
	CHECKF(g == w, "%s: found %d, expected %d (period %u)", what, g, w, want.period);
	if (g && w) {
		CHECKF(got.period == want.period, "%s: period %u, expected %u", what, got.period,
		      want.period);
		CHECKF(got.start == want.start && got.start_exact, "%s: start %llu, expected %llu",
		      what, (unsigned long long)got.start, (unsigned long long)want.start);
		CHECKF(got.first == want.first, "%s: first %llu, expected %llu", what,
		      (unsigned long long)got.first, (unsigned long long)want.first);
		CHECKF(got.cut == want.cut && got.cut_offset == 10 * want.cut,
		      "%s: cut %llu, expected %llu", what, (unsigned long long)got.cut,
		      (unsigned long long)want.cut);
		CHECKF(safe <= got.cut_offset, "%s: safe offset %llu beyond the cut %llu", what,
		      (unsigned long long)safe, (unsigned long long)got.cut_offset);
	}
	CHECKF(got.lines == n, "%s: lines %llu", what, (unsigned long long)got.lines);
	tk_loopdet_free(d);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

int main(void)
{
	tk_loop_opts o;
	tk_loop_opts_init(&o);
	CHECKF(o.max_period == 4096 && o.min_repeats == 3 && o.min_lines == 16 && o.keep == 2,
	      "defaults");

	enum { N = 200000 };
	uint64_t *k = malloc(N * sizeof *k);
	bool *insn = malloc(N);

	/* Hand-made: 10 distinct lines, then "I a b" (an instruction and two
	 * register lines) 12 times: the loop starts at 10, cut after 2 rounds. */
	uint64_t n = 0;
	for (int i = 0; i < 10; i++, n++)
		k[n] = 1000 + i, insn[n] = i % 3 == 0;
	for (int r = 0; r < 12; r++)
		for (int j = 0; j < 3; j++, n++)
			k[n] = 7 + j, insn[n] = j == 0;
	run("I a b x12", &o, k, insn, n);
	tk_loopdet *d;
	tk_loopdet_new(&o, &d);
	for (uint64_t i = 0; i < n; i++)
		tk_loopdet_feed(d, k[i], insn[i], 10 * i);
	tk_loop l;
	CHECKF(tk_loopdet_result(d, &l) == 1 && l.period == 3 && l.start == 10 && l.first == 10 &&
		      l.cut == 16 && l.cut_offset == 160,
	      "I a b x12: period %u start %llu cut %llu", l.period, (unsigned long long)l.start,
	      (unsigned long long)l.cut);
	tk_loopdet_free(d);

	/* The same, starting mid-iteration: "b I a b I a ...": the tail starts
	 * at the first b, the first kept iteration at the next I. */
	n = 0;
	k[n] = 999, insn[n++] = true;
	k[n] = 9, insn[n++] = false;
	for (int r = 0; r < 12; r++)
		for (int j = 0; j < 3; j++, n++)
			k[n] = 7 + j, insn[n] = j == 0;
	run("b I a b...", &o, k, insn, n);

	/* Too short to count: 5 repeats of one line (< 16 lines). */
	n = 0;
	for (int i = 0; i < 20; i++, n++)
		k[n] = 500 + i, insn[n] = true;
	for (int i = 0; i < 5; i++, n++)
		k[n] = 1, insn[n] = true;
	run("5 same lines", &o, k, insn, n);

	/* No instruction in the loop (a core in lockup printing messages). */
	n = 0;
	for (int i = 0; i < 30; i++, n++)
		k[n] = 300 + i, insn[n] = i % 2;
	for (int r = 0; r < 20; r++)
		for (int j = 0; j < 3; j++, n++)
			k[n] = 40 + j, insn[n] = false;
	k[n] = 40, insn[n++] = false;	/* ends mid-iteration */
	run("lockup messages", &o, k, insn, n);

	/* A long trace ending in a million-line... well, 150000-line loop of
	 * period 7, after a non-periodic prefix longer than the ring. */
	n = 0;
	while (n < 50000)
		k[n] = rnd(1u << 20), insn[n] = rnd(3) == 0, n++;
	while (n < N)
		k[n] = 77 + (n - 50000) % 7, insn[n] = (n - 50000) % 7 == 3, n++;
	run("long period 7", &o, k, insn, n);

	/* A normal ending after a long loop: no loop at the end. */
	for (int i = 0; i < 40; i++)
		k[N - 40 + i] = 5000 + i;
	run("loop then a normal end", &o, k, insn, N);

	/* Random: small alphabets make near-loops and coincidences common. */
	tk_loop_opts small = o;
	small.max_period = 40;
	small.min_lines = 8;
	for (int t = 0; t < 20000; t++) {
		unsigned alpha = 2 + (unsigned)rnd(4);
		n = 0;
		uint64_t pre = rnd(3) ? rnd(400) : rnd(3000);
		while (n < pre)
			k[n] = rnd(alpha), insn[n] = rnd(2), n++;
		if (rnd(4)) {
			uint64_t p = 1 + rnd(rnd(2) ? 8 : 60);
			uint64_t body[64];
			bool bi[64];
			for (uint64_t j = 0; j < p; j++)
				body[j] = rnd(alpha), bi[j] = rnd(3) == 0;
			uint64_t reps = rnd(12) * p + rnd(p + 1);
			for (uint64_t j = 0; j < reps; j++, n++)
				k[n] = body[j % p], insn[n] = bi[j % p];
		}
		char what[64];
		snprintf(what, sizeof what, "random #%d", t);
		run(what, &small, k, insn, n);
		if (check_failures > 10)
			break;
	}

	free(k);
	free(insn);
	return check_report("loop detector");
}
