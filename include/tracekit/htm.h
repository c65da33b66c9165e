/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: IBM POWER Core HTM (Hardware Trace Macro) dumps.
 *
 * A Core HTM dump is a sequence of big-endian 64-bit words written by the
 * core's trace unit: stamps (time, sync, marks), POWER8 instruction records
 * (tag 0xABCDE) and POWER10 record sequences (tag 0xABCDF: XLATE, IEARA,
 * INST, then MSR, PREFIX, DEA/DRA or ESID/VSID words).  The decoder turns
 * them into Qtrace records (tracekit/qtrace.h), one per instruction word (a
 * POWER10 prefixed instruction gives two: the prefix, then the suffix at
 * EA + 4), with the algorithm of the public htmdecoder version whose test
 * listings define compatibility (page size from the level of the last walk
 * of the latest XLATE; no radix-walk reconstruction).  See docs/POWER.md.
 *
 * The encoders do the reverse, for tests and benchmarks: from executed
 * instructions (EA, word(s), data EA) they make POWER10 or POWER8 dumps
 * that decode back to the same instructions.
 */
#ifndef TRACEKIT_HTM_H
#define TRACEKIT_HTM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/qtrace.h"
#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TK_HTM_TAG_P8 0xABCDEu
#define TK_HTM_TAG_P10 0xABCDFu

/* ---- stamps --------------------------------------------------------------- */

typedef enum tk_htm_stamp_kind {
	TK_HTM_STAMP_RECORD = 0,	/* 0xACEFF0: counter */
	TK_HTM_STAMP_COMPLETE,		/* 0xACEFF1: cycles */
	TK_HTM_STAMP_PAUSE,		/* 0xACEFF2: cycles */
	TK_HTM_STAMP_MARK,		/* 0xACEFF3: group, chip, unit, marker, dropped */
	TK_HTM_STAMP_SYNC,		/* 0xACEFF4 */
	TK_HTM_STAMP_TIME,		/* 0xACEFF8..F: indicator (+ cycles, counter) */
} tk_htm_stamp_kind;

typedef struct tk_htm_stamp {
	tk_htm_stamp_kind kind;
	uint64_t word;
	uint64_t offset;		/* byte offset of the word */
	uint32_t counter;		/* RECORD; TIME 0xA0: records dropped */
	uint32_t cycles;		/* COMPLETE, PAUSE; TIME 0x80 */
	uint8_t indicator;		/* TIME: 0x80 time, 0x90, 0xA0, 0xB0, 0x88, 0x84, 0x82 */
	uint16_t group, chip, unit, marker;	/* MARK */
	bool dropped;			/* MARK: marker dropped bit */
} tk_htm_stamp;

/* Decode a stamp word (bits 0-19 = 0xACEFF).  Returns 0, or TK_ERR_CORRUPT
 * for types 0xACEFF5-7 and for a MARK with nonzero reserved bits. */
int tk_htm_stamp_decode(uint64_t word, tk_htm_stamp *out);

/* The debug text htmdecoder -D prints for a stamp ("TIME cycles = 12"). */
size_t tk_htm_stamp_text(const tk_htm_stamp *s, char *buf, size_t size);

/* ---- decoder -------------------------------------------------------------- */

/* A POWER10 sequence that does not lead to an INST word. */
typedef struct tk_htm_invalid {
	uint64_t number;		/* sequences and stamps seen before it */
	uint64_t offset;		/* byte offset of the offending word */
	uint64_t word;
	const char *why;
} tk_htm_invalid;

typedef struct tk_htm_opts {
	uint32_t size;			/* sizeof(tk_htm_opts) */
	/* Damage and oddities, with the byte offset in tk_diag.line. */
	tk_diag_fn diag;
	void *diag_ctx;
	/* Optional observers (htmdecoder -D / the "Invalid record" lines). */
	void (*on_stamp)(void *ctx, const tk_htm_stamp *s);
	void (*on_invalid)(void *ctx, const tk_htm_invalid *inv);
	void *ctx;
} tk_htm_opts;

void tk_htm_opts_init(tk_htm_opts *o);

typedef struct tk_htm tk_htm;

/*
 * Open a dump ("-" = standard input; gzip, zstd and xz dumps are
 * decompressed: offsets are then in the decompressed words).
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR (errno kept), TK_ERR_UNSUPPORTED,
 * TK_ERR_NOMEM, TK_ERR_IO.
 */
int tk_htm_open(const char *path, const tk_htm_opts *o, tk_htm **out);
int tk_htm_open_mem(const void *data, size_t len, const char *name, const tk_htm_opts *o,
		    tk_htm **out);

/*
 * The next decoded record (only the writer's input fields are set: ea,
 * insn, ra/page_shift, data_ea/data_ra/data_page_shift, BRANCH,
 * CONDITIONAL; plus offset = byte offset of the INST or INFO word and
 * number = 1-based record number).  Returns 1, 0 at the end of the dump, or
 * a negative error after which the dump cannot be followed: TK_ERR_CORRUPT
 * (more than 100 invalid sequences in a row, a word pushed back twice),
 * TK_ERR_IO.  tk_htm_error() says what and where.  Damage that can be
 * stepped over is reported to the diag callback and decoding goes on.
 */
int tk_htm_next(tk_htm *d, tk_qt_record *rec);

const char *tk_htm_error(const tk_htm *d);

/* Bytes of the dump consumed so far, and its size on disk (0 if unknown). */
uint64_t tk_htm_offset(const tk_htm *d);
uint64_t tk_htm_size(const tk_htm *d);

/* The counters of htmdecoder's statistics block (informative). */
typedef struct tk_htm_stats {
	uint64_t raw_checksum;		/* sum of every word read, mod 2^64 */
	uint64_t records_scanned;	/* top-level words that start something */
	uint64_t records_processed;	/* of those, decoded without error */
	uint64_t insns_scanned, insns_processed;
	uint64_t stamps_scanned, stamps_processed;
	uint64_t cycles;		/* sum of TIME 0x80 elapsed cycles */
	uint64_t interrupts;		/* jumps to a vector 0x000-0xf80 */
	uint64_t jumps_after_non_branch;
	uint64_t esids_with_irpn, esids_without_irpn;	/* distinct EA >> 28 */
	uint64_t insns_with_ira, insns_without_ira;
	uint64_t esid_records, vsid_records;
	uint64_t vsid_segment_size[4];
	uint64_t data_pages[3], insn_pages[3];	/* 4K, 64K, 16M */
	uint64_t invalid_sequences;
	uint64_t p8_records, p10_records;
	uint64_t untagged_words;	/* nonzero words outside any record, skipped */
} tk_htm_stats;

const tk_htm_stats *tk_htm_get_stats(const tk_htm *d);

/* The POWER8 software TLB, entry by entry (htmdecoder's TLBDUMP lines). */
void tk_htm_tlb_foreach(const tk_htm *d, void (*fn)(void *ctx, uint64_t ea, uint64_t ra,
						    unsigned page_shift), void *ctx);

void tk_htm_free(tk_htm *d);

/* ---- branch recodings (exposed for tests) -------------------------------- */

/* POWER10 INST image with the branch bit -> PowerISA word (before the
 * common clean-up). */
uint32_t tk_htm_p10_recode(uint32_t image, uint64_t ea);
/* POWER8 INFO image with the branch bit -> PowerISA word. */
uint32_t tk_htm_p8_demunge(uint32_t image, uint64_t ea);
/* The clean-up applied to every decoded word (reserved bits of bclr,
 * bcctr, bctar). */
uint32_t tk_htm_fixup_word(uint32_t word);

/* ---- content detection ---------------------------------------------------- */

/* How much the first bytes of a file look like an HTM dump (after
 * decompression): 0 not at all .. 100 certain.  A Qtrace file scores 0. */
int tk_htm_probe(const void *head, size_t len);

/* ---- encoders -------------------------------------------------------------- */

typedef enum tk_htm_encoding {
	TK_HTM_ENC_P10 = 0,		/* POWER10 sequences */
	TK_HTM_ENC_P8,			/* POWER8: IEA/IRA only at jumps, TLB hits without IRA */
	TK_HTM_ENC_P8_FULL,		/* POWER8: IEA and IRA words on every record */
} tk_htm_encoding;

typedef struct tk_htm_encoder tk_htm_encoder;

typedef struct tk_htm_enc_stats {
	uint64_t insns, words, stamps;
	uint64_t unrecodable;		/* branches written un-recoded (see docs/POWER.md) */
} tk_htm_enc_stats;

/* Errors: TK_ERR_NOMEM. */
int tk_htm_encoder_new(FILE *fp, tk_htm_encoding enc, tk_htm_encoder **out);

/* One executed instruction: EA, word(s) (nwords 2 for a prefixed pair:
 * prefix, suffix), data EA (with has_data).  Errors: TK_ERR_IO,
 * TK_ERR_INVAL (a prefixed pair in a POWER8 dump). */
int tk_htm_encoder_add(tk_htm_encoder *e, uint64_t ea, const uint32_t *words, unsigned nwords,
		       bool has_data, uint64_t data_ea);

/* Flush.  Errors: TK_ERR_IO. */
int tk_htm_encoder_finish(tk_htm_encoder *e);

const tk_htm_enc_stats *tk_htm_encoder_stats(const tk_htm_encoder *e);

void tk_htm_encoder_free(tk_htm_encoder *e);

/* The real address the encoders give an effective address (a fixed
 * mapping, so tests can check decoded RAs). */
static inline uint64_t tk_htm_enc_ra(uint64_t ea) { return ea & 0x0003FFFFFFFFFFFFull; }

#ifdef __cplusplus
}
#endif
#endif
