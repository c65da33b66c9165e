/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading a mapped trace in pieces on several threads (see
 * pieces.h).
 *
 * Stages of a piece: cut (its bytes chosen), reading (a thread has it),
 * read, stitched.  A stitched piece is freed once no job holds it.  Worker
 * threads run submitted jobs first (they free memory), then read the next
 * piece if it lies within the window ahead of the stitching thread.  The
 * stitching thread reads a piece itself when no worker has taken it yet,
 * and runs jobs while it waits.  The pages of the mapping are given back
 * once a piece is stitched, so the trace's size never becomes resident.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pieces.h"
#include "tracekit/error.h"
#include "tracekit/input.h"

#include <time.h>

static uint64_t us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

#define DEFAULT_PIECE (1u << 20)
#define RELEASE_BYTES (4u << 20)

enum { ST_CUT, ST_READING, ST_READ, ST_STITCHED };

struct pdiag {
	tk_diag_level level;
	uint64_t line;
	size_t msg;		/* offset in text */
	bool once;
};

typedef struct job {
	int (*run)(void *arg);
	int (*done)(void *arg, int rc);
	void *arg;
	uint32_t first, last;
	int rc;
	int state;		/* 0 queued, 1 running, 2 finished */
	struct job *next_queued;
} job;

struct tk_pieces {
	tk_source *src;
	const tk_chunk_ops *ops;
	const uint8_t *map;
	uint64_t size;
	tk_pieces_opts o;
	const tk_pieces_client *c;
	pthread_mutex_t m;
	pthread_cond_t cv;
	pthread_t *th;
	unsigned nth;

	tk_piece **ring;	/* pieces [rbase, rbase + rcap) */
	uint32_t rbase, rcap;
	uint32_t ncut;
	uint64_t cut_end;
	size_t next_cut;	/* in o.cuts */
	bool all_cut;
	uint32_t next_read, next_stitch, window;
	uint64_t piece_bytes;

	job *qhead, *qtail;	/* queued */
	job **order;		/* submitted, not yet completed, in order */
	size_t norder, caporder, ohead;

	bool stop;
	tk_chunk_state last_end;
	uint64_t lines;
	uint32_t nexact;
	uint64_t released;	/* pages before this are given back */
	uint64_t t_stitch, t_read, t_jobs, t_wait, t_done;	/* stitching thread, us */
	uint64_t w_read, w_jobs, w_wait;	/* the workers, us */
	char **once;
	size_t nonce;
};

unsigned tk_pieces_threads(unsigned threads)
{
	if (threads)
		return threads;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* ---- pieces ---- */

static tk_piece **slot(tk_pieces *d, uint32_t index)
{
	return index >= d->rbase && index - d->rbase < d->rcap ? &d->ring[index - d->rbase] : NULL;
}

static tk_piece *get(tk_pieces *d, uint32_t index)
{
	tk_piece **s = slot(d, index);
	return s ? *s : NULL;
}

tk_piece *tk_pieces_get(tk_pieces *d, uint32_t index)
{
	pthread_mutex_lock(&d->m);
	tk_piece *p = get(d, index);
	pthread_mutex_unlock(&d->m);
	return p;
}

/* Make room for index in the ring. */
static int ring_fit(tk_pieces *d, uint32_t index)
{
	while (d->rcap && d->rbase < index && !d->ring[0]) {
		memmove(d->ring, d->ring + 1, (d->rcap - 1) * sizeof *d->ring);
		d->ring[d->rcap - 1] = NULL;
		d->rbase++;
	}
	if (index - d->rbase < d->rcap)
		return 0;
	uint32_t cap = d->rcap ? d->rcap : 16;
	while (index - d->rbase >= cap)
		cap *= 2;
	tk_piece **r = realloc(d->ring, cap * sizeof *r);
	if (!r)
		return TK_ERR_NOMEM;
	memset(r + d->rcap, 0, (cap - d->rcap) * sizeof *r);
	d->ring = r;
	d->rcap = cap;
	return 0;
}

/* Cut the next piece (lock held). */
static tk_piece *cut(tk_pieces *d)
{
	if (d->all_cut || ring_fit(d, d->ncut))
		return NULL;
	tk_piece *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	uint64_t begin = d->cut_end, end;
	if (d->o.cuts) {
		end = d->size;
		while (d->next_cut < d->o.ncuts) {
			uint64_t c = d->ops->boundary(d->map, d->size, d->o.cuts[d->next_cut]);
			if (c > begin) {
				end = c;
				break;
			}
			d->next_cut++;
		}
	} else {
		end = d->ops->boundary(d->map, d->size, begin + d->piece_bytes);
	}
	if (end >= d->size) {
		end = d->size;
		d->all_cut = true;
	}
	p->driver = d;
	p->index = d->ncut++;
	p->begin = begin;
	p->end = end;
	p->from = d->ops->warmup(d->map, d->size, begin);
	d->cut_end = end;
	*slot(d, p->index) = p;
	return p;
}

static void piece_diag(void *ctx, const tk_diag *diag, bool once)
{
	tk_piece *p = ctx;
	size_t n = strlen(diag->msg) + 1;
	if (p->ndiags == p->capdiags) {
		size_t cap = p->capdiags ? 2 * p->capdiags : 16;
		struct pdiag *nd = realloc(p->diags, cap * sizeof *nd);
		if (!nd)
			return;
		p->diags = nd;
		p->capdiags = cap;
	}
	if (p->textlen + n > p->textcap) {
		size_t cap = p->textcap ? 2 * p->textcap : 1024;
		while (cap < p->textlen + n)
			cap *= 2;
		char *t = realloc(p->text, cap);
		if (!t)
			return;
		p->text = t;
		p->textcap = cap;
	}
	memcpy(p->text + p->textlen, diag->msg, n);
	p->diags[p->ndiags++] = (struct pdiag){diag->level, diag->line, p->textlen, once};
	p->textlen += n;
}

static void clear_piece(tk_pieces *d, tk_piece *p)
{
	if (p->data)
		d->c->discard(d->c->ctx, p);
	p->data = NULL;
	p->ndiags = p->textlen = 0;
	p->status = 0;
	p->lines = 0;
}

/* Read a piece (no lock held): from the initial state after a warm-up,
 * or from *in. */
static void read_piece(tk_pieces *d, tk_piece *p, const tk_chunk_state *in)
{
	tk_chunk *ch;
	uint64_t from = in ? p->begin : p->from;
#ifdef MADV_POPULATE_READ
	/* Map the piece's pages in one go rather than fault by fault (not
	 * the warm-up's: they may have been given back already). */
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t page = pg > 0 ? (uint64_t)pg : 4096, a = p->begin / page * page;
	if (p->end > a)
		madvise((void *)(d->map + a), (size_t)(p->end - a), MADV_POPULATE_READ);
#endif
	int rc = d->ops->open(d->src, d->map, d->size, from, p->begin, p->end, in, piece_diag, p,
			      &ch);
	if (rc < 0) {
		p->status = rc;
		return;
	}
	rc = d->c->begin(d->c->ctx, p);
	const tk_event *ev;
	while (rc == 0) {
		rc = d->ops->next(ch, &ev);
		if (rc <= 0)
			break;
		rc = d->c->event(d->c->ctx, p, ev);
	}
	d->ops->state(ch, true, &p->begin_state);
	d->ops->state(ch, false, &p->end_state);
	p->lines = d->ops->lines(ch);
	d->ops->free(ch);
	if (rc == 0 && p->data)
		rc = d->c->end(d->c->ctx, p);
	p->status = rc;
}

static void release(tk_pieces *d, tk_piece *p)
{
	if (p->stage != ST_STITCHED || p->holds)
		return;
	*slot(d, p->index) = NULL;
	clear_piece(d, p);
	free(p->diags);
	free(p->text);
	free(p);
}

/* ---- jobs ---- */

int tk_pieces_submit(tk_pieces *d, int (*run)(void *arg), int (*done)(void *arg, int rc),
		     void *arg, uint32_t hold_first, uint32_t hold_last)
{
	job *j = calloc(1, sizeof *j);
	if (!j)
		return TK_ERR_NOMEM;
	*j = (job){run, done, arg, hold_first, hold_last, 0, 0, NULL};
	pthread_mutex_lock(&d->m);
	if (d->norder == d->caporder) {
		size_t cap = d->caporder ? 2 * d->caporder : 16;
		job **o = realloc(d->order, cap * sizeof *o);
		if (!o) {
			pthread_mutex_unlock(&d->m);
			free(j);
			return TK_ERR_NOMEM;
		}
		d->order = o;
		d->caporder = cap;
	}
	for (uint32_t i = hold_first; i <= hold_last; i++) {
		tk_piece *p = get(d, i);
		if (p)
			p->holds++;
	}
	d->order[d->norder++] = j;
	if (d->qtail)
		d->qtail->next_queued = j;
	else
		d->qhead = j;
	d->qtail = j;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->m);
	return 0;
}

void tk_pieces_hold(tk_pieces *d, uint32_t index, int delta)
{
	pthread_mutex_lock(&d->m);
	tk_piece *p = get(d, index);
	if (p) {
		if (delta > 0)
			p->holds += (unsigned)delta;
		else if (p->holds >= (unsigned)-delta)
			p->holds -= (unsigned)-delta;
		release(d, p);
	}
	pthread_mutex_unlock(&d->m);
}

/* Run one queued job, if any (lock held; released while it runs). */
static bool run_one(tk_pieces *d)
{
	job *j = d->qhead;
	if (!j)
		return false;
	d->qhead = j->next_queued;
	if (!d->qhead)
		d->qtail = NULL;
	j->state = 1;
	pthread_mutex_unlock(&d->m);
	int rc = j->run(j->arg);
	pthread_mutex_lock(&d->m);
	j->rc = rc;
	j->state = 2;
	pthread_cond_broadcast(&d->cv);
	return true;
}

/* Completions in order, on the stitching thread (lock held, released
 * around done).  With wait, until every job has completed. */
static int complete(tk_pieces *d, bool wait)
{
	int err = 0;
	while (d->ohead < d->norder) {
		job *j = d->order[d->ohead];
		if (j->state != 2) {
			if (!wait)
				break;
			if (!run_one(d))
				pthread_cond_wait(&d->cv, &d->m);
			continue;
		}
		d->ohead++;
		pthread_mutex_unlock(&d->m);
		int rc = j->done(j->arg, j->rc);
		pthread_mutex_lock(&d->m);
		if (rc < 0 && !err)
			err = rc;
		for (uint32_t i = j->first; i <= j->last; i++) {
			tk_piece *p = get(d, i);
			if (p && p->holds) {
				p->holds--;
				release(d, p);
			}
		}
		free(j);
		if (err)
			break;
	}
	if (d->ohead == d->norder)
		d->ohead = d->norder = 0;
	return err;
}

/* ---- threads ---- */

/* Read the next piece of the window, if any (lock held; released while
 * reading).  -1: nothing to read now. */
static int read_ahead(tk_pieces *d)
{
	while (d->next_read < d->next_stitch + d->window && (d->next_read < d->ncut || !d->all_cut)) {
		tk_piece *p = d->next_read < d->ncut ? get(d, d->next_read) : cut(d);
		if (!p)
			return -1;
		d->next_read++;
		if (p->stage != ST_CUT)
			continue;
		p->stage = ST_READING;
		pthread_mutex_unlock(&d->m);
		read_piece(d, p, NULL);
		pthread_mutex_lock(&d->m);
		p->stage = ST_READ;
		pthread_cond_broadcast(&d->cv);
		return 0;
	}
	return -1;
}

static void *worker(void *arg)
{
	tk_pieces *d = arg;
	pthread_mutex_lock(&d->m);
	while (!d->stop) {
		uint64_t t = us();
		if (run_one(d)) {
			d->w_jobs += us() - t;
			continue;
		}
		if (read_ahead(d) == 0) {
			d->w_read += us() - t;
			continue;
		}
		pthread_cond_wait(&d->cv, &d->m);
		d->w_wait += us() - t;
	}
	pthread_mutex_unlock(&d->m);
	return NULL;
}

/* ---- the stitching thread ---- */

static bool said_once(tk_pieces *d, const char *msg)
{
	for (size_t i = 0; i < d->nonce; i++)
		if (!strcmp(d->once[i], msg))
			return true;
	char **o = realloc(d->once, (d->nonce + 1) * sizeof *o);
	if (o) {
		d->once = o;
		if ((o[d->nonce] = strdup(msg)))
			d->nonce++;
	}
	return false;
}

static void report(tk_pieces *d, tk_piece *p)
{
	for (size_t i = 0; i < p->ndiags; i++) {
		const struct pdiag *pd = &p->diags[i];
		const char *msg = p->text + pd->msg;
		if (pd->once && said_once(d, msg))
			continue;
		if (pd->level == TK_DIAG_WARNING)
			d->src->warnings++;
		if (!d->o.diag)
			continue;
		tk_diag diag = {.level = pd->level, .file = tk_source_path(d->src),
				.line = pd->line ? pd->line + p->line_base : 0, .msg = msg};
		d->o.diag(d->o.diag_ctx, &diag);
	}
}

/* Give back the mapped pages of the stitched pieces (whole pages: the
 * one a cut falls in goes with the next piece). */
static void unmap_pages(tk_pieces *d, const tk_piece *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
	uint64_t b = p->end / page * page;
	/* 4 MB at a time: each call costs the other threads a TLB flush */
	if (b >= d->released + RELEASE_BYTES || (p->last && b > d->released)) {
		madvise((void *)(d->map + d->released), b - d->released, MADV_DONTNEED);
		d->released = b;
	}
}

static int stitch(tk_pieces *d, tk_piece *p)
{
	bool redo = p->index && memcmp(&p->begin_state, &d->last_end, sizeof d->last_end) != 0;
	for (int round = 0;; round++) {
		if (redo) {
			if (round > 1)
				return TK_ERR_CORRUPT;	/* an exact read asked to be redone */
			clear_piece(d, p);
			p->exact = true;
			d->nexact++;
			read_piece(d, p, p->index ? &d->last_end : NULL);
		}
		p->line_base = d->lines;
		if (p->status < 0 && !p->exact && p->status != TK_ERR_NOMEM && p->index) {
			/* Errors come from the true state only. */
			redo = true;
			continue;
		}
		report(d, p);
		if (p->status < 0)
			return p->status;
		int rc = d->c->stitch(d->c->ctx, p);
		if (rc < 0)
			return rc;
		if (rc == TK_PIECE_REDO && !p->exact) {
			redo = true;
			continue;
		}
		if (rc == TK_PIECE_REDO)
			return TK_ERR_CORRUPT;
		break;
	}
	d->lines += p->lines;
	d->last_end = p->end_state;
	unmap_pages(d, p);
	if (d->o.progress)
		d->o.progress(d->o.progress_ctx, p->end, d->size);
	return 0;
}

static int run_all(tk_pieces *d)
{
	int err = 0;
	pthread_mutex_lock(&d->m);
	for (;;) {
		if (d->all_cut && d->next_stitch == d->ncut)
			break;
		tk_piece *p = d->next_stitch < d->ncut ? get(d, d->next_stitch) : cut(d);
		if (!p) {
			err = TK_ERR_NOMEM;
			break;
		}
		while (p->stage != ST_READ) {
			uint64_t t = us();
			if (p->stage == ST_CUT) {
				if (d->next_read == p->index)
					d->next_read++;
				p->stage = ST_READING;
				pthread_mutex_unlock(&d->m);
				read_piece(d, p, NULL);
				pthread_mutex_lock(&d->m);
				p->stage = ST_READ;
				d->t_read += us() - t;
			} else if (run_one(d)) {
				d->t_jobs += us() - t;
			} else if (read_ahead(d) == 0) {
				d->t_read += us() - t;	/* while a worker reads this one */
			} else {
				pthread_cond_wait(&d->cv, &d->m);
				d->t_wait += us() - t;
			}
		}
		p->last = d->all_cut && p->index + 1 == d->ncut;
		pthread_mutex_unlock(&d->m);
		uint64_t t = us();
		err = stitch(d, p);
		d->t_stitch += us() - t;
		pthread_mutex_lock(&d->m);
		p->stage = ST_STITCHED;
		d->next_stitch++;
		pthread_cond_broadcast(&d->cv);
		release(d, p);
		if (err)
			break;
		/* Alone, run the jobs now; else only collect the finished ones,
		 * unless too many pieces wait for them. */
		while (!d->nth && run_one(d))
			;
		bool behind = d->next_stitch - d->rbase > 4 * d->window + 8;
		t = us();
		if ((err = complete(d, behind)))
			break;
		d->t_done += us() - t;
	}
	if (!err)
		err = complete(d, true);
	d->stop = true;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->m);
	return err;
}

int tk_pieces_run(tk_source *src, tk_pieces_opts *opts, const tk_pieces_client *client)
{
	if (!src->format || !src->format->chunks)
		return TK_ERR_UNSUPPORTED;
	/* Pieces are cut from the mapped file: a compressed trace (read
	 * through the input layer's decompressor) is read in order. */
	tk_input *in = tk_source_input(src);
	if (in && tk_input_get_format(in) != TK_INPUT_PLAIN)
		return TK_ERR_UNSUPPORTED;
	int fd = open(tk_source_path(src), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return TK_ERR_UNSUPPORTED;
	}
	tk_pieces *d = calloc(1, sizeof *d);
	if (!d) {
		close(fd);
		return TK_ERR_NOMEM;
	}
	d->src = src;
	d->ops = src->format->chunks;
	d->o = *opts;
	d->c = client;
	d->size = (uint64_t)st.st_size;
	int err = 0;
	if (d->size) {
		void *m = mmap(NULL, (size_t)d->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED)
			err = TK_ERR_IO;
		else
			d->map = m;
	}
	close(fd);
	unsigned threads = tk_pieces_threads(opts->threads);
	d->nth = threads - 1;
	d->window = threads + 2;
	/* The same size whatever the trace's: memory must not follow it. */
	d->piece_bytes = opts->piece_bytes ? opts->piece_bytes : DEFAULT_PIECE;
	pthread_mutex_init(&d->m, NULL);
	pthread_cond_init(&d->cv, NULL);
	if (!err && d->map)
		madvise((void *)d->map, (size_t)d->size, MADV_SEQUENTIAL);
	if (!err && d->nth && !(d->th = calloc(d->nth, sizeof *d->th)))
		err = TK_ERR_NOMEM;
	unsigned started = 0;
	for (; !err && started < d->nth; started++)
		if (pthread_create(&d->th[started], NULL, worker, d) != 0)
			break;
	d->nth = started;
	if (!err && d->size)
		err = run_all(d);
	pthread_mutex_lock(&d->m);
	d->stop = true;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->m);
	for (unsigned i = 0; i < started; i++)
		pthread_join(d->th[i], NULL);
	opts->pieces = d->ncut;
	opts->stats[0] = d->t_read;
	opts->stats[1] = d->t_stitch;
	opts->stats[2] = d->t_jobs;
	opts->stats[3] = d->t_done;
	opts->stats[4] = d->t_wait;
	opts->stats[5] = d->w_read;
	opts->stats[6] = d->w_jobs;
	opts->stats[7] = d->w_wait;
	opts->exact = d->nexact;
	opts->threads_used = started + 1;
	/* After an error: the jobs not completed are told so. */
	for (size_t i = d->ohead; i < d->norder; i++) {
		job *j = d->order[i];
		j->done(j->arg, j->state == 2 && j->rc < 0 ? j->rc : TK_ERR_INVAL);
		free(j);
	}
	for (uint32_t i = 0; i < d->rcap; i++)
		if (d->ring[i]) {
			clear_piece(d, d->ring[i]);
			free(d->ring[i]->diags);
			free(d->ring[i]->text);
			free(d->ring[i]);
		}
	free(d->ring);
	free(d->order);
	free(d->th);
	for (size_t i = 0; i < d->nonce; i++)
		free(d->once[i]);
	free(d->once);
	if (d->map)
		munmap((void *)d->map, (size_t)d->size);
	pthread_mutex_destroy(&d->m);
	pthread_cond_destroy(&d->cv);
	free(d);
	return err;
}
