/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: sorting more records than memory should hold.
 *
 * Records (a u64 key and up to 64 KiB of bytes) are collected into a run
 * buffer of bounded size; a full buffer is sorted and written to an
 * anonymous temporary file as one run.  Reading merges the runs, so the
 * memory used is the budget given, whatever the number of records.
 * Records of equal keys come out in the order they were added.  A sort
 * that fits in one buffer never touches the disk.
 */
#ifndef TRACEKIT_XSORT_H
#define TRACEKIT_XSORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_xsort tk_xsort;

/* budget: bytes of memory for records (at least 64 KiB is used).
 * Errors: TK_ERR_NOMEM. */
int tk_xsort_new(size_t budget, tk_xsort **out);

/* Errors: TK_ERR_NOMEM, TK_ERR_IO (writing a run), TK_ERR_INVAL (len over
 * 64 KiB, or the sort already read). */
int tk_xsort_add(tk_xsort *s, uint64_t key, const void *rec, size_t len);

/* Records added so far. */
uint64_t tk_xsort_count(const tk_xsort *s);

/* The next record in key order: 1 with *key, *rec (valid until the next
 * call) and *len; 0 at the end.  The first call ends adding.
 * Errors: TK_ERR_IO, TK_ERR_NOMEM, TK_ERR_CORRUPT (a run read back wrong). */
int tk_xsort_next(tk_xsort *s, uint64_t *key, const void **rec, size_t *len);

void tk_xsort_free(tk_xsort *s);

#endif
