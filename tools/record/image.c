/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: the ELF program to run.
 *
 * Reads the loadable segments and guesses the core from the header: AArch64
 * from e_machine; for Arm, M-profile from the build attributes
 * (Tag_CPU_arch_profile 'M', or an M-only Tag_CPU_arch), Thumb from bit 0 of
 * the entry point.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif
#ifndef SHT_ARM_ATTRIBUTES
#define SHT_ARM_ATTRIBUTES 0x70000003
#endif

/* Tag_CPU_arch values that only exist as M-profile. */
enum { ARCH_V6_M = 11, ARCH_V6S_M = 12, ARCH_V7E_M = 13,
       ARCH_V8M_BASE = 16, ARCH_V8M_MAIN = 17, ARCH_V81M_MAIN = 21 };

static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t uleb(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	int shift = 0;
	while (*p < end) {
		unsigned char b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static void skip_string(const unsigned char **p, const unsigned char *end)
{
	while (*p < end && *(*p)++)
		;
}

/* The "aeabi" file attributes: Tag_CPU_arch (6), Tag_CPU_arch_profile (7),
 * Tag_FP_arch (10), Tag_Advanced_SIMD_arch (12).  Unknown layouts are
 * skipped: the attributes only refine a guess. */
static void parse_attributes(const unsigned char *p, size_t len, rec_image *img, int *profile)
{
	const unsigned char *end = p + len;
	if (len < 1 || *p++ != 'A')
		return;
	while (end - p >= 4) {
		uint32_t sublen = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		if (sublen < 4 || sublen > (size_t)(end - p))
			return;
		const unsigned char *sub = p + 4, *subend = p + sublen;
		p = subend;
		const unsigned char *name = sub;
		skip_string(&sub, subend);
		if (strcmp((const char *)name, "aeabi") != 0)
			continue;
		while (subend - sub >= 5) {
			unsigned tag = *sub++;
			uint32_t size = sub[0] | sub[1] << 8 | sub[2] << 16 | (uint32_t)sub[3] << 24;
			const unsigned char *blk = sub + 4, *blkend = sub - 1 + size;
			if (size < 5 || blkend > subend)
				return;
			sub = blkend;
			if (tag != 1)	/* Tag_File only */
				continue;
			while (blk < blkend) {
				uint64_t t = uleb(&blk, blkend);
				if (t == 4 || t == 5 || t == 67 || t == 65) {
					skip_string(&blk, blkend);
				} else if (t == 32) {
					uleb(&blk, blkend);
					skip_string(&blk, blkend);
				} else if (t > 32 && (t & 1)) {
					skip_string(&blk, blkend);
				} else {
					uint64_t v = uleb(&blk, blkend);
					if (t == 6)
						img->cpu_arch = (int)v;
					else if (t == 7)
						*profile = (int)v;
					else if (t == 10)
						img->fp_arch = (int)v;
					else if (t == 12)
						img->simd_arch = (int)v;
				}
			}
		}
	}
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *b = buf;
	while (n) {
		ssize_t k = pread(fd, b, n, (off_t)off);
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int rec_image_load(const char *path, rec_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof *img);
	img->cpu_arch = -1;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = -1;
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		fail(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		fail(err, errlen, "%s: big-endian programs are not supported", path);
		goto out;
	}
	if (eh.e_machine == EM_AARCH64) {
		img->profile = REC_PROFILE_A64;
	} else if (eh.e_machine == EM_ARM) {
		img->profile = REC_PROFILE_A32;
		if (eh.e_flags & 0x00800000) {	/* EF_ARM_BE8 */
			fail(err, errlen, "%s: big-endian (BE8) programs are not supported", path);
			goto out;
		}
	} else {
		fail(err, errlen, "%s: not an Arm program (ELF machine %u)", path, eh.e_machine);
		goto out;
	}
	img->entry = eh.e_entry;
	img->thumb_entry = img->profile != REC_PROFILE_A64 && (eh.e_entry & 1);

	if (img->profile == REC_PROFILE_A32) {
		int profile = 0;
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_ARM_ATTRIBUTES)
				continue;
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (d && d->d_buf)
				parse_attributes(d->d_buf, d->d_size, img, &profile);
		}
		int a = img->cpu_arch;
		if (profile == 'M' || a == ARCH_V6_M || a == ARCH_V6S_M || a == ARCH_V7E_M ||
		    a == ARCH_V8M_BASE || a == ARCH_V8M_MAIN || a == ARCH_V81M_MAIN)
			img->profile = REC_PROFILE_M;
	}

	size_t nph;
	if (elf_getphdrnum(elf, &nph) != 0) {
		fail(err, errlen, "%s: cannot read the program headers", path);
		goto out;
	}
	img->seg = calloc(nph ? nph : 1, sizeof *img->seg);
	if (!img->seg) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_memsz > (1ull << 32)) {
			fail(err, errlen, "%s: segment %zu has a bad size", path, i);
			goto out;
		}
		rec_segment *s = &img->seg[img->nseg++];
		s->vaddr = ph.p_vaddr;
		s->paddr = ph.p_paddr;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->data = malloc(ph.p_filesz ? ph.p_filesz : 1);
		if (!s->data) {
			fail(err, errlen, "out of memory");
			goto out;
		}
		if (read_at(fd, s->data, ph.p_filesz, ph.p_offset) != 0) {
			fail(err, errlen, "%s: truncated segment %zu", path, i);
			goto out;
		}
	}
	if (img->nseg == 0) {
		fail(err, errlen, "%s: no loadable segments", path);
		goto out;
	}
	/* Some linkers leave every physical address 0: load at the virtual
	 * addresses then. */
	bool no_paddr = true;
	for (int i = 0; i < img->nseg; i++)
		if (img->seg[i].paddr != 0 || img->seg[i].vaddr == 0)
			no_paddr = false;
	if (no_paddr)
		for (int i = 0; i < img->nseg; i++)
			img->seg[i].paddr = img->seg[i].vaddr;
	rc = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (rc)
		rec_image_free(img);
	return rc;
}

void rec_image_free(rec_image *img)
{
	for (int i = 0; i < img->nseg; i++)
		free(img->seg[i].data);
	free(img->seg);
	img->seg = NULL;
	img->nseg = 0;
}
