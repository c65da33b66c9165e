/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: POWER instruction traces (Qtrace files and Core HTM dumps) as
 * one stream of executed instructions.
 *
 * This is what a trace source needs from either format: one item per
 * executed instruction (a prefixed pair merged into one 8-byte
 * instruction), with its EA, encoding, the EA execution went on at, the
 * branch kind by link-register semantics (tk_ppc_branch_kind), the data EA
 * of a load or store, and where in the file it came from.  The format is
 * recognised by content.
 */
#ifndef TRACEKIT_POWER_H
#define TRACEKIT_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "tracekit/event.h"
#include "tracekit/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_power_format {
	TK_POWER_DETECT = 0,
	TK_POWER_QTRACE,
	TK_POWER_HTM,
} tk_power_format;

typedef struct tk_power_opts {
	uint32_t size;			/* sizeof(tk_power_opts) */
	tk_power_format format;		/* TK_POWER_DETECT: by content */
	tk_diag_fn diag;		/* damage stepped over; byte offset in line */
	void *diag_ctx;
} tk_power_opts;

void tk_power_opts_init(tk_power_opts *o);

typedef struct tk_power_insn {
	uint64_t ea;
	uint64_t next_ea;		/* where execution went on (ea + width at the end) */
	uint32_t words[2];		/* the word; or prefix, suffix */
	uint8_t width;			/* 4, or 8 for a prefixed instruction */
	tk_branch branch;		/* TK_BR_NONE / JUMP / CALL / RETURN */
	bool gap_before;		/* the trace restarted or lost records just before */
	bool has_data_ea, has_ra, has_data_ra;
	uint64_t data_ea;		/* of a load or store (value not traced) */
	uint64_t ra, data_ra;		/* real addresses, when known */
	uint64_t number;		/* 1-based record number of its (first) record */
	uint64_t offset;		/* byte offset of that record (INST/INFO word in a dump) */
} tk_power_insn;

typedef struct tk_power tk_power;

/* Which format the first bytes of a file are (after decompression), and
 * how sure (0-100).  Returns TK_POWER_DETECT with 0 if neither. */
tk_power_format tk_power_probe(const void *head, size_t len, int *confidence);

/*
 * Open a Qtrace file or an HTM dump.  Errors: TK_ERR_OPEN, TK_ERR_ISDIR,
 * TK_ERR_EMPTY, TK_ERR_FORMAT (neither format; or not the one forced),
 * TK_ERR_UNSUPPORTED, TK_ERR_NOMEM, TK_ERR_IO; tk_power_last_error() says
 * more for FORMAT.
 */
int tk_power_open(const char *path, const tk_power_opts *o, tk_power **out);
const char *tk_power_last_error(void);

/* Next instruction: 1, 0 at the end, or a negative error (the reader's or
 * decoder's; tk_power_error() names the file and byte offset). */
int tk_power_next(tk_power *p, tk_power_insn *out);

const char *tk_power_error(const tk_power *p);
tk_power_format tk_power_format_of(const tk_power *p);
/* Bytes consumed and size on disk (0 if unknown), for progress meters. */
uint64_t tk_power_offset(const tk_power *p);
uint64_t tk_power_size(const tk_power *p);

void tk_power_free(tk_power *p);

#ifdef __cplusplus
}
#endif
#endif
