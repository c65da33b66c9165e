/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The index of a trace read in pieces is the index of the trace read in
 * order, byte for byte (but the build time in the header), whatever the
 * number of threads and wherever the trace is cut: automatic pieces, tiny
 * pieces, random cut points, a cut before every line (pieces of one line),
 * cuts just after every instruction (inside its group of register and
 * memory lines), cuts before every indented line (inside LD/ST diagrams
 * and their continuation lines, ES-style traces), cuts just before every
 * semihosting trap (whose inputs are then in the previous piece).  And
 * the report tools' reading in pieces (tk_calls_read) gives the call tree
 * of the detector fed in order.
 *
 * usage: test_pieces TRACE WORKDIR [FORMAT-OPTION...]   (e.g. bi, implicit-thumb)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/simd.h"
#include "index/index_build.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"
#include "tracekit/index.h"

static const char *trace, *work;
static tk_source_opt sopts[8];
static size_t nsopts;
static uint8_t *data;	/* the trace */
static size_t size;

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
	if (b && fread(b, 1, (size_t)len, fp) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(fp);
	*n = (size_t)len;
	return b;
}

/* Build the index: in order, or in pieces. */
static uint8_t *build(const char *name, bool order, unsigned threads, uint64_t piece_bytes,
		      const uint64_t *cuts, size_t ncuts, size_t *len)
{
	char ipath[4096];
	snprintf(ipath, sizeof ipath, "%s/%s.index", work, name);
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.opts = sopts;
	spec.nopts = nsopts;
	tk_index_opts o;
	tk_index_opts_init(&o);
	o.index_path = ipath;
	o.source = &spec;
	o.mode = TK_INDEX_FORCE;
	o.threads = threads;
	o.piece_bytes = piece_bytes;
	tk_idx_force_order = order;
	tk_idx_test_cuts = cuts;
	tk_idx_test_ncuts = ncuts;
	tk_index *idx = NULL;
	int rc = tk_index_open(trace, &o, &idx);
	tk_idx_force_order = false;
	tk_idx_test_cuts = NULL;
	tk_idx_test_ncuts = 0;
	CHECKF(rc == TK_INDEX_BUILT, "%s: %s", name, tk_strerror(rc));
	tk_index_free(idx);
	uint8_t *b = rc == TK_INDEX_BUILT ? slurp(ipath, len) : NULL;
	remove(ipath);
	/* The build time and the header's checksum differ from run to run. */
	if (b && *len >= 1024) {
		memset(b + 48, 0, 8);
		memset(b + 1016, 0, 8);
	}
	return b;
}

static const uint8_t *ref;
static size_t ref_len;

static void same(const char *name, unsigned threads, uint64_t piece_bytes, const uint64_t *cuts,
		 size_t ncuts, bool at_lines)
{
	char label[128];
	snprintf(label, sizeof label, "%s-t%u", name, threads);
	size_t len = 0;
	uint8_t *b = build(label, false, threads, piece_bytes, cuts, ncuts, &len);
	if (!b)
		return;
	size_t at = 0;
	while (at < len && at < ref_len && b[at] == ref[at])
		at++;
	CHECKF(len == ref_len && at == len, "%s, %zu cuts: differs from the index built in order "
	       "at byte %zu (sizes %zu, %zu)", label, ncuts, at, len, ref_len);
	/* The pieces were as asked (a cut at the first line adds none). */
	CHECKF(!at_lines || tk_idx_test_pieces + 1 >= ncuts, "%s: %u pieces for %zu cuts", label,
	       tk_idx_test_pieces, ncuts);
	if (getenv("TK_TEST_VERBOSE"))
		fprintf(stderr, "%s: %zu cuts, %u pieces, %u read again\n", label, ncuts,
			tk_idx_test_pieces, tk_idx_test_exact);
	free(b);
}

/* Offsets of the starts of lines for which keep(line, next line) holds,
 * the cut placed `after` lines later. */
static uint64_t *line_cuts(bool (*keep)(const uint8_t *s, const uint8_t *e), size_t *n)
{
	uint64_t *c = malloc(sizeof *c * (size + 1));
	*n = 0;
	for (size_t at = 0; c && at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t end = nl ? (size_t)(nl - data) : size;
		if (keep(data + at, data + end))
			c[(*n)++] = at;
		at = end + 1;
	}
	return c;
}

static bool every(const uint8_t *s, const uint8_t *e)
{
	return true;
}

static bool has_word(const uint8_t *s, const uint8_t *e, const char *w)
{
	size_t n = strlen(w);
	for (; s + n <= e; s++)
		if (!memcmp(s, w, n))
			return true;
	return false;
}

/* Lines right after an instruction line: the cut splits its group. */
static bool after_insn_flag;
static bool after_insn(const uint8_t *s, const uint8_t *e)
{
	bool keep = after_insn_flag;
	after_insn_flag = has_word(s, e, " IT ") || has_word(s, e, " IS ") || has_word(s, e, " ES ");
	return keep;
}

/* Indented lines: register and memory lines, LD/ST continuation lines. */
static bool indented(const uint8_t *s, const uint8_t *e)
{
	return s < e && (*s == ' ' || *s == '\t');
}

/* Semihosting traps (A64 HLT, A32 SVC 0x123456, T32 SVC 0xab). */
static bool trap(const uint8_t *s, const uint8_t *e)
{
	return has_word(s, e, "HLT") || has_word(s, e, "SVC") || has_word(s, e, "BKPT");
}

/* The detector over the trace: fed every event in order, or over the
 * summaries of pieces (tk_calls_read). */
static tk_calltree *calls_of(bool pieces, unsigned threads, uint64_t piece_bytes)
{
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.opts = sopts;
	spec.nopts = nsopts;
	tk_source *src;
	if (tk_source_open(trace, &spec, &src) < 0)
		return NULL;
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(src, &si);
	tk_calls_opts co;
	tk_calls_opts_init(&co);
	co.steps = tk_source_info_func_steps(&si) ? TK_STEPS_FUNCS : TK_STEPS_INSNS;
	tk_calls *c;
	tk_calltree *t = NULL;
	if (tk_calls_new(&co, &c) < 0) {
		tk_source_free(src);
		return NULL;
	}
	int rc = 0;
	if (pieces) {
		tk_calls_read_opts ro;
		tk_calls_read_opts_init(&ro);
		ro.threads = threads;
		ro.piece_bytes = piece_bytes;
		rc = tk_calls_read(c, src, &ro);
	} else {
		tk_event ev;
		while ((rc = tk_source_next(src, &ev)) > 0 && (rc = tk_calls_feed(c, &ev)) == 0)
			;
	}
	if (rc >= 0)
		rc = tk_calls_finish(c, &t);
	CHECKF(rc >= 0, "calls (%s, %u threads, %llu-byte pieces): %s",
	       pieces ? "pieces" : "in order", threads, (unsigned long long)piece_bytes,
	       tk_strerror(rc));
	tk_calls_free(c);
	tk_source_free(src);
	return t;
}

static void same_calls(const tk_calltree *want, unsigned threads, uint64_t piece_bytes)
{
	tk_calltree *t = calls_of(true, threads, piece_bytes);
	if (!t || !want)
		return;
	uint32_t at = 0;
	while (at < t->count && at < want->count &&
	       !memcmp(&t->calls[at], &want->calls[at], sizeof t->calls[at]))
		at++;
	CHECKF(t->count == want->count && at == t->count && t->nroots == want->nroots,
	       "calls in pieces (%u threads, %llu-byte pieces): differ at node %u of %u (%u)",
	       threads, (unsigned long long)piece_bytes, at, want->count, t->count);
	tk_calltree_free(t);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_pieces TRACE WORKDIR [OPTION...]\n");
		return 2;
	}
	trace = argv[1];
	work = argv[2];
	for (int i = 3; i < argc && nsopts < 8; i++)
		sopts[nsopts++] = (tk_source_opt){argv[i], ""};
	if (!(data = slurp(trace, &size))) {
		fprintf(stderr, "%s: cannot read\n", trace);
		return 1;
	}
	uint8_t *r = build("order", true, 1, 0, NULL, 0, &ref_len);
	if (!r)
		return check_report("pieces");
	ref = r;
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;

	/* the line scans without vector instructions */
	tk_simd_use(TK_SIMD_SCALAR);
	same("scalar", 2, 4096, NULL, 0, false);
	tk_simd_use(tk_simd_best());

	/* automatic pieces, and small ones */
	for (unsigned t = 1; t <= 4; t *= 2) {
		same("auto", t, 0, NULL, 0, false);
		same("4k", t, 4096, NULL, 0, false);
	}
	same("300b", 3, 300, NULL, 0, false);

	/* random cut points (a fixed seed per trace) */
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ size;
	for (int round = 0; round < 6; round++) {
		size_t n = 1 + (size_t)(seed % 97);
		uint64_t *c = malloc(sizeof *c * n);
		for (size_t i = 0; c && i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			c[i] = size ? (seed >> 11) % size : 0;
		}
		if (c)
			qsort(c, n, sizeof *c, cmp_u64);
		same("random", 1 + (unsigned)round % 4, 0, c, c ? n : 0, false);
		free(c);
	}

	/* the report tools' reading: the detector over piece summaries */
	tk_calltree *want = calls_of(false, 1, 0);
	for (unsigned t = 1; t <= 4; t *= 2) {
		same_calls(want, t, 0);
		same_calls(want, t, 4096);
		same_calls(want, t, 300);
	}
	tk_calltree_free(want);

	/* cuts at chosen lines */
	static const struct {
		const char *name;
		bool (*keep)(const uint8_t *, const uint8_t *);
	} kinds[] = {
		{"every-line", every},
		{"after-insn", after_insn},
		{"indented", indented},
		{"trap", trap},
	};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		size_t n;
		after_insn_flag = false;
		uint64_t *c = line_cuts(kinds[k].keep, &n);
		if (!c)
			continue;
		if (n && n <= 60000) {
			same(kinds[k].name, 2, 0, c, n, true);
			/* every other one, on one thread and on four */
			size_t m = 0;
			for (size_t i = 0; i < n; i += 2)
				c[m++] = c[i];
			same(kinds[k].name, 1, 0, c, m, true);
			same(kinds[k].name, 4, 0, c, m, true);
		}
		free(c);
	}
	free(r);
	free(data);
	char name[256];
	snprintf(name, sizeof name, "pieces %s", base);
	return check_report(name);
}
