/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: source lines for the command front ends (--source-lines).
 *
 * The DWARF of an image, loaded once, answering "FILE:LINE" for trace
 * addresses (--load-offset taken off), spelled as addr2line spells it, with
 * answers cached: the reports ask about the same addresses again and again.
 * Warnings about the image (no DWARF, damaged sections) go to stderr once.
 */
#ifndef TRACEKIT_TOOLS_SRCLINES_H
#define TRACEKIT_TOOLS_SRCLINES_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "tracekit/dwarf.h"

typedef struct tk_srclines tk_srclines;

/* Load the DWARF of cli->image.  Returns 0, or -1 after printing why. */
int tk_srclines_open(const tk_cli *cli, tk_srclines **out);
/* The same without printing anything: -1 and the reason in msg. */
int tk_srclines_open_quiet(const char *image, uint64_t load_offset, tk_srclines **out,
			   char *msg, size_t size);
void tk_srclines_free(tk_srclines *s);

/* Spell files without their directory (addr2line -s). */
void tk_srclines_basenames(tk_srclines *s, bool on);

/* "FILE:LINE" of a trace address, or NULL if the image has no line for
 * it.  The string stays valid until tk_srclines_free. */
const char *tk_srclines_get(tk_srclines *s, uint64_t addr);

/* Print prefix and "FILE:LINE" of addr to fp, if s is not NULL and the
 * image has a line for addr ("at " in ` at FILE:LINE`). */
void tk_srclines_put(FILE *fp, tk_srclines *s, const char *prefix, uint64_t addr);

/* The file (as addr2line spells it, never shortened) and line
 * separately: NULL and 0 if none. */
const char *tk_srclines_file(tk_srclines *s, uint64_t addr, unsigned *line);

/* The loaded image (for CFI and code); ask it about trace addresses minus
 * tk_srclines_load_offset(). */
tk_dwarf *tk_srclines_dwarf(tk_srclines *s);
uint64_t tk_srclines_load_offset(const tk_srclines *s);

#endif
