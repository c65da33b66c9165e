/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the register panes (core, single and double FP, NEON,
 * MVE).  Each is a grid of "name value" cells; the values are those of
 * the pane's position (the current one unless the pane is locked).
 *
 * The core pane's pc row is not a register of the index: it is the address
 * of the last instruction executed (the one just above the marker, or the
 * return instruction of a call folded there), taken from the position.  It
 * changes at every step, so it is highlighted only when that instruction
 * was reached by a jump (a taken branch, call, return or exception) rather
 * than by falling through from the instruction before it. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"

#include "view/regsets.h"

#define MAX_REGS TKV_REGSET_MAX

typedef tkv_regdef regdef;

static tkv_regset set_of(tkb_pane_kind kind)
{
	switch (kind) {
	case TKB_PANE_SINGLE: return TKV_RS_SINGLE;
	case TKB_PANE_DOUBLE: return TKV_RS_DOUBLE;
	case TKB_PANE_NEON: return TKV_RS_NEON;
	case TKB_PANE_MVE: return TKV_RS_MVE;
	default: return TKV_RS_CORE;
	}
}

static int reg_list(const tkb *b, tkb_pane_kind kind, regdef *out)
{
	return tkv_regset_list(set_of(kind), b->a64, out);
}

static const char *pane_title(const tkb *b, tkb_pane_kind kind)
{
	return tkv_regset_title(set_of(kind), b->a64);
}

/* Digits of the value, most significant first; ?? for unknown bytes; then
 * for FP panes the decimal value when every byte is known. */
static int format_value(tkb_pane_kind kind, const uint8_t *v, const uint8_t *k, int len,
			char *out, size_t size)
{
	char hex[2 * TK_REG_MAX_BYTES + 1];
	tkv_reg_hex(v, k, len, hex);
	int n = snprintf(out, size, "%s", hex);
	if (kind == TKB_PANE_SINGLE || kind == TKB_PANE_DOUBLE) {
		char dec[32];
		tkv_reg_float(v, k, len, dec, sizeof dec);
		n += snprintf(out + n, size - (size_t)n, " %-*s", len == 4 ? 14 : 22, dec);
	}
	return n;
}

typedef struct grid {
	regdef regs[MAX_REGS];
	int n, namew, cellw, ncols, nrows;
} grid;

static void make_grid(const tkb *b, tkb_pane_kind kind, grid *g)
{
	g->n = reg_list(b, kind, g->regs);
	g->namew = 0;
	int valw = 0;
	for (int i = 0; i < g->n; i++) {
		int l = (int)strlen(g->regs[i].name);
		if (l > g->namew)
			g->namew = l;
		int w = g->regs[i].view.len * 2;
		if (kind == TKB_PANE_SINGLE)
			w += 15;
		else if (kind == TKB_PANE_DOUBLE)
			w += 23;
		if (w > valw)
			valw = w;
	}
	g->cellw = g->namew + 1 + valw + 2;
	g->ncols = (COLS + 2) / g->cellw;
	if (g->ncols < 1)
		g->ncols = 1;
	g->nrows = (g->n + g->ncols - 1) / g->ncols;
}

/* Follow the instruction set of the position: AArch64 or AArch32 names. */
static void update_isa(tkb *b, uint64_t pos)
{
	if (pos == 0 || pos > b->ninsns)
		return;
	tk_isa isa = tkb_model_isa(b->model, pos - 1);
	if (isa == TK_ISA_A64)
		b->a64 = true;
	else if (isa == TK_ISA_A32 || isa == TK_ISA_T32)
		b->a64 = false;
}

int tkb_regs_height(tkb *b, const tkb_pane *p)
{
	grid g;
	update_isa(b, tkb_pane_pos(b, p));
	make_grid(b, p->kind, &g);
	return 1 + g.nrows;
}

void tkb_lock_status(const tkb *b, const tkb_pane *p, char *buf, size_t size)
{
	buf[0] = '\0';
	if (p->locked) {
		tk_tpos tp;
		if (p->lock_pos > 0) {
			tkb_model_insn(b->model, p->lock_pos - 1, &tp);
			snprintf(buf, size, " [locked: line %" PRIu64 ", time %" PRIu64 "]", tp.line, tp.time);
		} else {
			snprintf(buf, size, " [locked: start]");
		}
	}
}

/* The pc row at a position: the address of instruction pos-1, the last one
 * executed; unknown before the first. */
static uint64_t pc_at(const tkb *b, uint64_t pos, bool *known)
{
	tk_tpos tp;
	*known = pos > 0 && pos <= b->ninsns;
	if (!*known)
		return 0;
	tkb_model_insn(b->model, pos - 1, &tp);
	return tp.pc;
}

/* Whether instruction i was reached by a jump (view/regsets.h). */
static bool reached_by_jump(const tkb *b, uint64_t i)
{
	return i < b->ninsns && tkv_reached_by_jump(tkb_model_index(b->model), i);
}

/* A row's value at pos: the snapshot's register, or the pc. */
static void row_value(const tkb *b, const tkb_regs *rs, uint64_t pos, const regdef *r,
		      uint8_t *v, uint8_t *k)
{
	if (!r->pc) {
		tkb_regs_get(rs, r->view, v, k);
		return;
	}
	bool known;
	uint64_t x = pc_at(b, pos, &known);
	for (int i = 0; i < r->view.len; i++) {
		v[i] = (uint8_t)(x >> (8 * i));
		k[i] = known;
	}
}

/* Value of a register as a number (for `a`), if known and <= 8 bytes. */
static bool reg_number(const uint8_t *v, const uint8_t *k, int len, uint64_t *out)
{
	uint64_t x = 0;
	if (len > 8)
		return false;
	for (int i = len - 1; i >= 0; i--) {
		if (!k[i])
			return false;
		x = x << 8 | v[i];
	}
	*out = x;
	return true;
}

void tkb_regs_draw(tkb *b, tkb_pane *p)
{
	uint64_t pos = tkb_pane_pos(b, p);
	grid g;
	tkb_regs *now = NULL, *before = NULL;
	char left[160], right[200] = "", lock[80];

	update_isa(b, pos);
	make_grid(b, p->kind, &g);
	if (p->cursor >= g.n)
		p->cursor = g.n - 1;
	if (p->cursor < 0)
		p->cursor = 0;
	if (tkb_model_regs_at(b->model, pos, &now)) {
		tkb_status_line(b, p, " Registers: cannot read the index", NULL);
		return;
	}
	if (!p->locked && b->last_pos != b->pos)
		tkb_model_regs_at(b->model, b->last_pos, &before);

	tkb_lock_status(b, p, lock, sizeof lock);
	snprintf(left, sizeof left, " %s%s", pane_title(b, p->kind), lock);
	if (p->show_symbol && now && g.n) {
		const regdef *r = &g.regs[p->cursor];
		uint8_t v[16], k[16];
		uint64_t x;
		row_value(b, now, pos, r, v, k);
		if (!reg_number(v, k, r->view.len, &x)) {
			snprintf(right, sizeof right, "%s: not a known address ", r->name);
		} else if (!b->cli->symtab) {
			snprintf(right, sizeof right, "%s: no symbols (--image) ", r->name);
		} else {
			const tk_symbol *s = tk_symtab_containing(b->cli->symtab, x);
			if (!s)
				snprintf(right, sizeof right, "%s = 0x%" PRIx64 ": no symbol ", r->name, x);
			else if (s->addr == x)
				snprintf(right, sizeof right, "%s = 0x%" PRIx64 " = %s ", r->name, x, s->name);
			else
				snprintf(right, sizeof right, "%s = 0x%" PRIx64 " = %s+0x%" PRIx64 " ", r->name,
					 x, s->name, x - s->addr);
		}
	}
	tkb_status_line(b, p, left, right);

	int h = p->height - 1;
	int crow = p->cursor / g.ncols;
	int first = (int)p->first;
	if (crow < first)
		first = crow;
	if (crow >= first + h)
		first = crow - h + 1;
	if (first > g.nrows - h)
		first = g.nrows - h > 0 ? g.nrows - h : 0;
	if (first < 0)
		first = 0;
	p->first = (uint64_t)first;
	bool focus = &b->panes[b->focus] == p;

	for (int row = 0; row < h && first + row < g.nrows; row++) {
		for (int col = 0; col < g.ncols; col++) {
			int i = (first + row) * g.ncols + col;
			if (i >= g.n)
				break;
			const regdef *r = &g.regs[i];
			uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES];
			uint8_t v0[TK_REG_MAX_BYTES], k0[TK_REG_MAX_BYTES];
			char val[96];
			int y = p->top + 1 + row, x = col * g.cellw;
			row_value(b, now, pos, r, v, k);
			bool changed = false;
			if (r->pc) {
				changed = before && pos > 0 && reached_by_jump(b, pos - 1);
			} else if (before) {
				tkb_regs_get(before, r->view, v0, k0);
				changed = memcmp(v, v0, r->view.len) || memcmp(k, k0, r->view.len);
			}
			int vl = format_value(p->kind, v, k, r->view.len, val, sizeof val);
			int na = tkb_attr(b, focus && i == p->cursor ? TKB_A_CURSOR : TKB_A_NORMAL);
			tkb_put(y, x, COLS, na, r->name, (int)strlen(r->name));
			bool unknown = strstr(val, "??") != NULL;
			int va = tkb_attr(b, changed ? TKB_A_CHANGED : unknown ? TKB_A_UNKNOWN : TKB_A_NORMAL);
			tkb_put(y, x + g.namew + 1, COLS, va, val, vl);
		}
	}
	tkb_regs_free(now);
	tkb_regs_free(before);
}

bool tkb_lock_key(tkb *b, tkb_pane *p, int key)
{
	uint64_t pos;
	switch (key) {
	case 'l':
		if (tkb_prompt_line_pos(b, "Lock the pane to line: ", &pos) > 0) {
			p->locked = true;
			p->lock_pos = pos;
		}
		return true;
	case 't':
		if (tkb_prompt_time_pos(b, "Lock the pane to time: ", &pos) > 0) {
			p->locked = true;
			p->lock_pos = pos;
		}
		return true;
	case TKB_CTRL('L'):
		if (p->locked) {
			p->locked = false;
			tkb_message(b, "pane unlocked: it follows the current position");
		} else {
			p->locked = true;
			p->lock_pos = b->pos;
			tkb_message(b, "pane locked to the current position");
		}
		return true;
	case '<':
	case '>': {
		/* From the height the pane has now, not the one asked for:
		 * after a '>' with no room left (or a smaller terminal) the
		 * wish can be far above it, and '<' would seem dead. */
		int old = p->height;
		p->want = old + (key == '>' ? 1 : -1);
		if (p->want < 2)
			p->want = 2;
		tkb_layout(b);
		if (p->height < p->want)
			p->want = p->height;	/* keep the wish what fits */
		if (p->height == old)
			tkb_message(b, key == '>' ? "no room to make the pane taller"
						  : "the pane is as short as it can be");
		return true;
	}
	}
	return false;
}

/* Return on pc: every instruction writes it, so its "previous write" would
 * be the previous instruction.  Go instead to the previous visit of the
 * same address (as P would, and n / N repeat the search from there). */
static void prev_visit(tkb *b, uint64_t pos)
{
	bool known;
	uint64_t pc = pc_at(b, pos, &known);
	if (!known) {
		tkb_message(b, "no instruction has run yet: pc is not known here");
		return;
	}
	b->search_pc = pc;
	b->have_search = true;
	uint64_t q = tkb_model_pc_prev(b->model, pos - 1, pc);
	if (q == TKB_NO_POS) {
		tkb_message(b, "pc 0x%" PRIx64 ": no earlier visit of this address in the trace", pc);
		return;
	}
	tkb_jump_after(b, q);
	tkb_message(b, "pc 0x%" PRIx64 ": previous visit (n / N: next / previous visit)", pc);
}

bool tkb_regs_key(tkb *b, tkb_pane *p, int key)
{
	grid g;
	make_grid(b, p->kind, &g);
	switch (key) {
	case KEY_LEFT:
		if (p->cursor > 0)
			p->cursor--;
		return true;
	case KEY_RIGHT:
		if (p->cursor + 1 < g.n)
			p->cursor++;
		return true;
	case KEY_UP:
		if (p->cursor >= g.ncols)
			p->cursor -= g.ncols;
		return true;
	case KEY_DOWN:
		if (p->cursor + g.ncols < g.n)
			p->cursor += g.ncols;
		return true;
	case '\r':
	case '\n':
	case KEY_ENTER: {
		uint64_t pos = tkb_pane_pos(b, p);
		if (g.n && g.regs[p->cursor].pc)
			prev_visit(b, pos);
		else if (g.n)
			tkb_prev_write_reg(b, g.regs[p->cursor].view, pos ? pos - 1 : 0);
		return true;
	}
	case 'a':
		p->show_symbol = !p->show_symbol;
		return true;
	}
	return tkb_lock_key(b, p, key);
}
#endif
