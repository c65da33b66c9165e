/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Qtrace reader — instruction records.
 *
 * The reader's state follows the reference reader: the "next instruction"
 * facts of a record (EA, RPN, page sizes, walk) become the current ones of
 * the next record; RPN, page size and walk are sticky; a record without
 * termination whose word is a conditional branch is marked a conditional
 * branch (termination 0), and the termination of an unconditional branch
 * form is never conditional.  Registers are bounds-checked (255 of each
 * kind at most, as the counts are bytes).
 */
#include <inttypes.h>
#include <string.h>

#include "sources/qtrace/qtrace_reader.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

/* ---- records ---------------------------------------------------------------- */

static void parse_reg_values(cursor *c, unsigned n, unsigned idx_bytes, tk_qt_reg *out)
{
	for (unsigned i = 0; i < n; i++) {
		out[i].index = idx_bytes == 2 ? get16(c) : get8(c);
		out[i].value = get64(c);
	}
}

static void parse_regs(tk_qt_reader *r, cursor *c)
{
	tk_qt_regs *g = &r->regs;
	bool vsx = r->version >= 0x07000000u;
	for (int k = 0; k < 2; k++) {
		g->n_gpr[k] = get8(c);
		g->n_fpr[k] = get8(c);
		g->n_vmx[k] = get8(c);
		g->n_vsx[k] = vsx ? get8(c) : 0;
		g->n_spr[k] = get8(c);
	}
	for (int k = 0; k < 2; k++) {
		parse_reg_values(c, g->n_gpr[k], 1, r->reg_store[0][k]);
		parse_reg_values(c, g->n_fpr[k], 1, r->reg_store[1][k]);
		skip(c, 18u * g->n_vmx[k]);
		skip(c, 18u * g->n_vsx[k]);
		parse_reg_values(c, g->n_spr[k], 2, r->reg_store[2][k]);
		g->gpr[k] = r->reg_store[0][k];
		g->fpr[k] = r->reg_store[1][k];
		g->spr[k] = r->reg_store[2][k];
	}
}

/* Promote the "next" translation facts to the current instruction. */
static void promote(tk_qt_reader *r, uint64_t off)
{
	if (r->next_rpn_valid) {
		if (!r->rpn_valid)
			qt_note(r, off, "insn rpn becomes valid");
		r->rpn = r->next_rpn;
		r->rpn_valid = true;
	}
	if (r->next_ps_valid) {
		if (!r->ps_valid)
			qt_note(r, off, "insn page size becomes valid");
		r->ps = r->next_ps;
		r->ps_valid = true;
	}
	if (r->next_gps_valid) {
		if (!r->gps_valid)
			qt_note(r, off, "guest insn page size becomes valid");
		r->gps = r->next_gps;
		r->gps_valid = true;
	}
	if (r->next_insn_walk.nr_ptes) {
		r->insn_walk = r->next_insn_walk;
		r->next_insn_walk.nr_ptes = 0;
	}
}

static uint64_t page_mask(unsigned shift)
{
	return shift >= 64 ? UINT64_MAX : ((uint64_t)1 << shift) - 1;
}

static uint64_t rebuild_ra(uint32_t rpn, bool shift_valid, unsigned shift, uint64_t ea)
{
	unsigned s = shift_valid ? shift : 16;
	if (s >= 64)
		return ea;
	return ((uint64_t)rpn << s) | (ea & page_mask(s));
}

/* Only primary opcodes 16 (bc) and 19 (bclr, bcctr, bctar) can be
 * conditional branches: a cheap test before the full one. */
static inline bool may_be_branch(uint32_t w)
{
	unsigned op = w >> 26;
	return op == 16 || op == 19;
}

static int parse_record(tk_qt_reader *r, cursor *c, tk_qt_record *rec)
{
	uint64_t start = qt_off_of(r, c);
	memset(rec, 0, sizeof *rec);
	rec->offset = start;
	rec->number = ++r->number;
	rec->ea = r->next_ea;
	promote(r, start);
	if (r->insn_walk.nr_ptes)
		rec->insn_walk = &r->insn_walk;
	if (r->rpn_valid) {
		rec->valid |= TK_QT_RA;
		rec->ra = rebuild_ra(r->rpn, r->ps_valid, r->ps, rec->ea);
	}
	if (r->ps_valid) {
		rec->valid |= TK_QT_PAGE_SHIFT;
		rec->page_shift = r->ps;
	}
	if (r->gps_valid) {
		rec->valid |= TK_QT_GUEST_PAGE_SHIFT;
		rec->guest_page_shift = r->gps;
	}

	rec->insn = get32(c);
	if (r->prev_prefix)
		rec->valid |= TK_QT_SUFFIX;
	uint16_t flags = get16(c);
	uint16_t flags2 = (flags & QTF_EXTENDED) ? get16(c) : 0;
	uint16_t flags3 = (flags2 & QTF2_EXTENDED2) ? get16(c) : 0;
	if (c->short_read)
		return qt_short_entry(r, start, "a record");
	if (flags & QTF_UNKNOWN)
		return qt_fail(r, TK_ERR_CORRUPT, start, "unhandled flags 0x%04x", flags & QTF_UNKNOWN);
	if (flags2 & ~QTF2_KNOWN)
		return qt_fail(r, TK_ERR_CORRUPT, start, "unhandled flags2 0x%04x", flags2 & ~QTF2_KNOWN);

	if (flags == QTF_EXTENDED && flags2 == 0) {
		/* The common record: sequential, nothing about the next
		 * instruction, no data. */
		r->next_ea = rec->ea + 4;
		r->next_rpn_valid = r->next_ps_valid = r->next_gps_valid = false;
		rec->next_ea = r->next_ea;
		if (may_be_branch(rec->insn) && tk_ppc_is_conditional_branch(rec->insn))
			rec->valid |= TK_QT_BRANCH | TK_QT_CONDITIONAL;
		r->prev_prefix = tk_ppc_is_prefix(rec->insn);
		return 0;
	}
	if (flags & QTF_NODE) {
		rec->valid |= TK_QT_NODE;
		rec->node = get8(c);
	}
	if (flags & QTF_TERMINATION) {
		uint64_t at = qt_off_of(r, c);
		rec->term_node = get8(c);
		rec->term_code = get8(c);
		if (c->short_read)
			return qt_short_entry(r, start, "a record");
		switch (rec->term_code) {
		case TK_QT_TERM_MAX_BRANCH_DEPTH:
		case TK_QT_TERM_MAX_INST_DEPTH:
			rec->valid |= TK_QT_CONDITIONAL;
			break;
		case TK_QT_TERM_UNCONDITIONAL:
		case TK_QT_TERM_EXCEPTION:
			break;
		default:
			return qt_fail(r, TK_ERR_CORRUPT, at, "inconsistent branch: termination code 0x%02x",
				    rec->term_code);
		}
		rec->valid |= TK_QT_BRANCH | TK_QT_TERM;
	}
	if (flags & QTF_PROCESSOR)
		get8(c);
	if (flags & QTF_DATA_ADDRESS) {
		rec->valid |= TK_QT_DATA_EA;
		rec->data_ea = get64(c);
	}
	if (flags & QTF_DATA_VSID)
		skip(c, 7);
	if (flags & QTF_DATA_RPN) {
		if (flags2 & QTF2_EXTENDED2) {
			int rc = qt_parse_walk(r, c, (flags3 >> QTF3_DATA_HOST_SHIFT) & 3,
					    (flags3 >> QTF3_DATA_GUEST_SHIFT) & 3, &r->data_walk);
			if (rc < 0)
				return rc;
			if (r->data_walk.nr_ptes)
				rec->data_walk = &r->data_walk;
		}
		rec->valid |= TK_QT_DATA_RPN;
		rec->data_rpn = get32(c);
	}
	if (flags & QTF_IAR) {
		rec->valid |= TK_QT_IAR;
		r->next_ea = get64(c);
	} else {
		r->next_ea = rec->ea + 4;
	}
	if (flags & QTF_IAR_VSID)
		skip(c, 7);
	r->next_rpn_valid = false;
	if (flags & QTF_IAR_RPN) {
		if (flags2 & QTF2_EXTENDED2) {
			int rc = qt_parse_walk(r, c, (flags3 >> QTF3_INSN_HOST_SHIFT) & 3,
					    (flags3 >> QTF3_INSN_GUEST_SHIFT) & 3, &r->next_insn_walk);
			if (rc < 0)
				return rc;
		}
		r->next_rpn_valid = true;
		r->next_rpn = get32(c);
	}
	if (flags & QTF_REGISTER_TRACE) {
		parse_regs(r, c);
		rec->valid |= TK_QT_REGS;
		rec->regs = &r->regs;
	}
	if (flags2 & QTF2_SEQ_RPN) {
		uint32_t seq = get32(c);
		if (!r->next_rpn_valid) {
			r->next_rpn_valid = true;
			r->next_rpn = seq;
		}
	}
	if (flags2 & QTF2_TRACE_ERROR)
		get8(c);
	if (flags2 & QTF2_SEQ_PAGE_SIZE)
		get8(c);	/* overridden or cleared by the IAR page size just after */
	r->next_ps_valid = false;
	if (flags2 & QTF2_IAR_PAGE_SIZE) {
		r->next_ps_valid = true;
		r->next_ps = get8(c);
	}
	if (flags2 & QTF2_DATA_PAGE_SIZE) {
		rec->valid |= TK_QT_DATA_PAGE_SHIFT;
		rec->data_page_shift = get8(c);
	}
	r->next_gps_valid = false;
	if (flags2 & QTF2_INSN_GPAGE_SIZE) {
		r->next_gps_valid = true;
		r->next_gps = get8(c);
	}
	if (flags2 & QTF2_DATA_GPAGE_SIZE) {
		rec->valid |= TK_QT_GUEST_DATA_PAGE_SHIFT;
		rec->guest_data_page_shift = get8(c);
	}
	if (c->short_read)
		return qt_short_entry(r, start, "a record");

	/* What the record says about the next instruction. */
	rec->next_ea = r->next_ea;
	if (r->next_rpn_valid) {
		rec->valid |= TK_QT_NEXT_RPN;
		rec->next_rpn = r->next_rpn;
	}
	if (r->next_ps_valid) {
		rec->valid |= TK_QT_NEXT_PAGE_SHIFT;
		rec->next_page_shift = r->next_ps;
	}
	if (r->next_gps_valid) {
		rec->valid |= TK_QT_NEXT_GUEST_PAGE_SHIFT;
		rec->next_guest_page_shift = r->next_gps;
	}

	/* Branch fix-ups. */
	if (flags & QTF_TERMINATION) {
		if (r->next_ea != rec->ea + 4)
			rec->valid |= TK_QT_BRANCH_TAKEN;
		if (tk_ppc_is_unconditional_branch(rec->insn))
			rec->valid &= ~(uint32_t)TK_QT_CONDITIONAL;
	} else if (may_be_branch(rec->insn) && tk_ppc_is_conditional_branch(rec->insn)) {
		rec->valid |= TK_QT_BRANCH | TK_QT_CONDITIONAL;
	}
	if (rec->valid & TK_QT_DATA_RPN) {
		rec->valid |= TK_QT_DATA_RA;
		rec->data_ra = rebuild_ra(rec->data_rpn, rec->valid & TK_QT_DATA_PAGE_SHIFT,
					  rec->data_page_shift, rec->data_ea);
	}
	r->prev_prefix = tk_ppc_is_prefix(rec->insn);
	return 0;
}

int tk_qt_reader_next(tk_qt_reader *r, tk_qt_record *rec)
{
	if (r->err)
		return r->err;
	bool after_header = false;
	for (;;) {
		int rc = qt_refill(r);
		if (rc < 0)
			return qt_fail(r, rc, r->base + r->len, "%s", tk_strerror(rc));
		if (r->pos == r->len)
			return 0;
		cursor c = {r->buf + r->pos, r->buf + r->len, false};
		/* An entry whose word is 0 is a header, except after a prefix
		 * (the suffix of a prefixed instruction may be 0). */
		if (!r->prev_prefix && r->len - r->pos >= 4 && get32(&c) == 0) {
			c.p = r->buf + r->pos;
			tk_qt_header h;
			rc = qt_parse_header(r, &c, &h);
			if (rc < 0)
				return rc;
			r->pos = (size_t)(c.p - r->buf);
			after_header = true;
			continue;
		}
		c.p = r->buf + r->pos;
		rc = parse_record(r, &c, rec);
		if (rc < 0)
			return rc;
		if (after_header)
			rec->valid |= TK_QT_AFTER_HEADER;
		r->pos = (size_t)(c.p - r->buf);
		return 1;
	}
}

