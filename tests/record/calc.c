/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A recursive-descent calculator: the recorder's test of deep call trees
 * and of the command line (semihosting SYS_GET_CMDLINE).  Each argument is
 * an expression; integers, + - * / %, unary minus, parentheses.  The exit
 * status is the last result modulo 256. */
#include "rt.h"

static const char *pos;
unsigned factor_calls, term_calls, expr_calls;
long results[16];
int nresults;

TK_FUNC static long parse_expr(void);

TK_FUNC static void skip_blanks(void)
{
	while (*pos == ' ')
		pos++;
}

TK_FUNC static long parse_number(void)
{
	long v = 0;
	while (*pos >= '0' && *pos <= '9')
		v = v * 10 + (*pos++ - '0');
	return v;
}

TK_FUNC static long parse_factor(void)
{
	factor_calls++;
	skip_blanks();
	if (*pos == '-') {
		pos++;
		return -parse_factor();
	}
	if (*pos == '(') {
		pos++;
		long v = parse_expr();
		skip_blanks();
		if (*pos == ')')
			pos++;
		return v;
	}
	return parse_number();
}

TK_FUNC static long parse_term(void)
{
	term_calls++;
	long v = parse_factor();
	for (;;) {
		skip_blanks();
		char op = *pos;
		if (op != '*' && op != '/' && op != '%')
			return v;
		pos++;
		long r = parse_factor();
		if (op == '*')
			v *= r;
		else if (r == 0)
			v = 0;
		else if (op == '/')
			v /= r;
		else
			v %= r;
	}
}

TK_FUNC static long parse_expr(void)
{
	expr_calls++;
	long v = parse_term();
	for (;;) {
		skip_blanks();
		char op = *pos;
		if (op != '+' && op != '-')
			return v;
		pos++;
		long r = parse_term();
		v = op == '+' ? v + r : v - r;
	}
}

TK_FUNC long evaluate(const char *text)
{
	pos = text;
	long v = parse_expr();
	if (nresults < 16)
		results[nresults++] = v;
	return v;
}

int main(int argc, char **argv)
{
	static const char *const builtin[] = {"1+2*3", "(1+2)*3", "100/7%4", "-(2+3)*-4"};
	long v = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			v = evaluate(argv[i]);
			printf("%s = %ld\n", argv[i], v);
		}
	} else {
		for (unsigned i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
			v = evaluate(builtin[i]);
			printf("%s = %ld\n", builtin[i], v);
		}
	}
	printf("calls: expr %u term %u factor %u\n", expr_calls, term_calls, factor_calls);
	return (int)(v & 0xff);
}
