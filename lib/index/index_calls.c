/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call tree stored in an index, read in place.
 *
 * The CALLS section holds the tree of calls.h in preorder (root after
 * root), in groups of TK_CALL_GROUP nodes: each node's four tk_tpos are
 * delta-coded against the previous node of its group (the first node of a
 * group against zero), then its links as distances, depth, context and
 * flags.  CALLDIR gives each group's offset and the entry position of its
 * first node.  Nothing is decoded at load but the roots: node n is found
 * by decoding at most one group, a walk decodes as it goes, and finding
 * the activation containing a position binary-searches the directory
 * (preorder sorts a context's calls by entry).
 */
#include <stdlib.h>
#include <string.h>

#include "calls/callwalk.h"
#include "index_write.h"

/* ---- writing (the builder) ---- */

static void put_tpos(uint8_t *p, size_t *n, const tk_tpos *t, tk_tpos *prev)
{
	*n += tk_putv(p + *n, tk_zigzag((int64_t)(t->pos - prev->pos)));
	*n += tk_putv(p + *n, tk_zigzag((int64_t)(t->line - prev->line)));
	*n += tk_putv(p + *n, tk_zigzag((int64_t)(t->offset - prev->offset)));
	*n += tk_putv(p + *n, tk_zigzag((int64_t)(t->time - prev->time)));
	*n += tk_putv(p + *n, tk_zigzag((int64_t)(t->pc - prev->pc)));
	*prev = *t;
}

int tk_idx_calls_encode(tk_callwalk *walk, tk_spill *calls, tk_spill *dir, uint64_t *ncalls,
			uint32_t *nroots)
{
	uint32_t count = tk_callwalk_count(walk);
	*ncalls = count;
	*nroots = tk_callwalk_roots(walk);
	uint8_t buf[4 * 5 * 10 + 7 * 10 + 8];
	tk_put64(buf, count);
	tk_put32(buf + 8, *nroots);
	tk_put32(buf + 12, TK_CALL_GROUP);
	uint64_t base = calls->total;
	int err = tk_spill_write(calls, buf, TK_CALLS_HEADER);
	tk_tpos prev[4];
	tk_call c;
	for (uint32_t i = 0; i < count && !err; i++) {
		int rc = tk_callwalk_next(walk, &c);
		if (rc <= 0) {
			err = rc ? rc : TK_ERR_CORRUPT;
			break;
		}
		if (i % TK_CALL_GROUP == 0) {
			uint8_t d[TK_CALLDIR_ENTRY];
			tk_put64(d, calls->total - base);
			tk_put64(d + 8, c.entry.pos);
			if ((err = tk_spill_write(dir, d, sizeof d)))
				break;
			memset(prev, 0, sizeof prev);
		}
		size_t n = 0;
		put_tpos(buf, &n, &c.call, &prev[0]);
		put_tpos(buf, &n, &c.entry, &prev[1]);
		put_tpos(buf, &n, &c.exit, &prev[2]);
		put_tpos(buf, &n, &c.resume, &prev[3]);
		/* links as distances: parent before, children and siblings after */
		n += tk_putv(buf + n, c.parent == TK_CALL_NONE ? 0 : (uint64_t)i - c.parent);
		n += tk_putv(buf + n, c.first_child == TK_CALL_NONE ? 0 : (uint64_t)c.first_child - i);
		n += tk_putv(buf + n, c.next_sibling == TK_CALL_NONE ? 0 : (uint64_t)c.next_sibling - i);
		n += tk_putv(buf + n, c.depth);
		n += tk_putv(buf + n, c.context);
		n += tk_putv(buf + n, c.flags);
		err = tk_spill_write(calls, buf, n);
	}
	return err;
}

int tk_idx_calls_copy(tk_ixw *w, tk_spill *calls, tk_spill *dir)
{
	int err = tk_ixw_begin(w, TK_SEC_CALLS);
	if (!err)
		err = tk_spill_copy(calls, w);
	if (!err)
		err = tk_ixw_end(w);
	if (!err)
		err = tk_ixw_begin(w, TK_SEC_CALLDIR);
	if (!err)
		err = tk_spill_copy(dir, w);
	if (!err)
		err = tk_ixw_end(w);
	return err;
}

/* ---- reading ---- */

static void get_tpos(tk_rd *r, tk_tpos *t, tk_tpos *prev)
{
	t->pos = prev->pos + (uint64_t)tk_unzigzag(tk_rdv(r));
	t->line = prev->line + (uint64_t)tk_unzigzag(tk_rdv(r));
	t->offset = prev->offset + (uint64_t)tk_unzigzag(tk_rdv(r));
	t->time = prev->time + (uint64_t)tk_unzigzag(tk_rdv(r));
	t->pc = prev->pc + (uint64_t)tk_unzigzag(tk_rdv(r));
	*prev = *t;
}

static uint32_t link_at(uint32_t i, uint64_t d, bool back, bool *bad, uint64_t count)
{
	if (!d)
		return TK_CALL_NONE;
	uint64_t t = back ? i - d : i + d;
	if ((back && d > i) || t >= count) {
		*bad = true;
		return TK_CALL_NONE;
	}
	return (uint32_t)t;
}

/* A reader positioned in the CALLS section. */
typedef struct callrd {
	const tk_index *idx;
	tk_rd r;
	uint32_t next;		/* number of the node r is at */
	tk_tpos prev[4];
	const uint8_t *kept;	/* a walk: pages from here on are still mapped */
} callrd;

/* A walk gives back the pages it has read, 256 KB at a time.  A page
 * fault also maps pages after the one touched (fault-around, large
 * folios): walking backwards, those were given back already, so the range
 * given back then reaches SLACK_BYTES beyond the last one, or the walk
 * would keep a share of what it has read. */
#define RELEASE_BYTES (256u << 10)
#define SLACK_BYTES (2u << 20)

static int callrd_seek(callrd *cr, uint32_t n)
{
	const tk_index *idx = cr->idx;
	uint32_t g = n / TK_CALL_GROUP;
	uint64_t off = tk_get64(idx->calldir + (uint64_t)g * TK_CALLDIR_ENTRY);
	cr->r = (tk_rd){idx->calls + off, idx->calls + idx->calls_len, false};
	cr->next = g * TK_CALL_GROUP;
	return 0;
}

/* Decode the node cr is at. */
static int callrd_one(callrd *cr, tk_call *c)
{
	const tk_index *idx = cr->idx;
	uint32_t i = cr->next;
	if (i >= idx->ncalls)
		return 0;
	if (i % TK_CALL_GROUP == 0)
		memset(cr->prev, 0, sizeof cr->prev);
	tk_rd *r = &cr->r;
	bool bad = false;
	get_tpos(r, &c->call, &cr->prev[0]);
	get_tpos(r, &c->entry, &cr->prev[1]);
	get_tpos(r, &c->exit, &cr->prev[2]);
	get_tpos(r, &c->resume, &cr->prev[3]);
	c->parent = link_at(i, tk_rdv(r), true, &bad, idx->ncalls);
	c->first_child = link_at(i, tk_rdv(r), false, &bad, idx->ncalls);
	c->next_sibling = link_at(i, tk_rdv(r), false, &bad, idx->ncalls);
	c->depth = (uint32_t)tk_rdv(r);
	c->context = (uint32_t)tk_rdv(r);
	c->flags = (uint32_t)tk_rdv(r);
	bool root = c->parent == TK_CALL_NONE;
	if (r->err || bad || (i == 0 && !root) || root != !!(c->flags & TK_CALL_ROOT) ||
	    (root && c->depth) || c->entry.pos > c->exit.pos)
		return TK_ERR_CORRUPT;
	cr->next++;
	return 1;
}

int tk_index_get_call(const tk_index *idx, uint32_t n, tk_call *out)
{
	if (n >= idx->ncalls)
		return TK_ERR_NOTFOUND;
	callrd cr = {.idx = idx};
	callrd_seek(&cr, n);
	for (;;) {
		int rc = callrd_one(&cr, out);
		if (rc <= 0)
			return rc ? rc : TK_ERR_CORRUPT;
		if (cr.next == n + 1)
			return 0;
	}
}

int tk_idx_calls_decode(tk_index *idx, const uint8_t *p, uint64_t len, const uint8_t *dir,
			uint64_t dirlen)
{
	if (len < TK_CALLS_HEADER)
		return TK_ERR_CORRUPT;
	uint64_t n = tk_get64(p);
	uint32_t nroots = tk_get32(p + 8);
	if (tk_get32(p + 12) != TK_CALL_GROUP || n >= UINT32_MAX || nroots > n ||
	    (n && !nroots) || n > (len - TK_CALLS_HEADER) / 24 + 1)
		return TK_ERR_CORRUPT;
	uint64_t ngroups = (n + TK_CALL_GROUP - 1) / TK_CALL_GROUP;
	if (dirlen != ngroups * TK_CALLDIR_ENTRY)
		return TK_ERR_CORRUPT;
	for (uint64_t g = 0; g < ngroups; g++) {
		uint64_t off = tk_get64(dir + g * TK_CALLDIR_ENTRY);
		if (off < TK_CALLS_HEADER || off >= len ||
		    (g && off <= tk_get64(dir + (g - 1) * TK_CALLDIR_ENTRY)))
			return TK_ERR_CORRUPT;
	}
	idx->calls = p;
	idx->calls_len = len;
	idx->calldir = dir;
	idx->ncalls = (uint32_t)n;
	idx->nroots = 0;
	if (!n)
		return 0;
	/* The roots, one per context: node 0 and its next siblings. */
	idx->roots = calloc(nroots, sizeof *idx->roots);
	idx->root_nodes = calloc(nroots, sizeof *idx->root_nodes);
	if (!idx->roots || !idx->root_nodes)
		return TK_ERR_NOMEM;
	uint32_t r = 0;
	for (uint32_t k = 0; k < nroots; k++) {
		if (r == TK_CALL_NONE || tk_index_get_call(idx, r, &idx->roots[k]) ||
		    !(idx->roots[k].flags & TK_CALL_ROOT))
			return TK_ERR_CORRUPT;
		idx->root_nodes[k] = r;
		r = idx->roots[k].next_sibling;
	}
	if (r != TK_CALL_NONE)
		return TK_ERR_CORRUPT;
	idx->nroots = nroots;
	return 0;
}

uint32_t tk_index_call_count(const tk_index *idx)
{
	return idx->ncalls;
}

uint32_t tk_index_call_roots(const tk_index *idx)
{
	return idx->nroots;
}

int tk_index_get_call_pos(const tk_index *idx, uint32_t n, tk_index_call_pos *out)
{
	tk_call c;
	int rc = tk_index_get_call(idx, n, &c);
	if (rc < 0)
		return rc;
	bool root = c.parent == TK_CALL_NONE;
	out->call = root ? TK_POS_NONE : c.call.pos;
	out->entry = c.entry.pos;
	out->exit = c.exit.pos;
	out->resume = root ? TK_POS_NONE : c.resume.pos;
	return 0;
}

/* Entry position of node n. */
static int entry_of(const tk_index *idx, uint32_t n, uint64_t *pos)
{
	if (n % TK_CALL_GROUP == 0) {
		*pos = tk_get64(idx->calldir + (uint64_t)(n / TK_CALL_GROUP) * TK_CALLDIR_ENTRY + 8);
		return 0;
	}
	tk_call c;
	int rc = tk_index_get_call(idx, n, &c);
	*pos = c.entry.pos;
	return rc;
}

int tk_index_call_at(const tk_index *idx, uint64_t pos, uint32_t *call)
{
	if (pos >= idx->ninsn || !idx->ncalls)
		return TK_ERR_NOTFOUND;
	tk_index_pos p;
	int rc = tk_index_get_pos(idx, pos, &p);
	if (rc < 0)
		return rc;
	/* The root of the position's context (the first root if none has it). */
	uint32_t k = 0;
	for (uint32_t i = 0; i < idx->nroots; i++)
		if (idx->roots[i].context == p.context) {
			k = i;
			break;
		}
	uint32_t root = idx->root_nodes[k];
	uint32_t end = k + 1 < idx->nroots ? idx->root_nodes[k + 1] : idx->ncalls;
	/* In the root's subtree (preorder: [root, end), sorted by entry), the
	 * last node entered at or before pos; if it has already returned, the
	 * answer is one of its ancestors (calls nest).  First the group starts
	 * inside the range (the directory has their entries), then one group. */
	uint32_t g_lo = (root + TK_CALL_GROUP) / TK_CALL_GROUP;	/* first start > root */
	uint32_t g_hi = (end - 1) / TK_CALL_GROUP;			/* last start < end */
	uint32_t from = root + 1;
	if (g_lo <= g_hi) {
		uint32_t lo = g_lo, hi = g_hi + 1;	/* last start with entry <= pos */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			uint64_t e;
			if ((rc = entry_of(idx, mid * TK_CALL_GROUP, &e)) < 0)
				return rc;
			if (e <= pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > g_lo)
			from = (lo - 1) * TK_CALL_GROUP;
	}
	uint32_t c = root;
	tk_call node;
	callrd cr = {.idx = idx};
	if (from < end) {
		callrd_seek(&cr, from);
		while (cr.next < end) {
			uint32_t i = cr.next;
			rc = callrd_one(&cr, &node);
			if (rc <= 0)
				return rc ? rc : TK_ERR_CORRUPT;
			if (i < from)
				continue;
			if (node.entry.pos > pos)
				break;
			c = i;
		}
	}
	while (c != root) {
		if ((rc = tk_index_get_call(idx, c, &node)) < 0)
			return rc;
		if (node.exit.pos >= pos)
			break;
		c = node.parent;
		if (c == TK_CALL_NONE)
			return TK_ERR_CORRUPT;
	}
	*call = c;
	return 0;
}

/* ---- walking ---- */

typedef struct index_walk {
	tk_callwalk base;
	callrd cr;
	tk_index *owned;	/* freed with the walk */
} index_walk;

static int iw_next(tk_callwalk *w, tk_call *out)
{
	callrd *cr = &((index_walk *)w)->cr;
	if (!cr->kept)
		cr->kept = cr->r.p;
	if ((size_t)(cr->r.p - cr->kept) >= RELEASE_BYTES) {
		tk_idx_release(cr->idx, cr->kept, cr->r.p);
		cr->kept = cr->r.p;
	}
	return callrd_one(cr, out);
}

static int iw_seek(tk_callwalk *w, uint32_t n)
{
	index_walk *iw = (index_walk *)w;
	if (n >= iw->cr.idx->ncalls)
		return TK_ERR_INVAL;
	callrd_seek(&iw->cr, n);
	tk_call skip;
	while (iw->cr.next < n) {
		int rc = callrd_one(&iw->cr, &skip);
		if (rc <= 0)
			return rc ? rc : TK_ERR_CORRUPT;
	}
	return 0;
}

static void iw_free(tk_callwalk *w)
{
	tk_index_free(((index_walk *)w)->owned);
	free(w);
}

static const tk_callwalk_ops index_walk_ops = {iw_next, iw_seek, iw_free};

int tk_index_calls_walk(const tk_index *idx, uint32_t from, tk_callwalk **out)
{
	*out = NULL;
	if (from > idx->ncalls)
		return TK_ERR_NOTFOUND;
	index_walk *w = calloc(1, sizeof *w);
	if (!w)
		return TK_ERR_NOMEM;
	w->base.ops = &index_walk_ops;
	w->base.count = idx->ncalls;
	w->base.nroots = idx->nroots;
	w->base.roots = calloc(idx->nroots ? idx->nroots : 1, sizeof *w->base.roots);
	if (!w->base.roots) {
		free(w);
		return TK_ERR_NOMEM;
	}
	for (uint32_t k = 0; k < idx->nroots; k++) {
		uint32_t end = k + 1 < idx->nroots ? idx->root_nodes[k + 1] : idx->ncalls;
		w->base.roots[k] = (tk_callwalk_root){idx->roots[k].context, idx->root_nodes[k],
						      end - idx->root_nodes[k]};
	}
	w->cr.idx = idx;
	if (idx->ncalls && from < idx->ncalls) {
		int rc = iw_seek(&w->base, from);
		if (rc < 0) {
			tk_callwalk_free(&w->base);
			return rc;
		}
	} else {
		w->cr.next = idx->ncalls;
	}
	w->base.read = from;
	*out = &w->base;
	return 0;
}

int tk_index_calls_walk_own(tk_index *idx, tk_callwalk **out)
{
	int rc = tk_index_calls_walk(idx, 0, out);
	if (rc < 0) {
		tk_index_free(idx);
		return rc;
	}
	((index_walk *)*out)->owned = idx;
	return 0;
}

/* ---- replaying to a sink ---- */

/* As tk_calltree_replay, walking the groups backwards: in reverse preorder
 * every call comes after its callees, and the forests still being built
 * belong to the ancestors of the current node, one per depth (when a node
 * of depth d is reached, everything deeper has been taken by its owners,
 * and forest[d + 1] holds its children). */
int tk_index_calls_replay(const tk_index *idx, const tk_calls_sink *sink)
{
	uint32_t n = idx->ncalls;
	if (!n)
		return 0;
	tk_call *grp = malloc(TK_CALL_GROUP * sizeof *grp);
	uint32_t *roots = malloc(idx->nroots * sizeof *roots);
	uint32_t *forest = NULL;
	size_t fcap = 0;
	int rc = grp && roots ? 0 : TK_ERR_NOMEM;
	uint32_t ngroups = (n + TK_CALL_GROUP - 1) / TK_CALL_GROUP;
	uint32_t k_root = idx->nroots;
	const uint8_t *kept = idx->calls + idx->calls_len;	/* read down to here */
	for (uint32_t g = ngroups; g-- > 0 && rc == 0;) {
		callrd cr = {.idx = idx};
		callrd_seek(&cr, g * TK_CALL_GROUP);
		if ((size_t)(kept - cr.r.p) >= RELEASE_BYTES) {
			const uint8_t *end = idx->calls + idx->calls_len;
			tk_idx_release(idx, cr.r.p,
				       (size_t)(end - kept) > SLACK_BYTES ? kept + SLACK_BYTES : end);
			kept = cr.r.p;
		}
		uint32_t k = 0;
		while (rc == 0 && k < TK_CALL_GROUP && cr.next < n) {
			rc = callrd_one(&cr, &grp[k]);
			if (rc == 1) {
				rc = 0;
				k++;
			}
		}
		for (uint32_t j = k; j-- > 0 && rc == 0;) {
			const tk_call *c = &grp[j];
			size_t d = c->depth;
			if (d + 2 > fcap) {
				size_t cap = fcap ? 2 * fcap : 64;
				while (cap < d + 2)
					cap *= 2;
				uint32_t *f = realloc(forest, cap * sizeof *f);
				if (!f) {
					rc = TK_ERR_NOMEM;
					break;
				}
				for (size_t x = fcap; x < cap; x++)
					f[x] = TK_CALL_NONE;
				forest = f;
				fcap = cap;
			}
			uint32_t kids = forest[d + 1];
			forest[d + 1] = TK_CALL_NONE;
			if (c->parent == TK_CALL_NONE) {
				/* a root: finished below, in order */
				if (!k_root) {
					rc = TK_ERR_CORRUPT;
					break;
				}
				roots[--k_root] = kids;
				continue;
			}
			uint32_t f;
			rc = sink->confirm(sink->ctx, c, kids, &f);
			if (rc == 0 && f != TK_CALL_NONE && forest[d] != TK_CALL_NONE)
				rc = sink->join(sink->ctx, f, forest[d], &f);
			if (rc == 0 && f != TK_CALL_NONE)
				forest[d] = f;
		}
	}
	if (rc == 0 && k_root)
		rc = TK_ERR_CORRUPT;
	for (uint32_t k = 0; rc == 0 && k < idx->nroots; k++)
		rc = sink->finish(sink->ctx, &idx->roots[k], roots[k]);
	free(grp);
	free(roots);
	free(forest);
	return rc;
}
