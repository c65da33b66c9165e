/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing the index's memory sections.
 *
 * The memory event records arrive in trace order; the file keeps them by
 * address.  Records are collected into runs of bounded size, each sorted
 * by (chunk, position, order) and spilled to a temporary file when full;
 * at the end the runs are merged, so memory stays bounded whatever the
 * trace length.  The runs of the pieces of a trace read in parallel are
 * sorted by their workers and are in trace order with each other: their
 * merge only compares chunk numbers, when a run moves to its next chunk
 * (a heap of runs by (chunk, run)); the other runs are merged record by
 * record with the stream of theirs.
 *
 * The merged stream becomes, per 64-byte chunk, a list of pages of at most
 * TK_PAGE_EVENTS events.  Each page starts with a snapshot of the chunk
 * (known mask in its header, the known bytes in its body), so a query
 * replays at most one page after a binary search on the page headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_build.h"

#ifdef TK_IDX_SMALL_BUFFERS	/* tests: many runs, many refills */
#define RUN_RECORDS 1000u
#define MERGE_MEM 4096u
#define MEM_RUNS 2000u
#else
#define RUN_RECORDS (1u << 15)	/* 32 K records (1.5 MB) per run */
#define MERGE_MEM (2u << 20)	/* read buffers of all runs while merging */
#define MEM_RUNS (1u << 16)	/* records of pieces' runs kept in memory (3 MB) */
#endif

static int cmp_mrec(const void *pa, const void *pb)
{
	const tk_mrec *a = pa, *b = pb;
	if (a->chunk != b->chunk)
		return a->chunk < b->chunk ? -1 : 1;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (int)a->off - (int)b->off;
}

/* Sort in place (qsort would allocate a copy of the whole run): quicksort
 * with a median-of-three pivot, insertion sort for short ranges, recursion
 * on the smaller side only. */
static void swap_rec(tk_mrec *a, tk_mrec *b)
{
	tk_mrec t = *a;
	*a = *b;
	*b = t;
}

static void sort_recs(tk_mrec *v, size_t n)
{
	while (n > 16) {
		tk_mrec *a = v, *m = v + n / 2, *z = v + n - 1;
		if (cmp_mrec(m, a) < 0) swap_rec(m, a);
		if (cmp_mrec(z, a) < 0) swap_rec(z, a);
		if (cmp_mrec(z, m) < 0) swap_rec(z, m);
		tk_mrec pivot = *m;
		size_t i = 0, j = n - 1;
		for (;;) {
			while (cmp_mrec(&v[i], &pivot) < 0)
				i++;
			while (cmp_mrec(&pivot, &v[j]) < 0)
				j--;
			if (i >= j)
				break;
			swap_rec(&v[i++], &v[j--]);
		}
		/* [0, j] <= pivot <= [j + 1, n) */
		if (j + 1 < n - j - 1) {
			sort_recs(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			sort_recs(v + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		tk_mrec x = v[i];
		size_t k = i;
		for (; k && cmp_mrec(&x, &v[k - 1]) < 0; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

static tk_mrun *new_run(tk_mruns *r)
{
	if (r->nruns == r->capruns) {
		size_t cap = r->capruns ? 2 * r->capruns : 64;
		tk_mrun *n = realloc(r->runs, cap * sizeof *n);
		if (!n)
			return NULL;
		r->runs = n;
		r->capruns = cap;
	}
	tk_mrun *run = &r->runs[r->nruns++];
	memset(run, 0, sizeof *run);
	return run;
}

static int write_run(tk_mruns *r, tk_mrun *run, const tk_mrec *recs, size_t n)
{
	if (!r->spill && !(r->spill = tmpfile()))
		return TK_ERR_IO;
	run->off = r->spilled;
	run->n = n;
	if (n && fwrite(recs, sizeof *recs, n, r->spill) != n)
		return TK_ERR_IO;
	r->spilled += n;
	return 0;
}

static int spill_run(tk_mruns *r)
{
	sort_recs(r->buf, r->len);
	tk_mrun *run = new_run(r);
	if (!run)
		return TK_ERR_NOMEM;
	int err = write_run(r, run, r->buf, r->len);
	r->len = 0;
	return err;
}

static bool sorted(const tk_mrec *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_mrec(&v[i - 1], &v[i]) > 0)
			return false;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A piece's records arrive in trace order, and a piece touches few 64-byte
 * chunks: a stable distribution by chunk puts nearly all of them in order
 * in linear time (a fill dated back to a mark arrives late: the rare chunk
 * that is not in order after it is sorted). */
void tk_mruns_sort(tk_mruns *r)
{
	size_t n = r->len;
	size_t cap = 256;
	while (cap < 2 * n && cap < (1u << 16))
		cap *= 2;
	typedef struct {
		uint64_t chunk;
		size_t count;	/* then the offset of its bucket */
	} slot;
	slot *map = n >= 64 ? calloc(cap, sizeof *map) : NULL;
	uint64_t *keys = map ? malloc((cap / 2) * sizeof *keys) : NULL;
	tk_mrec *out = keys ? malloc(n * sizeof *out) : NULL;
	size_t k = 0;
	bool ok = out != NULL;
	for (size_t i = 0; ok && i < n; i++) {
		uint64_t c = r->buf[i].chunk;
		size_t h = (size_t)((c * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
		while (map[h].count && map[h].chunk != c)
			h = (h + 1) & (cap - 1);
		if (!map[h].count) {
			if (k == cap / 2) {
				ok = false;	/* too many chunks for this to pay */
				break;
			}
			map[h].chunk = c;
			keys[k++] = c;
		}
		map[h].count++;
	}
	if (!ok) {
		free(map);
		free(keys);
		free(out);
		sort_recs(r->buf, n);
		return;
	}
	qsort(keys, k, sizeof *keys, cmp_u64);
	size_t at = 0;
	for (size_t j = 0; j < k; j++) {
		size_t h = (size_t)((keys[j] * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
		while (map[h].chunk != keys[j])
			h = (h + 1) & (cap - 1);
		size_t c = map[h].count;
		map[h].count = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t c = r->buf[i].chunk;
		size_t h = (size_t)((c * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
		while (map[h].chunk != c)
			h = (h + 1) & (cap - 1);
		out[map[h].count++] = r->buf[i];
	}
	/* each bucket now ends where the next begins */
	for (size_t j = 0, b = 0; j < k; j++) {
		size_t h = (size_t)((keys[j] * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
		while (map[h].chunk != keys[j])
			h = (h + 1) & (cap - 1);
		size_t e = map[h].count;
		if (!sorted(out + b, e - b))
			sort_recs(out + b, e - b);
		b = e;
	}
	free(r->buf);
	r->buf = out;
	r->cap = n;
	free(map);
	free(keys);
}

int tk_mruns_add_piece(tk_mruns *r, tk_mruns *piece, uint64_t step_base, uint64_t order_base)
{
	if (!piece->len)
		return 0;
	for (size_t i = 0; i < piece->len; i++) {
		tk_mrec *m = &piece->buf[i];
		uint64_t g = step_base + m->pos;
		m->pos = g ? g - 1 : 0;
		m->order += order_base;
	}
	tk_mrun *run = new_run(r);
	if (!run)
		return TK_ERR_NOMEM;
	run->time = true;
	if (r->inmem + piece->len <= MEM_RUNS) {
		run->mem = piece->buf;
		run->n = piece->len;
		r->inmem += piece->len;
		piece->buf = NULL;
		piece->len = piece->cap = 0;
		return 0;
	}
	return write_run(r, run, piece->buf, piece->len);
}

int tk_mruns_add(tk_mruns *r, const tk_mrec *rec)
{
	if (r->len == r->cap) {
		if (r->cap >= RUN_RECORDS && !r->keep) {
			int err = spill_run(r);
			if (err)
				return err;
		} else {
			size_t cap = r->cap ? r->cap * 2 : 4096;
			tk_mrec *b = realloc(r->buf, cap * sizeof *b);
			if (!b)
				return TK_ERR_NOMEM;
			r->buf = b;
			r->cap = cap;
		}
	}
	r->buf[r->len++] = *rec;
	return 0;
}

void tk_mruns_free(tk_mruns *r)
{
	free(r->buf);
	for (size_t i = 0; i < r->nruns; i++)
		free(r->runs[i].mem);
	free(r->runs);
	if (r->spill)
		fclose(r->spill);
	memset(r, 0, sizeof *r);
}

/* ---- the page writer ---- */

typedef struct pagew {
	tk_ixw *w;
	tk_spill pagehdr, chunkdir;
	uint64_t npages;
	uint64_t body_off;	/* next body's offset in MEMDATA */

	bool in_chunk;
	uint64_t chunk;
	uint64_t chunk_first_page;
	tk_chunkstate st;	/* chunk state after the events so far */

	/* the page being built */
	unsigned nev;
	uint64_t first_pos, prev_pos, known0, wmask;
	uint8_t body[TK_CHUNK_BYTES + TK_PAGE_EVENTS * (10 + 2 + TK_CHUNK_BYTES)];
	size_t blen;
} pagew;

static int end_page(pagew *p)
{
	if (!p->nev)
		return 0;
	uint8_t h[TK_PAGE_SIZE];
	tk_put64(h + TK_PG_FIRSTPOS, p->first_pos);
	tk_put64(h + TK_PG_BODY, p->body_off);
	tk_put64(h + TK_PG_KNOWN, p->known0);
	tk_put64(h + TK_PG_WMASK, p->wmask);
	tk_put32(h + TK_PG_NEVENTS, p->nev);
	tk_put32(h + TK_PG_BODYLEN, (uint32_t)p->blen);
	int err = tk_spill_write(&p->pagehdr, h, sizeof h);
	if (!err)
		err = tk_ixw_write(p->w, p->body, p->blen);
	p->body_off += p->blen;
	p->npages++;
	p->nev = 0;
	return err;
}

static int end_chunk(pagew *p)
{
	if (!p->in_chunk)
		return 0;
	int err = end_page(p);
	if (err)
		return err;
	uint8_t e[TK_CH_ENTRY];
	tk_put64(e + TK_CH_ADDR, p->chunk << TK_CHUNK_SHIFT);
	tk_put64(e + TK_CH_FIRSTPAGE, p->chunk_first_page);
	tk_put32(e + TK_CH_NPAGES, (uint32_t)(p->npages - p->chunk_first_page));
	tk_put32(e + TK_CH_NPAGES + 4, 0);
	p->in_chunk = false;
	return tk_spill_write(&p->chunkdir, e, sizeof e);
}

/* Append one event to the chunk's current page, starting a new chunk or
 * page as needed. */
static int page_event(pagew *p, const tk_mrec *r)
{
	int err;
	if (!p->in_chunk || r->chunk != p->chunk) {
		if ((err = end_chunk(p)))
			return err;
		p->in_chunk = true;
		p->chunk = r->chunk;
		p->chunk_first_page = p->npages;
		memset(&p->st, 0, sizeof p->st);
	}
	if (p->nev == TK_PAGE_EVENTS && (err = end_page(p)))
		return err;
	if (!p->nev) {
		/* Snapshot: the known bytes before this page. */
		p->first_pos = p->prev_pos = r->pos;
		p->known0 = p->st.known;
		p->wmask = 0;
		p->blen = 0;
		for (unsigned i = 0; i < TK_CHUNK_BYTES; i++)
			if (p->st.known >> i & 1)
				p->body[p->blen++] = p->st.value[i];
	}
	uint64_t mask = tk_mask_range(r->off, r->len);
	p->blen += tk_putv(p->body + p->blen, r->pos - p->prev_pos);
	p->prev_pos = r->pos;
	p->body[p->blen++] = (uint8_t)(r->kind << 6 | r->off);
	p->body[p->blen++] = (uint8_t)(r->len - 1);
	if (r->kind == TK_MK_UNKNOWN) {
		p->st.known &= ~mask;
		p->wmask |= mask;
	} else {
		memcpy(p->body + p->blen, r->data, r->len);
		p->blen += r->len;
		memcpy(p->st.value + r->off, r->data, r->len);
		p->st.known |= mask;
		if (r->kind == TK_MK_WRITE)
			p->wmask |= mask;
	}
	p->nev++;
	return 0;
}

/* ---- merging ---- */

typedef struct runrd {
	const tk_mrun *run;
	uint64_t next, end;	/* record indexes in the spill file */
	tk_mrec *buf;		/* the run itself when in memory */
	size_t len, i, cap;
	uint32_t index;		/* of the run */
} runrd;

/* Make the head available: 1, 0 when the run is exhausted, or an error. */
static int run_head(FILE *fp, runrd *rr)
{
	if (rr->i < rr->len)
		return 1;
	if (rr->run->mem || rr->next == rr->end)
		return 0;
	size_t n = rr->end - rr->next < rr->cap ? (size_t)(rr->end - rr->next) : rr->cap;
	if (fseeko(fp, (off_t)(rr->next * sizeof(tk_mrec)), SEEK_SET) != 0 ||
	    fread(rr->buf, sizeof(tk_mrec), n, fp) != n)
		return TK_ERR_IO;
	rr->next += n;
	rr->len = n;
	rr->i = 0;
	return 1;
}

static inline const tk_mrec *head(const runrd *rr)
{
	return &rr->buf[rr->i];
}

/* Time runs: by (chunk, run). */
static bool time_less(const runrd *a, const runrd *b)
{
	uint64_t x = head(a)->chunk, y = head(b)->chunk;
	return x != y ? x < y : a->index < b->index;
}

/* A binary heap of run readers. */
typedef struct rheap {
	runrd **h;
	size_t n;
	bool time;		/* order: time_less, else the record's key */
} rheap;

static bool less(const rheap *hp, const runrd *a, const runrd *b)
{
	return hp->time ? time_less(a, b) : cmp_mrec(head(a), head(b)) < 0;
}

static void sift(rheap *hp, size_t k)
{
	for (;;) {
		size_t c = 2 * k + 1, m = k;
		if (c < hp->n && less(hp, hp->h[c], hp->h[m]))
			m = c;
		if (c + 1 < hp->n && less(hp, hp->h[c + 1], hp->h[m]))
			m = c + 1;
		if (m == k)
			return;
		runrd *t = hp->h[k];
		hp->h[k] = hp->h[m];
		hp->h[m] = t;
		k = m;
	}
}

static void heapify(rheap *hp)
{
	for (size_t k = hp->n / 2; k-- > 0;)
		sift(hp, k);
}

static int merge_runs(tk_mruns *r, pagew *p)
{
	size_t n = r->nruns;
	runrd *rd = calloc(n + 1, sizeof *rd);
	runrd **th = malloc((n + 1) * sizeof *th), **kh = malloc((n + 1) * sizeof *kh);
	rheap times = {th, 0, true}, keys = {kh, 0, false};
	int err = !rd || !th || !kh ? TK_ERR_NOMEM : 0;
	size_t files = 0;
	for (size_t i = 0; i < n; i++)
		files += !r->runs[i].mem;
	/* The read buffers of the runs in the file share a fixed budget. */
	size_t cap = MERGE_MEM / sizeof(tk_mrec) / (files ? files : 1);
	if (cap < 16)
		cap = 16;
	for (size_t i = 0; i < n && !err; i++) {
		runrd *rr = &rd[i];
		rr->run = &r->runs[i];
		rr->index = (uint32_t)i;
		if (rr->run->mem) {
			rr->buf = rr->run->mem;
			rr->len = (size_t)rr->run->n;
		} else {
			rr->next = rr->run->off;
			rr->end = rr->run->off + rr->run->n;
			rr->cap = cap;
			if (!(rr->buf = malloc(cap * sizeof(tk_mrec)))) {
				err = TK_ERR_NOMEM;
				break;
			}
		}
		int rc = run_head(r->spill, rr);
		if (rc < 0)
			err = rc;
		else if (rc)
			(rr->run->time ? &times : &keys)->h[(rr->run->time ? &times : &keys)->n++] = rr;
	}
	heapify(&times);
	/* The time runs take part in the record merge as one stream: its
	 * head is the head of the first run with the smallest chunk. */
	runrd stream = {0};
	bool have_stream = times.n > 0;
	if (have_stream)
		keys.h[keys.n++] = &stream;
#define HEAD_OF(x) ((x) == &stream ? head(times.h[0]) : head(x))
	/* heapify keys by the record key, the stream by its current head */
	for (size_t s = keys.n / 2; s-- > 0;) {
		size_t k = s;
		for (;;) {
			size_t c = 2 * k + 1, m = k;
			if (c < keys.n && cmp_mrec(HEAD_OF(keys.h[c]), HEAD_OF(keys.h[m])) < 0) m = c;
			if (c + 1 < keys.n && cmp_mrec(HEAD_OF(keys.h[c + 1]), HEAD_OF(keys.h[m])) < 0) m = c + 1;
			if (m == k) break;
			runrd *t = keys.h[k]; keys.h[k] = keys.h[m]; keys.h[m] = t;
			k = m;
		}
	}
	while (keys.n && !err) {
		runrd *top = keys.h[0];
		bool from_stream = top == &stream;
		runrd *rr = from_stream ? times.h[0] : top;
		uint64_t chunk = head(rr)->chunk;
		if ((err = page_event(p, head(rr))))
			break;
		rr->i++;
		int rc = run_head(r->spill, rr);
		if (rc < 0) {
			err = rc;
			break;
		}
		bool gone = !rc;
		if (from_stream) {
			if (gone)
				times.h[0] = times.h[--times.n];
			if (gone || head(rr)->chunk != chunk)
				sift(&times, 0);
			gone = times.n == 0;
		}
		if (gone)
			keys.h[0] = keys.h[--keys.n];
		size_t k = 0;
		for (;;) {
			size_t c = 2 * k + 1, m = k;
			if (c < keys.n && cmp_mrec(HEAD_OF(keys.h[c]), HEAD_OF(keys.h[m])) < 0) m = c;
			if (c + 1 < keys.n && cmp_mrec(HEAD_OF(keys.h[c + 1]), HEAD_OF(keys.h[m])) < 0) m = c + 1;
			if (m == k) break;
			runrd *t = keys.h[k]; keys.h[k] = keys.h[m]; keys.h[m] = t;
			k = m;
		}
	}
#undef HEAD_OF
	if (rd)
		for (size_t i = 0; i < n; i++)
			if (!rd[i].run || !rd[i].run->mem)
				free(rd[i].buf);
	free(rd);
	free(th);
	free(kh);
	return err;
}

/* Write a spilled buffer as one whole section. */
static int spilled_section(tk_ixw *w, uint32_t id, tk_spill *s)
{
	int err = tk_ixw_begin(w, id);
	if (!err)
		err = tk_spill_copy(s, w);
	if (!err)
		err = tk_ixw_end(w);
	return err;
}

int tk_mruns_write(tk_mruns *r, tk_ixw *w)
{
	pagew *p = calloc(1, sizeof *p);
	if (!p)
		return TK_ERR_NOMEM;
	p->w = w;
	int err = tk_ixw_begin(w, TK_SEC_MEMDATA);
	if (!err) {
		if (!r->nruns) {
			sort_recs(r->buf, r->len);
			for (size_t i = 0; i < r->len && !err; i++)
				err = page_event(p, &r->buf[i]);
		} else {
			/* The records still collected: one more run, in memory. */
			if (r->len) {
				sort_recs(r->buf, r->len);
				tk_mrun *run = new_run(r);
				if (!run) {
					err = TK_ERR_NOMEM;
				} else {
					run->mem = r->buf;
					run->n = r->len;
					r->buf = NULL;
					r->len = r->cap = 0;
				}
			}
			if (!err)
				err = merge_runs(r, p);
		}
	}
	if (!err)
		err = end_chunk(p);
	if (!err)
		err = tk_ixw_end(w);
	if (!err)
		err = spilled_section(w, TK_SEC_PAGEHDR, &p->pagehdr);
	if (!err)
		err = spilled_section(w, TK_SEC_CHUNKDIR, &p->chunkdir);
	tk_spill_free(&p->pagehdr);
	tk_spill_free(&p->chunkdir);
	free(p);
	tk_mruns_free(r);
	return err;
}
