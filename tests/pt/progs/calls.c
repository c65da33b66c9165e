/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A test program for the Intel PT generator: recursion, indirect calls, a
 * jump table, longjmp out of a recursion, a libc callback (qsort).  Each
 * function counts its calls; the counts are printed at the end as
 * "count NAME N", what the decoded call tree must show. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

static unsigned n_fib, n_cmp, n_op_add, n_op_sub, n_op_mul, n_classify, n_deep, n_leaf;
static jmp_buf jb;

NOIPA unsigned fib(unsigned n)
{
	n_fib++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOIPA int cmp(const void *a, const void *b)
{
	n_cmp++;
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

NOIPA int op_add(int a, int b) { n_op_add++; return a + b; }
NOIPA int op_sub(int a, int b) { n_op_sub++; return a - b; }
NOIPA int op_mul(int a, int b) { n_op_mul++; return a * b; }

typedef int (*op_fn)(int, int);
static op_fn volatile ops[3] = {op_add, op_sub, op_mul};

NOIPA int classify(int x)
{
	n_classify++;
	switch (x & 7) {	/* dense: a jump table */
	case 0: return x * 3;
	case 1: return x + 11;
	case 2: return x ^ 0x55;
	case 3: return x - 7;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return ~x;
	default: return x * x;
	}
}

NOIPA void deep(int n)
{
	n_deep++;
	if (n == 0)
		longjmp(jb, 1);
	deep(n - 1);
}

NOIPA void leaf(void) { n_leaf++; }

int main(int argc, char **argv)
{
	int a[24];
	unsigned seed = 12345;
	for (int i = 0; i < 24; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = (int)(seed >> 16) % 1000;
	}
	int sum = (int)fib(argc > 1 ? (unsigned)atoi(argv[1]) : 11);
	qsort(a, 24, sizeof a[0], cmp);
	for (int i = 0; i < 30; i++)
		sum += ops[i % 3](i, 3);
	for (int i = 0; i < 40; i++)
		sum += classify(i);
	for (int k = 0; k < 3; k++)
		if (!setjmp(jb))
			deep(4 + k);
	for (int i = 0; i < 5; i++)
		leaf();
	printf("sum %d first %d last %d len %zu\n", sum, a[0], a[23], strlen("tracekit"));
	printf("count fib %u\ncount cmp %u\ncount op_add %u\ncount op_sub %u\n", n_fib, n_cmp,
	       n_op_add, n_op_sub);
	printf("count op_mul %u\ncount classify %u\ncount deep %u\ncount leaf %u\n", n_op_mul,
	       n_classify, n_deep, n_leaf);
	return 0;
}
