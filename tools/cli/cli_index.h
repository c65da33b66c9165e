/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index options of the command front ends.
 *
 * The seed's "Options to control indexing", for every command:
 *   --index=PATH    the index file (default TRACE.index)
 *   --force-index   rebuild it
 *   --no-index      never build it; an existing index is used only if it
 *                   describes the trace as it is now (else: a warning, and
 *                   the trace is read instead where a command can)
 *   --only-index    build it if needed, then stop
 *   -v              say why the index was reused or rebuilt (-vv: more)
 *
 * Two policies.  Commands that need an index (browse, index, dump) build it
 * whenever it is missing or stale.  Report commands that can stream the
 * trace instead (calltree, callinfo, profile, flamegraph, vcd) use an index
 * that already exists and is valid, and build one only when --force-index
 * or --only-index asks: streaming is faster than building.
 */
#ifndef TRACEKIT_TOOLS_CLI_INDEX_H
#define TRACEKIT_TOOLS_CLI_INDEX_H

#include "cli.h"
#include "tracekit/index.h"

/*
 * Open the index of cli->trace according to the options and the policy
 * (need = true: the command needs an index).  Returns TK_ST_OK and sets
 * *out, or, only when !need, leaves *out NULL: the caller should stream
 * the trace instead.  TK_ST_FAIL after printing an error.  With
 * cli->only_index set the caller should stop after TK_ST_OK.
 */
tk_status tk_cli_open_index(tk_cli *cli, bool need, tk_index **out);

#endif
