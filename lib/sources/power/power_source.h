/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the event source shared by the Qtrace and HTM formats
 * (lib/sources/qtrace/qtrace_source.c, lib/sources/htm/htm_source.c). */
#ifndef TRACEKIT_POWER_SOURCE_H
#define TRACEKIT_POWER_SOURCE_H

#include "tracekit/power.h"
#include "tracekit/source_author.h"

/* The capabilities both formats have. */
#define TK_POWER_SOURCE_CAPS (TK_CAP_INSNS | TK_CAP_MEM | TK_CAP_CALLS | TK_CAP_SEEK)

/* Open path as `which` (a Qtrace file or an HTM dump, compressed or not)
 * for format fmt.  Errors as tk_source_open; a diagnostic names the file
 * and byte offset. */
int tk_power_source_open(const tk_source_format *fmt, tk_power_format which, const char *path,
			 const tk_source_spec *spec, tk_source **out);

#endif
