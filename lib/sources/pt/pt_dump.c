/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: the packet dump, in the layout of libipt's ptdump (its default
 * options): a 16-digit offset padded to 17 columns, a space, the packet
 * name padded to 10 columns when a payload follows, a space, the payload;
 * PIP and VMCS also show a tracking column (payload padded to 25, "cr3" or
 * "vmcs" padded to 5, the value). */
#include <inttypes.h>
#include <string.h>

#include "pt_impl.h"

void tk_pt_dump_opts_init(tk_pt_dump_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

struct fields {
	char opcode[16];
	char payload[64];
	char track_id[8];
	char track[24];
	bool skip;
};

static uint64_t sext48(uint64_t v)
{
	return (v & (1ull << 47)) ? v | ~((1ull << 48) - 1) : v & ((1ull << 48) - 1);
}

static void ip_payload(struct fields *f, const struct pt_packet_ip *ip)
{
	switch (ip->ipc) {
	case pt_ipc_suppressed:
		snprintf(f->payload, sizeof f->payload, "%x: ????????????????", pt_ipc_suppressed);
		return;
	case pt_ipc_update_16:
		snprintf(f->payload, sizeof f->payload, "%x: ????????????%04" PRIx64,
			 pt_ipc_update_16, ip->ip);
		return;
	case pt_ipc_update_32:
		snprintf(f->payload, sizeof f->payload, "%x: ????????%08" PRIx64,
			 pt_ipc_update_32, ip->ip);
		return;
	case pt_ipc_update_48:
		snprintf(f->payload, sizeof f->payload, "%x: ????%012" PRIx64,
			 pt_ipc_update_48, ip->ip);
		return;
	case pt_ipc_sext_48:
		snprintf(f->payload, sizeof f->payload, "%x: %016" PRIx64, pt_ipc_sext_48,
			 sext48(ip->ip));
		return;
	case pt_ipc_full:
		snprintf(f->payload, sizeof f->payload, "%x: %016" PRIx64, pt_ipc_full, ip->ip);
		return;
	}
	snprintf(f->payload, sizeof f->payload, "%x: %016" PRIx64, (unsigned)ip->ipc, ip->ip);
}

static void tnt_payload(struct fields *f, const struct pt_packet_tnt *tnt)
{
	unsigned bits = tnt->bit_size, i = 0;
	for (; bits && i + 1 < sizeof f->payload; bits--)
		f->payload[i++] = (tnt->payload & (1ull << (bits - 1))) ? '!' : '.';
	f->payload[i] = 0;
}

static const char *pwrx_reason(const struct pt_packet_pwrx *p)
{
	const char *wr = NULL;
	if (p->interrupt)
		wr = "int";
	if (p->store) {
		if (wr)
			return "bad";
		wr = " st";	/* sic: ptdump's spelling */
	}
	if (p->autonomous) {
		if (wr)
			return "bad";
		wr = " hw";
	}
	return wr ? wr : "bad";
}

#define PF(field, ...) snprintf(f->field, sizeof f->field, __VA_ARGS__)

static void describe(struct fields *f, const struct pt_packet *p, const tk_pt_dump_opts *o)
{
	switch (p->type) {
	case ppt_unknown: PF(opcode, "<unknown>"); return;
	case ppt_invalid: PF(opcode, "<invalid>"); return;
	case ppt_psb: PF(opcode, "psb"); return;
	case ppt_psbend: PF(opcode, "psbend"); return;
	case ppt_pad: PF(opcode, "pad"); f->skip = o->no_pad; return;
	case ppt_ovf: PF(opcode, "ovf"); return;
	case ppt_stop: PF(opcode, "stop"); return;
	case ppt_fup: PF(opcode, "fup"); ip_payload(f, &p->payload.ip); return;
	case ppt_tip: PF(opcode, "tip"); ip_payload(f, &p->payload.ip); return;
	case ppt_tip_pge: PF(opcode, "tip.pge"); ip_payload(f, &p->payload.ip); return;
	case ppt_tip_pgd: PF(opcode, "tip.pgd"); ip_payload(f, &p->payload.ip); return;
	case ppt_pip:
		PF(opcode, "pip");
		PF(payload, "%" PRIx64 "%s", p->payload.pip.cr3, p->payload.pip.nr ? ", nr" : "");
		PF(track_id, "cr3");
		PF(track, "%016" PRIx64, p->payload.pip.cr3);
		return;
	case ppt_vmcs:
		PF(opcode, "vmcs");
		PF(payload, "%" PRIx64, p->payload.vmcs.base);
		PF(track_id, "vmcs");
		PF(track, "%016" PRIx64, p->payload.vmcs.base);
		return;
	case ppt_tnt_8: PF(opcode, "tnt.8"); tnt_payload(f, &p->payload.tnt); return;
	case ppt_tnt_64: PF(opcode, "tnt.64"); tnt_payload(f, &p->payload.tnt); return;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_exec) {
			const struct pt_packet_mode_exec *m = &p->payload.mode.bits.exec;
			PF(opcode, "mode.exec");
			PF(payload, "%s%s%s", m->csd ? "cs.d" : "", m->csd && m->csl ? ", " : "",
			   m->csl ? "cs.l" : "");
		} else if (p->payload.mode.leaf == pt_mol_tsx) {
			const struct pt_packet_mode_tsx *m = &p->payload.mode.bits.tsx;
			PF(opcode, "mode.tsx");
			PF(payload, "%s%s%s", m->intx ? "intx" : "", m->intx && m->abrt ? ", " : "",
			   m->abrt ? "abrt" : "");
		} else {
			PF(opcode, "mode");
			PF(payload, "leaf: %x", (unsigned)p->payload.mode.leaf);
		}
		return;
	case ppt_tsc:
		PF(opcode, "tsc");
		PF(payload, "%" PRIx64, p->payload.tsc.tsc);
		f->skip = o->no_timing;
		return;
	case ppt_cbr:
		PF(opcode, "cbr");
		PF(payload, "%x", p->payload.cbr.ratio);
		f->skip = o->no_timing;
		return;
	case ppt_tma:
		PF(opcode, "tma");
		PF(payload, "%x, %x", p->payload.tma.ctc, p->payload.tma.fc);
		f->skip = o->no_timing;
		return;
	case ppt_mtc:
		PF(opcode, "mtc");
		PF(payload, "%x", p->payload.mtc.ctc);
		f->skip = o->no_timing;
		return;
	case ppt_cyc:
		PF(opcode, "cyc");
		PF(payload, "%" PRIx64, p->payload.cyc.value);
		f->skip = o->no_timing;
		return;
	case ppt_mnt: PF(opcode, "mnt"); PF(payload, "%" PRIx64, p->payload.mnt.payload); return;
	case ppt_exstop:
		PF(opcode, "exstop");
		PF(payload, "%s", p->payload.exstop.ip ? "ip" : "");
		return;
	case ppt_mwait:
		PF(opcode, "mwait");
		PF(payload, "%08x, %08x", p->payload.mwait.hints, p->payload.mwait.ext);
		return;
	case ppt_pwre:
		PF(opcode, "pwre");
		PF(payload, "c%u.%u%s", (p->payload.pwre.state + 1) & 0xf,
		   (p->payload.pwre.sub_state + 1) & 0xf, p->payload.pwre.hw ? ", hw" : "");
		return;
	case ppt_pwrx:
		PF(opcode, "pwrx");
		PF(payload, "%s: c%u, c%u", pwrx_reason(&p->payload.pwrx),
		   (p->payload.pwrx.last + 1) & 0xf, (p->payload.pwrx.deepest + 1) & 0xf);
		return;
	case ppt_ptw:
		PF(opcode, "ptw");
		PF(payload, "%x: %" PRIx64 "%s", p->payload.ptw.plc, p->payload.ptw.payload,
		   p->payload.ptw.ip ? ", ip" : "");
		return;
	default:
		PF(opcode, "<unknown>");
		return;
	}
}

static void format_line(char *out, size_t n, uint64_t offset, const struct fields *f,
			const tk_pt_dump_opts *o)
{
	char off[24] = "";
	const char *sep = "";
	if (!o->no_offset) {
		snprintf(off, sizeof off, "%016" PRIx64 " ", offset);
		sep = " ";
	}
	int w = f->payload[0] ? 10 : 0;
	if (f->track_id[0])
		snprintf(out, n, "%s%s%-*s %-25s %-5s%s", off, sep, w, f->opcode, f->payload,
			 f->track_id, f->track);
	else if (f->payload[0])
		snprintf(out, n, "%s%s%-*s %s", off, sep, w, f->opcode, f->payload);
	else
		snprintf(out, n, "%s%s%s", off, sep, f->opcode);
}

/* Dump [s, e) of a stream (a contiguous run). */
static int dump_run(const tk_pt *pt, const struct pt_stream *st, uint64_t s, uint64_t e,
		    const tk_pt_dump_opts *o, int (*line)(void *, const char *), void *ctx)
{
	struct pt_config cfg;
	tk_pt_config(pt, &cfg, st->info.data + s, st->info.data + e);
	struct pt_packet_decoder *dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return TK_ERR_NOMEM;
	char text[256];
	int rc = 0;
	int status = pt_pkt_sync_forward(dec);
	if (status < 0 && status != -pte_eos) {
		snprintf(text, sizeof text, "[%" PRIx64 ": sync error: %s]", s,
			 pt_errstr(pt_errcode(status)));
		rc = line(ctx, text);
	}
	while (status >= 0 && rc == 0) {
		uint64_t off = 0;
		pt_pkt_get_offset(dec, &off);
		struct pt_packet p;
		status = pt_pkt_next(dec, &p, sizeof p);
		if (status >= 0) {
			struct fields f;
			memset(&f, 0, sizeof f);
			describe(&f, &p, o);
			if (!f.skip) {
				format_line(text, sizeof text, s + off, &f, o);
				rc = line(ctx, text);
			}
			continue;
		}
		if (status == -pte_eos)
			break;
		snprintf(text, sizeof text, "[%" PRIx64 ": error decoding packet: %s]", s + off,
			 pt_errstr(pt_errcode(status)));
		rc = line(ctx, text);
		status = pt_pkt_sync_forward(dec);
		if (status < 0 && status != -pte_eos && rc == 0) {
			snprintf(text, sizeof text, "[%" PRIx64 ": sync error: %s]", s,
				 pt_errstr(pt_errcode(status)));
			rc = line(ctx, text);
		}
	}
	pt_pkt_free_decoder(dec);
	return rc;
}

int tk_pt_dump(const tk_pt *pt, unsigned i, const tk_pt_dump_opts *opts,
	       int (*line)(void *ctx, const char *text), void *ctx)
{
	if (i >= pt->nstreams || !opts || opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	const struct pt_stream *st = &pt->streams[i];
	uint64_t s = 0;
	for (uint32_t g = 0; g <= st->ngaps; g++) {
		uint64_t e = g < st->ngaps ? st->gaps[g].offset : st->info.size;
		if (e > s) {
			int rc = dump_run(pt, st, s, e, opts, line, ctx);
			if (rc)
				return rc;
		}
		if (g < st->ngaps) {
			char text[160];
			snprintf(text, sizeof text, "[%" PRIx64 ": gap: %s]", st->gaps[g].offset,
				 st->gaps[g].why);
			int rc = line(ctx, text);
			if (rc)
				return rc;
		}
		if (e > s)
			s = e;
	}
	return 0;
}
