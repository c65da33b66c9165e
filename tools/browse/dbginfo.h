/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: what the browser takes from the image's debugging
 * information (--image): the frame-pointer walk for the call-stack pane and
 * source lines for the source pane.  Loaded on first use. */
#ifndef TRACEKIT_BROWSE_DBGINFO_H
#define TRACEKIT_BROWSE_DBGINFO_H

#include "browse.h"
#include "cli/srclines.h"
#include "tracekit/backtrace.h"

typedef struct tkb_dbg {
	bool tried;		/* loading was attempted */
	char error[600];	/* why there is none */
	tk_srclines *lines;
	tk_bt_ctx *bt;
	tk_bt walk, stack;	/* at walk_pos */
	uint64_t walk_pos;
	bool show_stack;	/* C: the call tree's stack instead of the walk */

	/* The source file on show. */
	char *src_path;		/* as DWARF names it */
	char *src_found;	/* where it was read from, NULL if not found */
	char *src_text;
	const char **src_lines;
	unsigned src_nlines;
} tkb_dbg;

/* The state, loaded if needed: NULL (with b->dbg->error set) without an
 * image or when it cannot be read. */
tkb_dbg *tkb_dbg_get(tkb *b);
void tkb_dbg_free(tkb *b);

/* The index position whose state the panes show (the instruction above
 * the marker), or TKB_NO_POS before the first instruction. */
uint64_t tkb_dbg_insn(const tkb *b);

/* The walk and the call tree's stack at that instruction; false if there
 * is none (no image, no instruction, not Arm code). */
bool tkb_dbg_walk(tkb *b, tkb_dbg *d);

#endif
