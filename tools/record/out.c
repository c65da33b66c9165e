/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: buffered trace output.
 *
 * Lines are assembled straight into one large buffer with hand-written
 * number formatting (printf would cost more than the emulation); the
 * current time prefix "N clk " is kept as text and incremented in place.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define OUT_CAP (4u << 20)

char rec_hex_lower[512], rec_hex_upper[512];

static void hex_tables(void)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	for (int b = 0; b < 256; b++) {
		rec_hex_lower[2 * b] = lo[b >> 4];
		rec_hex_lower[2 * b + 1] = lo[b & 15];
		rec_hex_upper[2 * b] = up[b >> 4];
		rec_hex_upper[2 * b + 1] = up[b & 15];
	}
}

int rec_out_init(rec_out *o, FILE *fp)
{
	hex_tables();
	memset(o, 0, sizeof *o);
	o->fp = fp;
	o->cap = OUT_CAP;
	o->buf = malloc(o->cap);
	if (!o->buf)
		return -1;
	rec_out_set_time(o, 0);
	return 0;
}

void rec_out_flush(rec_out *o)
{
	if (o->len && !o->failed && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->failed = true;
	o->written += o->len;
	o->len = 0;
}

void rec_out_free(rec_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

char *rec_put_dec(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

void rec_out_set_time(rec_out *o, uint64_t n)
{
	o->count = n;
	char *p = rec_put_dec(o->ts, n);
	memcpy(p, " clk ", 5);
	o->tslen = (int)(p - o->ts) + 5;
}

void rec_out_tick(rec_out *o)
{
	o->count++;
	int i = o->tslen - 6;	/* last digit */
	while (i >= 0 && o->ts[i] == '9')
		o->ts[i--] = '0';
	if (i >= 0) {
		o->ts[i]++;
		return;
	}
	rec_out_set_time(o, o->count);	/* one more digit */
}
