/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: writing an index file.
 *
 * tk_ixw writes the file sequentially under a temporary name, section by
 * section, then fills in the header (sizes, checksums) and renames it into
 * place: a reader never sees a half-written index.  tk_spill holds data
 * produced alongside a section being written (directories) in memory, or in
 * an anonymous temporary file beyond a few MB, to be appended later.
 */
#ifndef TRACEKIT_INDEX_WRITE_H
#define TRACEKIT_INDEX_WRITE_H

#include <stdio.h>

#include "index_impl.h"

typedef struct tk_ixw tk_ixw;

/*
 * Create the temporary file for final_path (in the same directory).  If
 * that directory is not writable and anon_ok, the file is created in
 * $TMPDIR and unlinked at once: *anon is then set and tk_ixw_finish leaves
 * it open for the caller.  Errors: TK_ERR_OPEN (errno set), TK_ERR_NOMEM.
 */
int tk_ixw_create(const char *final_path, bool anon_ok, tk_ixw **out, bool *anon);

/* The same, for an index kept for this run only (--memory-index): an
 * anonymous file in memory (memfd), or else in $TMPDIR, unlinked; no file
 * is written.  tk_ixw_finish hands back its descriptor.  Errors:
 * TK_ERR_OPEN (errno set), TK_ERR_NOMEM. */
int tk_ixw_create_memory(const char *final_path, tk_ixw **out);

/* The temporary file's name ("" when anonymous). */
const char *tk_ixw_tmp_path(const tk_ixw *w);

/* Start / end a section; data written in between belongs to it. */
int tk_ixw_begin(tk_ixw *w, uint32_t id);
int tk_ixw_end(tk_ixw *w);

/* Append bytes to the current section.  Errors: TK_ERR_IO. */
int tk_ixw_write(tk_ixw *w, const void *p, size_t n);

/* Bytes written so far into the current section. */
uint64_t tk_ixw_section_pos(const tk_ixw *w);

/*
 * Flush, fill in the header (hdr: the first TK_IDX_HEADER_SIZE bytes with
 * every field but the size, section table and checksums), checksum, and
 * rename into place.  *fd_out receives an open descriptor of the file
 * (-1 if none could be kept; always one for an anonymous file).  The
 * writer is freed in all cases.
 * Errors: TK_ERR_IO.
 */
int tk_ixw_finish(tk_ixw *w, uint8_t *hdr, int *fd_out);

/* Remove the temporary file and free the writer. */
void tk_ixw_abort(tk_ixw *w);

typedef struct tk_spill {
	uint8_t *buf;
	size_t len, cap;
	FILE *fp;		/* overflow, NULL until needed */
	uint64_t total;
} tk_spill;

int tk_spill_write(tk_spill *s, const void *p, size_t n);
/* Append everything to w's current section and reset.  Errors: TK_ERR_IO. */
int tk_spill_copy(tk_spill *s, tk_ixw *w);
void tk_spill_free(tk_spill *s);

/* The CALLS and CALLDIR sections' contents from a walk of the tree (read
 * to its end) into two spills; *ncalls and *nroots receive its size.  Then
 * tk_idx_calls_copy writes them as the two sections (index_calls.c). */
int tk_idx_calls_encode(tk_callwalk *walk, tk_spill *calls, tk_spill *dir, uint64_t *ncalls,
			uint32_t *nroots);
int tk_idx_calls_copy(tk_ixw *w, tk_spill *calls, tk_spill *dir);

#endif
