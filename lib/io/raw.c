/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the file's own bytes, and the cursor decoders read them with
 * (see input_impl.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_impl.h"

int tk_raw_read(tk_raw *r, void *buf, size_t n, size_t *got)
{
	*got = 0;
	if (r->ihead < r->nhead) {	/* the detection bytes first */
		size_t k = r->nhead - r->ihead;
		if (k > n)
			k = n;
		memcpy(buf, r->head + r->ihead, k);
		r->ihead += k;
		r->pos += k;
		*got = k;
		return 0;
	}
	if (r->mem) {
		uint64_t left = r->pos < r->mem_len ? r->mem_len - r->pos : 0;
		size_t k = left < n ? (size_t)left : n;
		memcpy(buf, r->mem + r->pos, k);
		r->pos += k;
		*got = k;
		return 0;
	}
	if (r->fp) {
		size_t k = fread(buf, 1, n, r->fp);
		if (k == 0 && ferror(r->fp))
			return TK_ERR_IO;
		r->pos += k;
		*got = k;
		return 0;
	}
	ssize_t k;
	do
		k = read(r->fd, buf, n);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return TK_ERR_IO;
	r->pos += (uint64_t)k;
	*got = (size_t)k;
	return 0;
}

int tk_raw_pread(const tk_raw *r, uint64_t off, void *buf, size_t n, size_t *got)
{
	*got = 0;
	if (!r->positional)
		return TK_ERR_UNSUPPORTED;
	if (r->mem) {
		uint64_t left = off < r->mem_len ? r->mem_len - off : 0;
		size_t k = left < n ? (size_t)left : n;
		memcpy(buf, r->mem + off, k);
		*got = k;
		return 0;
	}
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(r->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return TK_ERR_IO;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	*got = done;
	return 0;
}

/* ---- the cursor ---- */

int tk_cin_init(tk_cin *c, tk_input *in, bool sequential, size_t cap)
{
	memset(c, 0, sizeof *c);
	c->in = in;
	c->sequential = sequential;
	c->cap = cap;
	c->buf = malloc(cap);
	return c->buf ? 0 : TK_ERR_NOMEM;
}

void tk_cin_fini(tk_cin *c)
{
	free(c->buf);
	c->buf = NULL;
}

void tk_cin_seek(tk_cin *c, uint64_t off)
{
	c->base = off;
	c->pos = c->len = 0;
	c->eof = false;
}

int tk_cin_fill(tk_cin *c)
{
	if (c->pos > 0) {
		memmove(c->buf, c->buf + c->pos, c->len - c->pos);
		c->base += c->pos;
		c->len -= c->pos;
		c->pos = 0;
	}
	if (c->len == c->cap || c->eof)
		return 0;
	size_t got;
	int rc = c->sequential ? tk_raw_read(&c->in->raw, c->buf + c->len, c->cap - c->len, &got)
			       : tk_raw_pread(&c->in->raw, c->base + c->len, c->buf + c->len,
					      c->cap - c->len, &got);
	if (rc < 0)
		return tk_input_fail(c->in, rc, c->base + c->len, "read error at byte %llu: %s",
				     (unsigned long long)(c->base + c->len), strerror(errno));
	if (got == 0)
		c->eof = true;
	c->len += got;
	return 0;
}

int tk_cin_need(tk_cin *c, size_t n)
{
	if (n > c->cap)
		n = c->cap;
	while (tk_cin_avail(c) < n && !c->eof) {
		int rc = tk_cin_fill(c);
		if (rc < 0)
			return rc;
	}
	return 0;
}
