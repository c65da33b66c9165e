/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: register names (lib/regs.c), every name of the seed's
 * register table, aliases, banked suffixes, bit ranges, the AArch32 and
 * AArch64 FP overlays, and unknown names. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/regs.h"

static tk_reg_view look(const char *name, unsigned content, int a64, int *rc)
{
	tk_reg_view v;
	*rc = tk_reg_lookup(name, strlen(name), content, a64, &v);
	return v;
}

#define VIEW(name, content, a64, R_, O_, L_)                                              \
	do {                                                                               \
		int rc_;                                                                   \
		tk_reg_view v_ = look(name, content, a64, &rc_);                           \
		CHECKF(rc_ == 0 && v_.reg == (R_) && v_.offset == (O_) && v_.len == (L_),  \
		       "%s -> rc %d reg %u (%s) [%u+%u]", name, rc_, v_.reg,               \
		       tk_reg_name(v_.reg), v_.offset, v_.len);                            \
	} while (0)

#define UNKNOWN(name)                                                                      \
	do {                                                                               \
		int rc_;                                                                   \
		tk_reg_view v_ = look(name, 4, 0, &rc_);                                   \
		CHECKF(rc_ == TK_ERR_NOTFOUND && v_.reg == TK_REG_NONE, "%s -> rc %d reg %u", \
		       name, rc_, v_.reg);                                                 \
	} while (0)

int main(void)
{
	char name[32];

	/* Every numbered name, both cases. */
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "r%d", i);
		VIEW(name, 4, 0, TK_REG_R0 + i, 0, 4);
		snprintf(name, sizeof name, "R%d", i);
		VIEW(name, 4, 0, TK_REG_R0 + i, 0, 4);
	}
	for (int i = 0; i < 31; i++) {
		snprintf(name, sizeof name, "x%d", i);
		VIEW(name, 8, 1, TK_REG_X0 + i, 0, 8);
		snprintf(name, sizeof name, "E%d", i);
		VIEW(name, 8, 1, TK_REG_X0 + i, 0, 8);
		snprintf(name, sizeof name, "w%d", i);
		VIEW(name, 4, 1, TK_REG_X0 + i, 0, 4);
	}
	for (int i = 0; i < 32; i++) {
		snprintf(name, sizeof name, "v%d", i);
		VIEW(name, 16, 1, TK_REG_V0 + i, 0, 16);
		snprintf(name, sizeof name, "Q%d", i);
		VIEW(name, 16, 0, TK_REG_V0 + i, 0, 16);
		snprintf(name, sizeof name, "z%d", i);
		VIEW(name, 0, 1, TK_REG_Z0 + i, 0, 256);
		snprintf(name, sizeof name, "P%d", i);
		VIEW(name, 0, 1, TK_REG_P0 + i, 0, 32);
		/* AArch64: dN and sN are the bottom of vN. */
		snprintf(name, sizeof name, "d%d", i);
		VIEW(name, 8, 1, TK_REG_V0 + i, 0, 8);
		snprintf(name, sizeof name, "s%d", i);
		VIEW(name, 4, 1, TK_REG_V0 + i, 0, 4);
		/* AArch32: d2k/d2k+1 halves of qk, s4k..s4k+3 quarters. */
		snprintf(name, sizeof name, "D%d", i);
		VIEW(name, 8, 0, TK_REG_V0 + i / 2, (i % 2) * 8, 8);
		snprintf(name, sizeof name, "S%d", i);
		VIEW(name, 4, 0, TK_REG_V0 + i / 4, (i % 4) * 4, 4);
	}
	UNKNOWN("x31");
	UNKNOWN("r16");
	UNKNOWN("v32");
	UNKNOWN("r01");
	UNKNOWN("x");

	/* Aliases. */
	VIEW("xsp", 8, 1, TK_REG_XSP, 0, 8);
	VIEW("WSP", 4, 1, TK_REG_XSP, 0, 4);
	VIEW("msp", 4, 0, TK_REG_R13, 0, 4);
	VIEW("MSP", 4, 0, TK_REG_R13, 0, 4);
	VIEW("lr", 4, 0, TK_REG_R14, 0, 4);
	VIEW("sp", 4, 0, TK_REG_R13, 0, 4);
	VIEW("SP", 8, 0, TK_REG_XSP, 0, 8);
	VIEW("sp", 0, 1, TK_REG_XSP, 0, 8);
	VIEW("sp", 0, 0, TK_REG_R13, 0, 4);
	VIEW("psr", 4, 0, TK_REG_PSR, 0, 4);
	VIEW("CPSR", 4, 0, TK_REG_PSR, 0, 4);
	VIEW("xpsr", 4, 0, TK_REG_PSR, 0, 4);
	VIEW("XPSR", 4, 0, TK_REG_PSR, 0, 4);
	VIEW("fpsr", 8, 1, TK_REG_FPSR, 0, 8);
	VIEW("FPCR", 8, 1, TK_REG_FPCR, 0, 8);
	VIEW("fpscr", 4, 0, TK_REG_FPSCR, 0, 4);
	VIEW("VPR", 4, 0, TK_REG_VPR, 0, 4);

	/* Banked copies. */
	VIEW("r13_svc", 4, 0, TK_REG_R13, 0, 4);
	VIEW("r14_svc", 4, 0, TK_REG_R14, 0, 4);
	VIEW("r13_main", 4, 0, TK_REG_R13, 0, 4);
	VIEW("r13_main_s", 4, 0, TK_REG_R13, 0, 4);
	VIEW("MSP_S", 4, 0, TK_REG_R13, 0, 4);
	VIEW("X0_EL3", 8, 1, TK_REG_X0, 0, 8);
	VIEW("lr_svc", 4, 0, TK_REG_R14, 0, 4);
	VIEW("sp_svc", 4, 0, TK_REG_R13, 0, 4);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "SP_EL%d", i);
		VIEW(name, 8, 1, TK_REG_XSP, 0, 8);
		snprintf(name, sizeof name, "sp_el%d", i);
		VIEW(name, 4, 0, TK_REG_XSP, 0, 8);	/* even with 4 bytes */
	}
	UNKNOWN("SPSR_EL3");
	UNKNOWN("spsr_svc");
	UNKNOWN("ESR_EL3");
	UNKNOWN("DFSR_S");
	UNKNOWN("_svc");
	UNKNOWN("SCTLR");
	UNKNOWN("CONTROL");
	UNKNOWN("DC CISW");

	/* Bit ranges. */
	VIEW("V0<127:64>", 8, 1, TK_REG_V0, 8, 8);
	VIEW("V0<63:0>", 8, 1, TK_REG_V0, 0, 8);
	VIEW("v5<31:0>", 4, 1, TK_REG_V0 + 5, 0, 4);
	VIEW("x3<63:32>", 4, 1, TK_REG_X0 + 3, 4, 4);
	UNKNOWN("V0<12:4>");	/* not whole bytes */
	UNKNOWN("V0<255:0>");	/* wider than v0 */
	UNKNOWN("V0<63:0");
	UNKNOWN("V0<:0>");

	/* Names and sizes. */
	CHECK(!strcmp(tk_reg_name(TK_REG_R13), "r13"));
	CHECK(!strcmp(tk_reg_name(TK_REG_X30), "x30"));
	CHECK(!strcmp(tk_reg_name(TK_REG_XSP), "xsp"));
	CHECK(!strcmp(tk_reg_name(TK_REG_V0 + 31), "v31"));
	CHECK(!strcmp(tk_reg_name(TK_REG_Z0 + 7), "z7"));
	CHECK(!strcmp(tk_reg_name(TK_REG_P0 + 15), "p15"));
	CHECK(!strcmp(tk_reg_name(TK_REG_PSR), "psr"));
	CHECK(!strcmp(tk_reg_name(TK_REG_VPR), "vpr"));
	CHECK(!strcmp(tk_reg_name(TK_REG_NONE), "?"));
	CHECK(tk_reg_size(TK_REG_R0) == 4);
	CHECK(tk_reg_size(TK_REG_XSP) == 8);
	CHECK(tk_reg_size(TK_REG_V0) == 16);
	CHECK(tk_reg_size(TK_REG_Z0) == TK_REG_MAX_BYTES);
	CHECK(tk_reg_size(TK_REG_P0) == 32);
	CHECK(tk_reg_size(TK_REG_PSR) == 4);
	CHECK(tk_reg_size(TK_REG_FPCR) == 8);
	CHECK(tk_reg_size(TK_REG_FPSCR) == 4);
	CHECK(tk_reg_size(TK_REG_NONE) == 0);
	/* Every canonical register has a distinct name. */
	for (tk_reg a = 0; a < TK_REG_COUNT; a++)
		for (tk_reg b = a + 1; b < TK_REG_COUNT; b++)
			CHECKF(strcmp(tk_reg_name(a), tk_reg_name(b)), "%u and %u are both %s", a, b,
			       tk_reg_name(a));

	return check_report("test_regs");
}
