/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Tarmac trace source.
 *
 * Recognises every line form in the seed's "Specification of the recognized
 * Tarmac trace format": optional timestamp and unit (a missing timestamp
 * repeats the previous one), an optional CPU token ("cpu0"), IT/IS/ES
 * instruction lines in all layouts, R register lines, contiguous memory lines
 * (MR4, R04, MW8X, ...) and diagrammatic LD/ST lines with continuation
 * lines.  Every other line becomes a TK_EV_TEXT event.
 *
 * Interpretation decisions (the corpus in traces/tarmac/parsertest*.txt
 * shows each of these forms):
 *
 * Timestamps.  tk_event.time is the integer timestamp.  A fractional one
 *   ("10.356000us") is stored as value * 10^6 + its first 6 fraction digits
 *   (10356000).  A unit may follow, glued ("271ns") or not: clk, ns, ps,
 *   us, cs, cyc, tic... or any word of letters followed by a type word
 *   ("100 sec R r0 0"); it is ignored.  A line without a
 *   timestamp has the time and cpu of the previous line; a line with one
 *   but without "cpuN" has cpu 0.
 * Instructions.  width is from the encoding: 4 hex digits = 2 bytes, 8 = 4.
 *   "--------" gives has_encoding = false (width 4 in A32/A64, else 0).
 *   IS lines and ES lines with CCFAIL have executed = false.  A line
 *   without a state letter is Thumb with implicit_thumb, or when its
 *   encoding has 4 digits (only Thumb has 16-bit encodings); otherwise its
 *   isa is TK_ISA_UNKNOWN and the source warns once.
 * Registers.  See regs.h for names and tarmac_reg.c for fitting a value to
 *   its register: shorter values are zero-extended (z/p registers: the view
 *   shrinks to the bytes written, the vector length), "--" bytes are
 *   TK_BYTE_NONE, bytes with an 'x'/'X' nibble are TK_BYTE_UNKNOWN.  s/d
 *   names use the AArch64 overlay when the last instruction was A64 (before
 *   any instruction: when x/w registers have been written).  Registers
 *   tracekit does not model give view.reg = TK_REG_NONE with the value as
 *   written (view.len = its bytes); their name may be several words ("DC
 *   CISW").  A longer value than the register is malformed unless the extra
 *   bytes are zero; psr drops them (Fast Models' 33-bit "cpsr").
 * Memory.  Contiguous lines give one event; the value is logical and is put
 *   in memory order by big_endian.  RTL M-lines ("MNW4___D") are in memory
 *   order already (first byte written = lowest address), so big_endian does
 *   not apply; their instruction-fetch variants ("MNR4O__I", "MR2_I") and
 *   non-memory transfers ("MCW4___R ... TRANSFER") are kept as text.
 *   "(ABORTED)" gives aborted = true and all bytes TK_BYTE_NONE.  LD/ST
 *   diagrams give one event per run of accessed bytes, lowest address
 *   first, with the physical address when the extra info gives one
 *   ("S:0004001b60"); a following line with just an address and a diagram
 *   continues the previous LD/ST line.
 * Text.  tk_text.kind is the type word (without a trailing ':'), text the
 *   line from that word on.  A malformed line is kept the same way.
 */
#ifndef TRACEKIT_TARMAC_H
#define TRACEKIT_TARMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/event.h"
#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_tarmac_opts {
	size_t size;		/* sizeof(tk_tarmac_opts), for growth */
	bool implicit_thumb;	/* instruction lines without a state letter
				 * are Thumb (--implicit-thumb) */
	bool big_endian;	/* --bi: contiguous memory data is big-endian */
	tk_diag_fn diag;	/* may be NULL: diagnostics are dropped */
	void *diag_ctx;
	size_t max_line;	/* longest line read (bytes); longer ones are
				 * skipped with a warning.  0: 64 MiB */
} tk_tarmac_opts;

/* Fill *opts with defaults (little-endian, no implicit Thumb). */
void tk_tarmac_opts_init(tk_tarmac_opts *opts);

/*
 * Open a Tarmac trace file as a source.  path "-" reads standard input.
 * A gzip, zstd or xz compressed trace is decompressed as it is read (see
 * input.h); line offsets are then offsets in the decompressed text, and
 * tk_source_pos/size count file bytes.
 * Errors: TK_ERR_OPEN (errno says why), TK_ERR_ISDIR, TK_ERR_NOMEM.  An
 * empty file opens fine and yields no events; binary input (NUL bytes or
 * control characters in the first 4 KiB, compressed data, an ELF file) is
 * reported as an error diagnostic and tk_source_next returns TK_ERR_BINARY.
 * Later lines containing NUL bytes, and lines longer than max_line, are
 * skipped with a warning.  A last line without a newline is read normally;
 * a trailing '\r' (CRLF files) is ignored.
 */
int tk_tarmac_open(const char *path, const tk_tarmac_opts *opts,
		   tk_source **out);

/* Same, from an open stream the source does not close (e.g. stdin).
 * name is used in diagnostics.  The stream is read with fread. */
int tk_tarmac_open_stream(FILE *fp, const char *name,
			  const tk_tarmac_opts *opts, tk_source **out);

/* Whether the start of a file (its first up to 4 KiB) is binary data
 * rather than a text trace, as tk_tarmac_open decides: NULL for text, else
 * why not ("gzip-compressed data, not a text trace ..."). */
const char *tk_tarmac_sniff_binary(const void *head, size_t n);

/* Same, from an input the caller opened (and closes after freeing the
 * source), e.g. one recording checkpoints.  name NULL: the input's. */
int tk_tarmac_open_input(tk_input *in, const char *name, const tk_tarmac_opts *opts,
			 tk_source **out);

/*
 * The line parser on its own (for tests, fuzzing and other readers).
 * It keeps the little state Tarmac needs between lines: the last
 * timestamp, the last instruction state, the type of the last LD/ST line.
 */
typedef struct tk_tarmac_parser tk_tarmac_parser;

int tk_tarmac_parser_new(const tk_tarmac_opts *opts, tk_tarmac_parser **out);
void tk_tarmac_parser_free(tk_tarmac_parser *p);

/*
 * Parse one line (without its newline; a trailing '\r' is ignored).
 * On return *events points at *nevents events owned by the parser, valid
 * until the next call.  Returns 0, or TK_ERR_PARSE for a malformed line: then
 * tk_tarmac_parser_error() says why, and the line is returned as one
 * TK_EV_TEXT event so nothing is lost.
 */
int tk_tarmac_parse_line(tk_tarmac_parser *p, const char *line, size_t len,
			 uint64_t lineno, uint64_t offset,
			 const tk_event **events, size_t *nevents);

const char *tk_tarmac_parser_error(const tk_tarmac_parser *p);

#ifdef __cplusplus
}
#endif
#endif
