/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the Qtrace reader on arbitrary bytes, and the writer on
 * what it reads.  Whatever the reader accepts, the writer must write so
 * that it reads back as the same instructions (EA and word). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/qtrace.h"

#define MAX_RECS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t ea[MAX_RECS];
	static uint32_t insn[MAX_RECS];
	tk_qt_reader *r;
	if (tk_qt_reader_open_mem(data, size, "fuzz.qt", NULL, &r) < 0)
		return 0;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	tk_qt_writer *w = NULL;
	if (!fp || tk_qt_writer_new(fp, 0, &w) < 0)
		abort();
	tk_qt_record rec;
	size_t n = 0;
	while (n < MAX_RECS && tk_qt_reader_next(r, &rec) > 0) {
		ea[n] = rec.ea;
		insn[n] = rec.insn;
		n++;
		if (tk_qt_writer_add(w, &rec) < 0)
			abort();	/* a record the reader made must be writable */
	}
	(void)tk_qt_reader_error(r);
	tk_qt_reader_free(r);
	if (tk_qt_writer_finish(w) < 0)
		abort();
	tk_qt_writer_free(w);
	fclose(fp);
	if (n) {
		if (tk_qt_reader_open_mem(out, outlen, "again.qt", NULL, &r) < 0)
			abort();
		for (size_t i = 0; i < n; i++)
			if (tk_qt_reader_next(r, &rec) != 1 || rec.ea != ea[i] || rec.insn != insn[i])
				abort();
		tk_qt_reader_free(r);
	}
	free(out);
	return 0;
}
