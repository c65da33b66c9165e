/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: line reader (see linereader.h). */
#include <stdlib.h>
#include <string.h>

#include "linereader.h"
#include "tracekit/error.h"

#define CHUNK (1u << 20)		/* read size, and the buffer's usual size */
#define DEFAULT_MAX_LINE (64u << 20)
#define NO_NUL UINT64_MAX

int tk_linereader_init(tk_linereader *lr, tk_input *in, size_t max_line)
{
	memset(lr, 0, sizeof *lr);
	lr->in = in;
	lr->max_line = max_line ? max_line : DEFAULT_MAX_LINE;
	lr->next_nul = NO_NUL;
	lr->cap = CHUNK;
	lr->buf = malloc(lr->cap);
	return lr->buf ? 0 : TK_ERR_NOMEM;
}

static uint64_t find_nul(const tk_linereader *lr, size_t from);

int tk_linereader_prime(tk_linereader *lr, const void *data, size_t n)
{
	if (n > lr->cap - lr->end) {
		size_t cap = lr->end + n;
		char *nb = realloc(lr->buf, cap);
		if (!nb)
			return TK_ERR_NOMEM;
		lr->buf = nb;
		lr->cap = cap;
	}
	size_t old = lr->end;
	memcpy(lr->buf + lr->end, data, n);
	lr->end += n;
	if (lr->next_nul == NO_NUL)
		lr->next_nul = find_nul(lr, old);
	return 0;
}

int tk_linereader_seek(tk_linereader *lr, uint64_t offset)
{
	int rc = tk_input_random_access(lr->in);
	if (rc < 0)
		return rc;
	lr->positioned = true;
	lr->base = offset;
	lr->start = lr->end = lr->scan = 0;
	lr->eof = lr->skipping = false;
	lr->next_nul = NO_NUL;
	return 0;
}

void tk_linereader_fini(tk_linereader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/* The first NUL in buf[from, end), as a file offset. */
static uint64_t find_nul(const tk_linereader *lr, size_t from)
{
	const char *z = from < lr->end ? memchr(lr->buf + from, 0, lr->end - from) : NULL;
	return z ? lr->base + (uint64_t)(z - lr->buf) : NO_NUL;
}

/* Read more data after end, making room first.  Returns 0 or an error. */
static int fill(tk_linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->base += lr->start;
		lr->end -= lr->start;
		lr->scan -= lr->start;
		lr->start = 0;
	}
	if (lr->end == lr->cap) {
		char *nb = realloc(lr->buf, lr->cap * 2);
		if (!nb)
			return TK_ERR_NOMEM;
		lr->buf = nb;
		lr->cap *= 2;
	} else if (lr->cap > 4 * CHUNK && lr->end < CHUNK) {
		char *nb = realloc(lr->buf, CHUNK);	/* after a long line */
		if (nb) {
			lr->buf = nb;
			lr->cap = CHUNK;
		}
	}
	size_t n;
	int rc = lr->positioned ? tk_input_pread(lr->in, lr->base + lr->end, lr->buf + lr->end,
						 lr->cap - lr->end, &n)
				: tk_input_read(lr->in, lr->buf + lr->end, lr->cap - lr->end, &n);
	if (rc < 0)
		return rc;
	if (n == 0) {
		lr->eof = true;
		return 0;
	}
	size_t old = lr->end;
	lr->end += n;
	if (lr->next_nul == NO_NUL)
		lr->next_nul = find_nul(lr, old);
	return 0;
}

int tk_linereader_peek(tk_linereader *lr, const char **data, size_t *len)
{
	while (lr->end - lr->start < 4096 && !lr->eof) {
		int rc = fill(lr);
		if (rc < 0)
			return rc;
	}
	*data = lr->buf + lr->start;
	*len = lr->end - lr->start;
	return 0;
}

/* Hand out buf[start, start+len) and consume it and n_after more bytes. */
static void emit(tk_linereader *lr, tk_line *line, size_t len, size_t n_after)
{
	line->s = lr->buf + lr->start;
	line->len = len;
	line->offset = lr->base + lr->start;
	line->has_nul = false;
	if (lr->next_nul != NO_NUL) {
		if (lr->next_nul < line->offset)	/* passed while skipping */
			lr->next_nul = find_nul(lr, lr->start);
		if (lr->next_nul < line->offset + len) {
			line->has_nul = true;
			lr->next_nul = find_nul(lr, lr->start + len);
		}
	}
	lr->start += len + n_after;
	if (lr->start > lr->end)
		lr->start = lr->end;
	lr->scan = lr->start;
}

int tk_linereader_next(tk_linereader *lr, tk_line *line)
{
	line->too_long = false;
	line->no_newline = false;
	for (;;) {
		char *nl = lr->scan < lr->end ? memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan) : NULL;
		if (nl) {
			size_t len = (size_t)(nl - (lr->buf + lr->start));
			if (lr->skipping) {	/* the tail of a too-long line */
				lr->skipping = false;
				lr->start += len + 1;
				lr->scan = lr->start;
				continue;
			}
			emit(lr, line, len, 1);
			return 1;
		}
		lr->scan = lr->end;
		if (lr->skipping) {
			lr->start = lr->scan = lr->end;
		} else if (lr->end - lr->start >= lr->max_line) {
			emit(lr, line, lr->max_line, lr->end - lr->start - lr->max_line);
			line->too_long = true;
			lr->skipping = true;
			return 1;
		}
		if (lr->eof) {
			if (lr->start < lr->end) {
				emit(lr, line, lr->end - lr->start, 0);
				line->no_newline = true;
				return 1;
			}
			return 0;
		}
		int rc = fill(lr);
		if (rc < 0)
			return rc;
	}
}
