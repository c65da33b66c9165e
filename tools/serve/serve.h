/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: the web trace browser's server, shared state.
 *
 * One process serves several traces, each opened at start-up (its index
 * built or reused with the progress meter) and read-only afterwards: the
 * index answers queries from any thread (index.h), the trace text is
 * mapped, and the few derived tables that cost a walk of the call tree
 * (profile, flame graph) are built once, on first use, under a lock.
 *
 * The JSON API (docs/API.md) is handled by tks_api_handle(), which knows
 * nothing of HTTP: http.c turns requests into tks_request and answers into
 * HTTP responses; the fuzz target drives tks_api_handle() directly.
 */
#ifndef TRACEKIT_SERVE_SERVE_H
#define TRACEKIT_SERVE_SERVE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "tracekit/index.h"
#include "view/textfile.h"

#define TKS_API_VERSION 1

/* Bounds: of one request's answer, and of the things a request may ask. */
#define TKS_MAX_RESPONSE (48u << 20)	/* bytes of one JSON answer */
#define TKS_MAX_LINES 1000		/* lines per `lines` request */
#define TKS_MAX_LINE_TEXT 4096		/* bytes of one line's text shown */
#define TKS_MAX_MEM 65536		/* bytes per `mem` request */
#define TKS_MAX_EXPR 256		/* characters of an address expression */
#define TKS_MAX_REGEX 512		/* characters of a search pattern */
#define TKS_MAX_FOLDED 200000		/* hidden stretches in one `folds` answer */

typedef struct tks_trace {
	uint32_t id;
	tk_cli cli;		/* the trace's own options (path, --image...) */
	const char *name;	/* the file's base name */
	tk_index *idx;
	tk_index_info info;
	tkv_file text;		/* the trace's text, mapped */
	uint64_t ninsns;

	/* Built on first use under lock, then read-only. */
	pthread_mutex_t lock;
	char *profile;		/* JSON text of the profile */
	char *flame[2];		/* JSON text of the flame graph: time, insns */
} tks_trace;

typedef struct tks_server {
	tks_trace *traces;
	uint32_t ntraces;
} tks_server;

/* A request: the path below /api/v1/ and its query parameters. */
typedef struct tks_request {
	const char *route;
	const char *(*param)(void *ctx, const char *key);	/* NULL if absent */
	void *ctx;
} tks_request;

/* An error answer being made: HTTP status and message. */
typedef struct tks_error {
	int status;
	char msg[256];
} tks_error;

/* Set *e (status, printf-style message); returns NULL for handlers. */
json_t *tks_fail(tks_error *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Answer one API request.  Returns the HTTP status and sets *body to the
 * JSON text (malloc'd; the caller frees it): the answer, or for a status
 * >= 400 {"error": MESSAGE, "status": N}.  Never fails otherwise.
 */
int tks_api_handle(tks_server *s, const tks_request *rq, char **body, size_t *len);

/* ---- parameters (params.c) ------------------------------------------- */

/* A parameter as a number: decimal, or hex with 0x.  Returns 1 if present
 * and valid, 0 if absent (the caller decides), -1 with *e set if invalid. */
int tks_param_u64(const tks_request *rq, const char *key, uint64_t *v, tks_error *e);
/* The same, for a required parameter (absent is an error). */
int tks_param_need_u64(const tks_request *rq, const char *key, uint64_t *v, tks_error *e);
/* The position (index position) named by line=L.  0 or -1 with *e. */
int tks_param_line_pos(const tks_request *rq, tks_trace *t, const char *key, uint64_t *pos,
		       tks_error *e);
/* A string parameter of at most max bytes (1 present, 0 absent, -1 too long). */
int tks_param_str(const tks_request *rq, const char *key, size_t max, const char **v,
		  tks_error *e);
/* Evaluate an address expression at index position pos (registers there,
 * symbols of the trace's image).  0 or -1 with *e (status 400). */
int tks_eval_addr(tks_trace *t, uint64_t pos, const char *text, uint64_t *v, tks_error *e);

/* ---- handlers: one per route (api_*.c) -------------------------------- */

typedef json_t *(*tks_handler)(tks_server *s, tks_trace *t, const tks_request *rq,
			       tks_error *e);

json_t *tks_api_traces(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_lines(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_position(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_regs(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_mem(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_history(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_callstack(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_calltree(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_folds(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_profile(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_flamegraph(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_search(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);
json_t *tks_api_symbols(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e);

/* Handlers that answer with ready-made JSON text (profile, flame graph)
 * return this marker object holding it (see api.c). */
json_t *tks_raw_json(const char *text);

/* ---- the lines of the trace (lines.c) --------------------------------- */

/* One line of the trace with what it means. */
typedef struct tks_line {
	uint64_t n;		/* 1-based line number */
	const char *text;	/* without the newline (not NUL-terminated) */
	size_t len;
	uint64_t pos;		/* the index position whose group holds it */
	bool is_insn;		/* the position's instruction line */
	const tk_event *events;	/* the line's events, valid in the callback */
	size_t nevents;
} tks_line;

typedef int (*tks_line_fn)(void *ctx, const tks_line *line);

/*
 * The text and events of lines [from, from + count) of a trace (clipped to
 * the trace), in order: the one place that reads the trace's text, so that
 * it can move to the sources' own seek (re-reading the events of a
 * position) when every source has one.  Today: the mapped text and the
 * Tarmac line parser, each position's group parsed from its instruction
 * line so the parser's state (time, execution state) is right.
 * The callback returns 0 to go on, non-zero to stop.  Returns 0 or a
 * negative tk_err.
 */
int tks_read_lines(tks_trace *t, uint64_t from, uint64_t count, tks_line_fn fn, void *ctx);

/* The line number one past the last line of the trace. */
uint64_t tks_end_line(const tks_trace *t);

/* JSON helpers for these answers (api_common.c). */
json_t *tks_position_json(tks_trace *t, uint64_t pos);
json_t *tks_hex(uint64_t v);		/* "0x..." */
json_t *tks_text(const char *s, size_t len);	/* any bytes as a JSON string */
/* "name", "name+0x10" or NULL for an address (with the trace's image). */
const char *tks_func_name(tks_trace *t, uint64_t addr, char *buf, size_t size);

/* The hidden stretch of lines of call c when folded: the lines of its
 * activation, [first, end). */
void tks_call_lines(tks_trace *t, uint32_t c, uint64_t *first, uint64_t *end);

#endif
