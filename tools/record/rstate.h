/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the register model of the traced core.
 *
 * Each register the trace reports is a slot: its unicorn id, its width, the
 * name an R line gives it.  A shadow copy holds the values last reported;
 * after an instruction the recorder reads the slots it may have written and
 * prints an R line for each that differs from the shadow.
 */
#ifndef TRACEKIT_TOOLS_RECORD_RSTATE_H
#define TRACEKIT_TOOLS_RECORD_RSTATE_H

#include <stdint.h>

#include "record.h"

/* AArch64 slots. */
enum {
	A64_X0 = 0,		/* x0..x30 */
	A64_SP = 31,
	A64_PSR = 32,
	A64_Q0 = 33,		/* q0..q31 */
	A64_FPSR = 65,
	A64_FPCR = 66,
	A64_NSLOTS = 67,
};

/* AArch32 (A/R and M profile) slots. */
enum {
	A32_R0 = 0,		/* r0..r12 */
	A32_SP = 13,
	A32_LR = 14,
	A32_PSR = 15,
	A32_D0 = 16,		/* d0..d31 (d0..d15 with a 16-register FPU) */
	A32_FPSCR = 48,
	A32_NSLOTS = 49,
};

#define REC_NSLOTS 67

struct uc_struct;

typedef struct rec_regs {
	int profile;
	int n;			/* slots in use */
	int uc[REC_NSLOTS];
	uint8_t bytes[REC_NSLOTS];
	bool upper[REC_NSLOTS];	/* hex digits in upper case (AArch64 X) */
	bool used[REC_NSLOTS];
	char name[REC_NSLOTS][16];
	uint8_t namelen[REC_NSLOTS];
	uint64_t val[REC_NSLOTS][2];	/* just read */
	uint64_t shadow[REC_NSLOTS][2];	/* last reported */
	void *ptr[REC_NSLOTS];
	uint32_t psr_mask;	/* PSR bits reported (not the IT state) */
	int psr_slot;
	/* Every slot, in slot order and (for the initial values) with the
	 * PSR first. */
	uint8_t all[REC_NSLOTS], dump[REC_NSLOTS];
	int nall;
	uint32_t mode_bits;	/* the PSR bits mode and names derive from */
	char mode[16];		/* "EL1h_n", "svc_s", "thread" */
	int modelen;
	char state;		/* 'O', 'A', 'T' */
} rec_regs;

/* Set up the slots for a profile; fp_dregs is the number of AArch32 D
 * registers (0, 16 or 32). */
void rec_regs_init(rec_regs *g, int profile, int fp_dregs);

/* Read the slots listed, then print an R line for each one that changed
 * (all of them if force; slot `always` even if unchanged, -1 for none) and
 * update the shadow.  Returns the unicorn error of the read, or 0. */
int rec_regs_update(rec_regs *g, struct uc_struct *uc, rec_out *o,
		    const uint8_t *slots, int n, bool force, int always);

/* The NZCV flags (bits 31:28) of the current PSR. */
static inline uint32_t rec_regs_nzcv(const rec_regs *g)
{
	return (uint32_t)g->shadow[g->psr_slot][0] & 0xF0000000u;
}

#endif
