/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: the pull API over concurrently decoded pieces.
 *
 * With N threads, N - 1 worker threads take pieces in order, each decoding
 * its piece into a list of chunks; the reader (the caller's thread) takes
 * the chunks of piece 0, then piece 1, ...  When the piece it reads has no
 * chunk ready, the reader does not wait: it decodes the next piece no
 * worker has taken, as one more worker would (help()).  So N threads keep N
 * cores busy, and none shares a core with another.  At most 2 pieces per
 * thread are in flight and a piece holds at most CHUNK_BUDGET / threads
 * unread chunks (but 8; then its decoder waits), so memory stays bounded
 * (2 * CHUNK_BUDGET chunks of 64 KiB, 32 MiB, for up to 32 threads).  When
 * threads do wait they wake each other in batches (READER_BATCH, half a
 * full slot).  With one thread the reader decodes each piece itself, chunk
 * by chunk, as it reads it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt_decode.h"

#define CHUNK_BUDGET 256
/* A reader that caught up with its piece's worker waits for this many
 * chunks (or the piece's end), not one: waking it for every chunk cost
 * more in context switches than reading the chunk. */
#define READER_BATCH 4
/* A reader that helps decodes this many chunks (or to the piece's end, or
 * a full slot) before it looks at piece cur again: switching more often
 * cost more CPU (with 1 chunk, 3% more user time on 2 cores). */
#define HELP_CHUNKS 32
_Static_assert(sizeof(struct rec) == 32, "records stay small");

struct worker {
	struct tk_pt_decode *d;
	pthread_t thread;
	bool started;
	struct pt_image *image;
	struct pt_insn_cache *cache;
};

struct slot {
	struct chunk *head, *tail;
	unsigned nchunks;
	bool done;
};

struct tk_pt_decode {
	tk_pt *pt;
	unsigned stream;
	const struct pt_stream *st;
	tk_pt_decode_opts o;
	struct piece *pieces;
	unsigned npieces;
	struct slot *slots;

	unsigned nworkers;	/* threads started: all but the reader */
	unsigned max_chunks;	/* unread chunks a piece may hold */
	struct worker *workers;	/* nworkers + 1: the last is the reader's */
	pthread_mutex_t mu;
	pthread_cond_t cv_reader, cv_workers;
	bool sync_ready;
	unsigned next_piece;	/* the next piece a worker takes */
	bool stop;
	int error;
	struct chunk *free_chunks;

	/* the reader */
	unsigned cur;		/* the piece being read */
	struct chunk *chunk;	/* the chunk being read */
	uint32_t idx;
	bool gap_done;		/* the gap after piece cur was yielded */
	bool reader_waiting;	/* for chunks of piece cur (under mu) */
	bool inline_active;	/* one thread: pd decodes piece cur */
	bool helping;		/* threads: pd decodes piece help_k */
	unsigned help_k;
	struct piece_dec pd;
	uint64_t insns, blocks;
	uint64_t pos;
};

void tk_pt_decode_opts_init(tk_pt_decode_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->size = sizeof *opts;
}

static struct chunk *get_chunk(struct tk_pt_decode *d)
{
	struct chunk *c = NULL;
	if (d->nworkers)
		pthread_mutex_lock(&d->mu);
	if (d->free_chunks) {
		c = d->free_chunks;
		d->free_chunks = c->next;
	}
	if (d->nworkers)
		pthread_mutex_unlock(&d->mu);
	if (!c) {
		c = malloc(sizeof *c);
		if (!c)
			return NULL;
		c->side = NULL;
		c->sidecap = 0;
	}
	c->next = NULL;
	c->n = 0;
	c->nside = 0;
	c->ninsns = c->nblocks = 0;
	return c;
}

/* Called with the lock held (or single-threaded). */
static void put_chunk(struct tk_pt_decode *d, struct chunk *c)
{
	c->next = d->free_chunks;
	d->free_chunks = c;
}

static void free_chunk_list(struct chunk *c)
{
	while (c) {
		struct chunk *n = c->next;
		free(c->side);
		free(c);
		c = n;
	}
}

static int worker_setup(struct tk_pt_decode *d, struct worker *w)
{
	w->d = d;
	w->image = pt_image_alloc(NULL);
	if (!w->image || tk_pt_fill_image(d->pt, w->image) < 0)
		return TK_ERR_NOMEM;
	return tk_pt_insn_cache_new(d->pt, &w->cache);
}

static void worker_teardown(struct worker *w)
{
	pt_image_free(w->image);
	tk_pt_insn_cache_free(w->cache);
	w->image = NULL;
	w->cache = NULL;
}

/* A chunk of piece k decoded: into its slot (mu held). */
static void queue_chunk(struct tk_pt_decode *d, unsigned k, struct chunk *c)
{
	struct slot *s = &d->slots[k];
	if (!c->n && !c->ninsns) {
		put_chunk(d, c);
		return;
	}
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	s->nchunks++;
	if (d->reader_waiting && k == d->cur && s->nchunks >= READER_BATCH)
		pthread_cond_broadcast(&d->cv_reader);
}

/* Decode piece k into its slot. */
static void run_piece(struct worker *w, unsigned k)
{
	struct tk_pt_decode *d = w->d;
	struct piece_dec pd;
	tk_pt_piece_init(&pd, d->pt, d->st, &d->o, &d->pieces[k], w->image, w->cache);
	int rc = 0;
	for (;;) {
		struct chunk *c = get_chunk(d);
		if (!c) {
			rc = TK_ERR_NOMEM;
			break;
		}
		rc = tk_pt_piece_fill(&pd, c);
		pthread_mutex_lock(&d->mu);
		struct slot *s = &d->slots[k];
		queue_chunk(d, k, c);
		/* A full slot waits until the reader has taken half of it. */
		if (rc == 0 && s->nchunks >= d->max_chunks)
			while (s->nchunks > d->max_chunks / 2 && !d->stop)
				pthread_cond_wait(&d->cv_workers, &d->mu);
		bool stop = d->stop;
		pthread_mutex_unlock(&d->mu);
		if (rc != 0 || stop)
			break;
	}
	tk_pt_piece_fini(&pd);
	pthread_mutex_lock(&d->mu);
	if (rc < 0 && !d->error)
		d->error = rc;
	d->slots[k].done = true;
	pthread_cond_broadcast(&d->cv_reader);
	pthread_mutex_unlock(&d->mu);
}

/* Pieces may be taken up to here: 2 per thread, the reader's included. */
static unsigned window(const struct tk_pt_decode *d)
{
	return d->cur + 2 * (d->nworkers + 1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct tk_pt_decode *d = w->d;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		if (d->stop)
			break;
		if (d->next_piece < d->npieces && d->next_piece < window(d)) {
			unsigned k = d->next_piece++;
			pthread_mutex_unlock(&d->mu);
			run_piece(w, k);
			pthread_mutex_lock(&d->mu);
			continue;
		}
		if (d->next_piece >= d->npieces)
			break;
		pthread_cond_wait(&d->cv_workers, &d->mu);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

int tk_pt_decode_new(tk_pt *pt, unsigned i, const tk_pt_decode_opts *opts,
		     tk_pt_decode **out)
{
	*out = NULL;
	if (i >= pt->nstreams || (opts && opts->size < sizeof *opts))
		return TK_ERR_INVAL;
	struct tk_pt_decode *d = calloc(1, sizeof *d);
	if (!d)
		return TK_ERR_NOMEM;
	d->pt = pt;
	d->stream = i;
	d->st = &pt->streams[i];
	if (opts)
		d->o = *opts;
	else
		tk_pt_decode_opts_init(&d->o);
	if (d->o.decoder != TK_PT_DECODER_BLOCK) {
		d->o.blocks_only = false;
		d->o.block_marks = false;
	}
	if (d->o.count_only) {
		d->o.blocks_only = d->o.decoder == TK_PT_DECODER_BLOCK;
		d->o.block_marks = false;
	}
	uint64_t pb = d->o.piece_bytes ? d->o.piece_bytes : TK_PT_PIECE_BYTES;
	int rc = tk_pt_split(pt, d->st, pb, &d->pieces, &d->npieces);
	if (rc == 0 && !(d->slots = calloc(d->npieces ? d->npieces : 1, sizeof *d->slots)))
		rc = TK_ERR_NOMEM;
	if (rc < 0) {
		free(d->pieces);
		free(d);
		return rc;
	}
	unsigned threads = d->o.threads ? d->o.threads : online_cpus();
	if (threads > d->npieces)
		threads = d->npieces;
	if (threads > 1) {
		/* threads - 1 workers; the reader decodes too, when it would
		 * wait (help): one thread per core, none of them sharing a
		 * core with another. */
		d->workers = calloc(threads, sizeof *d->workers);
		if (!d->workers) {
			tk_pt_decode_free(d);
			return TK_ERR_NOMEM;
		}
		pthread_mutex_init(&d->mu, NULL);
		pthread_cond_init(&d->cv_reader, NULL);
		pthread_cond_init(&d->cv_workers, NULL);
		d->sync_ready = true;
		for (unsigned t = 0; t < threads && rc == 0; t++)
			rc = worker_setup(d, &d->workers[t]);
		d->nworkers = threads - 1;
		d->max_chunks = CHUNK_BUDGET / threads > 8 ? CHUNK_BUDGET / threads : 8;
		for (unsigned t = 0; t < d->nworkers && rc == 0; t++) {
			if (pthread_create(&d->workers[t].thread, NULL, worker_main, &d->workers[t]))
				rc = TK_ERR_NOMEM;
			else
				d->workers[t].started = true;
		}
	} else {
		d->workers = calloc(1, sizeof *d->workers);
		rc = d->workers ? worker_setup(d, &d->workers[0]) : TK_ERR_NOMEM;
	}
	if (rc < 0) {
		tk_pt_decode_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void tk_pt_decode_free(tk_pt_decode *d)
{
	if (!d)
		return;
	if (d->nworkers) {
		pthread_mutex_lock(&d->mu);
		d->stop = true;
		pthread_cond_broadcast(&d->cv_workers);
		pthread_mutex_unlock(&d->mu);
		for (unsigned t = 0; t < d->nworkers; t++)
			if (d->workers[t].started)
				pthread_join(d->workers[t].thread, NULL);
	}
	if (d->inline_active || d->helping)
		tk_pt_piece_fini(&d->pd);
	unsigned nw = d->nworkers + 1;
	for (unsigned t = 0; d->workers && t < nw; t++)
		worker_teardown(&d->workers[t]);
	for (unsigned k = 0; k < d->npieces; k++)
		free_chunk_list(d->slots[k].head);
	if (d->chunk)
		free_chunk_list(d->chunk);
	free_chunk_list(d->free_chunks);
	if (d->sync_ready) {
		pthread_mutex_destroy(&d->mu);
		pthread_cond_destroy(&d->cv_reader);
		pthread_cond_destroy(&d->cv_workers);
	}
	free(d->workers);
	free(d->slots);
	free(d->pieces);
	free(d);
}

/* The reader, with nothing of piece cur to read: decode up to HELP_CHUNKS
 * chunks of the piece it helps with, taking the next piece no worker has
 * taken (within the window) if it helps with none.  Called and returns
 * with mu held; false if there is nothing it may do. */
static bool help(struct tk_pt_decode *d)
{
	if (!d->helping) {
		if (d->next_piece >= d->npieces || d->next_piece >= window(d))
			return false;
		d->help_k = d->next_piece++;
		d->helping = true;
		const struct worker *w = &d->workers[d->nworkers];
		tk_pt_piece_init(&d->pd, d->pt, d->st, &d->o, &d->pieces[d->help_k], w->image,
				 w->cache);
	}
	unsigned k = d->help_k;
	if (d->slots[k].nchunks >= d->max_chunks)
		return false;	/* piece cur must be read first */
	int rc = 0;
	for (unsigned n = 0; rc == 0 && n < HELP_CHUNKS && d->slots[k].nchunks < d->max_chunks; n++) {
		pthread_mutex_unlock(&d->mu);
		struct chunk *c = get_chunk(d);
		rc = c ? tk_pt_piece_fill(&d->pd, c) : TK_ERR_NOMEM;
		pthread_mutex_lock(&d->mu);
		if (c)
			queue_chunk(d, k, c);
	}
	if (rc != 0) {
		tk_pt_piece_fini(&d->pd);
		d->helping = false;
		d->slots[k].done = true;
		if (rc < 0 && !d->error)
			d->error = rc;
	}
	return true;
}

/* The next chunk of piece cur: 1 and d->chunk set, 0 when the piece is
 * finished, or a negative tk_err. */
static int next_chunk(struct tk_pt_decode *d)
{
	if (!d->nworkers) {
		if (!d->inline_active) {
			if (d->slots[d->cur].done)
				return 0;
			tk_pt_piece_init(&d->pd, d->pt, d->st, &d->o, &d->pieces[d->cur],
					 d->workers[0].image, d->workers[0].cache);
			d->inline_active = true;
		}
		struct chunk *c = get_chunk(d);
		if (!c)
			return TK_ERR_NOMEM;
		int rc = tk_pt_piece_fill(&d->pd, c);
		if (rc != 0) {
			tk_pt_piece_fini(&d->pd);
			d->inline_active = false;
			d->slots[d->cur].done = true;
		}
		if (rc < 0) {
			put_chunk(d, c);
			return rc;
		}
		if (!c->n) {
			d->insns += c->ninsns;
			d->blocks += c->nblocks;
			put_chunk(d, c);
			return rc ? 0 : next_chunk(d);
		}
		d->chunk = c;
		d->insns += c->ninsns;
		d->blocks += c->nblocks;
		return 1;
	}
	pthread_mutex_lock(&d->mu);
	struct slot *s = &d->slots[d->cur];
	while (!s->head && !s->done && !d->error) {
		if (help(d))
			continue;
		d->reader_waiting = true;
		pthread_cond_wait(&d->cv_reader, &d->mu);
	}
	d->reader_waiting = false;
	int rc = 0;
	if (d->error) {
		rc = d->error;
	} else if (s->head) {
		d->chunk = s->head;
		s->head = s->head->next;
		if (!s->head)
			s->tail = NULL;
		d->chunk->next = NULL;
		d->insns += d->chunk->ninsns;
		d->blocks += d->chunk->nblocks;
		/* Only a full slot's worker waits for the reader here (the
		 * others wait for cur to move on). */
		if (s->nchunks-- == d->max_chunks / 2 + 1)
			pthread_cond_broadcast(&d->cv_workers);
		rc = 1;
	}
	pthread_mutex_unlock(&d->mu);
	return rc;
}

static void release_chunk(struct tk_pt_decode *d)
{
	if (!d->chunk)
		return;
	if (d->nworkers)
		pthread_mutex_lock(&d->mu);
	put_chunk(d, d->chunk);
	if (d->nworkers)
		pthread_mutex_unlock(&d->mu);
	d->chunk = NULL;
}

static void fill_item(struct tk_pt_decode *d, const struct chunk *c, const struct rec *r,
		      tk_pt_item *it)
{
	memset(it, 0, sizeof *it);
	it->stream = d->stream;
	it->cpu = d->st->info.cpu;
	it->offset = r->offset;
	it->ip = r->ip;
	d->pos = r->offset;
	switch (r->kind) {
	case R_INSN:
		it->kind = TK_PT_INSN;
		it->number = ++d->insns;
		if (r->flags & RF_BLOCK_START)
			d->blocks++;
		it->bytes = r->u.bytes;
		it->size = r->size;
		it->iclass = r->iclass;
		it->branch = (tk_branch)r->branch;
		it->speculative = r->flags & RF_SPECULATIVE;
		break;
	case R_BLOCK:
		it->kind = TK_PT_BLOCK;
		it->end_ip = r->u.end_ip;
		it->ninsn = r->aux;
		it->size = r->size;
		it->iclass = r->iclass;
		it->branch = (tk_branch)r->branch;
		if (d->o.blocks_only) {
			it->number = ++d->blocks;
			d->insns += r->aux;
		} else {
			it->number = d->blocks + 1;	/* its instructions count it */
		}
		break;
	case R_EVENT:
	case R_ERROR: {
		const struct side *s = &c->side[r->aux];
		it->kind = r->kind == R_EVENT ? TK_PT_EVENT : TK_PT_ERROR;
		it->text = s->text;
		it->gap = (tk_pt_gap_kind)s->gap;
		if (r->kind == R_EVENT) {
			it->event_type = s->type;
			it->has_ip = s->has_ip;
		} else {
			it->error = s->type;
		}
		break;
	}
	case R_END:
		it->kind = TK_PT_END;
		break;
	}
}

size_t tk_pt_decode_take_blocks(tk_pt_decode *d, const struct rec **first)
{
	if (!d->chunk || d->idx >= d->chunk->n || !d->o.blocks_only)
		return 0;
	const struct rec *r = &d->chunk->recs[d->idx], *end = &d->chunk->recs[d->chunk->n];
	const struct rec *p = r;
	uint64_t insns = 0;
	for (; p < end && p->kind == R_BLOCK; p++)
		insns += p->aux;
	size_t n = (size_t)(p - r);
	if (!n)
		return 0;
	d->idx += (uint32_t)n;
	d->pos = p[-1].offset;
	d->blocks += n;
	d->insns += insns;
	*first = r;
	return n;
}

int tk_pt_decode_next(tk_pt_decode *d, tk_pt_item *item)
{
	for (;;) {
		if (d->chunk && d->idx < d->chunk->n) {
			fill_item(d, d->chunk, &d->chunk->recs[d->idx++], item);
			return 1;
		}
		release_chunk(d);
		d->idx = 0;
		if (d->cur >= d->npieces)
			return 0;
		int rc = next_chunk(d);
		if (rc < 0)
			return rc;
		if (rc > 0)
			continue;
		/* Piece cur is finished: the gap after it, then the next. */
		const struct piece *p = &d->pieces[d->cur];
		if (p->gap_after && !d->gap_done) {
			const struct pt_gap *g = &d->st->gaps[p->gap_after - 1];
			memset(item, 0, sizeof *item);
			item->kind = TK_PT_GAP;
			item->stream = d->stream;
			item->cpu = d->st->info.cpu;
			item->offset = g->offset;
			item->gap = g->kind;
			item->text = g->why;
			d->gap_done = true;
			return 1;
		}
		d->gap_done = false;
		d->pos = p->end;	/* progress, even when nothing is yielded */
		if (d->nworkers)
			pthread_mutex_lock(&d->mu);
		d->cur++;
		if (d->nworkers) {
			pthread_cond_broadcast(&d->cv_workers);
			pthread_mutex_unlock(&d->mu);
		}
	}
}

uint64_t tk_pt_decode_insns(const tk_pt_decode *d)
{
	return d->insns;
}

uint64_t tk_pt_decode_blocks(const tk_pt_decode *d)
{
	return d->blocks;
}

uint64_t tk_pt_decode_pos(const tk_pt_decode *d)
{
	return d->pos;
}
