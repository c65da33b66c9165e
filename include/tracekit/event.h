/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the common event model (version 2).
 *
 * Every trace source (Tarmac text, Intel PT, POWER Qtrace and HTM dumps,
 * function enter/exit traces) produces a stream of tk_event; every analysis
 * (calls, index, profiles, the browsers) consumes that stream and nothing
 * source-specific.
 *
 * Events are small and transient: pointers inside an event (values, text)
 * belong to the source and stay valid only until the next event is read.
 * Whatever keeps an event longer copies it with tk_event_copy(), which knows
 * every field that points into the source.
 *
 * Each event carries the context it happened in (a CPU or a thread: the
 * source says which, see tk_source_info), its time in the source's time
 * unit, and where it is in the file: a 1-based line (text formats) or
 * record number (binary formats), and the byte offset of that line or
 * record.  Several events may share one line (a Tarmac LD/ST diagram).
 */
#ifndef TRACEKIT_EVENT_H
#define TRACEKIT_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/regs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_event_kind {
	TK_EV_INSN = 1,	/* an instruction reached (executed or cond-failed) */
	TK_EV_REG,	/* a register written */
	TK_EV_MEM,	/* a memory read or write */
	TK_EV_TEXT,	/* anything else: kept as text, ignored by analyses */
	TK_EV_CALL,	/* function entry, from function-level traces */
	TK_EV_RETURN,	/* function exit, from function-level traces */
	TK_EV_GAP,	/* part of the execution is missing from the trace */
	TK_EV_RUN,	/* instructions one after another, in one event (only
			 * to a reader that asked: tk_source_want_runs) */
} tk_event_kind;

#define TK_EV_KIND_MAX TK_EV_RUN

typedef enum tk_isa {
	TK_ISA_UNKNOWN = 0,
	TK_ISA_A32,	/* AArch32 Arm */
	TK_ISA_T32,	/* AArch32 Thumb */
	TK_ISA_A64,	/* AArch64 */
	TK_ISA_X86_64,	/* x86-64 (Intel PT) */
	TK_ISA_PPC64,	/* 64-bit POWER (Qtrace, HTM) */
} tk_isa;

/* What a source knows of an instruction's effect on control flow.  Tarmac
 * cannot say (UNKNOWN: Arm's lr/sp heuristic decides); Intel PT and Qtrace
 * decoders know call and return instructions. */
typedef enum tk_branch {
	TK_BR_UNKNOWN = 0,
	TK_BR_NONE,	/* not a branch */
	TK_BR_JUMP,	/* any other transfer of control */
	TK_BR_CALL,	/* a call: returns to pc + width */
	TK_BR_RETURN,	/* a return */
} tk_branch;

/* State of one byte in a register or memory value. */
enum tk_byte_state {
	TK_BYTE_NONE = 0,	/* not part of this update (left unchanged) */
	TK_BYTE_SET = 1,	/* written/read with the value given */
	TK_BYTE_UNKNOWN = 2,	/* accessed, but the value is not known */
};

/* Longest instruction encoding kept (x86 instructions have up to 15). */
#define TK_INSN_MAX_BYTES 16

typedef struct tk_insn {
	uint64_t pc;		/* address of the instruction (no Thumb bit) */
	tk_isa isa;
	tk_branch branch;
	uint8_t width;		/* bytes the instruction occupies; 0 if unknown */
	uint8_t nbytes;		/* bytes of the encoding known (0: none shown) */
	bool executed;		/* false: condition failed (IS, CCFAIL) */
	/*
	 * The encoding, in the ISA's canonical order: x86 in memory order;
	 * Arm in little-endian units as instruction fetches read them (A32
	 * and A64 one 32-bit word, T32 one or two halfwords, the first
	 * first); POWER as big-endian words (a prefixed pair: prefix first).
	 * tk_insn_encoding() gives the number a trace or a listing prints.
	 */
	uint8_t bytes[TK_INSN_MAX_BYTES];
	const char *mode;	/* "EL3h_s", "svc_s"... ; may be empty */
	size_t mode_len;
	const char *disasm;	/* disassembly text, may be empty */
	size_t disasm_len;
} tk_insn;

typedef struct tk_reg_update {
	tk_reg_view view;	/* view.reg == TK_REG_NONE: unmodelled register */
	const char *name;	/* the name as written in the trace */
	size_t name_len;
	const uint8_t *value;	/* view.len bytes, little-endian */
	const uint8_t *state;	/* view.len tk_byte_state values */
} tk_reg_update;

typedef struct tk_mem_access {
	uint64_t addr;		/* virtual address of the first byte */
	uint64_t paddr;		/* physical address, if has_paddr */
	uint32_t size;		/* bytes */
	bool write;
	bool exclusive;
	bool aborted;		/* the access faulted: no data */
	bool has_paddr;
	const uint8_t *bytes;	/* size bytes, in memory order (addr + i) */
	const uint8_t *state;	/* size tk_byte_state values */
} tk_mem_access;

typedef struct tk_text {
	const char *kind;	/* the line's type word ("E", "CADI", "BR"...) */
	size_t kind_len;
	const char *text;	/* the whole line (without timestamp) */
	size_t len;
	bool header;		/* a file header ("Tarmac Text Rev 3t"), not
				 * something the traced machine did */
} tk_text;

/* A typed value of a function event: an argument or a return value. */
typedef struct tk_value {
	const char *type;	/* C type as text ("int", "const struct vec3 *") */
	size_t type_len;
	const uint8_t *bytes;	/* size bytes, in the target's memory order */
	uint32_t size;
} tk_value;

/* tk_func_event.flags */
enum {
	TK_FUNC_NO_VALUES = 1u << 0,	/* the source could not record the values */
};

typedef struct tk_func_event {
	uint64_t addr;		/* function entry address (0 if unknown) */
	uint64_t site;		/* call site / return address, 0 if unknown */
	const char *name;	/* function name if the source knows it, or NULL */
	size_t name_len;
	uint32_t flags;		/* TK_FUNC_* */
	uint32_t nvalues;	/* CALL: the arguments; RETURN: the return value */
	const tk_value *values;
} tk_func_event;

typedef enum tk_gap_kind {
	TK_GAP_OTHER = 0,
	TK_GAP_DISABLED,	/* tracing was off (filtered, paused) */
	TK_GAP_OVERFLOW,	/* the tracer lost data (internal buffer) */
	TK_GAP_DECODE_ERROR,	/* the decoder lost sync and resumed later */
	TK_GAP_BUFFER_FULL,	/* the trace buffer filled up */
} tk_gap_kind;

typedef struct tk_gap {
	tk_gap_kind kind;
	const char *msg;	/* why, for people; may be empty */
	size_t msg_len;
} tk_gap;

/*
 * A run of instructions (TK_EV_RUN): count instructions executed one after
 * another in one context, of which only the last may be a call or a return
 * (every earlier one's branch kind is NONE or JUMP).  It stands for count
 * TK_EV_INSN events: the event's time, line and offset are the first
 * instruction's, the i-th one (from 0) has time + i and line + i.  Of the
 * earlier instructions only the first one's address is given.  A source
 * gives runs (where its decoder sees them whole: Intel PT's blocks) only to
 * a reader that asks for them, one that needs no more than this: the call
 * detector, profiles.
 */
typedef struct tk_insn_run {
	uint64_t first_pc;	/* the first instruction's address */
	uint64_t count;		/* instructions, >= 1 */
	tk_insn last;		/* the last instruction (its branch kind, width;
				 * the width may be 0, unknown, unless it is a
				 * call) */
} tk_insn_run;

typedef struct tk_event {
	tk_event_kind kind;
	uint32_t context;	/* CPU or thread (tk_source_info says which) */
	uint64_t time;		/* timestamp, in the source's time unit */
	uint64_t line;		/* 1-based line (or record) number */
	uint64_t offset;	/* byte offset of that line (record) in the file */
	const char *raw;	/* the line's text as in the file (text formats,
				 * without its newline), or NULL */
	size_t raw_len;
	union {
		tk_insn insn;
		tk_reg_update reg;
		tk_mem_access mem;
		tk_text text;
		tk_func_event func;
		tk_gap gap;
		tk_insn_run run;
	} u;
} tk_event;

/* Short names, for printing: "A32", "T32", "A64", "x86-64", "ppc64", "?" */
const char *tk_isa_name(tk_isa isa);

/* "INSN", "REG", "MEM", "TEXT", "CALL", "RETURN", "GAP", "RUN", or "?". */
const char *tk_event_kind_name(tk_event_kind kind);

/* "disabled", "overflow", "decode error", "buffer full", "other". */
const char *tk_gap_kind_name(tk_gap_kind kind);

/*
 * The encoding as the number a trace or a listing prints (Tarmac's
 * "encoding" field, a POWER instruction word): Arm's units combined, first
 * unit most significant (a 32-bit Thumb instruction is hw1 << 16 | hw2);
 * POWER's words likewise; other ISAs the bytes read as a big-endian number.
 * Only the first 8 bytes count.  0 if in->nbytes is 0.
 */
uint64_t tk_insn_encoding(const tk_insn *in);

/* Set in->bytes / in->nbytes from such a number of nbytes bytes (the
 * inverse of tk_insn_encoding for in->isa).  nbytes <= 8. */
void tk_insn_set_encoding(tk_insn *in, uint64_t value, unsigned nbytes);

/* tk_event_copy() flags */
enum {
	/* Leave out what only people read (mode, disassembly, register names
	 * as written, raw text, text lines, value types, gap messages; function
	 * names stay):
	 * for consumers that keep many events and need only their data. */
	TK_COPY_DATA_ONLY = 1u << 0,
};

/* Bytes tk_event_copy_into() needs for ev. */
size_t tk_event_copy_size(const tk_event *ev, unsigned flags);

/*
 * Copy ev into buf (size bytes, aligned for tk_event, at least
 * tk_event_copy_size(ev, flags)): the copy is a tk_event at the start of
 * buf, every pointer of it pointing into buf.  Returns the copy, or NULL if
 * size is too small.
 */
tk_event *tk_event_copy_into(const tk_event *ev, unsigned flags, void *buf, size_t size);

/* The same in one malloc'ed block: free(*out) releases it.
 * Errors: TK_ERR_NOMEM. */
int tk_event_copy(const tk_event *ev, unsigned flags, tk_event **out);

#ifdef __cplusplus
}
#endif
#endif
