/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Tarmac lexer helpers (numbers and register/memory contents). */
#include "tarmac_lex.h"

#include "tracekit/event.h"

#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define IS_ALPHA(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
#define IS_HEX(c) (IS_DIGIT(c) || ((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F'))
#define CLASS(c)                                                                    \
	(((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\v' || (c) == '\f') * TK_CC_SPACE + \
	 IS_DIGIT(c) * TK_CC_DIGIT + IS_ALPHA(c) * TK_CC_ALPHA +                        \
	 (IS_DIGIT(c) || IS_ALPHA(c) || (c) == '_' || (c) == '-' || (c) == '.' || (c) == '#') * TK_CC_WORD + \
	 IS_HEX(c) * TK_CC_HEX +                                                        \
	 (IS_HEX(c) || (c) == '-' || (c) == 'x' || (c) == 'X' || (c) == '_') * TK_CC_VALUE)
#define HEXVAL(c) (IS_DIGIT(c) ? (c) - '0' : ((c) >= 'a' && (c) <= 'f') ? (c) - 'a' + 10 : \
		   ((c) >= 'A' && (c) <= 'F') ? (c) - 'A' + 10 : -1)

#define R4(f, b) f(b), f(b + 1), f(b + 2), f(b + 3)
#define R16(f, b) R4(f, b), R4(f, b + 4), R4(f, b + 8), R4(f, b + 12)
#define R64(f, b) R16(f, b), R16(f, b + 16), R16(f, b + 32), R16(f, b + 48)
#define R256(f) R64(f, 0), R64(f, 64), R64(f, 128), R64(f, 192)

const uint8_t tk_lex_class[256] = {R256(CLASS)};
const int8_t tk_lex_hexval[256] = {R256(HEXVAL)};




bool tk_tok_contents_like(tk_tok t)
{
	if (t.n == 0 || t.s[0] == '_')
		return false;
	size_t digits = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (!(tk_lex_class[(unsigned char)t.s[i]] & TK_CC_VALUE))
			return false;
		digits += t.s[i] != '_';
	}
	return digits > 0 && digits % 2 == 0;
}

/* Append the digits of one group to d (without '_'); -1 on a bad
 * character or overflow. */
static int add_group(tk_tok t, char *d, size_t *nn, size_t cap, const char **why)
{
	size_t n = *nn;
	for (size_t i = 0; i < t.n; i++) {
		unsigned char c = (unsigned char)t.s[i];
		if (!(tk_lex_class[c] & TK_CC_VALUE)) {
			*why = "is not hex digits";
			return -1;
		}
		if (c == '_')
			continue;
		if (n >= cap) {
			*why = "is too long";
			return -1;
		}
		d[n++] = (char)c;
	}
	*nn = n;
	return 0;
}

/* One byte from its two digits ('-' and 'x' allowed); -1 if '-' is mixed
 * with something else. */
static int slow_byte(char hi, char lo, uint8_t *val, uint8_t *state)
{
	bool hd = hi == '-', ld = lo == '-';
	if (hd || ld) {
		if (!(hd && ld))
			return -1;
		*val = 0;
		*state = TK_BYTE_NONE;
		return 0;
	}
	int h = tk_hexval((unsigned char)hi), l = tk_hexval((unsigned char)lo);
	*val = (uint8_t)((h < 0 ? 0 : h << 4) | (l < 0 ? 0 : l));
	*state = (h < 0 || l < 0) ? TK_BYTE_UNKNOWN : TK_BYTE_SET;
	return 0;
}

int tk_lex_contents(tk_lex *l, size_t max_bytes, uint8_t *val, uint8_t *state,
		    tk_tok *bad, const char **why)
{
	char d[2 * TK_REG_MAX_BYTES + 1];
	size_t cap = 2 * TK_REG_MAX_BYTES, want = 2 * max_bytes, nn = 0;

	/* Fast path: one group of up to 16 hex digits ('_' allowed inside),
	 * an even number, and nothing after it that could be more contents. */
	tk_lex_ws(l);
	const char *q = l->p, *end = l->end;
	uint64_t v = 0;
	int hv;
	size_t nd;
	uint32_t hi8, lo8;
	if (tk_simd_hex_token(q, end, &v, &nd)) {
		/* 8 or 16 digits (a register) */
		nn = nd;
		q += nd;
	} else if (end - q >= 17 && q[8] == '_' && tk_simd_hex8(q, &hi8) &&
		   tk_simd_hex8(q + 9, &lo8) && (end - q == 17 || !tk_is_word((unsigned char)q[17]))) {
		/* "00000000_00000003" (memory) */
		v = (uint64_t)hi8 << 32 | lo8;
		nn = 16;
		q += 17;
	} else {
		for (; q < end; q++) {
			if ((hv = tk_hexval((unsigned char)*q)) >= 0) {
				v = v << 4 | (unsigned)hv;
				nn++;
			} else if (*q != '_') {
				break;
			}
		}
	}
	if (nn && nn <= 16 && nn % 2 == 0 && l->p[0] != '_' && q[-1] != '_' &&
	    (q == end || !tk_is_word((unsigned char)*q))) {
		tk_lex after = {q, end};
		tk_tok s = tk_lex_next(&after);
		if (!tk_tok_is(s, ':') && (nn >= want || !tk_tok_contents_like(s))) {
			l->p = q;
			for (size_t k = 0; k < nn / 2; k++) {
				val[k] = (uint8_t)(v >> (8 * k));
				state[k] = TK_BYTE_SET;
			}
			return (int)(nn / 2);
		}
	}
	nn = 0;

	tk_tok t = tk_lex_next(l);
	*bad = t;
	if (!tk_tok_is_word(t)) {
		*why = t.n ? "is not hex digits" : "is missing";
		return -1;
	}
	if (add_group(t, d, &nn, cap, why) < 0)
		return -1;
	for (;;) {
		const char *save = l->p;
		tk_tok s = tk_lex_next(l);
		if (tk_tok_is(s, ':')) {
			t = tk_lex_next(l);
			*bad = t;
			if (!tk_tok_is_word(t)) {
				*why = "ends with ':'";
				return -1;
			}
			if (add_group(t, d, &nn, cap, why) < 0)
				return -1;
			continue;
		}
		if (nn < want && tk_tok_contents_like(s)) {
			size_t digits = 0;
			for (size_t i = 0; i < s.n; i++)
				digits += s.s[i] != '_';
			if (nn + digits <= want && nn + digits <= cap) {
				add_group(s, d, &nn, cap, why);
				continue;
			}
		}
		l->p = save;
		break;
	}
	if (nn == 0) {
		*why = "is not hex digits";
		return -1;
	}

	/* An odd number of digits: a leading 0 (or '-'). */
	const char *b = d;
	size_t nbytes = (nn + 1) / 2, k = 0;
	if (nn % 2) {
		if (slow_byte(d[0] == '-' ? '-' : '0', d[0], &val[nbytes - 1], &state[nbytes - 1]) < 0)
			goto mixed;
		b++;
		nn--;
	}
	/* Bytes from the least significant (rightmost) end. */
	for (const char *e = b + nn; e > b; e -= 2, k++) {
		int h = tk_hexval((unsigned char)e[-2]), lo = tk_hexval((unsigned char)e[-1]);
		if ((h | lo) >= 0) {
			val[k] = (uint8_t)(h << 4 | lo);
			state[k] = TK_BYTE_SET;
		} else if (slow_byte(e[-2], e[-1], &val[k], &state[k]) < 0) {
			goto mixed;
		}
	}
	return (int)nbytes;
mixed:
	*why = "mixes '-' and a digit in one byte";
	return -1;
}
