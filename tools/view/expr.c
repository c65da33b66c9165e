/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): address expressions (see expr.h).  A recursive-descent
 * parser over the text; it evaluates as it parses. */
#include "expr.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct parser {
	const char *text;
	const char *p;
	tk_expr_name_fn names;
	void *ctx;
	char *err;
	size_t errlen;
	bool failed;
} parser;

static int fail(parser *ps, const char *what)
{
	if (!ps->failed) {
		ps->failed = true;
		if (*ps->p)
			snprintf(ps->err, ps->errlen, "%s at column %d", what,
				 (int)(ps->p - ps->text) + 1);
		else
			snprintf(ps->err, ps->errlen, "%s at end of expression", what);
	}
	return -1;
}

static void skip_space(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || isdigit((unsigned char)c);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int number(parser *ps, uint64_t *v)
{
	const char *s = ps->p, *e = s;
	unsigned base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		e = s;
		base = 16;
	}
	while (hex_digit(*e) >= 0)
		e++;
	if (is_name_char(*e) || e == s) {
		ps->p = e;
		return fail(ps, "bad number");
	}
	if (base == 10) {
		/* Trace-style addresses: a leading zero or a hex letter. */
		if (e - s > 1 && s[0] == '0')
			base = 16;
		for (const char *q = s; q < e; q++)
			if (!isdigit((unsigned char)*q))
				base = 16;
	}
	uint64_t x = 0;
	ps->p = e;
	for (const char *q = s; q < e; q++) {
		uint64_t next = x * base + (uint64_t)hex_digit(*q);
		if ((next - (uint64_t)hex_digit(*q)) / base != x)
			return fail(ps, "number too large");
		x = next;
	}
	*v = x;
	return 0;
}

static int expr(parser *ps, uint64_t *v);

static int primary(parser *ps, uint64_t *v)
{
	skip_space(ps);
	char c = *ps->p;
	if (c == '(') {
		ps->p++;
		if (expr(ps, v))
			return -1;
		skip_space(ps);
		if (*ps->p != ')')
			return fail(ps, "expected ')'");
		ps->p++;
		return 0;
	}
	if (c == '-' || c == '+') {
		ps->p++;
		if (primary(ps, v))
			return -1;
		if (c == '-')
			*v = 0 - *v;
		return 0;
	}
	if (isdigit((unsigned char)c))
		return number(ps, v);
	if (is_name_start(c)) {
		const char *s = ps->p;
		while (is_name_char(*ps->p))
			ps->p++;
		if (!ps->names) {
			snprintf(ps->err, ps->errlen, "unknown name '%.*s'", (int)(ps->p - s), s);
			ps->failed = true;
			return -1;
		}
		if (ps->names(ps->ctx, s, (size_t)(ps->p - s), v, ps->err, ps->errlen)) {
			ps->failed = true;
			return -1;
		}
		return 0;
	}
	return fail(ps, c ? "unexpected character" : "expected a value");
}

static int term(parser *ps, uint64_t *v)
{
	if (primary(ps, v))
		return -1;
	for (;;) {
		skip_space(ps);
		if (*ps->p != '*')
			return 0;
		ps->p++;
		uint64_t r;
		if (primary(ps, &r))
			return -1;
		*v *= r;
	}
}

static int expr(parser *ps, uint64_t *v)
{
	if (term(ps, v))
		return -1;
	for (;;) {
		skip_space(ps);
		char op = *ps->p;
		if (op != '+' && op != '-')
			return 0;
		ps->p++;
		uint64_t r;
		if (term(ps, &r))
			return -1;
		*v = op == '+' ? *v + r : *v - r;
	}
}

int tk_expr_eval(const char *text, tk_expr_name_fn names, void *ctx,
		 uint64_t *value, char *err, size_t errlen)
{
	parser ps = {.text = text, .p = text, .names = names, .ctx = ctx,
		     .err = err, .errlen = errlen};
	uint64_t v = 0;

	if (errlen)
		err[0] = '\0';
	if (expr(&ps, &v))
		return -1;
	skip_space(&ps);
	if (*ps.p)
		return fail(&ps, "unexpected text");
	*value = v;
	return 0;
}
