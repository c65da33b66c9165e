/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: byte scans with SSE2 and AVX2 (see simd.h).
 *
 * The level is chosen once, from what the CPU says it has (AVX2 is asked
 * at run time; SSE2 is part of x86-64).  Newlines and NUL bytes are found
 * in one pass, 64 (AVX2) or 16 (SSE2) bytes at a time, by comparing and
 * taking a bit mask.  The hex conversions are inline, in simd.h.
 */
#include "core/simd.h"

#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && !defined(TK_SCALAR)
#define TK_X86 1
#include <immintrin.h>
#endif

static tk_simd_level used = (tk_simd_level)-1;

tk_simd_level tk_simd_best(void)
{
#ifdef TK_X86
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") ? TK_SIMD_AVX2 : TK_SIMD_SSE2;
#else
	return TK_SIMD_SCALAR;
#endif
}

tk_simd_level tk_simd_level_used(void)
{
	if (used == (tk_simd_level)-1)
		used = tk_simd_best();
	return used;
}

void tk_simd_use(tk_simd_level level)
{
	tk_simd_level best = tk_simd_best();
	used = level > best ? best : level;
}

const char *tk_simd_name(tk_simd_level level)
{
	switch (level) {
	case TK_SIMD_SSE2: return "SSE2";
	case TK_SIMD_AVX2: return "AVX2";
	default: return "scalar";
	}
}

/* ---- newlines ---- */

/* Without vector code of our own: newlines with memchr, then one memchr
 * for a NUL byte over what was scanned. */
size_t tk_simd_newlines_scalar(const uint8_t *p, size_t n, uint32_t *out, size_t cap,
			       size_t *scanned, size_t *nul)
{
	size_t k = 0, at = 0;
	*scanned = n;
	while (at < n) {
		const uint8_t *nl = memchr(p + at, '\n', n - at);
		if (!nl)
			break;
		out[k++] = (uint32_t)(nl - p);
		at = (size_t)(nl - p) + 1;
		if (k == cap) {
			*scanned = at;
			break;
		}
	}
	const uint8_t *z = memchr(p, 0, *scanned);
	*nul = z ? (size_t)(z - p) : SIZE_MAX;
	return k;
}

#ifdef TK_X86
/* Take the newlines of one block's mask; true if cap was reached (then
 * *stop is the offset just after the last one taken). */
static inline bool take(uint64_t nl, size_t base, uint32_t *out, size_t *k, size_t cap,
			size_t *stop)
{
	while (nl) {
		unsigned b = (unsigned)__builtin_ctzll(nl);
		out[(*k)++] = (uint32_t)(base + b);
		if (*k == cap) {
			*stop = base + b + 1;
			return true;
		}
		nl &= nl - 1;
	}
	return false;
}

static size_t newlines_sse2(const uint8_t *p, size_t n, uint32_t *out, size_t cap, size_t *scanned,
			    size_t *nul)
{
	const __m128i vn = _mm_set1_epi8('\n'), vz = _mm_setzero_si128();
	size_t k = 0, i = 0, stop;
	*nul = SIZE_MAX;
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		unsigned mn = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vn));
		unsigned mz = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vz));
		bool full = take(mn, i, out, &k, cap, &stop);
		if (mz && *nul == SIZE_MAX) {
			size_t z = i + (size_t)__builtin_ctz(mz);
			if (!full || z < stop)
				*nul = z;
		}
		if (full) {
			*scanned = stop;
			return k;
		}
	}
	size_t rest_scanned, rest_nul;
	size_t m = tk_simd_newlines_scalar(p + i, n - i, out + k, cap - k, &rest_scanned, &rest_nul);
	for (size_t j = 0; j < m; j++)
		out[k + j] += (uint32_t)i;
	if (*nul == SIZE_MAX && rest_nul != SIZE_MAX)
		*nul = i + rest_nul;
	*scanned = i + rest_scanned;
	return k + m;
}

__attribute__((target("avx2")))
static size_t newlines_avx2(const uint8_t *p, size_t n, uint32_t *out, size_t cap, size_t *scanned,
			    size_t *nul)
{
	const __m256i vn = _mm256_set1_epi8('\n'), vz = _mm256_setzero_si256();
	size_t k = 0, i = 0, stop;
	*nul = SIZE_MAX;
	for (; i + 64 <= n; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
		uint64_t mn = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vn)) |
			      (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vn)) << 32;
		uint64_t mz = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vz)) |
			      (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vz)) << 32;
		bool full = take(mn, i, out, &k, cap, &stop);
		if (mz && *nul == SIZE_MAX) {
			size_t z = i + (size_t)__builtin_ctzll(mz);
			if (!full || z < stop)
				*nul = z;
		}
		if (full) {
			*scanned = stop;
			return k;
		}
	}
	size_t rest_scanned, rest_nul;
	size_t m = newlines_sse2(p + i, n - i, out + k, cap - k, &rest_scanned, &rest_nul);
	for (size_t j = 0; j < m; j++)
		out[k + j] += (uint32_t)i;
	if (*nul == SIZE_MAX && rest_nul != SIZE_MAX)
		*nul = i + rest_nul;
	*scanned = i + rest_scanned;
	return k + m;
}
#endif

size_t tk_simd_newlines(const uint8_t *p, size_t n, uint32_t *out, size_t cap, size_t *scanned,
			size_t *nul)
{
	if (!cap) {
		*scanned = 0;
		*nul = SIZE_MAX;
		return 0;
	}
#ifdef TK_X86
	switch (tk_simd_level_used()) {
	case TK_SIMD_AVX2:
		return newlines_avx2(p, n, out, cap, scanned, nul);
	case TK_SIMD_SSE2:
		return newlines_sse2(p, n, out, cap, scanned, nul);
	default:
		break;
	}
#endif
	return tk_simd_newlines_scalar(p, n, out, cap, scanned, nul);
}

