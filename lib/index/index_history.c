/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: write history — the previous and next write of a register or a
 * memory range, and every address written between two positions.
 *
 * Registers: the block directory records which registers each block
 * writes, so only blocks that do are decoded.  Memory: each page header
 * records which bytes of its chunk the page writes, so only those pages'
 * events are decoded.
 */
#include "index_impl.h"

static bool view_ok(tk_reg_view v)
{
	return v.reg < TK_REG_COUNT && v.len && (unsigned)v.offset + v.len <= tk_reg_size(v.reg);
}

/* Does record r write any byte of view v? */
static bool rec_writes(const tk_regrec *r, tk_reg_view v)
{
	if (r->reg != v.reg)
		return false;
	unsigned lo = v.offset > r->off ? v.offset : r->off;
	unsigned hi = (unsigned)v.offset + v.len < (unsigned)r->off + r->len
			      ? (unsigned)v.offset + v.len : (unsigned)r->off + r->len;
	for (unsigned a = lo; a < hi; a++)
		if (tk_regrec_state(r, a - r->off) != TK_BYTE_NONE)
			return true;
	return false;
}

static bool block_writes(const tk_index *idx, uint64_t b, tk_reg reg)
{
	return tk_get64(tk_idx_dirent(idx, b) + TK_DIR_REGMASK + 8 * (reg >> 6)) >> (reg & 63) & 1;
}

/* In block b, the last (or first) write of v at a position in [lo, hi]. */
static int scan_block(const tk_index *idx, uint64_t b, tk_reg_view v, uint64_t lo, uint64_t hi,
		      bool last, uint64_t *q)
{
	tk_rd log;
	tk_regrec r;
	int err;
	bool found = false;
	tk_idx_block_log(idx, b, &log);
	r.pos = b * TK_BLOCK_INSNS;
	while ((err = tk_idx_next_regrec(&log, &r)) > 0) {
		if (r.pos > hi)
			break;
		if (r.pos < lo || !rec_writes(&r, v))
			continue;
		*q = r.pos;
		found = true;
		if (!last)
			break;
	}
	if (err < 0)
		return err;
	return found ? 1 : 0;
}

int tk_index_reg_prev_write(const tk_index *idx, uint64_t pos, tk_reg_view view, uint64_t *q)
{
	if (!view_ok(view))
		return TK_ERR_INVAL;
	if (pos >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	for (uint64_t b = pos / TK_BLOCK_INSNS + 1; b-- > 0;) {
		if (!block_writes(idx, b, view.reg))
			continue;
		int r = scan_block(idx, b, view, 0, pos, true, q);
		if (r)
			return r < 0 ? r : 0;
	}
	return TK_ERR_NOTFOUND;
}

int tk_index_reg_next_write(const tk_index *idx, uint64_t pos, tk_reg_view view, uint64_t *q)
{
	if (!view_ok(view))
		return TK_ERR_INVAL;
	if (pos >= idx->ninsn || pos + 1 >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	for (uint64_t b = (pos + 1) / TK_BLOCK_INSNS; b < idx->nblocks; b++) {
		if (!block_writes(idx, b, view.reg))
			continue;
		int r = scan_block(idx, b, view, pos + 1, UINT64_MAX, false, q);
		if (r)
			return r < 0 ? r : 0;
	}
	return TK_ERR_NOTFOUND;
}

/* ---- memory ---- */

static inline bool is_write(const tk_memrec *m)
{
	return m->kind == TK_MK_WRITE || m->kind == TK_MK_UNKNOWN;
}

/* In page pg, the last (or first) write touching qmask at a position in
 * [lo, hi]: 1 and *q, 0, or an error. */
static int scan_page(const tk_index *idx, uint64_t pg, uint64_t qmask, uint64_t lo, uint64_t hi,
		     bool last, uint64_t *q)
{
	tk_rd r;
	tk_memrec m;
	bool found = false;
	int err = tk_idx_page_open(idx, pg, NULL, &r, &m);
	if (err)
		return err;
	while ((err = tk_idx_page_next(&r, &m)) > 0) {
		if (m.pos > hi)
			break;
		if (m.pos < lo || !is_write(&m) || !(tk_mask_range(m.off, m.len) & qmask))
			continue;
		*q = m.pos;
		found = true;
		if (!last)
			break;
	}
	if (err < 0)
		return err;
	return found ? 1 : 0;
}

static inline uint64_t page_wmask(const tk_index *idx, uint64_t pg)
{
	return tk_get64(tk_idx_page(idx, pg) + TK_PG_WMASK);
}

/* Bytes of chunk `base` inside [addr, last]. */
static uint64_t chunk_qmask(uint64_t base, uint64_t addr, uint64_t last)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < TK_CHUNK_BYTES; i++)
		if (base + i >= addr && base + i <= last)
			m |= 1ull << i;
	return m;
}

static int mem_write(const tk_index *idx, uint64_t pos, uint64_t addr, size_t len, bool prev,
		     uint64_t *q)
{
	if (!len || (addr + len < addr && addr + len != 0))
		return TK_ERR_INVAL;
	if (pos >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	uint64_t last = addr + len - 1;
	bool found = false;
	uint64_t best = 0;
	for (uint64_t c = tk_idx_chunk_lower(idx, addr & ~(uint64_t)(TK_CHUNK_BYTES - 1));
	     c < idx->nchunks; c++) {
		const uint8_t *e = tk_idx_chunk(idx, c);
		uint64_t base = tk_get64(e + TK_CH_ADDR);
		if (base > last)
			break;
		uint64_t qmask = chunk_qmask(base, addr, last);
		uint64_t first = tk_get64(e + TK_CH_FIRSTPAGE), end = first + tk_get32(e + TK_CH_NPAGES);
		uint64_t pg, cand;
		bool have = tk_idx_page_at(idx, c, pos, &pg);
		int r = 0;
		if (prev) {
			if (!have)
				continue;
			for (uint64_t p = pg + 1; p-- > first;) {
				if (!(page_wmask(idx, p) & qmask))
					continue;
				if ((r = scan_page(idx, p, qmask, 0, pos, true, &cand)))
					break;
			}
		} else {
			for (uint64_t p = have ? pg : first; p < end; p++) {
				if (!(page_wmask(idx, p) & qmask))
					continue;
				if (found && tk_get64(tk_idx_page(idx, p) + TK_PG_FIRSTPOS) > best)
					break;	/* cannot beat what we have */
				if ((r = scan_page(idx, p, qmask, pos + 1, UINT64_MAX, false, &cand)))
					break;
			}
		}
		if (r < 0)
			return r;
		if (r && (!found || (prev ? cand > best : cand < best))) {
			best = cand;
			found = true;
		}
	}
	if (!found)
		return TK_ERR_NOTFOUND;
	*q = best;
	return 0;
}

int tk_index_mem_prev_write(const tk_index *idx, uint64_t pos, uint64_t addr, size_t len,
			    uint64_t *q)
{
	return mem_write(idx, pos, addr, len, true, q);
}

int tk_index_mem_next_write(const tk_index *idx, uint64_t pos, uint64_t addr, size_t len,
			    uint64_t *q)
{
	return mem_write(idx, pos, addr, len, false, q);
}

/* Bytes of chunk c written at positions in (a, b]. */
static int chunk_written(const tk_index *idx, uint64_t c, uint64_t a, uint64_t b, uint64_t *out)
{
	const uint8_t *e = tk_idx_chunk(idx, c);
	uint64_t first = tk_get64(e + TK_CH_FIRSTPAGE), end = first + tk_get32(e + TK_CH_NPAGES);
	uint64_t pg, mask = 0;
	if (!tk_idx_page_at(idx, c, a, &pg))
		pg = first;
	for (; pg < end; pg++) {
		const uint8_t *h = tk_idx_page(idx, pg);
		uint64_t fp = tk_get64(h + TK_PG_FIRSTPOS);
		if (fp > b)
			break;
		uint64_t wm = tk_get64(h + TK_PG_WMASK);
		if (!(wm & ~mask))
			continue;	/* nothing new to learn here */
		/* A page strictly after a whose successor starts by b lies
		 * entirely inside (a, b]. */
		if (fp > a && pg + 1 < end &&
		    tk_get64(tk_idx_page(idx, pg + 1) + TK_PG_FIRSTPOS) <= b) {
			mask |= wm;
			continue;
		}
		tk_rd r;
		tk_memrec m;
		int err = tk_idx_page_open(idx, pg, NULL, &r, &m);
		if (err)
			return err;
		while ((err = tk_idx_page_next(&r, &m)) > 0 && m.pos <= b)
			if (m.pos > a && is_write(&m))
				mask |= tk_mask_range(m.off, m.len);
		if (err < 0)
			return err;
	}
	*out = mask;
	return 0;
}

int tk_index_mem_changes(const tk_index *idx, uint64_t from, uint64_t to, uint64_t lo,
			 uint64_t hi, bool ascending, tk_index_range_fn fn, void *ctx)
{
	if (from >= idx->ninsn || to >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	uint64_t a = from < to ? from : to, b = from < to ? to : from;
	if (a == b || lo > hi)
		return 0;
	uint64_t c0 = tk_idx_chunk_lower(idx, lo & ~(uint64_t)(TK_CHUNK_BYTES - 1));
	uint64_t c1 = tk_idx_chunk_lower(idx, (hi & ~(uint64_t)(TK_CHUNK_BYTES - 1)) + 1);
	bool open = false;
	uint64_t rs = 0, re = 0;	/* current run [rs, re] */
	for (uint64_t k = 0; k < c1 - c0; k++) {
		uint64_t c = ascending ? c0 + k : c1 - 1 - k;
		uint64_t base = tk_get64(tk_idx_chunk(idx, c) + TK_CH_ADDR), mask;
		int err = chunk_written(idx, c, a, b, &mask);
		if (err)
			return err;
		mask &= chunk_qmask(base, lo, hi);
		for (unsigned j = 0; mask && j < TK_CHUNK_BYTES; j++) {
			unsigned i = ascending ? j : TK_CHUNK_BYTES - 1 - j;
			if (!(mask >> i & 1))
				continue;
			uint64_t x = base + i;
			if (open && ascending && x == re + 1) {
				re = x;
			} else if (open && !ascending && x + 1 == rs) {
				rs = x;
			} else {
				if (open && fn(ctx, rs, re - rs + 1))
					return 0;
				open = true;
				rs = re = x;
			}
		}
	}
	if (open)
		fn(ctx, rs, re - rs + 1);
	return 0;
}
