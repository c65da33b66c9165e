/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The workload behind bench/make-recorded-trace.sh: a mix of integer,
 * memory, call-heavy and floating-point code, sized by its argument
 * (default 1).  Built for Thumb, A32 (newlib) and A64 (the tests' runtime)
 * and recorded with `tracekit record`. */
#include "../tests/record/rt.h"

#define N 2048

static int keys[N];
static double px[64], py[64], vx[64], vy[64];
static unsigned seed = 1;

TK_FUNC static unsigned rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}

TK_FUNC static void sort(int *a, int lo, int hi)
{
	while (lo < hi) {
		int p = a[(lo + hi) / 2], i = lo, j = hi;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				int t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		sort(a, lo, j);
		lo = i;
	}
}

TK_FUNC static unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

TK_FUNC static unsigned hash_text(const char *s, unsigned len)
{
	unsigned h = 2166136261u;
	for (unsigned i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

TK_FUNC static double step(int n, double dt)
{
	double energy = 0.0;
	for (int i = 0; i < n; i++) {
		double ax = 0.0, ay = 0.0;
		for (int j = 0; j < n; j++) {
			if (j == i)
				continue;
			double dx = px[j] - px[i], dy = py[j] - py[i];
			double d2 = dx * dx + dy * dy + 0.01;
			double inv = 1.0 / (d2 * __builtin_sqrt(d2));
			ax += dx * inv;
			ay += dy * inv;
		}
		vx[i] += ax * dt;
		vy[i] += ay * dt;
	}
	for (int i = 0; i < n; i++) {
		px[i] += vx[i] * dt;
		py[i] += vy[i] * dt;
		energy += 0.5 * (vx[i] * vx[i] + vy[i] * vy[i]);
	}
	return energy;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	static char text[4096];
	unsigned total = 0;
	for (int round = 0; round < scale; round++) {
		for (int i = 0; i < N; i++)
			keys[i] = (int)(rnd() % 100000);
		sort(keys, 0, N - 1);
		total += (unsigned)keys[N / 2];

		total += fib(18);

		for (unsigned i = 0; i < sizeof text; i++)
			text[i] = (char)('a' + rnd() % 26);
		memcpy(text + 1024, text, 1024);
		memset(text + 3000, ' ', 500);
		total += hash_text(text, sizeof text);

		for (int i = 0; i < 32; i++) {
			px[i] = (double)(rnd() % 1000) / 100.0;
			py[i] = (double)(rnd() % 1000) / 100.0;
			vx[i] = vy[i] = 0.0;
		}
		double e = 0.0;
		for (int s = 0; s < 10; s++)
			e = step(32, 0.001);
		total += (unsigned)(e * 1000.0);
		printf("round %d: median %d energy %d\n", round, keys[N / 2], (int)(e * 1000.0));
	}
	printf("total %u\n", total);
	return 0;
}
