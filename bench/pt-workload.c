/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Intel PT benchmark workload: work() is one traced call (loops,
 * direct and indirect calls, a jump table); the benchmark records one call
 * and repeats it, as an IP filter on a function called in a loop gives. */
#define NOIPA __attribute__((noipa))

static int acc;
NOIPA int add(int a, int b) { return a + b; }
NOIPA int mix(int a, int b) { return (a * 31) ^ b; }
static int (*volatile fns[2])(int, int) = {add, mix};

NOIPA int pick(int x)
{
	switch (x & 7) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x ^ 9;
	case 3: return x - 4;
	case 4: return x << 1;
	case 5: return x >> 1;
	case 6: return ~x;
	default: return x;
	}
}

NOIPA int rec(int n) { return n <= 1 ? 1 : rec(n - 1) + n; }

NOIPA void work(int n)
{
	for (int i = 0; i < n; i++) {
		acc = fns[i & 1](acc, i);
		acc += pick(i);
		if (acc & 4)
			acc ^= 0x55;
	}
	acc += rec(12);
}

int main(void)
{
	work(150);	/* the recorded call */
	return acc & 1;
}
