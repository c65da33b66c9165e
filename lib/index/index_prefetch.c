/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading the trace on a second thread while the index is built.
 *
 * Parsing and indexing take about the same time, so on two cores the build
 * runs them side by side: a reader thread pulls events from the source and
 * copies them into batches (events plus the bytes they point to); the
 * builder takes full batches in order.  A few batches in flight bound the
 * memory.  Events are copied with TK_COPY_DATA_ONLY: the builder and the
 * call detector read no text.
 *
 * The source's diagnostic callback runs on the reader thread; the index
 * library serialises it with its own callbacks (tk_idx_cb_lock).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "index_build.h"

#define BATCH_EVENTS 4096
#define BATCH_ARENA (BATCH_EVENTS * (sizeof(tk_event) + 64))
#define NBATCH 4

pthread_mutex_t tk_idx_cb_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct batch {
	tk_event *ev[BATCH_EVENTS];	/* copies, in the arena */
	_Alignas(max_align_t) uint8_t arena[BATCH_ARENA];
	size_t nev, used;
	int status;		/* 0, or the source's error / end (in the last) */
	bool last;
	uint64_t pos;		/* source position after the batch */
} batch;

struct tk_prefetch {
	tk_source *src;
	pthread_t thread;
	pthread_mutex_t m;
	pthread_cond_t cv;
	batch *b[NBATCH];
	bool full[NBATCH];
	unsigned wr, rd;	/* batch being written / read */
	size_t ri;		/* next event in the batch being read */
	bool reading;		/* the consumer holds batch rd */
	bool stop;
	uint64_t size, pos;
};

/* Copy ev into b; false if it does not fit (b is then unchanged). */
static bool add(batch *b, const tk_event *ev)
{
	if (b->nev == BATCH_EVENTS)
		return false;
	size_t at = (b->used + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	size_t need = tk_event_copy_size(ev, TK_COPY_DATA_ONLY);
	if (at > BATCH_ARENA || BATCH_ARENA - at < need)
		return false;
	b->ev[b->nev++] = tk_event_copy_into(ev, TK_COPY_DATA_ONLY, b->arena + at, need);
	b->used = at + need;
	return true;
}

static void *reader(void *arg)
{
	tk_prefetch *p = arg;
	tk_event ev;
	bool pending = false;	/* ev did not fit in the last batch */
	for (;;) {
		pthread_mutex_lock(&p->m);
		while (p->full[p->wr] && !p->stop)
			pthread_cond_wait(&p->cv, &p->m);
		bool stop = p->stop;
		pthread_mutex_unlock(&p->m);
		if (stop)
			return NULL;
		batch *b = p->b[p->wr];
		b->nev = b->used = 0;
		b->status = 0;
		b->last = false;
		if (pending && add(b, &ev))
			pending = false;
		if (pending) {	/* does not fit even an empty batch */
			b->status = TK_ERR_UNSUPPORTED;
			b->last = true;
		}
		while (!pending && !b->last) {
			int r = tk_source_next(p->src, &ev);
			if (r <= 0) {
				b->status = r;
				b->last = true;
				break;
			}
			if (!add(b, &ev))
				pending = true;	/* starts the next batch */
		}
		b->pos = tk_source_pos(p->src);
		pthread_mutex_lock(&p->m);
		p->full[p->wr] = true;
		p->wr = (p->wr + 1) % NBATCH;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->m);
		if (b->last)
			return NULL;
	}
}

int tk_prefetch_start(tk_source *src, tk_prefetch **out)
{
	tk_prefetch *p = calloc(1, sizeof *p);
	if (!p)
		return TK_ERR_NOMEM;
	p->src = src;
	p->size = tk_source_size(src);
	for (int i = 0; i < NBATCH; i++)
		if (!(p->b[i] = malloc(sizeof(batch)))) {
			for (int j = 0; j < i; j++)
				free(p->b[j]);
			free(p);
			return TK_ERR_NOMEM;
		}
	pthread_mutex_init(&p->m, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, reader, p) != 0) {
		pthread_mutex_destroy(&p->m);
		pthread_cond_destroy(&p->cv);
		for (int i = 0; i < NBATCH; i++)
			free(p->b[i]);
		free(p);
		return TK_ERR_UNSUPPORTED;
	}
	*out = p;
	return 0;
}

int tk_prefetch_next(tk_prefetch *p, tk_event *ev)
{
	for (;;) {
		if (p->reading) {
			batch *b = p->b[p->rd];
			if (p->ri < b->nev) {
				*ev = *b->ev[p->ri++];
				return 1;
			}
			if (b->last)
				return b->status;
			/* hand the batch back */
			pthread_mutex_lock(&p->m);
			p->full[p->rd] = false;
			p->rd = (p->rd + 1) % NBATCH;
			p->reading = false;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->m);
		}
		pthread_mutex_lock(&p->m);
		while (!p->full[p->rd])
			pthread_cond_wait(&p->cv, &p->m);
		pthread_mutex_unlock(&p->m);
		p->reading = true;
		p->ri = 0;
		p->pos = p->b[p->rd]->pos;
	}
}

uint64_t tk_prefetch_pos(const tk_prefetch *p)
{
	return p->pos;
}

uint64_t tk_prefetch_size(const tk_prefetch *p)
{
	return p->size;
}

void tk_prefetch_stop(tk_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->m);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->m);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->m);
	pthread_cond_destroy(&p->cv);
	for (int i = 0; i < NBATCH; i++)
		free(p->b[i]);
	free(p);
}
