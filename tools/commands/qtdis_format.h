/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit front ends: the lines of a qtdis listing.
 *
 *   EA␠[→raw bytes]→disassembly[→␠#annotations]
 *
 * EA is "%016lx" and a space (with an image: "%016lx <sym+0x%lx> "), the
 * disassembly is libopcodes' text with branch targets printed "%016lx "
 * (or "%016lx <sym+0x%lx> ", or "_dummy_%016lx " for qtbuild output), and
 * the annotations are those of `qtdis -v`. */
#ifndef TRACEKIT_TOOLS_QTDIS_FORMAT_H
#define TRACEKIT_TOOLS_QTDIS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"
#include "tracekit/symbols.h"

#define QTDIS_LINE_MAX 4096

typedef enum qtdis_addr_style {
	QTDIS_ADDR_PLAIN = 0,	/* %016lx␠ */
	QTDIS_ADDR_SYMBOL,	/* %016lx <sym+0x%lx>␠ when a symbol is known */
	QTDIS_ADDR_DUMMY,	/* _dummy_%016lx␠ (qtbuild) */
} qtdis_addr_style;

typedef struct qtdis_format {
	tk_ppc_disasm *dis;
	const tk_symtab *symtab;
	qtdis_addr_style targets;
	bool raw, raw_host_order, verbose;
} qtdis_format;

/* Set up the disassembler; returns 0 or a tk_err. */
int qtdis_format_init(qtdis_format *f, const tk_symtab *symtab, qtdis_addr_style targets);
void qtdis_format_fini(qtdis_format *f);

/* The disassembly text alone. */
size_t qtdis_disasm(qtdis_format *f, uint64_t ea, const uint32_t *words, unsigned nwords,
		    char *out, size_t size);

/* One listing line (with its newline) for the instruction of record rec
 * (words: rec's word, or prefix + suffix).  Returns its length. */
size_t qtdis_line(qtdis_format *f, const tk_qt_record *rec, const uint32_t *words,
		  unsigned nwords, char *out);

#endif
