/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: what the call detector needs of a piece of a trace,
 * for reading the trace in pieces on several threads.
 *
 * A summarizer reads a piece's events on a worker thread (lines counted
 * from 1 at the piece's start, steps from 0) and keeps only what can
 * change the detector's decisions: instructions that may transfer control
 * (the first of each context in the piece, and every one that is not its
 * predecessor's natural successor), runs of sequential instructions as
 * their count and last instruction, lr and sp writes, gaps, function
 * events, and, while a context has had no step in the piece, its text,
 * register and memory lines (they decide where its root starts).  The
 * detector then runs in trace order over the summaries
 * (tk_calls_feed_summary) and decides exactly as over the events: the
 * same calls, confirmed in the same order.
 *
 * Positions in a summary are kept as "local step + 1" (0: before the
 * piece's first step), turned into global ones with the number of steps
 * before the piece; lines likewise with the number of lines before it.
 */
#ifndef TRACEKIT_CALLSUM_H
#define TRACEKIT_CALLSUM_H

#include "tracekit/calls.h"

typedef struct tk_callsum tk_callsum;

/* steps must be TK_STEPS_INSNS or TK_STEPS_FUNCS.  Errors: TK_ERR_NOMEM,
 * TK_ERR_INVAL. */
int tk_callsum_new(tk_calls_steps steps, tk_callsum **out);

/* Forget everything, for another piece (the memory is kept). */
void tk_callsum_reset(tk_callsum *s);

/* The next event of the piece.  Errors: TK_ERR_NOMEM. */
int tk_callsum_feed(tk_callsum *s, const tk_event *ev);

/* End of the piece (flushes the runs).  Errors: TK_ERR_NOMEM. */
int tk_callsum_end(tk_callsum *s);

/* Bytes of memory held. */
size_t tk_callsum_bytes(const tk_callsum *s);

void tk_callsum_free(tk_callsum *s);

/* Run the detector over a piece's summary: step_base steps and line_base
 * lines precede the piece.  c must have been made with the same steps
 * setting.  Returns as tk_calls_feed. */
int tk_calls_feed_summary(tk_calls *c, const tk_callsum *s, uint64_t step_base,
			  uint64_t line_base);

#endif
