/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Traced functions with pointers, no result, no parameters, a typedef
 * (size_t) and a function-pointer parameter. */
#include <string.h>

#include "api.h"
#include "oracle.h"

static unsigned notes;

void note(const char *msg)
{
	ORACLE_ENTER(note);
	ORACLE_ARG(1, "const char*", "const char *", msg);
	notes += (unsigned)strlen(msg);
	ORACLE_EXIT(note);
}

void tick(void)
{
	ORACLE_ENTER(tick);
	notes++;
	ORACLE_EXIT(tick);
}

char *copy_name(char *dst, const char *src, size_t n)
{
	ORACLE_ENTER(copy_name);
	ORACLE_ARG(1, "char*", "char *", dst);
	ORACLE_ARG(2, "const char*", "const char *", src);
	ORACLE_ARG(3, "size_t", "size_t", n);
	strncpy(dst, src, n - 1);
	dst[n - 1] = '\0';
	ORACLE_EXIT(copy_name);
	ORACLE_RET("char*", "char *", dst);
	return dst;
}

int each(void (*cb)(int), int n)
{
	ORACLE_ENTER(each);
	ORACLE_ARG(1, "void (*)(int)", "void (*)(int)", cb);
	ORACLE_ARG(2, "int", "int", n);
	for (int i = 0; i < n; i++)
		cb(i);
	ORACLE_EXIT(each);
	ORACLE_RET("int", "int", n);
	return n;
}
