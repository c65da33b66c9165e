/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call tree stored in an index.
 *
 * The CALLS section holds the tree exactly as the call detector built it
 * (calls.h), nodes in preorder (root after root), each field delta-coded
 * against the same field of the previous node, then its context and flags.  It is decoded once when the index is
 * opened.  Preorder means nodes are sorted by call time, which is what
 * finding the activation containing a position uses.
 */
#include <stdlib.h>
#include <string.h>

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

int tk_idx_calls_write(tk_ixw *w, const tk_calltree *t)
{
	int err = tk_ixw_begin(w, TK_SEC_CALLS);
	if (err)
		return err;
	uint8_t buf[4 * 5 * 10 + 7 * 10 + 8];
	size_t n = tk_putv(buf, t->count);
	if ((err = tk_ixw_write(w, buf, n)))
		return err;
	tk_tpos prev[4] = {{0}};
	for (uint32_t i = 0; i < t->count && !err; i++) {
		const tk_call *c = &t->calls[i];
		n = 0;
		put_tpos(buf, &n, &c->call, &prev[0]);
		put_tpos(buf, &n, &c->entry, &prev[1]);
		put_tpos(buf, &n, &c->exit, &prev[2]);
		put_tpos(buf, &n, &c->resume, &prev[3]);
		/* links as distances: parent before, children and siblings after */
		n += tk_putv(buf + n, c->parent == TK_CALL_NONE ? 0 : (uint64_t)i - c->parent);
		n += tk_putv(buf + n, c->first_child == TK_CALL_NONE ? 0 : (uint64_t)c->first_child - i);
		n += tk_putv(buf + n, c->next_sibling == TK_CALL_NONE ? 0 : (uint64_t)c->next_sibling - i);
		n += tk_putv(buf + n, c->depth);
		n += tk_putv(buf + n, c->context);
		n += tk_putv(buf + n, c->flags);
		err = tk_ixw_write(w, buf, n);
	}
	return err ? err : tk_ixw_end(w);
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

int tk_idx_calls_decode(tk_index *idx, const uint8_t *p, uint64_t len)
{
	tk_rd r = {p, p + len, false};
	uint64_t n = tk_rdv(&r);
	/* Each node takes at least 24 bytes: a cheap bound before allocating. */
	if (r.err || n > len / 24 + 1 || n >= UINT32_MAX)
		return TK_ERR_CORRUPT;
	idx->tree.count = 0;
	if (!n)
		return 0;
	idx->tree.calls = calloc(n, sizeof *idx->tree.calls);
	idx->callpos = malloc(n * 4 * sizeof *idx->callpos);
	if (!idx->tree.calls || !idx->callpos)
		return TK_ERR_NOMEM;
	tk_tpos prev[4];
	memset(prev, 0, sizeof prev);
	bool bad = false;
	uint32_t nroots = 0;
	for (uint32_t i = 0; i < n; i++) {
		tk_call *c = &idx->tree.calls[i];
		get_tpos(&r, &c->call, &prev[0]);
		get_tpos(&r, &c->entry, &prev[1]);
		get_tpos(&r, &c->exit, &prev[2]);
		get_tpos(&r, &c->resume, &prev[3]);
		c->parent = link_at(i, tk_rdv(&r), true, &bad, n);
		c->first_child = link_at(i, tk_rdv(&r), false, &bad, n);
		c->next_sibling = link_at(i, tk_rdv(&r), false, &bad, n);
		c->depth = (uint32_t)tk_rdv(&r);
		c->context = (uint32_t)tk_rdv(&r);
		c->flags = (uint32_t)tk_rdv(&r);
		bool root = c->parent == TK_CALL_NONE;
		uint64_t *cp = idx->callpos + 4 * (uint64_t)i;
		cp[0] = root ? TK_POS_NONE : c->call.pos;
		cp[1] = c->entry.pos;
		cp[2] = c->exit.pos;
		cp[3] = root ? TK_POS_NONE : c->resume.pos;
		if (r.err || bad || (i == 0 && !root) || root != !!(c->flags & TK_CALL_ROOT) ||
		    (root && c->depth) || c->entry.pos > c->exit.pos)
			return TK_ERR_CORRUPT;
		nroots += root;
	}
	idx->tree.count = (uint32_t)n;
	idx->tree.nroots = nroots;
	return 0;
}

const tk_calltree *tk_index_calltree(const tk_index *idx)
{
	return &idx->tree;
}

int tk_index_calltree_copy(const tk_index *idx, tk_calltree **out)
{
	tk_calltree *t = malloc(sizeof *t);
	if (!t)
		return TK_ERR_NOMEM;
	t->count = idx->tree.count;
	t->nroots = idx->tree.nroots;
	t->calls = NULL;
	if (t->count) {
		t->calls = malloc(t->count * sizeof *t->calls);
		if (!t->calls) {
			free(t);
			return TK_ERR_NOMEM;
		}
		memcpy(t->calls, idx->tree.calls, t->count * sizeof *t->calls);
	}
	*out = t;
	return 0;
}

int tk_index_get_call_pos(const tk_index *idx, uint32_t n, tk_index_call_pos *out)
{
	if (n >= idx->tree.count)
		return TK_ERR_NOTFOUND;
	const uint64_t *cp = idx->callpos + 4 * (uint64_t)n;
	out->call = cp[0];
	out->entry = cp[1];
	out->exit = cp[2];
	out->resume = cp[3];
	return 0;
}

int tk_index_call_at(const tk_index *idx, uint64_t pos, uint32_t *call)
{
	if (pos >= idx->ninsn || !idx->tree.count)
		return TK_ERR_NOTFOUND;
	tk_index_pos p;
	int rc = tk_index_get_pos(idx, pos, &p);
	if (rc < 0)
		return rc;
	/* The root of the position's context (the first root if none has it). */
	uint32_t root = 0;
	for (uint32_t r = 0; r != TK_CALL_NONE; r = idx->tree.calls[r].next_sibling)
		if (idx->tree.calls[r].context == p.context) {
			root = r;
			break;
		}
	uint32_t end = idx->tree.calls[root].next_sibling;
	if (end == TK_CALL_NONE)
		end = idx->tree.count;
	/* In the root's subtree (preorder: [root, end), sorted by entry), the
	 * last node entered at or before pos; if it has already returned, the
	 * answer is one of its ancestors (calls nest). */
	uint32_t lo = root + 1, hi = end;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (idx->callpos[4 * (uint64_t)mid + 1] <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t c = lo - 1;
	while (c != root && idx->callpos[4 * (uint64_t)c + 2] < pos)
		c = idx->tree.calls[c].parent;
	*call = c;
	return 0;
}
