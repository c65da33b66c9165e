/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: building a tk_calltree from the call detector's confirmations.
 *
 * While the trace streams, confirmed calls are appended to an array in the
 * order they are confirmed (return order).  A forest is a circular list of
 * siblings linked through next_sibling, and its handle is the *last* node:
 * last->next_sibling is the first, so two forests are concatenated in O(1)
 * by swapping two links.  first_child holds the children forest's handle.
 * At the end the tree is renumbered in preorder (call order), with proper
 * parent, depth and NONE-terminated sibling lists.
 */
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "tracekit/error.h"

struct tk_calltree_builder {
	tk_call *nodes;
	uint32_t count, cap;
	uint32_t *roots;	/* node of each context's root, in order */
	uint32_t nroots, rootcap;
	tk_calltree *tree;	/* built by take */
};

static int add_node(tk_calltree_builder *b, const tk_call *call, uint32_t children,
		    uint32_t *out)
{
	if (b->count == b->cap) {
		if (b->cap >= UINT32_MAX / 2)
			return TK_ERR_NOMEM;
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		tk_call *n = realloc(b->nodes, (size_t)cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		b->nodes = n;
		b->cap = cap;
	}
	uint32_t i = b->count++;
	tk_call *n = &b->nodes[i];
	n->call = call->call;
	n->entry = call->entry;
	n->exit = call->exit;
	n->resume = call->resume;
	n->context = call->context;
	n->flags = call->flags;
	n->first_child = children;
	n->next_sibling = i;	/* a one-node circular list */
	n->parent = TK_CALL_NONE;
	n->depth = 0;
	*out = i;
	return 0;
}

static int confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	return add_node(ctx, call, children, out);
}

static int join(void *ctx, uint32_t first, uint32_t second, uint32_t *out)
{
	tk_calltree_builder *b = ctx;
	if (first == TK_CALL_NONE || second == TK_CALL_NONE) {
		*out = first == TK_CALL_NONE ? second : first;
		return 0;
	}
	uint32_t head1 = b->nodes[first].next_sibling;
	b->nodes[first].next_sibling = b->nodes[second].next_sibling;
	b->nodes[second].next_sibling = head1;
	*out = second;
	return 0;
}

struct frame {
	uint32_t old;		/* node in b->nodes */
	uint32_t now;		/* its index in the tree */
	uint32_t next;		/* next child to visit (old index), or NONE */
	uint32_t last_new;	/* last child placed (tree index), or NONE */
};

/* Renumber the confirmed nodes in preorder, root after root, without
 * recursion (call trees can be a million deep). */
static int build(tk_calltree_builder *b)
{
	tk_calltree *t = calloc(1, sizeof *t);
	tk_call *out = b->count ? malloc((size_t)b->count * sizeof *out) : NULL;
	size_t fcap = 64, nf = 0;
	struct frame *st = malloc(fcap * sizeof *st);
	if (!t || (b->count && !out) || !st) {
		free(t);
		free(out);
		free(st);
		return TK_ERR_NOMEM;
	}
	uint32_t n = 0, prev_root = TK_CALL_NONE;
	for (uint32_t r = 0; r < b->nroots; r++) {
		uint32_t root = b->roots[r];
		out[n] = b->nodes[root];
		out[n].parent = TK_CALL_NONE;
		out[n].depth = 0;
		out[n].first_child = out[n].next_sibling = TK_CALL_NONE;
		if (prev_root != TK_CALL_NONE)
			out[prev_root].next_sibling = n;
		prev_root = n;
		uint32_t tail = b->nodes[root].first_child;
		st[nf++] = (struct frame){root, n++, tail == TK_CALL_NONE ? TK_CALL_NONE :
					  b->nodes[tail].next_sibling, TK_CALL_NONE};
		while (nf) {
			struct frame *f = &st[nf - 1];
			if (f->next == TK_CALL_NONE) {
				nf--;
				continue;
			}
			uint32_t c = f->next;
			f->next = c == b->nodes[f->old].first_child ? TK_CALL_NONE
								    : b->nodes[c].next_sibling;
			uint32_t k = n++;
			out[k] = b->nodes[c];
			out[k].parent = f->now;
			out[k].depth = out[f->now].depth + 1;
			out[k].first_child = out[k].next_sibling = TK_CALL_NONE;
			if (f->last_new == TK_CALL_NONE)
				out[f->now].first_child = k;
			else
				out[f->last_new].next_sibling = k;
			f->last_new = k;
			if (nf == fcap) {
				struct frame *ns = realloc(st, 2 * fcap * sizeof *st);
				if (!ns) {
					free(t);
					free(out);
					free(st);
					return TK_ERR_NOMEM;
				}
				st = ns;
				fcap *= 2;
			}
			tail = b->nodes[c].first_child;
			st[nf++] = (struct frame){c, k, tail == TK_CALL_NONE ? TK_CALL_NONE :
						  b->nodes[tail].next_sibling, TK_CALL_NONE};
		}
	}
	free(st);
	free(b->nodes);
	b->nodes = NULL;
	b->count = b->cap = 0;
	t->calls = out;
	t->count = n;
	t->nroots = b->nroots;
	b->tree = t;
	return 0;
}

static int finish(void *ctx, const tk_call *root, uint32_t children)
{
	tk_calltree_builder *b = ctx;
	uint32_t r;
	int rc = add_node(b, root, children, &r);
	if (rc < 0)
		return rc;
	if (b->nroots == b->rootcap) {
		uint32_t cap = b->rootcap ? 2 * b->rootcap : 4;
		uint32_t *n = realloc(b->roots, cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		b->roots = n;
		b->rootcap = cap;
	}
	b->roots[b->nroots++] = r;
	return 0;
}

int tk_calltree_builder_new(tk_calltree_builder **out, tk_calls_sink *sink)
{
	tk_calltree_builder *b = calloc(1, sizeof *b);
	*out = b;
	if (!b)
		return TK_ERR_NOMEM;
	sink->ctx = b;
	sink->confirm = confirm;
	sink->join = join;
	sink->finish = finish;
	return 0;
}

int tk_calltree_builder_take(tk_calltree_builder *b, tk_calltree **out)
{
	*out = NULL;
	if (b->nroots && !b->tree) {
		int rc = build(b);
		if (rc < 0)
			return rc;
	}
	*out = b->tree;
	b->tree = NULL;
	return 0;
}

void tk_calltree_builder_free(tk_calltree_builder *b)
{
	if (!b)
		return;
	free(b->nodes);
	free(b->roots);
	tk_calltree_free(b->tree);
	free(b);
}

int tk_calltree_replay(const tk_calltree *t, const tk_calls_sink *sink)
{
	if (!t->count)
		return 0;
	/* forest[i]: what call i's children made so far.  In reverse preorder
	 * every call comes after its callees, and later siblings before
	 * earlier ones, so each result is prepended to its parent's forest. */
	uint32_t *forest = malloc((size_t)t->count * sizeof *forest);
	if (!forest)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < t->count; i++)
		forest[i] = TK_CALL_NONE;
	int rc = 0;
	for (uint32_t i = t->count; i-- > 0 && rc == 0;) {
		uint32_t f, p = t->calls[i].parent;
		if (p == TK_CALL_NONE)
			continue;	/* a root: finished below, in order */
		rc = sink->confirm(sink->ctx, &t->calls[i], forest[i], &f);
		if (rc == 0 && f != TK_CALL_NONE && forest[p] != TK_CALL_NONE)
			rc = sink->join(sink->ctx, f, forest[p], &f);
		if (rc == 0 && f != TK_CALL_NONE)
			forest[p] = f;
	}
	for (uint32_t r = 0; r != TK_CALL_NONE && r < t->count && rc == 0;
	     r = t->calls[r].next_sibling)
		rc = sink->finish(sink->ctx, &t->calls[r], forest[r]);
	free(forest);
	return rc;
}

void tk_calltree_free(tk_calltree *t)
{
	if (!t)
		return;
	free(t->calls);
	free(t);
}

int tk_calltree_keep_context(tk_calltree *t, uint32_t context)
{
	uint32_t r = 0;
	while (r < t->count && r != TK_CALL_NONE && t->calls[r].context != context)
		r = t->calls[r].next_sibling;
	if (r >= t->count)
		return TK_ERR_NOTFOUND;
	uint32_t end = t->calls[r].next_sibling == TK_CALL_NONE ? t->count
							       : t->calls[r].next_sibling;
	/* The subtree is [r, end) in preorder: shift it to 0. */
	for (uint32_t i = r; i < end; i++) {
		tk_call c = t->calls[i];
		c.parent = c.parent == TK_CALL_NONE ? TK_CALL_NONE : c.parent - r;
		c.first_child = c.first_child == TK_CALL_NONE ? TK_CALL_NONE : c.first_child - r;
		c.next_sibling = c.next_sibling == TK_CALL_NONE || i == r ? TK_CALL_NONE
									 : c.next_sibling - r;
		t->calls[i - r] = c;
	}
	t->count = end - r;
	t->nroots = 1;
	return 0;
}
