/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the frame-pointer walk over an index, and the call-tree stack
 * it is checked against (see include/tracekit/backtrace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_impl.h"
#include "tracekit/error.h"

#define R7 (TK_REG_R0 + 7)
#define R11 (TK_REG_R0 + 11)
#define X29 (TK_REG_X0 + 29)

int tk_bt_new(const tk_index *idx, const tk_bt_opts *opts, tk_bt_ctx **out)
{
	*out = NULL;
	if (opts && opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	tk_bt_ctx *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return TK_ERR_NOMEM;
	ctx->idx = idx;
	if (opts)
		ctx->opts = *opts;
	ctx->opts.size = sizeof ctx->opts;
	tk_index_info info = {.size = sizeof info};
	if (tk_index_get_info(idx, &info) == 0)
		ctx->big_endian = info.big_endian;
	int rc = tk_index_regset_alloc(&ctx->rs);
	if (rc) {
		free(ctx);
		return rc;
	}
	ctx->mpos = ctx->ppos = TK_POS_NONE;
	*out = ctx;
	return 0;
}

void tk_bt_free(tk_bt_ctx *ctx)
{
	if (!ctx)
		return;
	tk_index_regset_free(ctx->rs);
	free(ctx->lcache);
	free(ctx);
}

static int get_pos(tk_bt_ctx *ctx, uint64_t pos, tk_index_pos *p)
{
	if (ctx->ppos != pos) {
		int rc = tk_index_get_pos(ctx->idx, pos, &ctx->pdesc);
		if (rc)
			return rc;
		ctx->ppos = pos;
	}
	*p = ctx->pdesc;
	return 0;
}

/* A little- or big-endian word of `size` bytes at addr, at position pos.
 * Returns 1, 0 if some byte is not known (*missing = its address), or a
 * negative tk_err. */
static int mem_word(tk_bt_ctx *ctx, uint64_t pos, uint64_t addr, unsigned size, uint64_t *val,
		    uint64_t *missing)
{
	if (ctx->mpos != pos) {
		for (unsigned i = 0; i < BT_MEM_SLOTS; i++)
			ctx->mem[i].valid = false;
		ctx->mpos = pos;
	}
	uint8_t b[8];
	for (unsigned i = 0; i < size;) {
		uint64_t a = addr + i, base = a & ~(uint64_t)63;
		struct bt_mem *m = NULL;
		for (unsigned s = 0; s < BT_MEM_SLOTS && !m; s++)
			if (ctx->mem[s].valid && ctx->mem[s].base == base)
				m = &ctx->mem[s];
		if (!m) {
			m = &ctx->mem[ctx->mnext++ % BT_MEM_SLOTS];
			int rc = tk_index_mem(ctx->idx, pos, base, 64, m->v, m->k);
			if (rc < 0) {
				m->valid = false;
				return rc;
			}
			m->base = base;
			m->valid = true;
		}
		/* The bytes of this block. */
		for (; i < size && ((addr + i) & ~(uint64_t)63) == base; i++) {
			unsigned o = (unsigned)(addr + i - base);
			if (!m->k[o]) {
				*missing = addr + i;
				return 0;
			}
			b[i] = m->v[o];
		}
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)b[ctx->big_endian ? size - 1 - i : i] << (8 * i);
	*val = v;
	return 1;
}

/* A register of the loaded register set; false if a byte is unknown. */
static bool reg_val(const tk_bt_ctx *ctx, tk_reg r, uint64_t *v)
{
	uint8_t val[8], k[8];
	unsigned n = tk_reg_size(r) > 8 ? 8 : tk_reg_size(r);
	tk_reg_view view = {r, 0, (uint16_t)n};
	if (tk_index_regset_get(ctx->rs, view, val, k) != 0)
		return false;
	uint64_t x = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!k[i])
			return false;
		x |= (uint64_t)val[i] << (8 * i);
	}
	*v = x;
	return true;
}

/* The return address of activation c (its resume point) and the ISA of the
 * code there: Thumb or Arm from the image's symbol, else as frame 0's. */
static void call_return(const tk_bt_ctx *ctx, uint32_t c, tk_isa isa0, uint64_t *ra, tk_isa *isa)
{
	tk_call node;
	*ra = tk_index_get_call(ctx->idx, c, &node) == 0 ? node.resume.pc : 0;
	*isa = isa0;
	uint64_t start;
	bool thumb;
	if (isa0 != TK_ISA_A64 && ctx->opts.image &&
	    tk_dwarf_func_sym(ctx->opts.image, *ra - ctx->opts.load_offset, &start, &thumb))
		*isa = thumb ? TK_ISA_T32 : TK_ISA_A32;
}

static bool push(tk_bt *out, uint64_t addr, uint64_t record, tk_bt_layout layout, tk_isa isa)
{
	if (out->count == TK_BT_MAX_FRAMES) {
		out->stop = TK_BT_TOO_DEEP;
		return false;
	}
	out->frames[out->count++] = (tk_bt_frame){addr, record, layout, isa};
	return true;
}

static void stop(tk_bt *out, tk_bt_stop why, uint64_t addr)
{
	out->stop = why;
	out->stop_addr = addr;
}

/* The address whose CFI describes the state after frame 0's instruction:
 * the next one, if it is in the same function. */
static uint64_t frame0_cfi_pc(tk_bt_ctx *ctx, const tk_index_pos *p)
{
	unsigned w = p->width ? p->width : p->isa == TK_ISA_T32 ? 2 : 4;
	uint64_t off = ctx->opts.load_offset, next = p->pc + w, s1, s2;
	bool t;
	if (ctx->opts.image && tk_dwarf_func_sym(ctx->opts.image, p->pc - off, &s1, &t) &&
	    !(tk_dwarf_func_sym(ctx->opts.image, next - off, &s2, &t) && s1 == s2))
		return p->pc;
	return next;
}

/* Refine a guessed A32 layout at frame record fp.  An APCS frame keeps the
 * caller's sp (fp + 4) at fp - 8 and lr (code, not 0) at fp - 4, where
 * GCC's keeps the caller's fp (0, or a little above fp).  A leaf at frame
 * 0 pushed only fp, with lr still the return address the call tree knows. */
static int refine_guess(tk_bt_ctx *ctx, uint64_t pos, uint64_t fp, bool frame0,
			uint64_t ra_call, uint64_t lr, bt_layout *l)
{
	uint64_t v, w, miss;
	int rc = mem_word(ctx, pos, fp - 8, 4, &v, &miss);
	int rc2 = rc == 1 ? mem_word(ctx, pos, fp - 4, 4, &w, &miss) : rc;
	if (rc < 0 || rc2 < 0)
		return rc < 0 ? rc : rc2;
	bool like_fp = rc2 == 1 && (w == 0 || (w > fp && w - fp < (1u << 20) && w % 4 == 0));
	if (rc == 1 && rc2 == 1 && v == ((fp + 4) & 0xffffffffu) && !like_fp) {
		l->kind = TK_BT_APCS;
		l->fp_off = -12;
		l->lr_off = -4;
		return 0;
	}
	if (!frame0 || !ra_call)
		return 0;
	rc = mem_word(ctx, pos, fp, 4, &v, &miss);
	if (rc < 0)
		return rc;
	if ((rc == 0 || (v & ~1ull) != ra_call) && (lr & ~1ull) == ra_call) {
		l->fp_off = 0;
		l->lr_saved = false;
	}
	return 0;
}

int tk_bt_walk(tk_bt_ctx *ctx, uint64_t pos, tk_bt *out)
{
	out->pos = pos;
	out->count = 0;
	out->stop = TK_BT_END;
	out->stop_addr = 0;
	tk_index_pos p;
	int rc = get_pos(ctx, pos, &p);
	if (rc)
		return rc;
	out->line = p.line;
	out->time = p.time;
	if (p.isa != TK_ISA_A32 && p.isa != TK_ISA_T32 && p.isa != TK_ISA_A64)
		return TK_ERR_UNSUPPORTED;
	bool a64 = p.isa == TK_ISA_A64;
	unsigned wb = a64 ? 8 : 4;
	out->addr_bytes = wb;
	if ((rc = tk_index_regset_at(ctx->idx, pos, ctx->rs)) != 0)
		return rc;
	push(out, p.pc, 0, TK_BT_AUTO, p.isa);

	/* The frame registers: r7 and r11 (AArch32) or x29, and lr. */
	uint64_t regs[3] = {0, 0, 0};
	bool known[3];
	tk_reg names[3] = {R7, R11, X29};
	for (int i = 0; i < 3; i++)
		known[i] = reg_val(ctx, names[i], &regs[i]);
	uint64_t lr = 0;
	bool lr_known = reg_val(ctx, a64 ? TK_REG_X30 : TK_REG_R14, &lr);

	bt_layout lay;
	tk_bt_layout_at(ctx, frame0_cfi_pc(ctx, &p), p.isa, &lay);

	/* Frame 0 without a record: the frame register as at the entry of the
	 * innermost activation. */
	uint32_t c = 0;
	uint64_t ra_call = 0;
	tk_isa isa_call = TK_ISA_UNKNOWN;
	bool from_tree = false;
	if (tk_index_call_at(ctx->idx, pos, &c) == 0 && c != 0) {
		call_return(ctx, c, p.isa, &ra_call, &isa_call);
		tk_index_call_pos cp;
		int fi = lay.fp_reg == R7 ? 0 : lay.fp_reg == R11 ? 1 : 2;
		uint8_t v[8], k[8];
		tk_reg_view view = {lay.fp_reg, 0, (uint16_t)wb};
		if (tk_index_get_call_pos(ctx->idx, c, &cp) == 0 && cp.entry != TK_POS_NONE &&
		    cp.entry > 0 && known[fi] &&
		    tk_index_reg(ctx->idx, cp.entry - 1, view, v, k) == 0) {
			uint64_t at_entry = 0;
			bool all = true;
			for (unsigned i = 0; i < wb; i++) {
				all &= k[i] != 0;
				at_entry |= (uint64_t)v[i] << (8 * i);
			}
			from_tree = all && at_entry == regs[fi];
		}
	}
	tk_isa cur_isa = p.isa;
	if (from_tree) {
		if (isa_call == TK_ISA_UNKNOWN)
			isa_call = p.isa;
		push(out, ra_call, 0, TK_BT_CALLTREE, isa_call);
		cur_isa = isa_call;
	}

	uint64_t prev_record = 0;
	bool have_prev = false;
	for (;;) {
		unsigned k = out->count - 1;
		if (k > 0)
			tk_bt_layout_at(ctx, out->frames[k].addr - 1, cur_isa, &lay);
		int fi = lay.fp_reg == R7 ? 0 : lay.fp_reg == R11 ? 1 : 2;
		if (!known[fi]) {
			stop(out, TK_BT_UNKNOWN_REGISTER, lay.fp_reg);
			break;
		}
		uint64_t fp = regs[fi];
		if (fp == 0)
			break;
		if (!lay.known) {
			stop(out, TK_BT_NO_LAYOUT, out->frames[k].addr);
			break;
		}
		if (fp % wb) {
			stop(out, TK_BT_MISALIGNED, fp);
			break;
		}
		if (have_prev && fp <= prev_record) {
			stop(out, TK_BT_LOOP, fp);
			break;
		}
		if (lay.guessed && (rc = refine_guess(ctx, pos, fp, k == 0, ra_call,
						      lr_known ? lr : 0, &lay)) < 0)
			return rc;
		uint64_t raw, miss, saved;
		if (lay.lr_saved) {
			rc = mem_word(ctx, pos, fp + (uint64_t)lay.lr_off, wb, &raw, &miss);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				stop(out, TK_BT_UNKNOWN_MEMORY, miss);
				break;
			}
		} else if (k == 0 && lr_known) {
			raw = lr;
		} else {
			stop(out, k == 0 ? TK_BT_UNKNOWN_REGISTER : TK_BT_NO_LAYOUT,
			     k == 0 ? (a64 ? TK_REG_X30 : TK_REG_R14) : out->frames[k].addr);
			break;
		}
		if (!a64)
			raw &= 0xffffffffu;
		if (raw == 0)
			break;
		if (!a64 && (raw & 0xffffff00u) == 0xffffff00u) {
			stop(out, TK_BT_EXCEPTION, raw);
			break;
		}
		tk_isa next_isa = a64 ? TK_ISA_A64 : (raw & 1) ? TK_ISA_T32 : TK_ISA_A32;
		if (!push(out, a64 ? raw : raw & ~1ull, fp, lay.kind, next_isa))
			break;
		rc = mem_word(ctx, pos, fp + (uint64_t)lay.fp_off, wb, &saved, &miss);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			stop(out, TK_BT_UNKNOWN_MEMORY, miss);
			break;
		}
		regs[fi] = saved;
		prev_record = fp;
		have_prev = true;
		cur_isa = next_isa;
	}
	return 0;
}

int tk_bt_calls(tk_bt_ctx *ctx, uint64_t pos, tk_bt *out)
{
	out->pos = pos;
	out->count = 0;
	out->stop = TK_BT_END;
	out->stop_addr = 0;
	tk_index_pos p;
	int rc = get_pos(ctx, pos, &p);
	if (rc)
		return rc;
	out->line = p.line;
	out->time = p.time;
	out->line = p.line;
	out->time = p.time;
	if (p.isa != TK_ISA_A32 && p.isa != TK_ISA_T32 && p.isa != TK_ISA_A64)
		return TK_ERR_UNSUPPORTED;
	out->addr_bytes = p.isa == TK_ISA_A64 ? 8 : 4;
	push(out, p.pc, 0, TK_BT_CALLTREE, p.isa);
	uint32_t c;
	if ((rc = tk_index_call_at(ctx->idx, pos, &c)) != 0)
		return rc;
	/* The activations out to the root, each read from the index. */
	tk_call node;
	for (; c != 0 && c != TK_CALL_NONE; c = node.parent) {
		if ((rc = tk_index_get_call(ctx->idx, c, &node)) != 0)
			return rc;
		if (!push(out, node.resume.pc, 0, TK_BT_CALLTREE, TK_ISA_UNKNOWN))
			break;
	}
	return 0;
}

const char *tk_bt_stop_text(const tk_bt *bt, char *buf, size_t size)
{
	int w = bt->addr_bytes == 8 ? 16 : 8;
	unsigned long long a = bt->stop_addr;
	switch (bt->stop) {
	case TK_BT_END:
		return NULL;
	case TK_BT_EXCEPTION:
		snprintf(buf, size, "exception frame");
		break;
	case TK_BT_LOOP:
		snprintf(buf, size, "frame record at 0x%0*llx is not above the previous one", w, a);
		break;
	case TK_BT_MISALIGNED:
		snprintf(buf, size, "misaligned frame pointer 0x%0*llx", w, a);
		break;
	case TK_BT_UNKNOWN_MEMORY:
		snprintf(buf, size, "memory at 0x%0*llx is not known", w, a);
		break;
	case TK_BT_UNKNOWN_REGISTER:
		snprintf(buf, size, "register %s is not known", tk_reg_name((tk_reg)a));
		break;
	case TK_BT_TOO_DEEP:
		snprintf(buf, size, "%d frames", TK_BT_MAX_FRAMES);
		break;
	case TK_BT_NO_LAYOUT:
		snprintf(buf, size, "frame size of the Thumb code at 0x%0*llx is not known", w, a);
		break;
	}
	return buf;
}

const char *tk_bt_layout_name(tk_bt_layout layout)
{
	switch (layout) {
	case TK_BT_APCS: return "apcs";
	case TK_BT_AAPCS: return "aapcs";
	case TK_BT_A64: return "a64";
	case TK_BT_THUMB: return "thumb";
	case TK_BT_CALLTREE: return "calls";
	default: return "auto";
	}
}

int tk_bt_layout_parse(const char *name, tk_bt_layout *out)
{
	static const tk_bt_layout all[] = {TK_BT_AUTO, TK_BT_APCS, TK_BT_AAPCS, TK_BT_A64,
					   TK_BT_THUMB};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(name, tk_bt_layout_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return TK_ERR_INVAL;
}
