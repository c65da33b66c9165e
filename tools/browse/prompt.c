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
#include "expr.h"

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

typedef struct name_ctx {
	tkb *b;
	uint64_t pos;
} name_ctx;

/* Names in expressions: registers (their value at the position), then
 * symbols of the --image. */
static int resolve(void *vctx, const char *name, size_t len, uint64_t *value,
		   char *err, size_t errlen)
{
	name_ctx *ctx = vctx;
	tkb *b = ctx->b;
	tk_reg_view view;
	char tmp[128];

	if (len >= sizeof tmp) {
		snprintf(err, errlen, "name too long");
		return -1;
	}
	memcpy(tmp, name, len);
	tmp[len] = '\0';
	if (!strcasecmp(tmp, "pc") && b->ninsns) {
		/* As in a debugger: the next instruction to run. */
		tk_tpos tp;
		tkb_model_insn(b->model, ctx->pos < b->ninsns ? ctx->pos : b->ninsns - 1, &tp);
		*value = tp.pc;
		return 0;
	}
	/* The execution state of the position (of the last instruction run;
	 * the first one at the start), not the last one a pane showed. */
	bool a64 = b->a64;
	if (b->ninsns) {
		uint64_t i = ctx->pos ? ctx->pos - 1 : 0;
		tk_isa isa = tkb_model_isa(b->model, i < b->ninsns ? i : b->ninsns - 1);
		if (isa == TK_ISA_A64)
			a64 = true;
		else if (isa == TK_ISA_A32 || isa == TK_ISA_T32)
			a64 = false;
	}
	int found = tk_reg_lookup(name, len, 0, a64, &view);
	if (found == 0 && a64 && view.reg == TK_REG_R14)
		view = (tk_reg_view){TK_REG_X30, 0, 8};	/* lr is x30 in AArch64 */
	/* Core registers of the other execution state do not exist here:
	 * say so (with the names to use) rather than "not known". */
	if (found == 0 && !a64 && view.reg >= TK_REG_X0 && view.reg <= TK_REG_XSP) {
		snprintf(err, errlen, "%s does not exist in AArch32 (the instruction set here): "
			 "use r0-r12, sp, lr, pc", tmp);
		return -1;
	}
	if (found == 0 && a64 && view.reg <= TK_REG_R15) {	/* r0-r15 */
		snprintf(err, errlen, "%s does not exist in AArch64 (the instruction set here): "
			 "use x0-x30, w0-w30, sp, lr, pc", tmp);
		return -1;
	}
	if (found == 0 && view.len <= 8) {
		uint8_t val[8], known[8];
		if (tkb_model_reg(b->model, ctx->pos, view, val, known) == 0) {
			uint64_t v = 0;
			for (int i = view.len - 1; i >= 0; i--) {
				if (!known[i]) {
					snprintf(err, errlen, "%s is not known at this position", tmp);
					return -1;
				}
				v = v << 8 | val[i];
			}
			*value = v;
			return 0;
		}
	}
	if (b->cli->symtab) {
		const tk_symbol *s = tk_symtab_find(b->cli->symtab, tmp);
		if (s) {
			*value = s->addr;
			return 0;
		}
	}
	snprintf(err, errlen, "no register or symbol '%s'%s", tmp,
		 b->cli->symtab ? "" : " (symbols need --image)");
	return -1;
}

bool tkb_prompt_value(tkb *b, const char *question, uint64_t pos, uint64_t *value,
		      char *text, size_t size)
{
	char buf[256], err[160];
	if (!tkb_prompt(b, question, buf, sizeof buf))
		return false;
	name_ctx ctx = {b, pos};
	if (tk_expr_eval(buf, resolve, &ctx, value, err, sizeof err)) {
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
	uint64_t n = tkb_count_lines(&b->file, s, e);
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
