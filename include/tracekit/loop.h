/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: finding the loop a trace ends in.
 *
 * A crashed or hung program's trace often ends in millions of repeats of
 * the same instruction, the same short loop, or the same few simulator
 * messages (an exception that re-raises itself; a locked-up core).
 * `tracekit truncate` cuts such a trace after its loop has been seen twice;
 * this module decides where.
 *
 * Lines are compared by a key computed from their events (see
 * tk_loop_line_key): what was executed and what kind of effect it had, not
 * the timestamp, the instruction counter, or the data.  The trace *ends in
 * a loop* of P lines when its last lines are periodic with period P:
 *
 *   - the repeating tail: the longest suffix where every line's key equals
 *     the key P lines earlier; it starts at line S;
 *   - it must cover at least min_repeats * P lines and at least min_lines
 *     lines; P is at most max_period; the smallest such P is the loop;
 *   - the first kept iteration starts at A, the first instruction line in
 *     [S, S + P) (or S if the loop has no instruction lines, e.g. a core in
 *     lockup printing the same messages), so the output ends on a whole
 *     instruction with all its register and memory lines;
 *   - the cut keeps `keep` iterations: lines [0, A + keep * P).
 *
 * The detector is fed one line at a time, in order, and holds a bounded
 * window of recent keys (about 4 * max_period), never the trace.
 *
 * Only complete lines are fed.  A trace of a hung simulation that was
 * killed usually ends with a half-written line with no newline; the caller
 * (`tracekit truncate`) leaves such a last line out: if the lines before
 * it end in a loop, the cut falls before the partial line, which is
 * dropped with the rest of the loop; if they do not, the trace is copied
 * unchanged, partial line included.  A last line that ends in a newline is
 * fed like any other.
 */
#ifndef TRACEKIT_LOOP_H
#define TRACEKIT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/event.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_loop_opts {
	size_t size;		/* sizeof(tk_loop_opts), for growth */
	uint32_t max_period;	/* longest loop in lines (default 4096) */
	uint32_t min_repeats;	/* iterations the tail must cover (default 3) */
	uint32_t min_lines;	/* lines the tail must cover (default 16) */
	uint32_t keep;		/* iterations kept (default 2) */
} tk_loop_opts;

void tk_loop_opts_init(tk_loop_opts *opts);

/*
 * The key of one trace line, from the events it produced (n may be 0).
 * Instructions: pc, encoding, width, executed, mode.  Registers: which
 * register (or its name if not modelled), not the value.  Memory: read or
 * write, size, exclusive, aborted; not the address or data.  Text: the
 * text (it carries no timestamp).  *insn says whether the line holds an
 * instruction.
 */
uint64_t tk_loop_line_key(const tk_event *ev, size_t n, bool *insn);

typedef struct tk_loop {
	uint32_t period;	/* P, in lines */
	uint64_t start;		/* S: index of the first line of the repeating tail */
	uint64_t start_offset;	/* its byte offset */
	bool start_exact;	/* false: the tail may begin earlier than S, before
				 * the lines the detector still remembers */
	uint64_t first;		/* A: first line of the first kept iteration */
	uint64_t cut;		/* first line dropped: A + keep * P */
	uint64_t cut_offset;	/* its byte offset */
	uint64_t lines;		/* lines fed */
} tk_loop;

typedef struct tk_loopdet tk_loopdet;

/* Errors: TK_ERR_INVAL (max_period 0 or above 65536, keep 0 or >=
 * min_repeats), TK_ERR_NOMEM. */
int tk_loopdet_new(const tk_loop_opts *opts, tk_loopdet **out);
void tk_loopdet_free(tk_loopdet *d);

/* The next line: its key, whether it is an instruction, and the byte
 * offset where it starts. */
void tk_loopdet_feed(tk_loopdet *d, uint64_t key, bool insn, uint64_t offset);

/*
 * A byte offset that no cut can fall before, whatever lines come next: a
 * streaming caller may write out everything before it.  Never decreases.
 */
uint64_t tk_loopdet_safe_offset(const tk_loopdet *d);

/* The lines fed so far end in a loop: returns 1 and fills *loop, or 0. */
int tk_loopdet_result(tk_loopdet *d, tk_loop *loop);

#ifdef __cplusplus
}
#endif
#endif
