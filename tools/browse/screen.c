/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: colours, pane layout and the whole-screen redraw. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"

static int attrs[TKB_A_COUNT];

/* Colour pairs, with the monochrome attribute used when colour is off. */
static const struct {
	short fg, bg;
	int colour_extra, mono;
} styles[TKB_A_COUNT] = {
	[TKB_A_NORMAL] = {-1, -1, 0, A_NORMAL},
	[TKB_A_STATUS] = {COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE},
	[TKB_A_STATUS_FOCUS] = {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
	[TKB_A_MARKER] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[TKB_A_CHANGED] = {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_BOLD | A_UNDERLINE},
	[TKB_A_UNKNOWN] = {COLOR_RED, -1, 0, A_DIM},
	[TKB_A_CURSOR] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	[TKB_A_HIGHLIGHT] = {COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE | A_BOLD},
	[TKB_A_TIME] = {COLOR_CYAN, -1, 0, A_DIM},
	[TKB_A_ADDR] = {COLOR_GREEN, -1, 0, A_NORMAL},
	[TKB_A_INSN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[TKB_A_REG] = {COLOR_CYAN, -1, A_BOLD, A_UNDERLINE},
	[TKB_A_MEM] = {COLOR_MAGENTA, -1, A_BOLD, A_UNDERLINE},
	[TKB_A_VALUE] = {COLOR_WHITE, -1, A_BOLD, A_BOLD},
	[TKB_A_TEXT] = {COLOR_BLUE, -1, A_BOLD, A_DIM},
	[TKB_A_PROMPT] = {-1, -1, A_BOLD, A_BOLD},
	[TKB_A_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD},
};

void tkb_screen_init(tkb *b)
{
	/* NO_COLOR (set and not empty, as no-color.org says) turns colours
	 * off unless --colour; --no-colour always does. */
	const char *no_color = getenv("NO_COLOR");
	b->colour = has_colors() && (b->colour_opt > 0 ||
				     (b->colour_opt == 0 && !(no_color && *no_color)));
	if (b->colour) {
		start_color();
		if (use_default_colors() != OK)
			assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	}
	for (int i = 0; i < TKB_A_COUNT; i++) {
		if (b->colour && i != TKB_A_NORMAL && COLOR_PAIRS > i) {
			init_pair((short)i, styles[i].fg, styles[i].bg);
			attrs[i] = (int)COLOR_PAIR(i) | styles[i].colour_extra;
		} else {
			attrs[i] = styles[i].mono;
		}
	}
}

int tkb_attr(const tkb *b, enum tkb_attr a)
{
	(void)b;
	return attrs[a];
}

void tkb_put(int y, int x, int maxx, int attr, const char *s, int len)
{
	if (y < 0 || y >= LINES)
		return;
	if (maxx > COLS)
		maxx = COLS;
	attrset(attr);
	move(y, x);
	for (int i = 0; i < len && x < maxx; i++, x++) {
		unsigned char c = (unsigned char)s[i];
		addch(c >= 0x20 && c < 0x7f ? c : c == '\t' ? ' ' : '?');
	}
	attrset(A_NORMAL);
}

void tkb_status_line(tkb *b, const tkb_pane *p, const char *left, const char *right)
{
	int focus = &b->panes[b->focus] == p;
	int a = tkb_attr(b, focus ? TKB_A_STATUS_FOCUS : TKB_A_STATUS);
	int y = p->top;
	attrset(a);
	mvhline(y, 0, ' ', COLS);
	int ll = (int)strlen(left), rl = right ? (int)strlen(right) : 0;
	/* On a narrow screen the right part (the trace position, the
	 * address under the cursor) matters more than the end of the title:
	 * cut the title short instead of dropping it. */
	if (rl && rl + 1 < COLS) {
		tkb_put(y, 0, COLS - rl - 1, a, left, ll);
		tkb_put(y, COLS - rl, COLS, a, right, rl);
	} else {
		tkb_put(y, 0, COLS, a, left, ll);
	}
	attrset(A_NORMAL);
}

void tkb_message(tkb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->message, sizeof b->message, fmt, ap);
	va_end(ap);
}

int tkb_pane_find(const tkb *b, tkb_pane_kind kind)
{
	for (int i = 0; i < b->npanes; i++)
		if (b->panes[i].kind == kind)
			return i;
	return -1;
}

int tkb_pane_add(tkb *b, tkb_pane_kind kind)
{
	if (b->npanes >= TKB_MAX_PANES) {
		tkb_message(b, "too many panes: close one first");
		return -1;
	}
	tkb_pane *p = &b->panes[b->npanes];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	return b->npanes++;
}

void tkb_pane_remove(tkb *b, int i)
{
	if (i <= 0 || i >= b->npanes)
		return;		/* the trace pane stays */
	memmove(&b->panes[i], &b->panes[i + 1], (size_t)(b->npanes - i - 1) * sizeof b->panes[0]);
	b->npanes--;
	if (b->focus == i || b->focus >= b->npanes)
		b->focus = 0;
	else if (b->focus > i)
		b->focus--;
}

void tkb_toggle_pane(tkb *b, tkb_pane_kind kind)
{
	int i = tkb_pane_find(b, kind);
	if (i >= 0)
		tkb_pane_remove(b, i);
	else
		tkb_pane_add(b, kind);
}

/* Rows a pane would like (status line included). */
int tkb_natural_height(tkb *b, const tkb_pane *p)
{
	switch (p->kind) {
	case TKB_PANE_MEMORY:
		return 1 + 8;
	case TKB_PANE_CALLS:
		return tkb_calls_height(b, p);
	case TKB_PANE_SOURCE:
		return tkb_source_height(b, p);
	case TKB_PANE_TRACE:
		return 0;
	default:
		return tkb_regs_height(b, p);
	}
}

/*
 * The trace pane takes what the others leave, keeping a few rows for
 * itself; on a small screen the lower panes shrink to a status line and
 * one row, and those that still do not fit are not shown (they keep their
 * place and come back when the terminal grows).
 */
void tkb_layout(tkb *b)
{
	int avail = LINES - 1;
	int trace_min = avail < 4 ? avail : 4;
	int h[TKB_MAX_PANES];
	int sum = 0;

	b->rows = LINES;
	b->cols = COLS;
	if (avail < 1)
		avail = trace_min = 0;
	for (int i = 1; i < b->npanes; i++) {
		tkb_pane *p = &b->panes[i];
		int nat = tkb_natural_height(b, p);
		if (p->want) {
			h[i] = p->want;
		} else {
			h[i] = nat;
			if (h[i] > avail / 2 && h[i] > 2)
				h[i] = avail / 2 > 2 ? avail / 2 : 2;
		}
		if (h[i] < 2)
			h[i] = 2;
		sum += h[i];
	}
	/* Shrink the lower panes, last first, down to two rows each. */
	for (int i = b->npanes - 1; i >= 1 && sum > avail - trace_min; i--) {
		int cut = sum - (avail - trace_min);
		int can = h[i] - 2;
		if (can > cut)
			can = cut;
		h[i] -= can;
		sum -= can;
	}
	/* Then drop whole panes from the bottom. */
	for (int i = b->npanes - 1; i >= 1 && sum > avail - trace_min; i--) {
		sum -= h[i];
		h[i] = 0;
	}
	b->panes[0].top = 0;
	b->panes[0].height = avail - sum;
	int y = b->panes[0].height;
	for (int i = 1; i < b->npanes; i++) {
		b->panes[i].top = y;
		b->panes[i].height = h[i];
		y += h[i];
	}
	if (b->panes[b->focus].height == 0)
		b->focus = 0;
}

static void draw_bottom(tkb *b)
{
	int y = LINES - 1;
	move(y, 0);
	clrtoeol();
	if (b->message[0]) {
		tkb_put(y, 0, COLS, tkb_attr(b, TKB_A_ERROR), b->message, (int)strlen(b->message));
	} else {
		static const char hint[] = "F1 help  Tab next pane  q quit";
		int n = (int)sizeof hint - 1;
		tkb_put(y, COLS > n ? COLS - n : 0, COLS, tkb_attr(b, TKB_A_TEXT), hint, n);
	}
}

void tkb_redraw(tkb *b)
{
	tkb_layout(b);
	erase();
	for (int i = 0; i < b->npanes; i++) {
		tkb_pane *p = &b->panes[i];
		if (p->height <= 0)
			continue;
		switch (p->kind) {
		case TKB_PANE_TRACE:
			tkb_trace_draw(b, p);
			break;
		case TKB_PANE_MEMORY:
			tkb_mem_draw(b, p);
			break;
		case TKB_PANE_CALLS:
			tkb_calls_draw(b, p);
			break;
		case TKB_PANE_SOURCE:
			tkb_source_draw(b, p);
			break;
		default:
			tkb_regs_draw(b, p);
			break;
		}
	}
	draw_bottom(b);
	curs_set(0);
	refresh();
}
#endif
