/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the POWER8/POWER10 HTM decoder on arbitrary words (and
 * compressed data), the Qtrace writer on its records, and the reader on
 * that file: the records must read back as the same instructions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/htm.h"
#include "tracekit/qtrace.h"

#define MAX_RECS 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t ea[MAX_RECS];
	static uint32_t insn[MAX_RECS];
	tk_htm *d;
	if (tk_htm_open_mem(data, size, "fuzz.htm", NULL, &d) < 0)
		return 0;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	tk_qt_writer *w = NULL;
	if (!fp || tk_qt_writer_new(fp, 0, &w) < 0)
		abort();
	tk_qt_record rec;
	size_t n = 0;
	while (n < MAX_RECS && tk_htm_next(d, &rec) > 0) {
		ea[n] = rec.ea;
		insn[n] = rec.insn;
		n++;
		if (tk_qt_writer_add(w, &rec) < 0)
			abort();
	}
	(void)tk_htm_error(d);
	(void)tk_htm_get_stats(d);
	tk_htm_free(d);
	if (tk_qt_writer_finish(w) < 0)
		abort();
	tk_qt_writer_free(w);
	fclose(fp);
	tk_qt_reader *r;
	if (tk_qt_reader_open_mem(out, outlen, "fuzz.qt", NULL, &r) < 0)
		abort();
	for (size_t i = 0; i < n; i++)
		if (tk_qt_reader_next(r, &rec) != 1 || rec.ea != ea[i] || rec.insn != insn[i])
			abort();
	tk_qt_reader_free(r);
	free(out);
	return 0;
}
