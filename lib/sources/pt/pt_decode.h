/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT decoding: pieces of a stream, the records a piece decoder
 * writes, and the piece decoder itself (lib/pt/pt_piece.c). */
#ifndef TK_PT_DECODE_H
#define TK_PT_DECODE_H

#include "pt_impl.h"

/* How a piece ends. */
enum piece_end {
	PIECE_END_TRACE,	/* the end of a contiguous run of data: decode to
				 * the end (the stream's end, or a gap) */
	PIECE_END_AT_IP,	/* the next piece starts at boundary_ip: stop
				 * there once this piece's trace is used up */
	PIECE_END_DISABLED,	/* the next PSB finds tracing off: decode to
				 * the end of this piece's data */
};

struct piece {
	uint64_t begin, end;	/* stream offsets: [begin, end) */
	uint64_t boundary_ip;
	enum piece_end how;
	int gap_after;		/* 1 + index of the stream gap that follows, or 0 */
};

/* Cut the contiguous runs of a stream at PSBs into pieces of about
 * piece_bytes.  Errors: TK_ERR_NOMEM. */
int tk_pt_split(const tk_pt *pt, const struct pt_stream *st, uint64_t piece_bytes,
		struct piece **out, unsigned *count);

enum rec_kind { R_INSN = 1, R_BLOCK, R_EVENT, R_ERROR, R_END };
enum { RF_BLOCK_START = 1, RF_SPECULATIVE = 2 };

struct rec {		/* 32 bytes */
	uint8_t kind : 4;	/* enum rec_kind */
	uint8_t flags : 4;	/* RF_* */
	uint8_t size;
	uint8_t iclass;
	uint8_t branch;
	uint32_t aux;		/* BLOCK: ninsn; EVENT/ERROR: side index */
	uint64_t ip;
	uint64_t offset;
	union {
		const uint8_t *bytes;	/* INSN */
		uint64_t end_ip;	/* BLOCK */
	} u;
};

struct side {
	char text[120];
	int type;		/* event type or error code */
	uint8_t gap;
	bool has_ip;
};

#define CHUNK_RECS 2048

struct chunk {
	struct chunk *next;
	uint32_t n;
	uint32_t nside, sidecap;
	uint64_t ninsns, nblocks;	/* counted, not recorded (count_only) */
	struct side *side;
	struct rec recs[CHUNK_RECS];
};

/* The state of one piece's decoding, resumable chunk by chunk. */
struct piece_dec {
	const tk_pt *pt;
	const struct pt_stream *st;
	const tk_pt_decode_opts *o;
	const struct piece *pc;
	struct pt_image *image;		/* the worker's */
	struct pt_insn_cache *cache;	/* the worker's */
	struct pt_block_decoder *blk;
	struct pt_insn_decoder *ins;
	int state;
	int status;
	bool fillin;
	uint64_t last_sync;
	struct pt_block block;		/* the last block (error reports) */
	uint64_t insn_ip;		/* the last instruction (error reports) */
	/* a block being expanded */
	bool pending;
	uint64_t pend_ip, pend_off;
	uint32_t pend_left;
	bool pend_first;
	int after_status;		/* the status that came with it */
	/* endless-loop guard */
	uint64_t guard_off, guard_count;
};

void tk_pt_piece_init(struct piece_dec *pd, const tk_pt *pt, const struct pt_stream *st,
		      const tk_pt_decode_opts *o, const struct piece *pc, struct pt_image *image,
		      struct pt_insn_cache *cache);
/* Decode into ch until it is nearly full or the piece is done.
 * Returns 1 when the piece is done, 0 when ch is full, or TK_ERR_NOMEM. */
int tk_pt_piece_fill(struct piece_dec *pd, struct chunk *ch);
void tk_pt_piece_fini(struct piece_dec *pd);

/* The reader's fast path in blocks_only mode (pt_source.c): the block
 * records that come next in the chunk being read, all consumed and
 * counted as tk_pt_decode_next() would count them: their number, the first
 * in *first; 0 if the next record is no block (then call that).  They stay
 * valid until the next call into the decoder. */
size_t tk_pt_decode_take_blocks(tk_pt_decode *d, const struct rec **first);

#endif
