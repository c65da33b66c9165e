/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing a trace source (a new trace format).
 *
 * A format lives in its own folder, lib/sources/<name>/, and exports one
 * tk_source_format descriptor (source.h) named tk_format_<name>, listed in
 * lib/sources/formats.def.  Its open() allocates a struct that embeds
 * struct tk_source as its first member, fills it with tk_source_init(), and
 * sets what tk_source_info reports (caps, time unit, isa...) in src->info.
 * The public accessors of source.h read the common fields kept here, so a
 * format only writes next() and free(), and seek() if it can.
 *
 * Contract of next(): one event per call (1), 0 at the end, a negative
 * tk_err for a fatal error (returned again on every later call).  Damage
 * in the input is reported with tk_source_report() / tk_source_report_at()
 * and skipped where it safely can be; events before it are kept.  Pointers
 * in an event may point into the source's buffers until the next call.
 * Set tk_event.line to the 1-based line or record number and offset to its
 * byte offset: the index, the browser (through seek) and every message use
 * them.
 */
#ifndef TRACEKIT_SOURCE_AUTHOR_H
#define TRACEKIT_SOURCE_AUTHOR_H

#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_source_ops {
	/* Same contract as tk_source_next(). */
	int (*next)(tk_source *src, tk_event *ev);
	/* Release everything but the base (tk_source_free frees that). */
	void (*free)(tk_source *src);
	/* As tk_source_seek(); NULL: TK_ERR_UNSUPPORTED. */
	int (*seek)(tk_source *src, const tk_seek_point *at);
} tk_source_ops;

struct tk_source {
	const tk_source_ops *ops;
	const tk_source_format *format;	/* set by tk_source_open */
	tk_source_info info;	/* format, caps, time_unit... (options: see
				 * tk_source_set_options) */
	char *path;		/* owned copy, for diagnostics */
	char *options;		/* owned canonical option string */
	uint64_t pos;		/* bytes consumed */
	uint64_t size;		/* 0 if unknown */
	uint64_t warnings;	/* warnings reported */
	tk_diag_fn diag;
	void *diag_ctx;
	tk_input *input;	/* the input it reads through, if any (not
				 * owned by the base) */
};

/* Fill the base: ops, path (copied), the spec's diagnostic callback, and
 * info from the format's descriptor (format name, caps, time unit;
 * context "cpu").  spec may be NULL.  Returns 0 or TK_ERR_NOMEM. */
int tk_source_init(tk_source *src, const tk_source_ops *ops, const tk_source_format *fmt,
		   const char *path, const tk_source_spec *spec);

/* Record the canonical option string of the spec (tk_source_options_key)
 * in src->info.options.  Returns 0 or TK_ERR_NOMEM. */
int tk_source_set_options(tk_source *src, const tk_source_spec *spec);

/* Report a diagnostic about a line or record (0: the whole file); warnings
 * are counted.  printf-style message. */
void tk_source_report(tk_source *src, tk_diag_level level, uint64_t line,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The same about a byte offset of a binary file. */
void tk_source_report_at(tk_source *src, tk_diag_level level, uint64_t offset,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
