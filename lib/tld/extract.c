/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a trace buffer rebuilt from the target's memory writes (a
 * Tarmac trace of a trace-linked program), written as a dump file. */
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tld_dump.h"

struct tk_tld_extract {
	const tk_tld_image *img;
	uint8_t *buf;		/* capacity_words * 4 bytes, target memory */
	uint64_t *time;		/* per word: time of its last write */
	uint8_t in[4];		/* __rtld_tbg_buffer_in */
	uint8_t finished, triggered;
	uint64_t writes;
};

int tk_tld_extract_new(const tk_tld_image *img, tk_tld_extract **out)
{
	*out = NULL;
	tk_tld_extract *x = calloc(1, sizeof *x);
	size_t words = img->capacity_words ? img->capacity_words : 1;
	if (!x || !(x->buf = calloc(words, 4)) || !(x->time = calloc(words, sizeof *x->time))) {
		if (x) {
			free(x->buf);
			free(x);
		}
		return TK_ERR_NOMEM;
	}
	x->img = img;
	*out = x;
	return 0;
}

void tk_tld_extract_free(tk_tld_extract *x)
{
	if (!x)
		return;
	free(x->buf);
	free(x->time);
	free(x);
}

uint64_t tk_tld_extract_writes(const tk_tld_extract *x)
{
	return x->writes;
}

/* The bytes of the access that fall in [base, base + len) go to dst. */
static bool overlay(const tk_mem_access *m, uint64_t base, uint64_t len, uint8_t *dst,
		    uint64_t *first, uint64_t *last)
{
	if (m->addr >= base + len || m->addr + m->size <= base)
		return false;
	bool any = false;
	for (uint32_t i = 0; i < m->size; i++) {
		uint64_t a = m->addr + i;
		if (a < base || a >= base + len || m->state[i] != TK_BYTE_SET)
			continue;
		dst[a - base] = m->bytes[i];
		if (!any)
			*first = a - base;
		*last = a - base;
		any = true;
	}
	return any;
}

void tk_tld_extract_mem(tk_tld_extract *x, const tk_mem_access *m, uint64_t time)
{
	if (!m->write || m->aborted)
		return;
	const tk_tld_image *img = x->img;
	uint64_t first, last;
	if (overlay(m, img->buffer_addr, (uint64_t)img->capacity_words * 4, x->buf, &first, &last)) {
		for (uint64_t w = first / 4; w <= last / 4; w++)
			x->time[w] = time;
		x->writes += last - first + 1;
	}
	overlay(m, img->in_addr, 4, x->in, &first, &last);
	overlay(m, img->finished_addr, 1, &x->finished, &first, &last);
	overlay(m, img->triggered_addr, 1, &x->triggered, &first, &last);
}

static uint32_t get32(const tk_tld_extract *x, const uint8_t *p)
{
	return x->img->big_endian
		       ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void put32(const tk_tld_extract *x, uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[x->img->big_endian ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

int tk_tld_extract_write(tk_tld_extract *x, FILE *fp)
{
	const tk_tld_image *img = x->img;
	uint32_t used = get32(x, x->in);
	if (used > img->capacity_words)
		used = img->capacity_words;
	/* Each record's time: when its first word was written.  The walk
	 * stops at a record it cannot make sense of (the reader reports it). */
	for (uint32_t w = 0; w + 6 <= used;) {
		uint32_t w0 = get32(x, x->buf + (size_t)w * 4);
		uint32_t size = (w0 >> 16) & TK_TLD_RECORD_MAX;
		if ((w0 & 0xffff) >= img->nfuncs || size < TK_TLD_RECORD_HEADER)
			break;
		uint64_t t = x->time[w];
		put32(x, x->buf + (size_t)(w + 4) * 4, (uint32_t)(t >> 32));
		put32(x, x->buf + (size_t)(w + 5) * 4, (uint32_t)t);
		w += (size + 3) / 4;
	}
	tk_tld_dump_info info = {
		.size = sizeof info,
		.big_endian = img->big_endian,
		.pointer_size = img->pointer_size,
		.clock = TK_TLD_CLOCK_TRACE,
		.machine = img->machine,
		.finished = x->finished != 0,
		.triggered = x->triggered != 0,
		.mode = img->mode,
		.capacity_words = img->capacity_words,
		.used_words = used,
	};
	return tk_tld_dump_write(fp, &info, img->funcs, img->nfuncs, x->buf);
}
