/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The functions the trace linker tests wrap: defined in lib_math.c,
 * lib_misc.c, recur_a.c and recur_b.c, called from main.c (calls across
 * objects are the ones --wrap sees). */
#ifndef TLD_TEST_API_H
#define TLD_TEST_API_H

#include <stddef.h>

struct vec3 {
	float x, y, z;
};

/* More than 4095 bytes by value: rtems-tld's target decoder read 12 bits
 * of record size. */
struct big {
	unsigned char b[5000];
};

/* More than a record holds (16383 bytes): the record is cut. */
struct huge {
	unsigned char b[20000];
};

int add(int a, int b);
long long mul64(long long a, unsigned short b);
double scale(double d, float f);
float vlen2(const struct vec3 *v);
struct vec3 vadd(struct vec3 a, struct vec3 b);
unsigned sum_big(struct big b);
unsigned sum_huge(struct huge h);
void note(const char *msg);
void tick(void);
char *copy_name(char *dst, const char *src, size_t n);
int each(void (*cb)(int), int n);
int is_even(unsigned n);
int is_odd(unsigned n);

#endif
