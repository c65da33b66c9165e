/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: what a backend of tk_callwalk (calls.h) provides.
 *
 * A backend embeds struct tk_callwalk first, fills count, nroots and the
 * table of roots, and implements next (the next node in preorder, with
 * node numbers as links) and seek (go on at node n, n >= the nodes read).
 * tk_callwalk_keep_context is done here, on top of seek.
 */
#ifndef TRACEKIT_CALLWALK_H
#define TRACEKIT_CALLWALK_H

#include <stdbool.h>

#include "tracekit/calls.h"

typedef struct tk_callwalk_ops {
	int (*next)(tk_callwalk *w, tk_call *out);
	int (*seek)(tk_callwalk *w, uint32_t n);
	void (*free)(tk_callwalk *w);
} tk_callwalk_ops;

typedef struct tk_callwalk_root {
	uint32_t context;
	uint32_t first;		/* node number of the root */
	uint32_t size;		/* nodes of its tree, the root included */
} tk_callwalk_root;

struct tk_callwalk {
	const tk_callwalk_ops *ops;
	uint32_t count, nroots;
	tk_callwalk_root *roots;	/* malloc'ed, freed by tk_callwalk_free */
	uint32_t read;		/* nodes returned so far */
	/* keep_context: nodes [base, end) renumbered from 0 */
	bool filtered;
	uint32_t base, end;
};

#endif
