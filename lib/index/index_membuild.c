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

struct tk_ixmem {
	mpage **tab;		/* open addressing on page number */
	size_t cap, count;
	mpage *last;
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

void tk_ixmem_free(tk_ixmem *m)
{
	if (!m)
		return;
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
	for (size_t i = slot_of(num, m->cap);; i = (i + 1) & (m->cap - 1)) {
		mpage *p = m->tab[i];
		if (!p)
			return NULL;
		if (p->num == num)
			return m->last = p;
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

int tk_ixmem_access(tk_ixmem *m, uint64_t pos, const tk_mem_access *a)
{
	if (a->aborted || !a->size)
		return 0;
	uint64_t order = 2 * ++m->seq;
	int err = 0;
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
