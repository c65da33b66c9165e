/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A ppc64le test program for the Qtrace/HTM round trips and call analyses:
 * recursion (fib), calls through a function pointer (apply -> square /
 * twice), a loop over an array (loads and stores), and a leaf helper.
 *
 * Calls the program makes, for checking call analyses:
 *   main     1
 *   fib      465   (fib(12): 2 * fib(13) - 1 activations)
 *   apply    8     (the loop of main, 8 rounds)
 *   square   4     (through a function pointer, even rounds)
 *   twice    4     (through a function pointer, odd rounds)
 *   sum      1
 * main returns (fib(12) + sum of the results) & 0xff as the exit status:
 *   fib(12) = 144; square(0,2,4,6) = 0+4+16+36 = 56; twice(1,3,5,7) = 32;
 *   sum of table = 56 + 32 = 88 -> (144 + 88) & 0xff = 232. */

long table[8];
long (*volatile op)(long);

__attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) long square(long x) { return x * x; }
__attribute__((noinline)) long twice(long x) { return 2 * x; }

__attribute__((noinline)) long apply(long (*f)(long), long x)
{
	op = f;
	return op(x);
}

__attribute__((noinline)) long sum(const long *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(void)
{
	for (int i = 0; i < 8; i++)
		table[i] = apply(i % 2 ? twice : square, i);
	return (int)((fib(12) + sum(table, 8)) & 0xff);
}
