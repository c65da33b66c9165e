/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Qtrace files and POWER Core HTM dumps as event sources.
 *
 * The POWER instruction stream (power.h) already merges prefixed pairs and
 * classifies branches by link-register semantics; this turns each of its
 * instructions into events:
 *
 *   TK_EV_GAP   before an instruction the trace lost its way to (an
 *               embedded Qtrace header, HTM sequences stepped over);
 *   TK_EV_INSN  pc = EA, isa ppc64, width 4 or 8, the word(s) big-endian,
 *               the branch kind, and the libopcodes text for events read
 *               after a seek (positions shown to people; a streaming pass
 *               leaves it empty: disassembly would triple its time);
 *   TK_EV_MEM   the data EA of a load or store (size unknown to the trace:
 *               taken from the instruction when it says, value unknown).
 *
 * Positions: line = the record number (1-based) of the instruction's
 * (first) record, offset = the byte offset of that record (of the INST or
 * INFO word in a dump).  Time counts instructions: the n-th instruction
 * has time n.
 *
 * Neither format can be entered in the middle (a Qtrace record depends on
 * the records before it, a dump on the XLATEs before it), so a seek
 * backwards reopens the file and decodes forward to the record.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sources/power/power_source.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

typedef struct power_source {
	tk_source base;
	tk_power *p;
	tk_power_format which;
	tk_ppc_disasm *dis;		/* made at the first seek (see power_seek) */
	uint64_t ninsn;			/* instructions delivered so far */
	uint64_t last_number;		/* record number of the last one */
	tk_event evs[3];		/* GAP, INSN, MEM of one instruction */
	unsigned nev, iev;
	char text[128];			/* disassembly of evs' instruction */
	int sticky;
} power_source;

/* Diagnostics of the reader or decoder: their byte offset is kept. */
static void forward_diag(void *ctx, const tk_diag *d)
{
	tk_source *s = ctx;
	if (d->has_offset)
		tk_source_report_at(s, d->level, d->offset, "%s", d->msg);
	else
		tk_source_report(s, d->level, 0, "%s", d->msg);
}

/* Report "FILE: offset N: MESSAGE" (the reader's and decoder's error
 * form) as a diagnostic about byte N. */
static void report_error(tk_source *s, const char *msg)
{
	if (!msg || !*msg)
		return;
	size_t n = strlen(s->path);
	const char *p = msg;
	if (!strncmp(p, s->path, n) && !strncmp(p + n, ": offset ", 9)) {
		char *end;
		uint64_t off = strtoull(p + n + 9, &end, 10);
		if (end != p + n + 9 && !strncmp(end, ": ", 2)) {
			tk_source_report_at(s, TK_DIAG_ERROR, off, "%s", end + 2);
			return;
		}
	}
	if (!strncmp(p, s->path, n) && !strncmp(p + n, ": ", 2))
		p += n + 2;
	tk_source_report(s, TK_DIAG_ERROR, 0, "%s", p);
}

static int reopen(power_source *ps)
{
	tk_power_opts o;
	tk_power_opts_init(&o);
	o.format = ps->which;
	o.diag = forward_diag;
	o.diag_ctx = &ps->base;
	tk_power_free(ps->p);
	ps->p = NULL;
	int rc = tk_power_open(ps->base.path, &o, &ps->p);
	if (rc < 0) {
		report_error(&ps->base, tk_power_last_error());
		return rc;
	}
	ps->base.size = tk_power_size(ps->p);
	ps->ninsn = ps->last_number = 0;
	ps->nev = ps->iev = 0;
	ps->sticky = 0;
	return 0;
}

/* The common X-form loads and stores (primary 31): bytes, and whether it
 * stores. */
static uint32_t x_form_size(uint32_t w, bool *store)
{
	unsigned xo = (w >> 1) & 1023;
	*store = false;
	switch (xo) {
	case 87: case 119: return 1;				/* lbzx lbzux */
	case 279: case 311: case 343: case 375: return 2;	/* lhzx lhzux lhax lhaux */
	case 23: case 55: case 341: case 373: return 4;		/* lwzx lwzux lwax lwaux */
	case 21: case 53: case 20: return 8;			/* ldx ldux ldarx */
	case 215: case 247: *store = true; return 1;		/* stbx stbux */
	case 407: case 439: *store = true; return 2;		/* sthx sthux */
	case 151: case 183: case 150: *store = true; return 4;	/* stwx stwux stwcx. */
	case 149: case 181: case 214: *store = true; return 8;	/* stdx stdux stdcx. */
	default: return 0;
	}
}

/* Bytes a load or store accesses, from its opcode (D, DS and common X
 * forms); 0 where the word does not say simply (vector, string, prefixed). */
static uint32_t access_size(uint32_t w)
{
	bool store;
	switch (tk_ppc_primary(w)) {
	case 31:
		return x_form_size(w, &store);
	case 34: case 35: case 38: case 39: case 88:		/* lbz(u) stb(u) lbzx.. */
		return 1;
	case 40: case 41: case 42: case 43: case 44: case 45:	/* lhz lha sth (u) */
		return 2;
	case 32: case 33: case 36: case 37: case 48: case 49:	/* lwz stw lfs stfs (u) */
	case 52: case 53:
		return 4;
	case 50: case 51: case 54: case 55:			/* lfd stfd (u) */
		return 8;
	case 58: case 62:					/* ld ldu lwa / std stdu stq */
		return (w & 3) == 2 ? ((w >> 26) == 58 ? 4 : 16) : 8;
	case 46: case 47:					/* lmw stmw */
		return 4 * (32 - ((w >> 21) & 31));
	default:
		return 0;
	}
}

static bool is_store(uint32_t w)
{
	bool store;
	switch (tk_ppc_primary(w)) {
	case 31:
		x_form_size(w, &store);
		return store;
	case 36: case 37: case 38: case 39: case 44: case 45: case 47:
	case 52: case 53: case 54: case 55: case 62:
		return true;
	default:
		return false;
	}
}

/* The largest access access_size() gives (lmw/stmw of r0..r31). */
#define MAX_ACCESS 128

/* Values are not traced: every byte accessed is unknown. */
#define U4 TK_BYTE_UNKNOWN, TK_BYTE_UNKNOWN, TK_BYTE_UNKNOWN, TK_BYTE_UNKNOWN
#define U32 U4, U4, U4, U4, U4, U4, U4, U4
static const uint8_t zero_bytes[MAX_ACCESS];
static const uint8_t unknown_state[MAX_ACCESS] = {U32, U32, U32, U32};

/* Make the events of one instruction. */
static void build(power_source *ps, const tk_power_insn *in)
{
	uint64_t time = ++ps->ninsn;
	ps->last_number = in->number;
	ps->nev = ps->iev = 0;
	tk_event *ev;
	if (in->gap_before && time > 1) {
		ev = &ps->evs[ps->nev++];
		memset(ev, 0, sizeof *ev);
		ev->kind = TK_EV_GAP;
		ev->time = time - 1;
		ev->line = in->number;
		ev->offset = in->offset;
		ev->u.gap.kind = ps->which == TK_POWER_HTM ? TK_GAP_DECODE_ERROR : TK_GAP_OTHER;
		ev->u.gap.msg = ps->which == TK_POWER_HTM ? "HTM records stepped over"
							  : "the trace restarts (embedded header)";
		ev->u.gap.msg_len = strlen(ev->u.gap.msg);
		tk_source_report_at(&ps->base, TK_DIAG_WARNING, in->offset,
				    "%s before record %" PRIu64 ": instructions may be missing",
				    ev->u.gap.msg, in->number);
	}
	ev = &ps->evs[ps->nev++];
	memset(ev, 0, sizeof *ev);
	ev->kind = TK_EV_INSN;
	ev->time = time;
	ev->line = in->number;
	ev->offset = in->offset;
	tk_insn *ins = &ev->u.insn;
	ins->pc = in->ea;
	ins->isa = TK_ISA_PPC64;
	ins->branch = in->branch;
	ins->width = in->width;
	ins->executed = true;
	ins->mode = "";
	uint64_t enc = in->width == 8 ? (uint64_t)in->words[0] << 32 | in->words[1] : in->words[0];
	tk_insn_set_encoding(ins, enc, in->width);
	ins->disasm = "";
	if (ps->dis) {
		size_t n = tk_ppc_disasm_insn(ps->dis, in->ea, in->words, in->width / 4u, ps->text,
					      sizeof ps->text);
		while (n && ps->text[n - 1] == ' ')	/* the address printer's space */
			n--;
		ps->text[n] = 0;
		ins->disasm = ps->text;
		ins->disasm_len = n;
	}
	if (in->has_data_ea) {
		ev = &ps->evs[ps->nev++];
		memset(ev, 0, sizeof *ev);
		ev->kind = TK_EV_MEM;
		ev->time = time;
		ev->line = in->number;
		ev->offset = in->offset;
		ev->u.mem.addr = in->data_ea;
		ev->u.mem.size = in->width == 4 ? access_size(in->words[0]) : 0;
		ev->u.mem.write = in->width == 4 && is_store(in->words[0]);
		ev->u.mem.bytes = zero_bytes;
		ev->u.mem.state = unknown_state;
		ev->u.mem.has_paddr = in->has_data_ra;
		ev->u.mem.paddr = in->data_ra;
	}
}

/* The next instruction's events into evs; 1, 0 at the end, or an error
 * (reported). */
static int advance(power_source *ps)
{
	tk_power_insn in;
	int rc = tk_power_next(ps->p, &in);
	ps->base.pos = tk_power_offset(ps->p);
	if (rc < 0) {
		report_error(&ps->base, tk_power_error(ps->p));
		return ps->sticky = rc;
	}
	if (rc == 0)
		return 0;
	build(ps, &in);
	return 1;
}

static int power_next(tk_source *s, tk_event *ev)
{
	power_source *ps = (power_source *)s;
	if (ps->sticky)
		return ps->sticky;
	if (ps->iev >= ps->nev) {
		int rc = advance(ps);
		if (rc <= 0)
			return rc;
	}
	*ev = ps->evs[ps->iev++];
	return 1;
}

static int power_seek(tk_source *s, const tk_seek_point *at)
{
	power_source *ps = (power_source *)s;
	if (at->line == 0 || (s->size && at->offset > s->size))
		return TK_ERR_INVAL;
	/* Who seeks shows positions to people (the browsers, dump): give
	 * them the disassembly from now on.  A streaming pass (profile,
	 * calltree, index) never seeks and does not pay for it. */
	if (!ps->dis && tk_ppc_disasm_new(NULL, NULL, &ps->dis) < 0)
		return TK_ERR_NOMEM;
	/* Still to come without going back?  (The current instruction's
	 * events, if it is the one asked for, are given again.) */
	bool ahead = !ps->sticky && (at->line > ps->last_number ||
				     (at->line == ps->last_number && ps->nev));
	if (!ahead) {
		int rc = reopen(ps);
		if (rc < 0)
			return rc;
	}
	if (ps->last_number == at->line) {
		ps->iev = 0;
		return 0;
	}
	for (;;) {
		int rc = advance(ps);
		if (rc < 0)
			return rc;
		if (rc == 0 || ps->last_number > at->line)
			return TK_ERR_INVAL;	/* no instruction starts there */
		if (ps->last_number == at->line)
			return 0;
	}
}

static void power_free(tk_source *s)
{
	power_source *ps = (power_source *)s;
	tk_power_free(ps->p);
	tk_ppc_disasm_free(ps->dis);
}

static const tk_source_ops power_ops = {
	.next = power_next,
	.free = power_free,
	.seek = power_seek,
};

int tk_power_source_open(const tk_source_format *fmt, tk_power_format which, const char *path,
			 const tk_source_spec *spec, tk_source **out)
{
	*out = NULL;
	power_source *ps = calloc(1, sizeof *ps);
	if (!ps)
		return TK_ERR_NOMEM;
	ps->which = which;
	int rc = tk_source_init(&ps->base, &power_ops, fmt, path, spec);
	if (rc == 0)
		rc = tk_source_set_options(&ps->base, spec);
	if (rc == 0)
		rc = reopen(ps);
	if (rc < 0) {
		tk_source_free(&ps->base);
		return rc;
	}
	ps->base.info.isa = TK_ISA_PPC64;
	ps->base.info.big_endian = false;	/* not in the trace; values are not either */
	*out = &ps->base;
	return 0;
}
