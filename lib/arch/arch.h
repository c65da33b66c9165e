/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: what the analyses need to know of an instruction set
 * beyond the event model, behind one hook table per architecture.
 *
 * Today: Arm's semihosting traps, which write memory the trace does not
 * show (the index makes those bytes unknown until a later read reveals
 * them).  The register model (regs.h) is Arm's; an architecture whose
 * traces carry register values would add its registers there.
 */
#ifndef TRACEKIT_ARCH_H
#define TRACEKIT_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/event.h"

/* The machine state before an instruction, as a hook may read it. */
typedef struct tk_arch_env {
	/* Register value (low n bytes of reg); false if not known. */
	bool (*reg)(void *ctx, tk_reg reg, unsigned n, uint64_t *value);
	/* Memory word of n bytes at addr in the trace's byte order. */
	bool (*word)(void *ctx, uint64_t addr, unsigned n, uint64_t *value);
	void *ctx;
} tk_arch_env;

typedef struct tk_arch {
	const char *name;
	/* Is insn a trap into the host (semihosting)? */
	bool (*is_trap)(const tk_insn *insn);
	/* For a trap: 1 and the memory it may write without the trace
	 * showing it; 0 if it writes none; -1 if the region is not known. */
	int (*hidden_writes)(const tk_insn *insn, const tk_arch_env *env, uint64_t *addr,
			     uint64_t *len);
} tk_arch;

/* The hooks of an instruction set, or NULL if it needs none. */
const tk_arch *tk_arch_of(tk_isa isa);

/* Arm (arm_semihost.c). */
extern const tk_arch tk_arch_arm;

#endif
