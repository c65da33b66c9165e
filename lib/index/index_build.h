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

typedef struct tk_ixmem tk_ixmem;

int tk_ixmem_new(tk_ixmem **out);
void tk_ixmem_free(tk_ixmem *m);

/* A memory access of the trace, at position pos. */
int tk_ixmem_access(tk_ixmem *m, uint64_t pos, const tk_mem_access *a);

/* Make [addr, addr + len) unknown at pos (a semihosting output region). */
int tk_ixmem_unknown(tk_ixmem *m, uint64_t pos, uint64_t addr, uint64_t len);

/* Current contents of [addr, addr + n): true if every byte is known. */
bool tk_ixmem_peek(tk_ixmem *m, uint64_t addr, unsigned n, uint8_t *out);

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

/* Sorted runs of records: in memory, and spilled to a temporary file. */
typedef struct tk_mruns {
	tk_mrec *buf;
	size_t len, cap;
	FILE *spill;
	uint64_t *run_off;	/* record offset of each spilled run */
	size_t nruns;
	uint64_t spilled;	/* records in the spill file */
} tk_mruns;

int tk_mruns_add(tk_mruns *r, const tk_mrec *rec);
/* Sort and stream every record, in order, to the page writer. */
int tk_mruns_write(tk_mruns *r, tk_ixw *w);
void tk_mruns_free(tk_mruns *r);

#endif
