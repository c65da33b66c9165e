/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: what every tk_source implementation provides.
 *
 * A source embeds struct tk_source as its first member and fills in ops;
 * the public accessors in source.h read the common fields kept here, so a
 * new trace format only writes next() and free().
 */
#ifndef TRACEKIT_SOURCE_AUTHOR_H
#define TRACEKIT_SOURCE_AUTHOR_H

#include "tracekit/source.h"

typedef struct tk_source_ops {
	const char *format;		/* "tarmac", ... */
	/* Same contract as tk_source_next(). */
	int (*next)(tk_source *src, tk_event *ev);
	/* Release everything but the base (tk_source_free frees that). */
	void (*free)(tk_source *src);
} tk_source_ops;

struct tk_source {
	const tk_source_ops *ops;
	char *path;		/* owned copy, for diagnostics */
	uint64_t pos;		/* bytes consumed */
	uint64_t size;		/* 0 if unknown */
	uint64_t warnings;	/* warnings reported */
	tk_diag_fn diag;
	void *diag_ctx;
	tk_input *input;	/* the input it reads through, if any (not
				 * owned by the base) */
};

/* Fill the base; returns TK_ERR_NOMEM if the path cannot be copied. */
int tk_source_init(tk_source *src, const tk_source_ops *ops, const char *path,
		   tk_diag_fn diag, void *diag_ctx);

/* Report a diagnostic about a line (0: the whole file); warnings are
 * counted.  printf-style message. */
void tk_source_report(tk_source *src, tk_diag_level level, uint64_t line,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
