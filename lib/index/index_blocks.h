/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: encoding the BLOCKS section: positions cut into
 * blocks of TK_BLOCK_INSNS, each with its position records, a checkpoint
 * of the register file before it and the log of its register updates
 * (docs/INDEX-FORMAT.md), its directory entry and pc filter.
 *
 * The one encoder of both builders: the sequential one feeds it every step
 * and register update in order; the parallel one gives each worker a
 * range of blocks, the encoder starting in the state before the worker's
 * pieces (register file, steps, largest time) and skipping what precedes
 * its first block.  Same input, same bytes.
 */
#ifndef TRACEKIT_INDEX_BLOCKS_H
#define TRACEKIT_INDEX_BLOCKS_H

#include "index_impl.h"

#define TK_POSREC_MAX 96	/* bytes one position record can take */

/* A step as the index records it. */
typedef struct tk_idx_step {
	uint64_t line, offset, time, pc;
	uint32_t context;
	uint8_t isa, width, kind, branch, nbytes;	/* kind: 0 insn, 1 call, 2 return */
	bool executed;
	uint8_t bytes[TK_INSN_MAX_BYTES];
} tk_idx_step;

/* A register update of a modelled register, its view inside it. */
typedef struct tk_idx_regup {
	tk_reg reg;
	unsigned off, len;
	const uint8_t *value;	/* len bytes */
	const uint8_t *state;	/* len tk_byte_state, or NULL: every byte set */
} tk_idx_regup;

/* A finished block: data = positions, checkpoint, log; dirent lacks its
 * data offset (TK_DIR_DATA), which the callee fills. */
typedef int (*tk_blockenc_fn)(void *ctx, const uint8_t *const parts[3], const size_t lens[3],
			      uint8_t dirent[TK_DIR_SIZE], const uint8_t bloom[TK_BLOOM_BYTES]);

typedef struct tk_blockenc {
	tk_blockenc_fn done;
	void *done_ctx;
	uint64_t ninsn;		/* steps seen */
	uint64_t pos;		/* position updates are attributed to */
	uint64_t encode_from;	/* first step encoded (a block start) */
	bool encoding;
	bool have_max;
	uint64_t maxtime;

	/* the block being built */
	uint64_t blk_first;
	uint32_t blk_n;
	uint8_t *posbuf;	/* TK_BLOCK_INSNS * TK_POSREC_MAX */
	size_t poslen;
	uint8_t *ck, *log;
	size_t cklen, ckcap, loglen, logcap;
	uint64_t log_prevpos;
	uint64_t blk_line, blk_offset, blk_time;
	uint64_t regmask[3];
	uint8_t bloom[TK_BLOOM_BYTES];
	uint64_t prev_line, prev_offset, prev_time, prev_pc;
	uint32_t prev_context;

	/* the register file now */
	uint8_t *rv, *rk;
	uint64_t present[3];
} tk_blockenc;

/* An encoder at the start of the trace, encoding from step 0.
 * Errors: TK_ERR_NOMEM. */
int tk_blockenc_init(tk_blockenc *e, tk_blockenc_fn done, void *ctx);

/* Continue in the middle: ninsn steps were seen before (their largest
 * time maxtime, if ninsn), the register file is rv/rk/present, and
 * encoding starts at step encode_from (>= ninsn, a block start). */
void tk_blockenc_resume(tk_blockenc *e, uint64_t ninsn, uint64_t maxtime, const uint8_t *rv,
			const uint8_t *rk, const uint64_t present[3], uint64_t encode_from);

void tk_blockenc_fini(tk_blockenc *e);

/* The next step: a block that ends before it is handed to done.
 * Errors: TK_ERR_NOMEM, done's. */
int tk_blockenc_step(tk_blockenc *e, const tk_idx_step *s);

/* A register update at the current position.  Returns 1 if it touched a
 * byte (it counts in the register bitmaps), 0 if not, TK_ERR_NOMEM. */
int tk_blockenc_reg(tk_blockenc *e, const tk_idx_regup *u);

/* End the block being built (the trace ended, or the next block is
 * another encoder's).  Errors: done's. */
int tk_blockenc_flush(tk_blockenc *e);

/* Byte offset of each canonical register in the flat register file. */
unsigned tk_idx_regfile_bytes(void);

#endif
