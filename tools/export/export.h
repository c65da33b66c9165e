/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit export: the call tree for the profile viewers people use.
 *
 * Chrome Trace Event format (Perfetto UI, chrome://tracing): one "X"
 * (complete) event per activation, on the track (tid) of its context (one
 * track per CPU or thread, named "cpu0", "thread 12"...), with
 * ts and dur in microseconds and args {entry_line, exit_line, pc, call_line}.
 * The events are written as the call detector confirms calls (callees
 * before their callers: the format does not need them sorted), so memory
 * stays flat however long the trace.
 *
 * speedscope's evented profile: "O"/"C" (open/close) events in time order,
 * one profile per context, frames (one per function) in "shared".  Time
 * order needs the call tree: it comes from the index, or is built once.
 *
 * Times: a trace time unit counts as `scale` microseconds (default 1: a
 * tick or clock cycle is shown as 1 us, since traces do not say how long a
 * cycle is); with instructions as the unit, ts counts instructions.
 */
#ifndef TRACEKIT_EXPORT_EXPORT_H
#define TRACEKIT_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct tke_opts {
	bool insns;		/* count instructions, not trace time */
	double scale;		/* microseconds per trace time unit */
} tke_opts;

/* The name of a context's track or profile, as the trace calls its
 * contexts: "cpu0", "thread 12". */
static inline void tke_context_name(const tk_cli *cli, uint32_t context, char *buf, size_t size)
{
	const char *kind = cli->tinfo.context_name[0] ? cli->tinfo.context_name : "cpu";
	snprintf(buf, size, strcmp(kind, "cpu") ? "%s %u" : "%s%u", kind, context);
}

/* Both return 0, or -1 after printing an error (the output is then
 * incomplete: the caller discards it). */
int tke_chrome(tk_cli *cli, FILE *fp, const tke_opts *o);
int tke_speedscope(tk_cli *cli, FILE *fp, const tke_opts *o);

#endif
