/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the xz decoder.
 *
 * Read in order with liblzma's stream decoder (concatenated streams and
 * their padding accepted).  For random access the file's own index says
 * where every block starts, compressed and decompressed: liblzma's file
 * information decoder reads it from the end of the file (and of every
 * concatenated stream), and a block is decoded alone from its header.  A
 * file of one block (xz's default when not multi-threaded) therefore
 * decodes from its start; `xz -T0` or `--block-size` make many blocks.
 */
#include <stdlib.h>
#include <string.h>
#include <lzma.h>

#include "input_impl.h"

typedef struct xz_dec {
	tk_dec d;
	lzma_stream ls;
	bool ended;
} xz_dec;

static int xz_create(tk_input *in, tk_dec **out)
{
	xz_dec *x = calloc(1, sizeof *x);
	if (!x)
		return TK_ERR_NOMEM;
	lzma_stream init = LZMA_STREAM_INIT;
	x->ls = init;
	x->d.codec = &tk_codec_xz;
	x->d.in = in;
	*out = &x->d;
	return 0;
}

static void xz_destroy(tk_dec *d)
{
	xz_dec *x = (xz_dec *)d;
	lzma_end(&x->ls);
	tk_cin_fini(&d->cin);
	free(x);
}

static int xz_fail(xz_dec *x, lzma_ret r)
{
	uint64_t off = tk_cin_off(&x->d.cin);
	tk_input *in = x->d.in;
	switch (r) {
	case LZMA_MEM_ERROR:
		return tk_input_fail(in, TK_ERR_NOMEM, off, "out of memory");
	case LZMA_MEMLIMIT_ERROR:
		return tk_input_fail(in, TK_ERR_UNSUPPORTED, off,
				     "xz data before byte %llu needs more memory than the limit "
				     "(%llu MiB)", (unsigned long long)off,
				     (unsigned long long)(in->opts.memlimit >> 20));
	case LZMA_BUF_ERROR:
		return tk_input_fail(in, TK_ERR_EOF, off,
				     "truncated xz data: the file ends at byte %llu inside a stream",
				     (unsigned long long)off);
	case LZMA_OPTIONS_ERROR:
		return tk_input_fail(in, TK_ERR_CORRUPT, off,
				     "xz data before byte %llu uses options this liblzma cannot decode",
				     (unsigned long long)off);
	default:
		return tk_input_fail(in, TK_ERR_CORRUPT, off,
				     "corrupt xz data before byte %llu of the file (liblzma error %d)",
				     (unsigned long long)off, (int)r);
	}
}

/* Start decoding the block whose header is at the cursor. */
static int block_start(xz_dec *x, uint32_t check)
{
	tk_cin *c = &x->d.cin;
	int rc = tk_cin_need(c, 1);
	if (rc < 0)
		return rc;
	if (!tk_cin_avail(c) || c->buf[c->pos] == 0)
		return xz_fail(x, LZMA_DATA_ERROR);
	lzma_block blk;
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	memset(&blk, 0, sizeof blk);
	blk.version = 1;
	blk.check = (lzma_check)check;
	blk.filters = filters;
	blk.header_size = lzma_block_header_size_decode(c->buf[c->pos]);
	if ((rc = tk_cin_need(c, blk.header_size)) < 0)
		return rc;
	if (tk_cin_avail(c) < blk.header_size)
		return xz_fail(x, LZMA_BUF_ERROR);
	lzma_ret r = lzma_block_header_decode(&blk, NULL, c->buf + c->pos);
	if (r != LZMA_OK)
		return xz_fail(x, r);
	c->pos += blk.header_size;
	r = lzma_block_decoder(&x->ls, &blk);
	for (size_t i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
		free(filters[i].options);
	return r == LZMA_OK ? 0 : xz_fail(x, r);
}

static int xz_start(tk_dec *d, const tk_ckpt *from, const tk_ckpt_table *t, size_t k)
{
	xz_dec *x = (xz_dec *)d;
	x->ended = false;
	d->out = from ? from->out : 0;
	if (!d->cin.sequential)
		tk_cin_seek(&d->cin, from ? from->in : 0);
	if (from)
		return block_start(x, from->aux);
	lzma_ret r = lzma_stream_decoder(&x->ls, d->in->opts.memlimit, LZMA_CONCATENATED);
	return r == LZMA_OK ? 0 : xz_fail(x, r);
}

static int xz_read(tk_dec *d, uint8_t *out, size_t n, size_t *got)
{
	xz_dec *x = (xz_dec *)d;
	tk_cin *c = &d->cin;
	*got = 0;
	while (*got < n && !x->ended) {
		if (!tk_cin_avail(c) && !c->eof) {
			int rc = tk_cin_fill(c);
			if (rc < 0)
				return rc;
		}
		x->ls.next_in = c->buf + c->pos;
		x->ls.avail_in = tk_cin_avail(c);
		x->ls.next_out = out + *got;
		x->ls.avail_out = n - *got;
		lzma_ret r = lzma_code(&x->ls, tk_cin_avail(c) || !c->eof ? LZMA_RUN : LZMA_FINISH);
		c->pos += tk_cin_avail(c) - x->ls.avail_in;
		size_t made = n - *got - x->ls.avail_out;
		*got += made;
		d->out += made;
		if (r == LZMA_STREAM_END)
			x->ended = true;
		else if (r != LZMA_OK)
			return xz_fail(x, r);
	}
	return 0;
}

/* The blocks of every stream, from the file's indexes. */
static int xz_points(tk_input *in, tk_ckpt_table *t)
{
	tk_dec *d;
	int rc = xz_create(in, &d);
	if (rc < 0)
		return rc;
	xz_dec *x = (xz_dec *)d;
	lzma_index *idx = NULL;
	if ((rc = tk_cin_init(&d->cin, in, false, 64u << 10)) < 0)
		goto out;
	lzma_ret r = lzma_file_info_decoder(&x->ls, &idx, in->opts.memlimit, in->raw.size);
	if (r != LZMA_OK) {
		rc = xz_fail(x, r);
		goto out;
	}
	tk_cin *c = &d->cin;
	for (;;) {
		if (!tk_cin_avail(c) && !c->eof && (rc = tk_cin_fill(c)) < 0)
			goto out;
		x->ls.next_in = c->buf + c->pos;
		x->ls.avail_in = tk_cin_avail(c);
		r = lzma_code(&x->ls, tk_cin_avail(c) || !c->eof ? LZMA_RUN : LZMA_FINISH);
		c->pos += tk_cin_avail(c) - x->ls.avail_in;
		if (r == LZMA_SEEK_NEEDED) {
			if (x->ls.seek_pos > in->raw.size) {
				rc = xz_fail(x, LZMA_DATA_ERROR);
				goto out;
			}
			tk_cin_seek(c, x->ls.seek_pos);
			continue;
		}
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			rc = xz_fail(x, r);
			goto out;
		}
	}
	lzma_index_iter it;
	lzma_index_iter_init(&it, idx);
	tk_ckpt_free(t);
	while (!lzma_index_iter_next(&it, LZMA_INDEX_ITER_NONEMPTY_BLOCK))
		if ((rc = tk_ckpt_add(t, it.block.uncompressed_file_offset,
				      it.block.compressed_file_offset,
				      (uint32_t)it.stream.flags->check, NULL, 0)) < 0)
			goto out;
	if (!t->n)
		rc = tk_ckpt_add(t, 0, 0, 0, NULL, 0);	/* empty: nothing to decode */
	t->total_out = lzma_index_uncompressed_size(idx);
	t->complete = true;
	rc = rc < 0 ? rc : 1;
out:
	if (idx)
		lzma_index_end(idx, NULL);
	xz_destroy(d);
	return rc;
}

const tk_codec tk_codec_xz = {"xz", xz_create, xz_start, xz_read, xz_destroy, xz_points};
