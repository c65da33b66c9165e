/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: opening a trace-buffer dump or an `rtrace save` file: mapping
 * it, telling the two apart, the function tables they share. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tld/dump_impl.h"
#include "tracekit/error.h"

#define MAX_ARGC 4096
#define MAX_TYPE 4096
#define MAX_VALUE (1u << 24)

static bool host_big_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

uint32_t tk_tld_rd32(const tk_tld_dump *d, uint64_t off)
{
	uint32_t v;
	memcpy(&v, d->data + off, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

uint64_t tk_tld_rd64(const tk_tld_dump *d, uint64_t off)
{
	uint64_t v;
	memcpy(&v, d->data + off, 8);
	return d->swap ? __builtin_bswap64(v) : v;
}

void tk_tld_dump_report(tk_tld_dump *d, tk_diag_level level, uint64_t offset,
			const char *fmt, ...)
{
	int n = snprintf(d->err, sizeof d->err, "byte offset %llu: ", (unsigned long long)offset);
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof d->err)
		vsnprintf(d->err + n, sizeof d->err - (size_t)n, fmt, ap);
	va_end(ap);
	if (d->opts.diag) {
		tk_diag diag = {level, d->name, 0, d->err, false, 0};
		d->opts.diag(d->opts.diag_ctx, &diag);
	}
}

int tk_tld_probe(const void *head, size_t len)
{
	if (len >= 8 && !memcmp(head, TK_TLD_DUMP_MAGIC, 8))
		return 100;
	if (len >= 12 && !memcmp(head, TK_TLD_RTRACE_MAGIC, 12))
		return 100;
	return 0;
}

const char *tk_tld_parse_string(tk_tld_dump *d, uint64_t *off, size_t max, size_t *len,
				const char *what, int *err)
{
	if (*off >= d->len) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, *off, "the file ends before %s", what);
		*err = TK_ERR_EOF;
		return NULL;
	}
	size_t room = d->len - *off < max + 1 ? d->len - *off : max + 1;
	const uint8_t *nul = memchr(d->data + *off, 0, room);
	if (!nul) {
		bool cut = room <= max;
		tk_tld_dump_report(d, TK_DIAG_ERROR, *off, "%s: %s", what,
				   cut ? "the file ends inside it" : "longer than allowed");
		*err = cut ? TK_ERR_EOF : TK_ERR_CORRUPT;
		return NULL;
	}
	const char *s = (const char *)d->data + *off;
	*len = (size_t)(nul - (d->data + *off));
	*off += *len + 1;
	return s;
}

int tk_tld_parse_sig(tk_tld_dump *d, struct dump_func *f, uint64_t *off, bool typed_len)
{
	if (d->len - *off < 4) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, *off, "%s: the file ends in its signature",
				   f->pub.name);
		return TK_ERR_EOF;
	}
	uint32_t argc = tk_tld_rd32(d, *off);
	if (argc < 1 || argc > MAX_ARGC) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, *off,
				   "%s: %u signature entries (expected 1 to %u)", f->pub.name, argc,
				   MAX_ARGC);
		return TK_ERR_CORRUPT;
	}
	*off += 4;
	f->sizes = calloc(argc, sizeof *f->sizes);
	f->types = calloc(argc, sizeof *f->types);
	if (!f->sizes || !f->types)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < argc; i++) {
		uint64_t at = *off;
		if (d->len - *off < (typed_len ? 8u : 4u)) {
			tk_tld_dump_report(d, TK_DIAG_ERROR, *off, "%s: the file ends in its signature",
					   f->pub.name);
			return TK_ERR_EOF;
		}
		uint32_t size = tk_tld_rd32(d, *off);
		*off += 4;
		uint32_t tlen = 0;
		if (typed_len) {
			tlen = tk_tld_rd32(d, *off);
			*off += 4;
			if (tlen > MAX_TYPE) {
				tk_tld_dump_report(d, TK_DIAG_ERROR, at, "%s: type %u: %u bytes long",
						   f->pub.name, i, tlen);
				return TK_ERR_CORRUPT;
			}
		}
		size_t len;
		uint64_t tat = *off;
		int err;
		const char *type = tk_tld_parse_string(d, off, MAX_TYPE, &len, "a type name", &err);
		if (!type)
			return err;
		if (typed_len && len != tlen) {
			tk_tld_dump_report(d, TK_DIAG_ERROR, tat,
					   "%s: type %u is %zu bytes long, its length says %u",
					   f->pub.name, i, len, tlen);
			return TK_ERR_CORRUPT;
		}
		if (size > MAX_VALUE) {
			tk_tld_dump_report(d, TK_DIAG_ERROR, at, "%s: a value of %u bytes",
					   f->pub.name, size);
			return TK_ERR_CORRUPT;
		}
		f->sizes[i] = size;
		f->types[i] = type;
	}
	f->pub.argc = argc;
	f->pub.sizes = f->sizes;
	f->pub.types = f->types;
	/* Entry 0 is the return value; a lone {0, "void"} parameter: none. */
	f->has_ret = strcmp(f->types[0], "void") != 0;
	f->ret_size = f->has_ret ? f->sizes[0] : 0;
	f->nargs = argc - 1;
	if (argc == 2 && !strcmp(f->types[1], "void"))
		f->nargs = 0;
	f->entry_values = calloc(f->nargs ? f->nargs : 1, sizeof *f->entry_values);
	if (!f->entry_values)
		return TK_ERR_NOMEM;
	f->entry_size = 0;
	for (uint32_t i = 0; i < f->nargs; i++) {
		f->entry_values[i].type = f->types[i + 1];
		f->entry_values[i].size = f->sizes[i + 1];
		f->entry_size += f->sizes[i + 1];
	}
	f->exit_value.type = f->types[0];
	f->exit_value.size = (uint32_t)f->ret_size;
	return 0;
}

static void free_funcs(tk_tld_dump *d)
{
	if (!d->funcs)
		return;
	for (uint32_t i = 0; i < d->info.nfuncs; i++) {
		free(d->funcs[i].sizes);
		free(d->funcs[i].types);
		free(d->funcs[i].entry_values);
	}
	free(d->funcs);
	d->funcs = NULL;
}

void tk_tld_dump_free(tk_tld_dump *d)
{
	if (!d)
		return;
	free_funcs(d);
	if (d->mapped)
		munmap((void *)d->data, d->len);
	else if (d->owned)
		free((void *)d->data);
	free(d->threads);
	free(d->name);
	free(d);
}

static int open_data(tk_tld_dump *d)
{
	d->info.size = sizeof d->info;
	d->info.file_size = d->len;
	if (d->len == 0) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, 0, "empty file");
		return TK_ERR_EMPTY;
	}
	uint64_t bom_at;
	if (d->len >= 8 && !memcmp(d->data, TK_TLD_DUMP_MAGIC, 8)) {
		d->info.kind = TK_TLD_FILE_DUMP;
		bom_at = 8;
	} else if (d->len >= 12 && !memcmp(d->data, TK_TLD_RTRACE_MAGIC, 12)) {
		d->info.kind = TK_TLD_FILE_RTRACE;
		bom_at = 12;
	} else {
		bool prefix = !memcmp(d->data, TK_TLD_DUMP_MAGIC, d->len < 8 ? d->len : 8) ||
			      !memcmp(d->data, TK_TLD_RTRACE_MAGIC, d->len < 12 ? d->len : 12);
		tk_tld_dump_report(d, TK_DIAG_ERROR, 0, "%s", prefix
					   ? "the file ends inside the magic number"
					   : "not a trace-buffer dump (no " TK_TLD_DUMP_MAGIC
					     " or " TK_TLD_RTRACE_MAGIC " magic)");
		return prefix ? TK_ERR_EOF : TK_ERR_FORMAT;
	}
	if (d->len < bom_at + 4) {
		tk_tld_dump_report(d, TK_DIAG_ERROR, bom_at, "the file ends in the header");
		return TK_ERR_EOF;
	}
	uint32_t bom;
	memcpy(&bom, d->data + bom_at, 4);
	if (bom == 0x11223344u)
		d->swap = false;
	else if (bom == 0x44332211u)
		d->swap = true;
	else {
		tk_tld_dump_report(d, TK_DIAG_ERROR, bom_at,
				   "byte-order mark 0x%08x is not 0x11223344 in either order", bom);
		return TK_ERR_CORRUPT;
	}
	d->info.big_endian = host_big_endian() != d->swap;
	int rc = d->info.kind == TK_TLD_FILE_DUMP ? tk_tld_parse_dump_header(d)
						    : tk_tld_parse_rtrace_header(d);
	if (rc)
		return rc;
	/* Addresses by name from the image, where the file has none. */
	bool warned = false;
	for (uint32_t i = 0; i < d->info.nfuncs; i++) {
		tk_tld_func *f = &d->funcs[i].pub;
		if (f->addr || !d->opts.symtab)
			continue;
		const tk_symbol *s = tk_symtab_find(d->opts.symtab, f->name);
		if (s)
			f->addr = s->addr;
		else if (!warned) {
			tk_tld_dump_report(d, TK_DIAG_WARNING, 0,
					   "function %s is not in the image: its address is 0", f->name);
			warned = true;
		}
	}
	if (d->info.kind == TK_TLD_FILE_RTRACE && !d->opts.symtab && d->info.nfuncs)
		tk_tld_dump_report(d, TK_DIAG_NOTE, 0,
				   "an rtrace file has no addresses: give the image (--image) for them");
	return 0;
}

static int init(const char *name, const tk_tld_dump_opts *opts, tk_tld_dump **out)
{
	*out = NULL;
	tk_tld_dump *d = calloc(1, sizeof *d);
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return TK_ERR_NOMEM;
	}
	if (opts) {
		size_t n = opts->size && opts->size < sizeof d->opts ? opts->size : sizeof d->opts;
		memcpy(&d->opts, opts, n);
	}
	*out = d;
	return 0;
}

int tk_tld_dump_open_mem(const void *data, size_t len, const char *name,
			 const tk_tld_dump_opts *opts, tk_tld_dump **out)
{
	tk_tld_dump *d;
	int rc = init(name, opts, &d);
	if (rc)
		return rc;
	d->data = data;
	d->len = len;
	if ((rc = open_data(d))) {
		tk_tld_dump_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* Standard input or a file that cannot be mapped: read it all. */
static int read_all(int fd, tk_tld_dump *d)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return TK_ERR_NOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return TK_ERR_NOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return TK_ERR_IO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	d->data = buf;
	d->len = n;
	d->owned = true;
	return 0;
}

int tk_tld_dump_open(const char *path, const tk_tld_dump_opts *opts, tk_tld_dump **out)
{
	bool std_in = !strcmp(path, "-");
	tk_tld_dump *d;
	int rc = init(std_in ? "<stdin>" : path, opts, &d);
	if (rc)
		return rc;
	int fd = std_in ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = TK_ERR_OPEN;
	} else if (S_ISDIR(st.st_mode)) {
		rc = TK_ERR_ISDIR;
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			rc = read_all(fd, d);
		} else {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			d->data = m;
			d->len = (size_t)st.st_size;
			d->mapped = true;
		}
	} else {
		rc = read_all(fd, d);
	}
	if (fd > 0)
		close(fd);
	if (rc) {
		int e = errno;
		if (d->opts.diag) {
			snprintf(d->err, sizeof d->err, "%s",
				 rc == TK_ERR_ISDIR ? "is a directory" : strerror(e));
			tk_diag diag = {TK_DIAG_ERROR, d->name, 0, d->err, false, 0};
			d->opts.diag(d->opts.diag_ctx, &diag);
		}
		tk_tld_dump_free(d);
		return rc;
	}
	if ((rc = open_data(d))) {
		tk_tld_dump_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

const tk_tld_dump_info *tk_tld_dump_get_info(const tk_tld_dump *d)
{
	return &d->info;
}

const tk_tld_func *tk_tld_dump_func(const tk_tld_dump *d, uint32_t i)
{
	return i < d->info.nfuncs ? &d->funcs[i].pub : NULL;
}

const char *tk_tld_dump_error(const tk_tld_dump *d)
{
	return d->err;
}

uint64_t tk_tld_dump_pos(const tk_tld_dump *d)
{
	return d->pos;
}
