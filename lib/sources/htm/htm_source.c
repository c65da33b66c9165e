/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the "htm" format: POWER8 and POWER10 Core HTM dumps (raw,
 * gzip, zstd or xz) as event sources, decoded as htm2qt decodes them.  The
 * events are made by the POWER source shared with the "qtrace" format. */
#include "sources/power/power_source.h"
#include "tracekit/htm.h"
#include "tracekit/qtrace.h"

extern const tk_source_format tk_format_htm;

static int htm_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	return tk_qt_probe(head, len) ? 0 : tk_htm_probe(head, len);
}

static int htm_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	return tk_power_source_open(&tk_format_htm, TK_POWER_HTM, path, spec, out);
}

const tk_source_format tk_format_htm = {
	.name = "htm",
	.summary = "IBM POWER8/POWER10 Core HTM dump (raw, gzip, zstd or xz)",
	.detection = "64-bit words with the HTM tags 0xABCDF (POWER10) or 0xABCDE "
		     "(POWER8) or HTM stamps 0xACEFF",
	.caps = TK_POWER_SOURCE_CAPS,
	.time_unit = TK_TIME_INSNS,
	.options = NULL,
	.probe = htm_probe,
	.open = htm_open,
	.open_stream = NULL,
};
