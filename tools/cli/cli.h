/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: what every command front end shares.
 *
 * The common options of the seed's "Common functionality" section, and the
 * options every trace format registers (tracekit formats), parsed once;
 * opening the trace with any format, its diagnostics printed as
 * FILE:LINE: warning: ...; loading the ELF image; the progress meter;
 * output files; the call tree from an index or from the trace.
 *
 * Helpers never exit: they return a tk_status, and a command returns
 * tk_cli_exit(status) when it is not TK_ST_OK.
 */
#ifndef TRACEKIT_TOOLS_CLI_H
#define TRACEKIT_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/calls.h"
#include "tracekit/error.h"
#include "tracekit/namemap.h"
#include "tracekit/source.h"
#include "tracekit/symbols.h"

#define TK_VERSION_STRING "0.2.0"

/* Exit codes of every command (README: "Exit status"). */
enum {
	TK_EXIT_OK = 0,
	TK_EXIT_FAIL = 1,	/* the input could not be processed */
	TK_EXIT_USAGE = 2,	/* bad command line */
};

/* What a front-end helper did.  Anything but TK_ST_OK means: stop, and
 * exit with tk_cli_exit(status) (the helper has printed what needs it). */
typedef enum tk_status {
	TK_ST_OK = 0,		/* go on */
	TK_ST_DONE,		/* finished early and well (--help, --only-index) */
	TK_ST_FAIL,		/* an error in the input or the system: exit 1 */
	TK_ST_USAGE,		/* a bad command line: exit 2 */
} tk_status;

static inline int tk_cli_exit(tk_status st)
{
	return st == TK_ST_OK || st == TK_ST_DONE ? TK_EXIT_OK :
	       st == TK_ST_USAGE ? TK_EXIT_USAGE : TK_EXIT_FAIL;
}

/* Bits of tk_cli_spec.flags: which option groups a command accepts. */
enum {
	TK_CLI_TRACE = 1 << 0,	 /* takes a TRACE argument, --format and the
				  * formats' options */
	TK_CLI_INDEX = 1 << 1,	 /* --index, --force-index, --no-index, --only-index */
	TK_CLI_OUTPUT = 1 << 2,	 /* -o FILE / --output=FILE */
	TK_CLI_IMAGE = 1 << 3,	 /* --image, --load-offset, --demangle */
	TK_CLI_STDIN = 1 << 4,	 /* TRACE may be omitted: read standard input */
	TK_CLI_IN_ORDER = 1 << 5, /* options stop at the first non-option
				  * (default: options may follow TRACE) */
	TK_CLI_CONTEXT = 1 << 6, /* --context=N: one context (CPU, thread) only */
	TK_CLI_SOURCE_LINES = 1 << 7, /* --source-lines (with --image) */
};

typedef struct tk_cli tk_cli;

/* A command's own options, beyond the common ones. */
typedef struct tk_cli_spec {
	const char *usage;	/* "[OPTIONS] TRACE ADDRESS..." */
	const char *summary;	/* one paragraph: what the command does */
	const char *options_help; /* help lines for the extra options, or NULL */
	unsigned flags;		/* TK_CLI_* */
	int min_args, max_args;	/* positional args after TRACE (-1: any) */
	const struct option *extra; /* extra long options (val >= 256), or NULL */
	/* Called for each extra option; return 0, or non-zero to fail. */
	int (*handle)(tk_cli *cli, int val, const char *arg, void *ctx);
	void *ctx;
} tk_cli_spec;

/* What the trace is: its source's info, from the index if one was used,
 * else from the source (set by tk_cli_open_trace and tk_cli_open_index). */
typedef struct tk_cli_trace_info {
	char format[32];
	char context_name[16];	/* "cpu", "thread" */
	unsigned caps;		/* TK_CAP_* */
	tk_time_unit time_unit;
} tk_cli_trace_info;

#define TK_CLI_MAX_IMAGES 16
#define TK_CLI_MAX_SOURCE_OPTS 32

struct tk_cli {
	const char *prog;	/* "tracekit calltree" or "tarmac-calltree" */
	const char *trace;	/* the trace path ("-" = stdin) */
	char **args;		/* positional arguments after the trace */
	int nargs;

	const char *images[TK_CLI_MAX_IMAGES];	/* --image, in order */
	int nimages;
	const char *image;	/* the first --image (symbols), or NULL */
	uint64_t load_offset;	/* --load-offset */
	bool demangle;		/* --demangle: C++ names demangled */
	bool source_lines;	/* --source-lines: FILE:LINE from DWARF */
	int verbose;		/* -v count */
	bool quiet;		/* -q */
	bool progress;		/* show the progress meter (resolved) */
	const char *output;	/* -o, NULL for stdout */
	bool no_offsets;	/* --no-offsets: no "+ 0xOFFSET" after names */
	bool memory_index;	/* --memory-index: no index file */

	const char *format;	/* --format=NAME, or NULL: detected */
	tk_source_opt sopts[TK_CLI_MAX_SOURCE_OPTS];	/* the formats' options */
	size_t nsopts;
	tk_source_spec spec;	/* format, sopts, images, diagnostics */

	int64_t context;	/* --context=N, or -1: every context */
	unsigned threads;	/* --threads=N, or 0: every core */

	const char *index;	/* --index=PATH */
	bool force_index, no_index, only_index;

	const char *debug;	/* --debug=LIST, e.g. "call_heuristics" */

	tk_symtab *symtab;	/* loaded by tk_cli_load_image, or NULL */
	tk_namemap names;	/* function names the trace gives (function events) */
	uint64_t warnings;	/* diagnostics printed (and suppressed) */
	uint64_t errors;	/* error diagnostics printed */
	tk_cli_trace_info tinfo;
};

/*
 * Parse the command line.  Returns TK_ST_OK; TK_ST_DONE after printing
 * --help; TK_ST_USAGE after printing what is wrong.
 */
tk_status tk_cli_parse(tk_cli *cli, int argc, char **argv, const tk_cli_spec *spec);

/* The common start of every command: parse, and return from the command
 * with the right exit code unless the status is TK_ST_OK. */
#define TK_CLI_PARSE(cli, argc, argv, spec)                                  \
	do {                                                                 \
		tk_status st_ = tk_cli_parse((cli), (argc), (argv), (spec)); \
		if (st_ != TK_ST_OK)                                         \
			return tk_cli_exit(st_);                             \
	} while (0)

/* Release what the helpers loaded (the image's symbols, the trace's
 * function names).  cli can then only be parsed again. */
void tk_cli_fini(tk_cli *cli);

/* True if --debug names this domain (e.g. "call_heuristics"). */
bool tk_cli_debug(const tk_cli *cli, const char *domain);

/* Check a --debug=TYPE[,...] value (debug.c): "list" prints the debug
 * types (TK_ST_DONE); an unknown type is a usage error (printed). */
tk_status tk_cli_check_debug(const tk_cli *cli, const char *value);

/* Print "tracekit VERSION" (or "ALIAS (tracekit) VERSION"). */
void tk_cli_print_version(const char *prog);

/* Whether a format option was given (Tarmac's "bi", "implicit-thumb"...). */
bool tk_cli_has_source_opt(const tk_cli *cli, const char *name);

/* True if the trace is read big-endian (--bi given after any --li). */
bool tk_cli_big_endian(const tk_cli *cli);

/* The byte order the options give: 'b' (--bi last), 'l' (--li last), 0. */
int tk_cli_endian_option(const tk_cli *cli);

/* Load --image (if given) into cli->symtab, warning if its byte order
 * disagrees with --li/--bi (and reading the trace big-endian if the image
 * is and neither was given).  TK_ST_OK or TK_ST_FAIL (printed). */
tk_status tk_cli_load_image(tk_cli *cli);
/* Without a plain --image (an ELF file; not ELF@ADDR, which a decoding
 * source relocates): the symbols of the images the trace names
 * (tk_source_info.images, each with its bias), if any (trace_images.c).
 * TK_ST_OK (cli->symtab may stay NULL) or TK_ST_FAIL (printed). */
bool tk_cli_image_is_plain(const char *image);
tk_status tk_cli_load_trace_images(tk_cli *cli);

/* Open the trace as an event source (its format named or detected), with
 * diagnostics printed to stderr as "FILE:LINE: warning: MSG" (at most 20
 * shown unless -v; a count at the end).  TK_ST_OK, or TK_ST_FAIL after
 * printing why (missing file, a directory, an unknown format...). */
tk_status tk_cli_open_trace(tk_cli *cli, tk_source **out);

/* Read the next event and update the progress meter; same returns as
 * tk_source_next().  Prints the error message for a negative return. */
int tk_cli_next(tk_cli *cli, tk_source *src, tk_event *ev);

/* The same for up to cap events at once (tk_source_next_many). */
int tk_cli_next_many(tk_cli *cli, tk_source *src, tk_event *evs, size_t cap);

/* Finish the progress meter and print the warning summary. */
void tk_cli_close_trace(tk_cli *cli, tk_source *src);

/* Open -o FILE (or stdout), as output.h describes: a regular file is
 * written atomically (a temporary file renamed over FILE by
 * tk_cli_close_output(), so a failed run never leaves a half-written
 * output), a fifo or device directly; the trace and the image are
 * protected inputs.  Prints the error and returns NULL on failure. */
FILE *tk_cli_open_output(tk_cli *cli);
int tk_cli_close_output(tk_cli *cli, FILE *fp);
/* Abandon an output opened by tk_cli_open_output (after an error): the
 * temporary file is removed and FILE is left as it was. */
void tk_cli_discard_output(tk_cli *cli, FILE *fp);

/*
 * The call tree: from a valid index if there is one (see cli_index.h for
 * the policy), else by streaming the trace through the call detector
 * (printing --debug=call_heuristics explanations to stderr).  With `sink`
 * (calls.h) the confirmed calls go to it (out may be NULL): for reports
 * that aggregate.  Without, *out receives a walk of the tree in preorder
 * (read in place from the index, or from the detector's spill file), freed
 * with tk_callwalk_free.  Neither holds the tree in memory.  --context
 * keeps one context's calls only.  Returns TK_ST_OK, TK_ST_DONE
 * (--only-index: the index is built, stop), or TK_ST_FAIL (printed; also
 * when the trace has no step).
 */
tk_status tk_cli_run_calls(tk_cli *cli, const tk_calls_sink *sink, tk_callwalk **out);

/* The name of a function entered at addr (names.c): with --image, the
 * symbol containing addr, followed by " + 0xOFFSET" when addr is past its
 * start (unless --no-offsets), as Arm's tools name activations; else the
 * name the trace gives it (function-level traces); NULL when none.  The
 * text stays valid until the 8th next call. */
const char *tk_cli_symbol_name(const tk_cli *cli, uint64_t addr);


/* Print "tracekit calltree: MESSAGE\n" to stderr. */
void tk_cli_error(const tk_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "tracekit calltree: warning: MESSAGE\n" to stderr. */
void tk_cli_warning(const tk_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- diagnostics and progress (diag.c): one meter for every command ---- */

/* A tk_diag_fn printing trace diagnostics for cli (ctx = cli). */
void tk_cli_print_diag(void *ctx, const tk_diag *d);

/* Progress of work on cli->trace: done of total bytes (total 0: unknown);
 * redrawn at most every 0.1 s, only if cli->progress.  It reads the clock:
 * call it every few thousand records, not for each. */
void tk_cli_progress(tk_cli *cli, const char *what, uint64_t done, uint64_t total);

/* Erase the meter (before printing anything else on stderr). */
void tk_cli_progress_clear(void);

/* The "N warnings (M not shown)" line, if warnings were suppressed. */
void tk_cli_warning_summary(tk_cli *cli);

/* Print "call_heuristics: MSG" (a tk_calls_debug_fn). */
void tk_cli_print_calls_debug(void *ctx, const char *msg);

#endif
