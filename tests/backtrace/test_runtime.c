/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The freestanding runtime (runtime/tk_backtrace.c) on the host (x86-64
 * rbp chain, or AArch64): every function of a call chain keeps its return
 * address in a shadow stack; tk_backtrace and tk_return_address must give
 * the same addresses, innermost first.  (Only as many frames as the test's
 * own chain are asked for: the C library's start-up code has no frame
 * pointers.) */
#include <stdint.h>
#include <stdio.h>

#include "../../runtime/tk_backtrace.h"
#include "../check.h"

#ifdef __clang__
#define NOIPA __attribute__((noinline, disable_tail_calls))
#else
#define NOIPA __attribute__((noipa))
#endif

static void *shadow[16];
static int depth;
static int leaves;

#define ENTER() (shadow[depth++] = __builtin_return_address(0))
#define LEAVE() (depth--)

NOIPA static void check_here(void)
{
	ENTER();
	void *buf[16] = {0};
	int want = depth;
	int n = tk_backtrace(buf, want);
	CHECK_EQ(n, want);
	for (int i = 0; i < n; i++) {
		CHECKF(buf[i] == shadow[depth - 1 - i], "frame %d: %p, the shadow stack says %p", i,
		       buf[i], shadow[depth - 1 - i]);
		CHECKF(tk_return_address((unsigned)i) == buf[i], "tk_return_address(%d)", i);
	}
	CHECK_EQ(tk_backtrace(buf, 0), 0);
	CHECK_EQ(tk_backtrace(buf, -1), 0);
	leaves++;
	LEAVE();
}

NOIPA static void chain(int n)
{
	ENTER();
	if (n == 0)
		check_here();
	else
		chain(n - 1);
	LEAVE();
}

int main(void)
{
	for (int n = 0; n < 6; n++)
		chain(n);
	CHECK_EQ(leaves, 6);
	return check_report("backtrace runtime");
}
