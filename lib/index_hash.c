/* tracekit: the index file checksum.
 *
 * A 64-bit non-cryptographic hash: four independent multiply-rotate lanes
 * over 32-byte stripes (so it runs at memory speed), then the tail, then a
 * final avalanche.  It only has to catch truncation, bit rot and stray
 * writes, so that a damaged index is rebuilt instead of trusted.
 */
#include "index_impl.h"

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t lane(uint64_t acc, uint64_t v)
{
	acc += v * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

uint64_t tk_idx_hash(const uint8_t *p, size_t n)
{
	uint64_t a = P1 + P2, b = P2, c = 0, d = (uint64_t)0 - P1;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		a = lane(a, tk_get64(p + i));
		b = lane(b, tk_get64(p + i + 8));
		c = lane(c, tk_get64(p + i + 16));
		d = lane(d, tk_get64(p + i + 24));
	}
	uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + (uint64_t)n;
	for (; i + 8 <= n; i += 8)
		h = rotl(h ^ lane(0, tk_get64(p + i)), 27) * P1 + P3;
	for (; i < n; i++)
		h = rotl(h ^ (p[i] * P3), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}
