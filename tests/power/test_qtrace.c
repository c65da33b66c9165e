/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the Qtrace writer's bytes (the worked examples of the format
 * description), the reader's corner cases (embedded headers, a zero
 * suffix, radix blocks of one and several walks, registers, the branch
 * fix-ups, bad flags), and damaged files cut at every byte or made of
 * random bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/qtrace.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct buf {
	char *data;
	size_t len;
} buf;

static buf write_records(const tk_qt_record *recs, size_t n, uint32_t magic)
{
	buf b = {NULL, 0};
	FILE *fp = open_memstream(&b.data, &b.len);
	tk_qt_writer *w;
	CHECK(tk_qt_writer_new(fp, magic, &w) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(tk_qt_writer_add(w, &recs[i]) == 0);
	CHECK(tk_qt_writer_finish(w) == 0);
	CHECK_EQ(tk_qt_writer_bytes(w), b.len);
	tk_qt_writer_free(w);
	fclose(fp);
	return b;
}

static size_t unhex(const char *hex, unsigned char *out)
{
	size_t n = 0;
	for (const char *p = hex; *p;) {
		if (*p == ' ' || *p == '\n' || *p == '|') {
			p++;
			continue;
		}
		unsigned v;
		sscanf(p, "%2x", &v);
		out[n++] = (unsigned char)v;
		p += 2;
	}
	return n;
}

static void check_bytes(const buf *b, const char *hex, const char *what)
{
	unsigned char want[512];
	size_t n = unhex(hex, want);
	CHECKF(b->len == n && !memcmp(b->data, want, n), "%s: %zu bytes written, %zu expected", what,
	       b->len, n);
}

static tk_qt_reader *open_buf(const void *data, size_t len)
{
	tk_qt_reader *r = NULL;
	int rc = tk_qt_reader_open_mem(data, len, "test.qt", NULL, &r);
	CHECKF(rc == 0, "open: %s (%s)", tk_strerror(rc), tk_qt_reader_last_error());
	return r;
}

static tk_qt_record rec(uint64_t ea, uint32_t insn)
{
	tk_qt_record r;
	memset(&r, 0, sizeof r);
	r.ea = ea;
	r.insn = insn;
	return r;
}

/* ---- the writer's bytes -------------------------------------------------------- */

static void test_writer_examples(void)
{
	/* b followed by addi (test 03 of the public dumps) */
	tk_qt_record r[2] = {rec(0xc000000000ea080cull, 0x4bffffe4), rec(0xc000000000ea07f0ull, 0x39290001)};
	r[0].valid = TK_QT_RA | TK_QT_PAGE_SHIFT | TK_QT_BRANCH;
	r[0].ra = 0xea080c;
	r[0].page_shift = 30;
	r[1].valid = TK_QT_RA | TK_QT_PAGE_SHIFT;
	r[1].ra = 0xea07f0;
	r[1].page_shift = 30;
	buf b = write_records(r, 2, 0);
	check_bytes(&b,
		    "00000000 0001 0002 6840 07010000 c000000000ea080c 00000000 1e"
		    "4bffffe4 e051 0200 00 00 08 c000000000ea07f0 00000000 1e"
		    "39290001 0001 0000", "test 03");
	/* read back */
	tk_qt_reader *rd = open_buf(b.data, b.len);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0xc000000000ea080cull);
	CHECK_EQ(x.insn, 0x4bffffe4);
	CHECK_EQ(x.ra, 0xea080c);
	CHECK_EQ(x.page_shift, 30);
	CHECK(x.valid & TK_QT_BRANCH_TAKEN);
	CHECK(!(x.valid & TK_QT_CONDITIONAL));
	CHECK_EQ(x.term_code, 0x08);
	CHECK_EQ(x.next_ea, 0xc000000000ea07f0ull);
	CHECK_EQ(x.offset, 27);
	CHECK_EQ(x.number, 1);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0xc000000000ea07f0ull);
	CHECK_EQ(x.ra, 0xea07f0);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	CHECK_EQ(tk_qt_reader_next_ea(rd), 0xc000000000ea07f4ull);
	tk_qt_reader_free(rd);
	free(b.data);

	/* ld with a data access (test 02) */
	tk_qt_record l = rec(0xc000000000ea2e4cull, 0xebed0030);
	l.valid = TK_QT_RA | TK_QT_PAGE_SHIFT | TK_QT_DATA_EA | TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT;
	l.ra = 0xea2e4c;
	l.page_shift = 30;
	l.data_ea = 0xc000007ffffef2b0ull;
	l.data_ra = 0x7ffffef2b0ull;
	l.data_page_shift = 30;
	b = write_records(&l, 1, 0);
	check_bytes(&b,
		    "00000000 0001 0002 6840 07010000 c000000000ea2e4c 00000000 1e"
		    "ebed0030 0a01 0100 c000007ffffef2b0 000001ff 1e", "test 02");
	rd = open_buf(b.data, b.len);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.data_ea, 0xc000007ffffef2b0ull);
	CHECK_EQ(x.data_rpn, 0x1ff);
	CHECK_EQ(x.data_ra, 0x7ffffef2b0ull);
	CHECK_EQ(x.data_page_shift, 30);
	tk_qt_reader_free(rd);
	free(b.data);

	/* hash MMU: no RA, header flags 0x6000 (tests 10, 11) */
	tk_qt_record h = rec(0xc000000000ed8db4ull, 0x7c3f4840);
	b = write_records(&h, 1, 0);
	check_bytes(&b, "00000000 0001 0002 6000 07010000 c000000000ed8db4 7c3f4840 0001 0000",
		    "hash");
	free(b.data);

	/* no records at all: a header whose IAR is 4 */
	b = write_records(NULL, 0, 0);
	check_bytes(&b, "00000000 0001 0002 6000 07010000 0000000000000004", "empty");
	rd = open_buf(b.data, b.len);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	CHECK_EQ(tk_qt_reader_header(rd)->ea, 4);
	tk_qt_reader_free(rd);
	free(b.data);

	/* a magic number */
	b = write_records(&h, 1, 0x51545243);
	check_bytes(&b, "00000000 0001 0002 e000 51545243 07010000 c000000000ed8db4 7c3f4840 0001 0000",
		    "magic");
	rd = open_buf(b.data, b.len);
	CHECK(tk_qt_reader_header(rd)->has_magic);
	CHECK_EQ(tk_qt_reader_header(rd)->magic, 0x51545243);
	tk_qt_reader_free(rd);
	free(b.data);

	/* a non-branch followed by a jump: termination code EXCEPTION */
	tk_qt_record e[2] = {rec(0x1000, 0x38600000), rec(0x900, 0x60000000)};
	b = write_records(e, 2, 0);
	check_bytes(&b, "00000000 0001 0002 6000 07010000 0000000000001000"
			"38600000 e041 0000 00 00 10 0000000000000900"
			"60000000 0001 0000", "exception");
	free(b.data);
}

/* The prefixed instruction of test 08: the suffix word is 0, after a
 * prefix it is a record and not a header. */
static void test_zero_suffix(void)
{
	tk_qt_record r[3] = {rec(0x13c2507dcull, 0x07000000), rec(0x13c2507e0ull, 0), rec(0x13c2507e4ull, 0x7c631b78)};
	buf b = write_records(r, 3, 0);
	check_bytes(&b, "00000000 0001 0002 6000 07010000 000000013c2507dc"
			"07000000 0001 0000 00000000 0001 0000 7c631b78 0001 0000", "prefix");
	tk_qt_reader *rd = open_buf(b.data, b.len);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.insn, 0x07000000);
	CHECK(!(x.valid & TK_QT_SUFFIX));
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.insn, 0);
	CHECK_EQ(x.ea, 0x13c2507e0ull);
	CHECK(x.valid & TK_QT_SUFFIX);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.insn, 0x7c631b78);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	tk_qt_reader_free(rd);
	free(b.data);
}

static void test_embedded_header(void)
{
	unsigned char f[256];
	size_t n = unhex("00000000 0001 0002 6000 07010000 0000000000001000"
			 "60000000 0001 0000"
			 /* a second header: execution goes on at 0x2000, RPN 5, 64K */
			 "00000000 0001 0002 6840 07010000 0000000000002000 00000005 10"
			 "38600001 0001 0000", f);
	tk_qt_reader *rd = open_buf(f, n);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0x1000);
	CHECK(!(x.valid & TK_QT_AFTER_HEADER));
	CHECK(!(x.valid & TK_QT_RA));
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0x2000);
	CHECK_EQ(x.insn, 0x38600001);
	CHECK(x.valid & TK_QT_AFTER_HEADER);
	CHECK(x.valid & TK_QT_RA);
	CHECK_EQ(x.ra, 0x52000);
	CHECK_EQ(x.offset, 57);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	tk_qt_reader_free(rd);
}

static void walk1(tk_qt_walk *w, tk_qt_walk_type type, uint64_t base)
{
	memset(w, 0, sizeof *w);
	w->nr_ptes = 4;
	w->nr_walks = 1;
	w->type = type;
	for (int i = 0; i < 4; i++)
		w->host_ptes[0][i] = base + 8u * (unsigned)i;
}

static void test_walks(void)
{
	tk_qt_walk iw, dw, nested;
	walk1(&iw, TK_QT_WALK_HOST_RADIX, 0x1000);
	walk1(&dw, TK_QT_WALK_GUEST_REAL, 0x2000);
	memset(&nested, 0, sizeof nested);
	nested.nr_ptes = 3;
	nested.nr_walks = 2;
	nested.type = TK_QT_WALK_NESTED;
	for (int j = 0; j < 2; j++) {
		for (int i = 0; i < 3; i++)
			nested.host_ptes[j][i] = 0x300000u + 0x100u * (unsigned)j + 8u * (unsigned)i;
		nested.guest_real_addrs[j] = 0x4000u + (unsigned)j;
	}
	nested.host_real_addrs[0] = 0x5000;

	/* R0: walk in the header; R0's data walk nested; R1 reached by a jump
	 * with its own single walk; R1's data has an RPN but no walk while an
	 * instruction walk is written (the host-mode rule keeps them apart). */
	tk_qt_record r[3] = {rec(0x10000000, 0xe9230000), rec(0x20000000, 0xe9230008), rec(0x20000004, 0x60000000)};
	r[0].valid = TK_QT_RA | TK_QT_PAGE_SHIFT | TK_QT_DATA_EA | TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT;
	r[0].ra = 0x70000000;
	r[0].page_shift = 16;
	r[0].insn_walk = &iw;
	r[0].data_ea = 0x7fff0000;
	r[0].data_ra = 0x9fff0000;
	r[0].data_page_shift = 16;
	r[0].data_walk = &nested;
	r[1].valid = TK_QT_RA | TK_QT_PAGE_SHIFT | TK_QT_DATA_EA | TK_QT_DATA_RA;
	r[1].ra = 0x80000000;
	r[1].page_shift = 16;
	r[1].insn_walk = &dw;
	r[1].data_ea = 0x7fff0008;
	r[1].data_ra = 0x9fff0008;
	r[2].valid = TK_QT_RA | TK_QT_PAGE_SHIFT;
	r[2].ra = 0x80000004;
	r[2].page_shift = 16;
	buf b = write_records(r, 3, 0);
	tk_qt_reader *rd = open_buf(b.data, b.len);
	const tk_qt_header *h = tk_qt_reader_header(rd);
	CHECK_EQ(h->flags3, 0x0300);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK(x.insn_walk && x.insn_walk->nr_walks == 1 && x.insn_walk->nr_ptes == 4);
	CHECK(x.insn_walk && x.insn_walk->type == TK_QT_WALK_HOST_RADIX);
	CHECK(x.insn_walk && x.insn_walk->host_ptes[0][3] == 0x1018);
	CHECK(x.data_walk && x.data_walk->nr_walks == 2 && x.data_walk->nr_ptes == 3);
	if (x.data_walk) {
		CHECK_EQ(x.data_walk->host_ptes[1][2], 0x300110);
		CHECK_EQ(x.data_walk->host_real_addrs[0], 0x5000);
		CHECK_EQ(x.data_walk->guest_real_addrs[1], 0x4001);
	}
	CHECK_EQ(x.data_ra, 0x9fff0000);
	CHECK(x.valid & TK_QT_NEXT_RPN);
	CHECK_EQ(x.next_rpn, 0x8000);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0x20000000);
	CHECK_EQ(x.ra, 0x80000000);
	CHECK(x.insn_walk && x.insn_walk->host_ptes[0][0] == 0x2000);
	CHECK(!x.data_walk);
	CHECK(x.valid & TK_QT_DATA_RPN);
	CHECK_EQ(x.data_ra, 0x9fff0008);	/* no data page size: 16 */
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, 0x20000004);
	CHECK_EQ(x.ra, 0x80000004);	/* sticky RPN and page size */
	CHECK(x.insn_walk && x.insn_walk->host_ptes[0][0] == 0x2000);	/* sticky walk */
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	tk_qt_reader_free(rd);
	free(b.data);

	/* Bounds: a nested block of 6 walks or 5 PTEs is an error at its offset. */
	unsigned char f[128];
	size_t n = unhex("00000000 0001 0002 6000 07010000 0000000000001000"
			 "e9230000 0201 0001 0000 05 02", f);
	rd = open_buf(f, n);
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);
	CHECKF(strstr(tk_qt_reader_error(rd), "test.qt: offset 32:") != NULL, "%s", tk_qt_reader_error(rd));
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);	/* sticky */
	tk_qt_reader_free(rd);
	n = unhex("00000000 0001 0002 6000 07010000 0000000000001000"
		  "e9230000 0201 0001 0000 04 00", f);
	rd = open_buf(f, n);
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);
	tk_qt_reader_free(rd);
}

static void test_branch_fixups(void)
{
	unsigned char f[256];
	/* bne without TERM: the reader marks it a conditional branch with
	 * termination 0; b with TERM code 0x80: not conditional */
	size_t n = unhex("00000000 0001 0002 6000 07010000 0000000000001000"
			 "40820008 0001 0000"
			 "48000010 6001 0000 00 00 80"
			 "60000000 0001 0000", f);
	tk_qt_reader *rd = open_buf(f, n);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK((x.valid & (TK_QT_BRANCH | TK_QT_CONDITIONAL)) == (TK_QT_BRANCH | TK_QT_CONDITIONAL));
	CHECK(!(x.valid & TK_QT_TERM));
	CHECK_EQ(x.term_code, 0);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK(x.valid & TK_QT_BRANCH);
	CHECK(!(x.valid & TK_QT_CONDITIONAL));
	CHECK(!(x.valid & TK_QT_BRANCH_TAKEN));
	CHECK_EQ(x.term_code, 0x80);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	tk_qt_reader_free(rd);

	/* an unknown termination code and unknown flags: errors at the offset */
	n = unhex("00000000 0001 0002 6000 07010000 0000000000001000"
		  "60000000 0001 0000 48000010 2001 0000 00 33", f);
	rd = open_buf(f, n);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);
	CHECKF(strstr(tk_qt_reader_error(rd), "offset 38: inconsistent branch") != NULL, "%s",
	       tk_qt_reader_error(rd));
	tk_qt_reader_free(rd);
	n = unhex("00000000 0001 0002 6000 07010000 0000000000001000 60000000 0005 0000", f);
	rd = open_buf(f, n);
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);
	CHECKF(strstr(tk_qt_reader_error(rd), "offset 22: unhandled flags 0x0004") != NULL, "%s",
	       tk_qt_reader_error(rd));
	tk_qt_reader_free(rd);
	n = unhex("00000000 0001 0002 6000 07010000 0000000000001000 60000000 0001 0800", f);
	rd = open_buf(f, n);
	CHECK_EQ(tk_qt_reader_next(rd, &x), TK_ERR_CORRUPT);
	tk_qt_reader_free(rd);
}

static void count_note(void *ctx, const tk_diag *d)
{
	CHECK(d->level == TK_DIAG_NOTE);
	CHECK(strstr(d->msg, "no instruction address") != NULL);
	++*(int *)ctx;
}

static void test_registers_and_header_fields(void)
{
	unsigned char f[512];
	/* header: flags3 with PTCR, LPID, PID; a comment; then a record with a
	 * register block (version >= 7: VSX counts present) */
	size_t n = unhex("00000000 0001 0003 0fe0 6002 07010000 0000000000001000"
			 "1111111111111111 0000000022222222 00000033 0003 616263"
			 "7c632214 0009 0000"
			 "02 01 01 01 01"	/* in: 2 gpr, 1 fpr, 1 vmx, 1 vsx, 1 spr */
			 "01 00 00 00 00"	/* out: 1 gpr */
			 "03 0000000000000003 04 0000000000000004"
			 "01 3ff0000000000000"
			 "000000000000000000000000000000000000"
			 "000000000000000000000000000000000000"
			 "0008 0000000010000000"
			 "03 0000000000000007", f);
	tk_qt_reader *rd = open_buf(f, n);
	const tk_qt_header *h = tk_qt_reader_header(rd);
	CHECK(h->has_lpid && h->lpid == 0x22222222);
	CHECK(h->has_pid && h->pid == 0x33);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK(x.valid & TK_QT_REGS);
	if (x.regs) {
		CHECK_EQ(x.regs->n_gpr[0], 2);
		CHECK_EQ(x.regs->gpr[0][1].index, 4);
		CHECK_EQ(x.regs->gpr[0][1].value, 4);
		CHECK_EQ(x.regs->fpr[0][0].value, 0x3ff0000000000000ull);
		CHECK_EQ(x.regs->n_vsx[0], 1);
		CHECK_EQ(x.regs->spr[0][0].index, 8);
		CHECK_EQ(x.regs->spr[0][0].value, 0x10000000);
		CHECK_EQ(x.regs->gpr[1][0].value, 7);
	}
	CHECK_EQ(tk_qt_reader_next(rd, &x), 0);
	tk_qt_reader_free(rd);

	/* a header without an instruction address: a note, and all ones */
	n = unhex("00000000 0001 0002 4000 07010000 60000000 0001 0000", f);
	int notes = 0;
	tk_qt_reader_opts o;
	tk_qt_reader_opts_init(&o);
	o.diag = count_note;
	o.diag_ctx = &notes;
	CHECK_EQ(tk_qt_reader_open_mem(f, n, "noiar.qt", &o, &rd), 0);
	CHECK_EQ(tk_qt_reader_header(rd)->ea, UINT64_MAX);
	CHECK_EQ(notes, 1);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.ea, UINT64_MAX);
	tk_qt_reader_free(rd);

	/* headers the reader refuses */
	const char *bad[] = {
		"00000001 0001 0002 6000",			/* word not 0 */
		"00000000 0003 0002 6000",			/* flags not 1 */
		"00000000 0001 0004 6000",			/* no FILE_HEADER bit */
		"00000000 0001 0002 6001 07010000",		/* unknown header flag */
		"00000000 0001 0002 6000 0701",			/* cut short */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = unhex(bad[i], f);
		tk_qt_reader *r2 = NULL;
		int rc = tk_qt_reader_open_mem(f, n, "bad.qt", NULL, &r2);
		CHECKF(rc == TK_ERR_FORMAT || rc == TK_ERR_EOF, "case %zu: %d", i, rc);
		CHECKF(strstr(tk_qt_reader_last_error(), "bad.qt: offset 0") != NULL, "%s",
		       tk_qt_reader_last_error());
		CHECK(r2 == NULL);
	}
	CHECK_EQ(tk_qt_reader_open_mem(f, 0, "empty.qt", NULL, &rd), TK_ERR_EMPTY);
}

/* The data page size and the instruction guest page size in one record are
 * written in the reader's order, so they read back as written. */
static void test_guest_page_sizes(void)
{
	tk_qt_record r[2] = {rec(0x1000, 0xe9230000), rec(0x3000, 0x60000000)};
	r[0].valid = TK_QT_DATA_EA | TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT | TK_QT_GUEST_DATA_PAGE_SHIFT;
	r[0].data_ea = 0x5000;
	r[0].data_ra = 0x5000;
	r[0].data_page_shift = 12;
	r[0].guest_data_page_shift = 16;
	r[1].valid = TK_QT_RA | TK_QT_PAGE_SHIFT | TK_QT_GUEST_PAGE_SHIFT;
	r[1].ra = 0x3000;
	r[1].page_shift = 16;
	r[1].guest_page_shift = 21;
	buf b = write_records(r, 2, 0);
	tk_qt_reader *rd = open_buf(b.data, b.len);
	tk_qt_record x;
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.data_page_shift, 12);
	CHECK_EQ(x.guest_data_page_shift, 16);
	CHECK_EQ(x.next_page_shift, 16);
	CHECK_EQ(x.next_guest_page_shift, 21);
	CHECK_EQ(tk_qt_reader_next(rd, &x), 1);
	CHECK_EQ(x.guest_page_shift, 21);
	tk_qt_reader_free(rd);
	free(b.data);
}

/* A file cut at every byte: no crash, never a read past the end (the
 * copies are exactly sized, for AddressSanitizer), the records before the
 * cut, then an error naming the offset. */
static void test_cut_everywhere(void)
{
	tk_qt_walk iw;
	walk1(&iw, TK_QT_WALK_HOST_RADIX, 0x1000);
	tk_qt_record r[6] = {rec(0x10000000, 0x38600000), rec(0x10000004, 0x40820008),
			     rec(0x1000000c, 0xe9230000), rec(0x20000000, 0x07000000),
			     rec(0x20000004, 0x00000000), rec(0x20000008, 0x4e800020)};
	r[1].valid = TK_QT_BRANCH | TK_QT_CONDITIONAL;
	r[2].valid = TK_QT_DATA_EA | TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT;
	r[2].data_ea = 0x7000;
	r[2].data_ra = 0x7000;
	r[2].data_page_shift = 12;
	r[3].valid = TK_QT_RA | TK_QT_PAGE_SHIFT;
	r[3].ra = 0x20000000;
	r[3].page_shift = 16;
	r[3].insn_walk = &iw;
	buf b = write_records(r, 6, 0);
	size_t boundaries[8], nb = 0, header = 0;
	{
		tk_qt_reader *rd = open_buf(b.data, b.len);
		tk_qt_record x;
		while (tk_qt_reader_next(rd, &x) > 0) {
			if (!nb)
				header = x.offset;
			boundaries[nb++] = tk_qt_reader_offset(rd);
		}
		tk_qt_reader_free(rd);
	}
	CHECK_EQ(header, 22);
	CHECK_EQ(nb, 6);
	for (size_t cut = 0; cut < b.len; cut++) {
		char *copy = malloc(cut ? cut : 1);
		memcpy(copy, b.data, cut);
		tk_qt_reader *rd = NULL;
		int rc = tk_qt_reader_open_mem(copy, cut, "cut.qt", NULL, &rd);
		if (rc < 0) {
			CHECKF(cut < header, "cut %zu: open failed: %s", cut, tk_qt_reader_last_error());
			free(copy);
			continue;
		}
		size_t got = 0;
		tk_qt_record x;
		while ((rc = tk_qt_reader_next(rd, &x)) > 0) {
			CHECKF(x.ea == r[got].ea && x.insn == r[got].insn, "cut %zu: record %zu", cut, got);
			got++;
		}
		size_t complete = 0;
		while (complete < nb && boundaries[complete] <= cut)
			complete++;
		CHECKF(got == complete, "cut %zu: %zu records, %zu complete", cut, got, complete);
		if (cut == (complete ? boundaries[complete - 1] : header))
			CHECKF(rc == 0, "cut %zu at a boundary: %d", cut, rc);
		else
			CHECKF(rc == TK_ERR_EOF && strstr(tk_qt_reader_error(rd), "cut.qt: offset "),
			       "cut %zu: rc %d '%s'", cut, rc, tk_qt_reader_error(rd));
		tk_qt_reader_free(rd);
		free(copy);
	}
	free(b.data);
}

/* Random bytes after a valid header: the reader ends (records or an
 * error), never crashes or loops. */
static void test_random(void)
{
	unsigned char hdr[32];
	size_t hn = unhex("00000000 0001 0002 6000 07010000 0000000000001000", hdr);
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = hn + (size_t)(iter % 200);
		unsigned char *f = malloc(len);
		memcpy(f, hdr, hn);
		for (size_t i = hn; i < len; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			f[i] = (unsigned char)s;
			if (iter % 3 == 0 && i % 4 < 2)
				f[i] = 0;	/* more plausible flag words */
		}
		tk_qt_reader *rd = NULL;
		if (tk_qt_reader_open_mem(f, len, "random.qt", NULL, &rd) == 0) {
			tk_qt_record x;
			int rc, n = 0;
			while ((rc = tk_qt_reader_next(rd, &x)) > 0)
				n++;
			CHECK(n <= (int)len);
			CHECK(rc == 0 || tk_qt_reader_error(rd)[0]);
			tk_qt_reader_free(rd);
		}
		free(f);
	}
}

static void test_stream_lines(void)
{
	tk_qt_stream_insn in;
	const char *why;
	CHECK_EQ(tk_qt_stream_parse("0000000010000148 3c401002", 25, &in, &why), 1);
	CHECK_EQ(in.ea, 0x10000148);
	CHECK_EQ(in.words[0], 0x3c401002);
	CHECK_EQ(in.nwords, 1);
	CHECK(!in.has_data_ea);
	const char *l = "0x10000298 04100000f460fd68 0x10010000  # pstd";
	CHECK_EQ(tk_qt_stream_parse(l, strlen(l), &in, &why), 1);
	CHECK_EQ(in.nwords, 2);
	CHECK_EQ(in.words[1], 0xf460fd68);
	CHECK(in.has_data_ea && in.data_ea == 0x10010000);
	CHECK_EQ(tk_qt_stream_parse("  # comment", 11, &in, &why), 0);
	CHECK_EQ(tk_qt_stream_parse("", 0, &in, &why), 0);
	CHECK_EQ(tk_qt_stream_parse("1000 zz", 7, &in, &why), TK_ERR_PARSE);
	CHECK_EQ(tk_qt_stream_parse("1002 60000000", 13, &in, &why), TK_ERR_PARSE);
	CHECK_EQ(tk_qt_stream_parse("1000 6000000060000000", 21, &in, &why), TK_ERR_PARSE);
	CHECK_EQ(tk_qt_stream_parse("1000 60000000 2000 3000", 23, &in, &why), TK_ERR_PARSE);
	tk_qt_record out[2];
	CHECK_EQ(tk_qt_stream_parse("1000 40820008", 13, &in, &why), 1);
	CHECK_EQ(tk_qt_stream_records(&in, out), 1);
	CHECK((out[0].valid & (TK_QT_BRANCH | TK_QT_CONDITIONAL)) == (TK_QT_BRANCH | TK_QT_CONDITIONAL));
	CHECK_EQ(tk_qt_stream_parse(l, strlen(l), &in, &why), 1);
	CHECK_EQ(tk_qt_stream_records(&in, out), 2);
	CHECK_EQ(out[1].ea, 0x1000029c);
	CHECK(out[0].valid & TK_QT_DATA_EA);
	CHECK(!(out[1].valid & TK_QT_DATA_EA));
}

int main(void)
{
	test_writer_examples();
	test_zero_suffix();
	test_embedded_header();
	test_walks();
	test_branch_fixups();
	test_registers_and_header_fields();
	test_guest_page_sizes();
	test_cut_everywhere();
	test_random();
	test_stream_lines();
	return check_report("test_qtrace");
}
