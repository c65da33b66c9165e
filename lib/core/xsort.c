/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: an external sort of keyed records (see xsort.h).
 *
 * A run is the records of one full buffer, written in key order as
 * [u64 key][u32 length][bytes] (host order: the file never outlives the
 * process).  The merge keeps a binary heap of run readers ordered by (key,
 * run number), and runs are numbered in the order they were written, so
 * equal keys keep their insertion order.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xsort.h"
#include "tracekit/error.h"

#define HDR 12			/* key + length */
#define MAX_REC (64u << 10)
#define MIN_BUDGET (64u << 10)

typedef struct ent {
	uint64_t key;
	size_t off;		/* of the record's header in buf */
} ent;

typedef struct runrd {
	uint64_t next, end;	/* file offsets still to read */
	uint8_t *buf;
	size_t cap, len, at;	/* buf[at, len) unread */
	uint64_t key;		/* head record */
	const uint8_t *rec;
	size_t rlen;
} runrd;

struct tk_xsort {
	size_t budget;
	uint8_t *buf;
	size_t used;
	ent *ents;
	size_t nents, capents;
	uint64_t count;
	FILE *fp;
	uint64_t *runs;		/* start offset of each run, then the end */
	size_t nruns;
	uint64_t fsize;
	bool reading;
	/* reading */
	size_t at;		/* in-memory: next entry */
	runrd *rd;
	size_t *heap, nheap;
	bool heap_ready;
};

int tk_xsort_new(size_t budget, tk_xsort **out)
{
	tk_xsort *s = calloc(1, sizeof *s);
	if (!s)
		return TK_ERR_NOMEM;
	s->budget = budget < MIN_BUDGET ? MIN_BUDGET : budget;
	/* Records and their sort entries share the budget. */
	s->buf = malloc(s->budget);
	if (!s->buf) {
		free(s);
		return TK_ERR_NOMEM;
	}
	*out = s;
	return 0;
}

static int cmp_ent(const void *pa, const void *pb)
{
	const ent *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int spill(tk_xsort *s)
{
	qsort(s->ents, s->nents, sizeof *s->ents, cmp_ent);
	if (!s->fp && !(s->fp = tmpfile()))
		return TK_ERR_IO;
	uint64_t *r = realloc(s->runs, (s->nruns + 2) * sizeof *r);
	if (!r)
		return TK_ERR_NOMEM;
	s->runs = r;
	s->runs[s->nruns++] = s->fsize;
	for (size_t i = 0; i < s->nents; i++) {
		const uint8_t *h = s->buf + s->ents[i].off;
		uint32_t len;
		memcpy(&len, h + 8, 4);
		if (fwrite(h, 1, HDR + len, s->fp) != HDR + len)
			return TK_ERR_IO;
		s->fsize += HDR + len;
	}
	s->runs[s->nruns] = s->fsize;
	s->used = 0;
	s->nents = 0;
	return 0;
}

int tk_xsort_add(tk_xsort *s, uint64_t key, const void *rec, size_t len)
{
	if (s->reading || len > MAX_REC)
		return TK_ERR_INVAL;
	size_t need = HDR + len;
	size_t ent_bytes = (s->nents + 1) * sizeof(ent);
	if (s->used + need + ent_bytes > s->budget && s->nents) {
		int err = spill(s);
		if (err)
			return err;
	}
	if (s->nents == s->capents) {
		size_t cap = s->capents ? 2 * s->capents : 1024;
		ent *e = realloc(s->ents, cap * sizeof *e);
		if (!e)
			return TK_ERR_NOMEM;
		s->ents = e;
		s->capents = cap;
	}
	if (s->used + need > s->budget) {	/* one record larger than the budget */
		uint8_t *b = realloc(s->buf, s->used + need);
		if (!b)
			return TK_ERR_NOMEM;
		s->buf = b;
		s->budget = s->used + need;
	}
	uint8_t *h = s->buf + s->used;
	uint32_t l32 = (uint32_t)len;
	memcpy(h, &key, 8);
	memcpy(h + 8, &l32, 4);
	if (len)
		memcpy(h + HDR, rec, len);
	s->ents[s->nents++] = (ent){key, s->used};
	s->used += need;
	s->count++;
	return 0;
}

uint64_t tk_xsort_count(const tk_xsort *s)
{
	return s->count;
}

/* Make the head record of reader r whole in its buffer: 1, 0 at the end of
 * its run, or an error. */
static int run_head(tk_xsort *s, runrd *r)
{
	for (;;) {
		size_t avail = r->len - r->at;
		if (avail >= HDR) {
			uint32_t len;
			memcpy(&len, r->buf + r->at + 8, 4);
			if (len > MAX_REC)
				return TK_ERR_CORRUPT;
			if (avail >= HDR + len) {
				memcpy(&r->key, r->buf + r->at, 8);
				r->rec = r->buf + r->at + HDR;
				r->rlen = len;
				return 1;
			}
		}
		if (r->next == r->end)
			return avail ? TK_ERR_CORRUPT : 0;
		memmove(r->buf, r->buf + r->at, avail);
		r->len = avail;
		r->at = 0;
		size_t want = r->cap - r->len;
		if (want > r->end - r->next)
			want = (size_t)(r->end - r->next);
		ssize_t k = pread(fileno(s->fp), r->buf + r->len, want, (off_t)r->next);
		if (k <= 0)
			return TK_ERR_IO;
		r->len += (size_t)k;
		r->next += (uint64_t)k;
	}
}

static bool heap_less(const tk_xsort *s, size_t a, size_t b)
{
	const runrd *x = &s->rd[a], *y = &s->rd[b];
	return x->key != y->key ? x->key < y->key : a < b;
}

static void sift_down(tk_xsort *s, size_t k)
{
	for (;;) {
		size_t c = 2 * k + 1, m = k;
		if (c < s->nheap && heap_less(s, s->heap[c], s->heap[m]))
			m = c;
		if (c + 1 < s->nheap && heap_less(s, s->heap[c + 1], s->heap[m]))
			m = c + 1;
		if (m == k)
			return;
		size_t t = s->heap[k];
		s->heap[k] = s->heap[m];
		s->heap[m] = t;
		k = m;
	}
}

static int start_reading(tk_xsort *s)
{
	s->reading = true;
	if (!s->fp) {
		qsort(s->ents, s->nents, sizeof *s->ents, cmp_ent);
		return 0;
	}
	int err = s->nents ? spill(s) : 0;
	if (err)
		return err;
	if (fflush(s->fp) != 0)
		return TK_ERR_IO;
	free(s->buf);
	s->buf = NULL;
	free(s->ents);
	s->ents = NULL;
	s->rd = calloc(s->nruns, sizeof *s->rd);
	s->heap = malloc(s->nruns * sizeof *s->heap);
	if (!s->rd || !s->heap)
		return TK_ERR_NOMEM;
	size_t cap = s->budget / s->nruns;
	if (cap < 2 * (HDR + 4096))
		cap = 2 * (HDR + 4096);
	for (size_t i = 0; i < s->nruns; i++) {
		runrd *r = &s->rd[i];
		r->next = s->runs[i];
		r->end = s->runs[i + 1];
		r->cap = cap;
		if (!(r->buf = malloc(cap)))
			return TK_ERR_NOMEM;
		int rc = run_head(s, r);
		if (rc < 0)
			return rc;
		if (rc)
			s->heap[s->nheap++] = i;
	}
	for (size_t k = s->nheap / 2; k-- > 0;)
		sift_down(s, k);
	return 0;
}

int tk_xsort_next(tk_xsort *s, uint64_t *key, const void **rec, size_t *len)
{
	if (!s->reading) {
		int err = start_reading(s);
		if (err)
			return err;
	}
	if (!s->fp) {
		if (s->at == s->nents)
			return 0;
		const uint8_t *h = s->buf + s->ents[s->at++].off;
		uint32_t l;
		memcpy(key, h, 8);
		memcpy(&l, h + 8, 4);
		*rec = h + HDR;
		*len = l;
		return 1;
	}
	/* The previous head was handed out: advance its reader first. */
	if (s->heap_ready && s->nheap) {
		runrd *r = &s->rd[s->heap[0]];
		r->at += HDR + r->rlen;
		int rc = run_head(s, r);
		if (rc < 0)
			return rc;
		if (!rc)
			s->heap[0] = s->heap[--s->nheap];
		sift_down(s, 0);
	}
	s->heap_ready = true;
	if (!s->nheap)
		return 0;
	runrd *r = &s->rd[s->heap[0]];
	*key = r->key;
	*rec = r->rec;
	*len = r->rlen;
	return 1;
}

void tk_xsort_free(tk_xsort *s)
{
	if (!s)
		return;
	if (s->rd)
		for (size_t i = 0; i < s->nruns; i++)
			free(s->rd[i].buf);
	free(s->rd);
	free(s->heap);
	free(s->buf);
	free(s->ents);
	free(s->runs);
	if (s->fp)
		fclose(s->fp);
	free(s);
}
