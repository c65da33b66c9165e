/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit flamegraph --source-lines: frames named NAME@FILE:LINE.
 *
 * From a profile kept by call site (tk_callstacks_new_by_site), a tree of
 * labelled frames: in a stack, a function is labelled with the source line
 * it is at, that of its call to the next function, or for the last one
 * (the time spent in the function itself) the line of its entry, as
 * "NAME@BASENAME:LINE" ("NAME" alone where the image has no line).  Frames
 * of the same label under the same parent are one frame.  A new root,
 * "all", holds the top-level frames (as flamegraph.pl makes one).
 */
#ifndef TRACEKIT_TOOLS_FLAMEGRAPH_LINES_H
#define TRACEKIT_TOOLS_FLAMEGRAPH_LINES_H

#include "cli/srclines.h"
#include "tracekit/calls.h"

typedef struct tk_fg_lines {
	tk_stack_frame *frames;
	char **names;
	uint32_t count, root;
} tk_fg_lines;

/* names[i] names frames[i] (the function).  Returns 0 or TK_ERR_NOMEM. */
int tk_fg_lines_build(const tk_stack_frame *frames, uint32_t root, const char *const *names,
		      tk_srclines *lines, tk_fg_lines *out);
void tk_fg_lines_free(tk_fg_lines *fl);

#endif
