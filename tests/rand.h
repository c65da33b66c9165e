/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: a small deterministic pseudo-random generator
 * (xorshift64), so that randomized tests fail the same way every run. */
#ifndef TRACEKIT_TESTS_RAND_H
#define TRACEKIT_TESTS_RAND_H

#include <stdint.h>

static uint64_t test_rng = 0x9e3779b97f4a7c15ull;

/* A number in [0, n), n > 0. */
static inline uint32_t rnd(uint32_t n)
{
	test_rng ^= test_rng << 13;
	test_rng ^= test_rng >> 7;
	test_rng ^= test_rng << 17;
	return (uint32_t)(test_rng % n);
}

#endif
