/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: what the browser asks of the trace index.
 *
 * A thin adapter over include/tracekit/index.h, in the terms the panes use:
 * instructions numbered 0..n-1 in trace order, and positions between them
 * (position k = after instruction k-1, before instruction k; see browse.h).
 * Keeping the browser on this small interface means the panes do not
 * depend on how the index lays out its answers.
 */
#ifndef TRACEKIT_BROWSE_MODEL_H
#define TRACEKIT_BROWSE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/calls.h"
#include "tracekit/event.h"
#include "tracekit/regs.h"

struct tk_cli;
typedef struct tkb_model tkb_model;

/* Open (building or reusing, as the index options say) the index of the
 * cli's trace.  Prints a message and returns non-zero on failure. */
int tkb_model_open(struct tk_cli *cli, tkb_model **out);
void tkb_model_free(tkb_model *m);

uint64_t tkb_model_ninsns(const tkb_model *m);

/* The index itself: for the query helpers shared with the web browser
 * (tools/view/) and the frame-pointer walk (tracekit/backtrace.h). */
struct tk_index;
const struct tk_index *tkb_model_index(const tkb_model *m);

/* Line, byte offset, time and pc of instruction i (i < ninsns). */
void tkb_model_insn(const tkb_model *m, uint64_t i, tk_tpos *out);

/* The bytes [*start, *end) of instruction i's lines: its own line and the
 * updates after it.  i == UINT64_MAX: the lines before the first
 * instruction (*end = UINT64_MAX, the whole file, if there is none). */
void tkb_model_block(const tkb_model *m, uint64_t i, uint64_t *start, uint64_t *end);

/* The instruction whose lines contain the line (the first one for lines
 * before it; UINT64_MAX beyond the trace). */
uint64_t tkb_model_insn_for_line(const tkb_model *m, uint64_t line);
/* The first instruction at or after time t (UINT64_MAX if none). */
uint64_t tkb_model_insn_for_time(const tkb_model *m, uint64_t t);

/* Register view and memory bytes at a position; known[i] is non-zero for
 * the bytes the trace has shown.  Return 0 or a negative tk_err. */
int tkb_model_reg(const tkb_model *m, uint64_t pos, tk_reg_view view,
		  uint8_t *value, uint8_t *known);
int tkb_model_mem(const tkb_model *m, uint64_t pos, uint64_t addr, uint32_t len,
		  uint8_t *value, uint8_t *known);

/* The last instruction before instruction `before` that wrote any byte of
 * the register view / memory range; UINT64_MAX if none. */
uint64_t tkb_model_reg_prev_write(const tkb_model *m, uint64_t before, tk_reg_view view);
uint64_t tkb_model_mem_prev_write(const tkb_model *m, uint64_t before,
				  uint64_t addr, uint64_t len);

/* Memory written by the instructions between positions a and b (either
 * order), limited to [lo, hi], as maximal ranges in ascending (or
 * descending) address order; fn returns non-zero to stop.  Returns 0 or a
 * negative tk_err. */
typedef int (*tkb_range_fn)(void *ctx, uint64_t addr, uint64_t len);
int tkb_model_mem_written(const tkb_model *m, uint64_t a, uint64_t b,
			  uint64_t lo, uint64_t hi, bool ascending,
			  tkb_range_fn fn, void *ctx);

/* The ISA of instruction i. */
tk_isa tkb_model_isa(const tkb_model *m, uint64_t i);
/* The width in bytes of instruction i (0 if the trace does not say). */
unsigned tkb_model_width(const tkb_model *m, uint64_t i);

/* A snapshot of every register at a position, for the register panes. */
typedef struct tkb_regs tkb_regs;
int tkb_model_regs_at(const tkb_model *m, uint64_t pos, tkb_regs **rs);
int tkb_regs_get(const tkb_regs *rs, tk_reg_view view, uint8_t *value, uint8_t *known);
void tkb_regs_free(tkb_regs *rs);

/* Next visit of pc after instruction `from` / previous one before it;
 * UINT64_MAX if none. */
uint64_t tkb_model_pc_next(const tkb_model *m, uint64_t from, uint64_t pc);
uint64_t tkb_model_pc_prev(const tkb_model *m, uint64_t from, uint64_t pc);

/* The call tree, read from the index (node 0 is the whole trace): its
 * nodes, node c (false if there is none), c's parent (TK_CALL_NONE for a
 * root), every node strictly inside c (in preorder), and the innermost
 * call whose activation (entry..exit) contains instruction i (0 for
 * none). */
uint32_t tkb_model_ncalls(const tkb_model *m);
bool tkb_model_call(const tkb_model *m, uint32_t c, tk_call *out);
uint32_t tkb_model_call_parent(const tkb_model *m, uint32_t c);
void tkb_model_call_subtree(const tkb_model *m, uint32_t c, void (*fn)(void *ctx, uint32_t n),
			    void *ctx);
uint32_t tkb_model_call_at(const tkb_model *m, uint64_t i);
/* Instruction numbers of a call's call, entry, exit and resume points
 * (UINT64_MAX when the node has none, e.g. the root's call). */
typedef struct tkb_call_insns {
	uint64_t call, entry, exit, resume;
} tkb_call_insns;
void tkb_model_call_insns(const tkb_model *m, uint32_t c, tkb_call_insns *out);

#endif
