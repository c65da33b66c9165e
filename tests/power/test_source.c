/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The "qtrace" and "htm" trace sources on the public POWER10 dumps and on
 * files of a recorded program: detection by content, the events of known
 * records, positions (record number, byte offset, time) and seeking.
 *
 *   test_power_source DUMPS_DIR [FILE...]   (FILE: .qt or .htm files) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/source.h"

typedef struct rec {
	tk_event_kind kind;
	uint64_t line, offset, time, pc, addr;
	uint8_t width;
	tk_branch branch;
	uint32_t word;		/* the first word of an instruction */
} rec;

static unsigned ndiag;
static void on_diag(void *ctx, const tk_diag *d)
{
	(void)ctx;
	ndiag++;
	fprintf(stderr, "diag: %s: %s\n", d->file ? d->file : "?", d->msg);
}

/* Every event of path; *fmt receives the detected format's name. */
static rec *read_all(const char *path, size_t *n, const char **fmt)
{
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.diag = on_diag;
	tk_source *src;
	int rc = tk_source_open(path, &spec, &src);
	CHECKF(rc == 0, "%s: %s", path, tk_strerror(rc));
	if (rc < 0)
		return NULL;
	tk_source_info info = {.size = sizeof info};
	tk_source_get_info(src, &info);
	*fmt = !strcmp(info.format, "qtrace") ? "qtrace" : !strcmp(info.format, "htm") ? "htm" : "?";
	CHECK(info.isa == TK_ISA_PPC64 && info.time_unit == TK_TIME_INSNS);
	CHECK((info.caps & TK_CAP_MEM) && !(info.caps & TK_CAP_MEM_VALUES) && (info.caps & TK_CAP_CALLS));
	size_t cap = 1024;
	rec *r = malloc(cap * sizeof *r);
	*n = 0;
	tk_event ev;
	while ((rc = tk_source_next(src, &ev)) > 0) {
		if (*n == cap)
			r = realloc(r, (cap *= 2) * sizeof *r);
		rec x = {ev.kind, ev.line, ev.offset, ev.time, 0, 0, 0, TK_BR_UNKNOWN, 0};
		if (ev.kind == TK_EV_INSN) {
			x.pc = ev.u.insn.pc;
			x.width = ev.u.insn.width;
			x.branch = ev.u.insn.branch;
			x.word = (uint32_t)(tk_insn_encoding(&ev.u.insn) >> (ev.u.insn.width == 8 ? 32 : 0));
			CHECK(ev.u.insn.isa == TK_ISA_PPC64 && ev.u.insn.nbytes == ev.u.insn.width);
		} else if (ev.kind == TK_EV_MEM) {
			x.addr = ev.u.mem.addr;
			for (uint32_t i = 0; i < ev.u.mem.size; i++)
				CHECK(ev.u.mem.state[i] == TK_BYTE_UNKNOWN);
		}
		r[(*n)++] = x;
	}
	CHECKF(rc == 0, "%s: %s", path, tk_strerror(rc));
	tk_source_free(src);
	return r;
}

static size_t count(const rec *r, size_t n, tk_event_kind k)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += r[i].kind == k;
	return c;
}

static void dump_case(const char *dir, const char *name, size_t insns, size_t mems,
		      uint64_t first_pc, uint8_t width, uint32_t word, uint64_t data_ea)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	size_t n;
	const char *fmt;
	rec *r = read_all(path, &n, &fmt);
	if (!r)
		return;
	CHECK_STR(fmt, "htm");
	CHECKF(count(r, n, TK_EV_INSN) == insns, "%s: %zu instructions", name, count(r, n, TK_EV_INSN));
	CHECKF(count(r, n, TK_EV_MEM) == mems, "%s: %zu accesses", name, count(r, n, TK_EV_MEM));
	CHECK(n > 0 && r[0].kind == TK_EV_INSN && r[0].pc == first_pc && r[0].width == width);
	CHECK(r[0].line == 1 && r[0].time == 1 && r[0].word == word);
	for (size_t i = 0; i < n; i++) {
		CHECK(r[i].kind != TK_EV_INSN || r[i].branch == TK_BR_NONE);
		CHECK(r[i].kind != TK_EV_MEM || r[i].addr == data_ea);
	}
	free(r);
}

/* Seek to a few positions, forwards and backwards: the same events. */
static void seek_case(const char *path, const rec *r, size_t n)
{
	tk_source *src;
	if (tk_source_open(path, NULL, &src) < 0)
		return;
	size_t picks[] = {n - 1, n / 2, 1, n / 3, n - 1, 0};
	for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
		size_t i = picks[k];
		while (i > 0 && r[i].kind != TK_EV_INSN)
			i--;
		tk_seek_point at = {r[i].offset, r[i].line, r[i].time - 1, 0};
		int rc = tk_source_seek(src, &at);
		CHECKF(rc == 0, "%s: seek to record %" PRIu64 ": %s", path, r[i].line, tk_strerror(rc));
		tk_event ev;
		CHECK(tk_source_next(src, &ev) == 1);
		CHECKF(ev.kind == TK_EV_INSN && ev.line == r[i].line && ev.u.insn.pc == r[i].pc &&
		       ev.time == r[i].time && ev.offset == r[i].offset,
		       "%s: after a seek to record %" PRIu64 ": record %" PRIu64, path, r[i].line, ev.line);
	}
	tk_seek_point beyond = {1ull << 40, 1, 0, 0};
	CHECK(tk_source_seek(src, &beyond) == TK_ERR_INVAL);
	tk_source_free(src);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_power_source DUMPS_DIR [FILE...]\n");
		return 2;
	}
	/* The public dumps (contents in the POWER spec's table of tests). */
	/* 01: block c000000000ea0780, EA bits 0x54: cmpw */
	dump_case(argv[1], "01.htm", 1, 0, 0xc000000000ea07d4ull, 4, 0x7f843800, 0);
	/* 02: ld r31,48(r13) with data EA c000007ffffef2b0 */
	dump_case(argv[1], "02.htm", 1, 1, 0xc000000000ea2e4cull, 4, 0xebed0030,
		  0xc000007ffffef2b0ull);
	/* 04: 49 branches to ea + 4 from 0x10000670: no call, no jump */
	dump_case(argv[1], "04.htm", 49, 0, 0x10000670, 4, 0x40e20004, 0);
	/* 08: one prefixed pnop (two records, one instruction); 09: then mr at +8 */
	dump_case(argv[1], "08.htm", 1, 0, 0x13c2507dcull, 8, 0x07000000, 0);
	dump_case(argv[1], "09.htm", 2, 0, 0x12fd507dcull, 8, 0x07000000, 0);
	CHECK(ndiag == 0);
	for (int a = 2; a < argc; a++) {
		size_t n;
		const char *fmt;
		rec *r = read_all(argv[a], &n, &fmt);
		if (!r)
			continue;
		CHECK_STR(fmt, strstr(argv[a], ".htm") ? "htm" : "qtrace");
		CHECK(n > 100);
		uint64_t t = 0, line = 0, calls = 0, rets = 0;
		for (size_t i = 0; i < n; i++) {
			if (r[i].kind != TK_EV_INSN)
				continue;
			CHECK(r[i].time == ++t && r[i].line > line);
			line = r[i].line;
			calls += r[i].branch == TK_BR_CALL;
			rets += r[i].branch == TK_BR_RETURN;
		}
		CHECKF(calls > 400 && calls == rets, "%s: %" PRIu64 " calls, %" PRIu64 " returns",
		       argv[a], calls, rets);
		seek_case(argv[a], r, n);
		free(r);
	}
	return check_report("test_power_source");
}
