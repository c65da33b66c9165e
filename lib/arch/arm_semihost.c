/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: recognising semihosting calls (the seed's "Semihosting
 * support").
 *
 * The trap instructions are recognised from their encodings:
 *   A32  SVC #0x123456  cccc 1111 0001 0010 0011 0100 0101 0110
 *        HLT #0xF000    cccc 0001 0000 1111 0000 0000 0111 0000
 *   T32  SVC #0xAB 0xdfab, BKPT #0xAB 0xbeab, HLT #0x3F 0xbabf (16-bit)
 *   A64  HLT #0xF000    0xd45e0000
 * The operation is in r0/x0 and the parameter block address in r1/x1; the
 * operations that write memory the trace does not show are listed below.
 * Words are 4 bytes in AArch32 and 8 in AArch64.
 */
#include "arch.h"

enum {
	SYS_READ = 0x06,
	SYS_TMPNAM = 0x0d,
	SYS_GET_CMDLINE = 0x15,
	SYS_HEAPINFO = 0x16,
	SYS_ELAPSED = 0x30,
};

static bool is_trap(const tk_insn *insn)
{
	if (!insn->nbytes || !insn->executed)
		return false;
	uint64_t e = tk_insn_encoding(insn);
	switch (insn->isa) {
	case TK_ISA_A32:
		return (e & 0x0fffffff) == 0x0f123456 || (e & 0x0fffffff) == 0x010f0070;
	case TK_ISA_T32:
		return e == 0xdfab || e == 0xbeab || e == 0xbabf;
	case TK_ISA_A64:
		return e == 0xd45e0000;
	default:
		return false;
	}
}

static int hidden_writes(const tk_insn *insn, const tk_arch_env *env, uint64_t *addr,
			 uint64_t *len)
{
	if (!is_trap(insn))
		return 0;
	bool a64 = insn->isa == TK_ISA_A64;
	unsigned w = a64 ? 8 : 4;
	tk_reg r0 = a64 ? TK_REG_X0 : TK_REG_R0;
	uint64_t op, blk;
	/* Some AArch32 traces name the core registers w0..w30: fall back on
	 * x0/x1's low half. */
	if (!env->reg(env->ctx, r0, w, &op) && (a64 || !env->reg(env->ctx, TK_REG_X0, 4, &op)))
		return -1;
	switch (op & (a64 ? UINT64_MAX : UINT32_MAX)) {
	case SYS_READ:
	case SYS_TMPNAM:
	case SYS_GET_CMDLINE:
	case SYS_HEAPINFO:
	case SYS_ELAPSED:
		break;
	default:
		return 0;
	}
	if (!env->reg(env->ctx, r0 + 1, w, &blk) &&
	    (a64 || !env->reg(env->ctx, TK_REG_X0 + 1, 4, &blk)))
		return -1;
	uint64_t buf, n;
	switch (op) {
	case SYS_READ:		/* (file, buffer, length) */
		if (!env->word(env->ctx, blk + w, w, &buf) ||
		    !env->word(env->ctx, blk + 2 * w, w, &n))
			return -1;
		break;
	case SYS_TMPNAM:	/* (buffer, length), as the seed describes */
	case SYS_GET_CMDLINE:
		if (!env->word(env->ctx, blk, w, &buf) ||
		    !env->word(env->ctx, blk + w, w, &n))
			return -1;
		break;
	case SYS_HEAPINFO:	/* (buffer) -> 4 words at buffer */
		if (!env->word(env->ctx, blk, w, &buf))
			return -1;
		n = 4 * w;
		break;
	default:		/* SYS_ELAPSED: the block itself, 2 words */
		buf = blk;
		n = 2 * w;
		break;
	}
	*addr = buf;
	*len = n;
	return n ? 1 : 0;
}

const tk_arch tk_arch_arm = {
	.name = "arm",
	.is_trap = is_trap,
	.hidden_writes = hidden_writes,
};
