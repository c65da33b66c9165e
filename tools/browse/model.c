/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the adapter over the trace index (see model.h).
 *
 * The one translation here: the browser's position k (between instructions
 * k-1 and k) is the index's position k-1 (the state after instruction
 * k-1).  Position 0, before the first instruction, knows nothing.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_index.h"
#include "tracekit/index.h"
#include "view/textfile.h"

struct tkb_model {
	tk_index *idx;
	uint64_t n;
	bool rendered;		/* no text: lines are records (textfile.h) */
};


struct tkb_regs {
	tk_index_regset *rs;	/* NULL at position 0 */
};

int tkb_model_open(tk_cli *cli, tkb_model **out)
{
	tkb_model *m = calloc(1, sizeof *m);
	if (!m) {
		tk_cli_error(cli, "out of memory");
		return -1;
	}
	/* Builds or reuses the index as the common options say, with the
	 * progress meter and messages of every command. */
	if (tk_cli_open_index(cli, true, &m->idx)) {
		free(m);
		return -1;
	}
	m->n = tk_index_count(m->idx);
	m->rendered = tkv_index_rendered(m->idx);
	*out = m;
	return 0;
}

void tkb_model_free(tkb_model *m)
{
	if (!m)
		return;
	tk_index_free(m->idx);
	free(m);
}

const tk_index *tkb_model_index(const tkb_model *m)
{
	return m->idx;
}

uint64_t tkb_model_ninsns(const tkb_model *m)
{
	return m->n;
}

void tkb_model_insn(const tkb_model *m, uint64_t i, tk_tpos *out)
{
	tk_index_pos ip;
	memset(out, 0, sizeof *out);
	if (tk_index_get_pos(m->idx, i, &ip) == 0) {
		out->line = ip.line;
		out->offset = tkv_text_offset(m->rendered, ip.offset, ip.line);
		out->time = ip.time;
		out->pc = ip.pc;
	}
}

void tkb_model_block(const tkb_model *m, uint64_t i, uint64_t *start, uint64_t *end)
{
	tk_index_pos ip;
	*start = *end = 0;
	if (i == UINT64_MAX) {
		/* Without instructions, every line is before the first one. */
		*end = UINT64_MAX;
		if (m->n && tk_index_get_pos(m->idx, 0, &ip) == 0)
			*end = tkv_text_offset(m->rendered, ip.offset, ip.line);
		return;
	}
	if (tk_index_get_pos(m->idx, i, &ip) == 0) {
		*start = tkv_text_offset(m->rendered, ip.offset, ip.line);
		*end = tkv_text_offset(m->rendered, ip.end_offset, ip.end_line);
	}
}

tk_isa tkb_model_isa(const tkb_model *m, uint64_t i)
{
	tk_index_pos ip;
	return tk_index_get_pos(m->idx, i, &ip) == 0 ? ip.isa : TK_ISA_UNKNOWN;
}

unsigned tkb_model_width(const tkb_model *m, uint64_t i)
{
	tk_index_pos ip;
	return tk_index_get_pos(m->idx, i, &ip) == 0 ? ip.width : 0;
}

uint64_t tkb_model_insn_for_line(const tkb_model *m, uint64_t line)
{
	uint64_t pos;
	if (tk_index_find_line(m->idx, line, &pos))
		return UINT64_MAX;
	return pos;
}

uint64_t tkb_model_insn_for_time(const tkb_model *m, uint64_t t)
{
	uint64_t pos;
	if (tk_index_find_time(m->idx, t, &pos))
		return UINT64_MAX;
	return pos;
}

int tkb_model_reg(const tkb_model *m, uint64_t pos, tk_reg_view view,
		  uint8_t *value, uint8_t *known)
{
	if (pos == 0) {
		memset(value, 0, view.len);
		memset(known, 0, view.len);
		return 0;
	}
	return tk_index_reg(m->idx, pos - 1, view, value, known);
}

int tkb_model_mem(const tkb_model *m, uint64_t pos, uint64_t addr, uint32_t len,
		  uint8_t *value, uint8_t *known)
{
	if (len && addr + len - 1 < addr)	/* the top of the address space */
		len = (uint32_t)(UINT64_MAX - addr + 1);
	if (pos == 0 || len == 0) {
		memset(value, 0, len);
		memset(known, 0, len);
		return 0;
	}
	return tk_index_mem(m->idx, pos - 1, addr, len, value, known);
}

uint64_t tkb_model_reg_prev_write(const tkb_model *m, uint64_t before, tk_reg_view view)
{
	uint64_t q;
	if (before == 0 || tk_index_reg_prev_write(m->idx, before - 1, view, &q))
		return UINT64_MAX;
	return q;
}

uint64_t tkb_model_mem_prev_write(const tkb_model *m, uint64_t before,
				  uint64_t addr, uint64_t len)
{
	uint64_t q;
	if (before == 0 || tk_index_mem_prev_write(m->idx, before - 1, addr, len, &q))
		return UINT64_MAX;
	return q;
}

int tkb_model_mem_written(const tkb_model *m, uint64_t a, uint64_t b,
			  uint64_t lo, uint64_t hi, bool ascending,
			  tkb_range_fn fn, void *ctx)
{
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	if (a == b || b == 0)
		return 0;
	/* Instructions a..b-1 ran: index positions q with a-1 < q <= b-1.
	 * (Position 0 is never shown: the browser starts at 1.) */
	return tk_index_mem_changes(m->idx, a ? a - 1 : 0, b - 1, lo, hi, ascending, fn, ctx);
}

uint64_t tkb_model_pc_next(const tkb_model *m, uint64_t from, uint64_t pc)
{
	uint64_t q;
	if (tk_index_find_pc(m->idx, from, pc, true, &q))
		return UINT64_MAX;
	return q;
}

uint64_t tkb_model_pc_prev(const tkb_model *m, uint64_t from, uint64_t pc)
{
	uint64_t q;
	if (tk_index_find_pc(m->idx, from, pc, false, &q))
		return UINT64_MAX;
	return q;
}

uint32_t tkb_model_ncalls(const tkb_model *m)
{
	return tk_index_call_count(m->idx);
}

bool tkb_model_call(const tkb_model *m, uint32_t c, tk_call *out)
{
	if (tk_index_get_call(m->idx, c, out) == 0)
		return true;
	memset(out, 0, sizeof *out);
	out->parent = out->first_child = out->next_sibling = TK_CALL_NONE;
	return false;
}

uint32_t tkb_model_call_parent(const tkb_model *m, uint32_t c)
{
	tk_call call;
	return tkb_model_call(m, c, &call) ? call.parent : TK_CALL_NONE;
}

void tkb_model_call_subtree(const tkb_model *m, uint32_t c, void (*fn)(void *ctx, uint32_t n),
			    void *ctx)
{
	tk_call top, node;
	tk_callwalk *w;
	if (!tkb_model_call(m, c, &top) || tk_index_calls_walk(m->idx, c + 1, &w) < 0)
		return;
	for (uint32_t n = c + 1; tk_callwalk_next(w, &node) > 0 && node.depth > top.depth &&
				 node.context == top.context; n++)
		fn(ctx, n);
	tk_callwalk_free(w);
}

uint32_t tkb_model_call_at(const tkb_model *m, uint64_t i)
{
	uint32_t c;
	if (tk_index_call_at(m->idx, i, &c))
		return 0;
	return c;
}

void tkb_model_call_insns(const tkb_model *m, uint32_t c, tkb_call_insns *out)
{
	tk_index_call_pos cp;
	if (tk_index_get_call_pos(m->idx, c, &cp)) {
		out->call = out->entry = out->exit = out->resume = UINT64_MAX;
		return;
	}
	out->call = cp.call;
	out->entry = cp.entry;
	out->exit = cp.exit;
	out->resume = cp.resume;
}

int tkb_model_regs_at(const tkb_model *m, uint64_t pos, tkb_regs **out)
{
	tkb_regs *rs = calloc(1, sizeof *rs);
	if (!rs)
		return -1;
	if (pos > 0) {
		int r = tk_index_regset_alloc(&rs->rs);
		if (r == 0)
			r = tk_index_regset_at(m->idx, pos - 1, rs->rs);
		if (r) {
			tkb_regs_free(rs);
			return r;
		}
	}
	*out = rs;
	return 0;
}

int tkb_regs_get(const tkb_regs *rs, tk_reg_view view, uint8_t *value, uint8_t *known)
{
	if (!rs->rs) {
		memset(value, 0, view.len);
		memset(known, 0, view.len);
		return 0;
	}
	return tk_index_regset_get(rs->rs, view, value, known);
}

void tkb_regs_free(tkb_regs *rs)
{
	if (!rs)
		return;
	tk_index_regset_free(rs->rs);
	free(rs);
}
