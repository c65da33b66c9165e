/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the recorder state and the tracing run. */
#ifndef TRACEKIT_TOOLS_RECORD_TRACE_H
#define TRACEKIT_TOOLS_RECORD_TRACE_H

#include <signal.h>

#include "record.h"
#include "rstate.h"

enum rec_stop {
	REC_STOP_NONE,
	REC_STOP_EXIT,		/* the program called SYS_EXIT */
	REC_STOP_LIMIT,		/* --max-insns reached */
	REC_STOP_FAULT,		/* an exception or a bad memory access */
	REC_STOP_SIZE,		/* --max-trace-size reached */
	REC_STOP_SIGNAL,	/* SIGINT, SIGTERM or SIGHUP */
};

/* The signal that interrupted the recording, or 0 (set by a handler). */
extern volatile sig_atomic_t rec_signal;

typedef struct rec {
	struct uc_struct *uc;
	int profile;
	rec_mem mem;
	rec_out out;		/* out.count is the instruction count */
	rec_regs regs;
	rec_insn_cache *cache;
	rec_semihost *sh;

	rec_insn *prev;		/* last instruction; its R lines are pending */
	bool prev_exec;		/* it passed its condition */
	bool full_diff;		/* check every register after it */
	bool all_regs;		/* ...after every instruction (--all-regs) */
	uint8_t itstate;	/* Thumb IT block state, as ITSTATE<7:0> */
	uint64_t seq_next;	/* the address after the last instruction */
	uint64_t max_insns;	/* 0: no limit */
	uint64_t max_bytes;	/* --max-trace-size; 0: no limit */
	bool stopping;
	bool resume;		/* a semihosting call moved the pc ... */
	uint64_t resume_pc;	/* ... here, and nothing ran since */

	enum rec_stop stop;
	int exit_status;
	char fault[256];	/* what went wrong, for REC_STOP_FAULT */
	const char *fault_event; /* CoreEvent_ name for the trace */
	int bad_type;		/* last invalid access seen (uc_mem_type), -1 */
	uint64_t bad_addr;
	int bad_size;

	/* Memory layout reported by SYS_HEAPINFO. */
	uint64_t heap_base, heap_limit, stack_base, stack_limit;
} rec;

/* Install the hooks and print the registers' initial values at time 0. */
int rec_trace_begin(rec *r);
/* Run from start (bit 0 set for Thumb) until exit, fault or the limit.
 * Returns 0, or non-zero if the emulator itself failed to start. */
int rec_trace_run(rec *r, uint64_t start);

#endif
