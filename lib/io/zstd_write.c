/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing seekable zstd (the format is described in
 * seektable.c).
 *
 * The input is cut into frames of frame_size decompressed bytes, each
 * compressed on its own (with its content size and checksum), so frames
 * compress in parallel: the calling thread reads frames into a ring of
 * slots and writes the finished ones out in order; worker threads, each
 * with its own compression context, take the slots in order.  With one
 * thread the calling thread compresses.  The seek table follows the last
 * frame.  Memory: a slot per thread, each of one frame and its compressed
 * bound, plus a compression context per thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "input_impl.h"

#define MAX_FRAME (1u << 30)

void tk_zstd_seekable_opts_init(tk_zstd_seekable_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

typedef struct slot {
	uint8_t *src, *dst;
	size_t slen, dlen;
	uint32_t sum;
	int err;
	bool done;
} slot;

typedef struct writer {
	const tk_zstd_seekable_opts *o;
	size_t dcap;
	slot *slots;
	unsigned nslots, nthreads;
	pthread_mutex_t m;
	pthread_cond_t work, done;
	uint64_t submitted, taken;
	bool quit;
} writer;

static int compress_slot(ZSTD_CCtx *cc, const writer *w, slot *s)
{
	s->sum = (uint32_t)tk_xxh64(s->src, s->slen, 0);
	size_t r = ZSTD_compress2(cc, s->dst, w->dcap, s->src, s->slen);
	if (ZSTD_isError(r))
		return TK_ERR_NOMEM;
	s->dlen = r;
	return 0;
}

static ZSTD_CCtx *new_cctx(const writer *w)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (cc) {
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, w->o->level);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
	}
	return cc;
}

static void *worker(void *arg)
{
	writer *w = arg;
	ZSTD_CCtx *cc = new_cctx(w);
	pthread_mutex_lock(&w->m);
	for (;;) {
		while (!w->quit && w->taken == w->submitted)
			pthread_cond_wait(&w->work, &w->m);
		if (w->taken == w->submitted)
			break;
		slot *s = &w->slots[w->taken++ % w->nslots];
		pthread_mutex_unlock(&w->m);
		int err = cc ? compress_slot(cc, w, s) : TK_ERR_NOMEM;
		pthread_mutex_lock(&w->m);
		s->err = err;
		s->done = true;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->m);
	ZSTD_freeCCtx(cc);
	return NULL;
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return TK_ERR_IO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read up to one frame of input into s. */
static int fill_slot(tk_input *in, slot *s, size_t fs)
{
	s->slen = 0;
	while (s->slen < fs) {
		size_t got;
		int rc = tk_input_read(in, s->src + s->slen, fs - s->slen, &got);
		if (rc < 0)
			return rc;
		if (!got)
			break;
		s->slen += got;
	}
	return 0;
}

typedef struct table {
	uint8_t *p;
	size_t len, cap;
} table;

static int table_add(table *t, const slot *s)
{
	if (t->len + 12 > t->cap) {
		size_t c = t->cap ? t->cap * 2 : 4096;
		uint8_t *p = realloc(t->p, c);
		if (!p)
			return TK_ERR_NOMEM;
		t->p = p;
		t->cap = c;
	}
	tk_wle32(t->p + t->len, (uint32_t)s->dlen);
	tk_wle32(t->p + t->len + 4, (uint32_t)s->slen);
	tk_wle32(t->p + t->len + 8, s->sum);
	t->len += 12;
	return 0;
}

static int write_table(int fd, const table *t)
{
	uint32_t n = (uint32_t)(t->len / 12);
	uint8_t h[8], f[TK_SEEKABLE_FOOTER];
	tk_wle32(h, TK_SEEKABLE_SKIP_MAGIC);
	tk_wle32(h + 4, (uint32_t)(t->len + TK_SEEKABLE_FOOTER));
	tk_wle32(f, n);
	f[4] = 0x80;		/* checksums present */
	tk_wle32(f + 5, TK_SEEKABLE_MAGIC);
	int rc = write_all(fd, h, sizeof h);
	if (!rc && t->len)
		rc = write_all(fd, t->p, t->len);
	return rc ? rc : write_all(fd, f, sizeof f);
}

int tk_zstd_seekable_write(tk_input *in, int out_fd, const tk_zstd_seekable_opts *opts,
			   tk_zstd_seekable_stats *stats)
{
	tk_zstd_seekable_opts o;
	if (opts && opts->size >= sizeof o)
		o = *opts;
	else
		tk_zstd_seekable_opts_init(&o);
	if (!o.level)
		o.level = 7;
	if (!o.frame_size)
		o.frame_size = 4u << 20;
	if (!o.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o.threads = n > 0 ? (unsigned)n : 1;
	}
	if (o.frame_size > MAX_FRAME || o.level < ZSTD_minCLevel() || o.level > ZSTD_maxCLevel() ||
	    o.threads > 256)
		return TK_ERR_INVAL;

	writer w;
	memset(&w, 0, sizeof w);
	w.o = &o;
	w.dcap = ZSTD_compressBound(o.frame_size);
	w.nthreads = o.threads > 1 ? o.threads : 0;
	w.nslots = o.threads;	/* a frame being read waits for a free slot */
	w.slots = calloc(w.nslots, sizeof *w.slots);
	pthread_t *th = calloc(w.nthreads ? w.nthreads : 1, sizeof *th);
	ZSTD_CCtx *cc = w.nthreads ? NULL : new_cctx(&w);
	table t = {0};
	int rc = w.slots && th && (w.nthreads || cc) ? 0 : TK_ERR_NOMEM;
	for (unsigned i = 0; rc == 0 && i < w.nslots; i++)
		if (!(w.slots[i].src = malloc(o.frame_size)) || !(w.slots[i].dst = malloc(w.dcap)))
			rc = TK_ERR_NOMEM;
	pthread_mutex_init(&w.m, NULL);
	pthread_cond_init(&w.work, NULL);
	pthread_cond_init(&w.done, NULL);
	unsigned started = 0;
	for (; rc == 0 && started < w.nthreads; started++)
		if (pthread_create(&th[started], NULL, worker, &w) != 0)
			rc = TK_ERR_NOMEM;

	uint64_t written = 0, in_bytes = 0, out_bytes = 0;
	bool eof = false;
	while (rc == 0 && (!eof || written < w.submitted)) {
		/* Write out the oldest frame when its slot is needed or at the end. */
		if (written < w.submitted && (eof || w.submitted - written == w.nslots)) {
			slot *s = &w.slots[written % w.nslots];
			pthread_mutex_lock(&w.m);
			while (!s->done)
				pthread_cond_wait(&w.done, &w.m);
			pthread_mutex_unlock(&w.m);
			if ((rc = s->err) == 0 && (rc = write_all(out_fd, s->dst, s->dlen)) == 0)
				rc = table_add(&t, s);
			in_bytes += s->slen;
			out_bytes += s->dlen;
			written++;
			continue;
		}
		slot *s = &w.slots[w.submitted % w.nslots];
		if ((rc = fill_slot(in, s, o.frame_size)) < 0)
			break;
		if (!s->slen) {
			eof = true;
			continue;
		}
		if (w.submitted >= TK_SEEKABLE_MAX_FRAMES) {
			rc = TK_ERR_UNSUPPORTED;
			break;
		}
		s->done = false;
		if (!w.nthreads) {
			s->err = compress_slot(cc, &w, s);
			s->done = true;
			w.submitted++;
		} else {
			pthread_mutex_lock(&w.m);
			w.submitted++;
			pthread_cond_signal(&w.work);
			pthread_mutex_unlock(&w.m);
		}
		if (o.progress)
			o.progress(o.progress_ctx, tk_input_consumed(in), tk_input_file_size(in));
	}
	if (rc == 0)
		rc = write_table(out_fd, &t);
	int e = errno;
	pthread_mutex_lock(&w.m);
	w.quit = true;
	pthread_cond_broadcast(&w.work);
	pthread_mutex_unlock(&w.m);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&w.m);
	pthread_cond_destroy(&w.work);
	pthread_cond_destroy(&w.done);
	for (unsigned i = 0; w.slots && i < w.nslots; i++) {
		free(w.slots[i].src);
		free(w.slots[i].dst);
	}
	free(w.slots);
	free(th);
	free(t.p);
	ZSTD_freeCCtx(cc);
	if (stats) {
		stats->in_bytes = in_bytes;
		stats->out_bytes = out_bytes + 8 + t.len + TK_SEEKABLE_FOOTER;
		stats->frames = t.len / 12;
	}
	errno = e;
	return rc;
}
