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
	/* As tk_source_want_runs(); NULL: no runs. */
	bool (*want_runs)(tk_source *src);
	/* As tk_source_next_many(); NULL: one event per call, by next. */
	int (*next_many)(tk_source *src, tk_event *evs, size_t cap);
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

/*
 * Reading a piece of a file on its own (parallel reading)
 * -------------------------------------------------------
 * A format whose files can be cut at record boundaries and read from any
 * such boundary offers tk_chunk_ops (tk_source_format.chunks).  The core
 * then maps a regular file, cuts it into pieces, reads them on several
 * threads and stitches the results together in order, so that the result
 * is exactly that of reading the file from the start (docs/SCALING.md).
 *
 * Records may depend on the ones before them (Tarmac: a line without a
 * timestamp repeats the last one; s/d register names depend on the last
 * instruction set; an LD/ST diagram continues on the next lines).  That
 * dependence is the format's *state*: a few bytes, opaque to the core,
 * compared byte by byte (unused bytes must be zero).  A piece is read
 * after a silent warm-up over some records before it, starting in the
 * initial state; the core compares the state the warm-up reached with the
 * state the previous piece ended in, and reads the piece again from that
 * state when they differ, so a warm-up that is too short costs time, never
 * correctness.
 */
#define TK_CHUNK_STATE_BYTES 32
typedef struct tk_chunk_state {
	uint8_t b[TK_CHUNK_STATE_BYTES];
} tk_chunk_state;

typedef struct tk_chunk tk_chunk;	/* a format's reader of one piece */

/* Diagnostics of a piece, lines counted from 1 at its start.  once: only
 * the first diagnostic with this text in the whole file is reported (a
 * warning a format gives once per file). */
typedef void (*tk_chunk_diag_fn)(void *ctx, const tk_diag *diag, bool once);

typedef struct tk_chunk_ops {
	/* The offset of the first record starting at or after `at` in the
	 * file's data[0, size) (size if none). */
	uint64_t (*boundary)(const uint8_t *data, uint64_t size, uint64_t at);
	/* Where to start the warm-up for a piece starting at `begin` (a
	 * record start <= begin): far enough back that reading from there in
	 * the initial state most likely reaches the state the file's reading
	 * has at begin. */
	uint64_t (*warmup)(const uint8_t *data, uint64_t size, uint64_t begin);
	/*
	 * Read the records of [begin, end).  With in NULL: first read
	 * [from, begin) silently (no events, no diagnostics), starting in the
	 * initial state; with in given, start at begin in state *in (from is
	 * begin).  src is an open source of this format (its options).  Events
	 * are numbered from line 1 at begin, with absolute byte offsets.
	 * Errors: TK_ERR_NOMEM.
	 */
	int (*open)(const tk_source *src, const uint8_t *data, uint64_t size, uint64_t from,
		    uint64_t begin, uint64_t end, const tk_chunk_state *in, tk_chunk_diag_fn diag,
		    void *diag_ctx, tk_chunk **out);
	/* As tk_source_next(), over the piece, but *ev points to the event,
	 * valid until the next call (no copy). */
	int (*next)(tk_chunk *c, const tk_event **ev);
	/* The state at begin (after the warm-up), or after the records read. */
	void (*state)(const tk_chunk *c, bool at_begin, tk_chunk_state *out);
	/* Lines (records) of the piece read so far, blank ones included. */
	uint64_t (*lines)(const tk_chunk *c);
	void (*free)(tk_chunk *c);
} tk_chunk_ops;

#ifdef __cplusplus
}
#endif
#endif
