/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Query latencies of a built index, at random positions.
 *
 * usage: index_bench INDEX [QUERIES]
 * Opens INDEX (tk_index_load), then times each kind of query QUERIES times
 * (default 20000) at random positions and addresses, and prints mean,
 * median, 99th percentile and maximum in microseconds.  Memory queries use
 * addresses the trace really writes (found with tk_index_mem_changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracekit/error.h"
#include "tracekit/index.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += t[i];
	qsort(t, n, sizeof *t, cmp_d);
	printf("%-34s mean %8.2f  p50 %8.2f  p99 %8.2f  max %8.2f us\n", what, sum / n, t[n / 2],
	       t[n * 99 / 100], t[n - 1]);
}

typedef struct ranges {
	uint64_t *addr;
	size_t n, cap;
} ranges;

static int add_range(void *ctx, uint64_t addr, uint64_t len)
{
	ranges *r = ctx;
	for (uint64_t a = addr; a < addr + len; a += 64) {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 1024;
			r->addr = realloc(r->addr, r->cap * sizeof *r->addr);
		}
		r->addr[r->n++] = a;
	}
	return 0;
}

static int count_fn(void *ctx, uint64_t addr, uint64_t len)
{
	(void)addr;
	(void)len;
	++*(uint64_t *)ctx;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: index_bench INDEX [QUERIES]\n");
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 20000;
	double t0 = now_us();
	tk_index *idx;
	int rc = tk_index_load(argv[1], &idx);
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[1], tk_strerror(rc));
		return 1;
	}
	printf("open (load and verify checksums)   %.2f ms\n", (now_us() - t0) / 1e3);
	uint64_t count = tk_index_count(idx);
	if (!count)
		return 1;
	double *t = malloc(n * sizeof *t);
	ranges mem = {0};
	tk_index_mem_changes(idx, 0, count - 1, 0, UINT64_MAX, true, add_range, &mem);
	uint32_t ncalls = tk_index_call_count(idx);
	printf("positions %llu, written 64-byte chunks %zu, calls %u, queries %d\n",
	       (unsigned long long)count, mem.n, ncalls, n);
	uint64_t sink = 0;

#define TIME(what, ...) do { \
	for (int i = 0; i < n; i++) { \
		uint64_t pos = rnd(count); \
		(void)pos; \
		double s = now_us(); \
		__VA_ARGS__; \
		t[i] = now_us() - s; \
	} \
	report(what, t, n); \
} while (0)

	TIME("position info", {
		tk_index_pos p;
		tk_index_get_pos(idx, pos, &p);
		sink += p.line;
	});
	tk_index_pos last;
	tk_index_get_pos(idx, count - 1, &last);
	TIME("find line", {
		uint64_t q;
		tk_index_find_line(idx, 1 + rnd(last.line), &q);
		sink += q;
	});
	TIME("find time", {
		uint64_t q;
		tk_index_find_time(idx, rnd(last.time + 1), &q);
		sink += q;
	});
	TIME("one register (x0-x30)", {
		uint8_t v[8], k[8];
		tk_reg_view view = {(tk_reg)(TK_REG_X0 + rnd(31)), 0, 8};
		tk_index_reg(idx, pos, view, v, k);
		sink += v[0];
	});
	tk_index_regset *rs;
	tk_index_regset_alloc(&rs);
	TIME("whole register file", {
		tk_index_regset_at(idx, pos, rs);
	});
	if (mem.n) {
		TIME("256-byte memory view", {
			uint8_t v[256], k[256];
			uint64_t a = mem.addr[rnd(mem.n)] + rnd(64) - 128;
			tk_index_mem(idx, pos, a, 256, v, k);
			sink += v[0];
		});
		TIME("memory previous write (8 bytes)", {
			uint64_t q;
			uint64_t a = mem.addr[rnd(mem.n)] + 8 * rnd(8);
			tk_index_mem_prev_write(idx, pos, a, 8, &q);
			sink += q;
		});
		TIME("memory next write (8 bytes)", {
			uint64_t q;
			uint64_t a = mem.addr[rnd(mem.n)] + 8 * rnd(8);
			tk_index_mem_next_write(idx, pos, a, 8, &q);
			sink += q;
		});
		TIME("memory changes, one step (all)", {
			uint64_t k = 0;
			tk_index_mem_changes(idx, pos ? pos - 1 : 0, pos, 0, UINT64_MAX, true, count_fn, &k);
			sink += k;
		});
		TIME("memory changes, 256-byte window", {
			uint64_t k = 0;
			uint64_t a = mem.addr[rnd(mem.n)];
			tk_index_mem_changes(idx, pos, rnd(count), a, a + 255, true, count_fn, &k);
			sink += k;
		});
	}
	TIME("register previous write (x0-x30)", {
		uint64_t q;
		tk_reg_view view = {(tk_reg)(TK_REG_X0 + rnd(31)), 0, 8};
		tk_index_reg_prev_write(idx, pos, view, &q);
		sink += q;
	});
	TIME("register previous write (any reg)", {
		uint64_t q;
		tk_reg_view view = {(tk_reg)rnd(TK_REG_COUNT), 0, 1};
		tk_index_reg_prev_write(idx, pos, view, &q);
		sink += q;
	});
	TIME("next visit of a pc", {
		tk_index_pos p;
		uint64_t q;
		tk_index_get_pos(idx, rnd(count), &p);
		tk_index_find_pc(idx, pos, p.pc, true, &q);
		sink += q;
	});
	TIME("call containing a position", {
		uint32_t c;
		tk_index_call_at(idx, pos, &c);
		sink += c;
	});
	TIME("one call by number", {
		tk_call call;
		tk_index_get_call(idx, (uint32_t)rnd(ncalls), &call);
		sink += call.entry.pos;
	});
	if (ncalls > 1) {
		int m = n < 2000 ? n : 2000;
		for (int i = 0; i < m; i++) {
			uint32_t c = 1 + (uint32_t)rnd(ncalls - 1);
			tk_index_call_pos cp;
			tk_index_get_call_pos(idx, c, &cp);
			uint64_t k = 0;
			double s = now_us();
			tk_index_mem_changes(idx, cp.call, cp.resume, 0, UINT64_MAX, true, count_fn, &k);
			t[i] = now_us() - s;
			sink += k;
		}
		report("memory changes over a folded call", t, m);
	}
	tk_index_regset_free(rs);
	tk_index_free(idx);
	free(t);
	free(mem.addr);
	return sink == 42 ? 3 : 0;
}
