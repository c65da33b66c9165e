/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: register names (see regs.h for the model).
 *
 * Lookup is hand-written (a switch on the first letter, then a number) since
 * it runs for every register line of a trace.
 */
#include <stdbool.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/regs.h"

static const char *const fixed_names[] = {"psr", "fpsr", "fpcr", "fpscr", "vpr"};

/* "r0".."r15", "x0".."x30", "v0".., "z0".., "p0"..: built once, on demand. */
static char numbered_names[TK_REG_PSR][5];

unsigned tk_reg_size(tk_reg reg)
{
	if (reg < TK_REG_X0)
		return 4;
	if (reg < TK_REG_V0)
		return 8;	/* x0..x30, xsp */
	if (reg < TK_REG_Z0)
		return 16;
	if (reg < TK_REG_P0)
		return TK_REG_MAX_BYTES;
	if (reg < TK_REG_PSR)
		return 32;
	switch (reg) {
	case TK_REG_FPSR:	/* 64-bit in AArch64 (the top half RES0 today) */
	case TK_REG_FPCR:
		return 8;
	case TK_REG_PSR:
	case TK_REG_FPSCR:
	case TK_REG_VPR:
		return 4;
	}
	return 0;
}

static void put_name(char *dst, char letter, unsigned n)
{
	*dst++ = letter;
	if (n >= 10)
		*dst++ = (char)('0' + n / 10);
	*dst++ = (char)('0' + n % 10);
	*dst = 0;
}

const char *tk_reg_name(tk_reg reg)
{
	if (reg >= TK_REG_COUNT)
		return "?";
	if (reg >= TK_REG_PSR)
		return fixed_names[reg - TK_REG_PSR];
	if (reg == TK_REG_XSP)
		return "xsp";
	char *s = numbered_names[reg];
	if (!s[0]) {	/* benign race: every writer writes the same bytes */
		if (reg < TK_REG_X0)
			put_name(s, 'r', reg - TK_REG_R0);
		else if (reg < TK_REG_XSP)
			put_name(s, 'x', reg - TK_REG_X0);
		else if (reg < TK_REG_Z0)
			put_name(s, 'v', reg - TK_REG_V0);
		else if (reg < TK_REG_P0)
			put_name(s, 'z', reg - TK_REG_Z0);
		else
			put_name(s, 'p', reg - TK_REG_P0);
	}
	return s;
}

/* "12" -> 12; -1 unless s[0..n) is 1 or 2 decimal digits. */
static int small_number(const char *s, size_t n)
{
	if (n == 1 && s[0] >= '0' && s[0] <= '9')
		return s[0] - '0';
	if (n == 2 && s[0] >= '1' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9')
		return (s[0] - '0') * 10 + (s[1] - '0');
	return -1;
}

static int set_view(tk_reg_view *v, unsigned reg, unsigned offset, unsigned len)
{
	v->reg = (tk_reg)reg;
	v->offset = (uint16_t)offset;
	v->len = (uint16_t)len;
	return 0;
}

static int whole(tk_reg_view *v, unsigned reg)
{
	return set_view(v, reg, 0, tk_reg_size((tk_reg)reg));
}

static int eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* The base name (lower case, no suffix, no bit range). */
static int lookup_base(const char *s, size_t n, const char *suffix, size_t suffix_len,
		       unsigned content_bytes, int a64, tk_reg_view *v)
{
	int num = small_number(s + 1, n - 1);

	switch (s[0]) {
	case 'r':
		if (num >= 0 && num < 16)
			return whole(v, TK_REG_R0 + num);
		break;
	case 'x':
	case 'e':
		if (num >= 0 && num < 31)
			return whole(v, TK_REG_X0 + num);
		if (eq(s, n, "xsp"))
			return whole(v, TK_REG_XSP);
		if (eq(s, n, "xpsr"))
			return whole(v, TK_REG_PSR);
		break;
	case 'w':
		if (num >= 0 && num < 31)
			return set_view(v, TK_REG_X0 + num, 0, 4);
		if (eq(s, n, "wsp"))
			return set_view(v, TK_REG_XSP, 0, 4);
		break;
	case 'v':
	case 'q':
		if (num >= 0 && num < 32)
			return whole(v, TK_REG_V0 + num);
		if (eq(s, n, "vpr"))
			return whole(v, TK_REG_VPR);
		break;
	case 'd':
		if (num >= 0 && num < 32)
			return a64 ? set_view(v, TK_REG_V0 + num, 0, 8)
				   : set_view(v, TK_REG_V0 + num / 2, (num % 2) * 8, 8);
		break;
	case 's':
		if (num >= 0 && num < 32)
			return a64 ? set_view(v, TK_REG_V0 + num, 0, 4)
				   : set_view(v, TK_REG_V0 + num / 4, (num % 4) * 4, 4);
		if (eq(s, n, "sp")) {
			/* SP_ELn is the AArch64 stack pointer; other banked
			 * copies (sp_svc) are AArch32's r13.  Plain "sp" goes
			 * by the size of the value written. */
			if (suffix_len >= 2 && suffix[0] == 'e' && suffix[1] == 'l')
				return whole(v, TK_REG_XSP);
			if (suffix_len)
				return whole(v, TK_REG_R13);
			if (content_bytes > 4 || (content_bytes == 0 && a64))
				return whole(v, TK_REG_XSP);
			return whole(v, TK_REG_R13);
		}
		break;
	case 'z':
		if (num >= 0 && num < 32)
			return whole(v, TK_REG_Z0 + num);
		break;
	case 'p':
		if (num >= 0 && num < 32)
			return whole(v, TK_REG_P0 + num);
		if (eq(s, n, "psr"))
			return whole(v, TK_REG_PSR);
		break;
	case 'm':
		if (eq(s, n, "msp"))
			return whole(v, TK_REG_R13);
		break;
	case 'l':
		if (eq(s, n, "lr"))
			return whole(v, TK_REG_R14);
		break;
	case 'c':
		if (eq(s, n, "cpsr"))
			return whole(v, TK_REG_PSR);
		break;
	case 'f':
		if (eq(s, n, "fpsr"))
			return whole(v, TK_REG_FPSR);
		if (eq(s, n, "fpcr"))
			return whole(v, TK_REG_FPCR);
		if (eq(s, n, "fpscr"))
			return whole(v, TK_REG_FPSCR);
		break;
	}
	return TK_ERR_NOTFOUND;
}

/* Parse "<hi:lo>" (s points after '<', n excludes the final '>'). */
static int bit_range(const char *s, size_t n, unsigned *hi, unsigned *lo)
{
	unsigned a = 0, b = 0, *cur = &a;
	int digits = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (++digits > 5)
				return -1;
			*cur = *cur * 10 + (unsigned)(s[i] - '0');
		} else if (s[i] == ':' && cur == &a && digits) {
			cur = &b;
			digits = 0;
		} else {
			return -1;
		}
	}
	if (cur != &b || !digits)
		return -1;
	*hi = a;
	*lo = b;
	return 0;
}

int tk_reg_lookup(const char *name, size_t len, unsigned content_bytes,
		  int a64, tk_reg_view *view)
{
	char low[32];
	const char *range = NULL;
	size_t range_len = 0;

	view->reg = TK_REG_NONE;
	view->offset = 0;
	view->len = 0;

	/* One pass: lower-case the name, find a bit range ("V0<127:64>") and
	 * a banked suffix ("r13_svc", "SP_EL3", "r13_main_s", "MSP_S"). */
	size_t base_len = 0, n = 0;
	bool us = false;
	for (; n < len; n++) {
		char c = name[n];
		if (c == '<') {
			if (name[len - 1] != '>')
				return TK_ERR_NOTFOUND;
			range = name + n + 1;
			range_len = len - n - 2;
			break;
		}
		if (n >= sizeof low)
			return TK_ERR_NOTFOUND;
		low[n] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		if (c == '_' && !us) {
			us = true;
			base_len = n;
		}
	}
	len = n;
	if (!us)
		base_len = len;
	if (base_len == 0)
		return TK_ERR_NOTFOUND;
	const char *suffix = us ? low + base_len + 1 : low + len;
	size_t suffix_len = (size_t)(low + len - suffix);

	tk_reg_view v;
	if (lookup_base(low, base_len, suffix, suffix_len, content_bytes, a64, &v) < 0)
		return TK_ERR_NOTFOUND;

	if (range) {
		unsigned hi, lo;
		if (bit_range(range, range_len, &hi, &lo) < 0 || hi < lo ||
		    lo % 8 != 0 || (hi + 1) % 8 != 0 || (hi + 1) / 8 > v.len)
			return TK_ERR_NOTFOUND;
		v.offset = (uint16_t)(v.offset + lo / 8);
		v.len = (uint16_t)((hi + 1 - lo) / 8);
	}
	*view = v;
	return 0;
}
