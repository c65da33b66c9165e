/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: loading an ELF image and its DWARF; reading its bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dw_impl.h"
#include "tracekit/error.h"

void tk_dw_report(tk_dwarf *d, tk_diag_level level, const char *fmt, ...)
{
	if (level == TK_DIAG_ERROR)
		d->errors++;
	if (!d->diag)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag diag = {level, d->path, 0, msg, false, 0};
	d->diag(d->diag_ctx, &diag);
}

static dw_sec *find_section(const tk_dwarf *d, const char *name)
{
	for (size_t i = 1; i < d->nsecs; i++)
		if (d->secs[i].name && !strcmp(d->secs[i].name, name))
			return &d->secs[i];
	return NULL;
}

int tk_dw_section_data(tk_dwarf *d, const char *name, const uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	dw_sec *s = find_section(d, name);
	if (!s || s->type == SHT_NOBITS)
		return TK_ERR_NOTFOUND;
	if (s->flags & SHF_COMPRESSED) {
		if (elf_compress(s->scn, 0, 0) < 0) {
			tk_dw_report(d, TK_DIAG_ERROR, "%s: cannot decompress the section: %s", name,
				     elf_errmsg(-1));
			return TK_ERR_CORRUPT;
		}
		s->flags &= ~(uint64_t)SHF_COMPRESSED;
	}
	Elf_Data *ed = elf_getdata(s->scn, NULL);
	if (!ed || !ed->d_buf) {
		if (s->size)
			tk_dw_report(d, TK_DIAG_ERROR, "%s: cannot read the section: %s", name,
				     elf_errmsg(-1));
		return ed ? 0 : TK_ERR_CORRUPT;
	}
	*data = ed->d_buf;
	*len = ed->d_size;
	return 0;
}

static int load_sections(tk_dwarf *d)
{
	size_t n, shstrndx;
	if (elf_getshdrnum(d->elf, &n) || elf_getshdrstrndx(d->elf, &shstrndx))
		return TK_ERR_ELF;
	d->secs = calloc(n ? n : 1, sizeof *d->secs);
	if (!d->secs)
		return TK_ERR_NOMEM;
	d->nsecs = n;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		size_t i = elf_ndxscn(scn);
		GElf_Shdr sh;
		if (i >= n || !gelf_getshdr(scn, &sh))
			continue;
		dw_sec *s = &d->secs[i];
		s->name = elf_strptr(d->elf, shstrndx, sh.sh_name);
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->flags = sh.sh_flags;
		s->type = sh.sh_type;
		s->scn = scn;
	}
	return 0;
}

static void open_dwarf(tk_dwarf *d)
{
	d->dbg = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dbg) {
		int e = dwarf_errno();
		if (find_section(d, ".debug_info") || find_section(d, ".debug_line"))
			tk_dw_report(d, TK_DIAG_ERROR, ".debug_info: cannot read the DWARF: %s",
				     dwarf_errmsg(e));
		else
			tk_dw_report(d, TK_DIAG_WARNING,
				     "no DWARF debugging information: function names only, no source lines");
	}
}

int tk_dwarf_open(const char *path, const tk_dwarf_opts *opts, tk_dwarf **out)
{
	*out = NULL;
	if (opts && opts->size < sizeof *opts)
		return TK_ERR_INVAL;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return TK_ERR_ISDIR;
	}
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) {
		close(fd);
		return TK_ERR_EMPTY;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return TK_ERR_ELF;
	}
	tk_dwarf *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(path))) {
		free(d);
		elf_end(elf);
		close(fd);
		return TK_ERR_NOMEM;
	}
	d->fd = fd;
	d->elf = elf;
	d->machine = eh.e_machine;
	d->addr_bytes = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	d->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	d->etype = eh.e_type;
	if (opts) {
		d->diag = opts->diag;
		d->diag_ctx = opts->diag_ctx;
	}
	int rc = load_sections(d);
	if (rc == 0)
		rc = tk_dw_load_symbols(d);
	if (rc == 0) {
		open_dwarf(d);
		if (d->dbg)
			rc = tk_dw_load_units(d);
		tk_dw_check_cfi(d);
	}
	if (rc < 0) {
		tk_dwarf_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void tk_dwarf_free(tk_dwarf *d)
{
	if (!d)
		return;
	tk_dw_free_units(d);
	if (d->cfi_eh)
		dwarf_cfi_end(d->cfi_eh);
	if (d->dbg)
		dwarf_end(d->dbg);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d->secs);
	free(d->fsyms);
	free(d->funcsyms);
	free(d->asyms);
	free(d->locs);
	free(d->cfi_bad);
	free(d->path);
	free(d);
}

unsigned tk_dwarf_addr_bytes(const tk_dwarf *d)
{
	return d->addr_bytes;
}

unsigned tk_dwarf_machine(const tk_dwarf *d)
{
	return d->machine;
}

bool tk_dwarf_big_endian(const tk_dwarf *d)
{
	return d->big_endian;
}

bool tk_dwarf_has_lines(const tk_dwarf *d)
{
	return d->has_lines;
}

unsigned tk_dwarf_error_count(const tk_dwarf *d)
{
	return d->errors;
}

int tk_dwarf_read(const tk_dwarf *d, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	while (len) {
		const dw_sec *hit = NULL;
		for (size_t i = 1; i < d->nsecs; i++) {
			const dw_sec *s = &d->secs[i];
			if ((s->flags & SHF_ALLOC) && s->type != SHT_NOBITS && addr >= s->addr &&
			    addr - s->addr < s->size) {
				hit = s;
				break;
			}
		}
		if (!hit || (hit->flags & SHF_COMPRESSED))
			return TK_ERR_NOTFOUND;
		Elf_Data *ed = elf_getdata(hit->scn, NULL);
		uint64_t off = addr - hit->addr;
		if (!ed || !ed->d_buf || off >= ed->d_size)
			return TK_ERR_NOTFOUND;
		size_t n = ed->d_size - off < len ? (size_t)(ed->d_size - off) : len;
		memcpy(out, (const uint8_t *)ed->d_buf + off, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}
