/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: random access to compressed files.
 *
 * Restart points come from the file itself (the seek table of seekable
 * zstd, the index of xz) or from a checkpoint table (gzip, plain zstd):
 * the one recorded by a complete sequential pass, else the checkpoint
 * file, else one built now by a pass over the file (and saved).  A read at
 * offset X decodes from the last restart point at or before X, or goes on
 * with the decoder of the previous read when that is nearer, into a buffer
 * of recent output that serves the reads that follow: the lines around a
 * browser position cost one decode.  A seekable zstd frame is decoded
 * whole and checked against its seek table checksum.
 */
#include <stdlib.h>
#include <string.h>

#include "input_impl.h"

#define PBUF_STREAM (1u << 20)	/* output kept per decode step */
#define FRAME_MAX (64u << 20)	/* larger seekable frames are streamed */

int tk_dec_maybe_record(tk_dec *d, uint64_t in, uint32_t aux, const uint8_t *win,
			size_t wlen, bool force)
{
	if (!d->rec || (!force && d->out - d->last_rec < d->rec->spacing))
		return 0;
	d->last_rec = d->out;
	int rc = tk_ckpt_add(d->rec, d->out, in, aux, win, wlen);
	if (rc < 0)
		return tk_input_fail(d->in, rc, in, "cannot record a checkpoint: %s", tk_strerror(rc));
	return 0;
}

static int new_decoder(tk_input *in, tk_dec **out)
{
	int rc = in->codec->create(in, out);
	if (rc == 0 && (rc = tk_cin_init(&(*out)->cin, in, false, 256u << 10)) < 0) {
		in->codec->destroy(*out);
		*out = NULL;
	}
	return rc < 0 ? tk_input_fail(in, rc, 0, "%s", tk_strerror(rc)) : 0;
}

/* Build in->rnd by decoding the whole file. */
static int scan(tk_input *in)
{
	tk_ckpt_free(&in->rnd);
	tk_ckpt_init(&in->rnd, in->opts.checkpoint_spacing);
	tk_dec *d;
	int rc = new_decoder(in, &d);
	if (rc < 0)
		return rc;
	uint8_t *buf = malloc(PBUF_STREAM);
	d->rec = &in->rnd;
	if (!buf)
		rc = TK_ERR_NOMEM;
	if (rc == 0)
		rc = tk_ckpt_add(&in->rnd, 0, 0, TK_GZ_AUX(0, 0, 1), NULL, 0);
	if (rc == 0)
		rc = in->codec->start(d, NULL, NULL, 0);
	uint64_t next_report = 0;
	while (rc == 0) {
		size_t got;
		rc = in->codec->read(d, buf, PBUF_STREAM, &got);
		if (rc < 0 || got == 0)
			break;
		uint64_t done = tk_cin_off(&d->cin);
		if (in->opts.progress && done >= next_report) {
			in->opts.progress(in->opts.progress_ctx, done, in->raw.size);
			next_report = done + (16u << 20);
		}
	}
	if (rc == 0) {
		in->rnd.complete = true;
		in->rnd.total_out = d->out;
		if (in->opts.progress)
			in->opts.progress(in->opts.progress_ctx, in->raw.size, in->raw.size);
	}
	free(buf);
	in->codec->destroy(d);
	return rc < 0 ? tk_input_fail(in, rc, 0, "%s", tk_strerror(rc)) : 0;
}

static const char *load_reason(int rc)
{
	switch (rc) {
	case TK_ERR_OPEN: return "missing";
	case TK_ERR_NOTFOUND: return "stale: it describes another file";
	case TK_ERR_FORMAT: return "of another version";
	default: return "corrupt";
	}
}

/* Build the checkpoint table (load, else scan and save). */
static int checkpoint_table(tk_input *in, bool force_scan)
{
	int rc = TK_ERR_OPEN;
	if (in->ckpt_path && !force_scan) {
		rc = tk_ckpt_load(&in->rnd, in->ckpt_path, (int)in->format, &in->raw);
		if (rc == 0) {
			snprintf(in->ckpt_status, sizeof in->ckpt_status, "loaded");
			in->pts = &in->rnd;
			return 0;
		}
	}
	const char *why = force_scan ? "corrupt" : load_reason(rc);
	if ((rc = scan(in)) < 0)
		return rc;
	in->pts = &in->rnd;
	if (!in->ckpt_path) {
		snprintf(in->ckpt_status, sizeof in->ckpt_status, "built in memory");
		return 0;
	}
	rc = tk_ckpt_save(&in->rnd, in->ckpt_path, (int)in->format, &in->raw);
	snprintf(in->ckpt_status, sizeof in->ckpt_status, "%s (it was %s)%s%s",
		 rc == 0 ? "rebuilt and saved" : "rebuilt but not saved", why,
		 rc == 0 ? "" : ": ", rc == 0 ? "" : tk_strerror(rc));
	return 0;
}

int tk_random_setup(tk_input *in)
{
	int rc;
	if (in->seekable_zstd) {
		in->pts = &in->rnd;
	} else if (in->codec->own_points && (rc = in->codec->own_points(in, &in->rnd)) != 0) {
		if (rc < 0)
			return rc;
		in->pts = &in->rnd;
	} else if (in->recd.complete) {
		in->pts = &in->recd;
	} else if ((rc = checkpoint_table(in, false)) < 0) {
		return rc;
	}
	if (!in->pts->n && in->pts->total_out)
		return tk_input_fail(in, TK_ERR_CORRUPT, 0, "no restart point");
	in->size = in->pts->total_out;
	in->random_ready = true;
	return 0;
}

static int ensure_pbuf(tk_input *in, size_t cap)
{
	if (in->pbuf_cap >= cap)
		return 0;
	uint8_t *p = realloc(in->pbuf, cap);
	if (!p)
		return tk_input_fail(in, TK_ERR_NOMEM, 0, "out of memory");
	in->pbuf = p;
	in->pbuf_cap = cap;
	return 0;
}

/* Decode until the buffer covers pos (and up to AHEAD bytes after it).
 * The buffer slides: when full, its older half is dropped, so it keeps
 * some of the text before pos too (the lines above a browser position).
 * Returns 0, 1 at the end of the data, 2 when the checkpoint table was
 * rebuilt (try again), or an error. */
#define AHEAD (64u << 10)

static int advance(tk_input *in, const tk_ckpt_table *t, size_t k, uint64_t pos)
{
	int rc = ensure_pbuf(in, PBUF_STREAM);
	if (rc < 0)
		return rc;
	if (!in->cur && (rc = new_decoder(in, &in->cur)) < 0)
		return rc;
	tk_dec *d = in->cur;
	if (!(in->cur_live && d->out <= pos && d->out >= t->v[k].out)) {
		in->pbuf_len = 0;
		rc = in->codec->start(d, &t->v[k], t, k);
		if (rc == TK_ERR_FORMAT && t == &in->rnd && in->ckpt_path && !in->rebuilt) {
			in->rebuilt = true;	/* a bad window in the file: rebuild */
			in->cur_live = false;
			return (rc = checkpoint_table(in, true)) < 0 ? rc : 2;
		}
		if (rc < 0)
			return tk_input_fail(in, rc == TK_ERR_FORMAT ? TK_ERR_CORRUPT : rc, t->v[k].in,
					     "cannot restart decoding at byte %llu",
					     (unsigned long long)t->v[k].in);
		in->cur_live = true;
		in->cur_k = k;
	}
	if (in->pbuf_off + in->pbuf_len != d->out)	/* the buffer is not this decoder's */
		in->pbuf_len = 0;
	if (!in->pbuf_len)
		in->pbuf_off = d->out;
	for (;;) {
		if (in->pbuf_len == in->pbuf_cap) {
			size_t keep = in->pbuf_cap / 2;
			memmove(in->pbuf, in->pbuf + in->pbuf_len - keep, keep);
			in->pbuf_off += in->pbuf_len - keep;
			in->pbuf_len = keep;
		}
		size_t want = in->pbuf_cap - in->pbuf_len;
		if (pos - d->out + AHEAD < want)
			want = (size_t)(pos - d->out) + AHEAD;
		uint64_t at = d->out;
		size_t len;
		rc = in->codec->read(d, in->pbuf + in->pbuf_len, want, &len);
		in->pbuf_len += len;
		if (rc < 0) {
			in->cur_live = false;
			return pos < at + len ? 0 : rc;	/* the bytes before the damage first */
		}
		if (len) {
			if (pos < at + len)
				return 0;
			continue;
		}
		/* This decoder is done: a block format goes on with the next block. */
		size_t nk = tk_ckpt_find(t, at);
		if (t->v[nk].out == at && nk != in->cur_k) {
			if ((rc = in->codec->start(d, &t->v[nk], t, nk)) < 0) {
				in->cur_live = false;
				return rc;
			}
			in->cur_k = nk;
			continue;
		}
		in->cur_live = false;
		if (at < in->size)
			return tk_input_fail(in, TK_ERR_CORRUPT, tk_cin_off(&d->cin),
					     "the data ends at byte %llu of %llu",
					     (unsigned long long)at, (unsigned long long)in->size);
		return 1;
	}
}

int tk_random_pread(tk_input *in, uint64_t off, uint8_t *buf, size_t n, size_t *got)
{
	while (*got < n) {
		const tk_ckpt_table *t = in->pts;
		uint64_t pos = off + *got;
		if (pos >= in->size)
			break;
		if (in->pbuf_len && pos >= in->pbuf_off && pos < in->pbuf_off + in->pbuf_len) {
			uint64_t have = in->pbuf_off + in->pbuf_len - pos;
			size_t k = have < n - *got ? (size_t)have : n - *got;
			memcpy(buf + *got, in->pbuf + (pos - in->pbuf_off), k);
			*got += k;
			continue;
		}
		size_t k = tk_ckpt_find(t, pos);
		int rc;
		if (in->seekable_zstd) {
			uint64_t end = k + 1 < t->n ? t->v[k + 1].out : t->total_out;
			uint64_t dlen = end - t->v[k].out;
			if (dlen <= FRAME_MAX) {
				in->pbuf_len = 0;
				in->cur_live = false;	/* the buffer is the frame's now */
				if ((rc = ensure_pbuf(in, (size_t)dlen)) < 0 ||
				    (rc = tk_zstd_frame(in, t, k, in->pbuf, (size_t)dlen, &in->frame_ctx)) < 0)
					return rc;
				in->pbuf_off = t->v[k].out;
				in->pbuf_len = (size_t)dlen;
				continue;
			}
		}
		rc = advance(in, t, k, pos);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
		/* 0: the buffer covers pos now; 2: the table was rebuilt */
	}
	return 0;
}

void tk_random_free(tk_input *in)
{
	if (in->cur)
		in->codec->destroy(in->cur);
	in->cur = NULL;
	if (in->frame_ctx)
		tk_zstd_frame_free(in->frame_ctx);
	in->frame_ctx = NULL;
	free(in->pbuf);
	in->pbuf = NULL;
	in->pbuf_cap = in->pbuf_len = 0;
}
