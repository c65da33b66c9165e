/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call spill (calls.h): confirmed calls to a temporary file,
 * read back in preorder.
 *
 * The detector confirms a call after all its callees, and the calls of one
 * context come out in postorder (each subtree contiguous, then its root;
 * siblings in time order; the root of the context last).  The sink's
 * forests only count their calls, so each record knows the size of its
 * subtree.  In postorder, a node v with subtree size s at postorder index j
 * (within its context) heads the subtree that occupies [j - s + 1, j]; in
 * preorder the same subtree occupies the same range shifted by the number
 * of v's ancestors, with v first: its preorder number is
 *     j - s + 1 + depth(v).
 * depth and parent come from one pass backwards over the records (reverse
 * postorder visits each node before its descendants: a stack of ancestors
 * with their descendants still to come).  The records then go through an
 * external sort keyed by preorder number.
 *
 * Record (postorder, appended as confirmed): for each of call, entry, exit
 * and resume the zigzag varint deltas of pos, line, offset, time and pc
 * against the previous record, then varints context, flags and subtree
 * size, then one byte: the record's length (so the file reads backwards;
 * the absolute values of the last record are kept in memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callwalk.h"
#include "core/xsort.h"
#include "tracekit/error.h"

#ifdef TK_IDX_SMALL_BUFFERS	/* tests: exercise the files */
#define SPILL_MEM 512u
#define WINDOW 1024u
#define SORT_MEM (64u << 10)
#else
#define SPILL_MEM (256u << 10)
#define WINDOW (256u << 10)
#define SORT_MEM (2u << 20)
#endif
#define REC_MAX 232

typedef struct sroot {
	uint32_t context;
	uint64_t size;
} sroot;

struct tk_callspill {
	uint64_t *fcount;	/* calls in each forest handle */
	uint32_t nf, capf;
	uint32_t *freeh;	/* released handles */
	uint32_t nfree, capfree;

	uint8_t *buf;		/* the tail of the log, not yet in fp */
	size_t len;
	FILE *fp;
	uint64_t flen;
	tk_tpos last[4];	/* absolute values of the last record */
	uint64_t nrec;

	sroot *roots;		/* in the order finish was called */
	uint32_t nroots, caproots;
};

/* ---- forests: handles that count calls ---- */

static int new_forest(tk_callspill *s, uint64_t n, uint32_t *out)
{
	if (s->nfree) {
		*out = s->freeh[--s->nfree];
	} else {
		if (s->nf == s->capf) {
			if (s->capf >= UINT32_MAX / 2)
				return TK_ERR_NOMEM;
			uint32_t cap = s->capf ? 2 * s->capf : 64;
			uint64_t *f = realloc(s->fcount, cap * sizeof *f);
			if (!f)
				return TK_ERR_NOMEM;
			s->fcount = f;
			s->capf = cap;
		}
		*out = s->nf++;
	}
	s->fcount[*out] = n;
	return 0;
}

static int release(tk_callspill *s, uint32_t h)
{
	if (h == TK_CALL_NONE)
		return 0;
	if (s->nfree == s->capfree) {
		uint32_t cap = s->capfree ? 2 * s->capfree : 64;
		uint32_t *f = realloc(s->freeh, cap * sizeof *f);
		if (!f)
			return TK_ERR_NOMEM;
		s->freeh = f;
		s->capfree = cap;
	}
	s->freeh[s->nfree++] = h;
	return 0;
}

static uint64_t forest_calls(const tk_callspill *s, uint32_t h)
{
	return h == TK_CALL_NONE || h >= s->nf ? 0 : s->fcount[h];
}

/* ---- the log ---- */

static size_t putv(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int flush_log(tk_callspill *s)
{
	if (!s->len)
		return 0;
	if (!s->fp && !(s->fp = tmpfile()))
		return TK_ERR_IO;
	if (fwrite(s->buf, 1, s->len, s->fp) != s->len)
		return TK_ERR_IO;
	s->flen += s->len;
	s->len = 0;
	return 0;
}

static int log_call(tk_callspill *s, const tk_call *c, uint64_t size)
{
	if (s->len + REC_MAX > SPILL_MEM) {
		int err = flush_log(s);
		if (err)
			return err;
	}
	uint8_t *p = s->buf + s->len;
	size_t n = 0;
	const tk_tpos *t[4] = {&c->call, &c->entry, &c->exit, &c->resume};
	for (int i = 0; i < 4; i++) {
		n += putv(p + n, zz((int64_t)(t[i]->pos - s->last[i].pos)));
		n += putv(p + n, zz((int64_t)(t[i]->line - s->last[i].line)));
		n += putv(p + n, zz((int64_t)(t[i]->offset - s->last[i].offset)));
		n += putv(p + n, zz((int64_t)(t[i]->time - s->last[i].time)));
		n += putv(p + n, zz((int64_t)(t[i]->pc - s->last[i].pc)));
		s->last[i] = *t[i];
	}
	n += putv(p + n, c->context);
	n += putv(p + n, c->flags);
	n += putv(p + n, size);
	p[n] = (uint8_t)(n + 1);
	s->len += n + 1;
	s->nrec++;
	return 0;
}

/* ---- the sink ---- */

static int sp_confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	tk_callspill *s = ctx;
	uint64_t size = 1 + forest_calls(s, children);
	int err = release(s, children);
	if (!err)
		err = log_call(s, call, size);
	if (!err)
		err = new_forest(s, size, out);
	return err;
}

static int sp_join(void *ctx, uint32_t first, uint32_t second, uint32_t *out)
{
	tk_callspill *s = ctx;
	if (first == TK_CALL_NONE || second == TK_CALL_NONE) {
		*out = first == TK_CALL_NONE ? second : first;
		return 0;
	}
	s->fcount[first] += forest_calls(s, second);
	*out = first;
	return release(s, second);
}

static int sp_finish(void *ctx, const tk_call *root, uint32_t children)
{
	tk_callspill *s = ctx;
	uint64_t size = 1 + forest_calls(s, children);
	int err = release(s, children);
	if (!err)
		err = log_call(s, root, size);
	if (err)
		return err;
	if (s->nroots == s->caproots) {
		uint32_t cap = s->caproots ? 2 * s->caproots : 4;
		sroot *r = realloc(s->roots, cap * sizeof *r);
		if (!r)
			return TK_ERR_NOMEM;
		s->roots = r;
		s->caproots = cap;
	}
	s->roots[s->nroots++] = (sroot){root->context, size};
	return 0;
}

int tk_callspill_new(tk_callspill **out, tk_calls_sink *sink)
{
	tk_callspill *s = calloc(1, sizeof *s);
	if (!s || !(s->buf = malloc(SPILL_MEM))) {
		free(s);
		return TK_ERR_NOMEM;
	}
	sink->ctx = s;
	sink->confirm = sp_confirm;
	sink->join = sp_join;
	sink->finish = sp_finish;
	*out = s;
	return 0;
}

uint64_t tk_callspill_count(const tk_callspill *s)
{
	return s->nrec;
}

void tk_callspill_free(tk_callspill *s)
{
	if (!s)
		return;
	free(s->fcount);
	free(s->freeh);
	free(s->buf);
	free(s->roots);
	if (s->fp)
		fclose(s->fp);
	free(s);
}

/* ---- reading back: the walk ---- */

typedef struct anc {
	uint32_t slot, size;
	uint64_t remaining;	/* descendants still to come */
} anc;

typedef struct cstate {
	uint32_t context;
	uint32_t base, n;
	uint64_t j;		/* postorder index of the next record (backwards) */
	anc *stack;
	size_t sp, cap;
} cstate;

typedef struct spill_walk {
	tk_callwalk base;
	tk_xsort *sort;
} spill_walk;

/* The log read backwards through a window. */
typedef struct backrd {
	tk_callspill *s;
	uint8_t *win;
	uint64_t wstart, wend;	/* file offsets held in win */
	uint64_t end;		/* end of the next record to read */
} backrd;

static int load(backrd *b, uint64_t end)
{
	uint64_t start = end > WINDOW ? end - WINDOW : 0;
	size_t n = (size_t)(end - start);
	if (pread(fileno(b->s->fp), b->win, n, (off_t)start) != (ssize_t)n)
		return TK_ERR_IO;
	b->wstart = start;
	b->wend = end;
	return 0;
}

/* The record before b->end: *p, *n (without its length byte). */
static int prev_record(backrd *b, const uint8_t **p, size_t *n)
{
	const uint8_t *data;
	uint64_t base;
	if (!b->s->fp) {
		data = b->s->buf;
		base = 0;
	} else {
		if (b->end > b->wend || b->end - 1 < b->wstart) {
			int err = load(b, b->end);
			if (err)
				return err;
		}
		data = b->win;
		base = b->wstart;
	}
	if (!b->end)
		return TK_ERR_CORRUPT;
	size_t len = data[b->end - 1 - base];
	if (len < 2 || len > b->end)
		return TK_ERR_CORRUPT;
	uint64_t start = b->end - len;
	if (b->s->fp && start < b->wstart) {
		int err = load(b, b->end);
		if (err)
			return err;
		data = b->win;
		base = b->wstart;
	}
	*p = data + (start - base);
	*n = len - 1;
	b->end = start;
	return 0;
}

static uint64_t getv(const uint8_t **p, const uint8_t *end, bool *bad)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	*bad = true;
	return 0;
}

/* Contexts: a hash table of their index in cs + 1 (0: empty). */
typedef struct ctxmap {
	uint32_t *slot;
	uint32_t mask;
} ctxmap;

static uint32_t *ctx_slot(const ctxmap *m, const cstate *cs, uint32_t context)
{
	uint32_t i = (context * 0x9e3779b1u) & m->mask;
	while (m->slot[i] && cs[m->slot[i] - 1].context != context)
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

static cstate *state_of(const ctxmap *m, cstate *cs, uint32_t context)
{
	uint32_t v = *ctx_slot(m, cs, context);
	return v ? &cs[v - 1] : NULL;
}

static int push(cstate *st, anc a)
{
	if (st->sp == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 16;
		anc *n = realloc(st->stack, cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		st->stack = n;
		st->cap = cap;
	}
	st->stack[st->sp++] = a;
	return 0;
}

/* The final record of one node: absolute values, links + 1 (0: none),
 * depth, context, flags. */
static size_t encode_node(uint8_t *p, const tk_call *c)
{
	size_t n = 0;
	const tk_tpos *t[4] = {&c->call, &c->entry, &c->exit, &c->resume};
	for (int i = 0; i < 4; i++) {
		n += putv(p + n, t[i]->pos);
		n += putv(p + n, t[i]->line);
		n += putv(p + n, t[i]->offset);
		n += putv(p + n, t[i]->time);
		n += putv(p + n, t[i]->pc);
	}
	n += putv(p + n, (uint64_t)c->parent + 1);
	n += putv(p + n, (uint64_t)c->first_child + 1);
	n += putv(p + n, (uint64_t)c->next_sibling + 1);
	n += putv(p + n, c->depth);
	n += putv(p + n, c->context);
	n += putv(p + n, c->flags);
	return n;
}

static bool decode_node(const uint8_t *p, size_t len, tk_call *c)
{
	const uint8_t *end = p + len;
	bool bad = false;
	tk_tpos *t[4] = {&c->call, &c->entry, &c->exit, &c->resume};
	for (int i = 0; i < 4; i++) {
		t[i]->pos = getv(&p, end, &bad);
		t[i]->line = getv(&p, end, &bad);
		t[i]->offset = getv(&p, end, &bad);
		t[i]->time = getv(&p, end, &bad);
		t[i]->pc = getv(&p, end, &bad);
	}
	c->parent = (uint32_t)(getv(&p, end, &bad) - 1);
	c->first_child = (uint32_t)(getv(&p, end, &bad) - 1);
	c->next_sibling = (uint32_t)(getv(&p, end, &bad) - 1);
	c->depth = (uint32_t)getv(&p, end, &bad);
	c->context = (uint32_t)getv(&p, end, &bad);
	c->flags = (uint32_t)getv(&p, end, &bad);
	return !bad && p == end;
}

static int sw_next(tk_callwalk *w, tk_call *out)
{
	spill_walk *sw = (spill_walk *)w;
	uint64_t key;
	const void *rec;
	size_t len;
	int rc = tk_xsort_next(sw->sort, &key, &rec, &len);
	if (rc <= 0)
		return rc;
	if (key != w->read || !decode_node(rec, len, out))
		return TK_ERR_CORRUPT;
	return 1;
}

static int sw_seek(tk_callwalk *w, uint32_t n)
{
	tk_call skip;
	for (uint32_t k = w->read; k < n; k++) {
		int rc = sw_next(w, &skip);
		if (rc <= 0)
			return rc ? rc : TK_ERR_CORRUPT;
		w->read++;
	}
	return 0;
}

static void sw_free(tk_callwalk *w)
{
	tk_xsort_free(((spill_walk *)w)->sort);
	free(w);
}

static const tk_callwalk_ops spill_ops = {sw_next, sw_seek, sw_free};

/* One record, read backwards: its node number, links and depth, into the
 * sort.  rec holds the absolute values of this record's tpos. */
static int place(cstate *st, tk_call *c, uint64_t size, uint32_t total, tk_xsort *sort)
{
	while (st->sp && st->stack[st->sp - 1].remaining == 0)
		st->sp--;
	uint64_t depth = st->sp;
	if (st->j == UINT64_MAX || !size || size > st->j + 1 || depth > UINT32_MAX)
		return TK_ERR_CORRUPT;
	bool root = !depth;
	if (root != (st->j + 1 == st->n) || root != !!(c->flags & TK_CALL_ROOT) ||
	    (root && size != st->n))
		return TK_ERR_CORRUPT;
	uint64_t p = st->j - size + 1 + depth;
	if (p >= st->n)
		return TK_ERR_CORRUPT;
	uint32_t slot = st->base + (uint32_t)p;
	uint64_t parent_end = total;
	c->parent = TK_CALL_NONE;
	if (!root) {
		anc *a = &st->stack[st->sp - 1];
		if (a->remaining < size)
			return TK_ERR_CORRUPT;
		a->remaining -= size;
		c->parent = a->slot;
		parent_end = (uint64_t)a->slot + a->size;
	}
	c->depth = (uint32_t)depth;
	c->first_child = size > 1 ? slot + 1 : TK_CALL_NONE;
	c->next_sibling = slot + size < parent_end ? slot + (uint32_t)size : TK_CALL_NONE;
	int err = push(st, (anc){slot, (uint32_t)size, size - 1});
	st->j--;
	if (err)
		return err;
	uint8_t node[REC_MAX];
	return tk_xsort_add(sort, slot, node, encode_node(node, c));
}

static int backward_pass(tk_callspill *s, const ctxmap *map, cstate *cs, uint32_t total,
			 tk_xsort *sort)
{
	backrd b = {.s = s, .end = s->fp ? s->flen : s->len};
	if (s->fp && !(b.win = malloc(WINDOW)))
		return TK_ERR_NOMEM;
	tk_tpos cur[4];
	memcpy(cur, s->last, sizeof cur);
	int err = 0;
	for (uint64_t k = 0; k < s->nrec && !err; k++) {
		const uint8_t *p;
		size_t n;
		if ((err = prev_record(&b, &p, &n)))
			break;
		const uint8_t *end = p + n;
		bool bad = false;
		int64_t d[4][5];
		for (int i = 0; i < 4; i++)
			for (int f = 0; f < 5; f++)
				d[i][f] = unzz(getv(&p, end, &bad));
		tk_call c = {.call = cur[0], .entry = cur[1], .exit = cur[2], .resume = cur[3]};
		c.context = (uint32_t)getv(&p, end, &bad);
		c.flags = (uint32_t)getv(&p, end, &bad);
		uint64_t size = getv(&p, end, &bad);
		cstate *st = bad || p != end ? NULL : state_of(map, cs, c.context);
		if (!st) {
			err = TK_ERR_CORRUPT;
			break;
		}
		err = place(st, &c, size, total, sort);
		for (int i = 0; i < 4; i++) {
			cur[i].pos -= (uint64_t)d[i][0];
			cur[i].line -= (uint64_t)d[i][1];
			cur[i].offset -= (uint64_t)d[i][2];
			cur[i].time -= (uint64_t)d[i][3];
			cur[i].pc -= (uint64_t)d[i][4];
		}
	}
	free(b.win);
	return err;
}

int tk_callspill_walk(tk_callspill *s, tk_callwalk **out)
{
	*out = NULL;
	uint64_t total = 0;
	for (uint32_t r = 0; r < s->nroots; r++)
		total += s->roots[r].size;
	if (total >= UINT32_MAX)
		return TK_ERR_UNSUPPORTED;
	if (total != s->nrec)
		return TK_ERR_CORRUPT;
	spill_walk *w = calloc(1, sizeof *w);
	cstate *cs = calloc(s->nroots ? s->nroots : 1, sizeof *cs);
	ctxmap map = {NULL, 0};
	uint32_t mcap = 16;
	while (mcap < 2 * s->nroots)
		mcap *= 2;
	map.slot = calloc(mcap, sizeof *map.slot);
	map.mask = mcap - 1;
	int err = !w || !cs || !map.slot ? TK_ERR_NOMEM : 0;
	if (!err) {
		w->base.ops = &spill_ops;
		w->base.count = (uint32_t)total;
		w->base.nroots = s->nroots;
		w->base.roots = calloc(s->nroots ? s->nroots : 1, sizeof *w->base.roots);
		if (!w->base.roots)
			err = TK_ERR_NOMEM;
	}
	uint32_t base = 0;
	for (uint32_t r = 0; !err && r < s->nroots; r++) {
		uint32_t *slot = ctx_slot(&map, cs, s->roots[r].context);
		if (*slot) {
			err = TK_ERR_CORRUPT;	/* a context finished twice */
			break;
		}
		*slot = r + 1;
		cs[r] = (cstate){.context = s->roots[r].context, .base = base,
				 .n = (uint32_t)s->roots[r].size, .j = s->roots[r].size - 1};
		w->base.roots[r] = (tk_callwalk_root){s->roots[r].context, base,
						      (uint32_t)s->roots[r].size};
		base += (uint32_t)s->roots[r].size;
	}
	if (!err)
		err = tk_xsort_new(SORT_MEM, &w->sort);
	if (!err && s->fp)
		err = flush_log(s);
	if (!err && s->fp && fflush(s->fp) != 0)
		err = TK_ERR_IO;
	if (!err)
		err = backward_pass(s, &map, cs, (uint32_t)total, w->sort);
	for (uint32_t r = 0; cs && r < s->nroots; r++) {
		if (!err && cs[r].j != UINT64_MAX)
			err = TK_ERR_CORRUPT;	/* a context's records missing */
		free(cs[r].stack);
	}
	free(cs);
	free(map.slot);
	if (err) {
		if (w) {
			tk_xsort_free(w->sort);
			free(w->base.roots);
			free(w);
		}
		return err;
	}
	*out = &w->base;
	return 0;
}
