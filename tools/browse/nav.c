/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: moving the current position, and folding.
 *
 * A folded call hides its activation (entry..exit): the trace pane shows
 * the call instruction and then the resume point, and a position inside a
 * hidden stretch is moved to the end of it (normalised), so stepping over a
 * folded call shows the state after the whole call.
 */
#ifdef TK_HAVE_CURSES
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"

bool tkb_is_folded(const tkb *b, uint32_t c)
{
	return c != 0 && c < b->nfolded && (b->folded[c >> 3] >> (c & 7) & 1);
}

static void set_fold(tkb *b, uint32_t c, bool on)
{
	if (c == 0 || c >= b->nfolded)
		return;
	if (on)
		b->folded[c >> 3] |= (uint8_t)(1u << (c & 7));
	else
		b->folded[c >> 3] &= (uint8_t)~(1u << (c & 7));
}

/* The outermost folded call hiding instruction i, or 0 if i is shown. */
static uint32_t hidden_by(const tkb *b, uint64_t i)
{
	uint32_t out = 0;
	if (!tkb_model_ncalls(b->model))
		return 0;
	for (uint32_t c = tkb_model_call_at(b->model, i); c != 0 && c != TK_CALL_NONE;
	     c = tkb_model_call_parent(b->model, c))
		if (tkb_is_folded(b, c))
			out = c;
	return out;
}

uint64_t tkb_normalise(const tkb *b, uint64_t pos)
{
	/* The first instruction is always above the marker: position 0 would
	 * show the state before the trace's initial register dump. */
	if (pos == 0 && b->ninsns)
		pos = 1;
	if (pos >= b->ninsns)
		return b->ninsns;
	uint32_t c = hidden_by(b, pos);
	if (c) {
		tkb_call_insns ci;
		tkb_model_call_insns(b->model, c, &ci);
		return ci.resume == TKB_NO_POS ? b->ninsns : ci.resume;
	}
	return pos;
}

uint64_t tkb_visible_prev_insn(const tkb *b, uint64_t pos)
{
	if (pos == 0 || b->ninsns == 0)
		return TKB_NO_POS;
	uint64_t i = pos - 1;
	uint32_t c = hidden_by(b, i);
	if (c) {
		tkb_call_insns ci;
		tkb_model_call_insns(b->model, c, &ci);
		i = ci.call;
	}
	return i;
}

uint64_t tkb_visible_next_insn(const tkb *b, uint64_t pos)
{
	pos = tkb_normalise(b, pos);
	return pos < b->ninsns ? pos : TKB_NO_POS;
}

void tkb_move_to(tkb *b, uint64_t pos, bool centre)
{
	b->last_pos = b->pos;
	b->pos = tkb_normalise(b, pos);
	b->hl_line = 0;
	if (centre)
		b->recentre = -1;	/* the trace pane centres on the next draw */
}

/* Unfold whatever hides instruction i. */
static void reveal(tkb *b, uint64_t i)
{
	if (!tkb_model_ncalls(b->model) || i >= b->ninsns)
		return;
	for (uint32_t c = tkb_model_call_at(b->model, i); c != 0 && c != TK_CALL_NONE;
	     c = tkb_model_call_parent(b->model, c))
		set_fold(b, c, false);
}

void tkb_jump_after(tkb *b, uint64_t insn)
{
	reveal(b, insn);
	tkb_move_to(b, insn + 1, true);
}

void tkb_jump_before(tkb *b, uint64_t insn)
{
	reveal(b, insn);
	tkb_move_to(b, insn, true);
}

/* Lines of instruction i's own block (its line and its updates). */
static uint64_t block_lines(const tkb *b, uint64_t i)
{
	uint64_t s, e;
	tkb_model_block(b->model, i, &s, &e);
	return tkv_count_lines(&b->file, s, e);
}

/* One instruction down (dir > 0) or up; returns the lines moved over. */
static uint64_t step1(tkb *b, int dir)
{
	uint64_t i;
	if (dir > 0) {
		i = tkb_visible_next_insn(b, b->pos);
		if (i == TKB_NO_POS)
			return 0;
		b->pos = tkb_normalise(b, i + 1);
	} else {
		i = tkb_visible_prev_insn(b, b->pos);
		if (i == TKB_NO_POS || i == 0)
			return 0;
		b->pos = i;
	}
	return block_lines(b, i);
}

void tkb_step(tkb *b, int dir)
{
	uint64_t old = b->pos;
	uint64_t n = step1(b, dir);
	if (b->pos != old) {
		b->last_pos = old;
		b->hl_line = 0;
		b->marker_row += dir > 0 ? (int)(n > 1000 ? 1000 : n) : -(int)(n > 1000 ? 1000 : n);
	}
}

void tkb_page(tkb *b, int dir)
{
	uint64_t old = b->pos;
	int h = b->panes[0].height - 2;
	uint64_t moved = 0;
	if (h < 1)
		h = 1;
	while (moved < (uint64_t)h) {
		uint64_t n = step1(b, dir);
		if (!n)
			break;
		moved += n;
	}
	if (b->pos != old) {
		b->last_pos = old;
		b->hl_line = 0;
	}
}

uint64_t tkb_pane_pos(const tkb *b, const tkb_pane *p)
{
	return p->locked ? p->lock_pos : b->pos;
}

/* The call whose activation holds the position (the next instruction to
 * run; the last one at the end of the trace); 0 for the top level. */
static uint32_t call_of_pos(const tkb *b)
{
	if (!b->ninsns)
		return 0;
	uint64_t i = b->pos < b->ninsns ? b->pos : b->ninsns - 1;
	uint32_t c = tkb_model_call_at(b->model, i);
	return c == TK_CALL_NONE ? 0 : c;
}

static void fold_on(void *ctx, uint32_t n)
{
	set_fold(ctx, n, true);
}

static void fold_off(void *ctx, uint32_t n)
{
	set_fold(ctx, n, false);
}

/* Set the fold of every call strictly inside c (all depths). */
static void fold_subtree(tkb *b, uint32_t c, bool on)
{
	tkb_model_call_subtree(b->model, c, on ? fold_on : fold_off, b);
}

bool tkb_fold_key(tkb *b, int key)
{
	if (tkb_model_ncalls(b->model) <= 1) {
		tkb_message(b, "no function calls were found in this trace");
		return true;
	}
	uint32_t c = call_of_pos(b);
	switch (key) {
	case '-':
	case '_':
		if (!c) {
			tkb_message(b, "not inside a function call");
			return true;
		}
		set_fold(b, c, true);
		break;
	case '+':
	case '=': {
		uint64_t i = tkb_visible_prev_insn(b, b->pos);
		uint32_t found = 0;
		/* A folded call whose call instruction is just above. */
		if (i != TKB_NO_POS && i + 1 < b->ninsns) {
			uint32_t k = hidden_by(b, i + 1);
			if (k) {
				tkb_call_insns ci;
				tkb_model_call_insns(b->model, k, &ci);
				if (ci.call == i)
					found = k;
			}
		}
		if (!found) {
			tkb_message(b, "no folded call just above the position");
			return true;
		}
		set_fold(b, found, false);
		/* Stay just after the call instruction: now inside it. */
		tkb_move_to(b, i + 1, false);
		b->last_pos = b->pos;
		return true;
	}
	case '[':
		fold_subtree(b, c, true);
		break;
	case ']':
		fold_subtree(b, c, false);
		break;
	case '{':	/* as Arm's browser: { folds everything, } unfolds */
		memset(b->folded, 0xff, (b->nfolded + 7) / 8);
		break;
	case '}':
		memset(b->folded, 0, (b->nfolded + 7) / 8);
		break;
	default:
		return false;
	}
	uint64_t np = tkb_normalise(b, b->pos);
	if (np != b->pos)
		tkb_move_to(b, np, false);
	return true;
}

static void jump_to_write(tkb *b, uint64_t w, const char *what)
{
	if (w == TKB_NO_POS) {
		tkb_message(b, "no earlier write to %s in the trace", what);
		return;
	}
	tkb_jump_after(b, w);
}

void tkb_prev_write_reg(tkb *b, tk_reg_view view, uint64_t before)
{
	char what[32];
	snprintf(what, sizeof what, "%s", tk_reg_name(view.reg));
	jump_to_write(b, before == 0 ? TKB_NO_POS : tkb_model_reg_prev_write(b->model, before, view), what);
}

void tkb_prev_write_mem(tkb *b, uint64_t addr, uint64_t len, uint64_t before)
{
	char what[64];
	if (len == 1)
		snprintf(what, sizeof what, "memory at 0x%" PRIx64, addr);
	else
		snprintf(what, sizeof what, "memory 0x%" PRIx64 "..0x%" PRIx64, addr, addr + len - 1);
	jump_to_write(b, before == 0 ? TKB_NO_POS : tkb_model_mem_prev_write(b->model, before, addr, len), what);
}
#endif
