/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: symbols from an ELF image (libelf).
 *
 * Function and object symbols by address and by name, shifted by a load
 * offset; the image's byte order and machine.
 */
#ifndef TRACEKIT_SYMBOLS_H
#define TRACEKIT_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_sym_kind {
	TK_SYM_FUNC = 1,
	TK_SYM_OBJECT = 2,
} tk_sym_kind;

typedef struct tk_symbol {
	const char *name;	/* the name to show (demangled after
				 * tk_symtab_demangle, else the ELF name) */
	const char *linkage_name; /* the name in the ELF file */
	uint64_t addr;		/* load offset applied; Thumb bit cleared */
	uint64_t size;		/* 0 if the image gives none */
	tk_sym_kind kind;
	bool thumb;		/* the ELF address had bit 0 set (Arm Thumb) */
	uint8_t local_entry;	/* POWER ELFv2: the local entry point is at
				 * addr + local_entry (a `bl` from code that
				 * shares the TOC lands there); 0 otherwise */
} tk_symbol;

typedef struct tk_symtab tk_symtab;

/*
 * Load the symbol table of an ELF file.  load_offset is added to every
 * symbol address (--load-offset).
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_ELF (not an ELF file, or no
 * symbol table), TK_ERR_NOMEM.  On TK_ERR_ELF, tk_symtab_error_detail()
 * is not available: the message comes from tk_strerror.
 */
int tk_symtab_load(const char *path, uint64_t load_offset, tk_symtab **out);
void tk_symtab_free(tk_symtab *st);

/* The symbol exactly at addr (functions preferred), or NULL.  On POWER
 * (ELFv2) a function's local entry point also names it: `bl fib+8` calls
 * fib. */
const tk_symbol *tk_symtab_at(const tk_symtab *st, uint64_t addr);

/* The function or object whose [addr, addr+size) contains addr (for
 * size-0 symbols: the nearest one below within the same section), or NULL. */
const tk_symbol *tk_symtab_containing(const tk_symtab *st, uint64_t addr);

/* Look a symbol up by name (the ELF name, or the demangled one after
 * tk_symtab_demangle), or NULL. */
const tk_symbol *tk_symtab_find(const tk_symtab *st, const char *name);

/*
 * Show C++ names demangled ("Lexer::next_inner()" for
 * "_ZN5Lexer10next_innerEv"): afterwards each symbol's name is its
 * demangled form where it has one; linkage_name keeps the ELF name.
 * Errors: TK_ERR_UNSUPPORTED (built without a demangler), TK_ERR_NOMEM.
 */
int tk_symtab_demangle(tk_symtab *st);

/* All symbols, sorted by address. */
const tk_symbol *tk_symtab_symbols(const tk_symtab *st, uint32_t *count);

bool tk_symtab_big_endian(const tk_symtab *st);
/* ELF e_machine (EM_ARM = 40, EM_AARCH64 = 183, ...). */
unsigned tk_symtab_machine(const tk_symtab *st);

/* Add the symbols of `from` (consumed, freed even on error) to `into`: the
 * images of one program (an executable and its shared libraries, each
 * with its own load offset).  Merge before demangling.
 * Errors: TK_ERR_NOMEM, TK_ERR_INVAL (a table already demangled). */
int tk_symtab_merge(tk_symtab *into, tk_symtab *from);

/* The lowest address an ELF file's loadable segments ask for: with
 * "ELF@ADDR" (the image loaded at ADDR), the load offset is ADDR - base.
 * Errors: TK_ERR_OPEN, TK_ERR_ELF (not ELF, no loadable segment). */
int tk_elf_load_base(const char *path, uint64_t *base);

#ifdef __cplusplus
}
#endif
#endif
