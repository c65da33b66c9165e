/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: decompressing on a second thread while the caller reads.
 *
 * A compressed trace read in order costs its decompression on top of its
 * parsing; on two cores the two overlap.  A reader thread runs the
 * sequential decoder into a ring of buffers; tk_input_read copies out of
 * the oldest full one.  The decoder's state (its checkpoints, its error
 * message) is touched only by that thread until the consumer has seen the
 * last buffer and joined it.  Progress (file bytes consumed) travels with
 * each buffer.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "input_impl.h"

#define NBUF 4
#define BUF (512u << 10)

typedef struct rbuf {
	uint8_t *data;
	size_t len;
	int rc;
	bool last;
	uint64_t consumed;	/* file offset after this buffer's data */
} rbuf;

struct tk_readahead {
	tk_input *in;
	pthread_t thread;
	pthread_mutex_t m;
	pthread_cond_t cv;
	rbuf b[NBUF];
	bool full[NBUF];
	unsigned wr, rd;
	size_t rpos;		/* next byte of b[rd] to hand out */
	bool holding;		/* the consumer has b[rd] */
	bool stop, joined;
	uint64_t consumed;
};

static void *reader(void *arg)
{
	tk_readahead *ra = arg;
	tk_dec *d = ra->in->seq;
	for (;;) {
		pthread_mutex_lock(&ra->m);
		while (ra->full[ra->wr] && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->m);
		bool stop = ra->stop;
		pthread_mutex_unlock(&ra->m);
		if (stop)
			return NULL;
		rbuf *b = &ra->b[ra->wr];
		b->rc = d->codec->read(d, b->data, BUF, &b->len);
		b->last = b->rc < 0 || b->len < BUF;	/* a decoder fills all it is asked unless done */
		b->consumed = tk_cin_off(&d->cin);
		pthread_mutex_lock(&ra->m);
		ra->full[ra->wr] = true;
		ra->wr = (ra->wr + 1) % NBUF;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->m);
		if (b->last)
			return NULL;
	}
}

int tk_readahead_start(tk_input *in)
{
	tk_readahead *ra = calloc(1, sizeof *ra);
	if (!ra)
		return TK_ERR_NOMEM;
	ra->in = in;
	for (int i = 0; i < NBUF; i++)
		if (!(ra->b[i].data = malloc(BUF))) {
			for (int j = 0; j < i; j++)
				free(ra->b[j].data);
			free(ra);
			return TK_ERR_NOMEM;
		}
	pthread_mutex_init(&ra->m, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->thread, NULL, reader, ra) != 0) {
		ra->joined = true;
		tk_readahead_stop(ra);
		return TK_ERR_UNSUPPORTED;
	}
	in->ra = ra;
	return 0;
}

int tk_readahead_read(tk_readahead *ra, uint8_t *out, size_t n, size_t *got, bool *end)
{
	*got = 0;
	*end = false;
	while (*got < n) {
		if (!ra->holding) {
			pthread_mutex_lock(&ra->m);
			while (!ra->full[ra->rd])
				pthread_cond_wait(&ra->cv, &ra->m);
			pthread_mutex_unlock(&ra->m);
			ra->holding = true;
			ra->rpos = 0;
		}
		rbuf *b = &ra->b[ra->rd];
		size_t k = b->len - ra->rpos < n - *got ? b->len - ra->rpos : n - *got;
		memcpy(out + *got, b->data + ra->rpos, k);
		ra->rpos += k;
		*got += k;
		if (ra->rpos < b->len)
			break;
		ra->consumed = b->consumed;
		if (b->last) {
			if (!ra->joined) {
				pthread_join(ra->thread, NULL);
				ra->joined = true;
			}
			*end = true;
			return b->rc;
		}
		pthread_mutex_lock(&ra->m);
		ra->full[ra->rd] = false;
		ra->rd = (ra->rd + 1) % NBUF;
		ra->holding = false;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->m);
	}
	return 0;
}

uint64_t tk_readahead_consumed(const tk_readahead *ra)
{
	return ra->consumed;
}

void tk_readahead_stop(tk_readahead *ra)
{
	if (!ra)
		return;
	if (!ra->joined) {
		pthread_mutex_lock(&ra->m);
		ra->stop = true;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->m);
		pthread_join(ra->thread, NULL);
	}
	pthread_mutex_destroy(&ra->m);
	pthread_cond_destroy(&ra->cv);
	for (int i = 0; i < NBUF; i++)
		free(ra->b[i].data);
	free(ra);
}
