/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trace-buffer source test's program (nest_*.c): each function in its
 * own object, so that every call crosses objects and is wrapped. */
#ifndef NEST_H
#define NEST_H
int outer(int n);	/* calls inner(0) .. inner(n - 1) */
int inner(int i);	/* calls leaf(i) and leaf(i + 1) */
int leaf(int x);	/* calls nothing */
#endif
