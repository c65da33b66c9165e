/* tracekit browse: the prompt on the bottom line.
 *
 * Editing: printable characters, Backspace, Ctrl-W (delete a word),
 * Ctrl-U (delete everything); Return accepts, Escape or Ctrl-G cancels.
 */
#ifdef TK_HAVE_CURSES
#include <ctype.h>
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
	if (tk_reg_lookup(name, len, 0, b->a64, &view) == 0 && view.len <= 8) {
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

static bool read_u64(tkb *b, const char *question, uint64_t *v)
{
	char buf[64], *end;
	if (!tkb_prompt(b, question, buf, sizeof buf))
		return false;
	char *s = buf;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s)) {
		tkb_message(b, "not a number: '%s'", buf);
		return false;
	}
	*v = strtoull(s, &end, 0);
	while (*end == ' ')
		end++;
	if (*end) {
		tkb_message(b, "not a number: '%s'", buf);
		return false;
	}
	return true;
}

/* Prompt for a number, turn it into an instruction with find, and give
 * the position just after that instruction. */
static bool prompt_pos(tkb *b, const char *question, const char *what,
		       uint64_t (*find)(const tkb_model *, uint64_t), uint64_t *pos)
{
	uint64_t v;
	if (!read_u64(b, question, &v))
		return false;
	uint64_t insn = find(b->model, v);
	if (insn == TKB_NO_POS) {
		tkb_message(b, "no instruction at %s %" PRIu64, what, v);
		return false;
	}
	*pos = insn + 1;
	return true;
}

bool tkb_prompt_line_pos(tkb *b, uint64_t *pos)
{
	return prompt_pos(b, "Go to line: ", "line", tkb_model_insn_for_line, pos);
}

bool tkb_prompt_time_pos(tkb *b, uint64_t *pos)
{
	return prompt_pos(b, "Go to time: ", "or after time", tkb_model_insn_for_time, pos);
}
#endif
