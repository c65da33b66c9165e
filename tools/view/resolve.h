/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the names in address expressions.
 *
 * A name is a register, whose value at a position is read from the index
 * (every byte must be known), "pc" (the next instruction to run, as in a
 * debugger), or a symbol of the ELF image.  Core registers of the other
 * execution state are refused with the names to use instead.
 */
#ifndef TRACEKIT_VIEW_RESOLVE_H
#define TRACEKIT_VIEW_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/index.h"
#include "tracekit/symbols.h"

typedef struct tkv_scope {
	const tk_index *idx;
	const tk_symtab *symtab;	/* NULL: no symbols */
	uint64_t state;		/* index position whose registers are used;
				 * TK_POS_NONE: before the first instruction */
	uint64_t isa_pos;	/* position whose execution state names the
				 * registers (TK_POS_NONE: use a64) */
	uint64_t pc_pos;	/* position whose pc "pc" is (TK_POS_NONE: none) */
	bool a64;		/* the default execution state */
} tkv_scope;

/* A tk_expr_name_fn (expr.h); ctx is a tkv_scope. */
int tkv_resolve_name(void *ctx, const char *name, size_t len, uint64_t *value,
		     char *err, size_t errlen);

/* Evaluate an address expression in a scope: 0, or -1 with a message. */
int tkv_eval(const tkv_scope *scope, const char *text, uint64_t *value,
	     char *err, size_t errlen);

#endif
