/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ptsynth: synthesise the Intel PT a CPU would have written for a recorded
 * instruction stream (from ptrec), with libipt's packet encoder.
 *
 *   ptsynth [OPTIONS] RECORDING OUT.pt OUT.lst
 *     --psb=N          a PSB+ (MODE.Exec, FUP) every N bytes (default 4096)
 *     --tnt64          TNT-64 packets (47 bits) instead of TNT-8 (6 bits)
 *     --no-retcomp     no return compression: every ret is a TIP
 *     --interrupt=N    a fake interrupt (FUP, TIP.PGD, TIP.PGE) every N
 *                      instructions
 *     --start=pge|fup  begin with PSB, PSBEND, MODE.Exec, TIP.PGE (default)
 *                      or with PSB, MODE.Exec, FUP, PSBEND
 *     --repeat=N       the recording N times over (for benchmarks: the
 *                      recording must end where it began, e.g. a loop)
 *     --timing         TSC in every PSB+ and a CBR in the first
 *
 * OUT.lst gets the expected instruction addresses, one per line (16 hex
 * digits), what ptxed --no-inst must print.  The grammar: TNT bits oldest
 * first, flushed before any other packet; IPs compressed against the last
 * IP (reset by each PSB); returns compressed against a 64-entry stack of
 * the calls since the last PSB; syscalls as TIP.PGD (suppressed) and a
 * TIP.PGE at the instruction after them; the end as TIP.PGD. */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rinsn {
	uint64_t ip, target;
	uint8_t size;
	char cls;
};

static struct {
	struct pt_encoder *enc;
	uint64_t last_ip;
	uint64_t tnt_bits;
	unsigned tnt_n, tnt_max;
	uint64_t ret[64];
	unsigned ret_n, ret_top;	/* ring: ret_top is the next slot */
	uint64_t last_psb;
	bool retcomp, timing;
	uint64_t tsc;
} S;

static void emit(struct pt_packet *p)
{
	int rc = pt_enc_next(S.enc, p);
	if (rc < 0) {
		fprintf(stderr, "ptsynth: encode error: %s\n", pt_errstr(pt_errcode(rc)));
		exit(1);
	}
}

static void flush_tnt(void)
{
	if (!S.tnt_n)
		return;
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	p.type = S.tnt_max == 6 ? ppt_tnt_8 : ppt_tnt_64;
	p.payload.tnt.bit_size = (uint8_t)S.tnt_n;
	p.payload.tnt.payload = S.tnt_bits;
	emit(&p);
	S.tnt_n = 0;
	S.tnt_bits = 0;
}

static void tnt(bool taken)
{
	S.tnt_bits = (S.tnt_bits << 1) | (taken ? 1 : 0);
	if (++S.tnt_n == S.tnt_max)
		flush_tnt();
}

static enum pt_ip_compression compress(uint64_t ip)
{
	if ((ip >> 16) == (S.last_ip >> 16))
		return pt_ipc_update_16;
	if ((ip >> 32) == (S.last_ip >> 32))
		return pt_ipc_update_32;
	uint64_t top = ip >> 47;
	if (top == 0 || top == 0x1ffff)
		return pt_ipc_sext_48;
	return pt_ipc_full;
}

static void ip_packet(enum pt_packet_type type, uint64_t ip, bool suppressed)
{
	flush_tnt();
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	p.type = type;
	if (suppressed) {
		p.payload.ip.ipc = pt_ipc_suppressed;
	} else {
		p.payload.ip.ipc = compress(ip);
		p.payload.ip.ip = ip;
		S.last_ip = ip;
	}
	emit(&p);
}

static void simple(enum pt_packet_type type)
{
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	p.type = type;
	emit(&p);
}

static void mode_exec(void)
{
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	emit(&p);
}

static void timing(bool cbr)
{
	if (!S.timing)
		return;
	struct pt_packet p;
	memset(&p, 0, sizeof p);
	p.type = ppt_tsc;
	p.payload.tsc.tsc = (S.tsc += 0x1000);
	emit(&p);
	if (cbr) {
		memset(&p, 0, sizeof p);
		p.type = ppt_cbr;
		p.payload.cbr.ratio = 0x20;
		emit(&p);
	}
}

static uint64_t offset(void)
{
	uint64_t off = 0;
	pt_enc_get_offset(S.enc, &off);
	return off;
}

/* PSB+ with tracing on at ip. */
static void psb_plus(uint64_t ip, bool first_cbr)
{
	flush_tnt();
	S.last_ip = 0;
	S.ret_n = 0;	/* only calls since this PSB may be compressed */
	simple(ppt_psb);
	timing(first_cbr);
	mode_exec();
	ip_packet(ppt_fup, ip, false);
	simple(ppt_psbend);
	S.last_psb = offset();	/* the interval counts from the end of PSB+ */
}

static void push_ret(uint64_t ra)
{
	S.ret[S.ret_top] = ra;
	S.ret_top = (S.ret_top + 1) % 64;
	if (S.ret_n < 64)
		S.ret_n++;
}

static bool pop_ret_if(uint64_t target)
{
	if (!S.retcomp || !S.ret_n)
		return false;
	unsigned top = (S.ret_top + 63) % 64;
	if (S.ret[top] != target)
		return false;
	S.ret_top = top;
	S.ret_n--;
	return true;
}

static struct rinsn *load(const char *path, size_t *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	size_t n = 0, cap = 1024;
	struct rinsn *v = malloc(cap * sizeof *v);
	char line[4200];
	while (v && fgets(line, sizeof line, f)) {
		uint64_t ip, target;
		unsigned size;
		char cls;
		if (sscanf(line, "%" SCNx64 " %x %c %" SCNx64, &ip, &size, &cls, &target) != 4)
			continue;	/* map lines */
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		if (!v)
			break;
		v[n++] = (struct rinsn){.ip = ip, .target = target, .size = (uint8_t)size, .cls = cls};
	}
	fclose(f);
	if (!v) {
		fprintf(stderr, "ptsynth: out of memory\n");
		exit(1);
	}
	*count = n;
	return v;
}

int main(int argc, char **argv)
{
	uint64_t psb_every = 4096, interrupt = 0, repeat = 1;
	bool start_fup = false;
	S.tnt_max = 6;
	S.retcomp = true;
	int a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strncmp(argv[a], "--psb=", 6))
			psb_every = strtoull(argv[a] + 6, NULL, 0);
		else if (!strcmp(argv[a], "--tnt64"))
			S.tnt_max = 47;
		else if (!strcmp(argv[a], "--no-retcomp"))
			S.retcomp = false;
		else if (!strncmp(argv[a], "--interrupt=", 12))
			interrupt = strtoull(argv[a] + 12, NULL, 0);
		else if (!strcmp(argv[a], "--start=fup"))
			start_fup = true;
		else if (!strcmp(argv[a], "--start=pge"))
			start_fup = false;
		else if (!strncmp(argv[a], "--repeat=", 9))
			repeat = strtoull(argv[a] + 9, NULL, 0);
		else if (!strcmp(argv[a], "--timing"))
			S.timing = true;
		else {
			fprintf(stderr, "ptsynth: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	if (argc - a != 3) {
		fprintf(stderr, "usage: ptsynth [OPTIONS] RECORDING OUT.pt OUT.lst\n");
		return 2;
	}
	size_t n;
	struct rinsn *v = load(argv[a], &n);
	if (!n) {
		fprintf(stderr, "ptsynth: %s: no instructions\n", argv[a]);
		return 1;
	}
	size_t total = n * repeat;
	size_t cap = total * 24 + (total / (psb_every ? psb_every : 1) + 16) * 64 + 4096;
	uint8_t *buf = calloc(cap, 1);
	FILE *lst = fopen(argv[a + 2], "w");
	if (!buf || !lst) {
		fprintf(stderr, "ptsynth: cannot allocate or open output\n");
		return 1;
	}
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	S.enc = pt_alloc_encoder(&cfg);
	if (start_fup) {
		psb_plus(v[0].ip, true);
	} else {
		S.last_psb = 0;
		simple(ppt_psb);
		timing(true);
		simple(ppt_psbend);
		mode_exec();
		ip_packet(ppt_tip_pge, v[0].ip, false);
	}
	for (size_t k = 0; k < total; k++) {
		const struct rinsn *in = &v[k % n];
		bool last = k + 1 == total;
		uint64_t next = last ? 0 : v[(k + 1) % n].ip;
		if (k && psb_every && offset() - S.last_psb >= psb_every)
			psb_plus(in->ip, false);
		if (k && interrupt && k % interrupt == 0) {
			ip_packet(ppt_fup, in->ip, false);
			ip_packet(ppt_tip_pgd, 0, true);
			S.ret_n = 0;
			ip_packet(ppt_tip_pge, in->ip, false);
		}
		fprintf(lst, "%016" PRIx64 "\n", in->ip);
		switch (in->cls) {
		case 'b':
			if (!last)
				tnt(next != in->ip + in->size);
			break;
		case 'c':
			if (in->target != in->ip + in->size)
				push_ret(in->ip + in->size);
			break;
		case 'C':
			push_ret(in->ip + in->size);
			if (!last)
				ip_packet(ppt_tip, next, false);
			break;
		case 'J':
			if (!last)
				ip_packet(ppt_tip, next, false);
			break;
		case 'r':
			if (last)
				break;
			if (pop_ret_if(next))
				tnt(true);
			else
				ip_packet(ppt_tip, next, false);
			break;
		case 's':
			ip_packet(ppt_tip_pgd, 0, true);
			if (!last)
				ip_packet(ppt_tip_pge, next, false);
			break;
		default:
			break;
		}
		if (last && (in->cls == 'r' || in->cls == 'J' || in->cls == 'C')) {
			/* A branch that needs trace ends it: TIP.PGD bound to
			 * it, to where the recording began (as an IP filter
			 * exit would). */
			ip_packet(ppt_tip_pgd, v[0].ip, false);
		} else if (last && in->cls != 's') {
			/* Stop after the last instruction: an async disable at
			 * the instruction that would come next. */
			uint64_t after = in->cls == 'j' || in->cls == 'c' ? in->target : in->ip + in->size;
			ip_packet(ppt_fup, after, false);
			ip_packet(ppt_tip_pgd, 0, true);
		}
	}
	flush_tnt();
	uint64_t size = offset();
	pt_free_encoder(S.enc);
	FILE *out = fopen(argv[a + 1], "wb");
	if (!out || fwrite(buf, 1, size, out) != size || fclose(out) != 0 || fclose(lst) != 0) {
		fprintf(stderr, "ptsynth: write error\n");
		return 1;
	}
	fprintf(stderr, "ptsynth: %zu instructions, %" PRIu64 " bytes of PT\n", total, size);
	free(buf);
	free(v);
	return 0;
}
