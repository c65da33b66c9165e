/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Intel Processor Trace, decoded with libipt (2.0.5 and later).
 *
 * Two inputs:
 *  - raw PT: the AUX data as the hardware wrote it (a PSB, possibly after
 *    PAD bytes, within the first 4 KiB; or a file named *.pt).  The code
 *    comes from ELF images (tk_pt_add_elf) and raw binaries (tk_pt_add_raw).
 *  - perf.data (PERFILE2): the AUXTRACE records of each buffer index are
 *    joined in offset order into one stream per buffer (per CPU, or per
 *    thread); MMAP/MMAP2 records of the traced process give the images
 *    when none is added; AUX records flagged TRUNCATED/PARTIAL and holes
 *    in the offsets are gaps.
 *
 * Decoding is pulled: tk_pt_decode_next() yields instructions, events,
 * decode errors and gaps in trace order.  Internally a stream is cut at
 * PSBs into pieces of whole PSB segments that are decoded concurrently and
 * stitched in order (each piece stops exactly where the next begins); the
 * cut points do not depend on the number of threads, so the items are the
 * same for any thread count.
 *
 * Errors: functions return 0 (or a count) or a negative tk_err; the text of
 * the last failure (file, byte offset) is in tk_pt_error_detail().  Damage
 * that decoding can survive goes to the diagnostic callback and decoding
 * goes on (the library never prints).
 */
#ifndef TRACEKIT_PT_H
#define TRACEKIT_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracekit/event.h"
#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_pt_format {
	TK_PT_FORMAT_NONE = 0,	/* not PT (probe) / detect by content (opts) */
	TK_PT_FORMAT_RAW,	/* raw PT packets */
	TK_PT_FORMAT_PERF,	/* a perf.data file with AUXTRACE records */
} tk_pt_format;

/* What the first bytes of a file say: TK_PT_FORMAT_PERF ("PERFILE2"),
 * TK_PT_FORMAT_RAW (a PSB after at most PAD bytes within the first 4 KiB,
 * or a path ending in ".pt"), else TK_PT_FORMAT_NONE.  path may be NULL. */
tk_pt_format tk_pt_probe(const uint8_t *head, size_t len, const char *path);

typedef struct tk_pt_opts {
	size_t size;		/* sizeof(tk_pt_opts) */
	tk_pt_format format;	/* NONE: detect by content */
	/* "F/M[/S]" (decimal family/model/stepping), "none", or "auto"
	 * (perf.data: its HEADER_CPUID; raw PT: none).  NULL = "auto". */
	const char *cpu;
	tk_diag_fn diag;	/* warnings while reading (may be NULL) */
	void *diag_ctx;
} tk_pt_opts;

void tk_pt_opts_init(tk_pt_opts *opts);

typedef struct tk_pt tk_pt;

/*
 * Open a trace (the whole file is read into memory).
 * Errors: TK_ERR_OPEN / TK_ERR_ISDIR / TK_ERR_IO (see errno), TK_ERR_EMPTY,
 * TK_ERR_FORMAT (neither raw PT nor perf.data, or a perf.data without
 * Intel PT data), TK_ERR_UNSUPPORTED (pipe-mode or compressed perf.data),
 * TK_ERR_CORRUPT / TK_ERR_EOF (a damaged or truncated perf.data),
 * TK_ERR_INVAL (a bad --cpu), TK_ERR_NOMEM.  On failure *out is NULL and
 * the detail goes to opts->diag as an error.
 */
int tk_pt_open(const char *path, const tk_pt_opts *opts, tk_pt **out);

/* The same for a trace already in memory (copied); name is used in
 * messages.  For tests and fuzzers. */
int tk_pt_open_mem(const void *data, size_t len, const char *name, const tk_pt_opts *opts,
		   tk_pt **out);

void tk_pt_free(tk_pt *pt);

/* The text of the last failure of tk_pt_add_* (never NULL). */
const char *tk_pt_error_detail(const tk_pt *pt);

/*
 * Add code to decode from.  An ELF's loadable segments are placed at their
 * own addresses, or, with at = true, shifted so that the lowest one starts
 * at addr (ptxed's --elf FILE:BASE).  A raw binary is placed whole at addr.
 * Images added later win where they overlap.  Adding any image replaces the
 * images a perf.data's MMAP records gave.  Call before decoding.
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_ELF, TK_ERR_EMPTY, TK_ERR_NOMEM.
 */
int tk_pt_add_elf(tk_pt *pt, const char *path, bool at, uint64_t addr);
int tk_pt_add_raw(tk_pt *pt, const char *path, uint64_t addr);

tk_pt_format tk_pt_format_of(const tk_pt *pt);
const char *tk_pt_path(const tk_pt *pt);

/* The CPU the decoder is configured for (family 0: none). */
typedef struct tk_pt_cpu {
	uint16_t family;
	uint8_t model, stepping;
	bool intel;
} tk_pt_cpu;
tk_pt_cpu tk_pt_cpu_of(const tk_pt *pt);
/* Parse "F/M[/S]" (decimal).  Errors: TK_ERR_INVAL. */
int tk_pt_parse_cpu_text(const char *text, tk_pt_cpu *out);
/* Parse a count or an address of the PT options: C notation (decimal, 0x,
 * 0), no sign, no blanks, at most 2^64-1.  Errors: TK_ERR_INVAL. */
int tk_pt_parse_number(const char *text, uint64_t *out);

/* One PT stream: the whole raw file, or one perf buffer index. */
typedef struct tk_pt_stream_info {
	uint32_t index;		/* perf buffer idx (0 for raw PT) */
	uint32_t cpu;		/* the CPU of the buffer (0 for raw PT or
				 * per-thread buffers): the event context */
	uint32_t tid;		/* per-thread buffers: the thread, else 0 */
	const uint8_t *data;	/* the joined bytes */
	uint64_t size;
	uint32_t ngaps;		/* places where data is missing */
} tk_pt_stream_info;

unsigned tk_pt_stream_count(const tk_pt *pt);
/* Errors: TK_ERR_INVAL (no such stream). */
int tk_pt_stream(const tk_pt *pt, unsigned i, tk_pt_stream_info *out);

/* The code images in use (added, or from MMAP records): for symbols, an
 * ELF's symbol addresses plus bias are run-time addresses. */
typedef struct tk_pt_image_info {
	const char *path;
	uint64_t bias;		/* run-time address - ELF address */
	uint64_t start, end;	/* the lowest and highest mapped address + 1 */
	bool raw;		/* a raw binary (no symbols) */
} tk_pt_image_info;

unsigned tk_pt_image_count(const tk_pt *pt);
const tk_pt_image_info *tk_pt_image(const tk_pt *pt, unsigned i);

/* ---- packets (ptdump) ----------------------------------------------------- */

typedef struct tk_pt_dump_opts {
	size_t size;		/* sizeof(tk_pt_dump_opts) */
	bool no_offset;		/* no offset column */
	bool no_pad;		/* leave PAD packets out */
	bool no_timing;		/* leave TSC, CBR, TMA, MTC and CYC out */
} tk_pt_dump_opts;

void tk_pt_dump_opts_init(tk_pt_dump_opts *opts);

/*
 * The packets of stream i, one line each (no newline), exactly as libipt's
 * ptdump prints them by default: from the first PSB on; a packet that
 * cannot be decoded gives "[OFFSET: error decoding packet: MESSAGE]" and
 * the dump goes on at the next PSB.  line() returning non-zero stops the
 * dump and is returned.  Errors: TK_ERR_INVAL, TK_ERR_NOMEM.
 */
int tk_pt_dump(const tk_pt *pt, unsigned i, const tk_pt_dump_opts *opts,
	       int (*line)(void *ctx, const char *text), void *ctx);

/* ---- decoding --------------------------------------------------------------- */

typedef enum tk_pt_decoder {
	TK_PT_DECODER_BLOCK = 0,	/* libipt's block decoder (default, faster) */
	TK_PT_DECODER_INSN,		/* libipt's instruction flow decoder */
} tk_pt_decoder;

typedef struct tk_pt_decode_opts {
	size_t size;		/* sizeof(tk_pt_decode_opts) */
	tk_pt_decoder decoder;
	unsigned threads;	/* 0: one per online CPU */
	uint64_t piece_bytes;	/* target piece size; 0: TK_PT_PIECE_BYTES */
	/* Block decoder only: yield TK_PT_BLOCK items instead of the
	 * instructions (what counting and the call detector need; much
	 * cheaper).  Blocks end at every call, so only a block's last
	 * instruction may be a call or a return. */
	bool blocks_only;
	/* With blocks_only: a block whose last instruction is neither a
	 * call nor a return is joined with the blocks after it (while no
	 * event, error or gap comes between), so that a TK_PT_BLOCK item is a
	 * run of the event model (TK_EV_RUN): only its last instruction may
	 * be a call or a return.  Block numbers then count the items. */
	bool join_blocks;
	/* Block decoder only: a TK_PT_BLOCK item before each block's
	 * instructions (ptxed --block:show-blocks). */
	bool block_marks;
	/* Yield no instructions or blocks at all, only events, errors, gaps
	 * and the end; tk_pt_decode_insns/blocks count them (ptxed -q). */
	bool count_only;
	/* Give up on a run of this many instructions decoded without the
	 * trace moving on (an endless loop that needs no trace: reported as
	 * an error, decoding resumes at the next PSB).  0: 1 << 26. */
	uint64_t max_linear;
} tk_pt_decode_opts;

#define TK_PT_PIECE_BYTES (256u * 1024u)

void tk_pt_decode_opts_init(tk_pt_decode_opts *opts);

typedef enum tk_pt_item_kind {
	TK_PT_INSN = 1,		/* an executed instruction */
	TK_PT_BLOCK,		/* a block of instructions (block decoder) */
	TK_PT_EVENT,		/* a libipt event (enabled, disabled, ...) */
	TK_PT_ERROR,		/* a decode error; decoding resumes at the next PSB */
	TK_PT_GAP,		/* trace data missing from the buffer (perf) */
	TK_PT_END,		/* ptxed's "[end of trace]" (tracing still on) */
} tk_pt_item_kind;

/* What a gap in the flow of instructions is, for analyses that must not
 * infer a call or return across it. */
typedef enum tk_pt_gap_kind {
	TK_PT_GAP_NONE = 0,
	TK_PT_GAP_DISABLED,	/* tracing disabled (a PGD, async or not) */
	TK_PT_GAP_OVERFLOW,	/* the CPU dropped packets (OVF) */
	TK_PT_GAP_DECODE_ERROR,	/* a decode error (resynchronised) */
	TK_PT_GAP_BUFFER_FULL,	/* perf lost AUX data (TRUNCATED/PARTIAL) */
	TK_PT_GAP_OTHER,	/* a hole in the perf AUX offsets, ... */
} tk_pt_gap_kind;

typedef struct tk_pt_item {
	tk_pt_item_kind kind;
	uint32_t stream;	/* the stream index */
	uint32_t cpu;		/* the stream's CPU (the event context) */
	uint64_t offset;	/* trace offset in the stream (the decoder's
				 * position, as ptxed --offset prints it) */
	uint64_t ip;		/* INSN: its address; BLOCK: the first
				 * instruction; ERROR: where it happened;
				 * EVENT: the event's ip, if has_ip */
	uint64_t number;	/* INSN: 1-based instruction number in the
				 * stream; BLOCK: 1-based block number */
	/* TK_PT_INSN (and, with blocks_only, TK_PT_BLOCK: its last
	 * instruction's size, class and branch; size 0 if unknown) */
	const uint8_t *bytes;	/* size bytes, in memory order (INSN only) */
	uint8_t size;
	uint8_t iclass;		/* libipt's enum pt_insn_class */
	tk_branch branch;	/* CALL (not a call to the next instruction),
				 * RETURN, JUMP (incl. conditional) or NONE */
	bool speculative;	/* executed speculatively (TSX) */
	/* TK_PT_BLOCK */
	uint64_t end_ip;	/* the last instruction */
	uint32_t ninsn;
	/* TK_PT_EVENT, TK_PT_ERROR, TK_PT_GAP */
	tk_pt_gap_kind gap;	/* EVENT: DISABLED for a disable, OVERFLOW for
				 * an overflow, NONE for other events (an
				 * "enabled" ends a DISABLED gap) */
	int event_type;		/* EVENT: libipt's enum pt_event_type */
	bool has_ip;		/* EVENT: ip is meaningful */
	int error;		/* ERROR: the negative libipt error code */
	const char *text;	/* EVENT: ptxed's text ("disabled", "exec mode:
				 * 64-bit", ...); ERROR: "error" or "sync error"
				 * then ": " then libipt's message; GAP: why */
} tk_pt_item;

typedef struct tk_pt_decode tk_pt_decode;

/* Decode stream i.  Errors: TK_ERR_INVAL (no such stream, bad options),
 * TK_ERR_NOMEM. */
int tk_pt_decode_new(tk_pt *pt, unsigned i, const tk_pt_decode_opts *opts,
		     tk_pt_decode **out);

/* The next item: 1, 0 at the end, or a negative tk_err (TK_ERR_NOMEM).
 * Pointers in the item stay valid until the next call. */
int tk_pt_decode_next(tk_pt_decode *d, tk_pt_item *item);

/* Instructions and blocks yielded so far. */
uint64_t tk_pt_decode_insns(const tk_pt_decode *d);
uint64_t tk_pt_decode_blocks(const tk_pt_decode *d);
/* How far decoding has got (for progress meters): bytes of the stream. */
uint64_t tk_pt_decode_pos(const tk_pt_decode *d);

void tk_pt_decode_free(tk_pt_decode *d);

/* ---- text ------------------------------------------------------------------- */

/* "call", "return", "jump", "cond_jump", "far_call", "far_return",
 * "far_jump", "ptwrite", "other", "error" for an enum pt_insn_class. */
const char *tk_pt_iclass_name(int iclass);

/* Disassemble one x86-64 instruction as "mnemonic operands" (capstone,
 * Intel syntax, or AT&T with att).  Returns the length written, or a
 * negative tk_err (TK_ERR_PARSE: not an instruction, TK_ERR_NOMEM).
 * Thread-safe; each thread keeps its own disassembler. */
int tk_pt_disasm(const uint8_t *bytes, size_t size, uint64_t ip, bool att, char *buf,
		 size_t bufsize);

#ifdef __cplusplus
}
#endif
#endif
