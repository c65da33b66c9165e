/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the "folded stacks" text of a call-stack profile, the input of
 * FlameGraph's flamegraph.pl:
 *   _start;main;quicksort;quicksort 1234
 * one line per distinct call stack (by name: frames of the same name under
 * the same caller are one), with its self value, lines of value 0 left
 * out, sorted by stack (strcmp order of the text before the value), as
 * Arm's tarmac-flamegraph prints them.
 *
 * Memory is linear in the number of distinct stacks whatever their depth:
 * the stacks are aggregated in a tree of frames and the lines written
 * depth first, in order, from one path buffer (the text itself is
 * quadratic in the depth: a chain of n frames of self value > 0 is n
 * lines of up to n names).  Nothing recurses per frame.
 */
#ifndef TRACEKIT_TOOLS_FLAMEGRAPH_FOLDED_H
#define TRACEKIT_TOOLS_FLAMEGRAPH_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "tracekit/calls.h"

/* Write the folded lines of the frames under root (leaving root out of the
 * stacks if skip_root); names[i] names frame i
 * (nframes of them); insns: count instructions, not time.  Returns 0, or
 * TK_ERR_NOMEM, or TK_ERR_IO (a write failed). */
int tk_flamegraph_folded(FILE *fp, const tk_stack_frame *frames, uint32_t nframes, uint32_t root,
			 const char *const *names, bool insns, bool skip_root);

#endif
