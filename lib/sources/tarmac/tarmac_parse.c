/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Tarmac line parser: timestamp, unit, cpu and type word, then
 * dispatch to the parser for that kind of line.  Lines of any other type are
 * kept as TK_EV_TEXT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tarmac_impl.h"
#include "tracekit/error.h"

void tk_tarmac_opts_init(tk_tarmac_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

/* Copy the caller's options, whatever version of the struct it has. */
static void copy_opts(tk_tarmac_opts *dst, const tk_tarmac_opts *src)
{
	tk_tarmac_opts_init(dst);
	if (!src)
		return;
	size_t n = src->size && src->size < sizeof *dst ? src->size : sizeof *dst;
	memcpy(dst, src, n);
	dst->size = sizeof *dst;
}

void tk_tarmac_parser_reset(tk_tarmac_parser *p, uint64_t time, uint32_t cpu)
{
	tk_tarmac_opts opts = p->opts;
	memset(p, 0, sizeof *p);
	p->opts = opts;
	p->time = time;
	p->cpu = cpu;
}

int tk_tarmac_parser_new(const tk_tarmac_opts *opts, tk_tarmac_parser **out)
{
	tk_tarmac_parser *p = calloc(1, sizeof *p);
	*out = p;
	if (!p)
		return TK_ERR_NOMEM;
	copy_opts(&p->opts, opts);
	return 0;
}

void tk_tarmac_parser_free(tk_tarmac_parser *p)
{
	free(p);
}

const char *tk_tarmac_parser_error(const tk_tarmac_parser *p)
{
	return p->err;
}

int tk_tarmac_fail(tk_tarmac_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	return TK_ERR_PARSE;
}

int tk_tarmac_fail_tok(tk_tarmac_parser *p, const char *what, tk_tok t, const char *why)
{
	if (t.n == 0)
		return tk_tarmac_fail(p, "%s %s", what, why);
	int n = t.n > 40 ? 40 : (int)t.n;
	return tk_tarmac_fail(p, "%s '%.*s%s' %s", what, n, t.s, t.n > 40 ? "..." : "", why);
}

/* clk clks cyc cycle cycles cs tic tick ticks fs ps ns us ms s: by hand,
 * as it runs for every line. */
static bool is_unit(tk_tok t)
{
	const char *s = t.s;
	switch (t.n) {
	case 1:
		return s[0] == 's';
	case 2:
		return s[1] == 's' && (s[0] == 'f' || s[0] == 'p' || s[0] == 'n' || s[0] == 'u' ||
				       s[0] == 'm' || s[0] == 'c');
	case 3:
		return TK_TOK_EQ(t, "clk") || TK_TOK_EQ(t, "cyc") || TK_TOK_EQ(t, "tic");
	case 4:
		return TK_TOK_EQ(t, "clks") || TK_TOK_EQ(t, "tick");
	case 5:
		return TK_TOK_EQ(t, "cycle") || TK_TOK_EQ(t, "ticks");
	case 6:
		return TK_TOK_EQ(t, "cycles");
	}
	return false;
}

static bool is_cpu(tk_tok t)
{
	if (t.n <= 3 || t.n >= 12 || t.s[0] != 'c' || t.s[1] != 'p' || t.s[2] != 'u')
		return false;
	for (size_t i = 3; i < t.n; i++)
		if (!tk_is_digit((unsigned char)t.s[i]))
			return false;
	return true;
}

/* A type word this parser interprets (not just keeps as text)? */
static bool is_type(tk_tok t)
{
	tk_memtype mt;
	if (t.n == 1)
		return t.s[0] == 'R';
	if (t.n == 2 && (TK_TOK_EQ(t, "IT") || TK_TOK_EQ(t, "IS") || TK_TOK_EQ(t, "ES") ||
			 TK_TOK_EQ(t, "LD") || TK_TOK_EQ(t, "ST")))
		return true;
	return t.n && (t.s[0] == 'M' || t.s[0] == 'R' || t.s[0] == 'W') && tk_tarmac_memtype(t, &mt);
}

/* The word after a timestamp: a unit?  The usual ones always are; any other
 * word of letters is, when what follows is a type word or a cpu token
 * ("100 sec R r0 0"), since "12 CADI E ..." must stay a CADI line. */
static bool unit_after_timestamp(tk_lex *l, tk_tok t)
{
	if (is_unit(t))
		return true;
	if (t.n == 0 || t.n > 16 || is_type(t) || is_cpu(t))
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!tk_is_alpha((unsigned char)t.s[i]))
			return false;
	const char *save = l->p;
	tk_tok u = tk_lex_next(l);
	l->p = save;
	return is_type(u) || is_cpu(u);
}

/*
 * A timestamp word: decimal digits, an optional fraction (".356000"), an
 * optional unit glued on ("271ns").  A fractional timestamp is stored as
 * value * 10^6 plus the first 6 fraction digits.  Returns 1 if t is one
 * (*glued_unit tells whether the unit came with it), 0 if t is not a
 * timestamp at all, TK_ERR_PARSE if it overflows.
 */
static int timestamp(tk_tarmac_parser *p, tk_tok t, uint64_t *out, bool *glued_unit)
{
	size_t i = 0;
	uint64_t v = 0;
	bool overflow = false;
	while (i < t.n && tk_is_digit((unsigned char)t.s[i])) {
		unsigned d = (unsigned)(t.s[i++] - '0');
		if (i < 20)	/* 19 digits always fit */
			v = v * 10 + d;
		else if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			overflow = true;
	}
	if (i < t.n && t.s[i] == '.') {
		size_t j = ++i;
		uint64_t frac = 0;
		unsigned digits = 0;
		while (i < t.n && tk_is_digit((unsigned char)t.s[i])) {
			if (digits < 6) {
				frac = frac * 10 + (unsigned)(t.s[i] - '0');
				digits++;
			}
			i++;
		}
		if (i == j)
			return 0;
		for (; digits < 6; digits++)
			frac *= 10;
		if (__builtin_mul_overflow(v, 1000000, &v) || __builtin_add_overflow(v, frac, &v))
			overflow = true;
	}
	size_t unit_start = i;
	while (i < t.n && tk_is_alpha((unsigned char)t.s[i]))
		i++;
	if (i != t.n)
		return 0;
	if (overflow)
		return tk_tarmac_fail_tok(p, "timestamp", t, "is too large");
	*glued_unit = unit_start < t.n;
	*out = v;
	return 1;
}

static void trim_end(const char **end, const char *start)
{
	while (*end > start && tk_is_space((unsigned char)(*end)[-1]))
		(*end)--;
}

static void text_event(tk_tarmac_parser *p, tk_tok type, const char *end)
{
	p->nev = 0;
	tk_event *e = tk_tarmac_event(p, TK_EV_TEXT);
	e->u.text.kind = type.s;
	e->u.text.kind_len = type.n;
	e->u.text.text = type.s;
	e->u.text.len = (size_t)(end - type.s);
	/* "Tarmac Text Rev 3t": the file's header line. */
	e->u.text.header = p->lineno == 1 && type.n == 6 && !memcmp(type.s, "Tarmac", 6);
}

/* Parse the rest of the line, given its type word. */
static int dispatch(tk_tarmac_parser *p, tk_lex *l, tk_tok type, char *ldst)
{
	const char *s = type.s;
	tk_memtype mt;

	switch (type.n) {
	case 1:
		if (s[0] == 'R')
			return tk_tarmac_reg(p, l);
		break;
	case 2:
		if ((s[0] == 'I' && (s[1] == 'T' || s[1] == 'S')) || (s[0] == 'E' && s[1] == 'S'))
			return tk_tarmac_insn(p, l, type);
		if ((s[0] == 'L' && s[1] == 'D') || (s[0] == 'S' && s[1] == 'T')) {
			*ldst = s[0];
			return tk_tarmac_ldst(p, l, s[0] == 'S', false);
		}
		break;
	}
	if ((s[0] == 'M' || s[0] == 'R' || s[0] == 'W') && tk_tarmac_memtype(type, &mt)) {
		if (mt.fetch)
			return 1;	/* instruction fetch: kept as text */
		return tk_tarmac_mem(p, l, &mt);
	}
	return 1;
}

int tk_tarmac_parse_line(tk_tarmac_parser *p, const char *line, size_t len,
			 uint64_t lineno, uint64_t offset,
			 const tk_event **events, size_t *nevents)
{
	const char *end = line + len;
	trim_end(&end, line);
	tk_lex l = {line, end};
	char ldst_prev = p->ldst_prev;
	char ldst = 0;
	int rc = 0;

	p->nev = 0;
	p->err[0] = 0;
	p->lineno = lineno;
	p->offset = offset;
	p->line = line;
	p->line_len = (size_t)(end - line);
	p->ldst_prev = 0;
	*events = p->ev;
	*nevents = 0;

	tk_lex_ws(&l);
	if (l.p == end)
		return 0;

	/* A continuation of an LD/ST diagram: no type word, just an address
	 * (which may look like a decimal timestamp) and the diagram. */
	if (ldst_prev && tk_is_word((unsigned char)*l.p)) {
		const char *save = l.p;
		if (tk_tarmac_ldst(p, &l, ldst_prev == 'S', true) == 0) {
			p->ldst_prev = ldst_prev;
			*nevents = p->nev;
			return 0;
		}
		p->nev = 0;
		l.p = save;
	}

	/* Each token is lexed once: t is always the next unconsumed one. */
	tk_tok t;
	uint64_t fast = 0;
	const char *q = l.p;
	while (q < end && tk_is_digit((unsigned char)*q) && q - l.p < 19)
		fast = fast * 10 + (uint64_t)(*q++ - '0');
	if (q > l.p && (q == end || !tk_is_word((unsigned char)*q))) {
		/* the common case: a plain decimal timestamp */
		l.p = q;
		p->time = fast;
		p->cpu = 0;
		t = tk_lex_next(&l);
		if (unit_after_timestamp(&l, t))
			t = tk_lex_next(&l);
	} else if ((t = tk_lex_next(&l)).n && tk_is_digit((unsigned char)t.s[0])) {
		uint64_t ts = 0;
		bool glued = false;
		rc = timestamp(p, t, &ts, &glued);
		if (rc == 1) {
			p->time = ts;
			p->cpu = 0;
			t = tk_lex_next(&l);
			if (!glued && unit_after_timestamp(&l, t))
				t = tk_lex_next(&l);
			rc = 0;
		}
	}
	if (rc == 0) {
		if (t.n > 3 && t.s[0] == 'c' && is_cpu(t)) {
			uint32_t n = 0;
			for (size_t i = 3; i < t.n; i++)
				n = n * 10 + (uint32_t)(t.s[i] - '0');
			p->cpu = n;
			t = tk_lex_next(&l);
		}
		if (t.n == 0)
			return 0;	/* only a timestamp */
		rc = dispatch(p, &l, t, &ldst);
	}

	if (rc != 0) {
		text_event(p, t, end);
		ldst = 0;
	}
	p->ldst_prev = ldst;
	*nevents = p->nev;
	return rc < 0 ? rc : 0;
}
