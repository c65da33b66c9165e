/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: the terminal trace browser's shared state.
 *
 * The screen is a stack of panes: the trace on top, then register, memory
 * and call-stack panes; the bottom line is for prompts and messages.  Every
 * keystroke is dispatched to the focused pane, then the whole screen is
 * redrawn from the state here (ncurses sends only what changed), so no pane
 * keeps drawn state of its own.
 *
 * Positions: the current-position marker sits between instructions.
 * Position k means "after instruction k-1 and its updates, before
 * instruction k", for k in [0, ninsns].  Register and memory panes show the
 * state at a position.
 */
#ifndef TRACEKIT_BROWSE_BROWSE_H
#define TRACEKIT_BROWSE_BROWSE_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "model.h"
#include "view/textfile.h"
#include "tracekit/tarmac.h"

#define TKB_MAX_PANES 24
#define TKB_NO_POS UINT64_MAX

typedef enum tkb_pane_kind {
	TKB_PANE_TRACE,
	TKB_PANE_CORE,		/* r0-r15 or x0-x30, sp, cpsr */
	TKB_PANE_SINGLE,	/* s0-s31 */
	TKB_PANE_DOUBLE,	/* d0-d31 */
	TKB_PANE_NEON,		/* q0-q15 or v0-v31 */
	TKB_PANE_MVE,		/* q0-q7, vpr */
	TKB_PANE_MEMORY,
	TKB_PANE_CALLS,		/* the call stack at the position */
	TKB_PANE_SOURCE,	/* the source line of the position */
	TKB_PANE_KINDS
} tkb_pane_kind;

typedef struct tkb_pane {
	tkb_pane_kind kind;
	int top, height;	/* rows on screen, status line included;
				 * height 0: no room to show it */
	int want;		/* height asked for (< and >); 0: natural */
	int cursor;		/* register or call index */

	/* Register and memory panes. */
	bool locked;		/* shows lock_pos, not the current position */
	uint64_t lock_pos;
	bool show_symbol;	/* register pane `a` */

	/* Memory panes. */
	uint64_t addr;		/* the byte under the cursor */
	uint64_t first;		/* address of the top row */
	char expr[64];		/* what the user typed, for the title */
	bool diff_set;		/* `d`: compare against diff_pos */
	uint64_t diff_pos;
} tkb_pane;

typedef struct tkb {
	tk_cli *cli;
	const char *trace_name;
	tkv_file file;
	tkb_model *model;
	tk_tarmac_parser *parser;	/* for the lines `a` highlights */
	uint64_t ninsns;

	/* The current position and the one before the last move (for the
	 * highlight of changed values). */
	uint64_t pos, last_pos;

	/* Folding: one bit per call of the call tree. */
	uint8_t *folded;
	uint32_t nfolded;

	/* Trace pane view. */
	int marker_row;		/* row of the marker inside the trace pane */
	int recentre;		/* -1: centre the marker at the next draw */
	int lcycle;		/* Ctrl-L: next is 0 middle, 1 top, 2 bottom */
	bool at_bottom;		/* Ctrl-L put the marker on the bottom row */
	int hl_line;		/* `a`: which update line (0 = none) */
	bool syntax;		/* F6 */
	bool symbolic;		/* F7 */

	/* The last pc searched for (n / N). */
	bool have_search;
	uint64_t search_pc;

	tkb_pane panes[TKB_MAX_PANES];
	int npanes;
	int focus;

	int rows, cols;
	bool colour;
	int colour_opt;		/* 1 --colour, -1 --no-colour, 0 automatic */
	char message[256];	/* shown on the bottom line until the next key */
	bool quit;
	bool bench;		/* --bench-keys: prompts give up when keys run out */
	bool a64;		/* the register panes show AArch64 names */
	bool has_regs;		/* the source has register values (else no
				 * register panes: PT, Qtrace, function traces) */
	bool has_mem;		/* ... memory values (else no memory panes) */

	/* Debugging information of --image (dbginfo.h), loaded on demand. */
	struct tkb_dbg *dbg;
	const char *source_dir;	/* --source-dir */
} tkb;

/* screen.c: layout, colours, drawing helpers, the main redraw. */
enum tkb_attr {
	TKB_A_NORMAL, TKB_A_STATUS, TKB_A_STATUS_FOCUS, TKB_A_MARKER,
	TKB_A_CHANGED, TKB_A_UNKNOWN, TKB_A_CURSOR, TKB_A_HIGHLIGHT,
	TKB_A_TIME, TKB_A_ADDR, TKB_A_INSN, TKB_A_REG, TKB_A_MEM,
	TKB_A_VALUE, TKB_A_TEXT, TKB_A_PROMPT, TKB_A_ERROR, TKB_A_COUNT
};
void tkb_screen_init(tkb *b);
int tkb_attr(const tkb *b, enum tkb_attr a);
void tkb_layout(tkb *b);
void tkb_redraw(tkb *b);
void tkb_put(int y, int x, int maxx, int attr, const char *s, int len);
void tkb_status_line(tkb *b, const tkb_pane *p, const char *left, const char *right);
void tkb_message(tkb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tkb_pane_add(tkb *b, tkb_pane_kind kind);
void tkb_pane_remove(tkb *b, int i);
int tkb_pane_find(const tkb *b, tkb_pane_kind kind);
void tkb_toggle_pane(tkb *b, tkb_pane_kind kind);
int tkb_natural_height(tkb *b, const tkb_pane *p);

/* prompt.c: the bottom-line prompt.  Returns true with the text entered,
 * false if cancelled (Escape, Ctrl-G). */
bool tkb_prompt(tkb *b, const char *question, char *buf, size_t size);
/* Prompt for an expression and evaluate it (registers at pos, symbols). */
bool tkb_prompt_value(tkb *b, const char *question, uint64_t pos, uint64_t *value,
		      char *text, size_t size);
/* Prompt for a line number or time and turn it into the position just
 * after the instruction there.  Return 1 with *pos set; 0 if cancelled or
 * invalid (a message says why); -1 if nothing was typed (also with a
 * message, which a caller giving empty input a meaning replaces). */
int tkb_prompt_line_pos(tkb *b, const char *question, uint64_t *pos);
int tkb_prompt_time_pos(tkb *b, const char *question, uint64_t *pos);

/* help.c: the help screen of a pane kind. */
void tkb_help(tkb *b, tkb_pane_kind kind);
const char *const *tkb_help_text(tkb_pane_kind kind);

/* nav.c: positions, folding, jumps. */
uint64_t tkb_visible_prev_insn(const tkb *b, uint64_t pos);	/* TKB_NO_POS at top */
uint64_t tkb_visible_next_insn(const tkb *b, uint64_t pos);	/* TKB_NO_POS at end */
uint64_t tkb_normalise(const tkb *b, uint64_t pos);
void tkb_move_to(tkb *b, uint64_t pos, bool centre);
void tkb_jump_after(tkb *b, uint64_t insn);	/* unfolds as needed */
void tkb_jump_before(tkb *b, uint64_t insn);
bool tkb_fold_key(tkb *b, int key);
bool tkb_is_folded(const tkb *b, uint32_t call);
void tkb_step(tkb *b, int dir);
void tkb_page(tkb *b, int dir);
uint64_t tkb_pane_pos(const tkb *b, const tkb_pane *p);
void tkb_prev_write_reg(tkb *b, tk_reg_view view, uint64_t before);
void tkb_prev_write_mem(tkb *b, uint64_t addr, uint64_t len, uint64_t before);

/* trace_pane.c */
void tkb_trace_draw(tkb *b, tkb_pane *p);
bool tkb_trace_key(tkb *b, tkb_pane *p, int key);

/* reg_pane.c */
void tkb_regs_draw(tkb *b, tkb_pane *p);
bool tkb_regs_key(tkb *b, tkb_pane *p, int key);
int tkb_regs_height(tkb *b, const tkb_pane *p);
bool tkb_lock_key(tkb *b, tkb_pane *p, int key);
/* " [locked: line L, time T]" or "" */
void tkb_lock_status(const tkb *b, const tkb_pane *p, char *buf, size_t size);

/* mem_pane.c */
bool tkb_mem_open(tkb *b);
void tkb_mem_draw(tkb *b, tkb_pane *p);
bool tkb_mem_key(tkb *b, tkb_pane *p, int key);

/* calls_pane.c */
void tkb_calls_draw(tkb *b, tkb_pane *p);
bool tkb_calls_key(tkb *b, tkb_pane *p, int key);
int tkb_calls_height(tkb *b, const tkb_pane *p);
/* "name" or "0x1234" for a function address. */
void tkb_func_name(const tkb *b, uint64_t addr, char *buf, size_t size);

/* exceptions.c: e / E.  Whether a trace line reports a CPU exception, and
 * the jump to the next (forward) or previous one. */
bool tkb_is_exception_line(const char *s, size_t len);
void tkb_find_exception(tkb *b, bool forward);

/* walk_view.c: the call-stack pane's frame-pointer view (with --image);
 * each returns false when that view is not the one shown. */
bool tkb_walk_height(tkb *b, const tkb_pane *p, int *h);
bool tkb_walk_draw(tkb *b, tkb_pane *p);
bool tkb_walk_key(tkb *b, tkb_pane *p, int key);

/* source_pane.c */
void tkb_source_draw(tkb *b, tkb_pane *p);
bool tkb_source_key(tkb *b, tkb_pane *p, int key);
int tkb_source_height(tkb *b, const tkb_pane *p);

/* keys.c: the main dispatch of one key. */
void tkb_key(tkb *b, int key);

#define TKB_CTRL(c) ((c) & 0x1f)

#endif
