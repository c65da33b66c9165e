/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the register panes' contents.
 *
 * Which registers each pane shows (core, single and double FP, NEON, MVE,
 * system), named for the execution state of the position, and how a value
 * is written: hex digits most significant first with "??" for unknown
 * bytes, plus a decimal reading for FP registers.  The pc row is not a
 * register of the index: it is the address of the instruction executed at
 * the position, and counts as changed when that instruction was reached by
 * a jump rather than by falling through.
 */
#ifndef TRACEKIT_VIEW_REGSETS_H
#define TRACEKIT_VIEW_REGSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/index.h"
#include "tracekit/regs.h"

typedef enum tkv_regset {
	TKV_RS_CORE,		/* r0-r15, cpsr or x0-x30, sp, pc, cpsr */
	TKV_RS_SINGLE,		/* s0-s31 */
	TKV_RS_DOUBLE,		/* d0-d31 */
	TKV_RS_NEON,		/* q0-q15 or v0-v31 */
	TKV_RS_MVE,		/* q0-q7, vpr */
	TKV_RS_SYSTEM,		/* psr, fpsr, fpcr, fpscr, vpr */
	TKV_RS_COUNT
} tkv_regset;

#define TKV_REGSET_MAX 40

typedef struct tkv_regdef {
	char name[16];
	tk_reg_view view;	/* for pc: TK_REG_NONE, the width of an address */
	bool pc;
} tkv_regdef;

/* The registers of a set, for AArch64 (a64) or AArch32 names; returns how
 * many were written to out (at most TKV_REGSET_MAX). */
int tkv_regset_list(tkv_regset set, bool a64, tkv_regdef *out);

/* "Core registers (AArch64)", "NEON vector registers"... */
const char *tkv_regset_title(tkv_regset set, bool a64);
/* "core", "single", "double", "neon", "mve", "system" */
const char *tkv_regset_name(tkv_regset set);

/* Hex digits of a len-byte little-endian value, most significant first,
 * "??" for bytes whose known[i] is 0.  out needs 2 * len + 1 bytes. */
void tkv_reg_hex(const uint8_t *value, const uint8_t *known, int len, char *out);

/* The decimal reading of a 4- or 8-byte FP value ("%.7g" / "%.15g"), or
 * "?" when a byte is unknown or the size is another. */
void tkv_reg_float(const uint8_t *value, const uint8_t *known, int len,
		   char *out, size_t size);

/* Whether index position i was reached by a jump: its pc is not just after
 * the instruction before it (by its width; Thumb code of unknown width
 * either 2 or 4 bytes on). */
bool tkv_reached_by_jump(const tk_index *idx, uint64_t i);

/* The execution state of index position i: 1 AArch64, 0 AArch32, -1 not
 * known (another ISA, or no such position). */
int tkv_isa_a64(const tk_index *idx, uint64_t i);

#endif
