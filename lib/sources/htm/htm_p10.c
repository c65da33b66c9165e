/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: POWER10 HTM record sequences (tag 0xABCDF).
 *
 * A sequence is [I-side XLATE] [IEARA] [D-side XLATE]... then INST, MSR,
 * [PREFIX], [DEA DRA]x1-2 or [ESID VSID].  The decoding is that of the
 * public htmdecoder whose test listings define compatibility:
 *  - the page size of each side is the level of the last walk of the most
 *    recent XLATE of that side, and persists across instructions;
 *  - the IEARA gives the 128-byte block EA and the 4K-aligned RA of the
 *    block; INST bits 56-61 give the word within the block;
 *  - RA = block RA | (EA & (page size - 1)) (an OR: the block RA is not
 *    masked);
 *  - branch images are recoded (htm_recode.c);
 *  - the second DEA/DRA pair is read and not used; no radix walk and no
 *    guest page size is produced.
 */
#include <inttypes.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

#define XLATE_MAX_WORDS 38	/* walks + terminator */

unsigned htm_p10_level_shift(unsigned level)
{
	static const unsigned char shift[8] = {12, 16, 21, 24, 30, 0, 40, 0};
	return shift[level & 7];
}

static int invalid(tk_htm *d, uint64_t off, uint64_t w, const char *why)
{
	d->stats.invalid_sequences++;
	if (d->opts.on_invalid) {
		tk_htm_invalid inv = {d->stats.records_scanned, off, w, why};
		d->opts.on_invalid(d->opts.ctx, &inv);
	}
	if (++d->consecutive_errors > HTM_MAX_CONSECUTIVE_ERRORS)
		return htm_fail(d, TK_ERR_CORRUPT, off,
				"more than %d invalid records in a row: giving up",
				HTM_MAX_CONSECUTIVE_ERRORS);
	return 0;
}

static int ends_inside(tk_htm *d, uint64_t start)
{
	htm_warn(d, start, "the dump ends inside a POWER10 record sequence (dropped)");
	d->done = true;
	return 0;
}

/* Read an XLATE's walk words; sets the side's page shift. Returns 1 ok,
 * 0 EOF, 2 invalid (no terminator), <0 error. */
static int read_xlate(tk_htm *d, uint64_t hdr)
{
	uint64_t last = 0;
	unsigned nwalks = 0;
	for (unsigned i = 0; i < XLATE_MAX_WORDS; i++) {
		uint64_t w;
		int rc = htm_fetch(d, &w);
		if (rc <= 0)
			return rc;
		if ((w >> 56) & 1) {	/* bit 7: end of the XLATE */
			if (nwalks) {
				unsigned shift = htm_p10_level_shift((unsigned)(last >> 57) & 7);
				if (hdr >> 63)
					d->data_shift = shift;
				else
					d->insn_shift = shift;
			}
			return 1;
		}
		last = w;
		nwalks++;
	}
	return 2;
}

/* ESID/VSID words get the POWER8 checks: a word that is really another
 * record start is given back, and the pair is dropped. */
static bool misplaced(uint64_t w)
{
	return htm_is_stamp(w) || htm_is_p8_info(w);
}

int htm_p10_sequence(tk_htm *d, uint64_t w, uint64_t off)
{
	uint64_t start = off;
	unsigned nxlates = 0;
	bool have_ieara = false;
	uint64_t ieara_ea = 0, ieara_ra = 0;
	int rc;

	for (;;) {
		unsigned type = htm_p10_type(w);
		if (type == P10_IEARA) {
			uint64_t ea, ra;
			if ((rc = htm_fetch(d, &ea)) <= 0 || (rc = htm_fetch(d, &ra)) <= 0)
				return rc < 0 ? rc : ends_inside(d, start);
			have_ieara = true;
			ieara_ea = ea & ~(uint64_t)0x7F;
			ieara_ra = (ra >> 24) << 12;
		} else if (type == P10_XLATE && nxlates < 3) {
			rc = read_xlate(d, w);
			if (rc < 0)
				return rc;
			if (rc == 0)
				return ends_inside(d, start);
			if (rc == 2)
				return invalid(d, off, w, "XLATE without an end-of-walk word");
			nxlates++;
		} else {
			break;
		}
		if ((rc = htm_fetch(d, &w)) <= 0)
			return rc < 0 ? rc : ends_inside(d, start);
		off = d->last_off;
	}
	if (htm_p10_type(w) != P10_INST)
		return invalid(d, off, w, "expected an INST word");

	uint64_t inst = w, inst_off = off;
	bool branch = (inst >> 31) & 1;
	bool prefixed = (inst >> 30) & 1;
	unsigned dcode = (unsigned)inst & 3;
	uint64_t msr = 0, prefix = 0, dea = 0, dra = 0;
	bool have_data = false, truncated = false;

	/* The MSR word may be missing at the very end (a capture cut short):
	 * the instruction is still emitted. */
	rc = htm_fetch(d, &msr);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		truncated = true;
		d->done = true;
		if (prefixed || dcode) {
			htm_warn(d, inst_off, "the dump ends inside a POWER10 record sequence%s",
				 prefixed ? " (prefixed instruction dropped)" : "");
			if (prefixed)
				return 0;
		}
	}
	if (!truncated && prefixed) {
		if ((rc = htm_fetch(d, &prefix)) < 0)
			return rc;
		if (rc == 0) {
			htm_warn(d, inst_off, "the dump ends before the PREFIX word (dropped)");
			d->done = true;
			return 0;
		}
	}
	bool esid = dcode == 3;
	if (!truncated && dcode) {
		unsigned npairs = dcode == 2 ? 2 : 1;
		for (unsigned k = 0; k < npairs; k++) {
			uint64_t a, b;
			rc = htm_fetch(d, &a);
			if (rc > 0 && esid && misplaced(a)) {
				if ((rc = htm_push_back(d, a)) < 0)
					return rc;
				break;
			}
			if (rc > 0)
				rc = htm_fetch(d, &b);
			if (rc > 0 && esid && misplaced(b)) {
				if ((rc = htm_push_back(d, b)) < 0)
					return rc;
				break;
			}
			if (rc < 0)
				return rc;
			if (rc == 0) {
				htm_warn(d, inst_off, "the dump ends inside the data words of a record");
				d->done = true;
				break;
			}
			if (esid) {
				d->stats.esid_records++;
				d->stats.vsid_records++;
				d->stats.vsid_segment_size[b >> 62]++;
			} else if (k == 0) {
				dea = a;
				dra = b;
				have_data = true;
			}
		}
	}
	(void)msr;

	if (have_ieara) {
		d->insn_ea = ieara_ea;
		d->insn_ra_block = ieara_ra;
	}
	d->insn_ea = (d->insn_ea & ~(uint64_t)0x7F) | (((inst >> 2) & 0x3F) << 2);

	uint32_t word = (uint32_t)(inst >> 32);
	bool isel = tk_ppc_primary(word) == 31 && ((word >> 1) & 0x1F) == 15;
	if (branch && !isel)
		word = tk_htm_p10_recode(word, d->insn_ea);
	word = tk_htm_fixup_word(word);

	/* A 0 word would read back as a Qtrace header, and a PREFIX word must
	 * be a prefix: damaged data, dropped. */
	if (prefixed ? !tk_ppc_is_prefix((uint32_t)(prefix >> 32)) : word == 0) {
		if (prefixed)
			htm_warn(d, inst_off, "PREFIX word %016" PRIx64 " is not a prefix (dropped)", prefix);
		else
			htm_warn(d, inst_off, "instruction image 0 (dropped)");
		d->stats.invalid_sequences++;
		return 0;
	}

	tk_qt_record *rec = htm_new_record(d);
	rec->offset = inst_off;
	rec->ea = d->insn_ea;
	rec->insn = prefixed ? (uint32_t)(prefix >> 32) : word;
	if (branch || tk_ppc_is_rfi_like(rec->insn))
		rec->valid |= TK_QT_BRANCH;
	if (tk_ppc_is_conditional_branch(rec->insn))
		rec->valid |= TK_QT_CONDITIONAL;
	if (!esid && d->insn_shift) {
		rec->valid |= TK_QT_RA | TK_QT_PAGE_SHIFT;
		rec->ra = d->insn_ra_block | (d->insn_ea & (((uint64_t)1 << d->insn_shift) - 1));
		rec->page_shift = (uint8_t)d->insn_shift;
	}
	if (have_data) {
		rec->valid |= TK_QT_DATA_EA;
		rec->data_ea = dea;
		if (d->data_shift) {
			rec->valid |= TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT;
			rec->data_ra = ((dra >> 23) << 12) | (dea & (((uint64_t)1 << d->data_shift) - 1));
			rec->data_page_shift = (uint8_t)d->data_shift;
		}
	}
	d->consecutive_errors = 0;
	d->stats.p10_records++;
	htm_emit(d, rec, false);
	if (prefixed) {
		tk_qt_record *suf = htm_new_record(d);
		suf->offset = inst_off;
		suf->ea = d->insn_ea + 4;
		suf->insn = word;
		htm_emit(d, suf, true);
	}
	return 0;
}
