/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the call-stack pane's frame-pointer view.
 *
 * With --image, the call-stack pane shows the frame-pointer walk at the
 * instruction above the marker (as `tracekit backtrace` prints it, with
 * FILE:LINE), a '!' on each frame where the call tree's stack differs, and
 * how the walk stopped.  C switches to the call tree's stack (the pane's
 * view without an image) and back; Return on frame K jumps to the call
 * site of the K-th enclosing activation, as in that view. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dbginfo.h"

/* The walk view is on: an image, and C not pressed. */
static tkb_dbg *active(tkb *b)
{
	tkb_dbg *d = b->cli->image ? tkb_dbg_get(b) : NULL;
	return d && !d->show_stack ? d : NULL;
}

static int rows(tkb *b, tkb_dbg *d)
{
	if (!tkb_dbg_walk(b, d))
		return 1;
	return (int)d->walk.count + (d->walk.stop != TK_BT_END);
}

bool tkb_walk_height(tkb *b, const tkb_pane *p, int *h)
{
	(void)p;
	tkb_dbg *d = active(b);
	if (!d)
		return false;
	int n = 1 + rows(b, d);
	*h = n > 8 ? 8 : n < 3 ? 3 : n;
	return true;
}

/* Frame k's line: "#K  0xADDR in NAME at FILE:LINE". */
static void frame_text(tkb *b, tkb_dbg *d, unsigned k, char *buf, size_t size)
{
	const tk_bt *w = &d->walk;
	uint64_t addr = w->frames[k].addr;
	uint64_t look = k ? addr - 1 : addr;
	bool differs = k >= d->stack.count || d->stack.frames[k].addr != addr;
	tk_dwarf_result r;
	const char *name = NULL;
	if (tk_dwarf_addr2line(tk_srclines_dwarf(d->lines), look - b->cli->load_offset, NULL, &r) == 0 &&
	    r.found)
		name = r.locs[0].function;
	const char *line = tk_srclines_get(d->lines, look);
	snprintf(buf, size, "%c#%-2u 0x%0*" PRIx64 "%s%s%s%s", differs ? '!' : ' ', k,
		 (int)w->addr_bytes * 2, addr, name ? " in " : "", name ? name : "",
		 line ? " at " : "", line ? line : "");
}

bool tkb_walk_draw(tkb *b, tkb_pane *p)
{
	tkb_dbg *d = active(b);
	if (!d)
		return false;
	int h = p->height - 1;
	int n = rows(b, d);
	bool have = tkb_dbg_walk(b, d);
	if (p->cursor >= n)
		p->cursor = n - 1;
	if (p->cursor < 0)
		p->cursor = 0;
	unsigned diff = 0;
	for (unsigned k = 0; have && k < d->walk.count; k++)
		diff += k >= d->stack.count || d->stack.frames[k].addr != d->walk.frames[k].addr;
	char left[96], right[48];
	snprintf(left, sizeof left, " Call stack: frame chain (%u frames%s)", have ? d->walk.count : 0,
		 diff ? ", ! differs from the call stack" : "");
	snprintf(right, sizeof right, "C: call stack  Return: call site ");
	tkb_status_line(b, p, left, right);
	int first = p->cursor >= h ? p->cursor - h + 1 : 0;
	bool focus = &b->panes[b->focus] == p;
	for (int r = 0; r < h && first + r < n; r++) {
		int k = first + r;
		char line[640], why[160];
		if (!have)
			snprintf(line, sizeof line, " (no instruction executed yet, or not Arm code)");
		else if ((unsigned)k < d->walk.count)
			frame_text(b, d, (unsigned)k, line, sizeof line);
		else
			snprintf(line, sizeof line, " stopped: %s", tk_bt_stop_text(&d->walk, why, sizeof why));
		int a = tkb_attr(b, focus && k == p->cursor ? TKB_A_CURSOR :
				    line[0] == '!' ? TKB_A_ERROR : TKB_A_NORMAL);
		tkb_put(p->top + 1 + r, 0, COLS, a, line, (int)strlen(line));
	}
	return true;
}

/* The activations enclosing the instruction, innermost first. */
static uint32_t enclosing(tkb *b, unsigned k)
{
	uint64_t i = tkb_dbg_insn(b);
	if (!tkb_model_ncalls(b->model) || i == TKB_NO_POS)
		return TK_CALL_NONE;
	uint32_t c = tkb_model_call_at(b->model, i);
	for (unsigned j = 1; j < k && c != TK_CALL_NONE; j++)
		c = tkb_model_call_parent(b->model, c);
	return c;
}

bool tkb_walk_key(tkb *b, tkb_pane *p, int key)
{
	if (key == 'C') {
		tkb_dbg *d = b->cli->image ? tkb_dbg_get(b) : NULL;
		if (!d) {
			tkb_message(b, "%s", b->dbg && b->dbg->error[0] ? b->dbg->error
									: "no frame walk without --image");
			return true;
		}
		d->show_stack = !d->show_stack;
		p->cursor = 0;
		return true;
	}
	tkb_dbg *d = active(b);
	if (!d)
		return false;
	switch (key) {
	case KEY_UP:
		if (p->cursor > 0)
			p->cursor--;
		return true;
	case KEY_DOWN:
		p->cursor++;
		return true;
	case '\r':
	case '\n':
	case KEY_ENTER: {
		if (p->cursor == 0 || !tkb_dbg_walk(b, d) || (unsigned)p->cursor >= d->walk.count) {
			tkb_message(b, "frame 0 is the current instruction");
			return true;
		}
		uint32_t c = enclosing(b, (unsigned)p->cursor);
		tkb_call_insns ci;
		if (c == TK_CALL_NONE || c == 0 || (unsigned)p->cursor >= d->stack.count ||
		    d->stack.frames[p->cursor].addr != d->walk.frames[p->cursor].addr) {
			tkb_message(b, "the call tree has no activation for this frame");
			return true;
		}
		tkb_model_call_insns(b->model, c, &ci);
		tkb_jump_before(b, ci.call);
		p->cursor = 0;
		return true;
	}
	}
	return false;
}
#endif
