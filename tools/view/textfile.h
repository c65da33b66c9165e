/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the trace file's text, by byte offset.
 *
 * The browser shows the trace's own lines; the index tells it where each
 * instruction's lines start.  A plain trace is mapped read-only, so a line
 * is a pointer and a length, and moving anywhere in a 100 MB trace costs
 * nothing.  A compressed trace is read through the input layer at the
 * index's (decompressed) offsets, 64 KiB pages at a time, the most recent
 * pages kept: a jump decodes from the restart point nearest to it (see
 * tracekit/input.h), the lines around it then come from the cache.
 */
#ifndef TRACEKIT_VIEW_TEXTFILE_H
#define TRACEKIT_VIEW_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/index.h"
#include "tracekit/input.h"

typedef struct tkv_pages tkv_pages;
typedef struct tkv_render tkv_render;

/*
 * A trace without text (a binary format: no TK_CAP_TEXT) is shown as lines
 * rendered from its index (rendered.h): its "offsets" are then record
 * numbers minus one, one per line, and size is the number of records.
 * Offsets taken from the index go through tkv_pos_offset() first.
 */
typedef struct tkv_file {
	const char *data;	/* a plain trace, mapped (NULL when empty or compressed) */
	uint64_t size;		/* bytes of text (records, when rendered) */
	tk_input *in;
	tkv_pages *pages;	/* a compressed trace's page cache */
	tkv_render *render;	/* a trace without text: lines rendered */
} tkv_file;

/* True when the browsers show idx's trace through rendered lines: its
 * source has no text. */
static inline bool tkv_index_rendered(const tk_index *idx)
{
	tk_index_info info = {.size = sizeof info};
	return tk_index_get_info(idx, &info) == 0 && !(info.caps & TK_CAP_TEXT);
}

/* The text offset of a line the index describes by its byte offset and
 * its 1-based line (record) number, in rendered lines or not. */
static inline uint64_t tkv_text_offset(bool rendered, uint64_t offset, uint64_t line)
{
	return rendered ? (line ? line - 1 : 0) : offset;
}

/* The same in f. */
static inline uint64_t tkv_pos_offset(const tkv_file *f, uint64_t offset, uint64_t line)
{
	return tkv_text_offset(f->render != NULL, offset, line);
}

/* Open the trace of idx (path: the trace as given on the command line).
 * Returns 0, or a negative tk_err (TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_IO,
 * or the input's: then *why, if not NULL, says more). */
int tkv_file_open(tkv_file *f, const char *path, const tk_index *idx, const char **why);
void tkv_file_close(tkv_file *f);

/* The len bytes at off (valid until the next call on f).  A compressed
 * trace that cannot be read there gives a bracketed message instead, its
 * length in *out_len. */
const char *tkv_line_text(const tkv_file *f, uint64_t off, size_t len, size_t *out_len);

/* Offset of the first byte after the line starting at off (its '\n' or the
 * end of the file).  The text is [off, end), without '\r'. */
uint64_t tkv_line_end(const tkv_file *f, uint64_t off);

/* Offset just past the line's newline: the next line's start. */
uint64_t tkv_line_next(const tkv_file *f, uint64_t off);

/* Start of the line before the one starting at off (off > 0). */
uint64_t tkv_line_prev(const tkv_file *f, uint64_t off);

/* Count of lines in [from, to) (both line starts).  A long range's pages
 * are given back as it is read. */
uint64_t tkv_count_lines(const tkv_file *f, uint64_t from, uint64_t to);

/* Give back the pages of the file that reading has mapped: after each
 * key or request, so that a long session never makes the trace resident
 * (reading again faults them in from the page cache). */
void tkv_file_trim(const tkv_file *f);

#endif
