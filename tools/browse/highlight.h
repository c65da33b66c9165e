/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse: how a trace line is shown.
 *
 * F6 colours the parts of a line (timestamp, addresses, mnemonic, register
 * and memory updates); F7 replaces a branch's target address with the name
 * of the ELF symbol there.  Both work on the text alone, so the trace pane
 * can render any line it reads from the file.
 */
#ifndef TRACEKIT_BROWSE_HIGHLIGHT_H
#define TRACEKIT_BROWSE_HIGHLIGHT_H

#include <stdint.h>

#include "tracekit/symbols.h"

enum tkb_class {
	TKB_C_PLAIN, TKB_C_TIME, TKB_C_ADDR, TKB_C_INSN, TKB_C_REG,
	TKB_C_MEM, TKB_C_VALUE, TKB_C_TEXT
};

/* Copy the line into out (at most max bytes), with branch targets made
 * symbolic when st is non-NULL.  Returns the length written. */
int tkb_symbolise(const tk_symtab *st, const char *s, int len, char *out, int max);

/* Class of each byte of the line (cls has len entries). */
void tkb_classify(const char *s, int len, uint8_t *cls);

#endif
