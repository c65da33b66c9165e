/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: HTM encoders — the inverse of the decoder, to make test and
 * benchmark dumps from recorded instruction streams.
 *
 * POWER10: an I-side XLATE (a 64K page) before the first instruction, an
 * IEARA whenever execution enters another 128-byte block, a D-side XLATE
 * before the first data access, then INST (branch images recoded), MSR,
 * PREFIX for a prefixed instruction, DEA and DRA for a data access; a TIME
 * stamp every 256 instructions, sometimes in the middle of a sequence
 * (stamps may appear anywhere).
 *
 * POWER8: an INFO word per instruction (branch images recoded the POWER8
 * way), then IEA/IRA either on every record or only after a jump (and the
 * IRA only when the decoder's software TLB cannot know the page), then
 * DEA/DRA.
 *
 * Real addresses are tk_htm_enc_ra(EA).  Every recoded image is checked by
 * decoding it again; a branch the recoding cannot express (rare BO/BI
 * combinations) is written un-recoded, without the branch bit, and counted.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

#define OUT_WORDS (64u << 10)
#define STAMP_EVERY 256
#define MSR_WORD 0xF8C0000000000000ull	/* HV PR IR DR EE LE SF */
#define P10_HDR(type) ((uint64_t)(type) << 28 | (uint64_t)TK_HTM_TAG_P10 << 8)

struct tk_htm_encoder {
	FILE *fp;
	tk_htm_encoding enc;
	uint64_t *out;
	size_t len;
	int err;
	bool started, block_valid, dxlate_done, have_prev;
	uint64_t block_ea, prev_ea;
	/* POWER8: the 64K pages the decoder's software TLB holds (the same
	 * direct-mapped table, so an IRA is left out exactly when it hits) */
	uint64_t *known;
	tk_htm_enc_stats stats;
};

int tk_htm_encoder_new(FILE *fp, tk_htm_encoding enc, tk_htm_encoder **out)
{
	*out = NULL;
	tk_htm_encoder *e = calloc(1, sizeof *e);
	if (!e)
		return TK_ERR_NOMEM;
	e->out = malloc(OUT_WORDS * 8);
	e->known = calloc(TLB_SLOTS, sizeof *e->known);
	if (!e->out || !e->known) {
		tk_htm_encoder_free(e);
		return TK_ERR_NOMEM;
	}
	e->fp = fp;
	e->enc = enc;
	*out = e;
	return 0;
}

void tk_htm_encoder_free(tk_htm_encoder *e)
{
	if (!e)
		return;
	free(e->out);
	free(e->known);
	free(e);
}

const tk_htm_enc_stats *tk_htm_encoder_stats(const tk_htm_encoder *e) { return &e->stats; }

static void flush(tk_htm_encoder *e)
{
	if (e->len && !e->err && fwrite(e->out, 8, e->len, e->fp) != e->len)
		e->err = TK_ERR_IO;
	e->len = 0;
}

static void put(tk_htm_encoder *e, uint64_t w)
{
	if (e->len == OUT_WORDS)
		flush(e);
	e->out[e->len++] = htobe64(w);
	e->stats.words++;
}

static void put_stamp(tk_htm_encoder *e)
{
	put(e, 0xACEFF80000000000ull | STAMP_EVERY);	/* TIME, 256 cycles */
	e->stats.stamps++;
}

/* An XLATE of a 64K page: partition-scoped table levels, then the final RA
 * at level 1, then the end-of-walk word. */
static void put_xlate(tk_htm_encoder *e, bool data_side, uint64_t ea)
{
	uint64_t ra = tk_htm_enc_ra(ea) & ~(uint64_t)0xFFFF;
	put(e, (data_side ? 1ull << 63 : 0) | P10_HDR(1));
	put(e, 0x1400000000000000ull | 0x0000000ab53b2400ull);	/* level 2, host */
	put(e, 0x1000000000000000ull | 0x000000008eb80300ull);	/* level 0, host */
	put(e, 0xB200000000000000ull | (ra & 0x00FFFFFFFFFFFFF8ull));	/* level 1 final */
	put(e, 0x0100000000000000ull);
}

/* ---- POWER10 branch images ------------------------------------------------- */

/* How the target's bits above `bits` relate to the EA's: 0 same, 1 +1, 3 -1;
 * -1 if neither. */
static int msb_mode(uint64_t ea, uint64_t target, unsigned bits)
{
	uint64_t diff = (target >> bits) - (ea >> bits);
	return diff == 0 ? 0 : diff == 1 ? 1 : diff == UINT64_MAX ? 3 : -1;
}

static uint64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	return (v ^ m) - m;
}

/* The recoded image for word w at ea, or false if w is no branch the
 * trace unit recodes. */
static bool p10_image(uint32_t w, uint64_t ea, uint32_t *img)
{
	uint32_t lk = w & 1, aa = (w >> 1) & 1;
	uint32_t bo = (w >> 21) & 0x1F, bi = (w >> 16) & 0x1F, bh = (w >> 11) & 3;
	unsigned op = tk_ppc_primary(w), xo = (w >> 1) & 0x3FF;
	if (op == 18) {
		uint64_t target = aa ? (w & 0x03FFFFFCu) : ea + sext(w & 0x03FFFFFCu, 26);
		int msb = aa ? 2 : msb_mode(ea, target, 26);
		if (msb < 0)
			return false;
		uint32_t off = (uint32_t)(target >> 2) & 0xFFFFFF;
		*img = lk << 30 | (uint32_t)msb << 28 | ((off >> 17) & 0x7F) << 21 | (off & 0x1FFFF);
		return true;
	}
	if (op == 16) {
		uint64_t target = aa ? (w & 0xFFFCu) : ea + sext(w & 0xFFFCu, 16);
		int msb = aa ? 2 : msb_mode(ea, target, 16);
		if (msb < 0)
			return false;
		uint32_t off = (uint32_t)(target >> 2) & 0x3FFF;
		*img = lk << 30 | (uint32_t)msb << 28 | (off >> 13) << 27 | (bo >> 1) << 23 |
		       (bi >> 4) << 21 | 1u << 19 | (bo & 1) << 18 | (bi & 0xF) << 13 | (off & 0x1FFF);
		return true;
	}
	if (op == 19 && (xo == 16 || xo == 528 || xo == 560)) {
		uint32_t type = xo == 16 ? 2 : 3;
		/* bits 2-4 = 0b101 keep the image's own primary opcode away
		 * from 17, 19 and 31, which select the non-branch forms */
		*img = lk << 30 | 5u << 27 | (bo >> 1) << 23 | (bi >> 4) << 21 | type << 19 |
		       (bo & 1) << 18 | (bi & 0xF) << 13 | (xo == 560 ? 1u << 11 : 0) | bh << 9;
		return true;
	}
	if (tk_ppc_is_rfi_like(w)) {	/* the real image with bits 11-14 set */
		*img = w | 0x001E0000u;
		return true;
	}
	return false;
}

static bool is_isel(uint32_t w) { return tk_ppc_primary(w) == 31 && ((w >> 1) & 0x1F) == 15; }

/* The image and branch bit that decode back to w. */
static uint32_t p10_encode_word(tk_htm_encoder *e, uint32_t w, uint64_t ea, bool *branch)
{
	uint32_t img;
	*branch = false;
	if (p10_image(w, ea, &img)) {
		if (!is_isel(img) && tk_htm_fixup_word(tk_htm_p10_recode(img, ea)) == w) {
			*branch = true;
			return img;
		}
		e->stats.unrecodable++;
	}
	return w;
}

static int p10_add(tk_htm_encoder *e, uint64_t ea, const uint32_t *words, unsigned nwords,
		   bool has_data, uint64_t data_ea)
{
	if (!e->started) {
		put_xlate(e, false, ea);
		e->started = true;
	}
	if (!e->block_valid || (ea & ~(uint64_t)0x7F) != e->block_ea) {
		e->block_ea = ea & ~(uint64_t)0x7F;
		e->block_valid = true;
		put(e, P10_HDR(3));
		put(e, e->block_ea);
		put(e, (tk_htm_enc_ra(e->block_ea) >> 12) << 24);
	}
	if (has_data && !e->dxlate_done) {
		put_xlate(e, true, data_ea);
		e->dxlate_done = true;
	}
	bool prefixed = nwords == 2, branch = false;
	uint32_t image = prefixed ? words[1] : p10_encode_word(e, words[0], ea, &branch);
	uint64_t inst = (uint64_t)image << 32 | (uint64_t)branch << 31 | (uint64_t)prefixed << 30 |
			P10_HDR(2) | ((ea >> 2) & 0x3F) << 2 | (has_data ? 1 : 0);
	put(e, inst);
	if (e->stats.insns % 1000 == 500)
		put_stamp(e);	/* a stamp inside a sequence */
	put(e, MSR_WORD);
	if (prefixed)
		put(e, (uint64_t)words[0] << 32);
	if (has_data) {
		put(e, data_ea);
		put(e, (tk_htm_enc_ra(data_ea) >> 12) << 23);
	}
	return 0;
}

/* ---- POWER8 ----------------------------------------------------------------------- */

/* Inverse of the POWER8 demunge's bit rotation (bits 6-15 <- 7-16, 16 <- 6). */
static uint32_t p8_unrotate(uint32_t p)
{
	return (p & 0xFC007FFFu) | ((p & 0x03FF0000u) >> 1) | ((p & 0x8000u) << 10);
}

static bool p8_image(uint32_t w, uint64_t ea, uint32_t *img)
{
	uint32_t lk = w & 1, aa = (w >> 1) & 1;
	unsigned op = tk_ppc_primary(w), xo = (w >> 1) & 0x3FF;
	if (op == 18) {
		uint64_t target = aa ? (w & 0x03FFFFFCu) : ea + sext(w & 0x03FFFFFCu, 26);
		int msb = aa ? 2 : msb_mode(ea, target, 26);
		if (msb < 0)
			return false;
		*img = lk << 30 | (uint32_t)msb << 26 | ((uint32_t)target & 0x03FFFFFCu) | 2;
		return true;
	}
	if (op == 16) {
		uint64_t target = aa ? (w & 0xFFFCu) : ea + sext(w & 0xFFFCu, 16);
		int msb = aa ? 2 : msb_mode(ea, target, 16);
		if (msb < 0)
			return false;
		uint32_t p = lk << 30 | 1u << 28 | (uint32_t)msb << 26 | (w & 0x03FF0000u) |
			     ((uint32_t)target & 0xFFFCu);
		*img = p8_unrotate(p);
		return true;
	}
	if (op == 19 && (xo == 16 || xo == 528 || xo == 560)) {
		uint32_t type = xo == 16 ? 2 : 3;
		uint32_t p = lk << 30 | type << 28 | (w & 0x03FFF800u) | (xo == 560 ? 0x2000u : 0);
		*img = p8_unrotate(p);
		return true;
	}
	return false;
}

static bool tlb_known(tk_htm_encoder *e, uint64_t page, bool insert)
{
	uint32_t h = htm_tlb_slot(page);
	if (e->known[h] == page + 1)
		return true;
	if (insert)
		e->known[h] = page + 1;
	return false;
}

static int p8_add(tk_htm_encoder *e, uint64_t ea, uint32_t w, bool has_data, uint64_t data_ea)
{
	bool full = e->enc == TK_HTM_ENC_P8_FULL;
	bool iea = full || !e->have_prev || ea != e->prev_ea + 4;
	bool ira = false;
	if (iea) {
		ira = full || !tlb_known(e, ea >> 16, false);
		/* what the decoder's TLB will hold after this record */
		tlb_known(e, ea >> 16, true);
	}
	uint32_t img = w;
	bool branch = false;
	if (p8_image(w, ea, &img)) {
		if (!is_isel(img) && tk_htm_fixup_word(tk_htm_p8_demunge(img, ea)) == w)
			branch = true;
		else {
			img = w;
			e->stats.unrecodable++;
		}
	}
	uint64_t info = (uint64_t)img << 32 | (uint64_t)branch << 31 |
			(uint64_t)TK_HTM_TAG_P8 << 8 | 1u << 7 | (uint64_t)iea << 6 |
			(uint64_t)ira << 5 | (uint64_t)has_data << 4 | (uint64_t)has_data << 3;
	put(e, info);
	if (iea)
		put(e, (ea & ~(uint64_t)3) | 3);	/* MSR[HV] = 1, MSR[IR] = 1 */
	if (ira)
		put(e, (tk_htm_enc_ra(ea) >> 16) << 30 | 2u << 24);	/* 64K page */
	if (has_data) {
		put(e, data_ea);
		put(e, 1ull << 62 | ((tk_htm_enc_ra(data_ea) >> 12) & ((1ull << 38) - 1)) << 24);
	}
	return 0;
}

int tk_htm_encoder_add(tk_htm_encoder *e, uint64_t ea, const uint32_t *words, unsigned nwords,
		       bool has_data, uint64_t data_ea)
{
	if (e->err)
		return e->err;
	if (nwords == 2 && e->enc != TK_HTM_ENC_P10)
		return TK_ERR_INVAL;
	if (e->stats.insns && e->stats.insns % STAMP_EVERY == 0)
		put_stamp(e);
	if (e->enc == TK_HTM_ENC_P10)
		p10_add(e, ea, words, nwords == 2 ? 2 : 1, has_data, data_ea);
	else
		p8_add(e, ea, words[0], has_data, data_ea);
	e->stats.insns++;
	e->prev_ea = ea + (nwords == 2 ? 4 : 0);
	e->have_prev = true;
	return e->err;
}

int tk_htm_encoder_finish(tk_htm_encoder *e)
{
	flush(e);
	if (!e->err && fflush(e->fp) != 0)
		e->err = TK_ERR_IO;
	return e->err;
}
