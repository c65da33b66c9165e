/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: the code images (ELF segments, raw binaries, perf MMAPs), kept
 * as mapped files so that both libipt and the block expansion read them. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_impl.h"

int tk_pt_map_file(tk_pt *pt, const char *path, const struct pt_filemap **out)
{
	for (unsigned i = 0; i < pt->nmaps; i++)
		if (!strcmp(pt->maps[i].path, path)) {
			*out = &pt->maps[i];
			return 0;
		}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return TK_ERR_OPEN;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return TK_ERR_ISDIR;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		close(fd);
		return TK_ERR_EMPTY;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED) {
		errno = e;
		return TK_ERR_OPEN;
	}
	if (pt->nmaps == pt->mapcap) {
		unsigned ncap = pt->mapcap ? pt->mapcap * 2 : 8;
		struct pt_filemap *nm = realloc(pt->maps, ncap * sizeof *nm);
		if (!nm) {
			munmap(m, (size_t)sb.st_size);
			return TK_ERR_NOMEM;
		}
		/* Sections point at the paths, not at the array: fix nothing. */
		pt->maps = nm;
		pt->mapcap = ncap;
	}
	struct pt_filemap *fm = &pt->maps[pt->nmaps];
	fm->path = strdup(path);
	if (!fm->path) {
		munmap(m, (size_t)sb.st_size);
		return TK_ERR_NOMEM;
	}
	fm->map = m;
	fm->len = (size_t)sb.st_size;
	pt->nmaps++;
	*out = fm;
	return 0;
}

int tk_pt_add_section(tk_pt *pt, const struct pt_filemap *fm, uint64_t foff, uint64_t size,
		      uint64_t vaddr)
{
	if (foff >= fm->len)
		return 0;
	if (size > fm->len - foff)
		size = fm->len - foff;
	if (!size || vaddr + size < vaddr)
		return 0;
	if (pt->nsections == pt->seccap) {
		unsigned ncap = pt->seccap ? pt->seccap * 2 : 16;
		struct pt_section *ns = realloc(pt->sections, ncap * sizeof *ns);
		if (!ns)
			return TK_ERR_NOMEM;
		pt->sections = ns;
		pt->seccap = ncap;
	}
	pt->sections[pt->nsections++] = (struct pt_section){
		.vaddr = vaddr, .size = size, .foff = foff,
		.data = (const uint8_t *)fm->map + foff, .path = fm->path};
	return 0;
}

int tk_pt_add_image_info(tk_pt *pt, const char *path, uint64_t bias, uint64_t start,
			 uint64_t end, bool raw)
{
	if (pt->nimages == pt->imgcap) {
		unsigned ncap = pt->imgcap ? pt->imgcap * 2 : 8;
		tk_pt_image_info *ni = realloc(pt->images, ncap * sizeof *ni);
		if (!ni)
			return TK_ERR_NOMEM;
		pt->images = ni;
		pt->imgcap = ncap;
	}
	char *p = strdup(path);
	if (!p)
		return TK_ERR_NOMEM;
	pt->images[pt->nimages++] = (tk_pt_image_info){
		.path = p, .bias = bias, .start = start, .end = end, .raw = raw};
	return 0;
}

void tk_pt_clear_images(tk_pt *pt)
{
	for (unsigned i = 0; i < pt->nimages; i++)
		free((char *)pt->images[i].path);
	pt->nimages = 0;
	pt->nsections = 0;
	/* The file maps stay until tk_pt_free: sections may point into them. */
}

void tk_pt_unmap_files(tk_pt *pt)
{
	for (unsigned i = 0; i < pt->nmaps; i++) {
		munmap(pt->maps[i].map, pt->maps[i].len);
		free(pt->maps[i].path);
	}
	pt->nmaps = 0;
}

/* The loadable segments of an ELF in memory. */
struct elf_segs {
	Elf *elf;
	size_t n;
	GElf_Phdr ph[64];
	unsigned nph;
	uint64_t lowest;
};

static int elf_segments(const struct pt_filemap *fm, struct elf_segs *s)
{
	elf_version(EV_CURRENT);
	s->elf = elf_memory((char *)fm->map, fm->len);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		if (s->elf)
			elf_end(s->elf);
		return TK_ERR_ELF;
	}
	s->nph = 0;
	s->lowest = UINT64_MAX;
	if (elf_getphdrnum(s->elf, &s->n) != 0) {
		elf_end(s->elf);
		return TK_ERR_ELF;
	}
	for (size_t i = 0; i < s->n && s->nph < 64; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(s->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->ph[s->nph++] = ph;
		if (ph.p_vaddr < s->lowest)
			s->lowest = ph.p_vaddr;
	}
	if (!s->nph) {
		elf_end(s->elf);
		return TK_ERR_ELF;
	}
	return 0;
}

uint64_t tk_pt_elf_bias(const struct pt_filemap *fm, uint64_t addr, uint64_t pgoff)
{
	struct elf_segs s;
	if (elf_segments(fm, &s) < 0)
		return 0;
	uint64_t bias = 0;
	for (unsigned i = 0; i < s.nph; i++) {
		const GElf_Phdr *ph = &s.ph[i];
		/* The segment holding pgoff; its page-aligned start. */
		uint64_t align = ph->p_align > 1 ? ph->p_align : 1;
		uint64_t off0 = ph->p_offset & ~(align - 1);
		uint64_t va0 = ph->p_vaddr & ~(align - 1);
		if (pgoff >= off0 && pgoff < ph->p_offset + ph->p_filesz) {
			bias = addr - (va0 + (pgoff - off0));
			break;
		}
	}
	elf_end(s.elf);
	return bias;
}

static int add_elf_segments(tk_pt *pt, const struct pt_filemap *fm, bool at, uint64_t addr)
{
	struct elf_segs s;
	if (elf_segments(fm, &s) < 0)
		return TK_ERR_ELF;
	uint64_t bias = at ? addr - s.lowest : 0, start = UINT64_MAX, end = 0;
	int rc = 0;
	for (unsigned i = 0; i < s.nph && rc == 0; i++) {
		const GElf_Phdr *ph = &s.ph[i];
		if (!ph->p_filesz)
			continue;
		uint64_t va = ph->p_vaddr + bias;
		rc = tk_pt_add_section(pt, fm, ph->p_offset, ph->p_filesz, va);
		if (va < start)
			start = va;
		if (va + ph->p_memsz > end)
			end = va + ph->p_memsz;
	}
	elf_end(s.elf);
	if (rc == 0)
		rc = tk_pt_add_image_info(pt, fm->path, bias, start, end, false);
	return rc;
}

static int user_image_start(tk_pt *pt)
{
	if (!pt->user_images) {
		/* The first image given replaces what MMAP records gave. */
		tk_pt_clear_images(pt);
		pt->user_images = true;
	}
	return 0;
}

static int map_for_user(tk_pt *pt, const char *path, const struct pt_filemap **fm)
{
	user_image_start(pt);
	int rc = tk_pt_map_file(pt, path, fm);
	if (rc == TK_ERR_OPEN)
		tk_pt_set_detail(pt, "%s: cannot open: %s", path, strerror(errno));
	else if (rc == TK_ERR_ISDIR)
		tk_pt_set_detail(pt, "%s: is a directory", path);
	else if (rc == TK_ERR_EMPTY)
		tk_pt_set_detail(pt, "%s: empty or not a regular file", path);
	else if (rc < 0)
		tk_pt_set_detail(pt, "%s: %s", path, tk_strerror(rc));
	return rc;
}

int tk_pt_add_elf(tk_pt *pt, const char *path, bool at, uint64_t addr)
{
	const struct pt_filemap *fm;
	int rc = map_for_user(pt, path, &fm);
	if (rc < 0)
		return rc;
	rc = add_elf_segments(pt, fm, at, addr);
	if (rc == TK_ERR_ELF)
		tk_pt_set_detail(pt, "%s: not an ELF file with loadable segments", path);
	else if (rc < 0)
		tk_pt_set_detail(pt, "%s: %s", path, tk_strerror(rc));
	return rc;
}

int tk_pt_add_raw(tk_pt *pt, const char *path, uint64_t addr)
{
	const struct pt_filemap *fm;
	int rc = map_for_user(pt, path, &fm);
	if (rc < 0)
		return rc;
	rc = tk_pt_add_section(pt, fm, 0, fm->len, addr);
	if (rc == 0)
		rc = tk_pt_add_image_info(pt, path, addr, addr, addr + fm->len, true);
	if (rc < 0)
		tk_pt_set_detail(pt, "%s: %s", path, tk_strerror(rc));
	return rc;
}

unsigned tk_pt_image_count(const tk_pt *pt)
{
	return pt->nimages;
}

const tk_pt_image_info *tk_pt_image(const tk_pt *pt, unsigned i)
{
	return i < pt->nimages ? &pt->images[i] : NULL;
}

size_t tk_pt_mem_read(const tk_pt *pt, uint64_t ip, uint8_t *buf, size_t n)
{
	/* The newest section wins, as in libipt's images. */
	for (unsigned i = pt->nsections; i-- > 0;) {
		const struct pt_section *s = &pt->sections[i];
		if (ip < s->vaddr || ip - s->vaddr >= s->size)
			continue;
		uint64_t off = ip - s->vaddr;
		/* A later section may cut this one short. */
		uint64_t avail = s->size - off;
		for (unsigned j = i + 1; j < pt->nsections; j++) {
			const struct pt_section *t = &pt->sections[j];
			if (t->vaddr > ip && t->vaddr - ip < avail)
				avail = t->vaddr - ip;
		}
		size_t k = n < avail ? n : (size_t)avail;
		memcpy(buf, s->data + off, k);
		return k;
	}
	return 0;
}

int tk_pt_fill_image(const tk_pt *pt, struct pt_image *image)
{
	for (unsigned i = 0; i < pt->nsections; i++) {
		const struct pt_section *s = &pt->sections[i];
		int rc = pt_image_add_file(image, s->path, s->foff, s->size, NULL, s->vaddr);
		if (rc < 0)
			return TK_ERR_NOMEM;
	}
	return 0;
}
