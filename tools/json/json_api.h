/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the JSON writers the commands of the binary use (--json), as
 * the json module (tk-json.so) offers them: jansson is loaded only with
 * that module, when JSON is asked for.  This header needs no jansson. */
#ifndef TRACEKIT_JSON_JSON_API_H
#define TRACEKIT_JSON_JSON_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

/* A JSON document written piece by piece (json_out.h). */
typedef struct tkj_stream {
	FILE *fp;
	bool open, first;
} tkj_stream;

typedef struct tkj_api {
	int (*calltree)(FILE *fp, tk_cli *cli, tk_callwalk *t);
	int (*callinfo_begin)(tkj_stream *s, FILE *fp, tk_cli *cli);
	int (*callinfo_function)(tkj_stream *s, tk_cli *cli, uint64_t addr,
				 const tk_tpos *const *hits, size_t n);
	int (*profile_begin)(tkj_stream *s, FILE *fp, tk_cli *cli);
	int (*profile_row)(tkj_stream *s, tk_cli *cli, uint64_t addr, uint64_t count,
			   uint64_t time);
	int (*stream_end)(tkj_stream *s);
} tkj_api;

/* The writers, from the json module; NULL after printing why not
 * (tools/cli/modules.c). */
const tkj_api *tkj_load(tk_cli *cli);

#endif
