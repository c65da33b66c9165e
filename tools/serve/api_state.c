/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: register and memory state at a position, and where
 * values were written. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_out.h"
#include "serve.h"
#include "view/regsets.h"

/* The state compared against for "changed": since=LINE, else the
 * position before.  TK_POS_NONE: nothing before (all counts as changed). */
static int since_pos(const tks_request *rq, tks_trace *t, uint64_t pos, uint64_t *out,
		     tks_error *e)
{
	if (rq->param(rq->ctx, "since"))
		return tks_param_line_pos(rq, t, "since", out, e);
	*out = pos ? pos - 1 : TK_POS_NONE;
	return 0;
}

static bool position_a64(tks_trace *t, uint64_t pos)
{
	int a64 = tkv_isa_a64(t->idx, pos);
	if (a64 < 0)
		a64 = tkv_isa_a64(t->idx, 0);
	return a64 > 0;
}

/* Whether a set applies to this trace and state. */
static bool set_shown(tks_trace *t, tkv_regset set, bool a64)
{
	bool fp = false;
	for (int i = 0; i < 32 && !fp; i++)
		fp = tk_index_reg_seen(t->idx, (tk_reg)(TK_REG_V0 + i));
	switch (set) {
	case TKV_RS_CORE:
	case TKV_RS_SYSTEM:
		return true;
	case TKV_RS_MVE:
		return !a64 && tk_index_reg_seen(t->idx, TK_REG_VPR);
	default:
		return fp;
	}
}

static json_t *reg_json(tks_trace *t, const tkv_regdef *r, tkv_regset set, uint64_t pos,
			const tk_index_regset *now, const tk_index_regset *before)
{
	uint8_t v[TK_REG_MAX_BYTES] = {0}, k[TK_REG_MAX_BYTES] = {0};
	uint8_t v0[TK_REG_MAX_BYTES] = {0}, k0[TK_REG_MAX_BYTES] = {0};
	char hex[2 * TK_REG_MAX_BYTES + 1], mask[TK_REG_MAX_BYTES + 1];
	bool changed, written = false;
	int len = r->view.len;
	if (r->pc) {
		tk_index_pos p;
		tk_index_get_pos(t->idx, pos, &p);
		for (int i = 0; i < len; i++) {
			v[i] = (uint8_t)(p.pc >> (8 * i));
			k[i] = 1;
		}
		changed = before && tkv_reached_by_jump(t->idx, pos);
		written = true;
	} else {
		tk_index_regset_get(now, r->view, v, k);
		if (before) {
			tk_index_regset_get(before, r->view, v0, k0);
			changed = memcmp(v, v0, (size_t)len) || memcmp(k, k0, (size_t)len);
		} else {
			changed = memchr(k, 1, (size_t)len) != NULL;
		}
		uint64_t q;
		written = tk_index_reg_prev_write(t->idx, pos, r->view, &q) == 0 && q == pos;
	}
	tkv_reg_hex(v, k, len, hex);
	for (int i = 0; i < len; i++)
		mask[i] = k[len - 1 - i] ? '1' : '0';
	mask[len] = '\0';
	json_t *j = json_pack("{s:s,s:s,s:s,s:b,s:b}", "name", r->name, "value", hex, "known", mask,
			      "changed", changed, "written", written);
	if (j && (set == TKV_RS_SINGLE || set == TKV_RS_DOUBLE)) {
		char dec[40];
		tkv_reg_float(v, k, len, dec, sizeof dec);
		json_object_set_new(j, "float", json_string(dec));
	}
	return j;
}

json_t *tks_api_regs(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t pos, since;
	const char *want = NULL;
	if (tks_param_line_pos(rq, t, "line", &pos, e) || since_pos(rq, t, pos, &since, e) ||
	    tks_param_str(rq, "sets", 100, &want, e) < 0)
		return NULL;
	tk_index_regset *now = NULL, *before = NULL;
	json_t *groups = json_array(), *out = NULL;
	if (tk_index_regset_alloc(&now) || tk_index_regset_at(t->idx, pos, now) ||
	    (since != TK_POS_NONE && (tk_index_regset_alloc(&before) ||
				      tk_index_regset_at(t->idx, since, before))) || !groups) {
		tks_fail(e, 500, "cannot read the registers");
		goto out;
	}
	bool a64 = position_a64(t, pos);
	for (tkv_regset set = 0; set < TKV_RS_COUNT; set++) {
		const char *name = tkv_regset_name(set);
		if (want) {
			const char *p = strstr(want, name);
			size_t n = strlen(name);
			if (!p || (p > want && p[-1] != ',') || (p[n] && p[n] != ','))
				continue;
		} else if (!set_shown(t, set, a64)) {
			continue;
		}
		tkv_regdef defs[TKV_REGSET_MAX];
		int n = tkv_regset_list(set, a64, defs);
		json_t *regs = json_array();
		for (int i = 0; regs && i < n; i++)
			json_array_append_new(regs, reg_json(t, &defs[i], set, pos, now, before));
		json_array_append_new(groups, json_pack("{s:s,s:s,s:o}", "set", name, "title",
							tkv_regset_title(set, a64), "regs", regs));
	}
	out = json_pack("{s:I,s:O,s:b,s:o}", "insn", (json_int_t)pos, "groups", groups, "a64", a64,
			"position", tks_position_json(t, pos));
	if (out && since != TK_POS_NONE)
		json_object_set_new(out, "since", json_integer((json_int_t)since));
out:
	json_decref(groups);
	tk_index_regset_free(now);
	tk_index_regset_free(before);
	return out;
}

typedef struct ranges {
	json_t *list;
	uint32_t n;
} ranges;

static int add_range(void *ctx, uint64_t addr, uint64_t len)
{
	ranges *r = ctx;
	if (++r->n > 4096)
		return 1;	/* enough to highlight a 64 KiB view */
	return json_array_append_new(r->list, json_pack("[o,I]", tks_hex(addr), (json_int_t)len));
}

json_t *tks_api_mem(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t pos, since, addr, len = 256;
	const char *expr;
	if (tks_param_line_pos(rq, t, "line", &pos, e) || since_pos(rq, t, pos, &since, e) ||
	    tks_param_u64(rq, "len", &len, e) < 0)
		return NULL;
	int r = tks_param_str(rq, "addr", TKS_MAX_EXPR, &expr, e);
	if (r <= 0)
		return r ? NULL : tks_fail(e, 400, "parameter 'addr' is missing");
	if (len == 0 || len > TKS_MAX_MEM)
		return tks_fail(e, 400, "parameter 'len': 1 to %d bytes", TKS_MAX_MEM);
	if (tks_eval_addr(t, pos, expr, &addr, e))
		return NULL;
	if (addr + len - 1 < addr)	/* the top of the address space */
		len = UINT64_MAX - addr + 1;
	uint8_t *v = malloc(len), *k = malloc(len), *st = malloc(len);
	json_t *out = NULL;
	if (!v || !k || !st || tk_index_mem(t->idx, pos, addr, (size_t)len, v, k)) {
		tks_fail(e, 500, "cannot read memory");
		goto out;
	}
	char *mask = (char *)st;	/* reuse: as many bytes, plus none */
	for (uint64_t i = 0; i < len; i++)
		st[i] = k[i] ? TK_BYTE_SET : TK_BYTE_UNKNOWN;
	json_t *bytes = tkj_bytes(v, st, (size_t)len, false);
	for (uint64_t i = 0; i < len; i++)
		mask[i] = k[i] ? '1' : '0';
	ranges ch = {json_array(), 0};
	if (since != TK_POS_NONE && since != pos && ch.list)
		tk_index_mem_changes(t->idx, since, pos, addr, addr + len - 1, true, add_range, &ch);
	out = json_pack("{s:o,s:I,s:s,s:o,s:s%,s:o,s:I}", "addr", tks_hex(addr), "len",
			(json_int_t)len, "expr", expr, "bytes", bytes, "known", mask, (size_t)len,
			"changed", ch.list, "insn", (json_int_t)pos);
	if (!out)
		tks_fail(e, 500, "out of memory");
out:
	free(v);
	free(k);
	free(st);
	return out;
}

json_t *tks_api_history(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t pos, q, len = 1, addr;
	const char *reg = NULL, *expr = NULL, *dir = "prev";
	int have_reg, have_addr;
	if (tks_param_line_pos(rq, t, "line", &pos, e) ||
	    (have_reg = tks_param_str(rq, "reg", 64, &reg, e)) < 0 ||
	    (have_addr = tks_param_str(rq, "addr", TKS_MAX_EXPR, &expr, e)) < 0 ||
	    tks_param_u64(rq, "len", &len, e) < 0 || tks_param_str(rq, "dir", 8, &dir, e) < 0)
		return NULL;
	bool prev = !strcmp(dir, "prev");
	if (!prev && strcmp(dir, "next"))
		return tks_fail(e, 400, "parameter 'dir': prev or next");
	if (have_reg + have_addr != 1)
		return tks_fail(e, 400, "give one of reg= or addr=");
	int rc;
	if (have_reg && !strcasecmp(reg, "pc")) {
		/* Every instruction writes pc: its history is the visits of
		 * the same address, as the terminal browser's Return on pc. */
		tk_index_pos p;
		tk_index_get_pos(t->idx, pos, &p);
		rc = tk_index_find_pc(t->idx, pos, p.pc, !prev, &q);
	} else if (have_reg) {
		tk_reg_view view;
		if (tk_index_reg_lookup(t->idx, pos, reg, &view))
			return tks_fail(e, 400, "parameter 'reg': no register '%.40s'", reg);
		rc = prev ? tk_index_reg_prev_write(t->idx, pos, view, &q)
			  : tk_index_reg_next_write(t->idx, pos, view, &q);
	} else {
		if (len == 0 || len > 4096)
			return tks_fail(e, 400, "parameter 'len': 1 to 4096 bytes");
		if (tks_eval_addr(t, pos, expr, &addr, e))
			return NULL;
		if (addr + len - 1 < addr)
			return tks_fail(e, 400, "the range passes the top of the address space");
		rc = prev ? tk_index_mem_prev_write(t->idx, pos, addr, (size_t)len, &q)
			  : tk_index_mem_next_write(t->idx, pos, addr, (size_t)len, &q);
	}
	if (rc == TK_ERR_NOTFOUND)
		return json_pack("{s:b,s:n}", "found", false, "position");
	if (rc)
		return tks_fail(e, 500, "cannot read the history");
	return json_pack("{s:b,s:o}", "found", true, "position", tks_position_json(t, q));
}
