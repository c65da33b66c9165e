/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: POWER8 HTM instruction records (tag 0xABCDE) and the software
 * TLB that gives instructions without an IRA word their real address.
 *
 * An INFO word is followed by the words its flags announce, in the order
 * IEA, IRA, DEA (or ESID), DRA (or VSID).  The hardware sometimes drops
 * them: a word that is really a stamp or another INFO word means that the
 * expected word and all later ones are missing; it is given back to be read
 * again as a record of its own, and the instruction is still emitted.
 *
 * Unlike the reference decoder, records get `branch` (the INFO branch bit,
 * or an rfi-like word) and `conditional` set, and ESID-mode records get no
 * data EA.
 */
#include <inttypes.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

unsigned htm_p8_ira_shift(unsigned code)
{
	static const unsigned char s[4] = {0, 12, 16, 24};
	return s[code & 3];
}

unsigned htm_p8_dra_shift(unsigned code)
{
	static const unsigned char s[4] = {12, 16, 0, 24};
	return s[code & 3];
}

/* ---- software TLB ---------------------------------------------------------- */

static const unsigned tlb_shifts[3] = {12, 16, 24};

void htm_tlb_insert(tk_htm *d, uint64_t ea, uint64_t ra_page, unsigned shift)
{
	for (int i = 0; i < 3; i++) {
		if (tlb_shifts[i] != shift)
			continue;
		uint64_t page = ea >> shift;
		htm_tlb_entry *e = &d->tlb[i][htm_tlb_slot(page)];
		e->ea_page = page + 1;	/* a newer mapping replaces what was there */
		e->ra_page = ra_page;
	}
}

/* The smallest page that holds the EA wins. */
bool htm_tlb_lookup(const tk_htm *d, uint64_t ea, uint64_t *ra_page, unsigned *shift)
{
	for (int i = 0; i < 3; i++) {
		uint64_t page = ea >> tlb_shifts[i];
		const htm_tlb_entry *e = &d->tlb[i][htm_tlb_slot(page)];
		if (e->ea_page == page + 1) {
			*ra_page = e->ra_page;
			*shift = tlb_shifts[i];
			return true;
		}
	}
	return false;
}

void tk_htm_tlb_foreach(const tk_htm *d,
			void (*fn)(void *ctx, uint64_t ea, uint64_t ra, unsigned page_shift), void *ctx)
{
	for (int i = 0; i < 3; i++)
		for (uint32_t k = 0; k < TLB_SLOTS; k++) {
			const htm_tlb_entry *e = &d->tlb[i][k];
			if (e->ea_page)
				fn(ctx, (e->ea_page - 1) << tlb_shifts[i], e->ra_page, tlb_shifts[i]);
		}
}

/* ---- records ------------------------------------------------------------------- */

enum { W_IEA, W_IRA, W_DEA, W_DRA, NWORDS };

int htm_p8_record(tk_htm *d, uint64_t info, uint64_t off)
{
	if (!((info >> 7) & 1))
		return 0;	/* not valid: dropped, the next words are read at top level */
	uint32_t image = (uint32_t)(info >> 32);
	bool branch = (info >> 31) & 1;
	bool want[NWORDS] = {(info >> 6) & 1, (info >> 5) & 1, (info >> 4) & 1, (info >> 3) & 1};
	bool esid = (info >> 2) & 1;
	uint64_t word[NWORDS] = {0};
	bool have[NWORDS] = {false};

	for (int k = 0; k < NWORDS; k++) {
		if (!want[k])
			continue;
		uint64_t w;
		int rc = htm_fetch(d, &w);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			htm_warn(d, off, "the dump ends inside a POWER8 record");
			d->done = true;
			break;
		}
		bool missing = htm_is_stamp(w) || htm_is_p8_info(w);
		if (k == W_IRA && !missing && ((w & 0x7FFFFF) || !htm_p8_ira_shift((unsigned)(w >> 24))))
			missing = true;	/* not an IRA word */
		if (missing) {
			if (htm_is_stamp(w) || htm_is_p8_info(w)) {
				rc = htm_push_back(d, w);
				if (rc < 0)
					return rc;
			} else {
				htm_warn(d, d->last_off, "bad IRA word %016" PRIx64 " (page size code %u)",
					 w, (unsigned)(w >> 24) & 3);
			}
			break;
		}
		word[k] = w;
		have[k] = true;
	}
	if (image == 0) {
		htm_warn(d, off, "POWER8 record with an instruction image of 0 (dropped)");
		d->stats.invalid_sequences++;
		return 0;
	}

	tk_qt_record *rec = htm_new_record(d);
	rec->offset = off;
	rec->ea = have[W_IEA] ? word[W_IEA] & ~(uint64_t)3 : d->p8_prev_ea + 4;
	d->p8_prev_ea = rec->ea;
	bool ir = have[W_IEA] && (word[W_IEA] & 1);

	uint64_t ra_page = 0;
	unsigned shift = 0;
	if (have[W_IRA]) {
		ra_page = (word[W_IRA] >> 26) << 12;
		shift = htm_p8_ira_shift((unsigned)(word[W_IRA] >> 24));
		if (ir)
			htm_tlb_insert(d, rec->ea, ra_page, shift);
	} else if (have[W_IEA]) {
		if (!ir) {
			ra_page = rec->ea & ~((uint64_t)3 << 62) & ~(uint64_t)0xFFF;
			shift = 12;
		} else if (!htm_tlb_lookup(d, rec->ea, &ra_page, &shift)) {
			shift = 0;
		}
	}
	if (!esid && shift) {
		rec->valid |= TK_QT_RA | TK_QT_PAGE_SHIFT;
		rec->ra = ra_page | (rec->ea & (((uint64_t)1 << shift) - 1));
		rec->page_shift = (uint8_t)shift;
	}
	if (esid) {
		if (have[W_DEA])
			d->stats.esid_records++;
		if (have[W_DRA]) {
			d->stats.vsid_records++;
			d->stats.vsid_segment_size[word[W_DRA] >> 62]++;
		}
	} else if (have[W_DEA]) {
		rec->valid |= TK_QT_DATA_EA;
		rec->data_ea = word[W_DEA];
		if (have[W_DRA]) {
			unsigned code = (unsigned)(word[W_DRA] >> 62);
			unsigned ds = htm_p8_dra_shift(code);
			if (!ds) {
				htm_warn(d, off, "invalid data page size %u", code);
			} else {
				uint64_t page = ((word[W_DRA] >> 24) & (((uint64_t)1 << 38) - 1)) << 12;
				rec->valid |= TK_QT_DATA_RA | TK_QT_DATA_PAGE_SHIFT;
				rec->data_ra = page | (rec->data_ea & (((uint64_t)1 << ds) - 1));
				rec->data_page_shift = (uint8_t)ds;
			}
		}
	}

	uint32_t w = image;
	bool isel = tk_ppc_primary(w) == 31 && ((w >> 1) & 0x1F) == 15;
	if (branch && !isel)
		w = tk_htm_p8_demunge(w, rec->ea);
	w = tk_htm_fixup_word(w);
	rec->insn = w;
	if (branch || tk_ppc_is_rfi_like(w))
		rec->valid |= TK_QT_BRANCH;
	if (tk_ppc_is_conditional_branch(w))
		rec->valid |= TK_QT_CONDITIONAL;
	d->stats.p8_records++;
	htm_emit(d, rec, false);
	return 0;
}
