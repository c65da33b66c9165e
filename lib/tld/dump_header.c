/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the headers and function tables of the dump file and of the
 * `rtrace save` file (layouts in docs/TLD.md). */
#include <stdlib.h>
#include <string.h>

#include "tld/dump_impl.h"
#include "tracekit/error.h"

#define DUMP_HEADER_SIZE 48
#define MAX_FUNCS 65536	/* the record header has 16 bits of function index */
#define MAX_NAME 4096

enum { EM_ARM_ = 40 };

static int alloc_funcs(tk_tld_dump *d, uint32_t n, uint64_t at)
{
	if (n > MAX_FUNCS) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, at, "%u functions (at most %u)", n, MAX_FUNCS);
		return TK_ERR_CORRUPT;
	}
	d->funcs = calloc(n ? n : 1, sizeof *d->funcs);
	if (!d->funcs)
		return TK_ERR_NOMEM;
	d->info.nfuncs = n;
	return 0;
}

static int ends_in(tk_tld_dump *d, uint64_t at, const char *what)
{
	tk_tld_dump_report(d, TK_DIAG_ERROR, at, "the file ends in %s", what);
	return TK_ERR_EOF;
}

int tk_tld_parse_dump_header(tk_tld_dump *d)
{
	if (d->len < DUMP_HEADER_SIZE)
		return ends_in(d, d->len, "the 48-byte header");
	tk_tld_dump_info *in = &d->info;
	uint16_t version, machine, flags;
	memcpy(&version, d->data + 12, 2);
	memcpy(&machine, d->data + 16, 2);
	memcpy(&flags, d->data + 18, 2);
	if (d->swap) {
		version = __builtin_bswap16(version);
		machine = __builtin_bswap16(machine);
		flags = __builtin_bswap16(flags);
	}
	in->version = version;
	if (version != TK_TLD_DUMP_VERSION) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, 12,
				   "dump format version %u (this tracekit reads version %u)", version,
				   TK_TLD_DUMP_VERSION);
		return version > TK_TLD_DUMP_VERSION ? TK_ERR_UNSUPPORTED : TK_ERR_CORRUPT;
	}
	in->pointer_size = d->data[14];
	if (in->pointer_size != 4 && in->pointer_size != 8) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, 14, "pointer size %u (expected 4 or 8)",
				   in->pointer_size);
		return TK_ERR_CORRUPT;
	}
	unsigned clock = d->data[15];
	if (clock > TK_TLD_CLOCK_TRACE) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, 15, "clock kind %u (expected 0 to 3)", clock);
		return TK_ERR_CORRUPT;
	}
	in->clock = (tk_tld_clock)clock;
	in->machine = machine;
	in->finished = flags & 1;
	in->triggered = (flags >> 1) & 1;
	in->mode = tk_tld_rd32(d, 20);
	in->clock_hz = tk_tld_rd64(d, 24);
	uint32_t nfuncs = tk_tld_rd32(d, 32);
	in->capacity_words = tk_tld_rd32(d, 36);
	in->used_words = tk_tld_rd32(d, 40);
	uint32_t table = tk_tld_rd32(d, 44);
	if (table < DUMP_HEADER_SIZE || table > d->len) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, 44, "function table at %u (file of %zu bytes)",
				   table, d->len);
		return table > d->len ? TK_ERR_EOF : TK_ERR_CORRUPT;
	}
	if (in->used_words > in->capacity_words)
		tk_tld_dump_report(d, TK_DIAG_WARNING, 40,
				   "%u words used of a buffer of %u words", in->used_words,
				   in->capacity_words);
	int rc = alloc_funcs(d, nfuncs, 32);
	if (rc)
		return rc;

	uint64_t off = table;
	for (uint32_t i = 0; i < nfuncs; i++) {
		struct dump_func *f = &d->funcs[i];
		uint64_t at = off;
		if (d->len - off < in->pointer_size + 8u)
			return ends_in(d, off, "the function table");
		f->pub.addr = in->pointer_size == 8 ? tk_tld_rd64(d, off) : tk_tld_rd32(d, off);
		if (machine == EM_ARM_)
			f->pub.addr &= ~(uint64_t)1;	/* the Thumb bit */
		off += in->pointer_size;
		uint32_t name_len = tk_tld_rd32(d, off);
		off += 4;
		if (name_len == 0 || name_len > MAX_NAME) {
			tk_tld_dump_report(d, TK_DIAG_ERROR, at, "function %u: a name of %u bytes", i,
					   name_len);
			return TK_ERR_CORRUPT;
		}
		size_t len;
		uint64_t nat = off;
		int err;
		f->pub.name = tk_tld_parse_string(d, &off, MAX_NAME, &len, "a function name", &err);
		if (!f->pub.name)
			return err;
		if (len != name_len) {
			tk_tld_dump_report(d, TK_DIAG_ERROR, nat,
					   "function %u: its name is %zu bytes long, its length says %u",
					   i, len, name_len);
			return TK_ERR_CORRUPT;
		}
		f->name_len = len;
		rc = tk_tld_parse_sig(d, f, &off, true);
		if (rc)
			return rc;
	}
	off = (off + 3) & ~(uint64_t)3;
	in->buffer_offset = off;
	d->pos = off;
	d->declared_end = off + (uint64_t)in->used_words * 4;
	if (off > d->len)
		return ends_in(d, d->len, "the padding after the function table");
	if (d->declared_end < d->len)
		tk_tld_dump_report(d, TK_DIAG_WARNING, d->declared_end,
				   "%llu bytes after the %u words of records: ignored",
				   (unsigned long long)(d->len - d->declared_end), in->used_words);
	return 0;
}

int tk_tld_parse_rtrace_header(tk_tld_dump *d)
{
	uint64_t off = 16;
	if (d->len < off + 4)
		return ends_in(d, d->len, "the header");
	tk_tld_dump_info *in = &d->info;
	in->clock = TK_TLD_CLOCK_NS;
	in->clock_hz = 1000000000;
	if (d->opts.symtab)
		in->machine = tk_symtab_machine(d->opts.symtab);
	uint32_t nfuncs = tk_tld_rd32(d, off);
	int rc = alloc_funcs(d, nfuncs, off);
	if (rc)
		return rc;
	off += 4;
	for (uint32_t i = 0; i < nfuncs; i++) {
		size_t len;
		int err;
		const char *name = tk_tld_parse_string(d, &off, MAX_NAME, &len, "a function name", &err);
		if (!name)
			return err;
		d->funcs[i].pub.name = name;
		d->funcs[i].name_len = len;
	}
	for (uint32_t i = 0; i < nfuncs; i++)
		if ((rc = tk_tld_parse_sig(d, &d->funcs[i], &off, false)))
			return rc;
	/* The records follow, to the end of the file. */
	in->buffer_offset = off;
	d->pos = off;
	uint64_t words = (d->len - off) / 4;
	in->capacity_words = in->used_words = (uint32_t)(words > UINT32_MAX ? UINT32_MAX : words);
	d->declared_end = off + (uint64_t)in->used_words * 4;
	if ((d->len - off) % 4)
		tk_tld_dump_report(d, TK_DIAG_WARNING, d->declared_end,
				   "%llu bytes after the last whole word: ignored",
				   (unsigned long long)((d->len - off) % 4));
	return 0;
}
