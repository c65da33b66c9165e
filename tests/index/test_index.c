/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests of the index API (index.h) on hand-made traces whose state at every
 * line is known (tests/index/NAME.tarmac), on the shared real traces, and on a
 * synthetic event source with 64-bit lines and offsets.
 *
 * usage: test_index CASE TESTDIR TRACESDIR WORKDIR
 * Each case builds its indexes into WORKDIR.  Expected values are written
 * as in `tracekit dump`: registers most significant byte first, memory in
 * address order, "??" for an unknown byte.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "../check.h"
#include "tracekit/source_author.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"
#include "tracekit/index.h"
#include "tracekit/tarmac.h"

static const char *testdir, *tracesdir, *workdir;

static tk_index *open_trace(const char *dir, const char *name, bool big_endian)
{
	char path[1024], ipath[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(ipath, sizeof ipath, "%s/%s%s.index", workdir, name, big_endian ? ".be" : "");
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = ipath;
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	static const tk_source_opt bi = {"bi", ""};
	if (big_endian) {
		spec.opts = &bi;
		spec.nopts = 1;
	}
	o.source = &spec;
	o.mode = TK_INDEX_FORCE;
	tk_index *idx = NULL;
	int rc = tk_index_open(path, &o, &idx);
	if (rc != TK_INDEX_BUILT) {
		fprintf(stderr, "cannot index %s: %s\n", path, tk_strerror(rc));
		exit(1);
	}
	return idx;
}

static void fmt_reg(char *out, const uint8_t *v, const uint8_t *k, unsigned n)
{
	for (unsigned i = n; i-- > 0; out += 2)
		if (k[i])
			sprintf(out, "%02x", v[i]);
		else
			strcpy(out, "??");
	*out = 0;
}

static void fmt_mem(char *out, const uint8_t *v, const uint8_t *k, size_t n)
{
	for (size_t i = 0; i < n; i++, out += 3)
		if (k[i])
			sprintf(out, "%02x ", v[i]);
		else
			strcpy(out, "?? ");
	if (n)
		out[-1] = 0;
	else
		*out = 0;
}

/* Register NAME at position pos has value want. */
#define REG(idx, pos, name, want) check_reg(idx, pos, name, want, __LINE__)
static void check_reg(tk_index *idx, uint64_t pos, const char *name, const char *want, int line)
{
	tk_reg_view v;
	uint8_t val[256], known[256];
	char got[600];
	if (tk_index_reg_lookup(idx, pos, name, &v) != 0) {
		check_at(0, __FILE__, line, "lookup %s", name);
		return;
	}
	int rc = tk_index_reg(idx, pos, v, val, known);
	fmt_reg(got, val, known, v.len);
	check_at(rc == 0 && !strcmp(got, want), __FILE__, line, "%s at %llu: got %s, want %s", name,
	      (unsigned long long)pos, got, want);

	/* the register set gives the same answer */
	tk_index_regset *rs;
	if (tk_index_regset_alloc(&rs) == 0) {
		rc = tk_index_regset_at(idx, pos, rs);
		if (rc == 0)
			rc = tk_index_regset_get(rs, v, val, known);
		fmt_reg(got, val, known, v.len);
		check_at(rc == 0 && !strcmp(got, want), __FILE__, line, "regset %s at %llu: got %s, want %s",
		      name, (unsigned long long)pos, got, want);
		tk_index_regset_free(rs);
	}
}

#define MEM(idx, pos, addr, len, want) check_mem(idx, pos, addr, len, want, __LINE__)
static void check_mem(tk_index *idx, uint64_t pos, uint64_t addr, size_t len, const char *want,
		      int line)
{
	uint8_t val[256], known[256];
	char got[800];
	int rc = tk_index_mem(idx, pos, addr, len, val, known);
	fmt_mem(got, val, known, len);
	check_at(rc == 0 && !strcmp(got, want), __FILE__, line, "mem 0x%llx+%zu at %llu: got '%s', want '%s'",
	      (unsigned long long)addr, len, (unsigned long long)pos, got, want);
}

/* Previous / next write: want is a position or -1 for none. */
#define REGW(idx, prev, pos, name, want) check_regw(idx, prev, pos, name, want, __LINE__)
static void check_regw(tk_index *idx, bool prev, uint64_t pos, const char *name, long long want,
		       int line)
{
	tk_reg_view v;
	uint64_t q = 0;
	tk_index_reg_lookup(idx, pos, name, &v);
	int rc = prev ? tk_index_reg_prev_write(idx, pos, v, &q)
		      : tk_index_reg_next_write(idx, pos, v, &q);
	long long got = rc == 0 ? (long long)q : rc == TK_ERR_NOTFOUND ? -1 : -100 + rc;
	check_at(got == want, __FILE__, line, "%s write of %s from %llu: got %lld, want %lld",
	      prev ? "prev" : "next", name, (unsigned long long)pos, got, want);
}

#define MEMW(idx, prev, pos, addr, len, want) check_memw(idx, prev, pos, addr, len, want, __LINE__)
static void check_memw(tk_index *idx, bool prev, uint64_t pos, uint64_t addr, size_t len,
		       long long want, int line)
{
	uint64_t q = 0;
	int rc = prev ? tk_index_mem_prev_write(idx, pos, addr, len, &q)
		      : tk_index_mem_next_write(idx, pos, addr, len, &q);
	long long got = rc == 0 ? (long long)q : rc == TK_ERR_NOTFOUND ? -1 : -100 + rc;
	check_at(got == want, __FILE__, line, "%s write of 0x%llx+%zu from %llu: got %lld, want %lld",
	      prev ? "prev" : "next", (unsigned long long)addr, len, (unsigned long long)pos, got,
	      want);
}

static int collect_range(void *ctx, uint64_t addr, uint64_t len)
{
	char *s = ctx;
	sprintf(s + strlen(s), "%s%llx+%llu", *s ? " " : "", (unsigned long long)addr,
		(unsigned long long)len);
	return 0;
}

#define CHANGES(idx, a, b, asc, want) check_changes(idx, a, b, 0, UINT64_MAX, asc, want, __LINE__)
static void check_changes(tk_index *idx, uint64_t a, uint64_t b, uint64_t lo, uint64_t hi, bool asc,
			  const char *want, int line)
{
	char got[4096] = "";
	int rc = tk_index_mem_changes(idx, a, b, lo, hi, asc, collect_range, got);
	check_at(rc == 0 && !strcmp(got, want), __FILE__, line, "changes %llu..%llu: got '%s', want '%s'",
	      (unsigned long long)a, (unsigned long long)b, got, want);
}

/* ---- hand-made traces ---- */

static void test_regs_a64(void)
{
	tk_index *idx = open_trace(testdir, "regs-a64.tarmac", false);
	CHECK_EQ(tk_index_count(idx), 11);
	/* the prologue (line 1) belongs to position 0 */
	uint64_t pos = 99;
	CHECK(tk_index_find_line(idx, 1, &pos) == 0 && pos == 0);
	CHECK(tk_index_find_line(idx, 3, &pos) == 0 && pos == 0);
	CHECK(tk_index_find_line(idx, 4, &pos) == 0 && pos == 1);
	CHECK(tk_index_find_line(idx, 22, &pos) == 0 && pos == 10);
	CHECK(tk_index_find_line(idx, 23, &pos) == TK_ERR_NOTFOUND);
	CHECK(tk_index_find_line(idx, 0, &pos) == TK_ERR_NOTFOUND);

	REG(idx, 0, "x0", "0000000000000001");
	REG(idx, 0, "x1", "????????????????");
	/* w1 is the low half of x1 */
	REG(idx, 1, "w1", "89abcdef");
	REG(idx, 1, "x1", "????????89abcdef");
	/* AArch64: d0 / s0 are the low 8 / 4 bytes of v0 */
	REG(idx, 2, "d0", "3ff0000000000000");
	REG(idx, 2, "s0", "00000000");
	REG(idx, 2, "v0", "????????????????3ff0000000000000");
	REG(idx, 2, "q0", "????????????????3ff0000000000000");
	REG(idx, 3, "v1", "00112233445566778899aabbccddeeff");
	/* partial update: "--" bytes unchanged */
	REG(idx, 4, "v1", "00112233000000018899aabbccddeeff");
	REG(idx, 4, "d1", "8899aabbccddeeff");
	REG(idx, 5, "x1", "0000000000001234");
	REG(idx, 5, "w1", "00001234");
	REG(idx, 6, "s2", "3f800000");
	REG(idx, 6, "v2", "????????????????????????3f800000");
	REG(idx, 6, "cpsr", "????????");
	REG(idx, 7, "cpsr", "600003cd");
	REG(idx, 8, "sp", "0000000000100010");
	REG(idx, 8, "wsp", "00100010");
	REG(idx, 10, "x2", "0000000000001234");

	/* history, byte-granular: the partial q1 write at 4 does not touch d1 */
	REGW(idx, true, 4, "d1", 3);
	REGW(idx, true, 4, "v1", 4);
	REGW(idx, true, 10, "w1", 5);
	REGW(idx, true, 4, "w1", 1);
	REGW(idx, true, 0, "w1", -1);
	REGW(idx, true, 0, "x0", 0);
	REGW(idx, false, 0, "w1", 1);
	REGW(idx, false, 1, "w1", 5);
	REGW(idx, false, 5, "w1", -1);
	REGW(idx, false, 0, "s2", 6);

	tk_index_pos p;
	CHECK(tk_index_get_pos(idx, 9, &p) == 0);
	CHECK(!p.executed && p.pc == 0x1024 && p.line == 20 && p.time == 10 && p.isa == TK_ISA_A64);
	CHECK(p.first_line == 20 && p.end_line == 21 && p.encoding == 0x54000040 && p.width == 4);
	CHECK(tk_index_get_pos(idx, 0, &p) == 0 && p.first_line == 1 && p.first_offset == 0 &&
	      p.line == 2);
	CHECK(tk_index_get_pos(idx, 10, &p) == 0 && p.end_line == 23);
	CHECK(tk_index_get_pos(idx, 11, &p) == TK_ERR_NOTFOUND);
	CHECK(tk_index_reg_seen(idx, TK_REG_X0 + 1) && tk_index_reg_seen(idx, TK_REG_XSP) &&
	      !tk_index_reg_seen(idx, TK_REG_X0 + 5));
	tk_index_free(idx);
}

static void test_regs_a32(void)
{
	tk_index *idx = open_trace(testdir, "regs-a32.tarmac", false);
	/* AArch32: s1 is bytes 4..7 of q0, d1 bytes 8..15 */
	REG(idx, 1, "s1", "3f800000");
	REG(idx, 1, "d0", "3f800000????????");
	REG(idx, 1, "q0", "????????????????3f800000????????");
	REG(idx, 2, "d1", "4000000000000000");
	REG(idx, 2, "q0", "40000000000000003f800000????????");
	REG(idx, 3, "sp", "00000001");
	REG(idx, 3, "r13", "00000001");
	/* "--------" is not a write */
	REG(idx, 4, "r0", "00000001");
	REGW(idx, true, 4, "r0", 0);
	REG(idx, 5, "r0", "00000005");
	tk_index_pos p;
	CHECK(tk_index_get_pos(idx, 4, &p) == 0 && p.isa == TK_ISA_T32 && p.width == 2);
	tk_index_free(idx);
}

static void test_mem_le(void)
{
	tk_index *idx = open_trace(testdir, "mem-le.tarmac", false);
	/* reads before any write reveal the initial contents, from position 0 */
	MEM(idx, 0, 0x2000, 10, "88 77 66 55 44 33 22 11 ef be");
	MEM(idx, 0, 0x203e, 4, "?? ?? ?? ??");
	MEM(idx, 1, 0x2000, 2, "88 aa");
	/* a write across a chunk boundary (0x2040) */
	MEM(idx, 3, 0x203e, 4, "?? ?? ?? ??");
	MEM(idx, 4, 0x203c, 8, "?? ?? ef be ad de ?? ??");
	/* a read contradicting the known value changes it */
	MEM(idx, 5, 0x2000, 2, "99 aa");
	/* "##" bytes of a store, revealed by the next load, dated back */
	MEM(idx, 6, 0x2000, 8, "00 00 00 00 11 22 33 44");
	MEM(idx, 7, 0x2000, 8, "00 00 00 00 11 22 33 44");

	MEMW(idx, true, 4, 0x2000, 1, -1);
	MEMW(idx, true, 4, 0x2000, 2, 1);
	MEMW(idx, true, 5, 0x2000, 1, 5);
	MEMW(idx, true, 7, 0x2004, 4, 6);
	MEMW(idx, true, 7, 0x2008, 2, -1);
	MEMW(idx, true, 7, 0x2041, 1, 4);
	MEMW(idx, false, 0, 0x2040, 1, 4);
	MEMW(idx, false, 1, 0x2000, 8, 5);
	MEMW(idx, false, 5, 0x2004, 1, 6);
	MEMW(idx, false, 6, 0x2000, 16, -1);

	CHANGES(idx, 0, 4, true, "2001+1 203e+4");
	CHANGES(idx, 4, 0, false, "203e+4 2001+1");
	CHANGES(idx, 4, 7, true, "2000+8");
	CHANGES(idx, 4, 5, true, "2000+1");
	CHANGES(idx, 3, 3, true, "");
	char got[256] = "";
	CHECK(tk_index_mem_changes(idx, 0, 7, 0x2002, 0x203f, true, collect_range, got) == 0 &&
	      !strcmp(got, "2002+6 203e+2"));

	tk_index_info in = {.size = sizeof in};
	CHECK(tk_index_get_info(idx, &in) == 0);
	CHECK_EQ(in.mem_bytes_touched, 14);
	CHECK_EQ(in.mem_bytes_known, 14);
	CHECK_EQ(in.mem_accesses, 8);
	tk_index_free(idx);
}

static void test_mem_be(void)
{
	tk_index *idx = open_trace(testdir, "mem-be.tarmac", true);
	MEM(idx, 1, 0x3000, 6, "11 22 33 44 aa bb");
	MEM(idx, 0, 0x3000, 6, "11 22 33 44 ?? ??");
	tk_index_info in = {.size = sizeof in};
	tk_index_get_info(idx, &in);
	CHECK(in.big_endian);
	tk_index_free(idx);
	idx = open_trace(testdir, "mem-be.tarmac", false);
	MEM(idx, 1, 0x3000, 6, "44 33 22 11 bb aa");
	tk_index_free(idx);
}

static void test_semihost(void)
{
	/* SYS_READ (AArch64 HLT #0xf000): (file, buffer, length) at x1 */
	tk_index *idx = open_trace(testdir, "semihost-a64.tarmac", false);
	MEM(idx, 4, 0x4000, 16, "?? ?? ?? ?? ?? ?? ?? ?? 00 00 00 00 00 00 00 00");
	MEM(idx, 5, 0x4000, 16, "61 62 63 64 65 66 67 68 69 ?? ?? ?? ?? ?? ?? ??");
	MEM(idx, 7, 0x4000, 16, "61 62 63 64 65 66 67 68 69 ?? ?? ?? ?? ?? ?? ??");
	MEMW(idx, true, 7, 0x4000, 1, 5);
	MEMW(idx, true, 7, 0x4009, 1, 5);
	MEMW(idx, true, 4, 0x4009, 1, 2);
	CHANGES(idx, 4, 5, true, "4000+16");
	tk_index_info in = {.size = sizeof in};
	tk_index_get_info(idx, &in);
	CHECK_EQ(in.semihosting_calls, 1);
	tk_index_free(idx);

	/* SYS_HEAPINFO (A32 SVC #0x123456) and SYS_ELAPSED (T32 BKPT #0xab) */
	idx = open_trace(testdir, "semihost-a32.tarmac", false);
	MEM(idx, 2, 0x6000, 16, "?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??");
	MEM(idx, 3, 0x6000, 16, "00 00 10 00 ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??");
	MEMW(idx, true, 8, 0x600c, 4, 3);
	MEMW(idx, true, 8, 0x6010, 1, -1);
	MEM(idx, 6, 0x7000, 8, "?? ?? ?? ?? ?? ?? ?? ??");
	MEM(idx, 7, 0x7000, 8, "34 12 00 00 ?? ?? ?? ??");
	MEMW(idx, true, 8, 0x7004, 4, 7);
	MEMW(idx, true, 8, 0x7008, 1, -1);
	tk_index_get_info(idx, &in);
	CHECK_EQ(in.semihosting_calls, 2);
	tk_index_free(idx);
}

/* ---- shared traces ---- */

static void test_indextest(void)
{
	tk_index *idx = open_trace(tracesdir, "indextest.tarmac", false);
	CHECK_EQ(tk_index_count(idx), 4);
	tk_index_pos p;
	CHECK(tk_index_get_pos(idx, 2, &p) == 0 && p.line == 5 && p.time == 120 && p.pc == 0x8008);
	CHECK(p.first_line == 5 && p.end_line == 8);
	uint64_t pos;
	CHECK(tk_index_find_line(idx, 7, &pos) == 0 && pos == 2);
	CHECK(tk_index_find_time(idx, 115, &pos) == 0 && pos == 2);
	CHECK(tk_index_find_time(idx, 0, &pos) == 0 && pos == 0);
	CHECK(tk_index_find_time(idx, 131, &pos) == TK_ERR_NOTFOUND);
	CHECK(tk_index_find_offset(idx, 0, &pos) == 0 && pos == 0);
	CHECK(tk_index_find_offset(idx, p.offset, &pos) == 0 && pos == 2);
	CHECK(tk_index_find_offset(idx, p.offset - 1, &pos) == 0 && pos == 1);
	CHECK(tk_index_find_pc(idx, TK_POS_NONE, 0x8004, true, &pos) == 0 && pos == 1);
	CHECK(tk_index_find_pc(idx, 1, 0x8004, true, &pos) == TK_ERR_NOTFOUND);
	CHECK(tk_index_find_pc(idx, 3, 0x8004, false, &pos) == 0 && pos == 1);
	CHECK(tk_index_find_pc(idx, TK_POS_NONE, 0x800c, false, &pos) == 0 && pos == 3);
	pos = 3;
	CHECK(tk_index_next(idx, &pos) == TK_ERR_NOTFOUND && pos == 3);
	CHECK(tk_index_prev(idx, &pos) == 0 && pos == 2);
	REG(idx, 0, "x8", "0000000000010000");
	REG(idx, 1, "x9", "????????????????");
	REG(idx, 2, "x9", "fedcba9876543210");
	MEM(idx, 0, 0x10400, 8, "ef cd ab 89 67 45 23 01");
	MEM(idx, 1, 0x10410, 8, "?? ?? ?? ?? ?? ?? ?? ??");
	MEM(idx, 2, 0x10410, 8, "10 32 54 76 98 ba dc fe");
	MEM(idx, 3, 0x10000, 16, "30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66");
	MEMW(idx, true, 3, 0x10000, 16, 3);
	MEMW(idx, true, 3, 0x10400, 8, -1);
	tk_index_free(idx);
}

static void test_quicksort(void)
{
	tk_index *idx = open_trace(tracesdir, "quicksort.tarmac", false);
	CHECK_EQ(tk_index_count(idx), 2044);
	/* "array" (0x80fc in quicksort.elf): the string before and after */
	const char *before = "thequickbrownfoxjumpsoverthelazydog";
	const char *after = "abcdeeefghhijklmnoooopqrrsttuuvwxyz";
	uint8_t v[64], k[64];
	CHECK(tk_index_mem(idx, 0, 0x80fc, 35, v, k) == 0 && !memcmp(v, before, 35));
	CHECK(tk_index_mem(idx, 2043, 0x80fc, 35, v, k) == 0 && !memcmp(v, after, 35));
	for (int i = 0; i < 35; i++)
		CHECK(k[i]);
	/* the byte after the array is never accessed */
	CHECK(tk_index_mem(idx, 2043, 0x80fc + 35, 1, v, k) == 0 && !k[0]);

	/* the call tree stored equals the one the detector builds by streaming */
	char path[1024];
	snprintf(path, sizeof path, "%s/quicksort.tarmac", tracesdir);
	tk_source *src;
	tk_tarmac_opts to;
	tk_tarmac_opts_init(&to);
	tk_calls *c;
	tk_calltree *tree;
	tk_event ev;
	CHECK(tk_tarmac_open(path, &to, &src) == 0 && tk_calls_new(NULL, &c) == 0);
	while (tk_source_next(src, &ev) > 0)
		tk_calls_feed(c, &ev);
	CHECK(tk_calls_finish(c, &tree) == 0);
	const tk_calltree *t = tree;
	CHECK_EQ(tk_index_call_count(idx), tree->count);
	CHECK_EQ(tk_index_call_roots(idx), tree->nroots);
	/* read in place: a walk and random access give the detector's nodes */
	tk_callwalk *w;
	tk_call node;
	CHECK(tk_index_calls_walk(idx, 0, &w) == 0);
	for (uint32_t i = 0; i < tree->count; i++) {
		CHECK(tk_callwalk_next(w, &node) == 1 && !memcmp(&node, &tree->calls[i], sizeof node));
		CHECK(tk_index_get_call(idx, i, &node) == 0 &&
		      !memcmp(&node, &tree->calls[i], sizeof node));
	}
	CHECK(tk_callwalk_next(w, &node) == 0);
	tk_callwalk_free(w);
	CHECK(tk_index_get_call(idx, tree->count, &node) == TK_ERR_NOTFOUND);
	/* a walk from the middle */
	uint32_t mid = tree->count / 2;
	CHECK(tk_index_calls_walk(idx, mid, &w) == 0 && tk_callwalk_next(w, &node) == 1 &&
	      !memcmp(&node, &tree->calls[mid], sizeof node));
	tk_callwalk_free(w);
	/* the call containing a position: the deepest activation */
	for (uint32_t i = 1; i < t->count; i++) {
		tk_index_call_pos cp;
		uint32_t at;
		CHECK(tk_index_get_call_pos(idx, i, &cp) == 0);
		CHECK(cp.entry == t->calls[i].entry.pos && cp.exit == t->calls[i].exit.pos);
		CHECK(cp.call + 1 == cp.entry && cp.resume == cp.exit + 1);
		CHECK(tk_index_call_at(idx, cp.entry, &at) == 0 && at == i);
		CHECK(tk_index_call_at(idx, cp.exit, &at) == 0 &&
		      (at == i || t->calls[at].parent == i || t->calls[at].depth > t->calls[i].depth));
		CHECK(tk_index_call_at(idx, cp.call, &at) == 0 && at == t->calls[i].parent);
		tk_index_pos p;
		CHECK(tk_index_get_pos(idx, cp.entry, &p) == 0 && p.line == t->calls[i].entry.line &&
		      p.pc == t->calls[i].entry.pc && p.time == t->calls[i].entry.time);
	}
	tk_calltree_free(tree);
	tk_calls_free(c);
	tk_source_free(src);
	tk_index_free(idx);
}

/*
 * Every register and memory byte an event of the trace shows must be what
 * the index gives at that event's position (the last event of a group for
 * a given byte wins); every write must be found as the previous write at
 * its position, and as a change between the position before and it.
 */
typedef struct expect {
	bool mem;
	tk_reg_view view;
	uint64_t addr;
	uint32_t n;
	uint8_t v[256], st[256];
	bool write;
} expect;

static int count_in_changes(void *ctx, uint64_t addr, uint64_t len)
{
	uint64_t *want = ctx;	/* want[0] addr: set want[1] when covered */
	if (want[0] >= addr && want[0] - addr < len)
		want[1] = 1;
	return 0;
}

static void verify_group(tk_index *idx, uint64_t pos, expect *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t v[256], k[256];
		int rc;
		if (e[i].mem)
			rc = tk_index_mem(idx, pos, e[i].addr, e[i].n, v, k);
		else
			rc = tk_index_reg(idx, pos, e[i].view, v, k);
		CHECK(rc == 0);
		for (uint32_t b = 0; b < e[i].n; b++) {
			if (e[i].st[b] != TK_BYTE_SET)
				continue;
			/* a later event of the group for the same byte wins */
			bool later = false;
			for (size_t j = i + 1; j < n && !later; j++) {
				if (e[j].mem != e[i].mem)
					continue;
				if (e[i].mem)
					later = e[i].addr + b - e[j].addr < e[j].n;
				else
					later = e[j].view.reg == e[i].view.reg &&
						(unsigned)e[i].view.offset + b - e[j].view.offset < e[j].view.len;
			}
			if (later)
				continue;
			check_at(k[b] && v[b] == e[i].v[b], __FILE__, __LINE__,
			      "%s pos %llu: %s byte %u: index %s%02x, trace %02x", name,
			      (unsigned long long)pos,
			      e[i].mem ? "mem" : tk_reg_name(e[i].view.reg), b, k[b] ? "" : "unknown ",
			      v[b], e[i].v[b]);
		}
		uint64_t q;
		if (e[i].mem && e[i].write) {
			CHECK(tk_index_mem_prev_write(idx, pos, e[i].addr, e[i].n, &q) == 0 && q == pos);
			if (pos) {
				uint64_t want[2] = {e[i].addr, 0};
				tk_index_mem_changes(idx, pos - 1, pos, 0, UINT64_MAX, true,
						     count_in_changes, want);
				CHECK(want[1]);
			}
		} else if (!e[i].mem) {
			CHECK(tk_index_reg_prev_write(idx, pos, e[i].view, &q) == 0 && q == pos);
			if (pos)
				CHECK(tk_index_reg_next_write(idx, pos - 1, e[i].view, &q) == 0 &&
				      q == pos);
		}
	}
}

static void test_consistency(const char *name)
{
	tk_index *idx = open_trace(tracesdir, name, false);
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", tracesdir, name);
	tk_source *src;
	tk_tarmac_opts to;
	tk_tarmac_opts_init(&to);
	CHECK(tk_tarmac_open(path, &to, &src) == 0);
	static expect e[4096];
	size_t n = 0;
	uint64_t ninsn = 0;
	tk_event ev;
	while (tk_source_next(src, &ev) > 0) {
		if (ev.kind == TK_EV_INSN) {
			if (ninsn)
				verify_group(idx, ninsn - 1, e, n, name);
			n = 0;
			tk_index_pos p;
			CHECK(tk_index_get_pos(idx, ninsn, &p) == 0 && p.line == ev.line &&
			      p.offset == ev.offset && p.time == ev.time && p.pc == ev.u.insn.pc &&
			      p.isa == ev.u.insn.isa && p.executed == ev.u.insn.executed);
			uint64_t f;
			CHECK(tk_index_find_line(idx, ev.line, &f) == 0 && f == ninsn);
			ninsn++;
		} else if (ev.kind == TK_EV_REG && ev.u.reg.view.reg != TK_REG_NONE && n < 4096) {
			expect *x = &e[n++];
			x->mem = false;
			x->view = ev.u.reg.view;
			x->n = ev.u.reg.view.len;
			memcpy(x->v, ev.u.reg.value, x->n);
			memcpy(x->st, ev.u.reg.state, x->n);
		} else if (ev.kind == TK_EV_MEM && !ev.u.mem.aborted && ev.u.mem.size <= 256 &&
			   n < 4096) {
			expect *x = &e[n++];
			x->mem = true;
			x->addr = ev.u.mem.addr;
			x->n = ev.u.mem.size;
			x->write = ev.u.mem.write;
			memcpy(x->v, ev.u.mem.bytes, x->n);
			memcpy(x->st, ev.u.mem.state, x->n);
		}
	}
	if (ninsn)
		verify_group(idx, ninsn - 1, e, n, name);
	CHECK_EQ(ninsn, tk_index_count(idx));
	tk_source_free(src);
	tk_index_free(idx);
}

/* ---- a synthetic source: lines beyond 2^32, offsets beyond 4 GB ---- */

typedef struct synth {
	tk_source base;
	uint64_t i, n;
	uint8_t val[8], st[8];
} synth;

#define SYN_LINE(i) (5000000000ull + 3 * (i))
#define SYN_OFF(i) (60000000000ull + 1000 * (i))

static int synth_next(tk_source *s, tk_event *ev)
{
	synth *y = (synth *)s;
	if (y->i >= 2 * y->n)
		return 0;
	uint64_t k = y->i / 2;
	memset(ev, 0, sizeof *ev);
	ev->time = 7000000000000ull + 10 * k;
	if (y->i % 2 == 0) {
		ev->kind = TK_EV_INSN;
		ev->line = SYN_LINE(k);
		ev->offset = SYN_OFF(k);
		ev->u.insn.pc = 0xffff000000001000ull + 4 * (k % 1000);
		ev->u.insn.isa = TK_ISA_A64;
		ev->u.insn.width = 4;
		ev->u.insn.executed = true;
	} else {
		/* x(k % 31) = k; a store of k to a high address */
		ev->line = SYN_LINE(k) + 1;
		ev->offset = SYN_OFF(k) + 500;
		if (k % 2) {
			ev->kind = TK_EV_REG;
			ev->u.reg.view = (tk_reg_view){TK_REG_X0 + k % 31, 0, 8};
			ev->u.reg.value = y->val;
			ev->u.reg.state = y->st;
		} else {
			ev->kind = TK_EV_MEM;
			ev->u.mem.addr = 0xfffffffffffffe00ull + 8 * (k % 64);
			ev->u.mem.size = 8;
			ev->u.mem.write = true;
			ev->u.mem.bytes = y->val;
			ev->u.mem.state = y->st;
		}
		for (int b = 0; b < 8; b++) {
			y->val[b] = (uint8_t)(k >> (8 * b));
			y->st[b] = TK_BYTE_SET;
		}
	}
	y->i++;
	y->base.pos = ev->offset;
	return 1;
}

static void synth_free(tk_source *s)
{
	(void)s;
}

static void test_synthetic(void)
{
	static const tk_source_ops ops = {.next = synth_next, .free = synth_free, .seek = NULL};
	synth *y = calloc(1, sizeof *y);
	tk_source_init(&y->base, &ops, NULL, "synthetic", NULL);
	y->base.info.caps = TK_CAP_INSNS | TK_CAP_MEM | TK_CAP_MEM_VALUES;
	y->n = 3 * 512 + 77;	/* several blocks */
	char ipath[1024];
	snprintf(ipath, sizeof ipath, "%s/synthetic.index", workdir);
	CHECK(tk_index_build(&y->base, ipath, NULL) == 0);
	tk_source_free(&y->base);
	tk_index *idx;
	CHECK(tk_index_load(ipath, &idx) == 0);
	uint64_t n = 3 * 512 + 77;
	CHECK_EQ(tk_index_count(idx), n);
	for (uint64_t k = 0; k < n; k++) {
		tk_index_pos p;
		uint64_t pos;
		CHECK(tk_index_get_pos(idx, k, &p) == 0);
		CHECK_EQ(p.line, SYN_LINE(k));
		CHECK_EQ(p.offset, SYN_OFF(k));
		CHECK_EQ(p.time, 7000000000000ull + 10 * k);
		CHECK_EQ(p.pc, 0xffff000000001000ull + 4 * (k % 1000));
		CHECK(tk_index_find_line(idx, SYN_LINE(k) + 1, &pos) == 0 && pos == k);
		CHECK(tk_index_find_offset(idx, SYN_OFF(k) + 999, &pos) == 0 && pos == k);
		CHECK(tk_index_find_time(idx, 7000000000000ull + 10 * k - 5, &pos) == 0 && pos == k);
	}
	uint64_t q;
	CHECK(tk_index_find_pc(idx, 5, 0xffff000000001000ull + 4 * 5, true, &q) == 0 && q == 1005);
	tk_reg_view x3 = {TK_REG_X0 + 3, 0, 8};
	uint8_t v[8], k8[8];
	/* x3 is written at k = 3, 65, 127...: at position 1000, k = 995 */
	CHECK(tk_index_reg(idx, 1000, x3, v, k8) == 0 && k8[0] && v[0] == (995 & 0xff) && v[1] == 995 >> 8);
	CHECK(tk_index_reg_prev_write(idx, 1000, x3, &q) == 0 && q == 995);
	CHECK(tk_index_reg_next_write(idx, 1000, x3, &q) == 0 && q == 1057);
	/* the top of the address space: 0xfffffffffffffe00 + 8 * (k % 64) */
	uint64_t a = 0xfffffffffffffe00ull + 8 * 10;
	CHECK(tk_index_mem(idx, 1000, a, 8, v, k8) == 0 && k8[7] && v[0] == (970 & 0xff));
	CHECK(tk_index_mem_prev_write(idx, 1000, a, 8, &q) == 0 && q == 970);
	/* a range ending exactly at 2^64; k % 64 == 62 is a store, 63 is not */
	uint8_t v16[17], k16[17];
	CHECK(tk_index_mem(idx, 1000, 0xfffffffffffffff0ull, 16, v16, k16) == 0 && k16[0] &&
	      !k16[8] && v16[0] == (958 & 0xff));
	CHECK(tk_index_mem(idx, 1000, 0xfffffffffffffff0ull, 17, v16, k16) == TK_ERR_INVAL);
	CHECK(tk_index_mem_prev_write(idx, 1000, 0xfffffffffffffff0ull, 16, &q) == 0 && q == 958);
	tk_index_free(idx);
}

/* ---- the trace changes while, or after, it is indexed ---- */

/* A Tarmac source that, when it reaches the end of the file, appends one
 * more instruction to it (a simulator still writing the trace) and then
 * reports the end: the index holds the contents read, not the new ones. */
typedef struct growing {
	tk_source base;
	tk_source *inner;
	bool appended;
} growing;

static int growing_next(tk_source *s, tk_event *ev)
{
	growing *g = (growing *)s;
	int r = tk_source_next(g->inner, ev);
	if (r == 0 && !g->appended) {
		FILE *fp = fopen(tk_source_path(s), "a");
		CHECK(fp != NULL);
		if (fp) {
			fputs("12 clk IT (12) 0000102c d503201f O EL3h_s : NOP\n", fp);
			fclose(fp);
		}
		g->appended = true;
	}
	return r;
}

static void growing_free(tk_source *s)
{
	tk_source_free(((growing *)s)->inner);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	CHECK(in && out);
	char buf[4096];
	size_t n;
	while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static int open_auto(const char *trace, const char *ipath, tk_index **idx)
{
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = ipath;
	return tk_index_open(trace, &o, idx);
}

static void test_stale(void)
{
	char src[1024], trace[1024], ipath[1024];
	snprintf(src, sizeof src, "%s/regs-a64.tarmac", testdir);
	snprintf(trace, sizeof trace, "%s/stale.tarmac", workdir);
	snprintf(ipath, sizeof ipath, "%s/stale.tarmac.index", workdir);
	tk_index *idx;
	uint64_t q;

	/* 1. Lines appended after the reader met the end of the trace, but
	 * before the index was finished: the index (11 instructions) must not
	 * be taken for an index of the longer trace (12). */
	copy_file(src, trace);
	growing *g = calloc(1, sizeof *g);
	static const tk_source_ops ops = {.next = growing_next, .free = growing_free, .seek = NULL};
	CHECK(tk_tarmac_open(trace, NULL, &g->inner) == 0);
	tk_source_init(&g->base, &ops, tk_source_format_find("tarmac"), trace, NULL);
	g->base.info = g->inner->info;
	CHECK(tk_index_build(&g->base, ipath, NULL) == 0);
	tk_source_free(&g->base);
	CHECK(tk_index_load(ipath, &idx) == 0);
	CHECK_EQ(tk_index_count(idx), 11);
	tk_index_free(idx);
	CHECK_EQ(open_auto(trace, ipath, &idx), TK_INDEX_BUILT);
	CHECK_EQ(tk_index_count(idx), 12);
	CHECK(tk_index_find_pc(idx, TK_POS_NONE, 0x102c, true, &q) == 0 && q == 11);
	tk_index_free(idx);
	CHECK_EQ(open_auto(trace, ipath, &idx), TK_INDEX_REUSED);
	tk_index_free(idx);

	/* 2. The trace replaced by another of the same size, its modification
	 * time put back: x1 = 0x1234 becomes 0x1235 at position 5. */
	copy_file(src, trace);
	CHECK_EQ(open_auto(trace, ipath, &idx), TK_INDEX_BUILT);
	tk_reg_view x1 = {TK_REG_X0 + 1, 0, 8};
	uint8_t v[8], k[8];
	CHECK(tk_index_reg(idx, 5, x1, v, k) == 0 && k[0] && v[0] == 0x34);
	tk_index_free(idx);
	struct stat st;
	CHECK(stat(trace, &st) == 0);
	char other[1024];
	snprintf(other, sizeof other, "%s/stale.tarmac.new", workdir);
	FILE *in = fopen(src, "rb"), *out = fopen(other, "wb");
	CHECK(in && out);
	char line[256];
	while (in && out && fgets(line, sizeof line, in)) {
		char *x = strstr(line, "R X1 0000000000001234");
		if (x)
			x[20] = '5';
		fputs(line, out);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	CHECK(rename(other, trace) == 0);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	CHECK(utimensat(AT_FDCWD, trace, times, 0) == 0);
	struct stat st2;
	CHECK(stat(trace, &st2) == 0 && st2.st_size == st.st_size &&
	      st2.st_mtim.tv_sec == st.st_mtim.tv_sec && st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec);
	CHECK_EQ(open_auto(trace, ipath, &idx), TK_INDEX_BUILT);
	CHECK(tk_index_reg(idx, 5, x1, v, k) == 0 && k[0] && v[0] == 0x35);
	tk_index_free(idx);
	CHECK_EQ(open_auto(trace, ipath, &idx), TK_INDEX_REUSED);
	tk_index_free(idx);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: test_index CASE TESTDIR TRACESDIR WORKDIR\n");
		return 2;
	}
	testdir = argv[2];
	tracesdir = argv[3];
	workdir = argv[4];
	const char *c = argv[1];
	if (!strcmp(c, "regs"))
		test_regs_a64(), test_regs_a32();
	else if (!strcmp(c, "mem"))
		test_mem_le(), test_mem_be();
	else if (!strcmp(c, "semihost"))
		test_semihost();
	else if (!strcmp(c, "indextest"))
		test_indextest();
	else if (!strcmp(c, "quicksort"))
		test_quicksort();
	else if (!strcmp(c, "consistency"))
		test_consistency("calculator-aarch64-fastmodel.tarmac"),
		test_consistency("calculator-aarch32-fastmodel.tarmac"),
		test_consistency("calculator-aarch64-es-ld-st-style.tarmac"),
		test_consistency("quicksort.tarmac");
	else if (!strcmp(c, "consistency-big"))	/* TRACESDIR/big.tarmac, read on two threads */
		test_consistency("big.tarmac");
	else if (!strcmp(c, "synthetic"))
		test_synthetic();
	else if (!strcmp(c, "stale"))
		test_stale();
	else {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	return check_report(c);
}
