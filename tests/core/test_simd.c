/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vector byte scans (lib/core/simd.h) give the answers of the scalar
 * ones, at every level this CPU has: newlines and NUL bytes over random
 * text with every alignment, length and batch size; hex tokens of every
 * length, case, terminator and position near the end of a line. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/simd.h"

static uint64_t seed = 0x243f6a8885a308d3ull;

static unsigned rnd(unsigned n)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(seed >> 33) % n;
}

static void newlines(tk_simd_level level)
{
	static uint8_t buf[4096 + 64];
	static uint32_t a[5000], b[5000];
	tk_simd_use(level);
	for (int round = 0; round < 3000; round++) {
		size_t n = rnd(4096), off = rnd(64);
		uint8_t *p = buf + off;
		/* mostly text, some newlines, rarely a NUL */
		unsigned density = 1 + rnd(60);
		for (size_t i = 0; i < n; i++) {
			unsigned r = rnd(1000);
			p[i] = r < 1000 / density ? '\n' : r == 999 && rnd(8) == 0 ? 0 : (uint8_t)('!' + rnd(90));
		}
		size_t cap = rnd(4) ? 5000 : 1 + rnd(40);
		size_t sa, sb, za, zb;
		size_t ka = tk_simd_newlines(p, n, a, cap, &sa, &za);
		size_t kb = tk_simd_newlines_scalar(p, n, b, cap, &sb, &zb);
		CHECKF(ka == kb && sa == sb && za == zb && !memcmp(a, b, ka * sizeof *a),
		       "%s: n %zu cap %zu: %zu/%zu newlines, scanned %zu/%zu, nul %zu/%zu",
		       tk_simd_name(level), n, cap, ka, kb, sa, sb, za, zb);
	}
}

static void hex(void)
{
	static const char digits[] = "0123456789abcdefABCDEF";
	static const char after[] = " :,)]\n_-.#gZx";
	char line[64];
	for (int round = 0; round < 200000; round++) {
		size_t n = rnd(20);
		size_t len = 0;
		for (size_t i = 0; i < n; i++)
			line[len++] = digits[rnd(sizeof digits - 1)];
		if (rnd(4))
			line[len++] = after[rnd(sizeof after - 1)];
		if (rnd(10) == 0 && len)
			line[rnd((unsigned)len)] = (char)(rnd(2) ? 0x80 + rnd(0x80) : '/');
		size_t tail = rnd(3) ? rnd(20) : 0;	/* the line ends soon after */
		for (size_t i = 0; i < tail; i++)
			line[len++] = 'q';
		uint64_t va = 0, vb = 0;
		size_t na = 0, nb = 0;
		bool a = tk_simd_hex_token(line, line + len, &va, &na);
		bool b = tk_simd_hex_token_scalar(line, line + len, &vb, &nb);
		CHECKF(a == b && (!a || (va == vb && na == nb)), "hex '%.*s': %d %llx %zu / %d %llx %zu",
		       (int)len, line, a, (unsigned long long)va, na, b, (unsigned long long)vb, nb);
		if (len >= 16) {
			bool e = tk_simd_hex_word(line, line + len, &va, &na);
			bool f = tk_simd_hex_word_scalar(line, line + len, &vb, &nb);
			CHECKF(e == f && (!e || (va == vb && na == nb)), "hex word '%.*s'", (int)len,
			       line);
		}
		if (len >= 8) {
			uint32_t x = 0, y = 0;
			bool c = tk_simd_hex8(line, &x), d = tk_simd_hex8_scalar(line, &y);
			CHECKF(c == d && (!c || x == y), "hex8 '%.8s'", line);
		}
	}
	uint64_t v;
	size_t nd;
	const char *a = "0000000000100000\n", *b = "002105d4 d2a00200 O", *c = "0000000ffb78 x";
	CHECK(tk_simd_hex_token(a, a + 16, &v, &nd) && v == 0x100000 && nd == 16);
	CHECK(tk_simd_hex_token(b, b + 19, &v, &nd) && v == 0x2105d4 && nd == 8);
	CHECK(!tk_simd_hex_token(c, c + 14, &v, &nd));
}

int main(void)
{
	tk_simd_level best = tk_simd_best();
	for (int l = TK_SIMD_SCALAR; l <= (int)best; l++)
		newlines((tk_simd_level)l);
	hex();
	char name[64];
	snprintf(name, sizeof name, "simd (best: %s)", tk_simd_name(best));
	return check_report(name);
}
