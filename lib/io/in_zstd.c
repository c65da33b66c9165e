/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the zstd decoder.
 *
 * Frames are decoded one after the other with libzstd's streaming decoder
 * (skippable frames, the seek table's among them, are passed over).  A
 * frame boundary is a restart point: in plain zstd files the sequential
 * pass records them as checkpoints; a single-frame file has only its start.
 * Seekable files decode one frame at a time from their seek table
 * (tk_zstd_frame), checking the frame against the table's checksum.
 */
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_d_windowLogMax is stable in 1.5 */
#include <zstd.h>
#include <zstd_errors.h>

#include "input_impl.h"

typedef struct zs_dec {
	tk_dec d;
	ZSTD_DCtx *ds;
	bool in_frame;
	uint64_t frame_off;	/* file offset of the frame being decoded */
} zs_dec;

static unsigned window_log_max(uint64_t memlimit)
{
	unsigned lg = 10;
	while (lg < 31 && (2ull << lg) <= memlimit)
		lg++;
	return lg;
}

static int zs_create(tk_input *in, tk_dec **out)
{
	zs_dec *z = calloc(1, sizeof *z);
	if (!z)
		return TK_ERR_NOMEM;
	z->d.codec = &tk_codec_zstd;
	z->d.in = in;
	z->ds = ZSTD_createDCtx();
	if (!z->ds) {
		free(z);
		return TK_ERR_NOMEM;
	}
	ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, (int)window_log_max(in->opts.memlimit));
	*out = &z->d;
	return 0;
}

static void zs_destroy(tk_dec *d)
{
	zs_dec *z = (zs_dec *)d;
	ZSTD_freeDCtx(z->ds);
	tk_cin_fini(&d->cin);
	free(z);
}

static int zs_start(tk_dec *d, const tk_ckpt *from, const tk_ckpt_table *t, size_t k)
{
	zs_dec *z = (zs_dec *)d;
	ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only);
	z->in_frame = false;
	z->frame_off = from ? from->in : 0;
	d->out = from ? from->out : 0;
	d->last_rec = d->out;
	if (!d->cin.sequential)
		tk_cin_seek(&d->cin, from ? from->in : 0);
	return 0;
}

/* The decoder takes whole blocks in: the damage is placed by the frame it
 * is in, and the text decoded before it. */
static int zs_error(zs_dec *z, size_t r)
{
	uint64_t off = z->frame_off;
	if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
		return tk_input_fail(z->d.in, TK_ERR_UNSUPPORTED, off,
				     "the zstd frame at byte %llu needs a window over the memory limit "
				     "(%llu MiB)", (unsigned long long)off,
				     (unsigned long long)(z->d.in->opts.memlimit >> 20));
	if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
		return tk_input_fail(z->d.in, TK_ERR_NOMEM, off, "out of memory");
	return tk_input_fail(z->d.in, TK_ERR_CORRUPT, off,
			     "corrupt zstd data in the frame at byte %llu of the file (%s), "
			     "after %llu bytes of text", (unsigned long long)off, ZSTD_getErrorName(r),
			     (unsigned long long)z->d.out);
}

static int zs_read(tk_dec *d, uint8_t *out, size_t n, size_t *got)
{
	zs_dec *z = (zs_dec *)d;
	tk_cin *c = &d->cin;
	unsigned stuck = 0;
	*got = 0;
	while (*got < n) {
		if (!tk_cin_avail(c)) {
			int rc = tk_cin_fill(c);
			if (rc < 0)
				return rc;
			if (!tk_cin_avail(c)) {
				if (!z->in_frame)
					return 0;
				uint64_t off = tk_cin_off(c);
				return tk_input_fail(d->in, TK_ERR_EOF, off,
						     "truncated zstd data: the file ends at byte %llu "
						     "inside a frame", (unsigned long long)off);
			}
		}
		if (!z->in_frame)
			z->frame_off = tk_cin_off(c);
		ZSTD_inBuffer ib = {c->buf + c->pos, tk_cin_avail(c), 0};
		ZSTD_outBuffer ob = {out + *got, n - *got, 0};
		size_t r = ZSTD_decompressStream(z->ds, &ob, &ib);
		c->pos += ib.pos;
		*got += ob.pos;
		d->out += ob.pos;
		if (ZSTD_isError(r))
			return zs_error(z, r);
		if (r == 0) {
			z->in_frame = false;
			int rc = tk_dec_maybe_record(d, tk_cin_off(c), 0, NULL, 0, false);
			if (rc < 0)
				return rc;
		} else {
			z->in_frame = true;
		}
		stuck = ib.pos || ob.pos ? 0 : stuck + 1;
		if (stuck > 2)
			return tk_input_fail(d->in, TK_ERR_CORRUPT, tk_cin_off(c),
					     "zstd decoder made no progress at byte %llu",
					     (unsigned long long)tk_cin_off(c));
	}
	return 0;
}

static int zs_points(tk_input *in, tk_ckpt_table *t)
{
	return in->seekable_zstd ? 1 : 0;	/* read when the file was opened */
}

const tk_codec tk_codec_zstd = {"zstd", zs_create, zs_start, zs_read, zs_destroy, zs_points};

/* ---- one frame of a seekable file ---- */

int tk_zstd_frame(tk_input *in, const tk_ckpt_table *t, size_t k, uint8_t *dst, size_t dlen,
		  void **ctx)
{
	const tk_ckpt *f = &t->v[k];
	uint64_t cend = k + 1 < t->n ? t->v[k + 1].in : t->total_in;
	size_t clen = (size_t)(cend - f->in);
	if (!*ctx) {
		*ctx = ZSTD_createDCtx();
		if (!*ctx)
			return TK_ERR_NOMEM;
		ZSTD_DCtx_setParameter(*ctx, ZSTD_d_windowLogMax,
				       (int)window_log_max(in->opts.memlimit));
	}
	uint8_t *src = malloc(clen ? clen : 1);
	if (!src)
		return TK_ERR_NOMEM;
	size_t got;
	int rc = tk_raw_pread(&in->raw, f->in, src, clen, &got);
	if (rc < 0) {
		free(src);
		return tk_input_fail(in, rc, f->in, "read error at byte %llu",
				     (unsigned long long)f->in);
	}
	if (got < clen) {
		free(src);
		return tk_input_fail(in, TK_ERR_EOF, f->in + got,
				     "truncated zstd data: the file ends at byte %llu inside a frame",
				     (unsigned long long)(f->in + got));
	}
	size_t r = ZSTD_decompressDCtx(*ctx, dst, dlen, src, clen);
	free(src);
	if (ZSTD_isError(r)) {
		if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
			return tk_input_fail(in, TK_ERR_UNSUPPORTED, f->in,
					     "zstd frame at byte %llu needs a window over the memory limit",
					     (unsigned long long)f->in);
		return tk_input_fail(in, TK_ERR_CORRUPT, f->in,
				     "corrupt zstd frame at byte %llu of the file (%s)",
				     (unsigned long long)f->in, ZSTD_getErrorName(r));
	}
	if (r != dlen)
		return tk_input_fail(in, TK_ERR_CORRUPT, f->in,
				     "zstd frame at byte %llu holds %zu bytes, its seek table says %zu",
				     (unsigned long long)f->in, r, dlen);
	if (t->has_sums && (uint32_t)tk_xxh64(dst, dlen, 0) != f->aux)
		return tk_input_fail(in, TK_ERR_CORRUPT, f->in,
				     "zstd frame at byte %llu does not match its seek table checksum",
				     (unsigned long long)f->in);
	return 0;
}

void tk_zstd_frame_free(void *ctx)
{
	ZSTD_freeDCtx(ctx);
}
