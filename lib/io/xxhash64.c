/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: XXH64, the 64-bit xxHash, written from its published
 * description: four 64-bit lanes over 32-byte stripes, merged, then the
 * tail in 8-, 4- and 1-byte steps, then an avalanche.  The zstd seek table
 * stores the low 32 bits of XXH64 (seed 0) of each frame's content. */
#include <string.h>

#include "input_impl.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t round64(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

static inline uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

uint64_t tk_xxh64(const void *data, size_t n, uint64_t seed)
{
	const uint8_t *p = data, *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		const uint8_t *limit = end - 32;
		do {
			v1 = round64(v1, tk_le64(p));
			v2 = round64(v2, tk_le64(p + 8));
			v3 = round64(v3, tk_le64(p + 16));
			v4 = round64(v4, tk_le64(p + 24));
			p += 32;
		} while (p <= limit);
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge(h, v1);
		h = merge(h, v2);
		h = merge(h, v3);
		h = merge(h, v4);
	} else {
		h = seed + P5;
	}
	h += (uint64_t)n;
	while (end - p >= 8) {
		h ^= round64(0, tk_le64(p));
		h = rotl(h, 27) * P1 + P4;
		p += 8;
	}
	if (end - p >= 4) {
		h ^= (uint64_t)tk_le32(p) * P1;
		h = rotl(h, 23) * P2 + P3;
		p += 4;
	}
	while (p < end) {
		h ^= (uint64_t)*p++ * P5;
		h = rotl(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}
