/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: source lines, inline chains and call frame information from the
 * DWARF of an ELF image (libdw, libelf).
 *
 * One loaded image answers three kinds of question:
 *
 *  - addr2line: the function, file, line and discriminator of an address,
 *    and the functions it was inlined into, exactly as GNU binutils 2.40's
 *    addr2line would name them (the same choice of line-table row, of
 *    innermost function, the same fallback to ELF symbols and the same file
 *    name spelling), so `tracekit addr2line` can be its drop-in replacement;
 *  - source lines for the other tools (tk_dwarf_srcline): the FILE:LINE of
 *    an address as addr2line prints it, or nothing without DWARF lines;
 *  - call frame information (.debug_frame, else .eh_frame) at an address:
 *    how the canonical frame address is computed and where registers were
 *    saved, for the frame-pointer walk (backtrace.h).
 *
 * The image's code can be read back (tk_dwarf_read), for prologue analysis.
 *
 * Executables and shared objects are supported (ET_EXEC, ET_DYN);
 * relocatable objects are read without applying their relocations.
 *
 * Bad input never crashes: a damaged .debug_info, .debug_line or
 * .debug_frame is reported through the diagnostic callback with the image's
 * path and a message naming the section and the byte offset; what can
 * still be read is used.
 *
 * A tk_dwarf is not thread-safe: queries update caches (and, for binutils
 * compatibility, remember which ELF symbol last named a function).
 */
#ifndef TRACEKIT_DWARF_H
#define TRACEKIT_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_dwarf tk_dwarf;

typedef struct tk_dwarf_opts {
	size_t size;		/* sizeof(tk_dwarf_opts) */
	/* Warnings (no DWARF) and errors (damaged sections): diag->file is
	 * the image path, diag->line 0, diag->msg names section and offset,
	 * e.g. ".debug_line at offset 0x2a4: bad line table header". */
	tk_diag_fn diag;
	void *diag_ctx;
} tk_dwarf_opts;

/*
 * Load an ELF image.  opts may be NULL (no diagnostics).  An image without
 * DWARF loads (symbol names only) with a warning.
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_EMPTY (an empty file),
 * TK_ERR_ELF (not an ELF file), TK_ERR_NOMEM.
 */
int tk_dwarf_open(const char *path, const tk_dwarf_opts *opts, tk_dwarf **out);
void tk_dwarf_free(tk_dwarf *d);

/* 4 for ELFCLASS32, 8 for ELFCLASS64. */
unsigned tk_dwarf_addr_bytes(const tk_dwarf *d);
/* ELF e_machine (EM_ARM 40, EM_AARCH64 183, EM_X86_64 62). */
unsigned tk_dwarf_machine(const tk_dwarf *d);
bool tk_dwarf_big_endian(const tk_dwarf *d);
/* True if the image has DWARF line tables. */
bool tk_dwarf_has_lines(const tk_dwarf *d);
/* Number of errors reported so far (damaged sections). */
unsigned tk_dwarf_error_count(const tk_dwarf *d);

/* ------------------------------------------------------------------ */
/* addr2line                                                           */
/* ------------------------------------------------------------------ */

/* One source location.  NULL and 0 mean unknown: addr2line prints "??"
 * for a NULL function or file, "?" for line 0. */
typedef struct tk_dwarf_loc {
	const char *function;	/* as in the image (mangled); NULL: unknown */
	const char *file;	/* as addr2line spells it; NULL: unknown */
	unsigned line;
	unsigned discriminator;	/* 0: none (always 0 for inliners) */
	bool dwarf_line;	/* file and line come from a DWARF line table */
} tk_dwarf_loc;

typedef struct tk_dwarf_result {
	/* false: nothing is known (addr2line prints "??:0"). */
	bool found;
	/* locs[0] is the address itself; locs[1..count-1] the functions it
	 * was inlined into, innermost first, each with the file and line of
	 * the inlined call.  Valid until the next query on the image. */
	unsigned count;
	const tk_dwarf_loc *locs;
} tk_dwarf_result;

/*
 * Look up an address (section == NULL), or an offset into the named
 * section (addr2line -j).  The address is first reduced to the image's
 * address size.  Errors: TK_ERR_NOTFOUND (no section of that name),
 * TK_ERR_NOMEM.
 */
int tk_dwarf_addr2line(tk_dwarf *d, uint64_t addr, const char *section,
		       tk_dwarf_result *out);

/*
 * The FILE:LINE of an address from the DWARF line tables, spelled as
 * addr2line spells it.  Returns 1 and sets *file and *line, 0 if the
 * image has no line for it.  *file stays valid while the image is loaded.
 */
int tk_dwarf_srcline(tk_dwarf *d, uint64_t addr, const char **file, unsigned *line);

/*
 * Demangle a C++ (or Rust, D...) name as addr2line -C does; a malloc'd
 * string, or NULL if the name is not mangled (or no demangler is built in).
 */
char *tk_dwarf_demangle(const char *name);

/* ------------------------------------------------------------------ */
/* Call frame information                                              */
/* ------------------------------------------------------------------ */

/* DWARF register numbers covered by a tk_dwarf_cfi row: 0..32 (AArch32
 * r0-r15 are 0-15; AArch64 x0-x30 are 0-30 and sp 31; x86-64 rbp 6). */
#define TK_DWARF_CFI_REGS 33

typedef enum tk_dwarf_rule_kind {
	TK_DWARF_RULE_UNDEFINED = 0,	/* not recoverable */
	TK_DWARF_RULE_SAME,		/* unchanged from the caller */
	TK_DWARF_RULE_OFFSET,		/* saved at CFA + offset */
	TK_DWARF_RULE_VAL_OFFSET,	/* its value is CFA + offset */
	TK_DWARF_RULE_REGISTER,		/* in register `reg` */
	TK_DWARF_RULE_OTHER,		/* an expression tracekit does not follow */
} tk_dwarf_rule_kind;

typedef struct tk_dwarf_rule {
	tk_dwarf_rule_kind kind;
	unsigned reg;
	int64_t offset;
} tk_dwarf_rule;

typedef struct tk_dwarf_cfi {
	uint64_t start, end;	/* the addresses this row applies to */
	bool cfa_simple;	/* CFA = register cfa_reg + cfa_offset */
	unsigned cfa_reg;
	int64_t cfa_offset;
	unsigned ra_reg;	/* the return address column */
	tk_dwarf_rule regs[TK_DWARF_CFI_REGS];
} tk_dwarf_cfi;

/*
 * The CFI row that applies at pc (.debug_frame first, else .eh_frame).
 * Errors: TK_ERR_NOTFOUND (no CFI covers pc, or its entry cannot be
 * decoded: damaged entries are reported, by offset, when the image loads).
 */
int tk_dwarf_cfi_at(tk_dwarf *d, uint64_t pc, tk_dwarf_cfi *out);

/* ------------------------------------------------------------------ */
/* The image's bytes                                                   */
/* ------------------------------------------------------------------ */

/*
 * Read len bytes at address addr from the image's loaded sections with
 * contents (code, read-only data).  Errors: TK_ERR_NOTFOUND (some byte is
 * not in such a section).
 */
int tk_dwarf_read(const tk_dwarf *d, uint64_t addr, void *buf, size_t len);

/* The function symbol containing addr (an STT_FUNC whose [value, value +
 * size) holds it; Thumb bit cleared): its start, and whether it is Thumb
 * code (Arm).  Returns 1, or 0 if none. */
int tk_dwarf_func_sym(const tk_dwarf *d, uint64_t addr, uint64_t *start, bool *thumb);

#ifdef __cplusplus
}
#endif
#endif
