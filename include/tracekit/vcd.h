/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a Value Change Dump (IEEE 1364-2005, section 18) writer.
 *
 * Streaming: declare scopes and variables, call tk_vcd_begin(), then set
 * values and advance time.  Changes made at one time are collected and
 * written when time advances (or at tk_vcd_finish), and only for variables
 * whose value really differs from what was last written, so setting a
 * variable to the value it already has costs no output.
 *
 * Values are kept per byte, least significant byte first, each byte known
 * (0/1 bits), unknown (x) or high-impedance (z).  Vector values are written
 * in the shortest form the standard's left-extension rule allows.
 *
 * Text is written the Verilog way: a reg vector of 8 bits per character,
 * the last character in the least significant byte ("abc" assigned to a
 * reg [8*N-1:0]); viewers such as GTKWave show it with an ASCII format.
 *
 * The writer never prints anything but the dump; it only writes to the FILE
 * it was given.
 */
#ifndef TRACEKIT_VCD_H
#define TRACEKIT_VCD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_vcd tk_vcd;

/* A variable handle, from tk_vcd_add_var(). */
typedef uint32_t tk_vcd_var;

/* Per-byte value state (KNOWN must stay 0: the writer relies on it). */
enum tk_vcd_state {
	TK_VCD_KNOWN = 0,
	TK_VCD_X = 1,
	TK_VCD_Z = 2,
	TK_VCD_KEEP = 3,	/* tk_vcd_set_bytes: leave this byte as it is */
};

typedef struct tk_vcd_opts {
	size_t size;		/* sizeof(tk_vcd_opts), for growth */
	const char *date;	/* $date text, or NULL for none */
	const char *version;	/* $version text, or NULL for none */
	const char *comment;	/* a $comment in the header, or NULL */
	const char *timescale;	/* "1 ns", "10 ps"...: 1|10|100 s|ms|us|ns|ps|fs */
} tk_vcd_opts;

void tk_vcd_opts_init(tk_vcd_opts *opts);

/*
 * Start a dump on fp (not closed by the writer).
 * Errors: TK_ERR_INVAL (bad timescale), TK_ERR_NOMEM.
 */
int tk_vcd_new(FILE *fp, const tk_vcd_opts *opts, tk_vcd **out);
void tk_vcd_free(tk_vcd *w);

/* Open a "module" scope / close the innermost one.  Names must be
 * identifiers ([A-Za-z_][A-Za-z0-9_$]*).  Errors: TK_ERR_INVAL. */
int tk_vcd_scope(tk_vcd *w, const char *name);
int tk_vcd_upscope(tk_vcd *w);

/*
 * Declare a variable in the current scope.  type is a var_type of the
 * standard ("wire", "reg", "integer"...) or "bit"; width is 1 or a multiple
 * of 8, at most 65536.  Every variable starts as all x.  Vectors are
 * declared with a bit range ("[63:0]"), except integers (as Arm's
 * tarmac-vcd writes them: "$var integer 64 ! x0 $end").
 * Errors: TK_ERR_INVAL (bad name, width, or after tk_vcd_begin),
 * TK_ERR_NOMEM.
 */
int tk_vcd_add_var(tk_vcd *w, const char *type, unsigned width, const char *name,
	       tk_vcd_var *out);

/*
 * Declare a GTKWave string variable ("$var string 1 ID NAME $end"): a
 * value of any length shown as text, with no display format to choose.
 * It starts as the empty string; tk_vcd_set_string sets it (bytes that
 * are not printable ASCII, and blanks, are written escaped: "\\040").
 * Not IEEE 1364, but what GTKWave and Arm's tarmac-vcd use.
 * Errors: as tk_vcd_add_var.
 */
int tk_vcd_add_string(tk_vcd *w, const char *name, tk_vcd_var *out);
void tk_vcd_set_string(tk_vcd *w, tk_vcd_var v, const char *s, size_t n);

/* Write the header and the initial values at time 0.  Errors: TK_ERR_IO. */
int tk_vcd_begin(tk_vcd *w);

/*
 * Set bytes [offset, offset + n) of a variable: val[i] with state[i] (an
 * enum tk_vcd_state; state may be NULL for all known; TK_VCD_KEEP leaves
 * that byte unchanged).  Bytes beyond the
 * variable's width are ignored.  For a 1-bit variable, byte 0's low bit.
 */
void tk_vcd_set_bytes(tk_vcd *w, tk_vcd_var v, unsigned offset, const uint8_t *val,
		      const uint8_t *state, unsigned n);

/* The whole variable: a number (truncated to the width), all x or all z
 * (state = TK_VCD_X / TK_VCD_Z), or text (see above; cut to the width,
 * keeping the first characters). */
void tk_vcd_set_u64(tk_vcd *w, tk_vcd_var v, uint64_t value);
void tk_vcd_set_all(tk_vcd *w, tk_vcd_var v, enum tk_vcd_state state);
void tk_vcd_set_text(tk_vcd *w, tk_vcd_var v, const char *s, size_t n);

/*
 * Move to time t (in timescale units).  The changes made since the last
 * call are written first, under the previous time.  Time never goes back:
 * t smaller than the current time is TK_ERR_INVAL.  Errors: TK_ERR_IO.
 */
int tk_vcd_time(tk_vcd *w, uint64_t t);

/* The current time. */
uint64_t tk_vcd_now(const tk_vcd *w);

/* Write the pending changes and flush the stream.  Errors: TK_ERR_IO. */
int tk_vcd_finish(tk_vcd *w);

#ifdef __cplusplus
}
#endif
#endif
