/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: facts about POWER (PowerISA 3.1) instruction words.
 *
 * Instruction words are logical 32-bit values (the big-endian image, bit 0
 * the most significant in IBM numbering), whatever the CPU's byte order.
 * A prefixed instruction (POWER10) is a prefix word (primary opcode 1)
 * followed by a suffix word at EA + 4.
 *
 * The branch tests follow the Qtrace conventions: "conditional" and
 * "unconditional" are those a Qtrace reader and writer use to fill in the
 * branch and termination fields; tk_ppc_branch_kind() is what the call
 * analyses need (link-register semantics).
 */
#ifndef TRACEKIT_PPC_H
#define TRACEKIT_PPC_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The primary opcode (IBM bits 0-5). */
static inline unsigned tk_ppc_primary(uint32_t w) { return w >> 26; }

/* The word is a prefix (primary opcode 1): a suffix word follows. */
static inline bool tk_ppc_is_prefix(uint32_t w) { return (w >> 26) == 1; }

/* b/bl/ba/bla, bc*, bclr*, bcctr*, bctar* (any BO, any link bit). */
bool tk_ppc_is_branch(uint32_t w);

/* Words after which the POWER HTM reports a branch although they are not
 * branches: rfscv, rfid, hrfid, sc, sc 1 and the scv forms. */
bool tk_ppc_is_rfi_like(uint32_t w);

/* A branch whose BO tests a condition or CTR: bc with (BO & 0x14) != 0x14,
 * or bclr/bcctr/bctar with such a BO. */
bool tk_ppc_is_conditional_branch(uint32_t w);

/* b, sc/scv, bc/bclr/bcctr/bctar with an always-taken BO, rfid, rfscv,
 * hrfid and rfi (XO 50): what a Qtrace reader treats as unconditional. */
bool tk_ppc_is_unconditional_branch(uint32_t w);

/* The branch sets the link register (LK = 1) and is of a branch form. */
bool tk_ppc_is_linking_branch(uint32_t w);

/*
 * What the instruction at `ea` did to control flow, given the EA of the
 * instruction executed after it (`next_ea`; pass ea + width when it is not
 * known, e.g. at the end of a trace).  `word` is the instruction word, or
 * the prefix of a prefixed instruction (width 8).
 *
 *   TK_BR_CALL    a linking branch (bl, bla, bcl, bclrl, bcctrl, bctarl)
 *                 that left the fall-through: next_ea != ea + 4.  The get-PC
 *                 idiom `bcl 20,31,$+4` (and `bl $+4`) lands on the
 *                 fall-through and so is not a call.
 *   TK_BR_RETURN  bclr (blr, beqlr, bdnzlr...) without link, taken.
 *   TK_BR_JUMP    any other departure from the fall-through: a taken
 *                 branch without link, and also sc, rfid and the like, or an
 *                 interrupt after an ordinary instruction (mode changes: not
 *                 calls nor returns).
 *   TK_BR_NONE    execution went on at ea + width.
 */
tk_branch tk_ppc_branch_kind(uint32_t word, unsigned width, uint64_t ea, uint64_t next_ea);

/* ---- disassembly (GNU libopcodes) ------------------------------------------ */

typedef struct tk_ppc_disasm tk_ppc_disasm;

/* Prints a branch or PC-relative target address into buf (at most size
 * bytes, NUL-terminated); returns the length.  The default prints
 * "%016lx " (16 hex digits and a space, no 0x), as the qtdis listing does. */
typedef size_t (*tk_ppc_addr_fn)(void *ctx, uint64_t addr, char *buf, size_t size);

/* True when tracekit was built with libopcodes.  Without it the text is
 * "0x%x" for a word, "0x%x 0x%x" for a prefixed pair. */
bool tk_ppc_disasm_available(void);

/*
 * A disassembler for machine powerpc64 with the POWER10 instruction set
 * (what `objdump -M power10` prints).  addr_fn may be NULL for the default.
 * Errors: TK_ERR_NOMEM.
 */
int tk_ppc_disasm_new(tk_ppc_addr_fn addr_fn, void *addr_ctx, tk_ppc_disasm **out);
void tk_ppc_disasm_free(tk_ppc_disasm *d);

/*
 * Disassemble one instruction at `ea`: words[0], or words[0] and words[1]
 * for a prefixed pair (nwords = 2).  Writes the text (no trailing newline)
 * into buf and returns its length (truncated to size - 1).  Texts that do
 * not depend on the address are cached, so a long listing costs one
 * libopcodes call per distinct word.
 */
size_t tk_ppc_disasm_insn(tk_ppc_disasm *d, uint64_t ea, const uint32_t *words,
			  unsigned nwords, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
