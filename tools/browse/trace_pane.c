/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the trace pane.
 *
 * The lines around the current position are read from the trace file: up
 * from the marker through the blocks of the visible instructions before it
 * (a folded call shows only its call instruction), down through those after
 * it.  The marker is a horizontal rule between the two.  The line of a call
 * instruction whose call is folded ends in "[+ N instructions folded:
 * NAME]" (over the end of the line if it is too long to fit).
 */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse.h"
#include "view/highlight.h"
#include "tracekit/tarmac.h"

#define MAX_ROWS 1024

typedef struct line_ref {
	uint64_t off, end;
	uint64_t insn;		/* the instruction of this line, TKB_NO_POS for
				 * the other lines of its block */
} line_ref;

/* Up to max lines ending at the marker, nearest first. */
static int lines_above(tkb *b, line_ref *out, int max)
{
	int n = 0;
	uint64_t pos = b->pos;
	while (n < max) {
		uint64_t i = tkb_visible_prev_insn(b, pos);
		uint64_t s, e;
		tkb_model_block(b->model, i, &s, &e);	/* i = NONE: the header */
		if (e > b->file.size)
			e = b->file.size;
		for (uint64_t off = e; off > s && n < max; n++) {
			uint64_t ls = tkv_line_prev(&b->file, off);
			out[n].off = ls < s ? s : ls;
			out[n].end = tkv_line_end(&b->file, out[n].off);
			out[n].insn = out[n].off == s ? i : TKB_NO_POS;
			off = out[n].off;
		}
		if (i == TKB_NO_POS)
			break;
		pos = i;
	}
	return n;
}

/* Up to max lines from the marker down. */
static int lines_below(tkb *b, line_ref *out, int max)
{
	int n = 0;
	uint64_t j = tkb_normalise(b, b->pos);
	while (n < max && j < b->ninsns) {
		uint64_t s, e;
		tkb_model_block(b->model, j, &s, &e);
		for (uint64_t off = s; off < e && n < max; off = tkv_line_next(&b->file, off)) {
			out[n].off = off;
			out[n].end = tkv_line_end(&b->file, off);
			out[n].insn = off == s ? j : TKB_NO_POS;
			n++;
		}
		j = tkb_normalise(b, j + 1);
	}
	return n;
}

#define MAX_UPDATE_LINES 256

static int draw_text(tkb *b, int y, const line_ref *l, bool highlight);

/* The register and memory lines of the instruction just above the marker
 * (the lines `a` cycles through), parsed in order from the instruction
 * line so the AArch32/AArch64 register overlay is right.  Fills offs (up
 * to max) and, if want is not NULL, the event of the want_index'th one. */
static int hl_candidates(tkb *b, uint64_t *offs, int max, int want_index, tk_event *want)
{
	uint64_t i = tkb_visible_prev_insn(b, b->pos);
	uint64_t s, e;
	int n = 0, lines = 0;
	if (i == TKB_NO_POS)
		return 0;
	tkb_model_block(b->model, i, &s, &e);
	/* Stop at the wanted line: its event points into the parser's buffers,
	 * which the next line would overwrite. */
	for (uint64_t off = s; off < e && n < max && lines < MAX_UPDATE_LINES &&
			       !(want && n > want_index);
	     off = tkv_line_next(&b->file, off), lines++) {
		uint64_t end = tkv_line_end(&b->file, off);
		const tk_event *evs;
		size_t nev, len;
		const char *text = tkv_line_text(&b->file, off, (size_t)(end - off), &len);
		tk_tarmac_parse_line(b->parser, text, len, 0, off, &evs, &nev);
		for (size_t k = 0; k < nev; k++)
			if ((evs[k].kind == TK_EV_REG && evs[k].u.reg.view.reg != TK_REG_NONE) ||
			    (evs[k].kind == TK_EV_MEM && !evs[k].u.mem.aborted)) {
				if (want && n == want_index)
					*want = evs[k];
				offs[n++] = off;
				break;
			}
	}
	return n;
}

static int class_attr(const tkb *b, uint8_t c)
{
	static const enum tkb_attr map[] = {
		[TKV_C_PLAIN] = TKB_A_NORMAL, [TKV_C_TIME] = TKB_A_TIME,
		[TKV_C_ADDR] = TKB_A_ADDR, [TKV_C_INSN] = TKB_A_INSN,
		[TKV_C_REG] = TKB_A_REG, [TKV_C_MEM] = TKB_A_MEM,
		[TKV_C_VALUE] = TKB_A_VALUE, [TKV_C_TEXT] = TKB_A_TEXT,
	};
	return tkb_attr(b, map[c]);
}

/* Whether any call is folded, found once per redraw: with none (the
 * usual case) the lines need no call-tree look-ups. */
static bool any_folded;

static bool find_any_folded(const tkb *b)
{
	size_t n = (b->nfolded + 7) / 8;
	for (size_t k = 0; k < n; k++)
		if (b->folded[k])
			return true;
	return false;
}

/* The folded call whose call instruction is i, or 0. */
static uint32_t folded_call_of(const tkb *b, uint64_t i)
{
	if (!any_folded || i == TKB_NO_POS || i + 1 >= b->ninsns)
		return 0;
	if (!tkb_model_ncalls(b->model))
		return 0;
	/* The outermost folded call hiding i+1 starts there. */
	uint32_t found = 0;
	for (uint32_t c = tkb_model_call_at(b->model, i + 1); c != 0 && c != TK_CALL_NONE;
	     c = tkb_model_call_parent(b->model, c))
		if (tkb_is_folded(b, c))
			found = c;
	if (!found)
		return 0;
	tkb_call_insns ci;
	tkb_model_call_insns(b->model, found, &ci);
	return ci.call == i ? found : 0;
}

/* "[+ N instructions folded: NAME]" for the call line of a folded call. */
static int fold_mark(const tkb *b, uint64_t i, char *buf, size_t size)
{
	uint32_t c = folded_call_of(b, i);
	if (!c)
		return 0;
	tkb_call_insns ci;
	tk_call call;
	char name[128];
	tkb_model_call_insns(b->model, c, &ci);
	uint64_t end = ci.resume == TKB_NO_POS ? b->ninsns : ci.resume;
	uint64_t n = end - i - 1;
	tkb_model_call(b->model, c, &call);
	tkb_func_name(b, call.entry.pc, name, sizeof name);
	return snprintf(buf, size, "[+ %" PRIu64 " instruction%s folded: %s]", n, n == 1 ? "" : "s",
			name);
}

static void draw_line(tkb *b, int y, const line_ref *l, bool highlight)
{
	char mark[192];
	int ml = fold_mark(b, l->insn, mark, sizeof mark);
	if (ml > 0) {
		if (ml >= (int)sizeof mark)
			ml = (int)sizeof mark - 1;
		int len = draw_text(b, y, l, highlight) + 2;
		int x = len + ml <= COLS ? len : COLS - ml;
		if (x < 0)
			x = 0;
		if (x > 0)
			tkb_put(y, x - 1, COLS, tkb_attr(b, highlight ? TKB_A_HIGHLIGHT : TKB_A_NORMAL), " ", 1);
		tkb_put(y, x, COLS, tkb_attr(b, TKB_A_PROMPT), mark, ml);
		return;
	}
	draw_text(b, y, l, highlight);
}

/* The line's text (symbolised with F7); returns its length on screen. */
static int draw_text(tkb *b, int y, const line_ref *l, bool highlight)
{
	char text[1024];
	uint8_t cls[1024];
	int len = (int)(l->end - l->off);
	if (len > (int)sizeof text)
		len = (int)sizeof text;
	size_t got;
	const char *line = tkv_line_text(&b->file, l->off, (size_t)len, &got);
	len = tkv_symbolise(b->symbolic ? b->cli->symtab : NULL, line, (int)got, text, (int)sizeof text);
	if (highlight) {
		attrset(tkb_attr(b, TKB_A_HIGHLIGHT));
		mvhline(y, 0, ' ', COLS);
		tkb_put(y, 0, COLS, tkb_attr(b, TKB_A_HIGHLIGHT), text, len);
		return len;
	}
	if (!b->syntax) {
		tkb_put(y, 0, COLS, tkb_attr(b, TKB_A_NORMAL), text, len);
		return len;
	}
	tkv_classify(text, len, cls);
	for (int x = 0; x < len && x < COLS;) {
		int e = x;
		while (e < len && cls[e] == cls[x])
			e++;
		tkb_put(y, x, COLS, class_attr(b, cls[x]), text + x, e - x);
		x = e;
	}
	return len;
}

void tkb_trace_draw(tkb *b, tkb_pane *p)
{
	static line_ref above[MAX_ROWS], below[MAX_ROWS];
	int h = p->height - 1;
	char left[256], right[128];

	if (h > MAX_ROWS)
		h = MAX_ROWS;
	uint64_t above_insn = tkb_visible_prev_insn(b, b->pos);
	if (above_insn != TKB_NO_POS) {
		/* The instruction above the marker: its line, time and pc (in
		 * hex, and as a symbol with --image); the position. */
		tk_tpos tp;
		char sym[96] = "";
		tkb_model_insn(b->model, above_insn, &tp);
		if (b->cli->symtab && tk_symtab_containing(b->cli->symtab, tp.pc)) {
			sym[0] = ' ';
			tkb_func_name(b, tp.pc, sym + 1, sizeof sym - 1);
		}
		/* The most that leaves room for some of the title. */
		for (int tier = 0; tier < 4; tier++) {
			if (tier == 0)
				snprintf(right, sizeof right, "Line: %" PRIu64 "  Time: %" PRIu64
					 "  PC: 0x%" PRIx64 "%s  Pos: %" PRIu64 "/%" PRIu64 " ", tp.line,
					 tp.time, tp.pc, sym, b->pos, b->ninsns);
			else if (tier == 1)
				snprintf(right, sizeof right, "Line: %" PRIu64 "  Time: %" PRIu64
					 "  PC: 0x%" PRIx64 "  Pos: %" PRIu64 "/%" PRIu64 " ", tp.line,
					 tp.time, tp.pc, b->pos, b->ninsns);
			else if (tier == 2)
				snprintf(right, sizeof right, "Line: %" PRIu64 "  Pos: %" PRIu64 "/%" PRIu64
					 " ", tp.line, b->pos, b->ninsns);
			else
				snprintf(right, sizeof right, "Pos: %" PRIu64 "/%" PRIu64 " ", b->pos,
					 b->ninsns);
			if ((int)strlen(right) + 16 <= COLS)
				break;
		}
	} else {
		snprintf(right, sizeof right, "Pos: %" PRIu64 "/%" PRIu64 " ", b->pos, b->ninsns);
	}
	snprintf(left, sizeof left, " Trace: %s", b->trace_name);
	tkb_status_line(b, p, left, right);
	if (h <= 0)
		return;

	any_folded = find_any_folded(b);
	int na = lines_above(b, above, h);
	int nb = lines_below(b, below, h);
	int r = b->recentre < 0 ? (h - 1) / 2 : b->marker_row;
	b->recentre = 0;
	if (r > h - 1)
		r = h - 1;
	/* Keep context below the position (a third of the pane), as when
	 * stepping down, unless Ctrl-L put the marker at the bottom. */
	if (!b->at_bottom && h > 3 && r > h - 1 - h / 3)
		r = h - 1 - h / 3;
	if (r < 0)
		r = 0;
	if (r > na)
		r = na;
	if (nb < h - 1 - r)
		r = na < h - 1 - nb ? na : h - 1 - nb;
	b->marker_row = r;

	uint64_t hl_off = UINT64_MAX;
	if (b->hl_line > 0) {
		uint64_t offs[64];
		int n = hl_candidates(b, offs, 64, -1, NULL);
		if (b->hl_line <= n)
			hl_off = offs[b->hl_line - 1];
	}
	int y0 = p->top + 1;
	for (int k = 0; k < r && k < na; k++)
		draw_line(b, y0 + r - 1 - k, &above[k], above[k].off == hl_off);
	attrset(tkb_attr(b, TKB_A_MARKER));
	mvhline(y0 + r, 0, ACS_HLINE, COLS);
	attrset(A_NORMAL);
	for (int k = 0; k < nb && r + 1 + k < h; k++)
		draw_line(b, y0 + r + 1 + k, &below[k], false);
}

static void search_pc(tkb *b, bool forward)
{
	uint64_t from = b->pos ? b->pos - 1 : 0;
	uint64_t q = forward ? tkb_model_pc_next(b->model, from, b->search_pc)
			     : tkb_model_pc_prev(b->model, from, b->search_pc);
	if (q == TKB_NO_POS) {
		tkb_message(b, "pc 0x%" PRIx64 " not found %s", b->search_pc,
			    forward ? "further on" : "earlier");
		return;
	}
	tkb_jump_after(b, q);
}

/* `a` then Return: the previous write of what the highlighted line
 * updates. */
static void jump_highlighted(tkb *b)
{
	uint64_t offs[64];
	tk_event ev;
	int n = hl_candidates(b, offs, 64, b->hl_line - 1, &ev);
	if (b->hl_line <= 0 || b->hl_line > n) {
		tkb_message(b, "press a to highlight a register or memory line first");
		return;
	}
	uint64_t insn = tkb_visible_prev_insn(b, b->pos);
	if (ev.kind == TK_EV_REG) {
		tkb_prev_write_reg(b, ev.u.reg.view, insn);
	} else {
		/* The bytes the line shows (LD/ST lines show part of 16). */
		uint32_t lo = 0, hi = ev.u.mem.size;
		while (lo < hi && ev.u.mem.state[lo] == TK_BYTE_NONE)
			lo++;
		while (hi > lo && ev.u.mem.state[hi - 1] == TK_BYTE_NONE)
			hi--;
		if (lo == hi)
			lo = 0, hi = ev.u.mem.size;
		tkb_prev_write_mem(b, ev.u.mem.addr + lo, hi - lo, insn);
	}
}

/* The keys that show or hide a pane. */
static const struct {
	int key;
	tkb_pane_kind kind;
} toggles[] = {
	{'r', TKB_PANE_CORE}, {'S', TKB_PANE_SINGLE}, {'D', TKB_PANE_DOUBLE},
	{'V', TKB_PANE_NEON}, {'M', TKB_PANE_MVE}, {'c', TKB_PANE_CALLS},
	{'s', TKB_PANE_SOURCE},
};

bool tkb_trace_key(tkb *b, tkb_pane *p, int key)
{
	uint64_t v;
	for (size_t i = 0; i < sizeof toggles / sizeof toggles[0]; i++)
		if (key == toggles[i].key) {
			if (!b->has_regs && toggles[i].kind != TKB_PANE_CALLS &&
			    toggles[i].kind != TKB_PANE_SOURCE) {
				tkb_message(b, "this trace has no register values");
				return true;
			}
			tkb_toggle_pane(b, toggles[i].kind);
			return true;
		}
	switch (key) {
	case KEY_UP:
		tkb_step(b, -1);
		return true;
	case KEY_DOWN:
		tkb_step(b, 1);
		return true;
	case KEY_PPAGE:
		tkb_page(b, -1);
		return true;
	case KEY_NPAGE:
		tkb_page(b, 1);
		return true;
	case KEY_HOME:
		tkb_move_to(b, 0, true);
		return true;
	case KEY_END:
		tkb_move_to(b, b->ninsns, false);
		b->marker_row = p->height;
		return true;
	case TKB_CTRL('L'): {
		int h = p->height - 1;
		b->marker_row = b->lcycle == 0 ? (h - 1) / 2 : b->lcycle == 1 ? 0 : h - 1;
		b->at_bottom = b->lcycle == 2;
		b->lcycle = (b->lcycle + 1) % 3;
		return true;
	}
	case '-': case '_': case '+': case '=': case '[': case ']': case '{': case '}':
		return tkb_fold_key(b, key);
	case 'l':
		if (tkb_prompt_line_pos(b, "Go to line: ", &v) > 0)
			tkb_jump_after(b, v - 1);
		return true;
	case 't':
		if (tkb_prompt_time_pos(b, "Go to time: ", &v) > 0)
			tkb_jump_after(b, v - 1);
		return true;
	case 'p':
	case 'P':
		if (tkb_prompt_value(b, key == 'p' ? "Next visit of pc: " : "Previous visit of pc: ",
				     b->pos, &v, NULL, 0)) {
			b->search_pc = v;
			b->have_search = true;
			search_pc(b, key == 'p');
		}
		return true;
	case ';':
	case ',':
		if (!b->have_search)
			tkb_message(b, "no pc search yet: use p or P first");
		else
			search_pc(b, key == ';');
		return true;
	case 'n':
	case 'N': {
		/* As Arm's browser: the next / previous visit of the pc of the
		 * instruction above the marker. */
		uint64_t i = tkb_visible_prev_insn(b, b->pos);
		if (i == TKB_NO_POS) {
			tkb_message(b, "no instruction above the position");
			return true;
		}
		tk_tpos tp;
		tkb_model_insn(b->model, i, &tp);
		b->search_pc = tp.pc;
		b->have_search = true;
		search_pc(b, key == 'n');
		return true;
	}
	case 'e':
	case 'E':
		tkb_find_exception(b, key == 'e');
		return true;
	case 'm':
		tkb_mem_open(b);
		return true;
	case 'a': {
		uint64_t offs[64];
		int n = hl_candidates(b, offs, 64, -1, NULL);
		if (n == 0) {
			b->hl_line = 0;
			tkb_message(b, "the instruction above the marker updates no register or memory");
		} else {
			b->hl_line = (b->hl_line + 1) % (n + 1);
		}
		return true;
	}
	case '\r':
	case '\n':
	case KEY_ENTER:
		jump_highlighted(b);
		return true;
	case KEY_F(6):
		b->syntax = !b->syntax;
		tkb_message(b, "syntax highlighting %s", b->syntax ? "on" : "off");
		return true;
	case KEY_F(7):
		if (!b->cli->symtab) {
			tkb_message(b, "symbolic branch targets need an ELF image (--image)");
			return true;
		}
		b->symbolic = !b->symbolic;
		tkb_message(b, "symbolic branch targets %s", b->symbolic ? "on" : "off");
		return true;
	}
	return false;
}
#endif
