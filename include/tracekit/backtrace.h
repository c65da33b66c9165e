/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: frame-pointer backtraces at any position of an indexed trace.
 *
 * The state after a position's instruction (registers and memory from the
 * index) is frame 0; each frame record found from the frame pointer gives
 * the return address of the next frame.  The record layout is chosen per
 * function:
 *   A64            {x29, x30} at x29;
 *   A32 APCS       (-mapcs-frame) lr at fp - 4, the caller's fp at fp - 12;
 *   A32 GCC        (the default) lr at fp, the caller's fp at fp - 4; a
 *                  leaf pushes only fp (at fp), lr stays in its register;
 *   Thumb (A, M)   r7 points below the locals: {r7, lr} is at r7 + the
 *                  frame size, which the DWARF CFI at the pc gives, else
 *                  the function's prologue (push {..r7, lr}, sub sp, #n,
 *                  add r7, sp, #m).
 * With an image, A32 functions take their layout from the CFI too; without
 * one, GCC frames are assumed, APCS ones recognised by the saved sp, and a
 * leaf at frame 0 by the call tree's return address.  Thumb code without an
 * image cannot be walked.
 *
 * In a leaf, prologue, epilogue or at the return, frame 0 has no record
 * (yet or any more).  If the frame register still holds the value it had
 * at the entry of the innermost activation of the call tree
 * (tk_index_call_at), frame 1 is that activation's return address and the
 * walk goes on from the frame register.
 *
 * The walk ends at a zero frame pointer or return address (TK_BT_END), or
 * stops for a reason (tk_bt_stop) after every frame whose return address
 * could be read: an M-profile EXC_RETURN return address, a record not above
 * the previous one, a misaligned frame pointer, bytes the index does not
 * know, or TK_BT_MAX_FRAMES frames.
 *
 * A context caches layouts per address: one per thread.
 */
#ifndef TRACEKIT_BACKTRACE_H
#define TRACEKIT_BACKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/dwarf.h"
#include "tracekit/index.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_BT_MAX_FRAMES 1024

typedef enum tk_bt_layout {
	TK_BT_AUTO = 0,		/* per function (options only) */
	TK_BT_APCS,		/* A32 -mapcs-frame */
	TK_BT_AAPCS,		/* A32 GCC default */
	TK_BT_A64,
	TK_BT_THUMB,
	TK_BT_CALLTREE,		/* (frames only) taken from the call tree */
} tk_bt_layout;

typedef enum tk_bt_stop {
	TK_BT_END = 0,		/* zero frame pointer or return address */
	TK_BT_EXCEPTION,	/* an EXC_RETURN return address (M profile) */
	TK_BT_LOOP,		/* a record not above the previous one */
	TK_BT_MISALIGNED,	/* a misaligned frame pointer */
	TK_BT_UNKNOWN_MEMORY,	/* record bytes the index does not know */
	TK_BT_UNKNOWN_REGISTER,	/* the frame register is not known */
	TK_BT_TOO_DEEP,		/* TK_BT_MAX_FRAMES frames */
	TK_BT_NO_LAYOUT,	/* Thumb code whose frame size is not known */
} tk_bt_stop;

typedef struct tk_bt_frame {
	/* Frame 0: the pc of the position's instruction; the others: the
	 * return address (no Thumb bit). */
	uint64_t addr;
	uint64_t record;	/* the record it was read from (0: none) */
	tk_bt_layout layout;	/* that record's layout */
	tk_isa isa;		/* of the code at addr */
} tk_bt_frame;

typedef struct tk_bt {
	uint64_t pos;
	uint64_t line, time;	/* of the position's instruction */
	unsigned count;
	tk_bt_stop stop;
	uint64_t stop_addr;	/* the address (or register) the reason names */
	unsigned addr_bytes;	/* 4 (AArch32) or 8 (AArch64) */
	tk_bt_frame frames[TK_BT_MAX_FRAMES];
} tk_bt;

typedef struct tk_bt_opts {
	size_t size;		/* sizeof(tk_bt_opts) */
	tk_bt_layout layout;	/* TK_BT_AUTO, or force one for every frame */
	tk_dwarf *image;	/* CFI and code of the traced program, or NULL */
	uint64_t load_offset;	/* trace address - image address (--load-offset) */
} tk_bt_opts;

typedef struct tk_bt_ctx tk_bt_ctx;

/* Errors: TK_ERR_INVAL (opts->size too small), TK_ERR_NOMEM. */
int tk_bt_new(const tk_index *idx, const tk_bt_opts *opts, tk_bt_ctx **out);
void tk_bt_free(tk_bt_ctx *ctx);

/*
 * The frame-pointer walk at pos.  Returns 0 (the stop reason is in
 * out->stop), or TK_ERR_NOTFOUND (pos >= count), TK_ERR_UNSUPPORTED (not
 * Arm code), TK_ERR_CORRUPT, TK_ERR_NOMEM.
 */
int tk_bt_walk(tk_bt_ctx *ctx, uint64_t pos, tk_bt *out);

/* The call-detection stack at pos in the same shape: frame 0 the pc, then
 * the return address of each activation containing pos, innermost first.
 * Errors: as tk_bt_walk. */
int tk_bt_calls(tk_bt_ctx *ctx, uint64_t pos, tk_bt *out);

/* "exception frame", "misaligned frame pointer 0x1003"...: what ended the
 * walk, for a "stopped: " line; NULL for TK_BT_END. */
const char *tk_bt_stop_text(const tk_bt *bt, char *buf, size_t size);

/* "apcs", "aapcs", "a64", "thumb", "calls" ("auto" for TK_BT_AUTO). */
const char *tk_bt_layout_name(tk_bt_layout layout);
/* Parse a --frame= argument.  Errors: TK_ERR_INVAL. */
int tk_bt_layout_parse(const char *name, tk_bt_layout *out);

#ifdef __cplusplus
}
#endif
#endif
