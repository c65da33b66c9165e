/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): syntax classes and symbolic branch targets (see
 * highlight.h).  A light tokenizer, not the parser: it must colour lines
 * the parser rejects, and never fail. */
#include "highlight.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct tok {
	int s, e;
} tok;

static int next_tok(const char *s, int len, int i, tok *t)
{
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if (i >= len)
		return 0;
	t->s = i;
	while (i < len && !isspace((unsigned char)s[i]))
		i++;
	t->e = i;
	return 1;
}

static bool tok_is(const char *s, tok t, const char *w)
{
	int n = (int)strlen(w);
	return t.e - t.s == n && strncmp(s + t.s, w, (size_t)n) == 0;
}

static bool all_digits(const char *s, tok t)
{
	for (int i = t.s; i < t.e; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return t.e > t.s;
}

static bool is_mem_word(const char *s, tok t)
{
	int n = t.e - t.s;
	const char *w = s + t.s;
	if (n >= 2 && (w[0] == 'M') && (w[1] == 'R' || w[1] == 'W'))
		return true;	/* MR4, MW8X */
	if (n >= 2 && (w[0] == 'R' || w[0] == 'W') && isdigit((unsigned char)w[1]))
		return true;	/* R04, W08 */
	return (n == 2 && (!strncmp(w, "LD", 2) || !strncmp(w, "ST", 2)));
}

static void fill(uint8_t *cls, tok t, uint8_t c)
{
	for (int i = t.s; i < t.e; i++)
		cls[i] = c;
}

void tkv_classify(const char *s, int len, uint8_t *cls)
{
	tok t;
	int i = 0;

	memset(cls, TKV_C_PLAIN, (size_t)len);
	if (!next_tok(s, len, i, &t))
		return;
	/* Optional timestamp and unit. */
	if (all_digits(s, t)) {
		fill(cls, t, TKV_C_TIME);
		i = t.e;
		if (next_tok(s, len, i, &t) && t.e - t.s <= 4 && isalpha((unsigned char)s[t.s]) &&
		    !tok_is(s, t, "IT") && !tok_is(s, t, "IS") && !tok_is(s, t, "ES") &&
		    !tok_is(s, t, "R") && !is_mem_word(s, t)) {
			fill(cls, t, TKV_C_TIME);
			i = t.e;
		}
	}
	if (!next_tok(s, len, i, &t))
		return;
	if (t.e - t.s >= 3 && !strncmp(s + t.s, "cpu", 3)) {	/* cpu0 */
		i = t.e;
		if (!next_tok(s, len, i, &t))
			return;
	}
	if (tok_is(s, t, "IT") || tok_is(s, t, "IS") || tok_is(s, t, "ES")) {
		fill(cls, t, TKV_C_INSN);
		/* Addresses and encoding up to the ':' before the disassembly;
		 * then the mnemonic. */
		const char *colon = memchr(s + t.e, ':', (size_t)(len - t.e));
		/* ES lines have "(addr:enc)" then "... el3h_s:" */
		int stop = len;
		for (int k = len - 1; k > t.e; k--)
			if (s[k] == ':' && k + 1 < len && s[k + 1] == ' ') {
				stop = k + 1;
				break;
			}
		if (!colon)
			stop = len;
		/* Addresses and encodings: runs of 4+ hex digits ("EL3h_s"
		 * and the "(8)" index are left alone). */
		for (int k = t.e; k < stop;) {
			int e = k;
			while (e < stop && isxdigit((unsigned char)s[e]))
				e++;
			if (e - k >= 4 && (k == 0 || !isalnum((unsigned char)s[k - 1])) &&
			    (e == len || !isalnum((unsigned char)s[e])))
				for (int q = k; q < e; q++)
					cls[q] = TKV_C_ADDR;
			k = e > k ? e : k + 1;
		}
		if (stop < len && next_tok(s, len, stop, &t))
			fill(cls, t, TKV_C_INSN);
		return;
	}
	if (tok_is(s, t, "R")) {
		fill(cls, t, TKV_C_REG);
		i = t.e;
		if (next_tok(s, len, i, &t)) {
			fill(cls, t, TKV_C_REG);
			for (int k = t.e; k < len; k++)
				cls[k] = TKV_C_VALUE;
		}
		return;
	}
	if (is_mem_word(s, t)) {
		fill(cls, t, TKV_C_MEM);
		i = t.e;
		if (next_tok(s, len, i, &t)) {
			fill(cls, t, TKV_C_ADDR);
			for (int k = t.e; k < len; k++)
				cls[k] = TKV_C_VALUE;
		}
		return;
	}
	for (int k = t.s; k < len; k++)
		cls[k] = TKV_C_TEXT;
}

/* Is the token a branch mnemonic whose operand is a target address?
 * B, BL, BLX, B.cond, Bcc, BLcc, CBZ, CBNZ, TBZ, TBNZ (a .W/.N width
 * suffix allowed). */
static bool is_branch(const char *w, int n)
{
	static const char conds[] = "EQNECSHSCCLOMIPLVSVCHILSGELTGTLEAL";
	char m[16];
	if (n <= 0 || n >= (int)sizeof m)
		return false;
	for (int i = 0; i < n; i++)
		m[i] = (char)toupper((unsigned char)w[i]);
	m[n] = '\0';
	if (n > 2 && (!strcmp(m + n - 2, ".W") || !strcmp(m + n - 2, ".N")))
		m[n -= 2] = '\0';
	if (!strcmp(m, "CBZ") || !strcmp(m, "CBNZ") || !strcmp(m, "TBZ") || !strcmp(m, "TBNZ"))
		return true;
	if (m[0] != 'B')
		return false;
	const char *rest = m + 1;
	if (rest[0] == '.')
		return true;
	for (const char *c = conds; *c; c += 2)	/* BLE, BLS: B + condition */
		if (!strcmp(rest, (char[]){c[0], c[1], 0}))
			return true;
	if (rest[0] == 'L')
		rest += rest[1] == 'X' ? 2 : 1;
	if (!*rest)
		return true;
	if (strlen(rest) != 2)
		return false;
	for (const char *c = conds; *c; c += 2)
		if (rest[0] == c[0] && rest[1] == c[1])
			return true;
	return false;
}

int tkv_symbolise(const tk_symtab *st, const char *s, int len, char *out, int max)
{
	int n = len < max ? len : max;
	memcpy(out, s, (size_t)n);
	if (!st)
		return n;

	/* Find the instruction type word, then the mnemonic after the last
	 * ": " (the disassembly follows it in every layout). */
	tok t;
	int i = 0, mn = -1;
	while (next_tok(s, len, i, &t)) {
		if (tok_is(s, t, "IT") || tok_is(s, t, "IS") || tok_is(s, t, "ES")) {
			mn = t.e;
			break;
		}
		i = t.e;
		if (i > 40)
			break;
	}
	if (mn < 0)
		return n;
	int dis = -1;
	for (int k = len - 1; k > mn; k--)
		if (s[k] == ':' && k + 1 < len && s[k + 1] == ' ') {
			dis = k + 1;
			break;
		}
	if (dis < 0 || !next_tok(s, len, dis, &t) || !is_branch(s + t.s, t.e - t.s))
		return n;

	/* The target: the last hex number of the operands. */
	int hs = -1, he = -1;
	for (int k = t.e; k < len; k++) {
		if (s[k] == '0' && k + 1 < len && (s[k + 1] == 'x' || s[k + 1] == 'X')) {
			int e = k + 2;
			while (e < len && isxdigit((unsigned char)s[e]))
				e++;
			if (e > k + 2) {
				hs = k;
				he = e;
			}
			k = e - 1;
		}
	}
	if (hs < 0) {
		/* A32 style "BL 0x8010" is covered; plain hex operands too. */
		return n;
	}
	uint64_t addr = 0;
	for (int k = hs + 2; k < he; k++) {
		int c = tolower((unsigned char)s[k]);
		addr = addr << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	const tk_symbol *sym = tk_symtab_containing(st, addr);
	if (!sym)
		return n;
	char name[160];
	if (addr == sym->addr)
		snprintf(name, sizeof name, "%s", sym->name);
	else
		snprintf(name, sizeof name, "%s+0x%" PRIx64, sym->name, addr - sym->addr);
	int nl = (int)strlen(name);
	int total = hs + nl + (len - he);
	if (total > max)
		return n;
	memcpy(out, s, (size_t)hs);
	memcpy(out + hs, name, (size_t)nl);
	memcpy(out + hs + nl, s + he, (size_t)(len - he));
	return total;
}
