/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: reading one mapped trace file in pieces on several
 * threads, with the results stitched together in order.
 *
 * The file is cut at record boundaries (the format's tk_chunk_ops) into
 * pieces of about piece_bytes.  Worker threads read pieces ahead of the
 * stitching thread (the caller's), each after a warm-up from the initial
 * state, and hand every event to the client.  The stitching thread takes
 * the pieces in order: it checks that the state the warm-up reached is the
 * state the previous piece ended in (else the piece is read again from
 * that state, on the stitching thread: "exact"), reports the piece's
 * diagnostics with line numbers of the whole file, and lets the client
 * stitch it.  The client may submit jobs (run on any thread) that hold
 * pieces until they are done; their completions come back to the
 * stitching thread in the order they were submitted.
 *
 * With threads = 1 the caller's thread does everything in order; the
 * result never depends on the number of threads or on where the file is
 * cut.
 */
#ifndef TRACEKIT_PIECES_H
#define TRACEKIT_PIECES_H

#include "tracekit/source_author.h"

typedef struct tk_pieces tk_pieces;

typedef struct tk_piece {
	tk_pieces *driver;
	uint32_t index;
	uint64_t from, begin, end;	/* warm-up start, bytes of the piece */
	bool exact;		/* read from the true state, on the stitching thread */
	bool last;		/* the last piece of the file (set before stitch) */
	uint64_t lines;		/* lines of the piece (after reading) */
	uint64_t line_base;	/* lines before it (set before stitch) */
	void *data;		/* the client's */
	/* the driver's */
	tk_chunk_state begin_state, end_state;
	int status;
	struct pdiag *diags;
	size_t ndiags, capdiags;
	char *text;
	size_t textlen, textcap;
	unsigned holds;		/* jobs holding it */
	int stage;
} tk_piece;

/* Returned by stitch: read the piece again, exactly. */
#define TK_PIECE_REDO 1

typedef struct tk_pieces_client {
	void *ctx;
	/* Reading a piece (a worker thread, or the stitching thread when
	 * p->exact): begin sets up p->data, then each event, then end. */
	int (*begin)(void *ctx, tk_piece *p);
	int (*event)(void *ctx, tk_piece *p, const tk_event *ev);
	int (*end)(void *ctx, tk_piece *p);
	/* The stitching thread, in order: 0, TK_PIECE_REDO (once per piece:
	 * the piece is discarded and read again with p->exact), or an error. */
	int (*stitch)(void *ctx, tk_piece *p);
	/* Free p->data (any thread, once nothing needs the piece). */
	void (*discard)(void *ctx, tk_piece *p);
} tk_pieces_client;

typedef struct tk_pieces_opts {
	unsigned threads;	/* 0: all cores */
	uint64_t piece_bytes;	/* 0: automatic */
	const uint64_t *cuts;	/* tests: cut here (moved to record starts) */
	size_t ncuts;
	tk_diag_fn diag;	/* diagnostics, in order, whole-file lines */
	void *diag_ctx;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* out: pieces read, those read again exactly, threads used */
	uint32_t pieces, exact;
	unsigned threads_used;
	/* out: microseconds the stitching thread spent reading pieces,
	 * stitching, running jobs, completing them, waiting; then the
	 * workers' (summed) reading pieces, running jobs, waiting */
	uint64_t stats[8];
} tk_pieces_opts;

/* Threads to use: opts->threads, or the cores available. */
unsigned tk_pieces_threads(unsigned threads);

/*
 * Read src's file (a regular file of a format with tk_chunk_ops), mapped.
 * Returns 0, the client's error, TK_ERR_IO (mapping), or the format's
 * reading error (after its diagnostics).  The diagnostics count goes to
 * src's warnings.
 */
int tk_pieces_run(tk_source *src, tk_pieces_opts *opts, const tk_pieces_client *client);

/* For the client's stitch: submit a job run(arg) on any thread; pieces
 * hold_first..hold_last (already stitched, or the one being stitched) are
 * kept until it is done; done(arg, rc) is then called on the stitching
 * thread, jobs in the order submitted.  Errors: TK_ERR_NOMEM. */
int tk_pieces_submit(tk_pieces *d, int (*run)(void *arg), int (*done)(void *arg, int rc),
		     void *arg, uint32_t hold_first, uint32_t hold_last);

/* For the client's stitch: keep a stitched piece (delta +1) or let it go
 * (-1) once nothing else holds it. */
void tk_pieces_hold(tk_pieces *d, uint32_t index, int delta);

/* A piece still held (stitched, or being stitched), or NULL. */
tk_piece *tk_pieces_get(tk_pieces *d, uint32_t index);

#endif
