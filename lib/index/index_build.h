/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the parts of the index builder.
 *
 * index_build.c drives the build: it numbers the positions, writes the
 * blocks (positions, register checkpoints and logs), feeds the call
 * detector, and hands memory accesses to the memory builder
 * (index_membuild.c), which keeps the current memory image, records each
 * byte's history as events, and at the end sorts them by address into the
 * memory sections (index_memwrite.c).  Traps that write memory the trace
 * does not show (Arm semihosting) come from the architecture hooks
 * (lib/arch/).
 */
#ifndef TRACEKIT_INDEX_BUILD_H
#define TRACEKIT_INDEX_BUILD_H

#include "index_impl.h"
#include "index_write.h"

/* Build from src into w (created by the caller), then finish w (or abort
 * it on error).  *fd_out: see tk_ixw_finish. */
int tk_idx_build_into(tk_source *src, tk_ixw *w, const tk_index_opts *opts, int *fd_out);

/* ---- compressed traces (index_input.c) ---- */

/* After a successful build: the checkpoint table beside the index. */
void tk_idx_input_done(tk_input *in, const char *index_path, const tk_index_opts *o);
/* The INPUT section, if the source reads a compressed trace. */
int tk_idx_input_write(tk_ixw *w, const tk_source *src);
/* INDEX ".ckpt" (malloc'd). */
char *tk_idx_checkpoint_path(const char *index_path);
#include "index_blocks.h"
#include "tracekit/namemap.h"

/* The state of a build (index_build.c), shared with the reading in pieces
 * (index_pieces.c).  Between TRACEPATH and the end of BLOCKS, a reader
 * writes the blocks, fills dir and blooms, feeds the memory builder and the
 * call detector, and counts. */
typedef struct tk_ixmem tk_ixmem;
typedef struct tk_ixbuild {
	tk_ixw *w;
	tk_source *src;
	const tk_index_opts *opts;
	bool big_endian;
	bool func_steps;	/* positions are function events (no instructions) */
	uint64_t ninsn;		/* steps */
	uint64_t data_off;	/* offset of the next block in BLOCKS */
	tk_spill dir, blooms;
	tk_ixmem *mem;
	tk_calls *calls;
	tk_callspill *spill;	/* the detector's output, in a temporary file */
	tk_namemap names;	/* function names from the trace */
	uint64_t lines, reg_updates, mem_accesses, semihost, regseen[3];
	/* reading in order */
	tk_blockenc enc;
	/* reading in pieces: the register file where the stitching is */
	uint8_t *rv, *rk;
	uint64_t present[3];
	uint64_t maxtime;
} tk_ixbuild;

/* Read the trace in pieces on several threads (index_pieces.c).
 * TK_ERR_UNSUPPORTED: it cannot be (not a regular file, a format without
 * tk_chunk_ops): read it in order. */
int tk_idx_read_pieces(tk_ixbuild *b);

/* Tests: cut the trace at these offsets (moved to record starts), and
 * never read in order a trace that can be read in pieces (or always, with
 * tk_idx_force_order). */
extern const uint64_t *tk_idx_test_cuts;
extern size_t tk_idx_test_ncuts;
extern bool tk_idx_force_order;
/* The last build in pieces: pieces, and pieces read again exactly. */
extern uint32_t tk_idx_test_pieces, tk_idx_test_exact;

/* ---- reading the trace on a second thread (index_prefetch.c) ---- */

typedef struct tk_prefetch tk_prefetch;

/* Errors: TK_ERR_NOMEM, TK_ERR_UNSUPPORTED (no thread). */
int tk_prefetch_start(tk_source *src, tk_prefetch **out);
/* As tk_source_next(); the event is valid until the next call. */
int tk_prefetch_next(tk_prefetch *p, tk_event *ev);
uint64_t tk_prefetch_pos(const tk_prefetch *p);
uint64_t tk_prefetch_size(const tk_prefetch *p);
/* Stop the reader (even half way) and free everything. */
void tk_prefetch_stop(tk_prefetch *p);

/* Held around every call of a user callback while a build may run two
 * threads, so that callbacks never run concurrently. */
#include <pthread.h>
extern pthread_mutex_t tk_idx_cb_lock;

int tk_ixmem_new(tk_ixmem **out);
void tk_ixmem_free(tk_ixmem *m);

/* A memory access of the trace, at position pos. */
int tk_ixmem_access(tk_ixmem *m, uint64_t pos, const tk_mem_access *a);

/* A piece's memory, read on its own (speculative mode: see
 * index_membuild.c); positions are local step + 1 (0 before the piece's
 * first step).  tk_ixmem_end_piece sorts its records (on the worker);
 * tk_ixmem_merge, on the stitching thread, finishes its deferred reads on
 * the whole's state (the state before the piece), lays its image and
 * marks over the whole's and adds its records.  Errors: TK_ERR_NOMEM,
 * TK_ERR_IO. */
int tk_ixmem_new_spec(tk_ixmem **out);
int tk_ixmem_end_piece(tk_ixmem *m);
int tk_ixmem_merge(tk_ixmem *whole, tk_ixmem *piece, uint64_t step_base);

/* Memory events so far (accesses and marks). */
uint64_t tk_ixmem_seq(const tk_ixmem *m);

/* Make [addr, addr + len) unknown at pos (a semihosting output region). */
int tk_ixmem_unknown(tk_ixmem *m, uint64_t pos, uint64_t addr, uint64_t len);

/* Current contents of [addr, addr + n): true if every byte is known. */
bool tk_ixmem_peek(tk_ixmem *m, uint64_t addr, unsigned n, uint8_t *out);

/* The same in three ways: 1 known, 0 not known, -1 (speculative mode) it
 * depends on the state before the piece. */
int tk_ixmem_peek3(tk_ixmem *m, uint64_t addr, unsigned n, uint8_t *out);

/* Event records so far. */
uint64_t tk_ixmem_records(const tk_ixmem *m);

/* Statistics over the whole image. */
void tk_ixmem_stats(const tk_ixmem *m, uint64_t *touched, uint64_t *known);

/* Sort the recorded events and write the MEMDATA, PAGEHDR and CHUNKDIR
 * sections.  Errors: TK_ERR_IO, TK_ERR_NOMEM. */
int tk_ixmem_write(tk_ixmem *m, tk_ixw *w);

/* ---- memory event records, as sorted (index_membuild.c -> memwrite) ---- */

#define TK_MREC_DATA 16

typedef struct tk_mrec {
	uint64_t chunk;		/* address >> TK_CHUNK_SHIFT */
	uint64_t pos;
	uint64_t order;		/* event sequence * 2 (+1: a fill after its mark) */
	uint8_t kind, off, len;
	uint8_t data[TK_MREC_DATA];
} tk_mrec;

/* A sorted run: in memory, or in the spill file.  Runs of pieces ("time"
 * runs) are in trace order with each other: for one 64-byte chunk, their
 * records one run after the other are in (position, order) order. */
typedef struct tk_mrun {
	bool time;
	tk_mrec *mem;		/* owned, or NULL: in the file */
	uint64_t off, n;	/* record offset in the file, records */
} tk_mrun;

/* Sorted runs of records: in memory, and spilled to a temporary file. */
typedef struct tk_mruns {
	bool keep;		/* never spill (a piece's records) */
	tk_mrec *buf;		/* records being collected (a run to come) */
	size_t len, cap;
	FILE *spill;
	uint64_t spilled;	/* records in the spill file */
	tk_mrun *runs;
	size_t nruns, capruns;
	uint64_t inmem;		/* records of runs kept in memory */
} tk_mruns;

int tk_mruns_add(tk_mruns *r, const tk_mrec *rec);
/* Sort the records in memory. */
void tk_mruns_sort(tk_mruns *r);
/* Add a piece's sorted records as a time run, their positions and orders
 * made global (positions are stored as local step + 1, 0 before the
 * piece's first step); the piece's buffer may be taken.
 * Errors: TK_ERR_IO, TK_ERR_NOMEM. */
int tk_mruns_add_piece(tk_mruns *r, tk_mruns *piece, uint64_t step_base, uint64_t order_base);
/* Sort and stream every record, in order, to the page writer. */
int tk_mruns_write(tk_mruns *r, tk_ixw *w);
void tk_mruns_free(tk_mruns *r);

#endif
