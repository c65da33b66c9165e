/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): the trace file's text, by byte offset.
 *
 * The browser shows the trace's own lines; the index tells it where each
 * instruction's lines start.  The file is mapped read-only, so a line is a
 * pointer and a length, and moving anywhere in a 100 MB trace costs nothing.
 */
#ifndef TRACEKIT_VIEW_TEXTFILE_H
#define TRACEKIT_VIEW_TEXTFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tkv_file {
	const char *data;	/* the mapped file (NULL when empty) */
	uint64_t size;
} tkv_file;

/* Returns 0, or a negative tk_err (TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_IO). */
int tkv_file_open(tkv_file *f, const char *path);
void tkv_file_close(tkv_file *f);

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
