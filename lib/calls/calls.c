/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call detector (see calls.h for the heuristic).
 *
 * State: the previous instruction, the four registers the heuristic reads
 * (r13/r14, xsp/x30) with the index of the last instruction that wrote lr,
 * and a stack of pending potential calls.  The stack lives in a ring buffer
 * addressed by absolute positions [bottom, top): matches and sp discards
 * pop at the top, and the oldest entry is forgotten at the bottom when the
 * ring is full.  A hash table maps (lr, sp) to the newest pending entry
 * with that key; each entry links to the previous one with the same key,
 * so a return is matched in O(1) whatever the depth.
 *
 * Surviving entries have non-increasing sp from bottom to top (an entry
 * below one with a larger sp would have been discarded when sp rose), so an
 * sp rise only ever discards a run of entries at the top.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"

#define NO_POS UINT64_MAX
#define NEVER UINT64_MAX

enum { FAM_A32, FAM_A64, FAM_NONE, NFAM = 2 };

struct reg {
	uint64_t value;
	uint8_t known;		/* bit i: byte i holds a known value */
};

struct pending {
	uint64_t ret;		/* return address to match (no Thumb bit) */
	uint64_t sp;		/* sp before the call instruction */
	tk_tpos call, entry;
	uint64_t prev_same;	/* older pending entry with the same key */
	uint32_t forest;	/* calls confirmed inside this one */
	uint8_t fam;
	uint8_t origin;		/* ORIGIN_* */
	bool sp_known;
	bool linked;		/* the branch itself wrote lr (BL, BLX, BLR) */
};

enum {
	ORIGIN_HEURISTIC,	/* a transfer of control judged by lr */
	ORIGIN_BRANCH,		/* an instruction the source says is a call */
	ORIGIN_EVENT,		/* a TK_EV_CALL */
};

struct tk_calls {
	tk_calls_opts opts;
	tk_calls_sink sink;
	tk_calltree_builder *builder;	/* when no sink was given */
	int error;			/* sticky sink error */

	/* the previous instruction */
	bool have_prev;
	tk_tpos prev;
	uint8_t prev_width;
	tk_isa prev_isa;
	tk_branch prev_branch;
	uint64_t ninsn;			/* instructions seen */
	tk_tpos first;			/* the first instruction (root entry) */
	bool have_any;			/* an instruction or function event seen */

	struct reg lr[NFAM], sp[NFAM];
	uint64_t lr_written[NFAM];	/* index of the insn that last wrote lr */
	struct reg sp_before[NFAM];	/* sp before the previous instruction */

	/* pending potential calls */
	struct pending *ring;
	uint64_t mask;			/* ring capacity - 1 */
	uint64_t bottom, top;
	uint64_t *table;		/* pos + 1, 0 = empty; 2x ring capacity */
	uint64_t tmask;
	uint32_t root_forest;		/* calls with no pending caller */
};

/* ---- debug explanations ------------------------------------------------- */

static void debugf(tk_calls *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void debugf(tk_calls *c, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->opts.debug(c->opts.debug_ctx, buf);
}

#define DEBUG(c, ...) do { if ((c)->opts.debug) debugf((c), __VA_ARGS__); } while (0)

/* ---- registers ---------------------------------------------------------- */

static int family(tk_isa isa)
{
	switch (isa) {
	case TK_ISA_A32:
	case TK_ISA_T32: return FAM_A32;
	case TK_ISA_A64: return FAM_A64;
	default: return FAM_NONE;
	}
}

static bool reg_known(const struct reg *r, int fam)
{
	return r->known == (fam == FAM_A64 ? 0xff : 0x0f);
}

static void reg_update(struct reg *r, const tk_reg_update *u)
{
	/* AArch64: writing w30 / wsp zeroes the upper half of x30 / sp. */
	if ((u->view.reg == TK_REG_X30 || u->view.reg == TK_REG_XSP) &&
	    u->view.offset == 0 && u->view.len == 4) {
		r->value &= 0xffffffffu;
		r->known |= 0xf0;
	}
	for (unsigned i = 0; i < u->view.len; i++) {
		unsigned b = u->view.offset + i;
		if (b >= 8)
			break;
		uint8_t st = u->state ? u->state[i] : TK_BYTE_SET;
		if (st == TK_BYTE_SET) {
			r->value = (r->value & ~((uint64_t)0xff << (8 * b))) |
				   ((uint64_t)u->value[i] << (8 * b));
			r->known |= (uint8_t)(1u << b);
		} else if (st == TK_BYTE_UNKNOWN) {
			r->known &= (uint8_t)~(1u << b);
		}
	}
}

/* ---- the pending stack and its hash table ------------------------------- */

static inline struct pending *at(tk_calls *c, uint64_t pos)
{
	return &c->ring[pos & c->mask];
}

static inline uint64_t key_hash(uint64_t ret, uint64_t sp, bool sp_known)
{
	uint64_t h = ret * 0x9e3779b97f4a7c15ull ^ (sp_known ? sp : ~0ull) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29) ^ (h >> 47);
}

static inline bool key_eq(const struct pending *p, uint64_t ret, uint64_t sp, bool sp_known)
{
	return p->ret == ret && p->sp_known == sp_known && (!sp_known || p->sp == sp);
}

/* Slot holding the key, or the empty slot where it would go. */
static uint64_t slot_of(tk_calls *c, uint64_t ret, uint64_t sp, bool sp_known)
{
	uint64_t i = key_hash(ret, sp, sp_known) & c->tmask;
	while (c->table[i] && !key_eq(at(c, c->table[i] - 1), ret, sp, sp_known))
		i = (i + 1) & c->tmask;
	return i;
}

static uint64_t lookup(tk_calls *c, uint64_t ret, uint64_t sp, bool sp_known)
{
	uint64_t v = c->table[slot_of(c, ret, sp, sp_known)];
	return v ? v - 1 : NO_POS;
}

/* Remove the slot i (linear probing: shift the following run back). */
static void slot_delete(tk_calls *c, uint64_t i)
{
	uint64_t j = i;
	c->table[i] = 0;
	for (;;) {
		j = (j + 1) & c->tmask;
		if (!c->table[j])
			return;
		const struct pending *p = at(c, c->table[j] - 1);
		uint64_t home = key_hash(p->ret, p->sp, p->sp_known) & c->tmask;
		/* move j to i unless its home lies cyclically in (i, j] */
		if (((j - home) & c->tmask) >= ((j - i) & c->tmask)) {
			c->table[i] = c->table[j];
			c->table[j] = 0;
			i = j;
		}
	}
}

/* The newest entry with p's key is being removed: point the key at the
 * previous one still pending, or remove it. */
static void unlink_key(tk_calls *c, uint64_t pos)
{
	const struct pending *p = at(c, pos);
	uint64_t i = slot_of(c, p->ret, p->sp, p->sp_known);
	if (!c->table[i] || c->table[i] - 1 != pos)
		return;		/* a newer entry holds the key */
	if (p->prev_same != NO_POS && p->prev_same >= c->bottom)
		c->table[i] = p->prev_same + 1;
	else
		slot_delete(c, i);
}

static void rebuild_table(tk_calls *c)
{
	memset(c->table, 0, (c->tmask + 1) * sizeof *c->table);
	for (uint64_t pos = c->bottom; pos < c->top; pos++) {
		const struct pending *p = at(c, pos);
		c->table[slot_of(c, p->ret, p->sp, p->sp_known)] = pos + 1;
	}
}

static int join_into(tk_calls *c, uint32_t *dst, uint32_t src)
{
	if (src == TK_CALL_NONE)
		return 0;
	if (*dst == TK_CALL_NONE) {
		*dst = src;
		return 0;
	}
	int rc = c->sink.join(c->sink.ctx, *dst, src, dst);
	if (rc < 0)
		c->error = rc;
	return rc;
}

/* The forest a newly confirmed or orphaned call goes into: that of the
 * newest pending entry, or the root's. */
static uint32_t *parent_forest(tk_calls *c)
{
	return c->top > c->bottom ? &at(c, c->top - 1)->forest : &c->root_forest;
}

/* Remove the top entry without confirming it: its calls move down. */
static int drop_top(tk_calls *c)
{
	uint64_t pos = c->top - 1;
	struct pending *p = at(c, pos);
	uint32_t forest = p->forest;
	unlink_key(c, pos);
	c->top--;
	return join_into(c, parent_forest(c), forest);
}

/* Forget the oldest entry (the ring is full).  Nothing encloses it, so
 * its calls go to the root; they precede every call still to come there
 * (an entry's forest is frozen while a newer entry is pending above it). */
static int evict_bottom(tk_calls *c)
{
	struct pending *p = at(c, c->bottom);
	DEBUG(c, "too many pending potential calls: forgetting the oldest (line %" PRIu64
	      ", return to 0x%" PRIx64 ")", p->call.line, p->ret);
	uint32_t forest = p->forest;
	unlink_key(c, c->bottom);
	c->bottom++;
	return join_into(c, &c->root_forest, forest);
}

static int grow(tk_calls *c)
{
	uint64_t cap = c->mask + 1;
	if (cap >= TK_CALLS_MAX_PENDING)
		return evict_bottom(c);
	uint64_t ncap = cap * 2;
	struct pending *ring = malloc(ncap * sizeof *ring);
	uint64_t *table = malloc(2 * ncap * sizeof *table);
	if (!ring || !table) {
		free(ring);
		free(table);
		return TK_ERR_NOMEM;
	}
	for (uint64_t pos = c->bottom; pos < c->top; pos++)
		ring[pos & (ncap - 1)] = *at(c, pos);
	free(c->ring);
	free(c->table);
	c->ring = ring;
	c->mask = ncap - 1;
	c->table = table;
	c->tmask = 2 * ncap - 1;
	rebuild_table(c);
	return 0;
}

static int push(tk_calls *c, const struct pending *p)
{
	int rc;
	if (c->top > c->bottom) {
		const struct pending *t = at(c, c->top - 1);
		/* Only for the heuristic: known calls may recurse from one site. */
		if (p->origin == ORIGIN_HEURISTIC && t->origin == ORIGIN_HEURISTIC &&
		    p->sp_known && t->fam == p->fam && key_eq(t, p->ret, p->sp, p->sp_known)) {
			/* A branch that did not write lr itself, made with the lr
			 * a linking branch just wrote, is a branch inside the
			 * function that branch called (a CBNZ at its start), not
			 * a second call: the linking branch keeps the lr. */
			if (t->linked && !p->linked) {
				DEBUG(c, "line %" PRIu64 ": not a call: the call at line %" PRIu64
				      " wrote this lr and is still pending (same return address"
				      " and sp)", p->call.line, t->call.line);
				return 0;
			}
			DEBUG(c, "the potential call at line %" PRIu64 " is superseded by the one at line %"
			      PRIu64 " (same return address and sp)", t->call.line, p->call.line);
			if ((rc = drop_top(c)) < 0)
				return rc;
		}
	}
	if (c->top - c->bottom > c->mask) {
		if ((rc = grow(c)) < 0)
			return rc;
	}
	uint64_t pos = c->top++;
	struct pending *e = at(c, pos);
	*e = *p;
	e->forest = TK_CALL_NONE;
	uint64_t i = slot_of(c, e->ret, e->sp, e->sp_known);
	e->prev_same = c->table[i] ? c->table[i] - 1 : NO_POS;
	c->table[i] = pos + 1;
	return 0;
}

/* A return matched the entry at pos: drop what is above, confirm it. */
static int confirm_at(tk_calls *c, uint64_t pos, const tk_tpos *exit, const tk_tpos *resume)
{
	int rc;
	while (c->top - 1 > pos)
		if ((rc = drop_top(c)) < 0)
			return rc;
	struct pending *p = at(c, pos);
	tk_call call = {
		.call = p->call, .entry = p->entry, .exit = *exit, .resume = *resume,
		.parent = TK_CALL_NONE, .first_child = TK_CALL_NONE,
		.next_sibling = TK_CALL_NONE, .depth = 0,
	};
	uint32_t children = p->forest, forest = TK_CALL_NONE;
	unlink_key(c, pos);
	c->top--;
	if ((rc = c->sink.confirm(c->sink.ctx, &call, children, &forest)) < 0)
		return c->error = rc;
	return join_into(c, parent_forest(c), forest);
}

/* sp of family fam rose to a known value: discard what it invalidates. */
static int sp_rose(tk_calls *c, int fam, uint64_t sp)
{
	while (c->top > c->bottom) {
		struct pending *p = at(c, c->top - 1);
		if (p->fam != fam || !p->sp_known || p->sp >= sp)
			break;
		DEBUG(c, "potential call at line %" PRIu64 " (return to 0x%" PRIx64
		      ") discarded: sp rose to 0x%" PRIx64 " above its 0x%" PRIx64,
		      p->call.line, p->ret, sp, p->sp);
		int rc = drop_top(c);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the heuristic ------------------------------------------------------- */

static int try_return(tk_calls *c, const tk_tpos *cur, int fam)
{
	uint64_t pos = NO_POS;
	if (fam != FAM_NONE && reg_known(&c->sp[fam], fam))
		pos = lookup(c, cur->pc, c->sp[fam].value, true);
	if (pos == NO_POS)
		pos = lookup(c, cur->pc, 0, false);
	if (pos == NO_POS)
		return 0;
	const struct pending *p = at(c, pos);
	DEBUG(c, "line %" PRIu64 ": return 0x%" PRIx64 " -> 0x%" PRIx64
	      " matches the potential call at line %" PRIu64 " (sp 0x%" PRIx64 "%s): call confirmed",
	      c->prev.line, c->prev.pc, cur->pc, p->call.line, p->sp,
	      p->sp_known ? "" : ", unknown then");
	return confirm_at(c, pos, &c->prev, cur);
}

static int try_call(tk_calls *c, const tk_tpos *cur, int fam, uint64_t natural)
{
	struct pending p = {.call = c->prev, .entry = *cur, .fam = (uint8_t)fam};
	const struct reg *spb = fam == FAM_NONE ? NULL : &c->sp_before[fam];
	p.sp_known = spb && reg_known(spb, fam);
	p.sp = p.sp_known ? spb->value : 0;

	if (c->prev_branch == TK_BR_CALL) {
		p.ret = natural;
		p.origin = ORIGIN_BRANCH;
		DEBUG(c, "line %" PRIu64 ": 0x%" PRIx64 " -> 0x%" PRIx64
		      ": the source says call: potential call, return to 0x%" PRIx64,
		      c->prev.line, c->prev.pc, cur->pc, p.ret);
	} else {
		if (fam == FAM_NONE)
			return 0;
		uint64_t ago = c->lr_written[fam] == NEVER ? NEVER : c->prev.insn - c->lr_written[fam];
		if (ago >= TK_CALLS_LR_WINDOW) {
			if (c->opts.debug) {
				char when[48] = "never";
				if (ago != NEVER)
					snprintf(when, sizeof when, "%" PRIu64 " instructions before", ago);
				debugf(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
				       ": not a call: lr last written %s the branch (window %d)",
				       c->prev.line, c->prev.pc, cur->pc, when, TK_CALLS_LR_WINDOW);
			}
			return 0;
		}
		if (!reg_known(&c->lr[fam], fam)) {
			DEBUG(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
			      ": not a call: lr has no known value", c->prev.line, c->prev.pc, cur->pc);
			return 0;
		}
		uint64_t lr = c->lr[fam].value;
		if (fam == FAM_A32)
			lr &= ~(uint64_t)1;
		uint64_t dist = lr > natural ? lr - natural : natural - lr;
		if (dist > TK_CALLS_LR_DISTANCE) {
			DEBUG(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
			      ": not a call: lr 0x%" PRIx64 " is %" PRIu64
			      " bytes from the natural return 0x%" PRIx64 " (limit %d)",
			      c->prev.line, c->prev.pc, cur->pc, lr, dist, natural,
			      TK_CALLS_LR_DISTANCE);
			return 0;
		}
		p.ret = lr;
		p.linked = ago == 0;
		DEBUG(c, "line %" PRIu64 ": 0x%" PRIx64 " -> 0x%" PRIx64
		      ": potential call: lr 0x%" PRIx64 " written %" PRIu64
		      " instruction%s before the branch, %" PRIu64 " bytes from 0x%" PRIx64
		      "; sp 0x%" PRIx64 "%s",
		      c->prev.line, c->prev.pc, cur->pc, lr, ago, ago == 1 ? "" : "s", dist,
		      natural, p.sp, p.sp_known ? "" : " (unknown)");
	}
	if (p.sp_known && reg_known(&c->sp[fam], fam) && c->sp[fam].value > p.sp) {
		DEBUG(c, "line %" PRIu64 ": potential call discarded at once: the branch raised sp"
		      " from 0x%" PRIx64 " to 0x%" PRIx64, c->prev.line, p.sp, c->sp[fam].value);
		return 0;
	}
	return push(c, &p);
}

static int on_insn(tk_calls *c, const tk_event *ev)
{
	const tk_insn *in = &ev->u.insn;
	tk_tpos cur = {ev->time, ev->line, ev->offset, in->pc, c->ninsn};
	int rc = 0;

	if (!c->have_any) {
		c->first = cur;
		c->have_any = true;
	}
	if (c->have_prev) {
		uint64_t w = c->prev_width;
		bool seq;
		if (w) {
			seq = in->pc == c->prev.pc + w;
		} else {
			/* width unknown: any legal instruction size is sequential */
			w = c->prev_isa == TK_ISA_T32 ? 2 : 4;
			seq = in->pc == c->prev.pc + w ||
			      (c->prev_isa == TK_ISA_T32 && in->pc == c->prev.pc + 4);
		}
		if (!seq) {
			int fam = family(c->prev_isa);
			tk_branch br = c->prev_branch;
			if (br == TK_BR_UNKNOWN || br == TK_BR_RETURN)
				rc = try_return(c, &cur, fam);
			if (rc == 0 && (br == TK_BR_UNKNOWN || br == TK_BR_CALL))
				rc = try_call(c, &cur, fam, c->prev.pc + w);
		}
	}
	c->prev = cur;
	c->prev_width = in->width;
	c->prev_isa = in->isa;
	c->prev_branch = in->branch;
	c->have_prev = true;
	c->sp_before[FAM_A32] = c->sp[FAM_A32];
	c->sp_before[FAM_A64] = c->sp[FAM_A64];
	c->ninsn++;
	return rc;
}

static int on_reg(tk_calls *c, const tk_reg_update *u)
{
	/* Writes before the first instruction (a register dump) set values
	 * but are no instruction's write of lr. */
	uint64_t idx = c->have_prev ? c->prev.insn : NEVER;
	switch (u->view.reg) {
	case TK_REG_R14:
		reg_update(&c->lr[FAM_A32], u);
		c->lr_written[FAM_A32] = idx;
		return 0;
	case TK_REG_X30:
		reg_update(&c->lr[FAM_A64], u);
		c->lr_written[FAM_A64] = idx;
		return 0;
	case TK_REG_R13:
	case TK_REG_XSP: {
		int fam = u->view.reg == TK_REG_R13 ? FAM_A32 : FAM_A64;
		struct reg *r = &c->sp[fam];
		bool was = reg_known(r, fam);
		uint64_t old = r->value;
		reg_update(r, u);
		if (reg_known(r, fam) && (!was || r->value > old))
			return sp_rose(c, fam, r->value);
		return 0;
	}
	default:
		return 0;
	}
}

static int on_func_call(tk_calls *c, const tk_event *ev)
{
	const tk_func_event *f = &ev->u.func;
	tk_tpos at_ev = {ev->time, ev->line, ev->offset, f->addr, c->ninsn};
	if (!c->have_any) {
		c->first = at_ev;
		c->have_any = true;
	}
	struct pending p = {.ret = f->site, .call = at_ev, .entry = at_ev,
			    .fam = FAM_NONE, .origin = ORIGIN_EVENT};
	p.call.pc = f->site;
	DEBUG(c, "line %" PRIu64 ": call event to 0x%" PRIx64, ev->line, f->addr);
	return push(c, &p);
}

#define FUNC_RETURN_SEARCH 16

static int on_func_return(tk_calls *c, const tk_event *ev)
{
	const tk_func_event *f = &ev->u.func;
	tk_tpos exit = {ev->time, ev->line, ev->offset, f->addr, c->ninsn};
	tk_tpos resume = exit;
	resume.pc = f->site;
	for (uint64_t i = 0; i < FUNC_RETURN_SEARCH && c->top - i > c->bottom; i++) {
		uint64_t pos = c->top - 1 - i;
		const struct pending *p = at(c, pos);
		if (p->origin == ORIGIN_EVENT && (!f->addr || p->entry.pc == f->addr)) {
			DEBUG(c, "line %" PRIu64 ": return event matches the call event at line %"
			      PRIu64, ev->line, p->call.line);
			return confirm_at(c, pos, &exit, &resume);
		}
	}
	DEBUG(c, "line %" PRIu64 ": return event from 0x%" PRIx64 " matches no pending call",
	      ev->line, f->addr);
	return 0;
}

int tk_calls_feed(tk_calls *c, const tk_event *ev)
{
	if (c->error)
		return c->error;
	switch (ev->kind) {
	case TK_EV_INSN: return on_insn(c, ev);
	case TK_EV_REG: return on_reg(c, &ev->u.reg);
	case TK_EV_CALL: return on_func_call(c, ev);
	case TK_EV_RETURN: return on_func_return(c, ev);
	default: return 0;
	}
}

int tk_calls_finish(tk_calls *c, tk_calltree **out)
{
	if (out)
		*out = NULL;
	if (c->error)
		return c->error;
	int rc;
	while (c->top > c->bottom)
		if ((rc = drop_top(c)) < 0)
			return rc;
	if (c->have_any) {
		tk_call root = {
			.entry = c->first, .exit = c->have_prev ? c->prev : c->first,
			.parent = TK_CALL_NONE, .first_child = TK_CALL_NONE,
			.next_sibling = TK_CALL_NONE, .depth = 0,
		};
		if ((rc = c->sink.finish(c->sink.ctx, &root, c->root_forest)) < 0)
			return c->error = rc;
	}
	if (c->builder && out) {
		tk_calltree_builder_take(c->builder, out);
		if (!*out && !(*out = calloc(1, sizeof **out)))
			return TK_ERR_NOMEM;
	}
	return 0;
}

void tk_calls_opts_init(tk_calls_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

int tk_calls_new(const tk_calls_opts *opts, tk_calls **out)
{
	*out = NULL;
	if (opts && opts->size < offsetof(tk_calls_opts, sink))
		return TK_ERR_INVAL;
	tk_calls *c = calloc(1, sizeof *c);
	if (!c)
		return TK_ERR_NOMEM;
	tk_calls_opts_init(&c->opts);
	if (opts)
		memcpy(&c->opts, opts, opts->size < sizeof *opts ? opts->size : sizeof *opts);
	c->opts.size = sizeof c->opts;
	const uint64_t cap = 64;
	c->ring = malloc(cap * sizeof *c->ring);
	c->table = calloc(2 * cap, sizeof *c->table);
	c->mask = cap - 1;
	c->tmask = 2 * cap - 1;
	c->root_forest = TK_CALL_NONE;
	c->lr_written[FAM_A32] = c->lr_written[FAM_A64] = NEVER;
	int rc = 0;
	if (!c->ring || !c->table)
		rc = TK_ERR_NOMEM;
	else if (c->opts.sink)
		c->sink = *c->opts.sink;
	else
		rc = tk_calltree_builder_new(&c->builder, &c->sink);
	if (rc < 0) {
		tk_calls_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void tk_calls_free(tk_calls *c)
{
	if (!c)
		return;
	tk_calltree_builder_free(c->builder);
	free(c->ring);
	free(c->table);
	free(c);
}
