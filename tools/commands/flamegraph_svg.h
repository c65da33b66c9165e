/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a self-contained interactive SVG flame graph.
 *
 * Drawn from a call-stack profile (tk_callstacks): one box per distinct
 * call stack, as wide as its total, callees stacked above their caller.
 * The SVG carries its own script: click a box to zoom to it (its callers
 * stay as full-width bars, click one or "Reset zoom" to go back), hover for
 * name / value / percentage, "Search" (or Ctrl-F, /) highlights functions
 * matching a regular expression and shows their share.  The URL fragment
 * #search=REGEX or #zoom=N (box number) opens the graph searched or zoomed,
 * so a view can be shared as a link.
 */
#ifndef TRACEKIT_TOOLS_FLAMEGRAPH_SVG_H
#define TRACEKIT_TOOLS_FLAMEGRAPH_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "tracekit/calls.h"

typedef struct tk_flamegraph_svg_opts {
	const char *title;	/* e.g. "Flame graph: quicksort.tarmac" */
	const char *unit;	/* what the values count, e.g. "time units" */
	bool insns;		/* use the instruction counts, not the times */
} tk_flamegraph_svg_opts;

/* Write the SVG for the frames under root; names[i] names frame i.
 * Returns 0, or TK_ERR_NOMEM. */
int tk_flamegraph_svg(FILE *fp, const tk_stack_frame *frames, uint32_t root,
		      const char *const *names, const tk_flamegraph_svg_opts *opts);

#endif
