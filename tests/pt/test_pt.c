/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT library tests.
 *
 *   test_pt flow TRACE LISTING COUNTS [IMAGE...]
 *       Decode TRACE (raw PT with IMAGEs "elf:PATH@ADDR" / "raw:PATH@ADDR",
 *       or perf.data) with both decoders, 1 and 2 threads, whole and in
 *       64-byte pieces: the instructions must be LISTING's addresses
 *       exactly, with no decode error, and an exact call stack (a call
 *       pushes a frame returning to pc + size; a return closes frames up
 *       to the innermost one it returns to) must count, for each line
 *       "ADDR COUNT NAME" of COUNTS, COUNT calls entering ADDR.
 *   test_pt packets
 *       Every packet type of libipt 2.0.5, encoded with pt_enc_next, dumps
 *       as libipt's ptdump prints it.
 *   test_pt damage TRACE IMAGE
 *       Bit flips and cuts in a good stream: errors are reported with
 *       offsets, decoding resumes, nothing crashes.
 */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/pt.h"

/* ---- flow ------------------------------------------------------------------ */

struct counts {
	uint64_t addr[64], want[64], got[64];
	char name[64][32];
	int n;
};

struct frame {
	uint64_t ret;
};

static uint64_t *read_listing(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, k = 0;
	uint64_t *v = malloc(cap * sizeof *v);
	char line[64];
	while (v && fgets(line, sizeof line, f)) {
		if (k == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		if (v)
			v[k++] = strtoull(line, NULL, 16);
	}
	fclose(f);
	*n = k;
	return v;
}

static int add_images(tk_pt *pt, int n, char **specs)
{
	for (int i = 0; i < n; i++) {
		char buf[4200];
		snprintf(buf, sizeof buf, "%s", specs[i]);
		char *at = strrchr(buf, '@');
		uint64_t addr = at ? strtoull(at + 1, NULL, 0) : 0;
		if (at)
			*at = 0;
		int rc = !strncmp(buf, "raw:", 4) ? tk_pt_add_raw(pt, buf + 4, addr)
						   : tk_pt_add_elf(pt, buf + 4, at != NULL, addr);
		if (rc < 0) {
			fprintf(stderr, "%s\n", tk_pt_error_detail(pt));
			return rc;
		}
	}
	return 0;
}

static void run_flow(tk_pt *pt, tk_pt_decoder dec, unsigned threads, uint64_t piece,
		     const uint64_t *lst, size_t nlst, struct counts *c)
{
	tk_pt_decode_opts o;
	tk_pt_decode_opts_init(&o);
	o.decoder = dec;
	o.threads = threads;
	o.piece_bytes = piece;
	tk_pt_decode *d;
	CHECK(tk_pt_decode_new(pt, 0, &o, &d) == 0);
	size_t k = 0, mismatches = 0, errors = 0;
	struct frame *stack = malloc(1 << 20);
	size_t depth = 0, maxdepth = (1 << 20) / sizeof *stack;
	tk_branch prev = TK_BR_NONE;
	uint64_t prev_ret = 0;
	for (int i = 0; i < c->n; i++)
		c->got[i] = 0;
	tk_pt_item it;
	int rc;
	while ((rc = tk_pt_decode_next(d, &it)) > 0) {
		if (it.kind == TK_PT_ERROR || it.kind == TK_PT_GAP) {
			if (errors++ < 3)
				fprintf(stderr, "  [%" PRIx64 ", %" PRIx64 ": %s]\n", it.offset, it.ip,
					it.text);
			continue;
		}
		if (it.kind != TK_PT_INSN)
			continue;
		if (k >= nlst || lst[k] != it.ip) {
			if (mismatches++ < 3)
				fprintf(stderr, "  insn %zu: 0x%" PRIx64 ", want 0x%" PRIx64 "\n", k, it.ip,
					k < nlst ? lst[k] : 0);
		}
		CHECK(it.number == k + 1);
		k++;
		if (prev == TK_BR_CALL && depth < maxdepth) {
			stack[depth++].ret = prev_ret;
			for (int i = 0; i < c->n; i++)
				if (c->addr[i] == it.ip)
					c->got[i]++;
		} else if (prev == TK_BR_RETURN) {
			for (size_t j = depth; j-- > 0;)
				if (stack[j].ret == it.ip) {
					depth = j;
					break;
				}
		}
		prev = it.branch;
		prev_ret = it.ip + it.size;
	}
	CHECK(rc == 0);
	CHECKF(mismatches == 0 && k == nlst, "decoder %d, %u threads, pieces of %" PRIu64
	       ": %zu of %zu instructions differ, %zu decoded", (int)dec, threads, piece, mismatches,
	       nlst, k);
	CHECKF(errors == 0, "%zu decode errors", errors);
	for (int i = 0; i < c->n; i++)
		CHECKF(c->got[i] == c->want[i], "calls to %s: %" PRIu64 ", the program counted %" PRIu64,
		       c->name[i], c->got[i], c->want[i]);
	CHECK(tk_pt_decode_insns(d) == k);
	free(stack);
	tk_pt_decode_free(d);
}

static int test_flow(int argc, char **argv)
{
	size_t nlst = 0;
	uint64_t *lst = read_listing(argv[3], &nlst);
	CHECK(lst && nlst > 0);
	struct counts c = {0};
	FILE *f = fopen(argv[4], "r");
	CHECK(f != NULL);
	while (f && c.n < 64 &&
	       fscanf(f, "%" SCNx64 " %" SCNu64 " %31s", &c.addr[c.n], &c.want[c.n], c.name[c.n]) == 3)
		c.n++;
	if (f)
		fclose(f);
	CHECK(c.n > 0);
	tk_pt *pt;
	CHECK(tk_pt_open(argv[2], NULL, &pt) == 0);
	if (!pt || !lst)
		return check_report("test_pt flow");
	CHECK(add_images(pt, argc - 5, argv + 5) == 0);
	for (int dec = 0; dec < 2; dec++)
		for (unsigned t = 1; t <= 2; t++)
			for (int p = 0; p < 2; p++)
				run_flow(pt, dec ? TK_PT_DECODER_INSN : TK_PT_DECODER_BLOCK, t,
					 p ? 64 : 0, lst, nlst, &c);
	tk_pt_free(pt);
	free(lst);
	return check_report("test_pt flow");
}

/* ---- packets ----------------------------------------------------------------- */

struct lines {
	char text[64][96];
	int n;
};

static int collect(void *ctx, const char *text)
{
	struct lines *l = ctx;
	if (l->n < 64)
		snprintf(l->text[l->n++], sizeof l->text[0], "%s", text);
	return 0;
}

static int test_packets(void)
{
	struct pt_packet p[40];
	memset(p, 0, sizeof p);
	int n = 0;
	p[n++].type = ppt_psb;
	p[n].type = ppt_tsc; p[n++].payload.tsc.tsc = 0x123456;
	p[n].type = ppt_cbr; p[n++].payload.cbr.ratio = 0x24;
	p[n].type = ppt_tma; p[n].payload.tma.ctc = 0x12; p[n++].payload.tma.fc = 0x3;
	p[n].type = ppt_pip; p[n].payload.pip.cr3 = 0xabc000; p[n++].payload.pip.nr = 1;
	p[n].type = ppt_vmcs; p[n++].payload.vmcs.base = 0x5000;
	p[n].type = ppt_mode; p[n].payload.mode.leaf = pt_mol_tsx; p[n++].payload.mode.bits.tsx.intx = 1;
	p[n].type = ppt_mode; p[n].payload.mode.leaf = pt_mol_exec;
	p[n++].payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	p[n].type = ppt_fup; p[n].payload.ip.ipc = pt_ipc_sext_48; p[n++].payload.ip.ip = 0x4018b1;
	p[n++].type = ppt_psbend;
	p[n].type = ppt_tnt_8; p[n].payload.tnt.bit_size = 4; p[n++].payload.tnt.payload = 0x2;
	p[n].type = ppt_tnt_64; p[n].payload.tnt.bit_size = 9; p[n++].payload.tnt.payload = 0x101;
	p[n].type = ppt_tip; p[n].payload.ip.ipc = pt_ipc_update_16; p[n++].payload.ip.ip = 0x1770;
	p[n].type = ppt_tip; p[n].payload.ip.ipc = pt_ipc_update_32; p[n++].payload.ip.ip = 0x401770;
	p[n].type = ppt_tip; p[n].payload.ip.ipc = pt_ipc_update_48; p[n++].payload.ip.ip = 0x7fff00401770;
	p[n].type = ppt_tip; p[n].payload.ip.ipc = pt_ipc_full; p[n++].payload.ip.ip = 0xffffffff81000000;
	p[n].type = ppt_tip_pgd; p[n++].payload.ip.ipc = pt_ipc_suppressed;
	p[n].type = ppt_tip_pge; p[n].payload.ip.ipc = pt_ipc_update_16; p[n++].payload.ip.ip = 0x18d5;
	p[n++].type = ppt_pad;
	p[n].type = ppt_mtc; p[n++].payload.mtc.ctc = 0x7;
	p[n].type = ppt_cyc; p[n++].payload.cyc.value = 0x1f3;
	p[n++].type = ppt_ovf;
	p[n++].type = ppt_stop;
	p[n].type = ppt_mnt; p[n++].payload.mnt.payload = 0x1122334455667788ull;
	p[n].type = ppt_exstop; p[n++].payload.exstop.ip = 1;
	p[n++].type = ppt_exstop;
	p[n].type = ppt_mwait; p[n].payload.mwait.hints = 0x20; p[n++].payload.mwait.ext = 0x1;
	p[n].type = ppt_pwre; p[n].payload.pwre.state = 1; p[n].payload.pwre.sub_state = 2;
	p[n++].payload.pwre.hw = 1;
	p[n].type = ppt_pwrx; p[n].payload.pwrx.last = 2; p[n].payload.pwrx.deepest = 5;
	p[n++].payload.pwrx.interrupt = 1;
	p[n].type = ppt_ptw; p[n].payload.ptw.plc = 1; p[n].payload.ptw.payload = 0xdeadbeefcafe;
	p[n++].payload.ptw.ip = 1;
	p[n].type = ppt_ptw; p[n].payload.ptw.plc = 0; p[n++].payload.ptw.payload = 0x42;
	static const char *want[] = {
		"0000000000000000  psb",
		"0000000000000010  tsc        123456",
		"0000000000000018  cbr        24",
		"000000000000001c  tma        12, 3",
		"0000000000000023  pip        abc000, nr                cr3  0000000000abc000",
		"000000000000002b  vmcs       5000                      vmcs 0000000000005000",
		"0000000000000032  mode.tsx   intx",
		"0000000000000034  mode.exec  cs.l",
		"0000000000000036  fup        3: 00000000004018b1",
		"000000000000003d  psbend",
		"000000000000003f  tnt.8      ..!.",
		"0000000000000040  tnt.64     !.......!",
		"0000000000000048  tip        1: ????????????1770",
		"000000000000004b  tip        2: ????????00401770",
		"0000000000000050  tip        4: ????7fff00401770",
		"0000000000000057  tip        6: ffffffff81000000",
		"0000000000000060  tip.pgd    0: ????????????????",
		"0000000000000061  tip.pge    1: ????????????18d5",
		"0000000000000064  pad",
		"0000000000000065  mtc        7",
		"0000000000000067  cyc        1f3",
		"0000000000000069  ovf",
		"000000000000006b  stop",
		"000000000000006d  mnt        1122334455667788",
		"0000000000000078  exstop     ip",
		"000000000000007a  exstop",
		"000000000000007c  mwait      00000020, 00000001",
		"0000000000000086  pwre       c2.3, hw",
		"000000000000008a  pwrx       int: c3, c6",
		"0000000000000091  ptw        1: deadbeefcafe, ip",
		"000000000000009b  ptw        0: 42",
	};
	uint8_t buf[1024];
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof buf;
	struct pt_encoder *enc = pt_alloc_encoder(&cfg);
	for (int i = 0; i < n; i++)
		CHECKF(pt_enc_next(enc, &p[i]) >= 0, "packet %d", i);
	uint64_t size = 0;
	pt_enc_get_offset(enc, &size);
	pt_free_encoder(enc);
	tk_pt_opts o;
	tk_pt_opts_init(&o);
	o.format = TK_PT_FORMAT_RAW;
	tk_pt *pt;
	CHECK(tk_pt_open_mem(buf, size, "packets.pt", &o, &pt) == 0);
	tk_pt_dump_opts d;
	tk_pt_dump_opts_init(&d);
	struct lines l = {.n = 0};
	CHECK(tk_pt_dump(pt, 0, &d, collect, &l) == 0);
	CHECK_EQ(l.n, sizeof want / sizeof want[0]);
	for (int i = 0; i < l.n && i < (int)(sizeof want / sizeof want[0]); i++)
		CHECK_STR(l.text[i], want[i]);
	/* --no-offset --no-pad --no-timing */
	d.no_offset = d.no_pad = d.no_timing = true;
	l.n = 0;
	CHECK(tk_pt_dump(pt, 0, &d, collect, &l) == 0);
	CHECK_EQ(l.n, sizeof want / sizeof want[0] - 6);	/* 5 timing packets, 1 pad */
	CHECK_STR(l.text[0], "psb");
	CHECK_STR(l.text[1], "pip        abc000, nr                cr3  0000000000abc000");
	/* A bad byte: an error, then the dump goes on at the next PSB. */
	uint8_t bad[sizeof buf + 2];
	memcpy(bad, buf, 0x3f);
	bad[0x3f] = 0x02;	/* an extended opcode ... */
	bad[0x40] = 0xff;	/* ... that does not exist */
	memcpy(bad + 0x41, buf, size);	/* and a PSB after it */
	tk_pt_free(pt);
	CHECK(tk_pt_open_mem(bad, 0x41 + size, "bad.pt", &o, &pt) == 0);
	tk_pt_dump_opts_init(&d);
	l.n = 0;
	CHECK(tk_pt_dump(pt, 0, &d, collect, &l) == 0);
	CHECK_STR(l.text[10], "[3f: error decoding packet: unknown opcode]");
	CHECK_STR(l.text[11], "0000000000000041  psb");
	tk_pt_free(pt);
	return check_report("test_pt packets");
}

/* ---- damage ------------------------------------------------------------------ */

static void decode_all(tk_pt *pt, tk_pt_decoder dec, unsigned threads, uint64_t *insns,
		       uint64_t *errors)
{
	tk_pt_decode_opts o;
	tk_pt_decode_opts_init(&o);
	o.decoder = dec;
	o.threads = threads;
	o.piece_bytes = 256;
	tk_pt_decode *d;
	*insns = *errors = 0;
	if (tk_pt_decode_new(pt, 0, &o, &d) < 0)
		return;
	tk_pt_item it;
	uint64_t last_off = 0;
	bool ordered = true;
	while (tk_pt_decode_next(d, &it) > 0) {
		if (it.kind == TK_PT_INSN)
			(*insns)++;
		if (it.kind == TK_PT_ERROR) {
			(*errors)++;
			CHECK(it.text && strstr(it.text, "error"));
			if (it.offset < last_off)
				ordered = false;
			last_off = it.offset;
		}
	}
	CHECK(ordered);
	tk_pt_decode_free(d);
}

static int test_damage(char **argv)
{
	FILE *f = fopen(argv[2], "rb");
	CHECK(f != NULL);
	if (!f)
		return check_report("test_pt damage");
	static uint8_t good[1 << 20], buf[1 << 20];
	size_t n = fread(good, 1, sizeof good, f);
	fclose(f);
	tk_pt_opts o;
	tk_pt_opts_init(&o);
	o.format = TK_PT_FORMAT_RAW;
	char *img[1] = {argv[3]};
	uint64_t base_insns = 0, e;
	{
		tk_pt *pt;
		CHECK(tk_pt_open_mem(good, n, "good.pt", &o, &pt) == 0);
		add_images(pt, 1, img);
		decode_all(pt, TK_PT_DECODER_BLOCK, 1, &base_insns, &e);
		CHECK(base_insns > 1000 && e == 0);
		tk_pt_free(pt);
	}
	/* Flip one bit at many places: decoding survives, an error is
	 * reported at most once per PSB segment or so, and both thread counts
	 * give the same result. */
	unsigned flipped = 0, with_errors = 0;
	for (size_t at = 40; at < n; at += n / 23 + 1) {
		memcpy(buf, good, n);
		buf[at] ^= 0x08;
		tk_pt *pt;
		CHECK(tk_pt_open_mem(buf, n, "flip.pt", &o, &pt) == 0);
		if (!pt)
			continue;
		add_images(pt, 1, img);
		for (int dec = 0; dec < 2; dec++) {
			uint64_t i1, e1, i2, e2;
			decode_all(pt, dec ? TK_PT_DECODER_INSN : TK_PT_DECODER_BLOCK, 1, &i1, &e1);
			decode_all(pt, dec ? TK_PT_DECODER_INSN : TK_PT_DECODER_BLOCK, 2, &i2, &e2);
			CHECK(i1 == i2 && e1 == e2);
			with_errors += e1 > 0;
		}
		flipped++;
		tk_pt_free(pt);
	}
	CHECK(flipped > 10);
	CHECK(with_errors > 0);
	/* Cuts: every prefix length decodes without a crash. */
	for (size_t cut = 1; cut < n; cut += n / 17 + 1) {
		tk_pt *pt;
		int rc = tk_pt_open_mem(good, cut, "cut.pt", &o, &pt);
		CHECK(rc == 0);
		if (rc == 0) {
			add_images(pt, 1, img);
			decode_all(pt, TK_PT_DECODER_BLOCK, 2, &base_insns, &e);
			tk_pt_free(pt);
		}
	}
	/* Garbage: not PT at all. */
	memset(buf, 0x5a, 8192);
	tk_pt *pt;
	CHECK(tk_pt_open_mem(buf, 8192, "garbage.bin", NULL, &pt) == TK_ERR_FORMAT);
	CHECK(tk_pt_open_mem(buf, 0, "empty.pt", NULL, &pt) == TK_ERR_EMPTY);
	/* A perf.data header and nothing else. */
	memcpy(buf, "PERFILE2", 8);
	CHECK(tk_pt_open_mem(buf, 50, "short.data", NULL, &pt) == TK_ERR_EOF);
	return check_report("test_pt damage");
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "flow"))
		return test_flow(argc, argv);
	if (argc == 2 && !strcmp(argv[1], "packets"))
		return test_packets();
	if (argc == 4 && !strcmp(argv[1], "damage"))
		return test_damage(argv);
	fprintf(stderr, "usage: test_pt flow|packets|damage ...\n");
	return 2;
}
