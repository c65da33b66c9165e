/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Arm's lr/sp call heuristic, a producer of potential frames
 * (see calls.h for the rule).
 *
 * State per context: the four registers the heuristic reads (r13/r14,
 * xsp/x30), the instruction count at which lr was last written, and sp as
 * it was before the previous instruction.  Surviving potential frames have
 * non-increasing sp from bottom to top (a frame below one with a larger sp
 * would have been discarded when sp rose), so an sp rise only ever
 * discards a run of frames at the top.
 */
#include <inttypes.h>
#include <stdio.h>

#include "calls_impl.h"
#include "tracekit/error.h"

#define NEVER UINT64_MAX

static int family(tk_isa isa)
{
	switch (isa) {
	case TK_ISA_A32:
	case TK_ISA_T32: return TK_FAM_A32;
	case TK_ISA_A64: return TK_FAM_A64;
	default: return TK_FAM_NONE;
	}
}

static bool reg_known(const tk_reg64 *r, int fam)
{
	return r->known == (fam == TK_FAM_A64 ? 0xff : 0x0f);
}

static void reg_update(tk_reg64 *r, const tk_reg_update *u)
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

void tk_calls_arm_init(tk_cctx *x)
{
	x->lr_written[TK_FAM_A32] = x->lr_written[TK_FAM_A64] = NEVER;
}

/* sp of family fam rose to a known value: discard what it invalidates. */
static int sp_rose(tk_calls *c, tk_cctx *x, int fam, uint64_t sp)
{
	tk_stack *s = &x->stack;
	tk_frame *f;
	while ((f = tk_stack_top(s)) && !f->firm && f->fam == fam && f->sp_known && f->sp < sp) {
		TK_CALLS_DEBUG(c, "potential call at line %" PRIu64 " (return to 0x%" PRIx64
			       ") discarded: sp rose to 0x%" PRIx64 " above its 0x%" PRIx64,
			       f->call.line, f->key, sp, f->sp);
		int rc = tk_stack_drop_top(c, s);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int try_return(tk_calls *c, tk_cctx *x, const tk_tpos *cur, int fam)
{
	tk_stack *s = &x->stack;
	uint64_t pos = TK_NO_FRAME;
	if (fam != TK_FAM_NONE && reg_known(&x->sp[fam], fam))
		pos = tk_stack_lookup(s, TK_KEY_RETURN, cur->pc, x->sp[fam].value, true);
	if (pos == TK_NO_FRAME)
		pos = tk_stack_lookup(s, TK_KEY_RETURN, cur->pc, 0, false);
	if (pos == TK_NO_FRAME)
		return 0;
	const tk_frame *f = tk_stack_at(s, pos);
	TK_CALLS_DEBUG(c, "line %" PRIu64 ": return 0x%" PRIx64 " -> 0x%" PRIx64
		       " matches the potential call at line %" PRIu64 " (sp 0x%" PRIx64 "%s): "
		       "call confirmed", x->prev.line, x->prev.pc, cur->pc, f->call.line, f->sp,
		       f->sp_known ? "" : ", unknown then");
	return tk_stack_close_at(c, x, pos, &x->prev, cur);
}

/* A new potential frame with the same return address and sp as the newest
 * one: see calls.h for which of the two is the call.  Returns 1 if p is no
 * call, 0 to push it, or an error. */
static int supersede(tk_calls *c, tk_cctx *x, const tk_frame *p)
{
	tk_frame *t = tk_stack_top(&x->stack);
	if (!t || t->firm || !p->sp_known || t->fam != p->fam || t->space != TK_KEY_RETURN ||
	    t->key != p->key || !t->sp_known || t->sp != p->sp)
		return 0;
	if (t->linked && !p->linked) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": not a call: the call at line %" PRIu64
			       " wrote this lr and is still pending (same return address and sp)",
			       p->call.line, t->call.line);
		return 1;
	}
	TK_CALLS_DEBUG(c, "the potential call at line %" PRIu64 " is superseded by the one at line %"
		       PRIu64 " (same return address and sp)", t->call.line, p->call.line);
	return tk_stack_drop_top(c, &x->stack);
}

static int try_call(tk_calls *c, tk_cctx *x, const tk_tpos *cur, int fam, uint64_t natural)
{
	if (fam == TK_FAM_NONE)
		return 0;
	tk_frame p = {.space = TK_KEY_RETURN, .call = x->prev, .entry = *cur, .fam = (uint8_t)fam};
	const tk_reg64 *spb = &x->sp_before[fam];
	p.sp_known = reg_known(spb, fam);
	p.sp = p.sp_known ? spb->value : 0;

	uint64_t ago = x->lr_written[fam] == NEVER ? NEVER : x->ninsn - 1 - x->lr_written[fam];
	if (ago >= TK_CALLS_LR_WINDOW) {
		if (c->opts.debug) {
			char when[48] = "never";
			if (ago != NEVER)
				snprintf(when, sizeof when, "%" PRIu64 " instructions before", ago);
			tk_calls_debugf(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
					": not a call: lr last written %s the branch (window %d)",
					x->prev.line, x->prev.pc, cur->pc, when, TK_CALLS_LR_WINDOW);
		}
		return 0;
	}
	if (!reg_known(&x->lr[fam], fam)) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
			       ": not a call: lr has no known value", x->prev.line, x->prev.pc,
			       cur->pc);
		return 0;
	}
	uint64_t lr = x->lr[fam].value;
	if (fam == TK_FAM_A32)
		lr &= ~(uint64_t)1;
	uint64_t dist = lr > natural ? lr - natural : natural - lr;
	if (dist > TK_CALLS_LR_DISTANCE) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": jump 0x%" PRIx64 " -> 0x%" PRIx64
			       ": not a call: lr 0x%" PRIx64 " is %" PRIu64
			       " bytes from the natural return 0x%" PRIx64 " (limit %d)",
			       x->prev.line, x->prev.pc, cur->pc, lr, dist, natural,
			       TK_CALLS_LR_DISTANCE);
		return 0;
	}
	p.key = lr;
	p.linked = ago == 0;
	TK_CALLS_DEBUG(c, "line %" PRIu64 ": 0x%" PRIx64 " -> 0x%" PRIx64
		       ": potential call: lr 0x%" PRIx64 " written %" PRIu64
		       " instruction%s before the branch, %" PRIu64 " bytes from 0x%" PRIx64
		       "; sp 0x%" PRIx64 "%s",
		       x->prev.line, x->prev.pc, cur->pc, lr, ago, ago == 1 ? "" : "s", dist,
		       natural, p.sp, p.sp_known ? "" : " (unknown)");
	if (p.sp_known && reg_known(&x->sp[fam], fam) && x->sp[fam].value > p.sp) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": potential call discarded at once: the branch"
			       " raised sp from 0x%" PRIx64 " to 0x%" PRIx64, x->prev.line, p.sp,
			       x->sp[fam].value);
		return 0;
	}
	int rc = supersede(c, x, &p);
	if (rc)
		return rc < 0 ? rc : 0;
	return tk_stack_push(c, &x->stack, &p);
}

int tk_calls_arm_transfer(tk_calls *c, tk_cctx *x, const tk_tpos *cur, uint64_t natural)
{
	int fam = family(x->prev_isa);
	int rc = try_return(c, x, cur, fam);
	return rc < 0 ? rc : try_call(c, x, cur, fam, natural);
}

int tk_calls_arm_reg(tk_calls *c, tk_cctx *x, const tk_reg_update *u)
{
	/* Writes before the first instruction (a register dump) set values
	 * but are no instruction's write of lr. */
	uint64_t idx = x->have_prev ? x->ninsn - 1 : NEVER;
	switch (u->view.reg) {
	case TK_REG_R14:
		reg_update(&x->lr[TK_FAM_A32], u);
		x->lr_written[TK_FAM_A32] = idx;
		return 0;
	case TK_REG_X30:
		reg_update(&x->lr[TK_FAM_A64], u);
		x->lr_written[TK_FAM_A64] = idx;
		return 0;
	case TK_REG_R13:
	case TK_REG_XSP: {
		int fam = u->view.reg == TK_REG_R13 ? TK_FAM_A32 : TK_FAM_A64;
		tk_reg64 *r = &x->sp[fam];
		bool was = reg_known(r, fam);
		uint64_t old = r->value;
		reg_update(r, u);
		if (reg_known(r, fam) && (!was || r->value > old))
			return sp_rose(c, x, fam, r->value);
		return 0;
	}
	default:
		return 0;
	}
}
