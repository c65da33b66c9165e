/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: finding the loop a trace ends in (see loop.h for the rules).
 *
 * The exact answer needs, at the end, the length of the trailing periodic
 * run for every period P <= max_period.  Keeping all those runs up to date
 * would cost max_period compares per line, so instead:
 *
 *  - every RECHECK lines, each period is tested against the ring of recent
 *    keys; one whose run has become long enough to qualify is *tracked*,
 *    with its start found by scanning back through the ring (it began
 *    qualifying at most RECHECK lines ago, so the ring still holds it);
 *  - a tracked period is checked on every line and dropped at its first
 *    mismatch; only a handful are ever tracked at once;
 *  - a multiple of a tracked period whose run covers it is not tested: it
 *    cannot be the smallest qualifying period while the divisor lasts, and
 *    it breaks on the same line as the divisor.
 *
 * At the end the smallest tracked period is the smallest qualifying one.
 */
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/loop.h"

#define MAX_TRACKED 64
#define RECHECK 256

struct tracked {
	uint32_t p;
	bool exact;
	uint64_t start, start_off;
	uint64_t first, cut, cut_off;
};

struct tk_loopdet {
	tk_loop_opts o;
	uint64_t cap, mask;	/* ring size (a power of 2) */
	uint64_t *key, *off;
	uint8_t *insn;
	uint64_t n;		/* lines fed */
	uint64_t since_check;
	uint64_t hold;		/* lines always held back from the safe offset */
	uint64_t safe;
	struct tracked t[MAX_TRACKED];
	unsigned nt;
};

void tk_loop_opts_init(tk_loop_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
	opts->max_period = 4096;
	opts->min_repeats = 3;
	opts->min_lines = 16;
	opts->keep = 2;
}

/* ---- line keys ------------------------------------------------------------ */

static inline uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x * 0x9e3779b97f4a7c15ull;
	h = (h << 27) | (h >> 37);
	return h * 0xff51afd7ed558ccdull + 0x632be59bd9b4e5f5ull;
}

static uint64_t mix_bytes(uint64_t h, const char *s, size_t n)
{
	h = mix(h, n);
	while (n >= 8) {
		uint64_t x;
		memcpy(&x, s, 8);
		h = mix(h, x);
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t x = 0;
		memcpy(&x, s, n);
		h = mix(h, x);
	}
	return h;
}

uint64_t tk_loop_line_key(const tk_event *ev, size_t n, bool *insn)
{
	uint64_t h = 0x1234567887654321ull;
	*insn = false;
	for (size_t i = 0; i < n; i++) {
		const tk_event *e = &ev[i];
		h = mix(h, (uint64_t)e->kind << 32 | e->context);
		switch (e->kind) {
		case TK_EV_INSN: {
			const tk_insn *in = &e->u.insn;
			*insn = true;
			h = mix(h, in->pc);
			h = mix(h, (uint64_t)(in->nbytes != 0) << 40 | (uint64_t)in->executed << 41 |
				       (uint64_t)in->width << 42 | tk_insn_encoding(in));
			h = mix_bytes(h, in->mode, in->mode_len);
			break;
		}
		case TK_EV_REG: {
			const tk_reg_update *r = &e->u.reg;
			h = mix(h, (uint64_t)r->view.reg << 32 | (uint64_t)r->view.offset << 16 |
				       r->view.len);
			if (r->view.reg == TK_REG_NONE)
				h = mix_bytes(h, r->name, r->name_len);
			break;
		}
		case TK_EV_MEM: {
			const tk_mem_access *m = &e->u.mem;
			h = mix(h, (uint64_t)m->size << 8 | (uint64_t)m->write << 0 |
				       (uint64_t)m->exclusive << 1 | (uint64_t)m->aborted << 2);
			break;
		}
		case TK_EV_TEXT:
			h = mix_bytes(h, e->u.text.text, e->u.text.len);
			break;
		case TK_EV_GAP:
			h = mix(h, e->u.gap.kind);
			break;
		case TK_EV_CALL:
		case TK_EV_RETURN:
			h = mix(h, e->u.func.addr);
			break;
		}
	}
	return h;
}

/* ---- the detector --------------------------------------------------------- */

static uint64_t threshold(const tk_loopdet *d, uint64_t p)
{
	uint64_t t = p * d->o.min_repeats;
	return t > d->o.min_lines ? t : d->o.min_lines;
}

int tk_loopdet_new(const tk_loop_opts *opts, tk_loopdet **out)
{
	*out = NULL;
	tk_loop_opts o;
	tk_loop_opts_init(&o);
	if (opts)
		memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
	if (o.max_period == 0 || o.max_period > 65536 || o.keep == 0 ||
	    o.keep >= o.min_repeats || o.min_lines > 1u << 20)
		return TK_ERR_INVAL;
	tk_loopdet *d = calloc(1, sizeof *d);
	if (!d)
		return TK_ERR_NOMEM;
	d->o = o;
	d->hold = threshold(d, o.max_period) + RECHECK;
	uint64_t need = d->hold + o.max_period + RECHECK;
	d->cap = 1024;
	while (d->cap < need)
		d->cap *= 2;
	d->mask = d->cap - 1;
	d->key = malloc(d->cap * sizeof *d->key);
	d->off = malloc(d->cap * sizeof *d->off);
	d->insn = malloc(d->cap);
	if (!d->key || !d->off || !d->insn) {
		tk_loopdet_free(d);
		return TK_ERR_NOMEM;
	}
	*out = d;
	return 0;
}

void tk_loopdet_free(tk_loopdet *d)
{
	if (!d)
		return;
	free(d->key);
	free(d->off);
	free(d->insn);
	free(d);
}

#define KEY(d, i) ((d)->key[(i) & (d)->mask])

/* Lines the tracked period's run covers, counting the first iteration. */
static uint64_t covered(const tk_loopdet *d, const struct tracked *t)
{
	return d->n - t->start;
}

static bool is_tracked_or_covered(const tk_loopdet *d, uint64_t p)
{
	for (unsigned k = 0; k < d->nt; k++) {
		const struct tracked *t = &d->t[k];
		if (t->p == p)
			return true;
		if (p % t->p == 0 && covered(d, t) >= p + t->p)
			return true;
	}
	return false;
}

/* Test every untracked period against the ring, as of the last line. */
static void recheck(tk_loopdet *d)
{
	if (d->n < 2)
		return;
	uint64_t j = d->n - 1;
	uint64_t lo = d->n > d->cap ? d->n - d->cap : 0;
	uint64_t pmax = d->o.max_period < j ? d->o.max_period : j;
	for (uint64_t p = 1; p <= pmax; p++) {
		uint64_t need = threshold(d, p) - p;	/* matching lines */
		if (need > j - p + 1)
			continue;
		if (KEY(d, j) != KEY(d, j - p) || is_tracked_or_covered(d, p))
			continue;
		uint64_t i = j, count = 0;
		while (count < need && KEY(d, i) == KEY(d, i - p)) {
			count++;
			i--;
		}
		if (count < need)
			continue;
		/* Qualifies: find where the run starts.  i - p >= lo here. */
		while (i >= p && i - p >= lo && KEY(d, i) == KEY(d, i - p))
			i--;
		bool hit_start = i < p;		/* the run reaches line 0 */
		bool hit_ring = !hit_start && i - p < lo;
		struct tracked t = {.p = (uint32_t)p, .exact = !hit_ring};
		t.start = hit_start ? 0 : hit_ring ? lo : i - p + 1;
		t.start_off = d->off[t.start & d->mask];
		t.first = t.start;
		for (uint64_t a = t.start; a < t.start + p; a++)
			if (d->insn[a & d->mask]) {
				t.first = a;
				break;
			}
		t.cut = t.first + (uint64_t)d->o.keep * p;
		t.cut_off = d->off[t.cut & d->mask];
		if (d->nt < MAX_TRACKED)
			d->t[d->nt++] = t;
	}
}

void tk_loopdet_feed(tk_loopdet *d, uint64_t key, bool insn, uint64_t offset)
{
	uint64_t j = d->n++;
	d->key[j & d->mask] = key;
	d->off[j & d->mask] = offset;
	d->insn[j & d->mask] = insn;

	for (unsigned k = d->nt; k-- > 0;)
		if (KEY(d, j - d->t[k].p) != key)
			d->t[k] = d->t[--d->nt];
	if (++d->since_check >= RECHECK) {
		d->since_check = 0;
		recheck(d);
	}

	/* Lines before n - hold, and before every tracked cut, are final. */
	uint64_t safe;
	if (d->n > d->hold) {
		uint64_t h = d->n - d->hold;
		safe = d->off[h & d->mask];
	} else {
		safe = 0;
	}
	for (unsigned k = 0; k < d->nt; k++)
		if (d->t[k].cut_off < safe)
			safe = d->t[k].cut_off;
	if (safe > d->safe)
		d->safe = safe;
}

uint64_t tk_loopdet_safe_offset(const tk_loopdet *d)
{
	return d->safe;
}

int tk_loopdet_result(tk_loopdet *d, tk_loop *loop)
{
	memset(loop, 0, sizeof *loop);
	loop->lines = d->n;
	d->since_check = 0;
	recheck(d);
	const struct tracked *best = NULL;
	for (unsigned k = 0; k < d->nt; k++)
		if (!best || d->t[k].p < best->p)
			best = &d->t[k];
	if (!best)
		return 0;
	loop->period = best->p;
	loop->start = best->start;
	loop->start_offset = best->start_off;
	loop->start_exact = best->exact;
	loop->first = best->first;
	loop->cut = best->cut;
	loop->cut_offset = best->cut_off;
	return 1;
}
