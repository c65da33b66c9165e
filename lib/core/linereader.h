/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: reading a text file line by line, fast.
 *
 * Large chunks from the input layer (tracekit/input.h: read(2) for a plain
 * file, the decompressor's output for a compressed one) into one buffer, newlines found with memchr, lines
 * returned in place (no copy, no allocation per line).  A line longer than
 * the buffer grows it, up to max_line bytes; a longer one is returned
 * truncated with too_long set and the rest of it skipped.  Lines containing
 * NUL bytes are flagged (has_nul) at little cost: the buffer is searched for
 * NUL once per chunk, not once per line.
 */
#ifndef TRACEKIT_LINEREADER_H
#define TRACEKIT_LINEREADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/input.h"

typedef struct tk_line {
	const char *s;		/* without the '\n' (a '\r' is left in) */
	size_t len;
	uint64_t offset;	/* byte offset of the line in the file */
	bool too_long;		/* truncated to max_line; the rest was skipped */
	bool has_nul;		/* contains a NUL byte */
	bool no_newline;	/* the last line of a file not ending in '\n' */
} tk_line;

typedef struct tk_linereader {
	tk_input *in;		/* not owned */
	char *buf;
	size_t cap;
	size_t start, end;	/* unconsumed data: buf[start, end) */
	size_t scan;		/* the newline search resumes here */
	uint64_t base;		/* offset of buf[0] in the (decompressed) data */
	size_t max_line;
	bool eof;
	bool skipping;		/* discarding the rest of a too-long line */
	bool positioned;	/* after a seek: read with tk_input_pread */
	uint64_t next_nul;	/* offset of the first NUL not yet passed, or UINT64_MAX */
} tk_linereader;

/* max_line 0: 64 MiB.  Returns 0 or TK_ERR_NOMEM. */
int tk_linereader_init(tk_linereader *lr, tk_input *in, size_t max_line);
void tk_linereader_fini(tk_linereader *lr);

/* Take n bytes already read from the input's start (a format probe read
 * them from a pipe) as its first bytes.  Returns 0 or TK_ERR_NOMEM. */
int tk_linereader_prime(tk_linereader *lr, const void *data, size_t n);

/* Continue reading at an offset of the (decompressed) data, a line start:
 * the input must allow random access (tk_input_random_access).  Returns 0,
 * or the error of tk_input_random_access. */
int tk_linereader_seek(tk_linereader *lr, uint64_t offset);

/* The next line: 1, 0 at the end of the file, or an error of
 * tk_input_read (tk_input_error says what; the complete lines before
 * damage come first) or TK_ERR_NOMEM.  line->s stays valid until the next
 * call. */
int tk_linereader_next(tk_linereader *lr, tk_line *line);

/* Make sure the start of the file is buffered and show it (for sniffing
 * the format before the first line is read).  Returns 0 or an error. */
int tk_linereader_peek(tk_linereader *lr, const char **data, size_t *len);

/* Bytes consumed so far. */
static inline uint64_t tk_linereader_pos(const tk_linereader *lr)
{
	return lr->base + lr->start;
}

#endif
