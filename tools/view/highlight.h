/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): how a trace line is shown.
 *
 * F6 colours the parts of a line (timestamp, addresses, mnemonic, register
 * and memory updates); F7 replaces a branch's target address with the name
 * of the ELF symbol there.  Both work on the text alone, so the trace pane
 * can render any line it reads from the file.
 */
#ifndef TRACEKIT_VIEW_HIGHLIGHT_H
#define TRACEKIT_VIEW_HIGHLIGHT_H

#include <stdint.h>

#include "tracekit/symbols.h"

enum tkv_class {
	TKV_C_PLAIN, TKV_C_TIME, TKV_C_ADDR, TKV_C_INSN, TKV_C_REG,
	TKV_C_MEM, TKV_C_VALUE, TKV_C_TEXT
};

/* Copy the line into out (at most max bytes), with branch targets made
 * symbolic when st is non-NULL.  Returns the length written. */
int tkv_symbolise(const tk_symtab *st, const char *s, int len, char *out, int max);

/* Class of each byte of the line (cls has len entries). */
void tkv_classify(const char *s, int len, uint8_t *cls);

#endif
