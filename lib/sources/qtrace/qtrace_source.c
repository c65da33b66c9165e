/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the "qtrace" format: Qtrace files (POWER instruction traces,
 * as htm2qt, qtwrite and IBM's tools write them) as event sources.  The
 * events are made by the POWER source shared with the "htm" format. */
#include "sources/power/power_source.h"
#include "tracekit/qtrace.h"

extern const tk_source_format tk_format_qtrace;

static int qtrace_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	return tk_qt_probe(head, len);
}

static int qtrace_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	return tk_power_source_open(&tk_format_qtrace, TK_POWER_QTRACE, path, spec, out);
}

const tk_source_format tk_format_qtrace = {
	.name = "qtrace",
	.summary = "POWER Qtrace instruction trace (htm2qt, qtwrite; gzip/zstd/xz too)",
	.detection = "a Qtrace header entry (zero word, then flag words that make sense)",
	.caps = TK_POWER_SOURCE_CAPS,
	.time_unit = TK_TIME_INSNS,
	.options = NULL,
	.probe = qtrace_probe,
	.open = qtrace_open,
	.open_stream = NULL,
};
