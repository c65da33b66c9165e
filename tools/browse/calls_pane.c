/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the call-stack pane, the chain of calls active at the
 * current position, innermost first, each a way back to its call site. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "browse.h"

#define MAX_DEPTH 4096

void tkb_func_name(const tkb *b, uint64_t addr, char *buf, size_t size)
{
	const tk_symbol *s = b->cli->symtab ? tk_symtab_containing(b->cli->symtab, addr) : NULL;
	if (!s)
		snprintf(buf, size, "0x%" PRIx64, addr);
	else if (s->addr == addr)
		snprintf(buf, size, "%s", s->name);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, s->name, addr - s->addr);
}

/* The active calls, innermost first; the root (whole trace) last. */
static int chain(const tkb *b, uint32_t *out, int max)
{
	int n = 0;
	if (!tkb_model_ncalls(b->model) || !b->ninsns)
		return 0;
	uint64_t i = b->pos < b->ninsns ? b->pos : b->ninsns - 1;
	for (uint32_t c = tkb_model_call_at(b->model, i); c != TK_CALL_NONE && n < max;
	     c = tkb_model_call_parent(b->model, c))
		out[n++] = c;
	return n;
}

int tkb_calls_height(tkb *b, const tkb_pane *p)
{
	static uint32_t calls[MAX_DEPTH];
	int wh;
	if (tkb_walk_height(b, p, &wh))
		return wh;
	int n = chain(b, calls, MAX_DEPTH);
	int h = 1 + (n ? n : 1);
	return h > 8 ? 8 : h < 3 ? 3 : h;
}

void tkb_calls_draw(tkb *b, tkb_pane *p)
{
	static uint32_t calls[MAX_DEPTH];
	if (tkb_walk_draw(b, p))
		return;
	int n = chain(b, calls, MAX_DEPTH);
	int h = p->height - 1;
	char left[64], right[48];

	if (p->cursor >= n)
		p->cursor = n - 1;
	if (p->cursor < 0)
		p->cursor = 0;
	snprintf(left, sizeof left, " Call stack (%d active)", n > 0 ? n - 1 : 0);
	snprintf(right, sizeof right, "%sReturn: go to call site ", b->cli->image ? "C: frames  " : "");
	tkb_status_line(b, p, left, right);
	int first = p->cursor >= h ? p->cursor - h + 1 : 0;
	bool focus = &b->panes[b->focus] == p;
	for (int r = 0; r < h && first + r < n; r++) {
		int k = first + r;
		tk_call node, *c = &node;
		tkb_model_call(b->model, calls[k], c);
		char name[160], line[320];
		tkb_func_name(b, c->entry.pc, name, sizeof name);
		if (c->parent == TK_CALL_NONE)
			snprintf(line, sizeof line, "#%-3d %s (top level of the trace, from line %" PRIu64 ")",
				 k, name, c->entry.line);
		else
			snprintf(line, sizeof line, "#%-3d %s  called from line %" PRIu64 " (pc 0x%" PRIx64
				 ", time %" PRIu64 ")", k, name, c->call.line, c->call.pc, c->call.time);
		int a = tkb_attr(b, focus && k == p->cursor ? TKB_A_CURSOR : TKB_A_NORMAL);
		tkb_put(p->top + 1 + r, 0, COLS, a, line, (int)strlen(line));
	}
}

bool tkb_calls_key(tkb *b, tkb_pane *p, int key)
{
	static uint32_t calls[MAX_DEPTH];
	int n;
	if (tkb_walk_key(b, p, key))
		return true;
	switch (key) {
	case KEY_UP:
		if (p->cursor > 0)
			p->cursor--;
		return true;
	case KEY_DOWN:
		p->cursor++;	/* clamped when drawn */
		return true;
	case '\r':
	case '\n':
	case KEY_ENTER: {
		n = chain(b, calls, MAX_DEPTH);
		if (p->cursor >= n || p->cursor < 0)
			return true;
		tkb_call_insns ci;
		tkb_model_call_insns(b->model, calls[p->cursor], &ci);
		if (ci.call == TKB_NO_POS) {
			tkb_message(b, "the top level has no call site");
			return true;
		}
		/* Just before the call instruction: the caller, about to call. */
		tkb_jump_before(b, ci.call);
		p->cursor = 0;
		return true;
	}
	case '<':
	case '>':
		return tkb_lock_key(b, p, key);
	}
	return false;
}
#endif
