/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for the trace-buffer dump and `rtrace save`
 * readers.
 *
 * The first input byte picks how the rest is read: as is, or behind a
 * dump or rtrace magic and byte-order mark (so mutations reach the tables
 * and records quickly).  Every record is read to the end or to the error;
 * every byte a record points at is read, so the sanitizers see overreads;
 * values must fit their sizes and lie inside the input.  The same bytes
 * then go through the "tld" trace source (tk_source, as every report
 * tool reads them): events in record order, at most one closing gap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/source.h"
#include "tracekit/tld_dump.h"

static volatile unsigned sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		sink += c[i];
}

static void run(const uint8_t *data, size_t len)
{
	tk_tld_dump *d;
	if (tk_tld_dump_open_mem(data, len, "fuzz", NULL, &d) != 0)
		return;
	const tk_tld_dump_info *in = tk_tld_dump_get_info(d);
	for (uint32_t i = 0; i < in->nfuncs; i++) {
		const tk_tld_func *f = tk_tld_dump_func(d, i);
		touch(f->name, strlen(f->name));
		for (uint32_t a = 0; a < f->argc; a++)
			touch(f->types[a], strlen(f->types[a]));
	}
	tk_tld_record r;
	uint64_t n = 0, first = 0;
	int rc;
	while ((rc = tk_tld_dump_next(d, &r)) == 1) {
		if (r.number != ++n || r.offset >= len || r.func >= in->nfuncs)
			abort();
		if (n == 1)
			first = r.offset;
		touch(r.name, r.name_len);
		for (uint32_t v = 0; v < r.nvalues; v++) {
			const tk_tld_value *x = &r.values[v];
			if (x->avail > x->size || (x->avail && (x->bytes < data || x->bytes + x->avail > data + len)))
				abort();
			touch(x->bytes, x->avail);
			touch(x->type, strlen(x->type));
		}
	}
	if (rc > 0 || (rc < 0 && rc != TK_ERR_CORRUPT && rc != TK_ERR_EOF))
		abort();
	if (tk_tld_dump_next(d, &r) != 0)
		abort();
	if (n && tk_tld_dump_seek(d, first, 1) == 0 && tk_tld_dump_next(d, &r) != 1)
		abort();
	touch(tk_tld_dump_error(d), strlen(tk_tld_dump_error(d)));
	tk_tld_dump_free(d);
}

/* The trace source over the same bytes (read from memory, as from a
 * stream). */
static void run_source(const uint8_t *data, size_t len)
{
	const tk_source_format *fmt = tk_source_format_find("tld");
	tk_input *in;
	tk_source *src;
	if (!fmt || tk_input_open_memory(data, len, "fuzz", NULL, &in) != 0)
		return;
	if (fmt->open_stream(in, NULL, 0, "fuzz", NULL, &src) != 0)
		return;
	tk_event ev;
	uint64_t line = 0, gaps = 0;
	int rc;
	while ((rc = tk_source_next(src, &ev)) == 1) {
		if (ev.kind == TK_EV_GAP) {
			gaps++;
			touch(ev.u.gap.msg, ev.u.gap.msg_len);
			continue;
		}
		if ((ev.kind != TK_EV_CALL && ev.kind != TK_EV_RETURN) || gaps || ev.line != ++line)
			abort();
		touch(ev.u.func.name, ev.u.func.name_len);
		for (uint32_t v = 0; v < ev.u.func.nvalues; v++) {
			const tk_value *x = &ev.u.func.values[v];
			touch(x->type, x->type_len);
			touch(x->bytes, x->size);	/* a copy of data: ASan checks it */
		}
	}
	if (rc != 0 || gaps > 1 || tk_source_next(src, &ev) != 0)
		abort();
	tk_source_free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (len == 0)
		return 0;
	unsigned mode = data[0] % 4;
	data++;
	len--;
	if (mode < 2) {
		run(data, len);
		run_source(data, len);
		return 0;
	}
	static const uint8_t dump[12] = {'T', 'K', 'T', 'L', 'D', 'U', 'M', 'P', 0x44, 0x33, 0x22, 0x11};
	static const uint8_t rtrace[16] = {'R', 'T', 'E', 'M', 'S', '-', 'T', 'R', 'A', 'C', 'E', 0,
					   0x44, 0x33, 0x22, 0x11};
	const uint8_t *head = mode == 2 ? dump : rtrace;
	size_t hlen = mode == 2 ? sizeof dump : sizeof rtrace;
	uint8_t *buf = malloc(hlen + len);
	if (!buf)
		return 0;
	memcpy(buf, head, hlen);
	memcpy(buf + hlen, data, len);
	run(buf, hlen + len);
	run_source(buf, hlen + len);
	free(buf);
	return 0;
}
