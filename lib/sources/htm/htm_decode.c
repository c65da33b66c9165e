/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the HTM decoder's top level — word dispatch, the pull API,
 * statistics, and content detection.
 *
 * At the top level a zero word is skipped, a stamp is reported, a POWER8
 * INFO word (tag 0xABCDE) starts a POWER8 record and any word tagged
 * 0xABCDF starts a POWER10 sequence; anything else is ignored, as the
 * hardware leaves filler in the buffer.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

void htm_idset_add(htm_idset *s, uint64_t v)
{
	if (v + 1 == s->last)
		return;
	s->last = v + 1;
	if (s->count * 2 >= s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *n = calloc(ncap, sizeof *n);
		if (!n)
			return;	/* statistics only */
		for (uint32_t i = 0; i < s->cap; i++)
			if (s->slots[i]) {
				uint32_t h = (uint32_t)((s->slots[i] * 0x9E3779B97F4A7C15ull) >> 32) & (ncap - 1);
				while (n[h])
					h = (h + 1) & (ncap - 1);
				n[h] = s->slots[i];
			}
		free(s->slots);
		s->slots = n;
		s->cap = ncap;
	}
	uint64_t key = v + 1;
	uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (s->cap - 1);
	while (s->slots[h]) {
		if (s->slots[h] == key)
			return;
		h = (h + 1) & (s->cap - 1);
	}
	s->slots[h] = key;
	s->count++;
}

static int page_index(unsigned shift)
{
	return shift == 12 ? 0 : shift == 16 ? 1 : shift == 24 ? 2 : -1;
}

tk_qt_record *htm_new_record(tk_htm *d)
{
	tk_qt_record *q = &d->queue[(d->qhead + d->qlen) & 1];
	memset(q, 0, sizeof *q);
	return q;
}

void htm_emit(tk_htm *d, tk_qt_record *rec, bool suffix)
{
	tk_htm_stats *st = &d->stats;
	if (!suffix) {
		st->insns_scanned++;
		st->insns_processed++;
		if (rec->valid & TK_QT_RA) {
			st->insns_with_ira++;
			htm_idset_add(&d->esid_ira, rec->ea >> 28);
		} else {
			st->insns_without_ira++;
			htm_idset_add(&d->esid_noira, rec->ea >> 28);
		}
		int pi = page_index(rec->page_shift);
		if ((rec->valid & TK_QT_PAGE_SHIFT) && pi >= 0)
			st->insn_pages[pi]++;
		pi = page_index(rec->data_page_shift);
		if ((rec->valid & TK_QT_DATA_PAGE_SHIFT) && pi >= 0)
			st->data_pages[pi]++;
		if (d->have_prev && rec->ea != d->prev_ea + 4) {
			if (rec->ea && d->prev_ea && !(rec->ea & ~(uint64_t)0xF80))
				st->interrupts++;
			if (!d->prev_was_branch)
				st->jumps_after_non_branch++;
		}
	}
	st->esids_with_irpn = d->esid_ira.count;
	st->esids_without_irpn = d->esid_noira.count;
	d->prev_ea = rec->ea;
	d->prev_was_branch = rec->valid & TK_QT_BRANCH;
	d->have_prev = true;

	rec->number = ++d->number;
	d->qlen++;
}

int tk_htm_next(tk_htm *d, tk_qt_record *rec)
{
	if (d->err)
		return d->err;
	while (d->qlen == 0) {
		if (d->done)
			return 0;
		uint64_t w;
		int rc = htm_fetch_raw(d, &w);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			d->done = true;
			return 0;
		}
		uint64_t off = d->last_off;
		if (w == 0)
			continue;
		if (htm_is_stamp(w)) {
			d->stats.records_scanned++;
			d->stats.records_processed++;
			htm_handle_stamp(d, w, off);
			continue;
		}
		bool p8 = htm_is_p8_info(w);
		if (!p8 && !htm_is_p10(w)) {
			d->stats.untagged_words++;
			continue;
		}
		d->stats.records_scanned++;
		uint64_t bad = d->stats.invalid_sequences;
		rc = p8 ? htm_p8_record(d, w, off) : htm_p10_sequence(d, w, off);
		if (rc < 0)
			return rc;
		if (d->stats.invalid_sequences == bad)
			d->stats.records_processed++;
	}
	*rec = d->queue[d->qhead];
	d->qhead = (d->qhead + 1) & 1;
	d->qlen--;
	return 1;
}

int tk_htm_probe(const void *head, size_t len)
{
	const unsigned char *p = head;
	size_t n = len / 8;
	if (n > 64)
		n = 64;
	int known = 0, first = -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t w;
		memcpy(&w, p + 8 * i, 8);
		w = be64toh(w);
		if (w == 0)
			continue;
		bool ok = htm_is_stamp(w) || (htm_is_p8_info(w) && ((w >> 7) & 1)) ||
			  (htm_is_p10(w) && htm_p10_type(w) != P10_NONE);
		if (first < 0)
			first = ok;
		known += ok;
	}
	if (first != 1)
		return 0;
	return known >= 2 ? 90 : 60;
}
