/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the trace linker's tables read back from a linked ELF image:
 * the trace buffer's symbols and the names, signatures and real-function
 * tables the generated wrapper file defines.  Memory is read from the
 * PT_LOAD segments (bytes past a segment's file size are zero). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracekit/error.h"
#include "tracekit/tld_dump.h"

#define MAX_STRING 4096

struct image_reader {
	Elf *elf;
	const uint8_t *raw;
	size_t rawlen;
	bool big;
	unsigned psize;
	tk_diag_fn diag;
	void *ctx;
	const char *path;
};

static void report(struct image_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct image_reader *r, const char *fmt, ...)
{
	if (!r->diag)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag d = {TK_DIAG_ERROR, r->path, 0, msg, false, 0};
	r->diag(r->ctx, &d);
}

/* Copy n bytes at virtual address addr; false if not all are in a
 * loaded segment. */
static bool read_mem(struct image_reader *r, uint64_t addr, void *out, size_t n)
{
	size_t phnum;
	if (elf_getphdrnum(r->elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(r->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || addr - ph.p_vaddr > ph.p_memsz ||
		    n > ph.p_memsz - (addr - ph.p_vaddr))
			continue;
		uint64_t off = addr - ph.p_vaddr;
		for (size_t k = 0; k < n; k++) {
			uint64_t o = off + k;
			uint8_t b = 0;
			if (o < ph.p_filesz) {
				if (ph.p_offset + o >= r->rawlen)
					return false;
				b = r->raw[ph.p_offset + o];
			}
			((uint8_t *)out)[k] = b;
		}
		return true;
	}
	return false;
}

static bool read_uint(struct image_reader *r, uint64_t addr, unsigned size, uint64_t *v)
{
	uint8_t b[8];
	if (!read_mem(r, addr, b, size))
		return false;
	*v = 0;
	for (unsigned i = 0; i < size; i++)
		*v |= (uint64_t)b[r->big ? size - 1 - i : i] << (8 * i);
	return true;
}

static char *read_string(struct image_reader *r, uint64_t addr)
{
	char buf[MAX_STRING + 1];
	size_t n = 0;
	for (; n < MAX_STRING; n++) {
		if (!read_mem(r, addr + n, &buf[n], 1))
			return NULL;
		if (!buf[n])
			return strdup(buf);
	}
	return NULL;
}

/* Address and size of a symbol, or false. */
static bool find_symbol(Elf *elf, const char *name, uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			const char *sn = elf_strptr(elf, sh.sh_link, s.st_name);
			if (sn && !strcmp(sn, name)) {
				*addr = s.st_value;
				*size = s.st_size;
				return true;
			}
		}
	}
	return false;
}

void tk_tld_image_free(tk_tld_image *img)
{
	if (!img)
		return;
	for (uint32_t i = 0; img->funcs && i < img->nfuncs; i++) {
		tk_tld_func *f = &img->funcs[i];
		free((char *)f->name);
		for (uint32_t a = 0; f->types && a < f->argc; a++)
			free((char *)f->types[a]);
		free((void *)f->types);
		free((void *)f->sizes);
	}
	free(img->funcs);
	free(img);
}

static int read_func(struct image_reader *r, tk_tld_image *img, uint32_t i, uint64_t names,
		     uint64_t sigs, uint64_t funcs)
{
	tk_tld_func *f = &img->funcs[i];
	unsigned p = r->psize;
	uint64_t v, args, argc;
	if (!read_uint(r, names + (uint64_t)i * p, p, &v) || !(f->name = read_string(r, v)) ||
	    !read_uint(r, funcs + (uint64_t)i * p, p, &f->addr) ||
	    !read_uint(r, sigs + (uint64_t)i * 2 * p, 4, &argc) ||
	    !read_uint(r, sigs + (uint64_t)i * 2 * p + p, p, &args) || argc < 1 || argc > 4096) {
		report(r, "the trace linker's tables: entry %u cannot be read", i);
		return TK_ERR_CORRUPT;
	}
	if (img->machine == 40)
		f->addr &= ~(uint64_t)1;	/* the Thumb bit */
	uint32_t *sizes = calloc(argc, sizeof *sizes);
	const char **types = calloc(argc, sizeof *types);
	f->sizes = sizes;
	f->types = types;
	if (!sizes || !types)
		return TK_ERR_NOMEM;
	f->argc = (uint32_t)argc;
	for (uint32_t a = 0; a < argc; a++) {
		uint64_t size, type;
		if (!read_uint(r, args + (uint64_t)a * 2 * p, 4, &size) ||
		    !read_uint(r, args + (uint64_t)a * 2 * p + p, p, &type) ||
		    !(types[a] = read_string(r, type))) {
			report(r, "the signature of %s cannot be read", f->name);
			return TK_ERR_CORRUPT;
		}
		sizes[a] = (uint32_t)size;
	}
	return 0;
}

static int load(struct image_reader *r, tk_tld_image *img)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(r->elf, &eh)) {
		report(r, "not an ELF file");
		return TK_ERR_ELF;
	}
	r->big = img->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	r->psize = img->pointer_size = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	img->machine = eh.e_machine;
	static const char *const needed[] = {
		"__rtld_tbg_buffer", "__rtld_tbg_buffer_in", "__rtld_tbg_finished",
		"__rtld_tbg_triggered", "__rtld_tbg_mode", "__rtld_trace_names_size",
		"__rtld_trace_names", "__rtld_trace_signatures", "__rtld_trace_funcs",
	};
	uint64_t addr[9], size[9];
	for (int i = 0; i < 9; i++)
		if (!find_symbol(r->elf, needed[i], &addr[i], &size[i])) {
			report(r, "no symbol %s: not linked by tracekit tld with the trace-buffer "
				  "generator (and names and signatures)", needed[i]);
			return TK_ERR_NOTFOUND;
		}
	uint64_t v;
	img->buffer_addr = addr[0];
	img->capacity_words = (uint32_t)(size[0] / 4);
	img->in_addr = addr[1];
	img->finished_addr = addr[2];
	img->triggered_addr = addr[3];
	if (read_uint(r, addr[4], 4, &v))
		img->mode = (uint32_t)v;
	if (!read_uint(r, addr[5], 4, &v) || v > 65536) {
		report(r, "__rtld_trace_names_size cannot be read");
		return TK_ERR_CORRUPT;
	}
	img->funcs = calloc(v ? v : 1, sizeof *img->funcs);
	if (!img->funcs)
		return TK_ERR_NOMEM;
	img->nfuncs = (uint32_t)v;
	for (uint32_t i = 0; i < img->nfuncs; i++) {
		int rc = read_func(r, img, i, addr[6], addr[7], addr[8]);
		if (rc)
			return rc;
	}
	return 0;
}

int tk_tld_image_load(const char *path, tk_diag_fn diag, void *diag_ctx, tk_tld_image **out)
{
	*out = NULL;
	struct image_reader r = {.diag = diag, .ctx = diag_ctx, .path = path};
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		report(&r, "%s", strerror(errno));
		return TK_ERR_OPEN;
	}
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!r.elf || elf_kind(r.elf) != ELF_K_ELF) {
		report(&r, "not an ELF file");
		if (r.elf)
			elf_end(r.elf);
		close(fd);
		return TK_ERR_ELF;
	}
	r.raw = (const uint8_t *)elf_rawfile(r.elf, &r.rawlen);
	tk_tld_image *img = calloc(1, sizeof *img);
	int rc = img ? load(&r, img) : TK_ERR_NOMEM;
	elf_end(r.elf);
	close(fd);
	if (rc) {
		tk_tld_image_free(img);
		return rc;
	}
	img->size = sizeof *img;
	*out = img;
	return 0;
}
