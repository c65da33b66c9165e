/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index builder's memory image.
 *
 * While the trace streams, the builder keeps the current contents of every
 * byte the trace touched (sparse 4 KB pages) and a state per byte:
 *   UNTOUCHED  never written: its value is whatever was there at the start;
 *   KNOWN      value known;
 *   PENDING    made unknown at some position (semihosting, "##" write): the
 *              next read reveals what was written there at that position.
 * Each change becomes an event record (tk_mrec) for the address-ordered
 * history: a write (W), a mark (U), or a fill (F) that is *dated back*: to
 * position 0 for a first read of an untouched byte, or to the mark for a
 * pending one.  Reads that agree with the known value produce nothing; a
 * read that contradicts it is a change, recorded as a write.
 *
 * The marks themselves are kept as a list of ranges (few: one per
 * semihosting call), searched newest first for a pending byte's mark.
 *
 * A piece of the trace read on its own (speculative mode) does not know
 * the state before it: state 0 then means "as before the piece".  Writes
 * and marks do not depend on it; a read of a byte the piece has not
 * touched yet does, so the whole access is *deferred*: what every other
 * byte of it gives is worked out now, and the stitcher (tk_ixmem_merge),
 * holding the state before the piece, finishes it and emits its records
 * exactly as if the trace had been read in one go.  Only the first access
 * to a byte in a piece can be deferred.
 */
#include <stdlib.h>
#include <string.h>

#include "index_build.h"

#define MPAGE_SHIFT 12
#define MPAGE_SIZE (1u << MPAGE_SHIFT)
/* Largest region one semihosting call may mark (a garbage length must not
 * exhaust memory). */
#define MAX_MARK (16u << 20)

enum {
	ST_UNTOUCHED = 0,
	ST_KNOWN = 1,
	ST_PENDING = 2,
	ST_STATE = 3,
	ST_ACCESSED = 4,
	ST_EVERKNOWN = 8,
};

typedef struct mpage {
	uint64_t num;		/* address >> MPAGE_SHIFT */
	uint8_t val[MPAGE_SIZE];
	uint8_t st[MPAGE_SIZE];
} mpage;

typedef struct mark {
	uint64_t addr, len, pos, order;
} mark;

/* A deferred access: header, then per byte a value and a code (below),
 * then a (pos, order) pair per FILL_AT byte. */
enum {
	DB_SKIP = 0,		/* nothing to emit */
	DB_WRITE = 1,		/* a write at the access */
	DB_FILL_AT = 2,		/* a fill dated to a mark of the piece */
	DB_BEFORE = 3,		/* a read of a byte as the state before the piece has it */
};

typedef struct deferred {
	uint64_t pos, order, addr;
	uint32_t n;		/* bytes described */
	uint32_t nfills;	/* FILL_AT pairs */
} deferred;

struct tk_ixmem {
	bool spec;		/* speculative: a piece read on its own */
	uint8_t *dbuf;		/* deferred accesses */
	size_t dlen, dcap;
	mpage **tab;		/* open addressing on page number */
	size_t cap, count;
	mpage *last, *prev;	/* the pages found last (stack and data, say) */
	mark *marks;
	size_t nmarks, capmarks;
	uint64_t seq;		/* memory event sequence number */
	tk_mrec piece;		/* record being accumulated */
	bool have_piece;
	tk_mruns runs;
};

int tk_ixmem_new(tk_ixmem **out)
{
	tk_ixmem *m = calloc(1, sizeof *m);
	if (!m)
		return TK_ERR_NOMEM;
	m->cap = 1024;
	m->tab = calloc(m->cap, sizeof *m->tab);
	if (!m->tab) {
		free(m);
		return TK_ERR_NOMEM;
	}
	*out = m;
	return 0;
}

int tk_ixmem_new_spec(tk_ixmem **out)
{
	int err = tk_ixmem_new(out);
	if (!err) {
		(*out)->spec = true;
		(*out)->runs.keep = true;
	}
	return err;
}



void tk_ixmem_free(tk_ixmem *m)
{
	if (!m)
		return;
	free(m->dbuf);
	for (size_t i = 0; i < m->cap; i++)
		free(m->tab[i]);
	free(m->tab);
	free(m->marks);
	tk_mruns_free(&m->runs);
	free(m);
}

static inline size_t slot_of(uint64_t num, size_t cap)
{
	return (size_t)((num * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static mpage *find_page(tk_ixmem *m, uint64_t num)
{
	if (m->last && m->last->num == num)
		return m->last;
	if (m->prev && m->prev->num == num) {
		mpage *p = m->prev;
		m->prev = m->last;
		return m->last = p;
	}
	for (size_t i = slot_of(num, m->cap);; i = (i + 1) & (m->cap - 1)) {
		mpage *p = m->tab[i];
		if (!p)
			return NULL;
		if (p->num == num) {
			m->prev = m->last;
			return m->last = p;
		}
	}
}

static int grow(tk_ixmem *m)
{
	size_t cap = m->cap * 2;
	mpage **tab = calloc(cap, sizeof *tab);
	if (!tab)
		return TK_ERR_NOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		mpage *p = m->tab[i];
		if (!p)
			continue;
		size_t j = slot_of(p->num, cap);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = p;
	}
	free(m->tab);
	m->tab = tab;
	m->cap = cap;
	return 0;
}

static mpage *get_page(tk_ixmem *m, uint64_t num)
{
	mpage *p = find_page(m, num);
	if (p)
		return p;
	if ((m->count + 1) * 2 > m->cap && grow(m))
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->num = num;
	size_t i = slot_of(num, m->cap);
	while (m->tab[i])
		i = (i + 1) & (m->cap - 1);
	m->tab[i] = p;
	m->count++;
	m->prev = m->last;
	return m->last = p;
}

/* ---- record accumulation: consecutive bytes of one event in one chunk
 * become one record ---- */

static int flush_piece(tk_ixmem *m)
{
	if (!m->have_piece)
		return 0;
	m->have_piece = false;
	return tk_mruns_add(&m->runs, &m->piece);
}

static int emit(tk_ixmem *m, unsigned kind, uint64_t addr, uint64_t pos,
		uint64_t order, uint8_t byte)
{
	uint64_t chunk = addr >> TK_CHUNK_SHIFT;
	unsigned off = (unsigned)(addr & (TK_CHUNK_BYTES - 1));
	tk_mrec *r = &m->piece;
	unsigned limit = kind == TK_MK_UNKNOWN ? TK_CHUNK_BYTES : TK_MREC_DATA;
	if (m->have_piece && r->chunk == chunk && r->kind == kind && r->pos == pos &&
	    r->order == order && r->off + r->len == off && r->len < limit) {
		if (kind != TK_MK_UNKNOWN)
			r->data[r->len] = byte;
		r->len++;
		return 0;
	}
	int err = flush_piece(m);
	if (err)
		return err;
	r->chunk = chunk;
	r->pos = pos;
	r->order = order;
	r->kind = (uint8_t)kind;
	r->off = (uint8_t)off;
	r->len = 1;
	if (kind != TK_MK_UNKNOWN)
		r->data[0] = byte;
	m->have_piece = true;
	return 0;
}

/* The newest mark covering addr (a PENDING byte always has one). */
static const mark *mark_of(const tk_ixmem *m, uint64_t addr)
{
	for (size_t i = m->nmarks; i-- > 0;)
		if (addr - m->marks[i].addr < m->marks[i].len)
			return &m->marks[i];
	return NULL;
}

/* Drop marks that no longer cover a pending byte. */
static void compact_marks(tk_ixmem *m)
{
	size_t k = 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		const mark *mk = &m->marks[i];
		bool live = false;
		for (uint64_t a = mk->addr; !live && a - mk->addr < mk->len; a++) {
			mpage *p = find_page(m, a >> MPAGE_SHIFT);
			live = p && (p->st[a & (MPAGE_SIZE - 1)] & ST_STATE) == ST_PENDING;
		}
		if (live)
			m->marks[k++] = *mk;
	}
	m->nmarks = k;
}

static int add_mark(tk_ixmem *m, uint64_t addr, uint64_t len, uint64_t pos, uint64_t order)
{
	if (m->nmarks == m->capmarks) {
		if (m->nmarks >= 1024) {
			compact_marks(m);
			if (m->nmarks < m->capmarks / 2)
				goto add;
		}
		size_t cap = m->capmarks ? m->capmarks * 2 : 16;
		mark *n = realloc(m->marks, cap * sizeof *n);
		if (!n)
			return TK_ERR_NOMEM;
		m->marks = n;
		m->capmarks = cap;
	}
add:
	m->marks[m->nmarks++] = (mark){addr, len, pos, order};
	return 0;
}

static int mark_unknown(tk_ixmem *m, uint64_t pos, uint64_t order, uint64_t addr, uint64_t len)
{
	if (len > MAX_MARK)
		len = MAX_MARK;
	if (addr + len < addr)	/* clip at the top of the address space */
		len = 0 - addr;
	if (!len)
		return 0;
	int err = add_mark(m, addr, len, pos, order);
	for (uint64_t i = 0; !err && i < len; i++) {
		uint64_t a = addr + i;
		mpage *p = get_page(m, a >> MPAGE_SHIFT);
		if (!p)
			return TK_ERR_NOMEM;
		uint8_t *st = &p->st[a & (MPAGE_SIZE - 1)];
		*st = (uint8_t)((*st & ~ST_STATE) | ST_PENDING | ST_ACCESSED);
		err = emit(m, TK_MK_UNKNOWN, a, pos, order, 0);
	}
	return err ? err : flush_piece(m);
}

int tk_ixmem_unknown(tk_ixmem *m, uint64_t pos, uint64_t addr, uint64_t len)
{
	return mark_unknown(m, pos, 2 * ++m->seq, addr, len);
}

static int dreserve(tk_ixmem *m, size_t need)
{
	if (m->dlen + need <= m->dcap)
		return 0;
	size_t cap = m->dcap ? m->dcap : 4096;
	while (cap < m->dlen + need)
		cap *= 2;
	uint8_t *b = realloc(m->dbuf, cap);
	if (!b)
		return TK_ERR_NOMEM;
	m->dbuf = b;
	m->dcap = cap;
	return 0;
}

/* Does a read depend on the state before the piece? */
static bool reads_before(tk_ixmem *m, const tk_mem_access *a)
{
	for (uint32_t i = 0; i < a->size; i++) {
		uint64_t addr = a->addr + i;
		if (addr < a->addr)
			break;
		if ((a->state ? a->state[i] : TK_BYTE_SET) != TK_BYTE_SET)
			continue;
		mpage *p = find_page(m, addr >> MPAGE_SHIFT);
		if (!p || !(p->st[addr & (MPAGE_SIZE - 1)] & ST_STATE))
			return true;
	}
	return false;
}

/* Defer a read (speculative mode): note what each byte gives, as the loop
 * of tk_ixmem_access would, and update the piece's state the same way. */
static int defer_read(tk_ixmem *m, uint64_t pos, uint64_t order, const tk_mem_access *a)
{
	size_t at = m->dlen;
	if (dreserve(m, sizeof(deferred) + 2 * (size_t)a->size))
		return TK_ERR_NOMEM;
	m->dlen += sizeof(deferred) + 2 * (size_t)a->size;
	memset(m->dbuf + at + sizeof(deferred), 0, 2 * (size_t)a->size);
	deferred d = {pos, order, a->addr, a->size, 0};
	for (uint32_t i = 0; i < a->size; i++) {
		uint64_t addr = a->addr + i;
		if (addr < a->addr)
			break;	/* wrapped around the address space */
		size_t so = at + sizeof(deferred) + 2 * (size_t)i;
		uint8_t *slot = m->dbuf + so;
		unsigned bs = a->state ? a->state[i] : TK_BYTE_SET;
		slot[0] = bs == TK_BYTE_SET ? a->bytes[i] : 0;
		slot[1] = DB_SKIP;
		if (bs == TK_BYTE_NONE)
			continue;
		mpage *p = get_page(m, addr >> MPAGE_SHIFT);
		if (!p)
			return TK_ERR_NOMEM;
		unsigned o = (unsigned)(addr & (MPAGE_SIZE - 1));
		uint8_t *st = &p->st[o];
		if (bs == TK_BYTE_UNKNOWN) {
			*st |= ST_ACCESSED;
			continue;
		}
		uint8_t v = a->bytes[i];
		switch (*st & ST_STATE) {
		case ST_UNTOUCHED:
			slot[1] = DB_BEFORE;
			break;
		case ST_PENDING: {
			const mark *mk = mark_of(m, addr);
			if (mk) {
				uint64_t pair[2] = {mk->pos, mk->order + 1};
				if (dreserve(m, 16))
					return TK_ERR_NOMEM;
				memcpy(m->dbuf + m->dlen, pair, 16);
				m->dlen += 16;
				d.nfills++;
				m->dbuf[so + 1] = DB_FILL_AT;
			}
			break;
		}
		default:
			if (p->val[o] == v)
				continue;
			slot[1] = DB_WRITE;
			break;
		}
		p->val[o] = v;
		*st = (uint8_t)((*st & ~ST_STATE) | ST_KNOWN | ST_ACCESSED | ST_EVERKNOWN);
	}
	/* The FILL_AT pairs follow the bytes, in byte order. */
	memcpy(m->dbuf + at, &d, sizeof d);
	return 0;
}

int tk_ixmem_access(tk_ixmem *m, uint64_t pos, const tk_mem_access *a)
{
	if (a->aborted || !a->size)
		return 0;
	uint64_t order = 2 * ++m->seq;
	int err = 0;
	if (m->spec && !a->write && reads_before(m, a))
		return defer_read(m, pos, order, a);
	for (uint32_t i = 0; i < a->size && !err; i++) {
		uint64_t addr = a->addr + i;
		if (addr < a->addr)
			break;	/* wrapped around the address space */
		unsigned bs = a->state ? a->state[i] : TK_BYTE_SET;
		if (bs == TK_BYTE_NONE)
			continue;
		if (a->write && bs == TK_BYTE_UNKNOWN) {
			/* A run of "##" bytes: unknown from here until read. */
			uint32_t j = i;
			while (j < a->size && a->state[j] == TK_BYTE_UNKNOWN)
				j++;
			err = flush_piece(m);
			if (!err)
				err = mark_unknown(m, pos, order, addr, j - i);
			i = j - 1;
			continue;
		}
		mpage *p = get_page(m, addr >> MPAGE_SHIFT);
		if (!p)
			return TK_ERR_NOMEM;
		unsigned o = (unsigned)(addr & (MPAGE_SIZE - 1));
		uint8_t *st = &p->st[o];
		if (bs == TK_BYTE_UNKNOWN) {	/* a read of unknown data */
			*st |= ST_ACCESSED;
			continue;
		}
		uint8_t v = a->bytes[i];
		if (a->write) {
			err = emit(m, TK_MK_WRITE, addr, pos, order, v);
		} else {
			switch (*st & ST_STATE) {
			case ST_UNTOUCHED:	/* there from the start */
				err = emit(m, TK_MK_FILL, addr, 0, 0, v);
				break;
			case ST_PENDING: {	/* written by the marking call */
				const mark *mk = mark_of(m, addr);
				if (mk)
					err = emit(m, TK_MK_FILL, addr, mk->pos, mk->order + 1, v);
				break;
			}
			default:
				if (p->val[o] == v)
					continue;
				err = emit(m, TK_MK_WRITE, addr, pos, order, v);
				break;
			}
		}
		p->val[o] = v;
		*st = (uint8_t)((*st & ~ST_STATE) | ST_KNOWN | ST_ACCESSED | ST_EVERKNOWN);
	}
	return err ? err : flush_piece(m);
}

int tk_ixmem_peek3(tk_ixmem *m, uint64_t addr, unsigned n, uint8_t *out)
{
	int rc = 1;
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = addr + i;
		mpage *p = find_page(m, a >> MPAGE_SHIFT);
		unsigned st = p ? p->st[a & (MPAGE_SIZE - 1)] & ST_STATE : ST_UNTOUCHED;
		if (st == ST_UNTOUCHED && m->spec)
			return -1;	/* as before the piece */
		if (st != ST_KNOWN)
			rc = 0;
		else
			out[i] = p->val[a & (MPAGE_SIZE - 1)];
	}
	return rc;
}

bool tk_ixmem_peek(tk_ixmem *m, uint64_t addr, unsigned n, uint8_t *out)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = addr + i;
		mpage *p = find_page(m, a >> MPAGE_SHIFT);
		if (!p)
			return false;
		unsigned o = (unsigned)(a & (MPAGE_SIZE - 1));
		if ((p->st[o] & ST_STATE) != ST_KNOWN)
			return false;
		out[i] = p->val[o];
	}
	return true;
}

uint64_t tk_ixmem_records(const tk_ixmem *m)
{
	return m->runs.spilled + m->runs.len;
}

void tk_ixmem_stats(const tk_ixmem *m, uint64_t *touched, uint64_t *known)
{
	uint64_t t = 0, k = 0;
	for (size_t i = 0; i < m->cap; i++) {
		const mpage *p = m->tab[i];
		if (!p)
			continue;
		for (unsigned j = 0; j < MPAGE_SIZE; j++) {
			t += (p->st[j] & ST_ACCESSED) != 0;
			k += (p->st[j] & ST_EVERKNOWN) != 0;
		}
	}
	*touched = t;
	*known = k;
}

int tk_ixmem_write(tk_ixmem *m, tk_ixw *w)
{
	int err = flush_piece(m);
	if (err)
		return err;
	return tk_mruns_write(&m->runs, w);
}

/* ---- stitching a piece into the whole ---- */

int tk_ixmem_end_piece(tk_ixmem *m)
{
	int err = flush_piece(m);
	if (!err)
		tk_mruns_sort(&m->runs);
	return err;
}

uint64_t tk_ixmem_seq(const tk_ixmem *m)
{
	return m->seq;
}

static uint64_t global_pos(uint64_t stored, uint64_t step_base)
{
	return step_base + stored ? step_base + stored - 1 : 0;
}

/* Finish a deferred access of a piece on the state before the piece. */
static int resolve(tk_ixmem *g, const deferred *d, const uint8_t *bytes, const uint64_t *fills,
		   uint64_t step_base, uint64_t order_base)
{
	uint64_t pos = global_pos(d->pos, step_base), order = order_base + d->order;
	int err = 0;
	uint32_t f = 0;
	for (uint32_t i = 0; i < d->n && !err; i++) {
		uint64_t addr = d->addr + i;
		uint8_t v = bytes[2 * i], code = bytes[2 * i + 1];
		switch (code) {
		case DB_WRITE:
			err = emit(g, TK_MK_WRITE, addr, pos, order, v);
			break;
		case DB_FILL_AT: {
			uint64_t fp = fills[2 * f], fo = fills[2 * f + 1];
			f++;
			err = emit(g, TK_MK_FILL, addr, global_pos(fp, step_base), order_base + fo, v);
			break;
		}
		case DB_BEFORE: {
			mpage *p = find_page(g, addr >> MPAGE_SHIFT);
			unsigned o = (unsigned)(addr & (MPAGE_SIZE - 1));
			switch (p ? p->st[o] & ST_STATE : ST_UNTOUCHED) {
			case ST_UNTOUCHED:	/* there from the start */
				err = emit(g, TK_MK_FILL, addr, 0, 0, v);
				break;
			case ST_PENDING: {	/* written by the marking call */
				const mark *mk = mark_of(g, addr);
				if (mk)
					err = emit(g, TK_MK_FILL, addr, mk->pos, mk->order + 1, v);
				break;
			}
			default:
				if (p->val[o] != v)
					err = emit(g, TK_MK_WRITE, addr, pos, order, v);
				break;
			}
			break;
		}
		default:
			break;
		}
	}
	return err ? err : flush_piece(g);
}

int tk_ixmem_merge(tk_ixmem *g, tk_ixmem *m, uint64_t step_base)
{
	uint64_t order_base = 2 * g->seq;
	int err = flush_piece(g);
	/* 1. The deferred reads, on the state before the piece. */
	for (size_t at = 0; !err && at < m->dlen;) {
		deferred d;
		memcpy(&d, m->dbuf + at, sizeof d);
		const uint8_t *bytes = m->dbuf + at + sizeof d;
		uint64_t fills[2 * 64];
		uint64_t *fp = d.nfills <= 64 ? fills : malloc(16 * (size_t)d.nfills);
		if (!fp)
			return TK_ERR_NOMEM;
		memcpy(fp, bytes + 2 * (size_t)d.n, 16 * (size_t)d.nfills);
		err = resolve(g, &d, bytes, fp, step_base, order_base);
		if (fp != fills)
			free(fp);
		at += sizeof d + 2 * (size_t)d.n + 16 * (size_t)d.nfills;
	}
	/* 2. The piece's image over the whole's, then its marks (after the
	 * image: adding a mark may drop the marks no pending byte needs). */
	for (size_t i = 0; !err && i < m->cap; i++) {
		const mpage *p = m->tab[i];
		if (!p)
			continue;
		mpage *q = get_page(g, p->num);
		if (!q)
			return TK_ERR_NOMEM;
		for (unsigned j = 0; j < MPAGE_SIZE; j++) {
			uint8_t st = p->st[j];
			if (!st)
				continue;
			if (st & ST_STATE) {
				q->st[j] = (uint8_t)((q->st[j] & ~ST_STATE) | (st & ST_STATE));
				q->val[j] = p->val[j];
			}
			q->st[j] |= st & (ST_ACCESSED | ST_EVERKNOWN);
		}
	}
	for (size_t i = 0; !err && i < m->nmarks; i++) {
		const mark *mk = &m->marks[i];
		err = add_mark(g, mk->addr, mk->len, global_pos(mk->pos, step_base),
			       order_base + mk->order);
	}
	/* 3. The piece's own records, with their global positions. */
	if (!err)
		err = tk_mruns_add_piece(&g->runs, &m->runs, step_base, order_base);
	g->seq += m->seq;
	return err;
}
