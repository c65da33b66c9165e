/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: positions of an indexed trace written on the command line.
 *
 *   LINE          the instruction whose group of lines holds trace line LINE
 *   #N            position N (0-based)
 *   end           the last position
 *   t:TIME        the first instruction at or after TIME
 *   pc:ADDR[@N]   the N-th (default 1st) visit of the instruction at ADDR:
 *                 0x hex, decimal, or a symbol of --image
 */
#ifndef TRACEKIT_TOOLS_POSITION_H
#define TRACEKIT_TOOLS_POSITION_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "tracekit/index.h"

/* Returns 0 and *pos, or -1 with why the position is bad in msg. */
int tk_cli_position(const tk_cli *cli, const tk_index *idx, const char *text, uint64_t *pos,
		    char *msg, size_t size);

#endif
