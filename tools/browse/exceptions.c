/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: e / E, the next and previous CPU exception.
 *
 * An exception line is what Arm's tools take for one: an "E" line
 * ("E 00000014 00000003 CoreEvent_SWI"), except "E DebugEvent_..." lines;
 * an "EXC" line (ES-style traces); an instruction line whose instruction
 * raised one ("IT EXC ...", "ES EXC Reset").  The trace text is searched
 * from the current position; the position moves to just after the
 * instruction the line belongs to, so the line is the last thing above
 * the marker (calls folded around it are unfolded).
 */
#ifdef TK_HAVE_CURSES
#include <ctype.h>
#include <string.h>

#include "browse.h"

/* The next word of [*p, end): its start and length; *p moves past it. */
static size_t word(const char **p, const char *end, const char **w)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	const char *e = s;
	while (e < end && *e != ' ' && *e != '\t' && *e != '\r')
		e++;
	*w = s;
	*p = e;
	return (size_t)(e - s);
}

static bool is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

static bool is_unit(const char *w, size_t n)
{
	static const char *const units[] = {"clk", "ns", "ps", "us", "ms", "s", "cs", "cyc", "tic"};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (is(w, n, units[i]))
			return true;
	return false;
}

bool tkb_is_exception_line(const char *s, size_t len)
{
	const char *p = s, *end = s + len, *w;
	size_t n = word(&p, end, &w);
	if (n && isdigit((unsigned char)w[0])) {
		/* A timestamp (a glued unit, "271ns", is part of the word),
		 * then maybe its unit. */
		n = word(&p, end, &w);
		if (is_unit(w, n))
			n = word(&p, end, &w);
	}
	if (n > 3 && !memcmp(w, "cpu", 3) && isdigit((unsigned char)w[3]))
		n = word(&p, end, &w);
	if (is(w, n, "EXC"))
		return true;
	if (is(w, n, "E")) {
		n = word(&p, end, &w);
		return !(n >= 11 && !memcmp(w, "DebugEvent_", 11));
	}
	if (is(w, n, "IT") || is(w, n, "IS") || is(w, n, "ES")) {
		n = word(&p, end, &w);
		return is(w, n, "EXC") || is(w, n, "Reset");
	}
	return false;
}

/* The start of instruction i's block (its line), or the end of the file
 * past the last instruction. */
static uint64_t block_start(const tkb *b, uint64_t i)
{
	uint64_t s, e;
	if (i >= b->ninsns)
		return b->file.size;
	tkb_model_block(b->model, i, &s, &e);
	return s;
}

/* The instruction whose block holds the line at off (UINT64_MAX: the
 * lines before the first instruction). */
static uint64_t insn_of(const tkb *b, uint64_t off)
{
	uint64_t lo = 0, hi = b->ninsns;	/* the last block starting <= off */
	if (!b->ninsns || block_start(b, 0) > off)
		return UINT64_MAX;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (block_start(b, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static bool exception_at(const tkb *b, uint64_t off)
{
	uint64_t e = tkv_line_end(&b->file, off);
	size_t len;
	const char *text = tkv_line_text(&b->file, off, (size_t)(e - off), &len);
	return tkb_is_exception_line(text, len);
}

void tkb_find_exception(tkb *b, bool forward)
{
	uint64_t found = UINT64_MAX;
	if (forward) {
		/* Below the marker. */
		for (uint64_t off = block_start(b, b->pos); off < b->file.size;
		     off = tkv_line_next(&b->file, off))
			if (exception_at(b, off)) {
				found = off;
				break;
			}
	} else {
		/* Above the block just above the marker. */
		uint64_t off = b->pos ? block_start(b, b->pos - 1) : 0;
		while (off > 0) {
			off = tkv_line_prev(&b->file, off);
			if (exception_at(b, off)) {
				found = off;
				break;
			}
		}
	}
	if (found == UINT64_MAX) {
		tkb_message(b, "no %s exception in the trace", forward ? "later" : "earlier");
		return;
	}
	uint64_t i = insn_of(b, found);
	if (i == UINT64_MAX)
		tkb_move_to(b, 0, true);	/* before the first instruction */
	else
		tkb_jump_after(b, i);
}
#endif
