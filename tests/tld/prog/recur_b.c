/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mutual recursion across two objects: every call is wrapped. */
#include "api.h"
#include "oracle.h"

int is_odd(unsigned n)
{
	ORACLE_ENTER(is_odd);
	ORACLE_ARG(1, "unsigned", "unsigned int", n);
	int r = n == 0 ? 0 : is_even(n - 1);
	ORACLE_EXIT(is_odd);
	ORACLE_RET("int", "int", r);
	return r;
}
