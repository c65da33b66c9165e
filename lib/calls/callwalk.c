/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: walking a call tree in preorder (calls.h), whatever holds it:
 * the common part, and the walk over an in-memory tk_calltree. */
#include <stdlib.h>

#include "callwalk.h"
#include "tracekit/error.h"

static uint32_t shift(uint32_t link, uint32_t base)
{
	return link == TK_CALL_NONE ? TK_CALL_NONE : link - base;
}

int tk_callwalk_next(tk_callwalk *w, tk_call *out)
{
	if (w->filtered && w->read == w->end)
		return 0;
	if (!w->filtered && w->read == w->count)
		return 0;
	int rc = w->ops->next(w, out);
	if (rc <= 0)
		return rc ? rc : TK_ERR_CORRUPT;	/* fewer nodes than announced */
	if (w->filtered) {
		bool root = w->read == w->base;
		out->parent = shift(out->parent, w->base);
		out->first_child = shift(out->first_child, w->base);
		out->next_sibling = root ? TK_CALL_NONE : shift(out->next_sibling, w->base);
	}
	w->read++;
	return 1;
}

uint32_t tk_callwalk_count(const tk_callwalk *w)
{
	return w->filtered ? w->end - w->base : w->count;
}

uint32_t tk_callwalk_roots(const tk_callwalk *w)
{
	return w->filtered ? 1 : w->nroots;
}

int tk_callwalk_keep_context(tk_callwalk *w, uint32_t context)
{
	if (w->read || w->filtered)
		return TK_ERR_INVAL;
	for (uint32_t r = 0; r < w->nroots; r++) {
		const tk_callwalk_root *root = &w->roots[r];
		if (root->context != context)
			continue;
		int rc = root->first ? w->ops->seek(w, root->first) : 0;
		if (rc < 0)
			return rc;
		w->filtered = true;
		w->base = w->read = root->first;
		w->end = root->first + root->size;
		return 0;
	}
	return TK_ERR_NOTFOUND;
}

void tk_callwalk_free(tk_callwalk *w)
{
	if (!w)
		return;
	free(w->roots);
	w->ops->free(w);
}

/* ---- over a tk_calltree ---- */

typedef struct tree_walk {
	tk_callwalk base;
	const tk_calltree *t;
	uint32_t at;
} tree_walk;

static int tree_next(tk_callwalk *w, tk_call *out)
{
	tree_walk *tw = (tree_walk *)w;
	if (tw->at >= tw->t->count)
		return 0;
	*out = tw->t->calls[tw->at++];
	return 1;
}

static int tree_seek(tk_callwalk *w, uint32_t n)
{
	((tree_walk *)w)->at = n;
	return 0;
}

static void tree_free(tk_callwalk *w)
{
	free(w);
}

static const tk_callwalk_ops tree_ops = {tree_next, tree_seek, tree_free};

int tk_calltree_walk(const tk_calltree *t, tk_callwalk **out)
{
	tree_walk *tw = calloc(1, sizeof *tw);
	if (!tw)
		return TK_ERR_NOMEM;
	tw->base.ops = &tree_ops;
	tw->t = t;
	tw->base.count = t->count;
	tw->base.nroots = t->nroots;
	tw->base.roots = calloc(t->nroots ? t->nroots : 1, sizeof *tw->base.roots);
	if (!tw->base.roots) {
		free(tw);
		return TK_ERR_NOMEM;
	}
	uint32_t k = 0;
	for (uint32_t r = 0; r < t->count && r != TK_CALL_NONE && k < t->nroots;
	     r = t->calls[r].next_sibling, k++) {
		uint32_t next = t->calls[r].next_sibling;
		tw->base.roots[k] = (tk_callwalk_root){t->calls[r].context, r,
						       (next == TK_CALL_NONE ? t->count : next) - r};
	}
	tw->base.nroots = k;
	*out = &tw->base;
	return 0;
}
