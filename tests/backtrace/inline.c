/* SPDX-License-Identifier: GPL-3.0-or-later */
/* addr2line test program: -O2 C with inlining (static inline chains,
 * loops that get discriminators, a function called through a pointer).
 * Built for the host and for Arm; never run, only looked up. */
#include <stdio.h>
#include <string.h>

static inline int sq(int x)
{
	return x * x;
}

static inline int quad(int x)
{
	return sq(sq(x));
}

static inline int mix(int a, int b)
{
	return quad(a) ^ (b << 3) ^ sq(b);
}

static int __attribute__((noinline)) helper(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += mix(*s, n);
	return n;
}

static int table[64];

static void __attribute__((noinline)) fill(int (*f)(const char *), char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		table[i & 63] += f(argv[i]) + (int)strlen(argv[i]);
}

int main(int argc, char **argv)
{
	fill(helper, argv, argc);
	int t = 0;
	for (int i = 0; i < 64; i++)
		t += quad(table[i]) + (i % 3 ? sq(i) : mix(i, t));
	printf("%d\n", t);
	return 0;
}
