/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the index options of the command front ends.
 *
 * The seed's "Options to control indexing", for every command:
 *   --index=PATH    the index file (default TRACE.index)
 *   --force-index   rebuild it
 *   --no-index      never rebuild it (an existing, even stale, index is used)
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
 * (need = true: the command needs an index).  Returns 0 and sets *out;
 * 1 (*out NULL) when the caller should stream the trace instead (only when
 * !need); -1 after printing an error.  When cli->only_index is set the
 * caller should stop after a successful return (tk_cli_index_only_done).
 */
int tk_cli_open_index(tk_cli *cli, bool need, tk_index **out);

/*
 * For report commands: the call tree from a usable index.  Returns 0 with
 * *out (the caller frees it with tk_calltree_free), 1 if the caller should
 * stream the trace instead (tk_cli_build_calltree), -1 after an error.
 * With --only-index, the index is built and 2 is returned: stop, exit 0.
 */
int tk_cli_index_calltree(tk_cli *cli, tk_calltree **out);

#endif
