/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: positions — where each instruction is, and finding positions
 * by line, byte offset, time and pc.
 *
 * The block directory (fixed-size entries) is binary-searched; then one
 * block's position records (at most TK_BLOCK_INSNS, delta-coded) are
 * decoded.
 */
#include <string.h>

#include "index_impl.h"

/* The first `want` position records of block b (all if want exceeds
 * them): a lookup of one position stops after the one that follows it.
 * Without `bytes`, the instruction bytes are skipped (searches by line,
 * offset, time or pc do not need them; nbytes is then 0). */
static int block_positions(const tk_index *idx, uint64_t b, tk_posrec *recs, uint32_t want,
			   bool bytes);

int tk_idx_block_positions(const tk_index *idx, uint64_t b, tk_posrec *recs)
{
	return block_positions(idx, b, recs, TK_BLOCK_INSNS, true);
}

static int block_positions(const tk_index *idx, uint64_t b, tk_posrec *recs, uint32_t want,
			   bool bytes)
{
	const uint8_t *d = tk_idx_dirent(idx, b);
	uint32_t n = tk_get32(d + TK_DIR_NINSN);
	tk_rd r = {idx->blocks + tk_get64(d + TK_DIR_DATA), NULL, false};
	r.end = r.p + tk_get32(d + TK_DIR_POSLEN);
	uint64_t line = tk_get64(d + TK_DIR_LINE), off = tk_get64(d + TK_DIR_OFFSET);
	uint64_t time = tk_get64(d + TK_DIR_TIME), pc = 0;
	uint32_t context = 0;
	if (n > TK_BLOCK_INSNS)
		return TK_ERR_CORRUPT;
	if (want < n)
		n = want;
	for (uint32_t i = 0; i < n; i++) {
		tk_posrec *p = &recs[i];
		uint8_t f = tk_rdb(&r);
		unsigned wcode = (f >> TK_PF_WIDTH_SHIFT) & 3;
		p->isa = f & TK_PF_ISA_MASK;
		p->executed = f & TK_PF_EXECUTED;
		p->width = wcode == 0 ? 0 : wcode == 1 ? 2 : wcode == 2 ? 4 : tk_rdb(&r);
		uint8_t x = f & TK_PF_EXT ? tk_rdb(&r) : 0;
		p->kind = x & TK_PX_KIND_MASK;
		p->branch = (x & TK_PX_BRANCH_MASK) >> TK_PX_BRANCH_SHIFT;
		if (x & TK_PX_CONTEXT)
			context = (uint32_t)tk_rdv(&r);
		p->context = context;
		line += tk_rdv(&r);
		off += tk_rdv(&r);
		time += (uint64_t)tk_unzigzag(tk_rdv(&r));
		pc += (uint64_t)tk_unzigzag(tk_rdv(&r));
		p->line = line;
		p->offset = off;
		p->time = time;
		p->pc = pc;
		p->nbytes = 0;
		if (x & TK_PX_RAWBYTES) {
			unsigned nb = tk_rdb(&r);
			const uint8_t *b = tk_rdn(&r, nb);
			if (nb > TK_INSN_MAX_BYTES || !b)
				return TK_ERR_CORRUPT;
			if (bytes) {
				memcpy(p->bytes, b, nb);
				p->nbytes = (uint8_t)nb;
			}
		} else if ((f & TK_PF_ENCODING) && !bytes) {
			(void)tk_rdv(&r);
		} else if (f & TK_PF_ENCODING) {
			tk_insn in = {.isa = (tk_isa)p->isa};
			unsigned nb = p->width <= 8 ? p->width : 8;
			tk_insn_set_encoding(&in, tk_rdv(&r), nb);
			memcpy(p->bytes, in.bytes, nb);
			p->nbytes = in.nbytes;
		}
	}
	return r.err ? TK_ERR_CORRUPT : (int)n;
}

int tk_index_get_pos(const tk_index *idx, uint64_t pos, tk_index_pos *out)
{
	if (pos >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	tk_posrec recs[TK_BLOCK_INSNS];
	uint64_t b = pos / TK_BLOCK_INSNS;
	unsigned i = (unsigned)(pos % TK_BLOCK_INSNS);
	int n = block_positions(idx, b, recs, i + 2, true);
	if (n < 0)
		return n;
	if (i >= (unsigned)n)
		return TK_ERR_CORRUPT;
	const tk_posrec *p = &recs[i];
	out->line = p->line;
	out->offset = p->offset;
	out->time = p->time;
	out->pc = p->pc;
	out->isa = (tk_isa)p->isa;
	out->width = p->width;
	out->executed = p->executed;
	out->kind = tk_posrec_kind(p);
	out->context = p->context;
	out->branch = (tk_branch)p->branch;
	out->nbytes = p->nbytes;
	memcpy(out->bytes, p->bytes, sizeof out->bytes);
	tk_insn in = {.isa = out->isa, .nbytes = p->nbytes};
	memcpy(in.bytes, p->bytes, sizeof in.bytes);
	out->encoding = tk_insn_encoding(&in);
	out->first_line = pos ? p->line : 1;
	out->first_offset = pos ? p->offset : 0;
	if (i + 1 < (unsigned)n) {
		out->end_line = recs[i + 1].line;
		out->end_offset = recs[i + 1].offset;
	} else if (b + 1 < idx->nblocks) {
		const uint8_t *d = tk_idx_dirent(idx, b + 1);
		out->end_line = tk_get64(d + TK_DIR_LINE);
		out->end_offset = tk_get64(d + TK_DIR_OFFSET);
	} else {
		out->end_line = idx->lines + 1;
		out->end_offset = idx->text_size > p->offset ? idx->text_size : p->offset;
	}
	return 0;
}

/* The last block whose field (a u64 in the directory entry) is <= v, or
 * UINT64_MAX if none. */
static uint64_t dir_search(const tk_index *idx, unsigned field, uint64_t v)
{
	uint64_t lo = 0, hi = idx->nblocks;	/* answer in [lo - 1, hi) */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (tk_get64(tk_idx_dirent(idx, mid) + field) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static int find_by(const tk_index *idx, unsigned field, uint64_t v, uint64_t *pos)
{
	if (!idx->ninsn)
		return TK_ERR_NOTFOUND;
	uint64_t b = dir_search(idx, field, v);
	if (b == UINT64_MAX) {	/* before the first instruction: group 0 */
		*pos = 0;
		return 0;
	}
	tk_posrec recs[TK_BLOCK_INSNS];
	int n = block_positions(idx, b, recs, TK_BLOCK_INSNS, false);
	if (n <= 0)
		return TK_ERR_CORRUPT;
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		uint64_t x = field == TK_DIR_LINE ? recs[mid].line : recs[mid].offset;
		if (x <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = b * TK_BLOCK_INSNS + (uint64_t)(lo ? lo - 1 : 0);
	return 0;
}

int tk_index_find_line(const tk_index *idx, uint64_t line, uint64_t *pos)
{
	if (line == 0 || line > idx->lines)
		return TK_ERR_NOTFOUND;
	return find_by(idx, TK_DIR_LINE, line, pos);
}

int tk_index_find_offset(const tk_index *idx, uint64_t offset, uint64_t *pos)
{
	if (idx->text_size && offset >= idx->text_size)
		return TK_ERR_NOTFOUND;
	return find_by(idx, TK_DIR_OFFSET, offset, pos);
}

int tk_index_find_time(const tk_index *idx, uint64_t time, uint64_t *pos)
{
	/* The first block whose running maximum reaches time holds the first
	 * instruction at or after it, even if times go backwards somewhere. */
	uint64_t lo = 0, hi = idx->nblocks;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (tk_get64(tk_idx_dirent(idx, mid) + TK_DIR_MAXTIME) >= time)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == idx->nblocks)
		return TK_ERR_NOTFOUND;
	tk_posrec recs[TK_BLOCK_INSNS];
	int n = block_positions(idx, lo, recs, TK_BLOCK_INSNS, false);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if (recs[i].time >= time) {
			*pos = lo * TK_BLOCK_INSNS + (uint64_t)i;
			return 0;
		}
	return TK_ERR_CORRUPT;
}

int tk_index_next(const tk_index *idx, uint64_t *pos)
{
	if (*pos + 1 >= idx->ninsn || *pos == UINT64_MAX)
		return TK_ERR_NOTFOUND;
	++*pos;
	return 0;
}

int tk_index_prev(const tk_index *idx, uint64_t *pos)
{
	if (*pos == 0 || *pos > idx->ninsn)
		return TK_ERR_NOTFOUND;
	--*pos;
	return 0;
}

static bool bloom_has(const tk_index *idx, uint64_t b, uint64_t pc)
{
	const uint8_t *f = idx->bloom + b * TK_BLOOM_BYTES;
	unsigned x, y;
	tk_bloom_bits(pc, &x, &y);
	return (f[x >> 3] >> (x & 7) & 1) && (f[y >> 3] >> (y & 7) & 1);
}

int tk_index_find_pc(const tk_index *idx, uint64_t pos, uint64_t pc, bool forward,
		     uint64_t *out)
{
	uint64_t n = idx->ninsn;
	if (!n)
		return TK_ERR_NOTFOUND;
	tk_posrec recs[TK_BLOCK_INSNS];
	if (forward) {
		uint64_t from = pos == TK_POS_NONE ? 0 : pos + 1;	/* first candidate */
		for (uint64_t b = from / TK_BLOCK_INSNS; b < idx->nblocks; b++) {
			if (!bloom_has(idx, b, pc))
				continue;
			int k = block_positions(idx, b, recs, TK_BLOCK_INSNS, false);
			if (k < 0)
				return k;
			for (int i = 0; i < k; i++) {
				uint64_t q = b * TK_BLOCK_INSNS + (uint64_t)i;
				if (q >= from && recs[i].pc == pc) {
					*out = q;
					return 0;
				}
			}
		}
	} else {
		if (pos == 0)
			return TK_ERR_NOTFOUND;
		uint64_t last = pos == TK_POS_NONE || pos > n ? n - 1 : pos - 1;
		for (uint64_t b = last / TK_BLOCK_INSNS + 1; b-- > 0;) {
			if (!bloom_has(idx, b, pc))
				continue;
			int k = block_positions(idx, b, recs, TK_BLOCK_INSNS, false);
			if (k < 0)
				return k;
			for (int i = k; i-- > 0;) {
				uint64_t q = b * TK_BLOCK_INSNS + (uint64_t)i;
				if (q <= last && recs[i].pc == pc) {
					*out = q;
					return 0;
				}
			}
		}
	}
	return TK_ERR_NOTFOUND;
}
