/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: folding confirmed calls into a tree of distinct call stacks.
 *
 * A forest (the detector's opaque handle) is the head of a sibling list of
 * frames, at most one per function address.  Confirming a call makes a
 * frame whose children are the forest of its callees; joining two forests
 * merges frames of the same function, recursively.  Merged-away frames go
 * to a free list, so the steady state allocates nothing.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "tracekit/calls.h"
#include "tracekit/error.h"

struct tk_callstacks {
	tk_stack_frame *f;
	uint32_t count, cap;
	uint32_t free_list;	/* linked through next_sibling */
	uint32_t root, last_root;	/* the roots, linked through next_sibling */
	struct work *work;	/* merges still to do */
	size_t nwork, workcap;
	bool by_site;		/* frames differ by call site too */
};

static int alloc_frame(tk_callstacks *s, uint32_t *out)
{
	if (s->free_list != TK_CALL_NONE) {
		*out = s->free_list;
		s->free_list = s->f[*out].next_sibling;
		return 0;
	}
	if (s->count == s->cap) {
		if (s->cap >= UINT32_MAX / 2)
			return TK_ERR_NOMEM;
		uint32_t cap = s->cap ? s->cap * 2 : 256;
		tk_stack_frame *n = realloc(s->f, (size_t)cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		s->f = n;
		s->cap = cap;
	}
	*out = s->count++;
	return 0;
}

/* A pending merge: list `list` goes into the children of `owner` (or
 * into the top-level list being built, if owner is TK_CALL_NONE). */
struct work {
	uint32_t owner, list;
};

static int push_work(tk_callstacks *s, uint32_t owner, uint32_t list)
{
	if (s->nwork == s->workcap) {
		size_t cap = s->workcap ? 2 * s->workcap : 64;
		struct work *w = realloc(s->work, cap * sizeof *w);
		if (!w)
			return TK_ERR_NOMEM;
		s->work = w;
		s->workcap = cap;
	}
	s->work[s->nwork++] = (struct work){owner, list};
	return 0;
}

/* Merge sibling list b into sibling list a; *out gets the new head.  Two
 * frames of the same function fold into one, their children merged in
 * turn: iteratively, as stacks may be a million frames deep.  Folded-away
 * frames go to the free list. */
static int merge(tk_callstacks *s, uint32_t a, uint32_t b, uint32_t *out)
{
	uint32_t top = a;
	s->nwork = 0;
	int rc = push_work(s, TK_CALL_NONE, b);
	while (rc == 0 && s->nwork) {
		struct work w = s->work[--s->nwork];
		uint32_t *head = w.owner == TK_CALL_NONE ? &top : &s->f[w.owner].first_child;
		for (uint32_t x = w.list, next; x != TK_CALL_NONE && rc == 0; x = next) {
			next = s->f[x].next_sibling;
			uint32_t y = *head;
			while (y != TK_CALL_NONE &&
			       (s->f[y].addr != s->f[x].addr ||
				(s->by_site && s->f[y].site != s->f[x].site)))
				y = s->f[y].next_sibling;
			if (y == TK_CALL_NONE) {
				s->f[x].next_sibling = *head;
				*head = x;
				continue;
			}
			tk_stack_frame *fy = &s->f[y], *fx = &s->f[x];
			fy->calls += fx->calls;
			fy->total_time += fx->total_time;
			fy->self_time += fx->self_time;
			fy->total_insns += fx->total_insns;
			fy->self_insns += fx->self_insns;
			uint32_t kids = fx->first_child;
			fx->next_sibling = s->free_list;
			s->free_list = x;
			if (kids != TK_CALL_NONE)
				rc = push_work(s, y, kids);
		}
	}
	*out = top;
	return rc;
}

static int make_frame(tk_callstacks *s, const tk_call *call, uint32_t children, uint32_t *out)
{
	uint32_t i;
	int rc = alloc_frame(s, &i);
	if (rc < 0)
		return rc;
	tk_stack_frame *f = &s->f[i];
	f->addr = call->entry.pc;
	f->context = call->context;
	f->site = s->by_site ? call->call.pc : 0;
	f->calls = 1;
	f->total_time = call->exit.time >= call->entry.time ? call->exit.time - call->entry.time : 0;
	f->total_insns = call->exit.pos - call->entry.pos + 1;
	uint64_t kt = 0, ki = 0;
	for (uint32_t c = children; c != TK_CALL_NONE; c = s->f[c].next_sibling) {
		kt += s->f[c].total_time;
		ki += s->f[c].total_insns;
	}
	/* Timestamps going backwards could make self negative: clamp. */
	f->self_time = f->total_time > kt ? f->total_time - kt : 0;
	f->self_insns = f->total_insns > ki ? f->total_insns - ki : 0;
	f->first_child = children;
	f->next_sibling = TK_CALL_NONE;
	*out = i;
	return 0;
}

static int confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	return make_frame(ctx, call, children, out);
}

static int join(void *ctx, uint32_t first, uint32_t second, uint32_t *out)
{
	return merge(ctx, first, second, out);
}

static int finish(void *ctx, const tk_call *root, uint32_t children)
{
	tk_callstacks *s = ctx;
	uint32_t r;
	int rc = make_frame(s, root, children, &r);
	if (rc < 0)
		return rc;
	if (s->root == TK_CALL_NONE)
		s->root = r;
	else
		s->f[s->last_root].next_sibling = r;
	s->last_root = r;
	return 0;
}

int tk_callstacks_new(tk_callstacks **out, tk_calls_sink *sink)
{
	tk_callstacks *s = calloc(1, sizeof *s);
	*out = s;
	if (!s)
		return TK_ERR_NOMEM;
	s->free_list = s->root = s->last_root = TK_CALL_NONE;
	s->by_site = false;
	sink->ctx = s;
	sink->confirm = confirm;
	sink->join = join;
	sink->finish = finish;
	return 0;
}

int tk_callstacks_new_by_site(tk_callstacks **out, tk_calls_sink *sink)
{
	int rc = tk_callstacks_new(out, sink);
	if (rc == 0)
		(*out)->by_site = true;
	return rc;
}

const tk_stack_frame *tk_callstacks_frames(const tk_callstacks *s, uint32_t *count,
					   uint32_t *root)
{
	*count = s->count;
	*root = s->root;
	return s->f;
}

void tk_callstacks_free(tk_callstacks *s)
{
	if (!s)
		return;
	free(s->f);
	free(s->work);
	free(s);
}
