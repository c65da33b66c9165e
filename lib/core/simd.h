/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the byte scans text parsing spends its time in, with
 * SSE2/AVX2 versions chosen at run time and a portable scalar version.
 *
 * Built with -DTK_SCALAR=ON, only the scalar versions exist.  Every
 * version gives the same answers (tests/core/test_simd.c checks them
 * against each other).
 */
#ifndef TRACEKIT_SIMD_H
#define TRACEKIT_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tk_simd_level {
	TK_SIMD_SCALAR = 0,
	TK_SIMD_SSE2 = 1,
	TK_SIMD_AVX2 = 2,
} tk_simd_level;

/* The best level this CPU (and build) has, and the one in use. */
tk_simd_level tk_simd_best(void);
tk_simd_level tk_simd_level_used(void);
const char *tk_simd_name(tk_simd_level level);

/* Use another level (no more than tk_simd_best()): for tests and
 * benchmarks.  Not thread-safe against scans running. */
void tk_simd_use(tk_simd_level level);

/*
 * Line ends: the offsets (from p) of the '\n' bytes of p[0, n), in order,
 * into out, at most cap of them; returns how many.  If cap was reached,
 * the scan stopped after the cap-th newline (*scanned: bytes looked at,
 * else n).  *nul receives the offset of the first NUL byte in the part
 * scanned, or SIZE_MAX.  One pass finds both, whatever the level.
 */
size_t tk_simd_newlines(const uint8_t *p, size_t n, uint32_t *out, size_t cap, size_t *scanned,
			size_t *nul);

/* The same without vector code of our own (memchr). */
size_t tk_simd_newlines_scalar(const uint8_t *p, size_t n, uint32_t *out, size_t cap,
			       size_t *scanned, size_t *nul);

/* ---- hex digits ----
 *
 * SSE2 is part of x86-64, so these need no run-time choice and are inline
 * (the lexer calls them for every address, encoding and value).  Each
 * byte is classified as digit or letter and turned into its nibble; pairs
 * of nibbles are combined in 16-bit lanes and packed into bytes.
 */

static inline bool tk_simd_word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' ||
	       c == '-' || c == '.' || c == '#';
}

static inline int tk_simd_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A token of exactly 8 or 16 hex digits at s (s < end) followed by the end
 * or by a byte that is not alphanumeric nor "_-.#": its value and digit
 * count, true.  False otherwise (nothing else said: the caller's general
 * code decides).
 */
static inline bool tk_simd_hex_token_scalar(const char *s, const char *end, uint64_t *value,
					    size_t *ndigits)
{
	uint64_t v = 0;
	size_t n = 0;
	int d;
	while (s + n < end && n < 17 && (d = tk_simd_hexval((unsigned char)s[n])) >= 0) {
		v = v << 4 | (unsigned)d;
		n++;
	}
	if ((n != 8 && n != 16) || (s + n < end && tk_simd_word_byte((unsigned char)s[n])))
		return false;
	*value = v;
	*ndigits = n;
	return true;
}

/* The same as tk_simd_hex_word, scalar. */
static inline bool tk_simd_hex_word_scalar(const char *s, const char *end, uint64_t *value,
					   size_t *ndigits)
{
	uint64_t v = 0;
	size_t n = 0;
	int d;
	while (s + n < end && n < 17 && (d = tk_simd_hexval((unsigned char)s[n])) >= 0) {
		v = v << 4 | (unsigned)d;
		n++;
	}
	if (!n || n > 16 || (s + n < end && tk_simd_word_byte((unsigned char)s[n])))
		return false;
	*value = v;
	*ndigits = n;
	return true;
}

/* Exactly 8 hex digits at s (8 bytes readable): true and *value. */
static inline bool tk_simd_hex8_scalar(const char *s, uint32_t *value)
{
	uint32_t v = 0;
	for (int i = 0; i < 8; i++) {
		int d = tk_simd_hexval((unsigned char)s[i]);
		if (d < 0)
			return false;
		v = v << 4 | (unsigned)d;
	}
	*value = v;
	return true;
}

#if defined(__SSE2__) && !defined(TK_SCALAR)
#include <emmintrin.h>

/* Bit i set: byte i of v is a hex digit; *nib: the nibbles. */
static inline unsigned tk_simd_hex_nibbles(__m128i v, __m128i *nib)
{
	__m128i lc = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
				    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
	__m128i let = _mm_and_si128(_mm_cmpgt_epi8(lc, _mm_set1_epi8('a' - 1)),
				    _mm_cmplt_epi8(lc, _mm_set1_epi8('f' + 1)));
	*nib = _mm_or_si128(_mm_and_si128(dig, _mm_sub_epi8(v, _mm_set1_epi8('0'))),
			    _mm_andnot_si128(dig, _mm_sub_epi8(lc, _mm_set1_epi8('a' - 10))));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
}

/* Pairs of nibbles into bytes, the first of the string most significant. */
static inline uint64_t tk_simd_hex_pack(__m128i nib)
{
	__m128i hi = _mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0x00ff)), 4);
	__m128i bytes = _mm_packus_epi16(_mm_or_si128(hi, _mm_srli_epi16(nib, 8)),
					 _mm_setzero_si128());
	return (uint64_t)_mm_cvtsi128_si64(bytes);
}

static inline bool tk_simd_hex_token(const char *s, const char *end, uint64_t *value,
				     size_t *ndigits)
{
	if (end - s < 16)	/* 16 bytes are read: only when the line has them */
		return tk_simd_hex_token_scalar(s, end, value, ndigits);
	__m128i nib;
	unsigned hex = tk_simd_hex_nibbles(_mm_loadu_si128((const __m128i *)s), &nib);
	unsigned n = hex == 0xffff ? 16 : (unsigned)__builtin_ctz(~hex);
	if ((n != 8 && n != 16) || (s + n < end && tk_simd_word_byte((unsigned char)s[n])))
		return false;
	uint64_t b = tk_simd_hex_pack(nib);
	*value = n == 16 ? __builtin_bswap64(b) : __builtin_bswap32((uint32_t)b);
	*ndigits = n;
	return true;
}

/* 1..16 hex digits at s followed by the end or a byte that is not
 * alphanumeric nor "_-.#" (at least 16 bytes before end): true, *value,
 * *ndigits. */
static inline bool tk_simd_hex_word(const char *s, const char *end, uint64_t *value,
				    size_t *ndigits)
{
	static const int8_t keep[32] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
	__m128i nib;
	unsigned hex = tk_simd_hex_nibbles(_mm_loadu_si128((const __m128i *)s), &nib);
	unsigned n = hex == 0xffff ? 16 : (unsigned)__builtin_ctz(~hex);
	if (!n || (s + n < end && tk_simd_word_byte((unsigned char)s[n])))
		return false;
	/* the n digits, then zero nibbles: the value shifted left */
	nib = _mm_and_si128(nib, _mm_loadu_si128((const __m128i *)(keep + 16 - n)));
	uint64_t v = __builtin_bswap64(tk_simd_hex_pack(nib));
	*value = n == 16 ? v : v >> (4 * (16 - n));
	*ndigits = n;
	return true;
}

static inline bool tk_simd_hex8(const char *s, uint32_t *value)
{
	__m128i nib;
	if ((tk_simd_hex_nibbles(_mm_loadl_epi64((const __m128i *)s), &nib) & 0xff) != 0xff)
		return false;
	*value = __builtin_bswap32((uint32_t)tk_simd_hex_pack(nib));
	return true;
}
#define TK_SIMD_HEX_WORD 1
#else
#define tk_simd_hex_token tk_simd_hex_token_scalar
#define tk_simd_hex_word tk_simd_hex_word_scalar
#define tk_simd_hex8 tk_simd_hex8_scalar
#endif

#endif
