/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: folded stacks (see flamegraph_folded.h).
 *
 * Order.  The lines must come out sorted by their stacks (the text before
 * the value, compared as strcmp does), without building them all.  Under
 * a stack P, the stacks are P itself (first: a prefix sorts first) and,
 * for each child c, "P;c" and the block of c's descendants (all "P;c;...";
 * no other stack starts so, names having no ';').  Those units are
 * contiguous in the sorted output, so sorting them by their leading text
 * - "c" for the stack, "c;" for the block - and going depth first gives
 * the order of the whole sort, however the names relate ("f" and
 * "f + 0x8", say, whose lines interleave).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_folded.h"
#include "tracekit/error.h"

/* A distinct stack: its last function's name and its self value. */
struct node {
	uint32_t name;		/* index in names[] of a frame with this name */
	uint32_t parent;
	uint32_t first_child, next_sibling;
	uint64_t self;
};

struct tree {
	struct node *n;
	uint32_t count, cap;
	uint32_t *slots;	/* (parent, name) -> node; NONE: empty */
	uint32_t nslots;
	uint32_t *name_slots;	/* name text -> the first frame with it */
	uint32_t nname_slots;
	const char *const *names;
};

#define NONE UINT32_MAX

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a + 1) * 0x9e3779b97f4a7c15ull ^ (b + 0x7f4a7c159e3779b9ull);
	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ull ^ (h >> 29);
}

/* The canonical index of a name (the first frame carrying that text). */
static uint32_t intern(struct tree *t, uint32_t frame)
{
	const char *s = t->names[frame];
	uint32_t i = (uint32_t)(hash_str(s) & (t->nname_slots - 1));
	while (t->name_slots[i] != NONE) {
		if (!strcmp(t->names[t->name_slots[i]], s))
			return t->name_slots[i];
		i = (i + 1) & (t->nname_slots - 1);
	}
	t->name_slots[i] = frame;
	return frame;
}

/* The child of parent called name, made if needed (NONE: no room). */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t name)
{
	uint32_t i = (uint32_t)(mix(parent, name) & (t->nslots - 1));
	while (t->slots[i] != NONE) {
		const struct node *c = &t->n[t->slots[i]];
		if (c->name == name && c->parent == parent)
			return t->slots[i];
		i = (i + 1) & (t->nslots - 1);
	}
	if (t->count == t->cap)
		return NONE;
	uint32_t k = t->count++;
	t->n[k] = (struct node){name, parent, NONE, t->n[parent].first_child, 0};
	t->n[parent].first_child = k;
	t->slots[i] = k;
	return k;
}

static uint32_t pow2_at_least(uint64_t n)
{
	uint32_t p = 16;
	while (p < n && p < (1u << 31))
		p <<= 1;
	return p;
}

/* Fold the frames into the tree of distinct stacks by name, depth first
 * with an explicit stack. */
static int build(struct tree *t, const tk_stack_frame *f, uint32_t nframes, uint32_t root, bool insns)
{
	t->cap = nframes ? nframes : 1;
	t->nslots = pow2_at_least(2 * (uint64_t)t->cap);
	t->nname_slots = t->nslots;
	t->n = malloc((size_t)t->cap * sizeof *t->n);
	t->slots = malloc((size_t)t->nslots * sizeof *t->slots);
	t->name_slots = malloc((size_t)t->nname_slots * sizeof *t->name_slots);
	struct item {
		uint32_t frame, node;
	} *stack = malloc((size_t)t->cap * sizeof *stack);
	if (!t->n || !t->slots || !t->name_slots || !stack) {
		free(stack);
		return TK_ERR_NOMEM;
	}
	memset(t->slots, 0xff, (size_t)t->nslots * sizeof *t->slots);
	memset(t->name_slots, 0xff, (size_t)t->nname_slots * sizeof *t->name_slots);
	t->n[0] = (struct node){intern(t, root), NONE, NONE, NONE,
				insns ? f[root].self_insns : f[root].self_time};
	t->count = 1;
	size_t n = 0;
	stack[n++] = (struct item){root, 0};
	while (n) {
		struct item it = stack[--n];
		for (uint32_t c = f[it.frame].first_child; c != TK_CALL_NONE; c = f[c].next_sibling) {
			uint32_t k = child(t, it.node, intern(t, c));
			if (k == NONE || n == t->cap) {
				free(stack);
				return TK_ERR_NOMEM;
			}
			t->n[k].self += insns ? f[c].self_insns : f[c].self_time;
			stack[n++] = (struct item){c, k};
		}
	}
	free(stack);
	return 0;
}

/* ---- output ------------------------------------------------------------------ */

/* A unit under a stack: a child's own line (bit 0 clear) or the block of
 * its descendants (bit 0 set), as child << 1 | bit. */

/* Character i of a unit's leading text: the name, then ";" for a block;
 * -1 past the end (so a stack sorts before the stacks it is a prefix of). */
static int unit_char(const struct tree *t, uint32_t u, size_t i)
{
	const char *name = t->names[t->n[u >> 1].name];
	size_t len = strlen(name);
	if (i < len)
		return (unsigned char)name[i];
	return (u & 1) && i == len ? ';' : -1;
}

static int cmp_units(const void *a, const void *b, void *ctx)
{
	const struct tree *t = ctx;
	uint32_t ua = *(const uint32_t *)a, ub = *(const uint32_t *)b;
	for (size_t i = 0;; i++) {
		int ca = unit_char(t, ua, i), cb = unit_char(t, ub, i);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return 0;
	}
}

/* The units under node k, sorted; *count of them (malloc'd, NULL if none). */
static int units_of(const struct tree *t, uint32_t k, uint32_t **out, uint32_t *count)
{
	uint32_t n = 0;
	for (uint32_t c = t->n[k].first_child; c != NONE; c = t->n[c].next_sibling)
		n += (t->n[c].self != 0) + (t->n[c].first_child != NONE);
	*out = NULL;
	*count = n;
	if (!n)
		return 0;
	uint32_t *u = malloc((size_t)n * sizeof *u);
	if (!u)
		return TK_ERR_NOMEM;
	n = 0;
	for (uint32_t c = t->n[k].first_child; c != NONE; c = t->n[c].next_sibling) {
		if (t->n[c].self)
			u[n++] = c << 1;
		if (t->n[c].first_child != NONE)
			u[n++] = c << 1 | 1;
	}
	qsort_r(u, n, sizeof *u, cmp_units, (void *)t);
	*out = u;
	return 0;
}

struct path {
	char *s;
	size_t len, cap;
};

static int path_add(struct path *p, const char *sep, const char *name)
{
	size_t n = strlen(name), k = strlen(sep);
	if (p->len + k + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		while (cap < p->len + k + n + 1)
			cap *= 2;
		char *s = realloc(p->s, cap);
		if (!s)
			return TK_ERR_NOMEM;
		p->s = s;
		p->cap = cap;
	}
	memcpy(p->s + p->len, sep, k);
	memcpy(p->s + p->len + k, name, n);
	p->len += k + n;
	return 0;
}

static void line(FILE *fp, const struct path *p, const char *name, uint64_t v)
{
	fwrite(p->s, 1, p->len, fp);
	if (name) {
		if (p->len)
			fputc(';', fp);
		fputs(name, fp);
	}
	fprintf(fp, " %" PRIu64 "\n", v);
}

static int emit(FILE *fp, const struct tree *t, bool skip_root)
{
	struct level {
		uint32_t *units, nunits, next;
		size_t path_len;	/* the path's length at this stack */
	};
	size_t cap = 64, depth = 0;
	struct level *lv = malloc(cap * sizeof *lv);
	struct path p = {0};
	int rc = TK_ERR_NOMEM;
	if (!lv || path_add(&p, "", skip_root ? "" : t->names[t->n[0].name]))
		goto out;
	if (t->n[0].self && !skip_root)
		line(fp, &p, NULL, t->n[0].self);
	if (units_of(t, 0, &lv[0].units, &lv[0].nunits))
		goto out;
	lv[0].next = 0;
	lv[0].path_len = p.len;
	depth = 1;
	while (depth) {
		struct level *top = &lv[depth - 1];
		if (top->next == top->nunits) {
			free(top->units);
			depth--;
			continue;
		}
		uint32_t u = top->units[top->next++];
		const struct node *c = &t->n[u >> 1];
		p.len = top->path_len;
		if (!(u & 1)) {
			line(fp, &p, t->names[c->name], c->self);
			continue;
		}
		/* Into the block of c's descendants. */
		if (depth == cap) {
			struct level *nl = realloc(lv, 2 * cap * sizeof *lv);
			if (!nl)
				goto out;
			lv = nl;
			cap *= 2;
		}
		if (path_add(&p, p.len ? ";" : "", t->names[c->name]))
			goto out;
		struct level *nx = &lv[depth];
		if (units_of(t, u >> 1, &nx->units, &nx->nunits))
			goto out;
		nx->next = 0;
		nx->path_len = p.len;
		depth++;
	}
	rc = ferror(fp) ? TK_ERR_IO : 0;
out:
	while (depth)
		free(lv[--depth].units);
	free(lv);
	free(p.s);
	return rc;
}

int tk_flamegraph_folded(FILE *fp, const tk_stack_frame *frames, uint32_t nframes, uint32_t root,
			 const char *const *names, bool insns, bool skip_root)
{
	struct tree t = {.names = names};
	int rc = build(&t, frames, nframes, root, insns);
	if (rc == 0)
		rc = emit(fp, &t, skip_root);
	free(t.n);
	free(t.slots);
	free(t.name_slots);
	return rc;
}
