/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit demo program: a small C program with a few functions, a
 * recursive one, and output through semihosting (newlib's rdimon).
 * scripts/demo.sh compiles it for Arm, records its Tarmac trace with
 * `tracekit record`, and runs the report tools on the trace. */
#include <stdio.h>

static int is_prime(unsigned n)
{
	if (n < 2)
		return 0;
	for (unsigned d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

static unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void bubble_sort(unsigned *a, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i++)
		for (unsigned j = 0; j + 1 < n - i; j++)
			if (a[j] > a[j + 1]) {
				unsigned t = a[j];
				a[j] = a[j + 1];
				a[j + 1] = t;
			}
}

unsigned primes[16];

int main(void)
{
	unsigned count = 0;
	for (unsigned n = 60; count < 16; n--)
		if (is_prime(n))
			primes[count++] = n;
	bubble_sort(primes, count);
	for (unsigned i = 0; i < count; i++)
		printf("%u ", primes[i]);
	printf("\nfib(12) = %u\n", fib(12));
	return 0;
}
