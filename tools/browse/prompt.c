/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the prompt on the bottom line.
 *
 * Editing: printable characters, Backspace, Ctrl-W (delete a word),
 * Ctrl-U (delete everything); Return accepts, Escape or Ctrl-G cancels.
 */
#ifdef TK_HAVE_CURSES
#include <ctype.h>
#include <errno.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "browse.h"
#include "view/resolve.h"

static void draw_prompt(tkb *b, const char *question, const char *buf)
{
	int y = LINES - 1;
	int ql = (int)strlen(question), bl = (int)strlen(buf);
	move(y, 0);
	clrtoeol();
	tkb_put(y, 0, COLS, tkb_attr(b, TKB_A_PROMPT), question, ql);
	/* Show the end of a long input. */
	int room = COLS - ql - 1;
	int skip = room > 0 && bl > room ? bl - room : 0;
	tkb_put(y, ql, COLS, tkb_attr(b, TKB_A_NORMAL), buf + skip, bl - skip);
	move(y, ql + bl - skip < COLS ? ql + bl - skip : COLS - 1);
	curs_set(1);
	refresh();
}

bool tkb_prompt(tkb *b, const char *question, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	b->message[0] = '\0';
	for (;;) {
		draw_prompt(b, question, buf);
		int c = getch();
		switch (c) {
		case ERR:
			if (b->bench) {
				curs_set(0);
				return false;
			}
			break;
		case KEY_RESIZE:
			b->recentre = -1;	/* as in tkb_key */
			tkb_redraw(b);
			break;
		case '\r':
		case '\n':
		case KEY_ENTER:
			curs_set(0);
			return true;
		case 27:	/* Escape */
		case TKB_CTRL('G'):
			curs_set(0);
			tkb_message(b, "cancelled");
			return false;
		case KEY_BACKSPACE:
		case 127:
		case 8:
			if (len)
				buf[--len] = '\0';
			break;
		case TKB_CTRL('U'):
			len = 0;
			buf[0] = '\0';
			break;
		case TKB_CTRL('W'):
			while (len && buf[len - 1] == ' ')
				len--;
			while (len && buf[len - 1] != ' ')
				len--;
			buf[len] = '\0';
			break;
		default:
			if (c >= 0x20 && c < 0x7f && len + 1 < size) {
				buf[len++] = (char)c;
				buf[len] = '\0';
			}
			break;
		}
	}
}

/* Names in expressions: registers at the position (the state after
 * instruction pos-1; nothing is known before the first), "pc" (the next
 * instruction to run), symbols of the --image (view/resolve.h). */
static void make_scope(const tkb *b, uint64_t pos, tkv_scope *s)
{
	uint64_t n = b->ninsns;
	s->idx = tkb_model_index(b->model);
	s->symtab = b->cli->symtab;
	s->state = pos ? pos - 1 : TK_POS_NONE;
	s->isa_pos = n ? (pos ? (pos - 1 < n ? pos - 1 : n - 1) : 0) : TK_POS_NONE;
	s->pc_pos = n ? (pos < n ? pos : n - 1) : TK_POS_NONE;
	s->a64 = b->a64;
}

bool tkb_prompt_value(tkb *b, const char *question, uint64_t pos, uint64_t *value,
		      char *text, size_t size)
{
	char buf[256], err[160];
	if (!tkb_prompt(b, question, buf, sizeof buf))
		return false;
	tkv_scope scope;
	make_scope(b, pos, &scope);
	if (tkv_eval(&scope, buf, value, err, sizeof err)) {
		tkb_message(b, "%s", err);
		return false;
	}
	if (text)
		snprintf(text, size, "%s", buf);
	return true;
}

/* Read a decimal (or 0x hex) number.  Returns 1 with *v set, 0 if
 * cancelled or not a number (with a message), -1 if nothing was typed. */
static int read_u64(tkb *b, const char *question, const char *what, uint64_t *v)
{
	char buf[64], *end;
	if (!tkb_prompt(b, question, buf, sizeof buf))
		return 0;
	char *s = buf;
	while (*s == ' ')
		s++;
	if (!*s)
		return -1;
	if (*s == '-') {
		tkb_message(b, "%s numbers cannot be negative: '%s'", what, buf);
		return 0;
	}
	if (!isdigit((unsigned char)*s)) {
		tkb_message(b, "not a number: '%s'", buf);
		return 0;
	}
	/* Decimal, or hex with 0x; not octal: "010" is line 10. */
	errno = 0;
	*v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	while (*end == ' ')
		end++;
	if (*end) {
		tkb_message(b, "not a number: '%s'", buf);
		return 0;
	}
	/* strtoull saturates: say so rather than look up 2^64-1. */
	if (errno == ERANGE) {
		tkb_message(b, "number too large: '%s'", s);
		return 0;
	}
	return 1;
}

/* The last line of the trace: the last instruction's line plus the lines
 * of its block (trailing text lines included). */
static uint64_t last_line(const tkb *b, tk_tpos *last)
{
	uint64_t s, e;
	tkb_model_insn(b->model, b->ninsns - 1, last);
	tkb_model_block(b->model, b->ninsns - 1, &s, &e);
	if (e > b->file.size)
		e = b->file.size;
	uint64_t n = tkv_count_lines(&b->file, s, e);
	return last->line + (n ? n - 1 : 0);
}

int tkb_prompt_line_pos(tkb *b, const char *question, uint64_t *pos)
{
	uint64_t v;
	int r = read_u64(b, question, "line", &v);
	if (r <= 0) {
		if (r < 0)
			tkb_message(b, "no line number given");
		return r;
	}
	if (v == 0) {
		tkb_message(b, "line numbers start at 1");
		return 0;
	}
	uint64_t insn = tkb_model_insn_for_line(b->model, v);
	if (insn == TKB_NO_POS) {
		tk_tpos last;
		if (!b->ninsns)
			tkb_message(b, "no instruction at line %" PRIu64 ": the trace has no instructions", v);
		else
			tkb_message(b, "line %" PRIu64 " is past the end of the trace (last line %" PRIu64 ")",
				    v, last_line(b, &last));
		return 0;
	}
	*pos = insn + 1;
	return 1;
}

int tkb_prompt_time_pos(tkb *b, const char *question, uint64_t *pos)
{
	uint64_t v;
	int r = read_u64(b, question, "time", &v);
	if (r <= 0) {
		if (r < 0)
			tkb_message(b, "no time given");
		return r;
	}
	uint64_t insn = tkb_model_insn_for_time(b->model, v);
	if (insn == TKB_NO_POS) {
		tk_tpos last;
		if (!b->ninsns)
			tkb_message(b, "no instruction at time %" PRIu64 ": the trace has no instructions", v);
		else {
			tkb_model_insn(b->model, b->ninsns - 1, &last);
			tkb_message(b, "no instruction at or after time %" PRIu64 " (the trace ends at time %" PRIu64 ")",
				    v, last.time);
		}
		return 0;
	}
	*pos = insn + 1;
	return 1;
}
#endif
