/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Qtrace, the POWER instruction-trace format — reader and writer.
 *
 * A Qtrace file is a header entry followed by one entry per executed
 * instruction, big-endian, without padding.  Record i holds instruction i's
 * word and data side (data EA, data RPN, page size, radix walk) and the
 * facts about instruction i+1: its EA when not sequential, its RPN, page
 * size and walk, and how control got there (termination node and code).
 * A writer is therefore one instruction behind; it flushes the last record
 * with a synthetic successor at EA + 4 when it finishes.
 *
 * The reader is a pull reader: tk_qt_reader_next() returns one record at a
 * time, never reads past the end of the file and reports damage with the
 * file name and byte offset; the records before the damage have been
 * returned by then.  The writer produces the bytes of the reference
 * writer (IBM's qtrace-tools qtwriter) for every record the HTM decoder
 * makes; where records carry radix walks or guest page sizes it takes the
 * documented decisions of docs/POWER.md.
 */
#ifndef TRACEKIT_QTRACE_H
#define TRACEKIT_QTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/source.h"	/* tk_diag_fn */

#ifdef __cplusplus
extern "C" {
#endif

#define TK_QT_VERSION 0x07010000u	/* the version number the writer writes */
#define TK_QT_NR_RADIX_PTES 4
#define TK_QT_MAX_RADIX_WALKS 5

/* Termination codes (the u8 code of a TERMINATION field). */
enum {
	TK_QT_TERM_MAX_BRANCH_DEPTH = 0x80,	/* written for conditional branches */
	TK_QT_TERM_MAX_INST_DEPTH = 0x40,
	TK_QT_TERM_EXCEPTION = 0x10,		/* a non-branch followed by a jump */
	TK_QT_TERM_UNCONDITIONAL = 0x08,
};

typedef enum tk_qt_walk_type {
	TK_QT_WALK_UNSPECIFIED = 0,
	TK_QT_WALK_GUEST_REAL,		/* one partition-scoped walk */
	TK_QT_WALK_HOST_RADIX,		/* one host walk */
	TK_QT_WALK_NESTED,		/* radix on radix: several walks */
} tk_qt_walk_type;

/* A radix page-table walk: nr_walks walks of nr_ptes host PTE addresses
 * each; between walks the host real address of the guest table level, and
 * per walk the guest real address. */
typedef struct tk_qt_walk {
	uint8_t nr_ptes;		/* 0..TK_QT_NR_RADIX_PTES; 0: no walk */
	uint8_t nr_walks;		/* 1..TK_QT_MAX_RADIX_WALKS */
	tk_qt_walk_type type;
	uint64_t host_ptes[TK_QT_MAX_RADIX_WALKS][TK_QT_NR_RADIX_PTES];
	uint64_t host_real_addrs[TK_QT_MAX_RADIX_WALKS - 1];
	uint64_t guest_real_addrs[TK_QT_MAX_RADIX_WALKS];
} tk_qt_walk;

/* A register value of a register-trace block (read only). */
typedef struct tk_qt_reg {
	uint16_t index;
	uint64_t value;
} tk_qt_reg;

/* The register block of a record: input values (before the instruction)
 * and output values (after).  Vector registers are counted, not kept. */
typedef struct tk_qt_regs {
	uint8_t n_gpr[2], n_fpr[2], n_vmx[2], n_vsx[2], n_spr[2];	/* [0] in, [1] out */
	const tk_qt_reg *gpr[2], *fpr[2], *spr[2];
} tk_qt_regs;

/* Bits of tk_qt_record.valid. */
enum {
	/* Facts about this instruction (the writer's input). */
	TK_QT_RA = 1u << 0,			/* ra */
	TK_QT_PAGE_SHIFT = 1u << 1,		/* page_shift */
	TK_QT_GUEST_PAGE_SHIFT = 1u << 2,	/* guest_page_shift */
	TK_QT_DATA_EA = 1u << 3,		/* data_ea */
	TK_QT_DATA_RA = 1u << 4,		/* data_ra */
	TK_QT_DATA_PAGE_SHIFT = 1u << 5,	/* data_page_shift */
	TK_QT_GUEST_DATA_PAGE_SHIFT = 1u << 6,	/* guest_data_page_shift */
	TK_QT_BRANCH = 1u << 7,			/* a branch, or an rfi-like instruction */
	TK_QT_CONDITIONAL = 1u << 8,		/* a conditional branch */
	/* Filled in by the reader only. */
	TK_QT_BRANCH_TAKEN = 1u << 9,		/* TERMINATION present and next_ea != ea + 4 */
	TK_QT_NODE = 1u << 10,			/* node */
	TK_QT_TERM = 1u << 11,			/* term_node, term_code present */
	TK_QT_IAR = 1u << 12,			/* the record gives the next EA */
	TK_QT_NEXT_RPN = 1u << 13,		/* next_rpn: RPN of the next instruction */
	TK_QT_NEXT_PAGE_SHIFT = 1u << 14,	/* next_page_shift */
	TK_QT_NEXT_GUEST_PAGE_SHIFT = 1u << 15,	/* next_guest_page_shift */
	TK_QT_DATA_RPN = 1u << 16,		/* data_rpn */
	TK_QT_REGS = 1u << 17,			/* regs */
	TK_QT_SUFFIX = 1u << 18,		/* the suffix word of a prefixed instruction */
	TK_QT_AFTER_HEADER = 1u << 19,		/* an embedded header came before it */
};

typedef struct tk_qt_record {
	uint64_t ea;			/* effective address */
	uint32_t insn;			/* instruction word (logical value) */
	uint32_t valid;			/* TK_QT_* bits */
	uint64_t ra;			/* real address of the instruction */
	uint64_t data_ea;
	uint64_t data_ra;
	uint8_t page_shift;		/* log2 of the page size: 12, 16, 21, 24, 30 */
	uint8_t guest_page_shift;
	uint8_t data_page_shift;
	uint8_t guest_data_page_shift;
	const tk_qt_walk *insn_walk;	/* NULL or nr_ptes == 0: none */
	const tk_qt_walk *data_walk;

	/* Reader only (the writer ignores them). */
	uint8_t node, term_node, term_code;
	uint8_t next_page_shift, next_guest_page_shift;
	uint32_t next_rpn;		/* raw RPN fields */
	uint32_t data_rpn;
	uint64_t next_ea;		/* EA of the next instruction */
	uint64_t number;		/* 1-based record number in the file */
	uint64_t offset;		/* byte offset of the record's word */
	const tk_qt_regs *regs;		/* with TK_QT_REGS */
} tk_qt_record;

/* What the first header of a file says. */
typedef struct tk_qt_header {
	uint32_t size;			/* sizeof(tk_qt_header) */
	uint16_t flags3, hdr_flags;
	bool has_magic;
	uint32_t magic;
	uint32_t version;		/* 0 when absent */
	uint64_t ea;			/* EA of the first instruction (all ones if absent) */
	bool has_rpn;
	uint32_t rpn;
	bool has_page_shift, has_guest_page_shift;
	uint8_t page_shift, guest_page_shift;
	bool has_lpid, has_pid;
	uint32_t lpid, pid;
} tk_qt_header;

/* ---- reader --------------------------------------------------------------- */

typedef struct tk_qt_reader tk_qt_reader;

typedef struct tk_qt_reader_opts {
	uint32_t size;			/* sizeof(tk_qt_reader_opts) */
	/* Notes about the file (e.g. "insn rpn becomes valid", a header
	 * without an instruction address), with the byte offset in
	 * tk_diag.line; may be NULL. */
	tk_diag_fn diag;
	void *diag_ctx;
} tk_qt_reader_opts;

void tk_qt_reader_opts_init(tk_qt_reader_opts *o);

/*
 * Open a Qtrace file ("-" = standard input; gzip, zstd and xz files are
 * decompressed) and read its header.
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR (errno is kept), TK_ERR_EMPTY,
 * TK_ERR_FORMAT (not a Qtrace header), TK_ERR_EOF (the header is cut
 * short), TK_ERR_IO, TK_ERR_NOMEM.  On FORMAT/EOF/IO,
 * tk_qt_reader_last_error() describes it (the reader is not returned).
 */
int tk_qt_reader_open(const char *path, const tk_qt_reader_opts *o, tk_qt_reader **out);

/* The same on a buffer (not copied: it must outlive the reader); `name`
 * is used in messages. */
int tk_qt_reader_open_mem(const void *data, size_t len, const char *name,
			  const tk_qt_reader_opts *o, tk_qt_reader **out);

/* Why the last tk_qt_reader_open* of this thread failed ("FILE: offset N:
 * ..."), or "" */
const char *tk_qt_reader_last_error(void);

/*
 * The next instruction record.  Returns 1 and fills *rec (its pointers stay
 * valid until the next call), 0 at the end of the file, or a negative
 * error: TK_ERR_CORRUPT (unknown flags, a bad termination code, a radix
 * block out of bounds), TK_ERR_EOF (the file ends inside a record),
 * TK_ERR_IO.  After an error the same error is returned again;
 * tk_qt_reader_error() says what and where.
 */
int tk_qt_reader_next(tk_qt_reader *r, tk_qt_record *rec);

/* "FILE: offset N: MESSAGE" for the last error, or "" */
const char *tk_qt_reader_error(const tk_qt_reader *r);

const tk_qt_header *tk_qt_reader_header(const tk_qt_reader *r);

/* EA the next record will have (after the last record: the EA execution
 * went on at). */
uint64_t tk_qt_reader_next_ea(const tk_qt_reader *r);

/* Bytes consumed so far, and the size of the file (0 if unknown). */
uint64_t tk_qt_reader_offset(const tk_qt_reader *r);
uint64_t tk_qt_reader_size(const tk_qt_reader *r);

void tk_qt_reader_free(tk_qt_reader *r);

/* How much the first bytes of a file look like a Qtrace file: 0 not at
 * all, 90 a header entry whose flag words make sense. */
int tk_qt_probe(const void *head, size_t len);

/* ---- writer --------------------------------------------------------------- */

typedef struct tk_qt_writer tk_qt_writer;

/*
 * Write a Qtrace file to fp (binary; nothing is written until the second
 * record or tk_qt_writer_finish).  A nonzero magic is written in the
 * header (htmdecoder writes none).  Errors: TK_ERR_NOMEM.
 */
int tk_qt_writer_new(FILE *fp, uint32_t magic, tk_qt_writer **out);

/* Add the next executed instruction.  Only the writer's input fields of
 * the record are used (ea, insn, ra.. walks, BRANCH, CONDITIONAL).
 * Errors: TK_ERR_IO (errno), TK_ERR_INVAL (a walk out of bounds). */
int tk_qt_writer_add(tk_qt_writer *w, const tk_qt_record *rec);

/* Flush the last record (with a synthetic successor at EA + 4) and the
 * buffer.  With no record at all, a header-only file whose IAR is 4.
 * Errors: TK_ERR_IO. */
int tk_qt_writer_finish(tk_qt_writer *w);

/* Bytes written so far (including buffered ones). */
uint64_t tk_qt_writer_bytes(const tk_qt_writer *w);

void tk_qt_writer_free(tk_qt_writer *w);

/* ---- text streams of executed instructions ------------------------------ */

/* One line of a stream: "EA WORD [DATA_EA]" in hex (0x optional), WORD of
 * 8 hex digits, or 16 for a prefixed pair (prefix then suffix).  Blank
 * lines and lines starting with '#' are skipped. */
typedef struct tk_qt_stream_insn {
	uint64_t ea;
	uint32_t words[2];
	uint8_t nwords;			/* 1, or 2 for a prefixed pair */
	bool has_data_ea;
	uint64_t data_ea;
} tk_qt_stream_insn;

/* Parse one line (without its newline).  Returns 1 for an instruction, 0
 * for a blank or comment line, TK_ERR_PARSE with a reason in *why. */
int tk_qt_stream_parse(const char *line, size_t len, tk_qt_stream_insn *out, const char **why);

/* The record(s) the Qtrace writer gets for a stream instruction: the
 * word(s), EA, data EA, and BRANCH/CONDITIONAL set from the word as the
 * HTM decoder sets them.  Returns the number of records (1 or 2). */
unsigned tk_qt_stream_records(const tk_qt_stream_insn *in, tk_qt_record out[2]);

#ifdef __cplusplus
}
#endif
#endif
