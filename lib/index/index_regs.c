/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: register state queries.
 *
 * The state at position p is the checkpoint of p's block (the register file
 * before the block) with the block's log records up to p applied.  A view
 * (w0 = x0[0..4), s1 = v1[0..4)...) is answered from the bytes of its
 * canonical register, which is what gives the architecture's aliasing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index_impl.h"

static unsigned reg_base[TK_REG_COUNT + 1];
static pthread_once_t reg_base_once = PTHREAD_ONCE_INIT;

static void init_reg_base(void)
{
	unsigned n = 0;
	for (unsigned r = 0; r < TK_REG_COUNT; r++) {
		reg_base[r] = n;
		n += tk_reg_size((tk_reg)r);
	}
	reg_base[TK_REG_COUNT] = n;
}

unsigned tk_idx_reg_base(tk_reg reg)
{
	pthread_once(&reg_base_once, init_reg_base);
	return reg_base[reg < TK_REG_COUNT ? reg : TK_REG_COUNT];
}

unsigned tk_idx_regfile_bytes(void)
{
	return tk_idx_reg_base(TK_REG_COUNT);
}

int tk_idx_block_ckpt(const tk_index *idx, uint64_t b, tk_rd *ck)
{
	const uint8_t *d = tk_idx_dirent(idx, b);
	ck->p = idx->blocks + tk_get64(d + TK_DIR_DATA) + tk_get32(d + TK_DIR_POSLEN);
	ck->end = ck->p + tk_get32(d + TK_DIR_CKPTLEN);
	ck->err = false;
	return 0;
}

int tk_idx_block_log(const tk_index *idx, uint64_t b, tk_rd *log)
{
	const uint8_t *d = tk_idx_dirent(idx, b);
	log->p = idx->blocks + tk_get64(d + TK_DIR_DATA) + tk_get32(d + TK_DIR_POSLEN) +
		 tk_get32(d + TK_DIR_CKPTLEN);
	log->end = log->p + tk_get32(d + TK_DIR_LOGLEN);
	log->err = false;
	return 0;
}

int tk_idx_next_regrec(tk_rd *log, tk_regrec *r)
{
	if (log->p >= log->end)
		return 0;
	r->pos += tk_rdv(log);
	uint64_t reg = tk_rdv(log);
	r->off = tk_rdb(log);
	uint64_t len = tk_rdv(log);
	uint8_t flags = tk_rdb(log);
	if (log->err || reg >= TK_REG_COUNT || !len ||
	    r->off + len > tk_reg_size((tk_reg)reg))
		return TK_ERR_CORRUPT;
	r->reg = (tk_reg)reg;
	r->len = (uint16_t)len;
	r->state = NULL;
	if (!(flags & TK_RF_ALLSET) && !(r->state = tk_rdn(log, (len + 3) / 4)))
		return TK_ERR_CORRUPT;
	if (flags & TK_RF_VARINT) {
		uint64_t v = tk_rdv(log);
		for (unsigned i = 0; i < len; i++)
			r->value[i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
	} else {
		for (unsigned i = 0; i < len; i++)
			if (tk_regrec_state(r, i) == TK_BYTE_SET)
				r->value[i] = tk_rdb(log);
	}
	return log->err ? TK_ERR_CORRUPT : 1;
}

/* Apply record r to a register file (values v, known flags k) whose first
 * byte is the register file's byte `shift`. */
static void apply(const tk_regrec *r, uint8_t *v, uint8_t *k, unsigned shift)
{
	unsigned base = tk_idx_reg_base(r->reg) + r->off - shift;
	for (unsigned i = 0; i < r->len; i++) {
		unsigned s = tk_regrec_state(r, i);
		if (s == TK_BYTE_SET) {
			v[base + i] = r->value[i];
			k[base + i] = 1;
		} else if (s == TK_BYTE_UNKNOWN) {
			v[base + i] = 0;
			k[base + i] = 0;
		}
	}
}

/* Decode a checkpoint into a register file; only register `only` if it is
 * not TK_REG_NONE. */
static int load_ckpt(tk_rd *ck, tk_reg only, uint8_t *v, uint8_t *k, unsigned shift)
{
	const uint8_t *bm = tk_rdn(ck, 24);
	if (!bm)
		return TK_ERR_CORRUPT;
	for (unsigned r = 0; r < TK_REG_COUNT; r++) {
		if (!(tk_get64(bm + 8 * (r >> 6)) >> (r & 63) & 1))
			continue;
		uint64_t size = tk_rdv(ck);
		if (ck->err || size != tk_reg_size((tk_reg)r))
			return TK_ERR_CORRUPT;
		const uint8_t *mask = tk_rdn(ck, (size + 7) / 8);
		if (!mask)
			return TK_ERR_CORRUPT;
		unsigned known = 0;
		for (unsigned i = 0; i < (size + 7) / 8; i++)
			known += (unsigned)__builtin_popcount(mask[i]);
		const uint8_t *vals = tk_rdn(ck, known);
		if (!vals)
			return TK_ERR_CORRUPT;
		if (only != TK_REG_NONE && r != only) {
			if (r > only)
				break;
			continue;
		}
		unsigned base = tk_idx_reg_base((tk_reg)r) - shift;
		for (unsigned i = 0, j = 0; i < size; i++)
			if (mask[i >> 3] >> (i & 7) & 1) {
				v[base + i] = vals[j++];
				k[base + i] = 1;
			}
	}
	return 0;
}

static bool view_ok(tk_reg_view view)
{
	return view.reg < TK_REG_COUNT && view.len &&
	       (unsigned)view.offset + view.len <= tk_reg_size(view.reg);
}

/* The register file (or just one register) at pos. */
static int state_at(const tk_index *idx, uint64_t pos, tk_reg only, uint8_t *v, uint8_t *k)
{
	unsigned shift = only == TK_REG_NONE ? 0 : tk_idx_reg_base(only);
	if (pos >= idx->ninsn)
		return TK_ERR_NOTFOUND;
	uint64_t b = pos / TK_BLOCK_INSNS;
	tk_rd ck, log;
	tk_idx_block_ckpt(idx, b, &ck);
	int err = load_ckpt(&ck, only, v, k, shift);
	if (err)
		return err;
	tk_idx_block_log(idx, b, &log);
	tk_regrec r;
	r.pos = b * TK_BLOCK_INSNS;
	while ((err = tk_idx_next_regrec(&log, &r)) > 0) {
		if (r.pos > pos)
			break;
		if (only == TK_REG_NONE || r.reg == only)
			apply(&r, v, k, shift);
	}
	return err < 0 ? err : 0;
}

int tk_index_reg(const tk_index *idx, uint64_t pos, tk_reg_view view, uint8_t *value,
		 uint8_t *known)
{
	if (!view_ok(view))
		return TK_ERR_INVAL;
	unsigned size = tk_reg_size(view.reg);
	uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES];
	memset(v, 0, size);
	memset(k, 0, size);
	int err = state_at(idx, pos, view.reg, v, k);
	if (err)
		return err;
	for (unsigned i = 0; i < view.len; i++) {
		known[i] = k[view.offset + i];
		value[i] = known[i] ? v[view.offset + i] : 0;
	}
	return 0;
}

int tk_index_reg_lookup(const tk_index *idx, uint64_t pos, const char *name, tk_reg_view *view)
{
	tk_index_pos p;
	if (!name || tk_index_get_pos(idx, pos, &p) != 0)
		return TK_ERR_NOTFOUND;
	int a64 = p.isa == TK_ISA_A64;
	return tk_reg_lookup(name, strlen(name), a64 ? 8 : 4, a64, view) == 0 ? 0 : TK_ERR_NOTFOUND;
}

struct tk_index_regset {
	uint8_t *v, *k;
};

int tk_index_regset_alloc(tk_index_regset **out)
{
	tk_index_regset *rs = malloc(sizeof *rs);
	unsigned n = tk_idx_regfile_bytes();
	if (!rs)
		return TK_ERR_NOMEM;
	rs->v = calloc(2, n);
	if (!rs->v) {
		free(rs);
		return TK_ERR_NOMEM;
	}
	rs->k = rs->v + n;
	*out = rs;
	return 0;
}

void tk_index_regset_free(tk_index_regset *rs)
{
	if (rs)
		free(rs->v);
	free(rs);
}

int tk_index_regset_at(const tk_index *idx, uint64_t pos, tk_index_regset *rs)
{
	memset(rs->v, 0, 2 * (size_t)tk_idx_regfile_bytes());
	return state_at(idx, pos, TK_REG_NONE, rs->v, rs->k);
}

int tk_index_regset_get(const tk_index_regset *rs, tk_reg_view view, uint8_t *value,
			uint8_t *known)
{
	if (!view_ok(view))
		return TK_ERR_INVAL;
	unsigned base = tk_idx_reg_base(view.reg) + view.offset;
	for (unsigned i = 0; i < view.len; i++) {
		known[i] = rs->k[base + i];
		value[i] = known[i] ? rs->v[base + i] : 0;
	}
	return 0;
}
