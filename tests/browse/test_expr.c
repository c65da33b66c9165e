/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test of the browser's address-expression evaluator
 * (tools/browse/expr.c), linked against that module alone. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "view/expr.h"

/* A few names as the browser would resolve them: registers and symbols. */
static int names(void *ctx, const char *name, size_t len, uint64_t *value,
		 char *err, size_t errlen)
{
	static const struct { const char *name; uint64_t value; } known[] = {
		{"sp", 0xffab0}, {"x1", 0x100}, {"main", 0x8000}, {"_start.lo", 7},
	};
	(void)ctx;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strlen(known[i].name) == len && !memcmp(known[i].name, name, len)) {
			*value = known[i].value;
			return 0;
		}
	if (len == 2 && !memcmp(name, "r3", 2)) {
		snprintf(err, errlen, "r3 is unknown here");
		return -1;
	}
	snprintf(err, errlen, "no register or symbol '%.*s'", (int)len, name);
	return -1;
}

static void ok(const char *text, uint64_t want)
{
	uint64_t v = 0;
	char err[128] = "";
	int rc = tk_expr_eval(text, names, NULL, &v, err, sizeof err);
	CHECKF(rc == 0 && v == want, "'%s' = 0x%llx (error '%s'), want 0x%llx", text,
	       (unsigned long long)v, err, (unsigned long long)want);
}

static void bad(const char *text, const char *want_err)
{
	uint64_t v = 0;
	char err[128] = "";
	int rc = tk_expr_eval(text, names, NULL, &v, err, sizeof err);
	CHECKF(rc != 0 && !strcmp(err, want_err), "'%s' = 0x%llx, error '%s', want error '%s'",
	       text, (unsigned long long)v, err, want_err);
}

int main(void)
{
	ok("0", 0);
	ok("42", 42);
	ok("0x10", 16);
	ok("0X1f", 31);
	ok("00008004", 0x8004);		/* copied from a trace: leading zero */
	ok("2109bc", 0x2109bc);		/* hex letters */
	ok("0xffffffffffffffff", ~0ULL);
	ok("sp", 0xffab0);
	ok("sp+0x10", 0xffac0);
	ok(" sp - 8 ", 0xffaa8);
	ok("x1*2+1", 0x201);
	ok("1+x1*2", 0x201);		/* * binds tighter */
	ok("(1+x1)*2", 0x202);
	ok("((main))", 0x8000);
	ok("main+4*(2-1)", 0x8004);
	ok("-1", ~0ULL);		/* wraps modulo 2^64 */
	ok("0-1+2", 1);			/* left associative */
	ok("10-2-3", 5);
	ok("2*-3+7", 1);
	ok("_start.lo", 7);
	ok("0xffffffffffffffff+2", 1);

	bad("", "expected a value at end of expression");
	bad("1+", "expected a value at end of expression");
	bad("(1+2", "expected ')' at end of expression");
	bad("1 2", "unexpected text at column 3");
	bad("0x", "bad number at end of expression");
	bad("12zz", "bad number at column 3");
	bad("0x1ffffffffffffffff", "number too large at end of expression");
	bad("r3+4", "r3 is unknown here");
	bad("foo", "no register or symbol 'foo'");
	bad("1 # 2", "unexpected text at column 3");
	bad("*3", "unexpected character at column 1");

	/* Without a resolver every name is an error. */
	uint64_t v;
	char err[64] = "";
	CHECKF(tk_expr_eval("sp", NULL, NULL, &v, err, sizeof err) &&
	       !strcmp(err, "unknown name 'sp'"), "no resolver: '%s'", err);
	return check_report("expr");
}
