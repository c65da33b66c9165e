/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit (private): the sink that builds a tk_calltree.
 *
 * Used by the call detector when its caller gives no sink of its own.
 */
#ifndef TRACEKIT_LIB_CALLTREE_H
#define TRACEKIT_LIB_CALLTREE_H

#include "tracekit/calls.h"

typedef struct tk_calltree_builder tk_calltree_builder;

/* Errors: TK_ERR_NOMEM.  *sink is filled with the builder's callbacks. */
int tk_calltree_builder_new(tk_calltree_builder **out, tk_calls_sink *sink);

/* After the sink's last finish: build and hand over the tree (NULL if
 * finish was never called).  The builder can then only be freed.
 * Errors: TK_ERR_NOMEM. */
int tk_calltree_builder_take(tk_calltree_builder *b, tk_calltree **out);

void tk_calltree_builder_free(tk_calltree_builder *b);

#endif
