/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): register panes (see regsets.h). */
#include "regsets.h"

#include <stdio.h>
#include <string.h>

static void add(tkv_regdef *out, int *n, const char *name, bool a64)
{
	tk_reg_view v;
	if (*n >= TKV_REGSET_MAX)
		return;
	if (!strcmp(name, "pc")) {
		snprintf(out[*n].name, sizeof out[*n].name, "pc");
		out[*n].view = (tk_reg_view){TK_REG_NONE, 0, a64 ? 8 : 4};
		out[(*n)++].pc = true;
		return;
	}
	out[*n].pc = false;
	if (tk_reg_lookup(name, strlen(name), 0, a64, &v))
		return;
	if (v.reg == TK_REG_PSR)
		v.len = 4;	/* the architectural 32 bits */
	snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
	out[*n].view = v;
	(*n)++;
}

int tkv_regset_list(tkv_regset set, bool a64, tkv_regdef *out)
{
	static const char *const a32_core[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6",
		"r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc", "cpsr"};
	int n = 0;
	char name[16];
	switch (set) {
	case TKV_RS_CORE:
		if (a64) {
			for (int i = 0; i <= 30; i++) {
				snprintf(name, sizeof name, "x%d", i);
				add(out, &n, name, true);
			}
			out[n].view = (tk_reg_view){TK_REG_XSP, 0, 8};
			out[n].pc = false;
			snprintf(out[n++].name, sizeof out[0].name, "sp");
			add(out, &n, "pc", true);
			add(out, &n, "cpsr", true);
		} else {
			for (size_t i = 0; i < sizeof a32_core / sizeof a32_core[0]; i++)
				add(out, &n, a32_core[i], false);
		}
		break;
	case TKV_RS_SINGLE:
	case TKV_RS_DOUBLE:
		for (int i = 0; i < 32; i++) {
			snprintf(name, sizeof name, "%c%d", set == TKV_RS_SINGLE ? 's' : 'd', i);
			add(out, &n, name, a64);
		}
		break;
	case TKV_RS_NEON:
		for (int i = 0; i < (a64 ? 32 : 16); i++) {
			snprintf(name, sizeof name, "%c%d", a64 ? 'v' : 'q', i);
			add(out, &n, name, a64);
		}
		break;
	case TKV_RS_MVE:
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof name, "q%d", i);
			add(out, &n, name, false);
		}
		add(out, &n, "vpr", false);
		break;
	case TKV_RS_SYSTEM:
		add(out, &n, "cpsr", a64);
		if (a64) {
			add(out, &n, "fpsr", true);
			add(out, &n, "fpcr", true);
		} else {
			add(out, &n, "fpscr", false);
			add(out, &n, "vpr", false);
		}
		break;
	default:
		break;
	}
	return n;
}

const char *tkv_regset_title(tkv_regset set, bool a64)
{
	switch (set) {
	case TKV_RS_CORE:
		return a64 ? "Core registers (AArch64)" : "Core registers (AArch32)";
	case TKV_RS_SINGLE:
		return "Single-precision FP registers";
	case TKV_RS_DOUBLE:
		return "Double-precision FP registers";
	case TKV_RS_NEON:
		return "NEON vector registers";
	case TKV_RS_MVE:
		return "MVE vector registers";
	case TKV_RS_SYSTEM:
		return "System registers";
	default:
		return "";
	}
}

const char *tkv_regset_name(tkv_regset set)
{
	static const char *const names[] = {"core", "single", "double", "neon", "mve", "system"};
	return set < TKV_RS_COUNT ? names[set] : "";
}

void tkv_reg_hex(const uint8_t *v, const uint8_t *k, int len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;
	for (int i = len - 1; i >= 0; i--) {
		if (k[i]) {
			*o++ = hex[v[i] >> 4];
			*o++ = hex[v[i] & 15];
		} else {
			*o++ = '?';
			*o++ = '?';
		}
	}
	*o = '\0';
}

void tkv_reg_float(const uint8_t *v, const uint8_t *k, int len, char *out, size_t size)
{
	bool all = len == 4 || len == 8;
	for (int i = 0; all && i < len; i++)
		all = k[i] != 0;
	if (!all) {
		snprintf(out, size, "?");
	} else if (len == 4) {
		float f;
		uint32_t u = (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 |
			     (uint32_t)v[3] << 24;
		memcpy(&f, &u, 4);
		snprintf(out, size, "%.7g", (double)f);
	} else {
		double d;
		uint64_t u = 0;
		for (int i = 7; i >= 0; i--)
			u = u << 8 | v[i];
		memcpy(&d, &u, 8);
		snprintf(out, size, "%.15g", d);
	}
}

bool tkv_reached_by_jump(const tk_index *idx, uint64_t i)
{
	tk_index_pos a, c;
	if (i == 0 || tk_index_get_pos(idx, i - 1, &a) || tk_index_get_pos(idx, i, &c))
		return false;
	if (a.width)
		return c.pc != a.pc + a.width;
	if (a.isa == TK_ISA_T32)
		return c.pc != a.pc + 2 && c.pc != a.pc + 4;
	return c.pc != a.pc + 4;
}

int tkv_isa_a64(const tk_index *idx, uint64_t i)
{
	tk_index_pos p;
	if (tk_index_get_pos(idx, i, &p))
		return -1;
	if (p.isa == TK_ISA_A64)
		return 1;
	if (p.isa == TK_ISA_A32 || p.isa == TK_ISA_T32)
		return 0;
	return -1;
}
