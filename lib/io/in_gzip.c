/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the gzip decoder.
 *
 * Members are read one after the other (a file of several, as `cat a.gz
 * b.gz` or bgzip make, reads as their concatenation); zero bytes after the
 * last one are ignored, anything else there is an error.  The gzip header
 * is parsed here and the deflate data inflated raw, so that decoding can
 * also start in the middle of a member, at a block boundary recorded as a
 * checkpoint: there the unused bits of the byte before are primed and the
 * 32 KiB window set as the dictionary.  Each member's CRC-32 and length
 * are checked when it was decoded from its start.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "input_impl.h"

enum { GZ_HEADER, GZ_DATA, GZ_TRAILER, GZ_END };

typedef struct gz_dec {
	tk_dec d;
	z_stream zs;
	bool zs_ready;
	int state;
	bool first;		/* the next header is the file's first */
	bool check;		/* the member was decoded from its start */
	uint32_t crc, isize;
	uint8_t last_byte;	/* the last compressed byte inflate took */
	uint8_t win[TK_GZ_WINDOW];
} gz_dec;

static int gz_create(tk_input *in, tk_dec **out)
{
	gz_dec *g = calloc(1, sizeof *g);
	if (!g)
		return TK_ERR_NOMEM;
	g->d.codec = &tk_codec_gzip;
	g->d.in = in;
	if (inflateInit2(&g->zs, -15) != Z_OK) {
		free(g);
		return TK_ERR_NOMEM;
	}
	g->zs_ready = true;
	*out = &g->d;
	return 0;
}

static void gz_destroy(tk_dec *d)
{
	gz_dec *g = (gz_dec *)d;
	if (g->zs_ready)
		inflateEnd(&g->zs);
	tk_cin_fini(&d->cin);
	free(g);
}

static int gz_start(tk_dec *d, const tk_ckpt *from, const tk_ckpt_table *t, size_t k)
{
	gz_dec *g = (gz_dec *)d;
	g->check = false;
	g->first = !from;
	d->out = from ? from->out : 0;
	d->last_rec = d->out;
	if (!d->cin.sequential)
		tk_cin_seek(&d->cin, from ? from->in : 0);
	if (!from || TK_GZ_AUX_MEMBER(from->aux)) {
		g->state = GZ_HEADER;
		return 0;
	}
	inflateReset2(&g->zs, -15);
	unsigned bits = TK_GZ_AUX_BITS(from->aux);
	if (bits && inflatePrime(&g->zs, (int)bits, TK_GZ_AUX_BYTE(from->aux) >> (8 - bits)) != Z_OK)
		return TK_ERR_FORMAT;
	size_t wlen;
	int rc = tk_ckpt_window(t, k, g->win, &wlen);
	if (rc < 0)
		return rc == TK_ERR_CORRUPT ? TK_ERR_FORMAT : rc;	/* the table's fault */
	if (wlen && inflateSetDictionary(&g->zs, g->win, (uInt)wlen) != Z_OK)
		return TK_ERR_FORMAT;
	g->state = GZ_DATA;
	return 0;
}

static int truncated(gz_dec *g, const char *where)
{
	uint64_t off = tk_cin_off(&g->d.cin);
	return tk_input_fail(g->d.in, TK_ERR_EOF, off,
			     "truncated gzip data: the file ends at byte %llu inside %s",
			     (unsigned long long)off, where);
}

/* Skip a zero-terminated header field starting at *off. */
static int skip_string(gz_dec *g, size_t *off)
{
	tk_cin *c = &g->d.cin;
	for (;;) {
		int rc = tk_cin_need(c, *off + 1);
		if (rc < 0)
			return rc;
		if (tk_cin_avail(c) < *off + 1)
			return tk_cin_avail(c) == c->cap ?
				tk_input_fail(g->d.in, TK_ERR_CORRUPT, tk_cin_off(c),
					      "gzip header at byte %llu is too long",
					      (unsigned long long)tk_cin_off(c)) :
				truncated(g, "a gzip header");
		if (c->buf[c->pos + (*off)++] == 0)
			return 0;
	}
}

/* Parse a member header.  Returns 0 (data follows), 1 (no more members),
 * or an error. */
static int gzd_header(gz_dec *g)
{
	tk_cin *c = &g->d.cin;
	int rc;
	if (!g->first) {	/* after a member: another one, zeros, or the end */
		for (;;) {
			if ((rc = tk_cin_need(c, 1)) < 0)
				return rc;
			if (!tk_cin_avail(c))
				return 1;
			if (c->buf[c->pos])
				break;
			while (tk_cin_avail(c) && !c->buf[c->pos])
				c->pos++;
			if (tk_cin_avail(c))
				return tk_input_fail(g->d.in, TK_ERR_CORRUPT, tk_cin_off(c),
						     "unexpected data after the gzip padding at byte %llu",
						     (unsigned long long)tk_cin_off(c));
		}
	}
	uint64_t start = tk_cin_off(c);
	if ((rc = tk_cin_need(c, 10)) < 0)
		return rc;
	const uint8_t *h = c->buf + c->pos;
	size_t avail = tk_cin_avail(c);
	if (avail >= 2 && (h[0] != 0x1f || h[1] != 0x8b))
		return tk_input_fail(g->d.in, TK_ERR_CORRUPT, start,
				     "unexpected data after a gzip member at byte %llu",
				     (unsigned long long)start);
	if (avail < 10)
		return truncated(g, "a gzip header");
	if (h[2] != 8 || (h[3] & 0xe0))
		return tk_input_fail(g->d.in, TK_ERR_CORRUPT, start,
				     "gzip member at byte %llu: unknown compression method or flags",
				     (unsigned long long)start);
	unsigned flags = h[3];
	size_t off = 10;
	if (flags & 4) {	/* FEXTRA */
		if ((rc = tk_cin_need(c, 12)) < 0)
			return rc;
		if (tk_cin_avail(c) < 12)
			return truncated(g, "a gzip header");
		off = 12 + (size_t)(c->buf[c->pos + 10] | c->buf[c->pos + 11] << 8);
	}
	if ((flags & 8) && (rc = skip_string(g, &off)) < 0)	/* FNAME */
		return rc;
	if ((flags & 16) && (rc = skip_string(g, &off)) < 0)	/* FCOMMENT */
		return rc;
	if (flags & 2)		/* FHCRC */
		off += 2;
	if ((rc = tk_cin_need(c, off)) < 0)
		return rc;
	if (tk_cin_avail(c) < off)
		return truncated(g, "a gzip header");
	c->pos += off;
	inflateReset2(&g->zs, -15);
	g->first = false;
	g->check = true;
	g->crc = 0;
	g->isize = 0;
	return tk_dec_maybe_record(&g->d, start, TK_GZ_AUX(0, 0, 1), NULL, 0, false);
}

static int gzd_trailer(gz_dec *g)
{
	tk_cin *c = &g->d.cin;
	int rc = tk_cin_need(c, 8);
	if (rc < 0)
		return rc;
	if (tk_cin_avail(c) < 8)
		return truncated(g, "a gzip trailer");
	const uint8_t *p = c->buf + c->pos;
	if (g->check && (tk_le32(p) != g->crc || tk_le32(p + 4) != g->isize))
		return tk_input_fail(g->d.in, TK_ERR_CORRUPT, tk_cin_off(c),
				     "gzip checksum or length mismatch in the member ending at byte %llu",
				     (unsigned long long)(tk_cin_off(c) + 8));
	c->pos += 8;
	return 0;
}

/* Inflate into out; records a checkpoint at block boundaries. */
static int gzd_inflate(gz_dec *g, uint8_t *out, size_t n, size_t *made)
{
	tk_cin *c = &g->d.cin;
	tk_dec *d = &g->d;
	*made = 0;
	if (!tk_cin_avail(c)) {
		int rc = tk_cin_fill(c);
		if (rc < 0)
			return rc;
		if (!tk_cin_avail(c))
			return truncated(g, "deflate data");
	}
	size_t avail = tk_cin_avail(c);
	if (avail > UINT32_MAX)
		avail = UINT32_MAX;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	g->zs.next_in = c->buf + c->pos;
	g->zs.avail_in = (uInt)avail;
	g->zs.next_out = out;
	g->zs.avail_out = (uInt)n;
	int zr = inflate(&g->zs, d->rec ? Z_BLOCK : Z_NO_FLUSH);
	size_t used = avail - g->zs.avail_in;
	*made = n - g->zs.avail_out;
	if (used)
		g->last_byte = c->buf[c->pos + used - 1];
	c->pos += used;
	if (g->check) {
		g->crc = (uint32_t)crc32(g->crc, out, (uInt)*made);
		g->isize += (uint32_t)*made;
	}
	d->out += *made;
	switch (zr) {
	case Z_STREAM_END:
		g->state = GZ_TRAILER;
		return 0;
	case Z_OK:
	case Z_BUF_ERROR:
		break;
	case Z_MEM_ERROR:
		return tk_input_fail(d->in, TK_ERR_NOMEM, tk_cin_off(c), "out of memory");
	default:
		return tk_input_fail(d->in, TK_ERR_CORRUPT, tk_cin_off(c),
				     "corrupt gzip data at byte %llu of the file (%s)",
				     (unsigned long long)tk_cin_off(c),
				     g->zs.msg ? g->zs.msg : "inflate failed");
	}
	if (!used && !*made && zr == Z_BUF_ERROR)
		return tk_input_fail(d->in, TK_ERR_CORRUPT, tk_cin_off(c),
				     "corrupt gzip data at byte %llu of the file",
				     (unsigned long long)tk_cin_off(c));
	int dt = g->zs.data_type;
	if (d->rec && (dt & 128) && !(dt & 64) && d->out - d->last_rec >= d->rec->spacing) {
		uInt wlen = TK_GZ_WINDOW;
		if (inflateGetDictionary(&g->zs, g->win, &wlen) != Z_OK)
			wlen = 0;
		unsigned bits = (unsigned)dt & 7;
		return tk_dec_maybe_record(d, tk_cin_off(c), TK_GZ_AUX(bits, bits ? g->last_byte : 0, 0),
					   g->win, wlen, true);
	}
	return 0;
}

static int gz_read(tk_dec *d, uint8_t *out, size_t n, size_t *got)
{
	gz_dec *g = (gz_dec *)d;
	*got = 0;
	while (*got < n) {
		int rc = 0;
		size_t made;
		switch (g->state) {
		case GZ_HEADER:
			rc = gzd_header(g);
			if (rc == 1) {
				g->state = GZ_END;
				rc = 0;
			} else if (rc == 0) {
				g->state = GZ_DATA;
			}
			break;
		case GZ_DATA:
			rc = gzd_inflate(g, out + *got, n - *got, &made);
			*got += made;
			break;
		case GZ_TRAILER:
			rc = gzd_trailer(g);
			if (rc == 0)
				g->state = GZ_HEADER;
			break;
		default:
			return 0;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

const tk_codec tk_codec_gzip = {"gzip", gz_create, gz_start, gz_read, gz_destroy, NULL};
