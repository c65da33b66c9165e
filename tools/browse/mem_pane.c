/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: memory panes, a hex and ASCII dump at any address. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"

#define MAX_BYTES 8192

/* Bytes per row: 16 if they fit, else fewer. */
static int row_bytes(int addrw)
{
	int bpr = 16;
	while (bpr > 1 && addrw + 2 + bpr * 3 + 1 + bpr > COLS)
		bpr /= 2;
	return bpr;
}

static int addr_width(const tkb_pane *p)
{
	return p->first > 0xffffffffULL - 0x10000 || p->addr > 0xffffffffULL ? 16 : 8;
}

/* Keep the cursor on screen. */
static void scroll_to_cursor(tkb_pane *p)
{
	int bpr = row_bytes(addr_width(p));
	int rows = p->height > 1 ? p->height - 1 : 1;
	uint64_t row = p->addr & ~(uint64_t)(bpr - 1);
	p->first &= ~(uint64_t)(bpr - 1);
	if (row < p->first)
		p->first = row;
	else if (row - p->first >= (uint64_t)rows * (uint64_t)bpr)
		p->first = row - (uint64_t)(rows - 1) * (uint64_t)bpr;
}

bool tkb_mem_open(tkb *b)
{
	uint64_t addr;
	char text[64];
	if (!b->has_mem) {
		tkb_message(b, "this trace has no memory values");
		return false;
	}
	if (!tkb_prompt_value(b, "Memory address: ", b->pos, &addr, text, sizeof text))
		return false;
	int i = tkb_pane_add(b, TKB_PANE_MEMORY);
	if (i < 0)
		return false;
	tkb_pane *p = &b->panes[i];
	p->addr = addr;
	p->first = addr & ~(uint64_t)15;
	snprintf(p->expr, sizeof p->expr, "%s", text);
	return true;
}

typedef struct changes {
	uint64_t lo;
	uint8_t *mark;
	uint64_t n;
} changes;

static int mark_range(void *ctx, uint64_t addr, uint64_t len)
{
	changes *c = ctx;
	for (uint64_t a = addr; a - addr < len; a++)
		if (a - c->lo < c->n)
			c->mark[a - c->lo] = 1;
	return 0;
}

/* The position the highlight compares against. */
static uint64_t base_pos(const tkb *b, const tkb_pane *p)
{
	if (p->diff_set)
		return p->diff_pos;
	return p->locked ? p->lock_pos : b->last_pos;
}

void tkb_mem_draw(tkb *b, tkb_pane *p)
{
	static uint8_t val[MAX_BYTES], known[MAX_BYTES], mark[MAX_BYTES];
	uint64_t pos = tkb_pane_pos(b, p);
	int addrw = addr_width(p), bpr = row_bytes(addrw);
	int rows = p->height - 1;
	char left[256], right[64], lock[80], diff[64] = "";

	scroll_to_cursor(p);
	tkb_lock_status(b, p, lock, sizeof lock);
	if (p->diff_set) {
		tk_tpos tp;
		tkb_model_insn(b->model, p->diff_pos ? p->diff_pos - 1 : 0, &tp);
		snprintf(diff, sizeof diff, " [changes since line %" PRIu64 "]", tp.line);
	}
	snprintf(left, sizeof left, " Memory: %s%s%s", p->expr, lock, diff);
	snprintf(right, sizeof right, "0x%0*" PRIx64 " ", addrw, p->addr);
	tkb_status_line(b, p, left, right);
	if (rows <= 0)
		return;

	uint64_t n = (uint64_t)rows * (uint64_t)bpr;
	if (n > MAX_BYTES)
		n = MAX_BYTES;
	if (p->first + n - 1 < p->first)	/* the top of the address space */
		n = UINT64_MAX - p->first + 1;
	tkb_model_mem(b->model, pos, p->first, (uint32_t)n, val, known);
	memset(mark, 0, (size_t)n);
	uint64_t base = base_pos(b, p);
	if (base != pos) {
		changes c = {p->first, mark, n};
		tkb_model_mem_written(b->model, base, pos, p->first, p->first + n - 1, true,
				      mark_range, &c);
	}
	bool focus = &b->panes[b->focus] == p;
	int ax = addrw + 2 + bpr * 3 + 1;
	for (int r = 0; r < rows && (uint64_t)r * (uint64_t)bpr < n; r++) {
		int y = p->top + 1 + r;
		char buf[32];
		uint64_t a0 = p->first + (uint64_t)r * (uint64_t)bpr;
		snprintf(buf, sizeof buf, "%0*" PRIx64, addrw, a0);
		tkb_put(y, 0, COLS, tkb_attr(b, TKB_A_ADDR), buf, addrw);
		for (int k = 0; k < bpr && (uint64_t)r * (uint64_t)bpr + (uint64_t)k < n; k++) {
			uint64_t i = (uint64_t)r * (uint64_t)bpr + (uint64_t)k;
			int a = known[i] ? (mark[i] ? TKB_A_CHANGED : TKB_A_NORMAL)
					 : (mark[i] ? TKB_A_CHANGED : TKB_A_UNKNOWN);
			if (focus && a0 + (uint64_t)k == p->addr)
				a = TKB_A_CURSOR;
			if (known[i])
				snprintf(buf, sizeof buf, "%02x", val[i]);
			else
				snprintf(buf, sizeof buf, "??");
			tkb_put(y, addrw + 2 + k * 3, COLS, tkb_attr(b, a), buf, 2);
			char ch = known[i] ? (val[i] >= 0x20 && val[i] < 0x7f ? (char)val[i] : '.') : '?';
			tkb_put(y, ax + k, COLS, tkb_attr(b, a), &ch, 1);
		}
	}
}

typedef struct found {
	uint64_t addr, len;
	int count;
} found;

static int take(void *ctx, uint64_t addr, uint64_t len)
{
	found *f = ctx;
	f->addr = addr;
	f->len = len;
	f->count++;
	return 1;
}

/* `]`: the start of the first changed run after the one the cursor is in;
 * `[`: the start of the run below the cursor (or of the cursor's own). */
static void next_changed(tkb *b, tkb_pane *p, bool forward)
{
	uint64_t pos = tkb_pane_pos(b, p), base = base_pos(b, p);
	found f = {0, 0, 0};
	if (base == pos) {
		tkb_message(b, "nothing is highlighted: no change since the last move");
		return;
	}
	if (forward) {
		uint64_t from = p->addr;
		found here = {0, 0, 0};
		tkb_model_mem_written(b->model, base, pos, p->addr, p->addr, true, take, &here);
		if (here.count) {
			/* Skip the rest of the run the cursor is in. */
			found run = {0, 0, 0};
			tkb_model_mem_written(b->model, base, pos, p->addr, UINT64_MAX, true, take, &run);
			from = run.addr + run.len - 1;
		}
		if (from != UINT64_MAX)
			tkb_model_mem_written(b->model, base, pos, from + 1, UINT64_MAX, true, take, &f);
	} else if (p->addr > 0) {
		tkb_model_mem_written(b->model, base, pos, 0, p->addr - 1, false, take, &f);
	}
	if (!f.count) {
		tkb_message(b, "no changed address %s", forward ? "after the cursor" : "before the cursor");
		return;
	}
	p->addr = f.addr;	/* a run's start: ranges are maximal */
}

bool tkb_mem_key(tkb *b, tkb_pane *p, int key)
{
	int bpr = row_bytes(addr_width(p));
	uint64_t page = (uint64_t)bpr * (uint64_t)(p->height > 2 ? p->height - 1 : 1);
	uint64_t pos = tkb_pane_pos(b, p);
	switch (key) {
	case KEY_LEFT:
		p->addr--;
		break;
	case KEY_RIGHT:
		p->addr++;
		break;
	case KEY_UP:
		p->addr -= (uint64_t)bpr;
		break;
	case KEY_DOWN:
		p->addr += (uint64_t)bpr;
		break;
	case KEY_PPAGE:
		p->addr -= page;
		p->first -= page;
		break;
	case KEY_NPAGE:
		p->addr += page;
		p->first += page;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
	case '1':
	case '2':
	case '4':
	case '8': {
		uint64_t size = key >= '1' && key <= '8' ? (uint64_t)(key - '0') : 1;
		uint64_t a = p->addr & ~(size - 1);
		tkb_prev_write_mem(b, a, size, pos ? pos - 1 : 0);
		return true;
	}
	case '[':
	case ']':
		next_changed(b, p, key == ']');
		break;
	case 'x':
		tkb_pane_remove(b, (int)(p - b->panes));
		return true;
	case 'd': {
		uint64_t dpos;
		int r = tkb_prompt_line_pos(b, p->diff_set ? "Compare with line (empty: the last move): "
							   : "Compare with line: ", &dpos);
		if (r > 0) {
			p->diff_set = true;
			p->diff_pos = dpos;
		} else if (r < 0 && p->diff_set) {
			/* Empty input: back to highlighting what the last move
			 * changed; otherwise a pane could never get it back. */
			p->diff_set = false;
			tkb_message(b, "highlighting the changes of the last move again");
		}
		return true;
	}
	default:
		return tkb_lock_key(b, p, key);
	}
	scroll_to_cursor(p);
	return true;
}
#endif
