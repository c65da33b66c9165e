/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: writing a trace-buffer dump file (tld-extract, tests).  The
 * layout is the one the generated target code writes (docs/TLD.md). */
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tld_dump.h"

struct out {
	FILE *fp;
	bool big;
	uint64_t n;	/* bytes written */
};

static void put(struct out *o, const void *p, size_t n)
{
	fwrite(p, 1, n, o->fp);
	o->n += n;
}

static void put_uint(struct out *o, uint64_t v, unsigned size)
{
	uint8_t b[8];
	for (unsigned i = 0; i < size; i++)
		b[o->big ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
	put(o, b, size);
}

static void put_string(struct out *o, const char *s)
{
	size_t n = strlen(s);
	put_uint(o, n, 4);
	put(o, s, n + 1);
}

int tk_tld_dump_write(FILE *fp, const tk_tld_dump_info *info, const tk_tld_func *funcs,
		      uint32_t nfuncs, const void *buffer)
{
	if ((info->pointer_size != 4 && info->pointer_size != 8) || nfuncs > 65536)
		return TK_ERR_INVAL;
	for (uint32_t i = 0; i < nfuncs; i++)
		if (!funcs[i].name || !*funcs[i].name || funcs[i].argc < 1)
			return TK_ERR_INVAL;
	struct out o = {fp, info->big_endian, 0};
	put(&o, TK_TLD_DUMP_MAGIC, 8);
	put_uint(&o, 0x11223344u, 4);
	put_uint(&o, TK_TLD_DUMP_VERSION, 2);
	put_uint(&o, info->pointer_size, 1);
	put_uint(&o, info->clock, 1);
	put_uint(&o, info->machine, 2);
	put_uint(&o, (info->finished ? 1u : 0u) | (info->triggered ? 2u : 0u), 2);
	put_uint(&o, info->mode, 4);
	put_uint(&o, info->clock_hz, 8);
	put_uint(&o, nfuncs, 4);
	put_uint(&o, info->capacity_words, 4);
	put_uint(&o, info->used_words, 4);
	put_uint(&o, 48, 4);
	for (uint32_t i = 0; i < nfuncs; i++) {
		const tk_tld_func *f = &funcs[i];
		put_uint(&o, f->addr, info->pointer_size);
		put_string(&o, f->name);
		put_uint(&o, f->argc, 4);
		for (uint32_t a = 0; a < f->argc; a++) {
			put_uint(&o, f->sizes[a], 4);
			put_string(&o, f->types[a]);
		}
	}
	static const uint8_t zero[4];
	put(&o, zero, (4 - o.n % 4) % 4);
	if (info->used_words)
		put(&o, buffer, (size_t)info->used_words * 4);
	return ferror(fp) ? TK_ERR_IO : 0;
}
