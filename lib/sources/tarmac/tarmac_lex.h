/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the Tarmac lexer.
 *
 * The seed's lexical rule: a line is a sequence of words (runs of
 * alphanumerics and "_-.#") and single punctuation characters; whitespace
 * only separates.  These helpers walk a line with a cursor and never copy,
 * allocate or call into libc in the hot path.
 */
#ifndef TRACEKIT_TARMAC_LEX_H
#define TRACEKIT_TARMAC_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/simd.h"

typedef struct tk_lex {
	const char *p;		/* next character */
	const char *end;	/* end of the line */
} tk_lex;

/* A word or punctuation token: s[0..n).  n == 0 at the end of the line. */
typedef struct tk_tok {
	const char *s;
	size_t n;
} tk_tok;

/* Character classes, from a table: the lexer's inner loops are these. */
enum {
	TK_CC_SPACE = 1,	/* blank, tab, \r, \v, \f */
	TK_CC_DIGIT = 2,
	TK_CC_ALPHA = 4,
	TK_CC_WORD = 8,		/* alphanumeric or _ - . # */
	TK_CC_HEX = 16,
	TK_CC_VALUE = 32,	/* may appear in a value: hex, '-', 'x', 'X', '_' */
};
extern const uint8_t tk_lex_class[256];
extern const int8_t tk_lex_hexval[256];	/* -1 if not a hex digit */

static inline bool tk_is_space(unsigned char c)
{
	return tk_lex_class[c] & TK_CC_SPACE;
}

static inline bool tk_is_digit(unsigned char c)
{
	return tk_lex_class[c] & TK_CC_DIGIT;
}

static inline bool tk_is_alpha(unsigned char c)
{
	return tk_lex_class[c] & TK_CC_ALPHA;
}

static inline bool tk_is_word(unsigned char c)
{
	return tk_lex_class[c] & TK_CC_WORD;
}

/* 0..15 for a hex digit, -1 otherwise. */
static inline int tk_hexval(unsigned char c)
{
	return tk_lex_hexval[c];
}

static inline void tk_lex_ws(tk_lex *l)
{
	const char *q = l->p, *end = l->end;
	while (q < end && tk_is_space((unsigned char)*q))
		q++;
	l->p = q;
}

static inline bool tk_lex_eol(tk_lex *l)
{
	tk_lex_ws(l);
	return l->p >= l->end;
}

/* Read the next token (word or one punctuation character). */
static inline tk_tok tk_lex_next(tk_lex *l)
{
	const char *q = l->p, *end = l->end;
	while (q < end && tk_is_space((unsigned char)*q))
		q++;
	tk_tok t;
	t.s = q;
	if (q < end) {
		if (tk_is_word((unsigned char)*q)) {
			do
				q++;
			while (q < end && tk_is_word((unsigned char)*q));
		} else {
			q++;
		}
	}
	t.n = (size_t)(q - t.s);
	l->p = q;
	return t;
}

/* Look at the next token without consuming it. */
static inline tk_tok tk_lex_peek(tk_lex *l)
{
	const char *save = l->p;
	tk_tok t = tk_lex_next(l);
	l->p = save;
	return t;
}

static inline bool tk_tok_is_word(tk_tok t)
{
	return t.n > 0 && tk_is_word((unsigned char)t.s[0]);
}

static inline bool tk_tok_is(tk_tok t, char c)
{
	return t.n == 1 && t.s[0] == c;
}

/* Consume punctuation c if it comes next. */
static inline bool tk_lex_punct(tk_lex *l, char c)
{
	tk_lex_ws(l);
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return true;
	}
	return false;
}

static inline bool tk_tok_eq(tk_tok t, const char *lit, size_t n)
{
	if (t.n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (t.s[i] != lit[i])
			return false;
	return true;
}
#define TK_TOK_EQ(t, lit) tk_tok_eq((t), (lit), sizeof(lit) - 1)

/* All hex digits, 1..16 of them: the value.  Returns false otherwise. */
static inline bool tk_tok_hex64(tk_tok t, uint64_t *out)
{
	if (t.n == 0 || t.n > 16)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < t.n; i++) {
		int d = tk_hexval((unsigned char)t.s[i]);
		if (d < 0)
			return false;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return true;
}

/* An address: hex digits, optionally followed by a security suffix such as
 * "_NS" or "_S" ("00000000815c_NS").  Returns false if not one. */
static inline bool tk_tok_addr(tk_tok t, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;
	int d;
	while (n < t.n && (d = tk_hexval((unsigned char)t.s[n])) >= 0) {
		v = v << 4 | (unsigned)d;
		n++;
	}
	if (n == 0 || n > 16)
		return false;
	if (n < t.n) {
		/* "_NS", "_S": letters only after the underscore */
		if (t.s[n] != '_' || n + 1 == t.n)
			return false;
		for (size_t i = n + 1; i < t.n; i++)
			if (!tk_is_alpha((unsigned char)t.s[i]))
				return false;
	}
	*out = v;
	return true;
}

/*
 * Fast path for the common case: if the next word is 1..16 hex digits and
 * nothing else, consume it and return its value and digit count.
 * Otherwise consume nothing (but blanks) and return false: the caller falls
 * back to tk_lex_next and the general checks.
 */
static inline bool tk_lex_hexword(tk_lex *l, uint64_t *value, size_t *ndigits)
{
	tk_lex_ws(l);
#ifdef TK_SIMD_HEX_WORD
	/* In a few vector instructions, when the line has 16 bytes left. */
	if (l->end - l->p >= 16) {
		if (!tk_simd_hex_word(l->p, l->end, value, ndigits))
			return false;
		l->p += *ndigits;
		return true;
	}
#endif
	const char *q = l->p, *end = l->end;
	uint64_t v = 0;
	int d;
	while (q < end && (d = tk_hexval((unsigned char)*q)) >= 0) {
		v = v << 4 | (unsigned)d;
		q++;
	}
	size_t n = (size_t)(q - l->p);
	if (n == 0 || n > 16 || (q < end && tk_is_word((unsigned char)*q)))
		return false;
	l->p = q;
	*value = v;
	*ndigits = n;
	return true;
}

/*
 * Register or memory contents: hex groups in logical order (most significant
 * first), separated by ':' or spaces, with '_' ignored inside a group.  "--"
 * is a byte not written, an 'x'/'X' nibble an indeterminate one.
 *
 * The first group is required; later space-separated words are taken only
 * while they look like contents (hex, '-', 'x'; an even number of digits; no
 * leading '_') and the total stays within max_bytes, so a trailing
 * interpretation ("__C_", "nZcv") is left alone.  Words after ':' are always
 * contents.  The result may exceed max_bytes (the caller decides what that
 * means) but never TK_REG_MAX_BYTES: that is "too long".
 *
 * On success returns the number of bytes and fills val/state least
 * significant byte first (state: enum tk_byte_state).  An odd number of
 * digits gets a leading 0 (or '-').  On failure returns -1 and *bad is the
 * offending token; *why a static reason.
 */
int tk_lex_contents(tk_lex *l, size_t max_bytes, uint8_t *val, uint8_t *state,
		    tk_tok *bad, const char **why);

/* Could t be a further contents group (see above)? */
bool tk_tok_contents_like(tk_tok t);

#endif
