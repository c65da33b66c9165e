/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the source pane (s).
 *
 * The source file of the instruction above the marker, the current line
 * highlighted near the middle of the pane.  The file is read at the path
 * the DWARF gives, else under --source-dir=DIR (that path inside DIR, then
 * the file name alone); if neither exists the pane says "source not
 * found: FILE".  It follows the marker; Up and Down scroll it while the
 * marker stays put. */
#ifdef TK_HAVE_CURSES
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbginfo.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		if (cap >= (64u << 20)) {	/* not a source file */
			free(buf);
			buf = NULL;
			break;
		}
		char *nb = realloc(buf, 2 * cap + 1);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

/* Load d's file for `path` (cached by path). */
static void load(tkb *b, tkb_dbg *d, const char *path)
{
	if (d->src_path && !strcmp(d->src_path, path))
		return;
	free(d->src_path);
	free(d->src_found);
	free(d->src_text);
	free(d->src_lines);
	d->src_found = d->src_text = NULL;
	d->src_lines = NULL;
	d->src_nlines = 0;
	d->src_path = strdup(path);
	char cand[3][4096];
	int nc = 0;
	snprintf(cand[nc++], sizeof cand[0], "%s", path);
	if (b->source_dir) {
		const char *base = strrchr(path, '/');
		snprintf(cand[nc++], sizeof cand[0], "%s/%s", b->source_dir, path);
		snprintf(cand[nc++], sizeof cand[0], "%s/%s", b->source_dir, base ? base + 1 : path);
	}
	size_t len = 0;
	for (int i = 0; i < nc && !d->src_text; i++)
		if ((d->src_text = slurp(cand[i], &len)) != NULL)
			d->src_found = strdup(cand[i]);
	if (!d->src_text)
		return;
	unsigned n = 1;
	for (size_t i = 0; i < len; i++)
		n += d->src_text[i] == '\n';
	d->src_lines = malloc(n * sizeof *d->src_lines);
	if (!d->src_lines) {
		free(d->src_text);
		d->src_text = NULL;
		return;
	}
	char *s = d->src_text;
	d->src_lines[d->src_nlines++] = s;
	for (; *s; s++)
		if (*s == '\n') {
			*s = 0;
			if (s[1])
				d->src_lines[d->src_nlines++] = s + 1;
		}
}

int tkb_source_height(tkb *b, const tkb_pane *p)
{
	(void)b;
	(void)p;
	return 1 + 11;
}

/* The file and line of the instruction above the marker. */
static const char *where(tkb *b, tkb_dbg *d, unsigned *line)
{
	uint64_t i = tkb_dbg_insn(b);
	*line = 0;
	if (i == TKB_NO_POS)
		return NULL;
	tk_tpos t;
	tkb_model_insn(b->model, i, &t);
	return tk_srclines_file(d->lines, t.pc, line);
}

void tkb_source_draw(tkb *b, tkb_pane *p)
{
	tkb_dbg *d = tkb_dbg_get(b);
	int h = p->height - 1;
	char left[600], msg[700];
	unsigned line = 0;
	const char *file = d ? where(b, d, &line) : NULL;
	if (!d) {
		tkb_status_line(b, p, " Source", NULL);
		snprintf(msg, sizeof msg, " %s", b->dbg ? b->dbg->error : "no image");
		tkb_put(p->top + 1, 0, COLS, tkb_attr(b, TKB_A_ERROR), msg, (int)strlen(msg));
		return;
	}
	if (!file) {
		tkb_status_line(b, p, " Source", NULL);
		snprintf(msg, sizeof msg, " no source line for this instruction");
		tkb_put(p->top + 1, 0, COLS, tkb_attr(b, TKB_A_TEXT), msg, (int)strlen(msg));
		return;
	}
	load(b, d, file);
	snprintf(left, sizeof left, " Source: %s:%u", d->src_found ? d->src_found : file, line);
	tkb_status_line(b, p, left, NULL);
	if (!d->src_text) {
		snprintf(msg, sizeof msg, " source not found: %s", file);
		tkb_put(p->top + 1, 0, COLS, tkb_attr(b, TKB_A_ERROR), msg, (int)strlen(msg));
		return;
	}
	/* p->cursor scrolls (Up/Down), relative to centring the line. */
	long first = (long)line - 1 - h / 2 + p->cursor;
	if (first > (long)d->src_nlines - h)
		first = (long)d->src_nlines - h;
	if (first < 0)
		first = 0;
	for (int r = 0; r < h && first + r < (long)d->src_nlines; r++) {
		unsigned n = (unsigned)(first + r + 1);
		int k = snprintf(msg, sizeof msg, "%5u %s ", n, n == line ? ">" : " ");
		/* Tabs to the next multiple of 8 columns of the text. */
		for (const char *c = d->src_lines[first + r]; *c && k < (int)sizeof msg - 9; c++) {
			if (*c == '\t') {
				do
					msg[k++] = ' ';
				while ((k - 8) % 8);
			} else {
				msg[k++] = (unsigned char)*c < ' ' ? ' ' : *c;
			}
		}
		msg[k] = 0;
		tkb_put(p->top + 1 + r, 0, COLS,
			tkb_attr(b, n == line ? TKB_A_HIGHLIGHT : TKB_A_NORMAL), msg, (int)strlen(msg));
	}
}

bool tkb_source_key(tkb *b, tkb_pane *p, int key)
{
	switch (key) {
	case KEY_UP:
		p->cursor--;
		return true;
	case KEY_DOWN:
		p->cursor++;
		return true;
	case KEY_HOME:
		p->cursor = 0;	/* back to the current line */
		return true;
	case '<':
	case '>':
		return tkb_lock_key(b, p, key);
	}
	return false;
}
#endif
