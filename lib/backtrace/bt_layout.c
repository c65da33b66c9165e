/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: which frame record layout a function uses.
 *
 * With an image, the DWARF CFI row at the pc says it: once the function has
 * set its frame pointer, the CFA is "frame register + k", and the caller's
 * frame register and lr are saved at CFA + offsets (lr "same value" in a
 * leaf).  For Thumb code without CFI, the prologue is read instead.  A64
 * records are always {x29, x30} at x29; A32 code without CFI is assumed to
 * use GCC's frames (the walk then checks for APCS ones).  Answers are
 * cached by address.
 */
#include <stdlib.h>
#include <string.h>

#include "bt_impl.h"
#include "tracekit/error.h"

#define R7 (TK_REG_R0 + 7)
#define R11 (TK_REG_R0 + 11)
#define X29 (TK_REG_X0 + 29)

static void fixed(tk_bt_layout kind, bt_layout *l)
{
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->known = true;
	l->lr_saved = true;
	switch (kind) {
	case TK_BT_A64:
		l->fp_reg = X29;
		l->fp_off = 0;
		l->lr_off = 8;
		break;
	case TK_BT_APCS:
		l->fp_reg = R11;
		l->fp_off = -12;
		l->lr_off = -4;
		break;
	case TK_BT_AAPCS:
	default:
		l->kind = TK_BT_AAPCS;
		l->fp_reg = R11;
		l->fp_off = -4;
		l->lr_off = 0;
		break;
	}
}

/* The layout from the CFI row at pc, if the CFA is frame-register based
 * there and the frame register is saved. */
static bool from_cfi(tk_dwarf *image, uint64_t pc, unsigned dwreg, bt_layout *l)
{
	tk_dwarf_cfi row;
	if (!image || tk_dwarf_cfi_at(image, pc, &row) != 0)
		return false;
	if (!row.cfa_simple || row.cfa_reg != dwreg || dwreg >= TK_DWARF_CFI_REGS)
		return false;
	const tk_dwarf_rule *fp = &row.regs[dwreg];
	unsigned ra = row.ra_reg < TK_DWARF_CFI_REGS ? row.ra_reg : 14;
	const tk_dwarf_rule *lr = &row.regs[ra];
	if (fp->kind != TK_DWARF_RULE_OFFSET)
		return false;
	l->known = true;
	l->fp_off = row.cfa_offset + fp->offset;
	if (lr->kind == TK_DWARF_RULE_OFFSET) {
		l->lr_saved = true;
		l->lr_off = row.cfa_offset + lr->offset;
	} else if (lr->kind == TK_DWARF_RULE_SAME || lr->kind == TK_DWARF_RULE_UNDEFINED) {
		l->lr_saved = false;
	} else {
		return false;
	}
	return true;
}

static void compute(tk_bt_ctx *ctx, uint64_t pc, tk_isa isa, bt_layout *l)
{
	tk_bt_layout force = ctx->opts.layout;
	tk_dwarf *image = ctx->opts.image;
	pc -= ctx->opts.load_offset;	/* the image's address */
	memset(l, 0, sizeof *l);
	if (force == TK_BT_A64 || (force == TK_BT_AUTO && isa == TK_ISA_A64)) {
		fixed(TK_BT_A64, l);
		return;
	}
	bool thumb = force == TK_BT_THUMB || (force == TK_BT_AUTO && isa == TK_ISA_T32);
	if (thumb) {
		l->kind = TK_BT_THUMB;
		l->fp_reg = R7;
		if (from_cfi(image, pc, 7, l))
			return;
		uint64_t start;
		bool is_thumb;
		if (image && tk_dwarf_func_sym(image, pc, &start, &is_thumb) &&
		    tk_bt_thumb_prologue(image, start, &l->fp_off, &l->lr_saved, &l->lr_off)) {
			l->known = true;
			return;
		}
		l->known = false;
		return;
	}
	if (force == TK_BT_APCS || force == TK_BT_AAPCS) {
		fixed(force, l);
		return;
	}
	/* A32, automatic. */
	l->fp_reg = R11;
	if (from_cfi(image, pc, 11, l)) {
		l->kind = l->lr_saved && l->fp_off == -12 && l->lr_off == -4 ? TK_BT_APCS : TK_BT_AAPCS;
		return;
	}
	fixed(TK_BT_AAPCS, l);
	l->guessed = true;
}

void tk_bt_layout_at(tk_bt_ctx *ctx, uint64_t pc, tk_isa isa, bt_layout *out)
{
	uint64_t key = pc << 3 | (uint64_t)isa;
	if (ctx->lused * 2 >= ctx->lcap) {
		size_t ncap = ctx->lcap ? 2 * ctx->lcap : 1024;
		struct bt_lslot *nc = calloc(ncap, sizeof *nc);
		if (!nc) {
			compute(ctx, pc, isa, out);
			return;
		}
		for (size_t i = 0; i < ctx->lcap; i++) {
			if (!ctx->lcache[i].used)
				continue;
			size_t h = (size_t)(ctx->lcache[i].key * 0x9e3779b97f4a7c15ull >> 20) & (ncap - 1);
			while (nc[h].used)
				h = (h + 1) & (ncap - 1);
			nc[h] = ctx->lcache[i];
		}
		free(ctx->lcache);
		ctx->lcache = nc;
		ctx->lcap = ncap;
	}
	size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (ctx->lcap - 1);
	while (ctx->lcache[h].used) {
		if (ctx->lcache[h].key == key) {
			*out = ctx->lcache[h].l;
			return;
		}
		h = (h + 1) & (ctx->lcap - 1);
	}
	compute(ctx, pc, isa, out);
	ctx->lcache[h].used = true;
	ctx->lcache[h].key = key;
	ctx->lcache[h].l = *out;
	ctx->lused++;
}
