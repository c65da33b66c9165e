/* tracekit: the Tarmac trace source.
 *
 * Recognises every line form in the seed's "Specification of the recognized
 * Tarmac trace format": optional timestamp and unit (a missing timestamp
 * repeats the previous one), an optional CPU token ("cpu0"), IT/IS/ES
 * instruction lines in all layouts, R register lines, contiguous memory lines
 * (MR4, R04, MW8X, ...) and diagrammatic LD/ST lines with continuation
 * lines.  Every other line becomes a TK_EV_TEXT event.
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
} tk_tarmac_opts;

/* Fill *opts with defaults (little-endian, no implicit Thumb). */
void tk_tarmac_opts_init(tk_tarmac_opts *opts);

/*
 * Open a Tarmac trace file as a source.  path "-" reads standard input.
 * Errors: TK_ERR_OPEN, TK_ERR_ISDIR, TK_ERR_NOMEM.  An empty file opens
 * fine and yields no events; binary input is detected and reported as a
 * diagnostic (TK_ERR_BINARY from tk_source_next on the first line).
 */
int tk_tarmac_open(const char *path, const tk_tarmac_opts *opts,
		   tk_source **out);

/* Same, from an open stream the source does not close (e.g. stdin).
 * name is used in diagnostics. */
int tk_tarmac_open_stream(FILE *fp, const char *name,
			  const tk_tarmac_opts *opts, tk_source **out);

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
