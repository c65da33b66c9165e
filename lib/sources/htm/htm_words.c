/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: HTM dump words — buffered big-endian input, stamp skipping,
 * push-back, diagnostics; opening and closing the decoder. */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/htm/htm_impl.h"
#include "tracekit/error.h"

void tk_htm_opts_init(tk_htm_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

int htm_fail(tk_htm *d, int err, uint64_t off, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(d->errmsg, sizeof d->errmsg, "%s: offset %" PRIu64 ": %s", d->name, off, msg);
	d->err = err;
	return err;
}

void htm_warn(tk_htm *d, uint64_t off, const char *fmt, ...)
{
	if (!d->opts.diag)
		return;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag diag = {TK_DIAG_WARNING, d->name, 0, msg, true, off};
	d->opts.diag(d->opts.diag_ctx, &diag);
}

static int fill(tk_htm *d)
{
	d->base += (uint64_t)d->len * 8;
	d->pos = d->len = 0;
	if (d->eof)
		return 0;
	long k = tk_binin_read(d->in, d->buf, HTM_BUF_WORDS * 8);
	if (k < 0)
		return htm_fail(d, (int)k, d->base, "%s", k == TK_ERR_CORRUPT
				? "corrupt compressed data" : tk_strerror((int)k));
	if ((size_t)k < HTM_BUF_WORDS * 8) {
		d->eof = true;
		d->stray = (unsigned)(k % 8);
	}
	d->len = (size_t)k / 8;
	for (size_t i = 0; i < d->len; i++)
		d->buf[i] = be64toh(d->buf[i]);
	if (d->eof && d->stray)
		htm_warn(d, d->base + (uint64_t)d->len * 8,
			 "the dump ends with %u bytes that are not a whole 64-bit word (ignored)",
			 d->stray);
	return 0;
}

int htm_fetch_raw_slow(tk_htm *d, uint64_t *w)
{
	if (d->have_pushback) {
		d->have_pushback = false;
		*w = d->pushback;
		d->last_off = d->pushback_off;
		return 1;
	}
	if (d->pos == d->len) {
		int rc = fill(d);
		if (rc < 0)
			return rc;
		if (d->len == 0)
			return 0;
	}
	d->last_off = d->base + (uint64_t)d->pos * 8;
	*w = d->buf[d->pos++];
	d->stats.raw_checksum += *w;
	return 1;
}

void htm_handle_stamp(tk_htm *d, uint64_t w, uint64_t off)
{
	tk_htm_stamp s;
	d->stats.stamps_scanned++;
	if (tk_htm_stamp_decode(w, &s) < 0) {
		htm_warn(d, off, "invalid stamp word %016" PRIx64 " (ignored)", w);
		return;
	}
	s.offset = off;
	d->stats.stamps_processed++;
	if (s.kind == TK_HTM_STAMP_TIME && s.indicator == 0x80)
		d->stats.cycles += s.cycles;
	if (d->opts.on_stamp)
		d->opts.on_stamp(d->opts.ctx, &s);
}

int htm_fetch_slow(tk_htm *d, uint64_t *w)
{
	for (;;) {
		int rc = htm_fetch_raw(d, w);
		if (rc <= 0)
			return rc;
		if (!htm_is_stamp(*w))
			return 1;
		htm_handle_stamp(d, *w, d->last_off);
	}
}

int htm_push_back(tk_htm *d, uint64_t w)
{
	uint64_t off = d->last_off;
	if (d->pushed_once && d->last_pushback_off == off)
		return htm_fail(d, TK_ERR_CORRUPT, off,
				"trace corrupted too badly to parse (word %016" PRIx64
				" given back twice)", w);
	d->pushed_once = true;
	d->last_pushback_off = off;
	d->have_pushback = true;
	d->pushback = w;
	d->pushback_off = off;
	return 0;
}

/* ---- opening ----------------------------------------------------------------- */

static int open_common(tk_binin *in, const char *name, const tk_htm_opts *o, tk_htm **out)
{
	tk_htm *d = calloc(1, sizeof *d);
	if (d) {
		d->name = strdup(name);
		d->buf = malloc(HTM_BUF_WORDS * 8);
	}
	if (!d || !d->name || !d->buf) {
		tk_binin_close(in);
		tk_htm_free(d);
		return TK_ERR_NOMEM;
	}
	d->in = in;
	if (o)
		memcpy(&d->opts, o, o->size < sizeof d->opts ? o->size : sizeof d->opts);
	*out = d;
	return 0;
}

int tk_htm_open(const char *path, const tk_htm_opts *o, tk_htm **out)
{
	*out = NULL;
	tk_binin *in;
	int rc = tk_binin_open(path, &in);
	if (rc < 0)
		return rc;
	return open_common(in, strcmp(path, "-") ? path : "<stdin>", o, out);
}

int tk_htm_open_mem(const void *data, size_t len, const char *name, const tk_htm_opts *o,
		    tk_htm **out)
{
	*out = NULL;
	tk_binin *in;
	int rc = tk_binin_open_mem(data, len, &in);
	if (rc < 0)
		return rc;
	return open_common(in, name ? name : "<memory>", o, out);
}

void tk_htm_free(tk_htm *d)
{
	if (!d)
		return;
	tk_binin_close(d->in);
	free(d->esid_ira.slots);
	free(d->esid_noira.slots);
	free(d->name);
	free(d->buf);
	free(d);
}

const char *tk_htm_error(const tk_htm *d) { return d->err ? d->errmsg : ""; }
uint64_t tk_htm_offset(const tk_htm *d) { return d->base + (uint64_t)d->pos * 8; }
uint64_t tk_htm_size(const tk_htm *d) { return tk_binin_file_size(d->in); }
const tk_htm_stats *tk_htm_get_stats(const tk_htm *d) { return &d->stats; }
