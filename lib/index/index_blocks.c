/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: encoding the index's blocks (see index_blocks.h).
 *
 * Position records are delta-coded against the previous step of the block
 * (the first against the directory's line, offset and time, pc 0 and
 * context 0).  The checkpoint is the register file before the block's
 * first step, i.e. after every update of the position before it; block 0's
 * is the empty file, and the updates before the trace's first step are
 * logged at position 0.
 */
#include <stdlib.h>
#include <string.h>

#include "index_blocks.h"

static inline void bit_set(uint64_t *m, unsigned i) { m[i >> 6] |= 1ull << (i & 63); }
static inline bool bit_get(const uint64_t *m, unsigned i) { return m[i >> 6] >> (i & 63) & 1; }

static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	uint8_t *b = realloc(*buf, c);
	if (!b)
		return TK_ERR_NOMEM;
	*buf = b;
	*cap = c;
	return 0;
}

/* Checkpoint of the register file, for the block starting now. */
static int checkpoint(tk_blockenc *e)
{
	size_t need = 24;
	for (unsigned r = 0; r < TK_REG_COUNT; r++)
		if (bit_get(e->present, r))
			need += 3 + tk_reg_size((tk_reg)r) * 2;
	if (reserve(&e->ck, &e->ckcap, need))
		return TK_ERR_NOMEM;
	uint8_t *p = e->ck;
	for (int i = 0; i < 3; i++)
		tk_put64(p + 8 * i, e->present[i]);
	size_t n = 24;
	for (unsigned r = 0; r < TK_REG_COUNT; r++) {
		if (!bit_get(e->present, r))
			continue;
		unsigned size = tk_reg_size((tk_reg)r), base = tk_idx_reg_base((tk_reg)r);
		n += tk_putv(p + n, size);
		uint8_t *mask = p + n;
		memset(mask, 0, (size + 7) / 8);
		n += (size + 7) / 8;
		for (unsigned i = 0; i < size; i++)
			if (e->rk[base + i]) {
				mask[i >> 3] |= (uint8_t)(1u << (i & 7));
				p[n++] = e->rv[base + i];
			}
	}
	e->cklen = n;
	return 0;
}

static int start_block(tk_blockenc *e)
{
	e->blk_first = e->ninsn;
	e->blk_n = 0;
	e->poslen = 0;
	e->loglen = 0;
	e->log_prevpos = e->ninsn;
	memset(e->regmask, 0, sizeof e->regmask);
	memset(e->bloom, 0, sizeof e->bloom);
	e->encoding = true;
	return checkpoint(e);
}

static int end_block(tk_blockenc *e)
{
	if (!e->encoding || !e->blk_n)
		return 0;
	if (e->loglen > UINT32_MAX || e->cklen > UINT32_MAX)
		return TK_ERR_UNSUPPORTED;	/* > 4 GB of register lines in 512 instructions */
	uint8_t d[TK_DIR_SIZE];
	tk_put64(d + TK_DIR_DATA, 0);
	tk_put32(d + TK_DIR_POSLEN, (uint32_t)e->poslen);
	tk_put32(d + TK_DIR_CKPTLEN, (uint32_t)e->cklen);
	tk_put32(d + TK_DIR_LOGLEN, (uint32_t)e->loglen);
	tk_put32(d + TK_DIR_NINSN, e->blk_n);
	tk_put64(d + TK_DIR_LINE, e->blk_line);
	tk_put64(d + TK_DIR_OFFSET, e->blk_offset);
	tk_put64(d + TK_DIR_TIME, e->blk_time);
	tk_put64(d + TK_DIR_MAXTIME, e->maxtime);
	for (int i = 0; i < 3; i++)
		tk_put64(d + TK_DIR_REGMASK + 8 * i, e->regmask[i]);
	const uint8_t *parts[3] = {e->posbuf, e->ck, e->log};
	size_t lens[3] = {e->poslen, e->cklen, e->loglen};
	e->blk_n = 0;
	return e->done(e->done_ctx, parts, lens, d, e->bloom);
}

int tk_blockenc_init(tk_blockenc *e, tk_blockenc_fn done, void *ctx)
{
	memset(e, 0, sizeof *e);
	e->done = done;
	e->done_ctx = ctx;
	e->posbuf = malloc((size_t)TK_BLOCK_INSNS * TK_POSREC_MAX);
	e->rv = calloc(1, tk_idx_regfile_bytes());
	e->rk = calloc(1, tk_idx_regfile_bytes());
	if (!e->posbuf || !e->rv || !e->rk) {
		tk_blockenc_fini(e);
		return TK_ERR_NOMEM;
	}
	return start_block(e);	/* block 0: the empty register file */
}

void tk_blockenc_resume(tk_blockenc *e, uint64_t ninsn, uint64_t maxtime, const uint8_t *rv,
			const uint8_t *rk, const uint64_t present[3], uint64_t encode_from)
{
	unsigned n = tk_idx_regfile_bytes();
	memcpy(e->rv, rv, n);
	memcpy(e->rk, rk, n);
	memcpy(e->present, present, sizeof e->present);
	e->ninsn = ninsn;
	e->pos = ninsn ? ninsn - 1 : 0;
	e->have_max = ninsn != 0;
	e->maxtime = maxtime;
	e->encode_from = encode_from;
	e->encoding = false;
	e->blk_n = 0;
	if (encode_from == 0 && ninsn == 0)
		start_block(e);	/* cannot fail: the checkpoint is empty */
}

void tk_blockenc_fini(tk_blockenc *e)
{
	free(e->posbuf);
	free(e->ck);
	free(e->log);
	free(e->rv);
	free(e->rk);
	memset(e, 0, sizeof *e);
}

int tk_blockenc_step(tk_blockenc *e, const tk_idx_step *s)
{
	int err;
	if (e->ninsn % TK_BLOCK_INSNS == 0 && e->ninsn >= e->encode_from &&
	    (e->ninsn || !e->encoding)) {
		if ((err = end_block(e)) || (err = start_block(e)))
			return err;
	}
	e->pos = e->ninsn++;
	if (!e->have_max || s->time > e->maxtime)
		e->maxtime = s->time;
	e->have_max = true;
	if (!e->encoding)
		return 0;
	if (e->blk_n == 0) {
		e->blk_line = e->prev_line = s->line;
		e->blk_offset = e->prev_offset = s->offset;
		e->blk_time = e->prev_time = s->time;
		e->prev_pc = 0;
		e->prev_context = 0;
	}
	e->blk_n++;

	uint8_t *p = e->posbuf + e->poslen;
	size_t n = 0;
	unsigned wcode = s->width == 0 ? 0 : s->width == 2 ? 1 : s->width == 4 ? 2 : 3;
	/* The encoding as a varint when its bytes are what the width and the
	 * ISA's order imply (every Arm instruction), else the bytes themselves. */
	bool varint_enc = s->nbytes && s->nbytes == s->width && s->nbytes <= 8;
	uint8_t ext = (uint8_t)(s->kind | (unsigned)s->branch << TK_PX_BRANCH_SHIFT);
	if (s->context != e->prev_context)
		ext |= TK_PX_CONTEXT;
	if (s->nbytes && !varint_enc)
		ext |= TK_PX_RAWBYTES;
	p[n++] = (uint8_t)((s->isa & TK_PF_ISA_MASK) | (s->executed ? TK_PF_EXECUTED : 0) |
			   wcode << TK_PF_WIDTH_SHIFT | (varint_enc ? TK_PF_ENCODING : 0) |
			   (ext ? TK_PF_EXT : 0));
	if (wcode == 3)
		p[n++] = s->width;
	if (ext)
		p[n++] = ext;
	if (ext & TK_PX_CONTEXT)
		n += tk_putv(p + n, s->context);
	e->prev_context = s->context;
	n += tk_putv(p + n, s->line - e->prev_line);
	n += tk_putv(p + n, s->offset - e->prev_offset);
	n += tk_putv(p + n, tk_zigzag((int64_t)(s->time - e->prev_time)));
	n += tk_putv(p + n, tk_zigzag((int64_t)(s->pc - e->prev_pc)));
	if (varint_enc) {
		tk_insn in = {.isa = (tk_isa)s->isa, .nbytes = s->nbytes};
		memcpy(in.bytes, s->bytes, s->nbytes);
		n += tk_putv(p + n, tk_insn_encoding(&in));
	} else if (s->nbytes) {
		p[n++] = s->nbytes;
		memcpy(p + n, s->bytes, s->nbytes);
		n += s->nbytes;
	}
	e->poslen += n;
	e->prev_line = s->line;
	e->prev_offset = s->offset;
	e->prev_time = s->time;
	e->prev_pc = s->pc;

	unsigned x, y;
	tk_bloom_bits(s->pc, &x, &y);
	e->bloom[x >> 3] |= (uint8_t)(1u << (x & 7));
	e->bloom[y >> 3] |= (uint8_t)(1u << (y & 7));
	return 0;
}

/* The common case: every byte of a view of at most 8 bytes set, the
 * block being encoded (what tk_blockenc_reg does, without the loops). */
static int reg_allset_small(tk_blockenc *e, const tk_idx_regup *u)
{
	tk_reg reg = u->reg;
	unsigned len = u->len;
	if (reserve(&e->log, &e->logcap, e->loglen + 48))
		return TK_ERR_NOMEM;
	uint8_t *p = e->log + e->loglen;
	size_t n = tk_putv(p, e->pos - e->log_prevpos);
	e->log_prevpos = e->pos;
	n += tk_putv(p + n, reg);
	p[n++] = (uint8_t)u->off;
	p[n++] = (uint8_t)len;	/* a varint of one byte: len <= 8 */
	p[n++] = TK_RF_ALLSET | TK_RF_VARINT;
	uint64_t v = 0;
	memcpy(&v, u->value, len);	/* little-endian host */
	n += tk_putv(p + n, v);
	unsigned base = tk_idx_reg_base(reg) + u->off;
	memcpy(e->rv + base, u->value, len);
	memset(e->rk + base, 1, len);
	e->loglen += n;
	bit_set(e->regmask, reg);
	bit_set(e->present, reg);
	return 1;
}

int tk_blockenc_reg(tk_blockenc *e, const tk_idx_regup *u)
{
	tk_reg reg = u->reg;
	unsigned len = u->len;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!u->state && len && len <= 8 && e->encoding)
		return reg_allset_small(e, u);
#endif
	bool allset = true, any = false, anyknown = false;
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		allset &= s == TK_BYTE_SET;
		any |= s != TK_BYTE_NONE;
	}
	if (!any)
		return 0;
	unsigned base = tk_idx_reg_base(reg) + u->off;
	if (!e->encoding) {
		for (unsigned i = 0; i < len; i++) {
			unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
			if (s == TK_BYTE_SET) {
				e->rv[base + i] = u->value[i];
				e->rk[base + i] = 1;
				anyknown = true;
			} else if (s == TK_BYTE_UNKNOWN) {
				e->rk[base + i] = 0;
			}
		}
		if (anyknown)
			bit_set(e->present, reg);
		return 1;
	}
	if (reserve(&e->log, &e->logcap, e->loglen + 32 + 2 * (size_t)len))
		return TK_ERR_NOMEM;
	uint8_t *p = e->log + e->loglen;
	size_t n = 0;
	n += tk_putv(p + n, e->pos - e->log_prevpos);
	e->log_prevpos = e->pos;
	n += tk_putv(p + n, reg);
	p[n++] = (uint8_t)u->off;
	n += tk_putv(p + n, len);
	uint8_t flags = allset ? TK_RF_ALLSET : 0;
	if (allset && len <= 8)
		flags |= TK_RF_VARINT;
	p[n++] = flags;
	if (!allset) {
		memset(p + n, 0, (len + 3) / 4);
		for (unsigned i = 0; i < len; i++)
			p[n + i / 4] |= (uint8_t)((u->state[i] & 3) << (2 * (i & 3)));
		n += (len + 3) / 4;
	}
	if (flags & TK_RF_VARINT) {
		uint64_t v = 0;
		for (unsigned i = 0; i < len; i++)
			v |= (uint64_t)u->value[i] << (8 * i);
		n += tk_putv(p + n, v);
	}
	for (unsigned i = 0; i < len; i++) {
		unsigned s = u->state ? u->state[i] : TK_BYTE_SET;
		if (s == TK_BYTE_SET) {
			if (!(flags & TK_RF_VARINT))
				p[n++] = u->value[i];
			e->rv[base + i] = u->value[i];
			e->rk[base + i] = 1;
			anyknown = true;
		} else if (s == TK_BYTE_UNKNOWN) {
			e->rk[base + i] = 0;
		}
	}
	e->loglen += n;
	bit_set(e->regmask, reg);
	if (anyknown)
		bit_set(e->present, reg);
	return 1;
}

int tk_blockenc_flush(tk_blockenc *e)
{
	int err = end_block(e);
	e->encoding = false;
	return err;
}
