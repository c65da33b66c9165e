/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: memory state queries.
 *
 * Memory history is kept per 64-byte chunk (see index_memwrite.c): the
 * chunk directory is sorted by address, each chunk's pages by position.
 * The state of a chunk at position p is the snapshot of the last page
 * starting at or before p, with that page's events up to p replayed.
 */
#include <string.h>

#include "index_impl.h"

uint64_t tk_idx_chunk_lower(const tk_index *idx, uint64_t addr)
{
	uint64_t lo = 0, hi = idx->nchunks;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (tk_get64(tk_idx_chunk(idx, mid) + TK_CH_ADDR) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool tk_idx_page_at(const tk_index *idx, uint64_t c, uint64_t pos, uint64_t *page)
{
	const uint8_t *e = tk_idx_chunk(idx, c);
	uint64_t first = tk_get64(e + TK_CH_FIRSTPAGE);
	uint64_t lo = first, hi = first + tk_get32(e + TK_CH_NPAGES);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (tk_get64(tk_idx_page(idx, mid) + TK_PG_FIRSTPOS) <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return false;
	*page = lo - 1;
	return true;
}

int tk_idx_page_open(const tk_index *idx, uint64_t pg, tk_chunkstate *st, tk_rd *r,
		     tk_memrec *m)
{
	const uint8_t *h = tk_idx_page(idx, pg);
	uint64_t known = tk_get64(h + TK_PG_KNOWN);
	r->p = idx->memdata + tk_get64(h + TK_PG_BODY);
	r->end = r->p + tk_get32(h + TK_PG_BODYLEN);
	r->err = false;
	const uint8_t *vals = tk_rdn(r, (size_t)__builtin_popcountll(known));
	if (!vals)
		return TK_ERR_CORRUPT;
	if (st) {
		st->known = known;
		for (unsigned i = 0; i < TK_CHUNK_BYTES; i++)
			st->value[i] = known >> i & 1 ? *vals++ : 0;
	}
	m->pos = tk_get64(h + TK_PG_FIRSTPOS);
	return 0;
}

int tk_idx_page_next(tk_rd *r, tk_memrec *m)
{
	if (r->p >= r->end)
		return 0;
	m->pos += tk_rdv(r);
	uint8_t ko = tk_rdb(r);
	m->kind = ko >> 6;
	m->off = ko & 63;
	m->len = (unsigned)tk_rdb(r) + 1;
	if (r->err || m->kind > TK_MK_FILL || m->off + m->len > TK_CHUNK_BYTES)
		return TK_ERR_CORRUPT;
	m->data = NULL;
	if (m->kind != TK_MK_UNKNOWN && !(m->data = tk_rdn(r, m->len)))
		return TK_ERR_CORRUPT;
	return 1;
}

void tk_idx_chunk_apply(tk_chunkstate *st, const tk_memrec *m)
{
	uint64_t mask = tk_mask_range(m->off, m->len);
	if (m->kind == TK_MK_UNKNOWN) {
		st->known &= ~mask;
	} else {
		memcpy(st->value + m->off, m->data, m->len);
		st->known |= mask;
	}
}

int tk_index_mem(const tk_index *idx, uint64_t pos, uint64_t addr, size_t len, uint8_t *bytes,
		 uint8_t *known)
{
	if (pos >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	if (addr + len < addr && addr + len != 0)
		return TK_ERR_INVAL;
	if (!len)
		return 0;
	memset(bytes, 0, len);
	memset(known, 0, len);
	uint64_t last = addr + len - 1;	/* inclusive: the range may end at 2^64 */
	for (uint64_t c = tk_idx_chunk_lower(idx, addr & ~(uint64_t)(TK_CHUNK_BYTES - 1));
	     len && c < idx->nchunks; c++) {
		uint64_t base = tk_get64(tk_idx_chunk(idx, c) + TK_CH_ADDR);
		if (base > last)
			break;
		uint64_t pg;
		if (!tk_idx_page_at(idx, c, pos, &pg))
			continue;
		tk_chunkstate st;
		tk_rd r;
		tk_memrec m;
		int err = tk_idx_page_open(idx, pg, &st, &r, &m);
		if (err)
			return err;
		while ((err = tk_idx_page_next(&r, &m)) > 0 && m.pos <= pos)
			tk_idx_chunk_apply(&st, &m);
		if (err < 0)
			return err;
		for (unsigned i = 0; i < TK_CHUNK_BYTES; i++) {
			uint64_t a = base + i;
			if (a < addr || a > last || !(st.known >> i & 1))
				continue;
			bytes[a - addr] = st.value[i];
			known[a - addr] = 1;
		}
	}
	return 0;
}
