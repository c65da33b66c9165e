/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit flamegraph --source-lines: the labelled tree (see flamegraph_lines.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_lines.h"
#include "tracekit/error.h"

static int add_node(tk_fg_lines *t, uint32_t *cap, char *name, uint32_t *out)
{
	if (t->count == *cap) {
		uint32_t ncap = *cap ? 2 * *cap : 256;
		tk_stack_frame *nf = realloc(t->frames, ncap * sizeof *nf);
		if (!nf)
			return TK_ERR_NOMEM;
		t->frames = nf;
		char **nn = realloc(t->names, ncap * sizeof *nn);
		if (!nn)
			return TK_ERR_NOMEM;
		t->names = nn;
		*cap = ncap;
	}
	memset(&t->frames[t->count], 0, sizeof t->frames[t->count]);
	t->frames[t->count].first_child = t->frames[t->count].next_sibling = TK_CALL_NONE;
	t->names[t->count] = name;
	*out = t->count++;
	return 0;
}

/* The child of parent labelled "name@line" (made if needed). */
static int child(tk_fg_lines *t, uint32_t *cap, uint32_t parent, const char *name,
		 const char *line, uint32_t *out)
{
	size_t n = strlen(name) + (line ? strlen(line) + 1 : 0) + 1;
	char *label = malloc(n);
	if (!label)
		return TK_ERR_NOMEM;
	snprintf(label, n, "%s%s%s", name, line ? "@" : "", line ? line : "");
	for (uint32_t c = t->frames[parent].first_child; c != TK_CALL_NONE;
	     c = t->frames[c].next_sibling)
		if (!strcmp(t->names[c], label)) {
			free(label);
			*out = c;
			return 0;
		}
	int rc = add_node(t, cap, label, out);
	if (rc) {
		free(label);
		return rc;
	}
	t->frames[*out].next_sibling = t->frames[parent].first_child;
	t->frames[parent].first_child = *out;
	return 0;
}

/* Totals: each node's self plus its children's totals.  A child is always
 * made after its parent, so one pass from the last node adds each finished
 * total to its parent. */
static int sum(tk_fg_lines *t)
{
	uint32_t *parent = malloc((t->count ? t->count : 1) * sizeof *parent);
	if (!parent)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < t->count; i++) {
		t->frames[i].total_time = t->frames[i].self_time;
		t->frames[i].total_insns = t->frames[i].self_insns;
		parent[i] = TK_CALL_NONE;
	}
	for (uint32_t i = 0; i < t->count; i++)
		for (uint32_t c = t->frames[i].first_child; c != TK_CALL_NONE;
		     c = t->frames[c].next_sibling)
			parent[c] = i;
	for (uint32_t i = t->count; i-- > 1;) {
		if (parent[i] == TK_CALL_NONE)
			continue;
		t->frames[parent[i]].total_time += t->frames[i].total_time;
		t->frames[parent[i]].total_insns += t->frames[i].total_insns;
	}
	free(parent);
	return 0;
}

int tk_fg_lines_build(const tk_stack_frame *frames, uint32_t root, const char *const *names,
		      tk_srclines *lines, tk_fg_lines *out)
{
	memset(out, 0, sizeof *out);
	uint32_t cap = 0;
	char *all = strdup("all");
	int rc = all ? add_node(out, &cap, all, &out->root) : TK_ERR_NOMEM;
	if (rc) {
		free(all);
		return rc;
	}
	/* Depth-first over the profile: (frame, the node it hangs under). */
	struct item { uint32_t frame, under; } *stack = NULL;
	size_t n = 0, scap = 0;
#define PUSH(fr, un)                                                              \
	do {                                                                      \
		if (n == scap) {                                                  \
			scap = scap ? 2 * scap : 64;                              \
			struct item *ns = realloc(stack, scap * sizeof *ns);      \
			if (!ns) {                                                \
				rc = TK_ERR_NOMEM;                                \
				goto done;                                        \
			}                                                         \
			stack = ns;                                               \
		}                                                                 \
		stack[n++] = (struct item){fr, un};                               \
	} while (0)
	PUSH(root, out->root);
	while (n) {
		struct item it = stack[--n];
		const tk_stack_frame *f = &frames[it.frame];
		uint32_t self;
		if ((rc = child(out, &cap, it.under, names[it.frame],
				tk_srclines_get(lines, f->addr), &self)) != 0)
			goto done;
		out->frames[self].addr = f->addr;
		out->frames[self].calls += f->calls;
		out->frames[self].self_time += f->self_time;
		out->frames[self].self_insns += f->self_insns;
		for (uint32_t c = f->first_child; c != TK_CALL_NONE; c = frames[c].next_sibling) {
			uint32_t at;
			if ((rc = child(out, &cap, it.under, names[it.frame],
					tk_srclines_get(lines, frames[c].site), &at)) != 0)
				goto done;
			out->frames[at].addr = f->addr;
			PUSH(c, at);
		}
	}
	rc = sum(out);
done:
	free(stack);
	if (rc)
		tk_fg_lines_free(out);
	return rc;
#undef PUSH
}

void tk_fg_lines_free(tk_fg_lines *fl)
{
	for (uint32_t i = 0; i < fl->count; i++)
		free(fl->names[i]);
	free(fl->names);
	free(fl->frames);
	memset(fl, 0, sizeof *fl);
}
