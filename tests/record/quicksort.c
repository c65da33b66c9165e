/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quicksort of 200 pseudo-random numbers: the recorder's integer test.
 * The sorted array stays in `data` for the memory check; the program
 * counts its own calls so the call tree can be checked against them. */
#include "rt.h"

#define N 200

int data[N];
unsigned quicksort_calls, partition_calls, swap_calls;
static unsigned seed = 12345;

TK_FUNC unsigned next_random(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) & 0x7fff;
}

TK_FUNC void swap(int *a, int *b)
{
	int t = *a;
	*a = *b;
	*b = t;
	swap_calls++;
}

TK_FUNC int partition(int *a, int lo, int hi)
{
	int pivot = a[hi], i = lo;
	partition_calls++;
	for (int j = lo; j < hi; j++)
		if (a[j] < pivot)
			swap(&a[i++], &a[j]);
	swap(&a[i], &a[hi]);
	return i;
}

/* Sorts a[lo..hi], lo < hi; the caller checks the range. */
TK_FUNC void quicksort(int *a, int lo, int hi)
{
	quicksort_calls++;
	int p = partition(a, lo, hi);
	if (lo < p - 1)
		quicksort(a, lo, p - 1);
	if (p + 1 < hi)
		quicksort(a, p + 1, hi);
}

int main(void)
{
	for (int i = 0; i < N; i++)
		data[i] = (int)(next_random() % 1000);
	quicksort(data, 0, N - 1);
	int sorted = 1;
	unsigned sum = 0;
	for (int i = 0; i < N; i++) {
		if (i && data[i - 1] > data[i])
			sorted = 0;
		sum = sum * 31 + (unsigned)data[i];
	}
	printf("sorted %d numbers: %s\n", N, sorted ? "yes" : "NO");
	printf("first:");
	for (int i = 0; i < 8; i++)
		printf(" %d", data[i]);
	printf("\nlast:");
	for (int i = N - 8; i < N; i++)
		printf(" %d", data[i]);
	printf("\nchecksum %08x\n", sum);
	printf("calls: quicksort %u partition %u swap %u\n", quicksort_calls, partition_calls,
	       swap_calls);
	return sorted ? 0 : 1;
}
