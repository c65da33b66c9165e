/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the DWARF module's internals (see include/tracekit/dwarf.h).
 *
 * The image is read once: its sections and symbols with libelf, every
 * compilation unit's DIE tree with libdw (functions, inline chains), every
 * line table with our own line-program decoder (dw_line.c: libdw merges all
 * sequences of a unit into one list sorted by address, which loses what
 * binutils' choice of row depends on, and it does not say where a table is
 * damaged).  Lookups then follow binutils 2.40's rules, which the comments
 * of dw_lookup.c describe.
 */
#ifndef TRACEKIT_DWARF_DW_IMPL_H
#define TRACEKIT_DWARF_DW_IMPL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/dwarf.h"

#define DW_NONE UINT32_MAX

/* An ELF section, as binutils sees it. */
typedef struct dw_sec {
	const char *name;
	uint64_t addr, size;
	uint64_t flags;		/* sh_flags */
	uint32_t type;		/* sh_type */
	Elf_Scn *scn;
} dw_sec;

typedef struct dw_range {
	uint64_t low, high;	/* [low, high) */
} dw_range;

/* A function, inlined instance or entry point of a unit. */
typedef struct dw_func {
	const char *name;	/* may be replaced by an ELF symbol's name */
	bool is_linkage;	/* the name needs no symbol lookup */
	bool inlined;		/* DW_TAG_inlined_subroutine */
	uint32_t caller;	/* enclosing function (inlined ones only) */
	const char *call_file;	/* DW_AT_call_file, spelled as addr2line */
	unsigned call_line;
	uint32_t range0, nranges;	/* into the unit's franges; range0 is
					 * binutils' "first arange" */
} dw_func;

/* A variable at a fixed address (binutils' variable table: only those can
 * name a data address). */
typedef struct dw_var {
	const char *name;
	const char *file;	/* DW_AT_decl_file, spelled as addr2line */
	unsigned line;
	uint64_t addr;
} dw_var;

/* The function lookup table: by low address, with a running maximum of
 * high addresses so a binary search finds the first candidate. */
typedef struct dw_flook {
	uint64_t low, high;
	uint32_t func;
} dw_flook;

/* One line-table row; the last row of a sequence ends it. */
typedef struct dw_row {
	uint64_t addr;
	const char *file;
	uint32_t line, disc;
} dw_row;

typedef struct dw_seq {
	uint64_t low, high;	/* low may be trimmed; high = end row */
	uint32_t first, n;	/* rows [first, first + n), end row last */
} dw_seq;

typedef struct dw_unit {
	uint64_t offset;	/* of the unit header in .debug_info */
	Dwarf_Die die;
	const char *comp_dir;
	int lang;
	unsigned addr_size;
	bool has_stmt;
	uint64_t stmt_off;
	bool error;		/* no usable line table: never consulted */

	/* Address ranges as binutils files them in its lookup trie: the unit
	 * DIE's when the unit is first read, then, once binutils has decoded
	 * the unit, each sequence's [lowest, highest row address] and each
	 * function range. */
	dw_range *cu_ranges, *late_ranges;
	uint32_t ncu_ranges, nlate_ranges;
	bool decoded;		/* binutils has decoded it (see dw_lookup.c) */
	bool has_arange;	/* binutils' unit->arange.high != 0 */
	uint32_t *entries;	/* its trie entries */
	uint32_t nentries, capentries;
	uint32_t mark;		/* query stamp */

	/* The line table's file names, spelled as binutils does. */
	char **files;
	uint32_t nfiles;
	bool files_from_0;	/* DWARF 5: file and directory 0 are used */

	dw_seq *seqs;
	uint32_t nseqs;
	dw_row *rows;
	uint32_t nrows;

	dw_func *funcs;
	uint32_t nfuncs;
	dw_range *franges;
	uint32_t nfranges;
	dw_flook *flook;	/* functions with ranges */
	uint32_t nflook;
	dw_var *vars;		/* in DIE order */
	uint32_t nvars, capvars;
} dw_unit;

/* An entry of binutils' address-to-unit trie, in insertion order. */
typedef struct dw_tentry {
	uint64_t low, high;
	uint32_t unit;
} dw_tentry;

/* A candidate of binutils' ELF function lookup (_bfd_elf_find_function). */
typedef struct dw_fsym {
	uint64_t value;		/* absolute address, Thumb bit cleared */
	uint64_t off;		/* from its section's start (wraps below it) */
	uint64_t size;		/* 1 when the symbol has none */
	const char *name;
	const char *file;	/* the STT_FILE binutils would name, or NULL */
	bool local;		/* STB_LOCAL */
	uint32_t sec;		/* section index */
	uint32_t order;		/* position in the symbol table */
} dw_fsym;

/* Any symbol (binutils' canonical table), for exact-address lookups. */
typedef struct dw_asym {
	uint64_t value;
	const char *name;
	uint32_t sec, order;
	bool global;		/* STB_GLOBAL */
	bool section;		/* STT_SECTION */
} dw_asym;

/* An STT_FUNC symbol, for tk_dwarf_func_sym. */
typedef struct dw_funcsym {
	uint64_t value, size;
	bool thumb;
} dw_funcsym;

struct tk_dwarf {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dbg;
	Dwarf_CFI *cfi_debug;	/* owned by dbg */
	Dwarf_CFI *cfi_eh;	/* dwarf_cfi_end */
	bool cfi_eh_tried;
	unsigned machine;
	unsigned addr_bytes;
	bool big_endian;
	unsigned etype;

	tk_diag_fn diag;
	void *diag_ctx;
	unsigned errors;

	dw_sec *secs;		/* index = ELF section index */
	size_t nsecs;

	dw_unit *units;
	uint32_t nunits;
	bool has_lines;

	/* binutils' lazy view of the units (dw_lookup.c). */
	uint32_t stashed;	/* units read so far, in order */
	uint32_t *noranges;	/* read units without DIE ranges */
	uint32_t nnoranges;
	dw_tentry *tent;
	uint32_t ntent, captent;
	uint32_t *tsort;	/* entries by low address */
	uint64_t *tmax;		/* running maximum of high, in that order */
	bool tdirty;
	uint32_t stamp;

	/* .debug_line, .debug_line_str, .debug_str (decompressed by libelf). */
	const uint8_t *line_data, *line_str, *str;
	size_t line_len, line_str_len, str_len;

	dw_fsym *fsyms;		/* sorted by (sec, value, -size, order) */
	size_t nfsyms;
	bool have_syms;		/* binutils found a symbol table */
	/* binutils' one-entry cache of the last function symbol found. */
	uint32_t cache_sec;
	const dw_fsym *cache_sym;

	dw_funcsym *funcsyms;	/* sorted by value */
	size_t nfuncsyms;
	dw_asym *asyms;		/* sorted by (sec, value, order) */
	size_t nasyms;

	tk_dwarf_loc *locs;	/* the last result */
	unsigned nlocs, caplocs;

	/* Errors already reported for CFI entries (by offset), to say once. */
	uint64_t *cfi_bad;
	size_t ncfi_bad;
};

/* dw_open.c */
void tk_dw_report(tk_dwarf *d, tk_diag_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tk_dw_section_data(tk_dwarf *d, const char *name, const uint8_t **data, size_t *len);

/* dw_cfi.c: report damaged CFI entries. */
void tk_dw_check_cfi(tk_dwarf *d);

/* dw_units.c: read every unit (ranges, line table, functions). */
int tk_dw_load_units(tk_dwarf *d);
void tk_dw_free_units(tk_dwarf *d);
int tk_dw_add_range(dw_range **r, uint32_t *n, uint64_t low, uint64_t high);

/* dw_line.c: decode the line table of u at u->stmt_off.  Returns 0, 1
 * after reporting damage (u->error is then set), or TK_ERR_NOMEM. */
int tk_dw_decode_lines(tk_dwarf *d, dw_unit *u);
/* binutils' spelling of file number `file` of u's line table (NULL if
 * there is none).  The string belongs to u. */
const char *tk_dw_file_name(const dw_unit *u, uint64_t file);

/* dw_funcs.c: the functions of u's DIE tree.  Returns 0 (damage is
 * reported and skipped) or TK_ERR_NOMEM. */
int tk_dw_scan_funcs(tk_dwarf *d, dw_unit *u);

/* dw_vars.c: a variable DIE of u (skipped unless at a fixed address).
 * Returns 0 or TK_ERR_NOMEM. */
int tk_dw_add_var(const tk_dwarf *d, dw_unit *u, Dwarf_Die *die);
/* The last variable of u at addr whose name is part of `name`, or NULL. */
const dw_var *tk_dw_find_var(const dw_unit *u, const char *name, uint64_t addr);

/* dw_elfsym.c */
int tk_dw_load_symbols(tk_dwarf *d);
/* binutils' _bfd_elf_find_function: the function symbol for addr in
 * section sec, or NULL. */
const dw_fsym *tk_dw_find_function(tk_dwarf *d, uint32_t sec, uint64_t addr);
/* The symbol binutils picks as starting exactly at addr in section sec
 * (the first global one, else the last; no section symbols), or NULL. */
const dw_asym *tk_dw_exact_symbol(const tk_dwarf *d, uint32_t sec, uint64_t addr);

#endif
