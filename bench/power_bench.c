/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark helper for bench/htm-bench.sh.
 *
 *   power_bench read FILE     read a Qtrace file or HTM dump through
 *                             tracekit/power.h (what a trace source does:
 *                             prefixed pairs merged, branch kinds by
 *                             link-register semantics) and count calls per
 *                             target, as a profile's inner loop would;
 *                             prints instructions/s
 *   power_bench disasm N      libopcodes' cost per instruction without the
 *                             text cache: N distinct words (what a listing
 *                             tool pays when it calls libopcodes for every
 *                             record)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracekit/error.h"
#include "tracekit/power.h"
#include "tracekit/ppc.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bench_read(const char *path)
{
	tk_power *p;
	int rc = tk_power_open(path, NULL, &p);
	if (rc < 0) {
		fprintf(stderr, "%s: %s %s\n", path, tk_strerror(rc), tk_power_last_error());
		return 1;
	}
	enum { SLOTS = 1 << 16 };
	uint64_t *target = calloc(SLOTS, sizeof *target), *count = calloc(SLOTS, sizeof *count);
	double t0 = now();
	tk_power_insn in;
	uint64_t n = 0, calls = 0, returns = 0;
	while ((rc = tk_power_next(p, &in)) > 0) {
		n++;
		if (in.branch == TK_BR_CALL) {
			calls++;
			uint32_t h = (uint32_t)(in.next_ea * 0x9E3779B97F4A7C15ull >> 48);
			while (target[h] && target[h] != in.next_ea)
				h = (h + 1) & (SLOTS - 1);
			target[h] = in.next_ea;
			count[h]++;
		}
		returns += in.branch == TK_BR_RETURN;
	}
	double t = now() - t0;
	if (rc < 0)
		fprintf(stderr, "%s\n", tk_power_error(p));
	printf("%s: %" PRIu64 " instructions, %" PRIu64 " calls, %" PRIu64 " returns in %.3f s: "
	       "%.1f M instructions/s, %.0f MB/s\n", path, n, calls, returns, t, n / t / 1e6,
	       tk_power_size(p) / t / 1e6);
	tk_power_free(p);
	free(target);
	free(count);
	return rc < 0;
}

static int bench_disasm(long n)
{
	tk_ppc_disasm *d;
	if (tk_ppc_disasm_new(NULL, NULL, &d) < 0)
		return 1;
	char buf[128];
	uint64_t s = 88172645463325252ull, chars = 0;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		/* ordinary integer forms (addi, ld, std, add), random operands:
		 * nearly all distinct, so nearly every call misses the cache */
		uint32_t r = (uint32_t)(s >> 20), w;
		switch (i & 3) {
		case 0: w = 0x38000000u | (r & 0x03FFFFFFu); break;
		case 1: w = 0xe8000000u | (r & 0x03FFFFFCu); break;
		case 2: w = 0xf8000000u | (r & 0x03FFFFFCu); break;
		default: w = 0x7c000214u | (r & 0x03FFF800u); break;
		}
		chars += tk_ppc_disasm_insn(d, 0x10000000 + 4 * (uint64_t)i, &w, 1, buf, sizeof buf);
	}
	double t = now() - t0;
	printf("libopcodes: %ld instructions (mostly distinct words) in %.3f s: %.0f ns each (%" PRIu64
	       " characters)\n", n, t, t / (double)n * 1e9, chars);
	tk_ppc_disasm_free(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "read"))
		return bench_read(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "disasm"))
		return bench_disasm(atol(argv[2]));
	fprintf(stderr, "usage: power_bench read FILE | disasm N\n");
	return 2;
}
