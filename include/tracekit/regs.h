/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the register model.
 *
 * Every register a trace can name maps onto a view (offset, length) of one
 * canonical register.  The canonical registers are few and fixed, so analyses
 * (the index, the call heuristic, the browser) can keep them in flat arrays.
 *
 *   r0..r15   AArch32 core registers (4 bytes).  r13 = sp, r14 = lr, msp.
 *   x0..x30   AArch64 core registers (8 bytes).  wN = low 4 bytes, eN = xN.
 *   xsp       AArch64 stack pointer (8 bytes).  wsp = low 4, SP_ELn, 64-bit sp.
 *   v0..v31   128-bit FP/vector registers (q, v; and the views below).
 *   z0..z31   SVE vectors (256 bytes, as wide as any trace writes).
 *   p0..p31   SVE predicates (32 bytes).
 *   psr       the PSR (4 bytes): psr, cpsr, xpsr.
 *   fpsr fpcr (8 bytes, AArch64), fpscr vpr (4 bytes).
 *
 * Scalar FP views depend on the execution state: in AArch64 dN and sN are the
 * low 8 / 4 bytes of vN; in AArch32 dN is half of q(N/2) and sN a quarter of
 * q(N/4), as the architecture overlays them.
 *
 * Values are stored little-endian: byte 0 is the least significant byte.
 */
#ifndef TRACEKIT_REGS_H
#define TRACEKIT_REGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t tk_reg;

enum {
	TK_REG_R0 = 0,			/* r0..r15 */
	TK_REG_X0 = TK_REG_R0 + 16,	/* x0..x30 */
	TK_REG_XSP = TK_REG_X0 + 31,
	TK_REG_V0 = TK_REG_XSP + 1,	/* v0..v31 */
	TK_REG_Z0 = TK_REG_V0 + 32,	/* z0..z31 */
	TK_REG_P0 = TK_REG_Z0 + 32,	/* p0..p31 */
	TK_REG_PSR = TK_REG_P0 + 32,
	TK_REG_FPSR,
	TK_REG_FPCR,
	TK_REG_FPSCR,
	TK_REG_VPR,
	TK_REG_COUNT,
	TK_REG_NONE = 0xffff		/* a register tracekit does not model */
};

#define TK_REG_R13 (TK_REG_R0 + 13)
#define TK_REG_R14 (TK_REG_R0 + 14)
#define TK_REG_R15 (TK_REG_R0 + 15)
#define TK_REG_X30 (TK_REG_X0 + 30)

/* Largest canonical register, in bytes (an SVE z register). */
#define TK_REG_MAX_BYTES 256

/* A view of part of a canonical register. */
typedef struct tk_reg_view {
	tk_reg reg;
	uint16_t offset;	/* first byte (little-endian byte index) */
	uint16_t len;		/* bytes */
} tk_reg_view;

/* Size in bytes of a canonical register; 0 for TK_REG_NONE. */
unsigned tk_reg_size(tk_reg reg);

/* Lower-case canonical name ("r13", "x30", "xsp", "v7", "psr"...). */
const char *tk_reg_name(tk_reg reg);

/*
 * Map a register name as written in a trace to a view.
 *
 * Case-insensitive.  A banked suffix after '_' ("r13_svc", "r13_main_s",
 * "MSP_S") names the base register; "SP_EL0".."SP_EL3" are xsp, other
 * banked sp ("sp_svc") r13.  content_bytes is the size of the value written
 * in the trace (0 if unknown); it decides whether a plain "sp" means r13
 * (up to 4 bytes) or xsp (more; with 0, a64 decides).  a64 selects the
 * AArch64 overlay for the s/d names.  A bit range "V0<127:64>" gives that
 * part of the register (whole bytes only).
 *
 * Returns 0 and fills *view, or TK_ERR_NOTFOUND for a register tracekit does
 * not model (view->reg is then TK_REG_NONE).
 */
int tk_reg_lookup(const char *name, size_t len, unsigned content_bytes,
		  int a64, tk_reg_view *view);

#ifdef __cplusplus
}
#endif
#endif
