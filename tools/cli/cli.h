/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: what every command front end shares.
 *
 * The common options of the seed's "Common functionality" section, parsed
 * once; opening the trace with diagnostics printed as FILE:LINE: warning:
 * ...; loading the ELF image; the progress meter; output files.
 */
#ifndef TRACEKIT_TOOLS_CLI_H
#define TRACEKIT_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/calls.h"
#include "tracekit/error.h"
#include "tracekit/source.h"
#include "tracekit/symbols.h"

#define TK_VERSION_STRING "0.1.0"

/* Exit codes of every command. */
enum {
	TK_EXIT_OK = 0,
	TK_EXIT_FAIL = 1,	/* the input could not be processed */
	TK_EXIT_USAGE = 2,	/* bad command line */
};

/* Bits of tk_cli_spec.flags: which option groups a command accepts. */
enum {
	TK_CLI_TRACE = 1 << 0,	 /* takes a TRACE argument and trace options */
	TK_CLI_INDEX = 1 << 1,	 /* --index, --force-index, --no-index, --only-index */
	TK_CLI_OUTPUT = 1 << 2,	 /* -o FILE / --output=FILE */
	TK_CLI_IMAGE = 1 << 3,	 /* --image, --load-offset */
	TK_CLI_STDIN = 1 << 4,	 /* TRACE may be omitted: read standard input */
	TK_CLI_IN_ORDER = 1 << 5, /* options stop at the first non-option
				  * (default: options may follow TRACE) */
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

struct tk_cli {
	const char *prog;	/* "tracekit calltree" or "tarmac-calltree" */
	const char *trace;	/* the trace path ("-" = stdin) */
	char **args;		/* positional arguments after the trace */
	int nargs;

	const char *image;	/* --image */
	uint64_t load_offset;	/* --load-offset */
	bool demangle;		/* --demangle: C++ names demangled */
	int endian;		/* 0 default, 'l' for --li, 'b' for --bi */
	bool implicit_thumb;
	int verbose;		/* -v count */
	bool quiet;		/* -q */
	bool progress;		/* show the progress meter (resolved) */
	const char *output;	/* -o, NULL for stdout */

	const char *index;	/* --index=PATH */
	bool force_index, no_index, only_index;

	const char *debug;	/* --debug=LIST, e.g. "call_heuristics" */

	tk_symtab *symtab;	/* loaded by tk_cli_load_image, or NULL */
	uint64_t warnings;	/* diagnostics printed (and suppressed) */
};

/*
 * Parse the command line.  On --help prints help and exits 0; on a usage
 * error prints a message and exits TK_EXIT_USAGE (front ends only: this is
 * not library code).
 */
void tk_cli_parse(tk_cli *cli, int argc, char **argv, const tk_cli_spec *spec);

/* True if --debug names this domain (e.g. "call_heuristics"). */
bool tk_cli_debug(const tk_cli *cli, const char *domain);

/* Load --image (if given) into cli->symtab, warning if its byte order
 * disagrees with --li/--bi.  Returns 0 or prints an error and returns
 * non-zero. */
int tk_cli_load_image(tk_cli *cli);

/* Open the trace as an event source, with diagnostics printed to stderr as
 * "FILE:LINE: warning: MSG" (at most 20 shown unless -v; a count at the
 * end).  Prints a message and returns non-zero if the trace cannot be
 * opened (missing file, a directory...). */
int tk_cli_open_trace(tk_cli *cli, tk_source **out);

/* Read the next event and update the progress meter; same returns as
 * tk_source_next().  Prints the error message for a negative return. */
int tk_cli_next(tk_cli *cli, tk_source *src, tk_event *ev);

/* Finish the progress meter and print the warning summary. */
void tk_cli_close_trace(tk_cli *cli, tk_source *src);

/* The progress meter for commands that read a file without a tk_source
 * (binary formats): call often (cheap; redraws at most 10 times a second
 * when cli->progress); pos and size in bytes (size 0 if unknown). */
void tk_cli_progress(tk_cli *cli, uint64_t pos, uint64_t size);
/* Erase the meter (before printing, and at the end). */
void tk_cli_progress_clear(void);

/* Open -o FILE (or stdout).  Written atomically: the data goes to a
 * temporary file renamed over FILE by tk_cli_close_output(), so a failed
 * run never leaves a half-written output. */
FILE *tk_cli_open_output(tk_cli *cli);
int tk_cli_close_output(tk_cli *cli, FILE *fp);
/* Abandon an output opened by tk_cli_open_output (after an error): the
 * temporary file is removed and FILE is left as it was. */
void tk_cli_discard_output(tk_cli *cli, FILE *fp);

/* Stream the whole trace through the call detector (printing
 * --debug=call_heuristics explanations to stderr).  Returns 0 or non-zero
 * after printing an error. */
int tk_cli_build_calltree(tk_cli *cli, tk_calltree **out);

/* The same, with the confirmed calls handed to `sink` (calls.h) instead of
 * building a tree (*out stays NULL when sink is given): for reports that
 * aggregate, so memory does not grow with the trace. */
int tk_cli_run_calls(tk_cli *cli, const tk_calls_sink *sink, tk_calltree **out);

/* "name" for a function address with --image, else NULL. */
const char *tk_cli_symbol_name(const tk_cli *cli, uint64_t addr);

/* Print "tracekit calltree: MESSAGE\n" to stderr. */
void tk_cli_error(const tk_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
