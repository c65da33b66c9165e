/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the HTM decoder and encoders:
 *  - the 11 public POWER10 dumps give the records of the format
 *    description's table, and Qtrace files of the sizes it gives;
 *  - stamps, invalid sequences, the EOF rule, ESID/VSID pairs;
 *  - POWER8 records: optional words, missing-word push-back, the software
 *    TLB, ESID mode, bad IRA/DRA words, the branch demunge;
 *  - every dump cut at every byte, and random words;
 *  - gzip, zstd and xz dumps;
 *  - the encoders: every branch form at many addresses decodes back.
 *
 *   test_htm DUMP_DIR */
#include <endian.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/htm.h"
#include "tracekit/ppc.h"

static const char *dump_dir;

typedef struct buf {
	char *data;
	size_t len;
} buf;

static buf read_file(const char *path)
{
	buf b = {NULL, 0};
	FILE *fp = fopen(path, "rb");
	CHECKF(fp != NULL, "cannot open %s", path);
	if (!fp)
		return b;
	fseek(fp, 0, SEEK_END);
	b.len = (size_t)ftell(fp);
	rewind(fp);
	b.data = malloc(b.len ? b.len : 1);
	CHECK(fread(b.data, 1, b.len, fp) == b.len);
	fclose(fp);
	return b;
}

static buf dump(int n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%02d.htm", dump_dir, n);
	return read_file(path);
}

/* ---- decoding helpers ------------------------------------------------------------ */

#define MAX_RECS 4096
typedef struct decoded {
	tk_qt_record rec[MAX_RECS];
	size_t n;
	int rc;
	unsigned warnings, invalid, stamps;
	uint64_t last_invalid_off, last_invalid_word;
	char err[320];
} decoded;

static void on_diag(void *ctx, const tk_diag *d)
{
	decoded *x = ctx;
	x->warnings++;
	CHECKF(d->file != NULL, "%s", d->msg);
}

static void on_invalid(void *ctx, const tk_htm_invalid *inv)
{
	decoded *x = ctx;
	x->invalid++;
	x->last_invalid_off = inv->offset;
	x->last_invalid_word = inv->word;
}

static void on_stamp(void *ctx, const tk_htm_stamp *s)
{
	(void)s;
	((decoded *)ctx)->stamps++;
}

static void decode(const void *data, size_t len, decoded *x)
{
	memset(x, 0, sizeof *x);
	tk_htm_opts o;
	tk_htm_opts_init(&o);
	o.diag = on_diag;
	o.diag_ctx = x;
	o.on_invalid = on_invalid;
	o.on_stamp = on_stamp;
	o.ctx = x;
	tk_htm *d;
	CHECK(tk_htm_open_mem(data, len, "mem.htm", &o, &d) == 0);
	tk_qt_record r;
	while ((x->rc = tk_htm_next(d, &r)) > 0)
		if (x->n < MAX_RECS)
			x->rec[x->n++] = r;
	snprintf(x->err, sizeof x->err, "%s", tk_htm_error(d));
	tk_htm_free(d);
}

static size_t qt_size(const decoded *x)
{
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	tk_qt_writer *w;
	CHECK(tk_qt_writer_new(fp, 0, &w) == 0);
	for (size_t i = 0; i < x->n; i++)
		tk_qt_writer_add(w, &x->rec[i]);
	tk_qt_writer_finish(w);
	tk_qt_writer_free(w);
	fclose(fp);
	free(data);
	return len;
}

/* ---- the 11 public dumps ------------------------------------------------------------- */

struct want {
	int dump;
	uint64_t ea;
	uint32_t insn;
	uint64_t ra;
	int shift;		/* 0: no RA */
	uint64_t dea, dra;
	int dshift;		/* 0: no data RA; dea 0: no data EA */
};

/* The records the format description lists for the test dumps. */
static const struct want wants[] = {
	{1, 0xc000000000ea07d4ull, 0x7f843800, 0x0000000000ea07d4ull, 30, 0, 0, 0},
	{2, 0xc000000000ea2e4cull, 0xebed0030, 0x0000000000ea2e4cull, 30, 0xc000007ffffef2b0ull, 0x0000007ffffef2b0ull, 30},
	{3, 0xc000000000ea080cull, 0x4bffffe4, 0x0000000000ea080cull, 30, 0, 0, 0},
	{3, 0xc000000000ea07f0ull, 0x39290001, 0x0000000000ea07f0ull, 30, 0, 0, 0},
	{5, 0xc00000000000da08ull, 0x4c0000a4, 0x000000000000da08ull, 16, 0, 0, 0},
	{6, 0xc000000000010900ull, 0x4c000024, 0x0000000000010900ull, 30, 0, 0, 0},
	{7, 0x000000012cef099cull, 0xe9290000, 0x0000000cc4cf499cull, 12, 0x00003fffbd176ffeull, 0x0000000cc1287ffeull, 12},
	{8, 0x000000013c2507dcull, 0x07000000, 0x00000002f5f207dcull, 16, 0, 0, 0},
	{8, 0x000000013c2507e0ull, 0x00000000, 0, 0, 0, 0, 0},
	{9, 0x000000012fd507dcull, 0x07000000, 0x00000001432c07dcull, 16, 0, 0, 0},
	{9, 0x000000012fd507e0ull, 0x00000000, 0, 0, 0, 0, 0},
	{9, 0x000000012fd507e4ull, 0x7c631b78, 0x00000001432c07e4ull, 16, 0, 0, 0},
	{10, 0xc000000000ed8db4ull, 0x7c3f4840, 0, 0, 0, 0, 0},
	{11, 0xc0000000000815f8ull, 0x7cc01b24, 0, 0, 0, 0, 0},
};

static void check_record(const tk_qt_record *r, const struct want *w)
{
	CHECKF(r->ea == w->ea, "dump %02d: ea %016" PRIx64, w->dump, r->ea);
	CHECKF(r->insn == w->insn, "dump %02d: insn %08x, expected %08x", w->dump, r->insn, w->insn);
	CHECKF(!!(r->valid & TK_QT_RA) == !!w->shift, "dump %02d %016" PRIx64 ": RA validity", w->dump, w->ea);
	if (w->shift) {
		CHECKF(r->ra == w->ra, "dump %02d: ra %016" PRIx64, w->dump, r->ra);
		CHECKF(r->page_shift == w->shift, "dump %02d: page shift %d", w->dump, r->page_shift);
	}
	CHECKF(!!(r->valid & TK_QT_DATA_EA) == !!w->dea, "dump %02d: data EA validity", w->dump);
	CHECKF(!!(r->valid & TK_QT_DATA_RA) == !!w->dshift, "dump %02d: data RA validity", w->dump);
	if (w->dea)
		CHECK_EQ(r->data_ea, w->dea);
	if (w->dshift) {
		CHECK_EQ(r->data_ra, w->dra);
		CHECK_EQ(r->data_page_shift, w->dshift);
	}
}

static void test_public_dumps(void)
{
	static const size_t qt_sizes[12] = {0, 35, 48, 59, 494, 38, 38, 48, 43, 51, 30, 30};
	static decoded x;
	for (int n = 1; n <= 11; n++) {
		buf b = dump(n);
		decode(b.data, b.len, &x);
		CHECKF(x.rc == 0, "dump %02d: %d %s", n, x.rc, x.err);
		CHECKF(x.warnings == 0 && x.invalid == 0, "dump %02d: %u warnings, %u invalid", n,
		       x.warnings, x.invalid);
		size_t k = 0;
		for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++)
			if (wants[i].dump == n) {
				CHECKF(k < x.n, "dump %02d: record %zu missing", n, k);
				if (k < x.n)
					check_record(&x.rec[k], &wants[i]);
				k++;
			}
		if (n == 4) {
			/* 49 records from 0x10000670 to 0x10000730, RA block
			 * 0xbdb710000, 64K pages, no data */
			CHECK_EQ(x.n, 49);
			for (size_t i = 0; i < x.n; i++) {
				CHECK_EQ(x.rec[i].ea, 0x10000670u + 4 * i);
				CHECK_EQ(x.rec[i].ra, 0xbdb710000ull | (0x0670u + 4 * i));
				CHECK_EQ(x.rec[i].page_shift, 16);
				CHECK(!(x.rec[i].valid & TK_QT_DATA_EA));
			}
			CHECK_EQ(x.rec[0].insn, 0x40e20004);	/* bne+ */
			CHECK_EQ(x.rec[22].insn, 0x4de20020);	/* beqlr+ */
			CHECK_EQ(x.rec[34].insn, 0x4e800420);	/* bctr */
			CHECK_EQ(x.rec[48].insn, 0x4c820460);	/* bnetar */
			CHECK((x.rec[0].valid & (TK_QT_BRANCH | TK_QT_CONDITIONAL)) ==
			      (TK_QT_BRANCH | TK_QT_CONDITIONAL));
			CHECK((x.rec[34].valid & (TK_QT_BRANCH | TK_QT_CONDITIONAL)) == TK_QT_BRANCH);
		} else {
			CHECKF(x.n == k, "dump %02d: %zu records, %zu expected", n, x.n, k);
		}
		CHECKF(qt_size(&x) == qt_sizes[n], "dump %02d: Qtrace file of %zu bytes, %zu expected",
		       n, qt_size(&x), qt_sizes[n]);
		CHECKF(tk_htm_probe(b.data, b.len) >= 60, "dump %02d: probe", n);
		free(b.data);
	}
	/* dump 05's rfscv and 03's b are branches; 01 has no MSR word */
	buf b = dump(5);
	decode(b.data, b.len, &x);
	CHECK(x.n == 1 && (x.rec[0].valid & TK_QT_BRANCH));
	free(b.data);
}

/* ---- hand-made dumps ------------------------------------------------------------------ */

typedef struct words {
	uint64_t w[1024];
	size_t n;
} words;

static void add(words *ws, uint64_t w) { ws->w[ws->n++] = htobe64(w); }

#define P10(type) ((uint64_t)(type) << 28 | 0xABCDFull << 8)
#define INST(img, off, flags) ((uint64_t)(img) << 32 | (flags) | P10(2) | ((uint64_t)(off) & 0x7C))
#define MSR 0xf8c0000000000000ull
#define TIME(c) (0xACEFF80000000000ull | (c))

static void ieara(words *ws, uint64_t ea, uint64_t ra)
{
	add(ws, P10(3));
	add(ws, ea);
	add(ws, (ra >> 12) << 24);
}

static void xlate(words *ws, bool data, unsigned level)
{
	add(ws, (data ? 1ull << 63 : 0) | P10(1));
	add(ws, 0x1000000012340000ull);
	add(ws, 0x8000000000000000ull | (uint64_t)level << 57 | 0x0000000abc000000ull);
	add(ws, 0x0100000000000000ull);
}

static void test_p10_sequences(void)
{
	static decoded x;
	words ws = {.n = 0};
	/* stamps everywhere, a 2M page, a load with two data pairs, an
	 * IEARA-less instruction in the same block, a SYNC inside a sequence */
	add(&ws, 0);
	add(&ws, TIME(100));
	xlate(&ws, false, 2);
	add(&ws, 0xACEFF40000000000ull);	/* SYNC between records */
	ieara(&ws, 0x10000100, 0x200100000ull);
	xlate(&ws, true, 0);
	add(&ws, INST(0xe9230010, 0x08, 2));	/* ld, two data pairs */
	add(&ws, TIME(7));			/* a stamp inside the sequence */
	add(&ws, MSR);
	add(&ws, 0x7fff1238);
	add(&ws, 0xabcdull << 23);	/* DRA: RA 0xabcd000 */
	add(&ws, 0x7fff9990);
	add(&ws, 0x1111111111111111ull);
	add(&ws, INST(0x60000000, 0x0c, 0));
	add(&ws, MSR);
	/* ESID/VSID pair */
	add(&ws, INST(0x7cc01b24, 0x10, 3));
	add(&ws, MSR);
	add(&ws, 0x0000000010000000ull);
	add(&ws, 0x400aa229f547dc80ull);
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.rc, 0);
	CHECK_EQ(x.n, 3);
	CHECK_EQ(x.stamps, 3);
	CHECK_EQ(x.rec[0].ea, 0x10000108);
	CHECK_EQ(x.rec[0].ra, 0x200100108ull);
	CHECK_EQ(x.rec[0].page_shift, 21);
	CHECK_EQ(x.rec[0].data_ea, 0x7fff1238);
	CHECK_EQ(x.rec[0].data_ra, 0xabcd238);
	CHECK_EQ(x.rec[0].data_page_shift, 12);
	CHECK_EQ(x.rec[1].ea, 0x1000010c);
	CHECK_EQ(x.rec[2].ea, 0x10000110);
	CHECK(!(x.rec[2].valid & (TK_QT_DATA_EA | TK_QT_RA)));	/* ESID mode */
	CHECK_EQ(x.rec[0].offset, 8 * 14);

	/* invalid sequences: an IEARA followed by a word that is no INST */
	ws.n = 0;
	ieara(&ws, 0x2000, 0x2000);
	add(&ws, P10(0) | 0x1ull << 40);	/* tagged, type 0 */
	add(&ws, INST(0x38600000, 0, 0));
	add(&ws, MSR);
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.invalid, 1);
	CHECK_EQ(x.last_invalid_off, 24);
	CHECK_EQ(x.last_invalid_word, P10(0) | 0x1ull << 40);
	CHECK_EQ(x.n, 1);
	CHECK_EQ(x.rec[0].ea, 0);	/* the failed sequence's IEARA is not used */
	CHECK_EQ(x.rc, 0);

	/* more than 100 invalid sequences in a row: an error */
	ws.n = 0;
	for (int i = 0; i < 101; i++) {
		add(&ws, P10(3));
		add(&ws, 0);
		add(&ws, 0);
		add(&ws, 0x1234);
	}
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.rc, TK_ERR_CORRUPT);
	CHECKF(strstr(x.err, "mem.htm: offset ") && strstr(x.err, "giving up"), "%s", x.err);

	/* an XLATE without its end word within 38 words */
	ws.n = 0;
	add(&ws, P10(1));
	for (int i = 0; i < 40; i++)
		add(&ws, 0x1000000000000000ull);
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.invalid, 1);
	CHECK_EQ(x.n, 0);

	/* the MSR word missing at the end: the instruction is still there;
	 * a prefixed instruction cut before its PREFIX word is dropped */
	ws.n = 0;
	ieara(&ws, 0x3000, 0x3000);
	add(&ws, INST(0x38600000, 0, 0));
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.n, 1);
	CHECK_EQ(x.warnings, 0);
	add(&ws, MSR);
	add(&ws, INST(0x00000000, 4, 1ull << 30));
	add(&ws, MSR);
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.n, 1);
	CHECK_EQ(x.warnings, 1);
	/* an odd number of bytes at the end: a warning */
	ws.n = 0;
	ieara(&ws, 0x3000, 0x3000);
	add(&ws, INST(0x38600000, 0, 0));
	add(&ws, MSR);
	decode(ws.w, ws.n * 8 + 3, &x);
	CHECK_EQ(x.n, 1);
	CHECK_EQ(x.warnings, 1);
}

#define P8INFO(img, br, flags) ((uint64_t)(img) << 32 | (uint64_t)(br) << 31 | 0xABCDEull << 8 | 0x80 | (flags))
#define F_IEA 0x40
#define F_IRA 0x20
#define F_DEA 0x10
#define F_DRA 0x08
#define F_ESID 0x04
#define IRA64K(ra) (((ra) >> 16) << 30 | 2ull << 24)

static void test_p8(void)
{
	static decoded x;
	words ws = {.n = 0};
	/* 0: IEA + IRA (64K) + DEA + DRA (4K) */
	add(&ws, P8INFO(0xe9230010, 0, F_IEA | F_IRA | F_DEA | F_DRA));
	add(&ws, 0x10000100 | 3);
	add(&ws, IRA64K(0x5550000ull));
	add(&ws, 0x7fff1238);
	add(&ws, 0ull << 62 | (0x9999ull << 24));
	/* 1: sequential, no IEA: EA + 4, no RA */
	add(&ws, P8INFO(0x60000000, 0, 0));
	/* 2: IEA without IRA on the same page: RA from the TLB */
	add(&ws, P8INFO(0x38600000, 0, F_IEA));
	add(&ws, 0x10000200 | 3);
	/* 3: IEA with MSR[IR] = 0: RA = EA with the top bits cleared, 4K */
	add(&ws, P8INFO(0x38600001, 0, F_IEA));
	add(&ws, 0xc000000000000700ull | 2);
	/* 4: a branch (b from 0x1000 to 0x2000 in demunged form) with an IEA */
	add(&ws, P8INFO(0x00002002, 1, F_IEA));
	add(&ws, 0x1000 | 3);
	/* 5: the IEA word missing: the next INFO comes instead, is given back
	 * and decoded as a record of its own (6) */
	add(&ws, P8INFO(0x7c000000, 0, F_IEA | F_IRA));
	add(&ws, P8INFO(0x60000000, 0, 0));
	/* 7: ESID mode: no data EA */
	add(&ws, P8INFO(0x7cc01b24, 0, F_DEA | F_DRA | F_ESID));
	add(&ws, 0x0000000010000000ull);
	add(&ws, 0x400aa229f547dc80ull);
	/* 8: not valid: dropped */
	add(&ws, P8INFO(0x60000000, 0, 0) & ~0x80ull);
	/* 9: a DRA with page code 2 (invalid): data EA only, a warning */
	add(&ws, P8INFO(0xe9230000, 0, F_DEA | F_DRA));
	add(&ws, 0x5000);
	add(&ws, 2ull << 62);
	/* 10: an IRA word with nonzero low bits: treated as missing */
	add(&ws, P8INFO(0x38600002, 0, F_IEA | F_IRA));
	add(&ws, 0x20000000 | 3);
	add(&ws, IRA64K(0x20000000ull) | 1);
	decode(ws.w, ws.n * 8, &x);
	CHECK_EQ(x.rc, 0);
	CHECK_EQ(x.n, 10);
	CHECK_EQ(x.rec[0].ea, 0x10000100);
	CHECK_EQ(x.rec[0].ra, 0x5550100);
	CHECK_EQ(x.rec[0].page_shift, 16);
	CHECK_EQ(x.rec[0].data_ea, 0x7fff1238);
	CHECK_EQ(x.rec[0].data_ra, 0x9999238);
	CHECK_EQ(x.rec[0].data_page_shift, 12);
	CHECK_EQ(x.rec[1].ea, 0x10000104);
	CHECK(!(x.rec[1].valid & TK_QT_RA));
	CHECK_EQ(x.rec[2].ea, 0x10000200);
	CHECK_EQ(x.rec[2].ra, 0x5550200);
	CHECK_EQ(x.rec[3].ra, 0x700);
	CHECK_EQ(x.rec[3].page_shift, 12);
	CHECK_EQ(x.rec[4].ea, 0x1000);
	CHECK_EQ(x.rec[4].insn, 0x48001000u);
	CHECK(x.rec[4].valid & TK_QT_BRANCH);
	CHECK(!(x.rec[4].valid & TK_QT_CONDITIONAL));
	CHECK_EQ(x.rec[5].insn, 0x7c000000);
	CHECK_EQ(x.rec[5].ea, 0x1004);	/* its IEA was missing */
	CHECK_EQ(x.rec[6].insn, 0x60000000);
	CHECK_EQ(x.rec[7].insn, 0x7cc01b24);
	CHECK(!(x.rec[7].valid & TK_QT_DATA_EA));
	CHECK_EQ(x.rec[8].insn, 0xe9230000);
	CHECK(x.rec[8].valid & TK_QT_DATA_EA);
	CHECK(!(x.rec[8].valid & TK_QT_DATA_RA));
	CHECK_EQ(x.rec[9].ea, 0x20000000);
	CHECK(!(x.rec[9].valid & TK_QT_RA));
	CHECK_EQ(x.warnings, 2);
}

/* Each public dump cut at every byte: never a crash, the records before
 * the cut, warnings with offsets. */
static void test_cuts_and_random(void)
{
	static decoded full, x;
	for (int n = 1; n <= 11; n++) {
		buf b = dump(n);
		decode(b.data, b.len, &full);
		for (size_t cut = 0; cut <= b.len; cut++) {
			char *copy = malloc(cut ? cut : 1);
			memcpy(copy, b.data, cut);
			decode(copy, cut, &x);
			CHECK(x.rc == 0);
			CHECKF(x.n <= full.n, "dump %02d cut %zu", n, cut);
			for (size_t i = 0; i < x.n && i < full.n; i++)
				CHECKF(x.rec[i].ea == full.rec[i].ea && x.rec[i].insn == full.rec[i].insn,
				       "dump %02d cut %zu record %zu", n, cut, i);
			free(copy);
		}
		CHECK_EQ(x.n, full.n);
		free(b.data);
	}
	/* random words, some with the tags */
	uint64_t s = 88172645463325252ull;
	for (int iter = 0; iter < 2000; iter++) {
		size_t nw = (size_t)(iter % 64) + 1;
		uint64_t *w = malloc(nw * 8);
		for (size_t i = 0; i < nw; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			uint64_t v = s;
			switch (s % 5) {
			case 0: v = (v & ~(0xFFFFFull << 8)) | 0xABCDFull << 8; break;
			case 1: v = (v & ~(0xFFFFFull << 8)) | 0xABCDEull << 8; break;
			case 2: v = (v & 0xFFFFFFFFFFFull) | 0xACEFFull << 44; break;
			default: break;
			}
			w[i] = htobe64(v);
		}
		decode(w, nw * 8, &x);
		CHECK(x.rc == 0 || x.rc == TK_ERR_CORRUPT);
		CHECK(x.n <= 2 * nw);
		free(w);
	}
}

/* ---- compressed dumps ----------------------------------------------------------------- */

static void test_compressed(void)
{
	static decoded plain, x;
	buf b = dump(4);
	decode(b.data, b.len, &plain);
	unsigned char out[8192];

	z_stream z;
	memset(&z, 0, sizeof z);
	CHECK(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)b.data;
	z.avail_in = (uInt)b.len;
	z.next_out = out;
	z.avail_out = sizeof out;
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	size_t gzlen = sizeof out - z.avail_out;
	deflateEnd(&z);
	decode(out, gzlen, &x);
	CHECK_EQ(x.n, plain.n);
	CHECK(x.n && x.rec[x.n - 1].insn == plain.rec[plain.n - 1].insn);
	/* a gzip dump cut short gives the records before the cut */
	decode(out, gzlen / 2, &x);
	CHECK(x.n < plain.n);

	size_t zlen = ZSTD_compress(out, sizeof out, b.data, b.len, 3);
	CHECK(!ZSTD_isError(zlen));
	decode(out, zlen, &x);
	CHECK_EQ(x.n, plain.n);

	size_t xzlen = 0;
	CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)b.data, b.len, out,
				      &xzlen, sizeof out) == LZMA_OK);
	decode(out, xzlen, &x);
	CHECK_EQ(x.n, plain.n);
	CHECK(tk_htm_probe(out, xzlen) == 0);	/* probing needs decompressed bytes */
	free(b.data);
}

/* ---- the encoders --------------------------------------------------------------------- */

static uint32_t rnd32(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* Branches the POWER10 recoding cannot express: bclr/bcctr/bctar whose
 * BO has its last bit set but not the one before (the recoding drops the
 * last bit then), and absolute bc with BI >= 16 (the decoder moves that BI
 * bit into BO). */
static bool p10_unrecodable(uint32_t w)
{
	unsigned op = w >> 26, xo = (w >> 1) & 0x3FF, bo = (w >> 21) & 0x1F, bi = (w >> 16) & 0x1F;
	if (op == 19 && (xo == 16 || xo == 528 || xo == 560))
		return (bo & 3) == 1;
	return op == 16 && (w & 2) && bi >= 16;
}

/* Every branch form (b, bl, ba, bc with any BO/BI and hints, bclr, bcctr,
 * bctar, with link), sc, rfid, at EAs near 64K and 64M boundaries: each
 * encoding decodes back to the same EA and word. */
static void test_encoders(void)
{
	static decoded x;
	static const tk_htm_encoding encs[] = {TK_HTM_ENC_P10, TK_HTM_ENC_P8, TK_HTM_ENC_P8_FULL};
	uint64_t s = 0x123456789ull;
	for (size_t e = 0; e < 3; e++) {
		uint64_t eas[1000];
		uint32_t ws[1000];
		size_t n = 0, hard = 0;
		char *data = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&data, &len);
		tk_htm_encoder *enc;
		CHECK(tk_htm_encoder_new(fp, encs[e], &enc) == 0);
		for (int i = 0; i < 1000; i++) {
			uint32_t r = rnd32(&s);
			uint32_t w;
			switch (i % 8) {
			case 0: w = 0x48000000u | (r & 0x03FFFFFFu); break;	/* b/bl/ba/bla */
			case 1: w = 0x40000000u | (r & 0x03FFFFFFu); break;	/* bc forms */
			case 2: w = 0x4C000020u | (r & 0x03FF1801u); break;	/* bclr */
			case 3: w = 0x4C000420u | (r & 0x03FF1801u); break;	/* bcctr */
			case 4: w = 0x4C000460u | (r & 0x03FF1801u); break;	/* bctar */
			case 5: w = (r & 1) ? 0x44000002u : 0x4C000024u; break;
			default: w = 0x38000000u | (r & 0x03FFFFFFu); break;
			}
			/* near 64K and 64M boundaries, both ways */
			uint64_t base = (i & 1) ? 0x13fff000ull : 0x14000000ull;
			uint64_t ea = base + ((uint64_t)(r >> 8) & 0x1FFC) * ((i & 2) ? 1 : 0);
			if (i % 16 == 15)
				ea = 0xc000000003fffffcull;
			eas[n] = ea;
			ws[n] = w;
			n++;
			hard += encs[e] == TK_HTM_ENC_P10 && p10_unrecodable(w);
			CHECK(tk_htm_encoder_add(enc, ea, &w, 1, i % 3 == 0, 0x7fff0000u + 8u * (unsigned)i) == 0);
		}
		CHECK(tk_htm_encoder_finish(enc) == 0);
		tk_htm_enc_stats stc = *tk_htm_encoder_stats(enc);
		const tk_htm_enc_stats *st = &stc;
		CHECKF(st->unrecodable == hard, "encoding %zu: %" PRIu64 " branches not recoded, %zu expected",
		       e, st->unrecodable, hard);
		CHECK(hard < 200);
		tk_htm_encoder_free(enc);
		fclose(fp);
		decode(data, len, &x);
		CHECK_EQ(x.rc, 0);
		CHECKF(x.n == n, "encoding %zu: %zu records of %zu", e, x.n, n);
		for (size_t i = 0; i < x.n && i < n; i++) {
			CHECKF(x.rec[i].ea == eas[i] && x.rec[i].insn == ws[i],
			       "encoding %zu: %016" PRIx64 " %08x decoded as %016" PRIx64 " %08x", e, eas[i],
			       ws[i], x.rec[i].ea, x.rec[i].insn);
			CHECK_EQ(!!(x.rec[i].valid & TK_QT_DATA_EA), i % 3 == 0);
			if (i % 3 == 0)
				CHECK_EQ(x.rec[i].data_ea, 0x7fff0000u + 8u * (unsigned)i);
			if (x.rec[i].valid & TK_QT_RA)
				CHECK_EQ(x.rec[i].ra, tk_htm_enc_ra(eas[i]));
			if (e != 2 && tk_ppc_is_branch(ws[i]))
				CHECK(x.rec[i].valid & TK_QT_BRANCH || st->unrecodable);
		}
		/* every record of the full POWER8 form has its RA */
		if (encs[e] == TK_HTM_ENC_P8_FULL)
			for (size_t i = 0; i < x.n; i++)
				CHECK(x.rec[i].valid & TK_QT_RA);
		free(data);
	}
	/* a prefixed pair has no POWER8 form */
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	tk_htm_encoder *enc;
	CHECK(tk_htm_encoder_new(fp, TK_HTM_ENC_P8, &enc) == 0);
	uint32_t pair[2] = {0x07000000, 0};
	CHECK_EQ(tk_htm_encoder_add(enc, 0x1000, pair, 2, false, 0), TK_ERR_INVAL);
	tk_htm_encoder_free(enc);
	fclose(fp);
	free(data);
}

static void test_stamps(void)
{
	tk_htm_stamp st;
	char t[128];
	static const struct { uint64_t w; const char *text; } ok[] = {
		{0xACEFF01200000000ull, "REC  counter = 18"},
		{0xACEFF10000000123ull, "END  cycles = 291"},
		{0xACEFF20000000010ull, "PAUSEcycles = 16"},
		{0xACEFF3A000001801ull, "MARK group = 10, chip = 0, unit = 0, marker = 3, set = 1"},
		{0xACEFF40000000000ull, "SYNC "},
		{0xACEFF80000000040ull, "TIME cycles = 64"},
		{0xACEFF90000000000ull, "TIME markers dropped"},
		{0xACEFFA0500000000ull, "TIME record dropped counter overflow, counter= 80"},
		{0xACEFFB0000000000ull, "TIME elapsed time overflow"},
		{0xACEFF88000000000ull, "TIME CResp record dropped"},
		{0xACEFF84000000000ull, "TIME trigger dropped"},
		{0xACEFF82000000000ull, "TIME trace full asserted"},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECK_EQ(tk_htm_stamp_decode(ok[i].w, &st), 0);
		tk_htm_stamp_text(&st, t, sizeof t);
		CHECK_STR(t, ok[i].text);
	}
	CHECK_EQ(tk_htm_stamp_decode(0xACEFF50000000000ull, &st), TK_ERR_CORRUPT);
	CHECK_EQ(tk_htm_stamp_decode(0xACEFF30000000002ull, &st), TK_ERR_CORRUPT);	/* MARK reserved bits */
	CHECK_EQ(tk_htm_stamp_decode(0x1234, &st), TK_ERR_CORRUPT);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_htm DUMP_DIR\n");
		return 2;
	}
	dump_dir = argv[1];
	test_public_dumps();
	test_p10_sequences();
	test_p8();
	test_cuts_and_random();
	test_compressed();
	test_encoders();
	test_stamps();
	return check_report("test_htm");
}
