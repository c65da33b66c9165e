/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: where a trace that ends in a loop should end (Arm's
 * tarmac-truncate rule).
 *
 * A crashed or hung program's trace often ends in millions of repeats of
 * the same instruction, the same short loop, or the same few simulator
 * messages (a core stuck in its own exception logic).  `tracekit truncate`
 * copies a trace line by line and stops after the line this module flags.
 * The rule is Arm's, so the cut falls on the same line:
 *
 *  - Instructions.  A window holds the addresses of the last 16
 *    instructions (executed or not).  An instruction whose address is
 *    already in the window ends the trace after its own line (its register
 *    and memory lines are not kept).  The window is emptied whenever a
 *    register update changes a register's value: a loop that computes
 *    something is not stuck.  A register never written before changes by
 *    its first write; bytes of unknown value count as a value; registers
 *    tracekit does not model are told apart by name (case ignored).
 *
 *  - Text-only lines: lines that are neither instructions, register or
 *    memory updates, nor exception reports ("E" lines other than
 *    "E DebugEvent_...", "EXC" lines), e.g. "INFO_EXCEPTION_REASON:",
 *    "SIGNAL:", "CADI"; an aborted memory access ("MR4 ... (ABORTED)")
 *    counts as one, as in Arm's parser.  A window holds the last 32 of
 *    them and is emptied by any instruction or register line (changing or
 *    not).  When its newest 2k lines are one block of k lines repeated
 *    twice in a row, compared without timestamps, and k >= 8, the trace
 *    ends after the line that completed the repetition.
 *
 * Lines that do not parse are not fed (the caller decides what to do with
 * them).  Memory use is fixed: the windows, and the last value of each
 * register.
 */
#ifndef TRACEKIT_LOOP_H
#define TRACEKIT_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "tracekit/event.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_LOOP_PC_WINDOW 16	/* instruction addresses remembered */
#define TK_LOOP_TEXT_WINDOW 32	/* text-only lines remembered */
#define TK_LOOP_TEXT_MIN_BLOCK 8 /* shortest repeated block of text lines */

/* tk_loopdet_line() results. */
enum {
	TK_LOOP_GO_ON = 0,	/* no loop yet */
	TK_LOOP_PC = 1,		/* an instruction address repeated */
	TK_LOOP_TEXT = 2,	/* a block of text-only lines repeated */
};

typedef struct tk_loopdet tk_loopdet;

/* Errors: TK_ERR_NOMEM. */
int tk_loopdet_new(tk_loopdet **out);
void tk_loopdet_free(tk_loopdet *d);

/*
 * Feed the events of one trace line (n may be 0: a blank line, a line
 * that did not parse).  Returns TK_LOOP_GO_ON, or TK_LOOP_PC /
 * TK_LOOP_TEXT: the trace should end after this line.  Feeding may go on
 * afterwards (the windows are as the rule leaves them).
 */
int tk_loopdet_line(tk_loopdet *d, const tk_event *ev, size_t n);

/* After TK_LOOP_PC: the repeated address; after TK_LOOP_TEXT: the length
 * k of the repeated block (for messages). */
uint64_t tk_loopdet_detail(const tk_loopdet *d);

#ifdef __cplusplus
}
#endif
#endif
