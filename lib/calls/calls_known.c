/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: calls from sources that know them, as firm frames: branch
 * kinds of decoded instructions (Intel PT, POWER) and function enter/exit
 * events (see calls.h). */
#include <inttypes.h>

#include "calls_impl.h"

int tk_calls_branch_transfer(tk_calls *c, tk_cctx *x, const tk_tpos *cur, uint64_t natural)
{
	tk_stack *s = &x->stack;
	if (x->prev_branch == TK_BR_CALL) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": call 0x%" PRIx64 " -> 0x%" PRIx64
			       ", returning to 0x%" PRIx64, x->prev.line, x->prev.pc, cur->pc, natural);
		int rc;
		tk_frame *f = tk_stack_push_new(c, s, &rc);
		if (!f)
			return rc;
		f->key = natural;
		f->sp = 0;
		f->call = x->prev;
		f->entry = *cur;
		f->space = TK_KEY_RETURN;
		f->fam = TK_FAM_NONE;
		f->sp_known = false;
		f->firm = true;
		f->linked = false;
		return 0;
	}
	if (x->prev_branch != TK_BR_RETURN)
		return 0;
	uint64_t pos = tk_stack_lookup(s, TK_KEY_RETURN, cur->pc, 0, false);
	if (pos == TK_NO_FRAME) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": return 0x%" PRIx64 " -> 0x%" PRIx64
			       " matches no open call", x->prev.line, x->prev.pc, cur->pc);
		return 0;
	}
	TK_CALLS_DEBUG(c, "line %" PRIu64 ": return 0x%" PRIx64 " -> 0x%" PRIx64
		       " closes the call at line %" PRIu64, x->prev.line, x->prev.pc, cur->pc,
		       tk_stack_at(s, pos)->call.line);
	return tk_stack_close_at(c, x, pos, &x->prev, cur);
}

/* The innermost open function-event frame: for a return that names no
 * function. */
static uint64_t innermost_func(tk_stack *s)
{
	for (uint64_t pos = s->top; pos-- > s->bottom;)
		if (tk_stack_at(s, pos)->space == TK_KEY_FUNC)
			return pos;
	return TK_NO_FRAME;
}

int tk_calls_func_event(tk_calls *c, tk_cctx *x, const tk_event *ev, const tk_tpos *at)
{
	const tk_func_event *fe = &ev->u.func;
	tk_stack *s = &x->stack;
	if (ev->kind == TK_EV_CALL) {
		tk_frame f = {.space = TK_KEY_FUNC, .key = fe->addr, .call = *at, .entry = *at,
			      .fam = TK_FAM_NONE, .firm = true};
		f.call.pc = fe->site;
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": enter 0x%" PRIx64, ev->line, fe->addr);
		return tk_stack_push(c, s, &f);
	}
	uint64_t pos = fe->addr ? tk_stack_lookup(s, TK_KEY_FUNC, fe->addr, 0, false)
				: innermost_func(s);
	if (pos == TK_NO_FRAME) {
		TK_CALLS_DEBUG(c, "line %" PRIu64 ": exit from 0x%" PRIx64 " matches no open call",
			       ev->line, fe->addr);
		return 0;
	}
	tk_tpos resume = *at;
	resume.pc = fe->site;
	TK_CALLS_DEBUG(c, "line %" PRIu64 ": exit from 0x%" PRIx64 " closes the call at line %"
		       PRIu64, ev->line, fe->addr, tk_stack_at(s, pos)->call.line);
	return tk_stack_close_at(c, x, pos, at, &resume);
}
