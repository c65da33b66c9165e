/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the Intel PT commands (ptdump, ptxed) share: their trace and image
 * options, in tracekit's spelling and in libipt's, and opening the trace. */
#ifndef TRACEKIT_TOOLS_PT_CLI_H
#define TRACEKIT_TOOLS_PT_CLI_H

#include <getopt.h>

#include "cli/cli.h"
#include "tracekit/pt.h"

/* Option values (>= 256) of the shared options. */
enum {
	PTO_PT = 400, PTO_IMAGE, PTO_ELF, PTO_RAW, PTO_CPU, PTO_FORMAT, PTO_THREADS,
	PTO_PIECE, PTO_LAST
};

#define TK_PT_CLI_OPTIONS                                                     \
	{"pt", required_argument, NULL, PTO_PT},                              \
	{"image", required_argument, NULL, PTO_IMAGE},                        \
	{"elf", required_argument, NULL, PTO_ELF},                            \
	{"raw", required_argument, NULL, PTO_RAW},                            \
	{"cpu", required_argument, NULL, PTO_CPU},                            \
	{"format", required_argument, NULL, PTO_FORMAT},                      \
	{"threads", required_argument, NULL, PTO_THREADS},                    \
	{"piece-size", required_argument, NULL, PTO_PIECE}

#define TK_PT_CLI_HELP                                                                     \
	"  --pt=FILE                the trace (instead of the TRACE argument)\n"             \
	"  --image=ELF[@ADDR]       code from an ELF file; ADDR: where its lowest loadable\n" \
	"                           segment goes (default: its own addresses); repeatable\n"  \
	"  --elf=ELF[:ADDR]         the same, in libipt's spelling\n"                        \
	"  --raw=FILE@ADDR          code from a raw binary loaded at ADDR (or FILE:ADDR)\n"  \
	"  --cpu=F/M[/S]|auto|none  the CPU the trace was recorded on, for errata\n"          \
	"                           (auto: perf.data's HEADER_CPUID; raw PT: none)\n"         \
	"  --format=pt|perf         the trace format (default: detected by content)\n"        \
	"  --threads=N              decoding threads (default: all cores)\n"                  \
	"  --piece-size=BYTES       cut the trace into pieces of about BYTES at PSBs for\n"   \
	"                           parallel decoding (default 262144; for tests)\n"

typedef struct tk_pt_cli_image {
	const char *path;
	bool raw, at;
	uint64_t addr;
} tk_pt_cli_image;

typedef struct tk_pt_cli {
	const char *trace;
	tk_pt_cli_image images[64];
	int nimages;
	const char *cpu;
	tk_pt_format format;
	unsigned threads;
	uint64_t piece_bytes;
} tk_pt_cli;

/* Handle one of the shared options; returns 0, 1 if val is not one of
 * them, or -1 after printing a usage error. */
int tk_pt_cli_option(tk_cli *cli, tk_pt_cli *p, int val, const char *arg);

/* After tk_cli_parse: take the TRACE argument unless --pt gave it. */
int tk_pt_cli_trace(tk_cli *cli, tk_pt_cli *p);

/* Open the trace and add the images (then frees p's image paths); prints
 * what went wrong.  Returns 0 or TK_EXIT_FAIL.  Call once. */
int tk_pt_cli_open(tk_cli *cli, const tk_pt_cli *p, tk_pt **out);

/* Prints "FILE: warning: ..." diagnostics (counted in cli->warnings). */
void tk_pt_cli_diag(void *ctx, const tk_diag *d);

#endif
