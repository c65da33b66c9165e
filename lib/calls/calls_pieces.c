/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the call detector over a trace read in pieces on several
 * threads (tk_calls_read, calls.h).  Each piece is summarized on a worker
 * (callsum.h); the detector runs over the summaries in order on the
 * calling thread, so it decides exactly as over the events. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "callsum.h"
#include "parallel/pieces.h"
#include "tracekit/error.h"
#include "tracekit/namemap.h"
#include "tracekit/source_author.h"

typedef struct cpiece {
	tk_callsum *sum;
	tk_namemap names;
	uint64_t steps;
} cpiece;

typedef struct cread {
	tk_calls *c;
	tk_calls_steps steps;
	tk_namemap *names;
	uint64_t nsteps;
	pthread_mutex_t lock;
	tk_callsum *pool[64];	/* summaries given back, memory kept */
	unsigned npool;
} cread;

static int begin(void *ctx, tk_piece *p)
{
	cread *r = ctx;
	cpiece *x = calloc(1, sizeof *x);
	if (!x)
		return TK_ERR_NOMEM;
	p->data = x;
	pthread_mutex_lock(&r->lock);
	if (r->npool)
		x->sum = r->pool[--r->npool];
	pthread_mutex_unlock(&r->lock);
	if (x->sum) {
		tk_callsum_reset(x->sum);
		return 0;
	}
	return tk_callsum_new(r->steps, &x->sum);
}

static int event(void *ctx, tk_piece *p, const tk_event *ev)
{
	cread *r = ctx;
	cpiece *x = p->data;
	if (r->names && (ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN)) {
		int err = tk_namemap_add(&x->names, ev->u.func.addr, ev->u.func.name,
					 ev->u.func.name_len);
		if (err)
			return err;
	}
	if (r->steps == TK_STEPS_FUNCS)
		x->steps += ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN;
	else
		x->steps += ev->kind == TK_EV_RUN ? ev->u.run.count : ev->kind == TK_EV_INSN;
	return tk_callsum_feed(x->sum, ev);
}

static int end(void *ctx, tk_piece *p)
{
	cpiece *x = p->data;
	return tk_callsum_end(x->sum);
}

static int stitch(void *ctx, tk_piece *p)
{
	cread *r = ctx;
	cpiece *x = p->data;
	int err = tk_calls_feed_summary(r->c, x->sum, r->nsteps, p->line_base);
	r->nsteps += x->steps;
	if (!err && r->names) {
		uint64_t *addrs;
		const char **names;
		int n = tk_namemap_sorted(&x->names, &addrs, &names);
		if (n < 0)
			return n;
		for (int i = 0; i < n && !err; i++)
			err = tk_namemap_add(r->names, addrs[i], names[i], strlen(names[i]));
		free(addrs);
		free(names);
	}
	return err;
}

static void discard(void *ctx, tk_piece *p)
{
	cread *r = ctx;
	cpiece *x = p->data;
	p->data = NULL;
	if (!x)
		return;
	pthread_mutex_lock(&r->lock);
	if (r->npool < sizeof r->pool / sizeof r->pool[0]) {
		r->pool[r->npool++] = x->sum;
		x->sum = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	tk_callsum_free(x->sum);
	tk_namemap_fini(&x->names);
	free(x);
}

void tk_calls_read_opts_init(tk_calls_read_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

int tk_calls_read(tk_calls *c, tk_source *src, const tk_calls_read_opts *opts)
{
	tk_calls_read_opts o;
	tk_calls_read_opts_init(&o);
	if (opts)
		memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
	if (!src->format || !src->format->chunks || !strcmp(tk_source_path(src), "-") ||
	    !tk_source_size(src))
		return TK_ERR_UNSUPPORTED;
	tk_calls_steps steps = tk_calls_steps_of(c);
	if (steps == TK_STEPS_AUTO)
		return TK_ERR_INVAL;
	cread r = {.c = c, .steps = steps, .names = o.names};
	pthread_mutex_init(&r.lock, NULL);
	tk_pieces_opts po = {
		.threads = o.threads,
		.piece_bytes = o.piece_bytes,
		.diag = src->diag,
		.diag_ctx = src->diag_ctx,
		.progress = o.progress,
		.progress_ctx = o.progress_ctx,
	};
	tk_pieces_client client = {&r, begin, event, end, stitch, discard};
	int err = tk_pieces_run(src, &po, &client);
	for (unsigned i = 0; i < r.npool; i++)
		tk_callsum_free(r.pool[i]);
	pthread_mutex_destroy(&r.lock);
	return err;
}
