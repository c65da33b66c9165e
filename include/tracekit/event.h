/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the common event model.
 *
 * Every trace source (Tarmac text, Intel PT, POWER qtrace, function-level
 * traces) produces a stream of tk_event; every analysis (calls, index,
 * profiles, the browsers) consumes that stream and nothing source-specific.
 *
 * Events are small and transient: pointers inside an event (values, text)
 * belong to the source and stay valid only until the next event is read.
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
} tk_event_kind;

typedef enum tk_isa {
	TK_ISA_UNKNOWN = 0,
	TK_ISA_A32,	/* AArch32 Arm */
	TK_ISA_T32,	/* AArch32 Thumb */
	TK_ISA_A64,	/* AArch64 */
	TK_ISA_X86_64,	/* Intel PT */
	TK_ISA_PPC64,	/* POWER (qtrace) */
} tk_isa;

/* What a source knows of an instruction's effect on control flow.  Tarmac
 * cannot say (UNKNOWN: the call heuristic decides); Intel PT and qtrace
 * decoders know call and return instructions. */
typedef enum tk_branch {
	TK_BR_UNKNOWN = 0,
	TK_BR_NONE,	/* not a branch */
	TK_BR_JUMP,
	TK_BR_CALL,
	TK_BR_RETURN,
} tk_branch;

/* State of one byte in a register or memory value. */
enum tk_byte_state {
	TK_BYTE_NONE = 0,	/* not part of this update (left unchanged) */
	TK_BYTE_SET = 1,	/* written/read with the value given */
	TK_BYTE_UNKNOWN = 2,	/* accessed, but the value is not known */
};

typedef struct tk_insn {
	uint64_t pc;		/* address of the instruction (no Thumb bit) */
	tk_isa isa;
	uint8_t width;		/* bytes: 2 or 4 on Arm; 0 if unknown */
	bool executed;		/* false: condition failed (IS, CCFAIL) */
	bool has_encoding;	/* false if the trace shows no encoding */
	tk_branch branch;
	uint32_t encoding;	/* logical value, as the seed documents */
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
} tk_text;

typedef struct tk_func_event {
	uint64_t addr;		/* function entry address */
	uint64_t site;		/* call site / return address, 0 if unknown */
	const char *name;	/* function name if the source knows it, or NULL */
	size_t name_len;
} tk_func_event;

typedef struct tk_event {
	tk_event_kind kind;
	uint32_t cpu;		/* CPU index ("cpu1"), 0 by default */
	uint64_t time;		/* timestamp (see docs: fractional units) */
	uint64_t line;		/* 1-based line (or record) number */
	uint64_t offset;	/* byte offset of that line in the file */
	union {
		tk_insn insn;
		tk_reg_update reg;
		tk_mem_access mem;
		tk_text text;
		tk_func_event func;
	} u;
} tk_event;

/* Short names, for printing: "A32", "T32", "A64", "x86-64", "ppc64", "?" */
const char *tk_isa_name(tk_isa isa);

#ifdef __cplusplus
}
#endif
#endif
