/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: event sources.
 *
 * A source turns one trace file into a stream of tk_event (see event.h).
 * Sources are pulled: tk_source_next() returns one event at a time, so a
 * tool never needs the whole trace in memory.  Every trace format is a
 * source behind this one interface.
 *
 * Problems in the input are reported through a diagnostic callback with the
 * file and line; the source then goes on where it safely can.
 */
#ifndef TRACEKIT_SOURCE_H
#define TRACEKIT_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/event.h"
#include "tracekit/input.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_diag_level {
	TK_DIAG_NOTE,
	TK_DIAG_WARNING,
	TK_DIAG_ERROR,
} tk_diag_level;

typedef struct tk_diag {
	tk_diag_level level;
	const char *file;	/* may be NULL */
	uint64_t line;		/* 0 if not about one line */
	const char *msg;
} tk_diag;

typedef void (*tk_diag_fn)(void *ctx, const tk_diag *diag);

typedef struct tk_source tk_source;

/*
 * Read the next event.
 * Returns 1 and fills *ev, 0 at the end of the trace, or a negative tk_err
 * (TK_ERR_IO) if reading failed.  Malformed lines are not errors: they are
 * reported to the diagnostic callback and skipped (or kept as text).
 */
int tk_source_next(tk_source *src, tk_event *ev);

/* Bytes consumed so far and in all (0 if unknown, e.g. a pipe): for
 * progress meters. */
uint64_t tk_source_pos(const tk_source *src);
uint64_t tk_source_size(const tk_source *src);

/* Number of lines reported as malformed so far. */
uint64_t tk_source_warnings(const tk_source *src);

/* The path the source reads ("-" or "<stdin>" for standard input). */
const char *tk_source_path(const tk_source *src);

/* The input a file source reads through (its format, decompressed size,
 * checkpoints), or NULL. */
tk_input *tk_source_input(const tk_source *src);

void tk_source_free(tk_source *src);

#ifdef __cplusplus
}
#endif
#endif
