/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The backtrace benchmark's program: a recursion 256 deep, repeated, with
 * a little work at every level, built with frame pointers. */
#include <stdio.h>

#define NOIPA __attribute__((noipa))

volatile unsigned sink;

NOIPA unsigned work(unsigned x)
{
	for (int i = 0; i < 4; i++)
		x = x * 1103515245u + 12345u;
	sink += x;
	return x;
}

NOIPA unsigned descend(unsigned depth, unsigned seed)
{
	unsigned r = work(seed);
	if (depth)
		r ^= descend(depth - 1, r);
	return r + depth;
}

int main(void)
{
	unsigned r = 0;
	for (int rep = 0; rep < 24; rep++)
		r += descend(256, (unsigned)rep);
	printf("%u\n", r);
	return 0;
}
