/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helper: turn a qemu-ppc64le log into a stream of executed
 * instructions for `tracekit qtwrite` ("EA WORD [DATA_EA]" per line).
 *
 *   qemu2stream PROGRAM.elf QEMU.log > STREAM
 *
 * The log comes from `qemu-ppc64le -singlestep -d exec,cpu,nochain -D LOG`:
 * one "Trace" line per executed instruction (its pc is the second field of
 * the bracket), each followed by the registers before it.  Instruction
 * words are read from the ELF's loaded segments (little-endian); the data
 * EA of a load or store is computed from its base and index registers as
 * logged (D, DS, X forms and prefixed D34 forms). */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seg {
	uint64_t vaddr, size;
	unsigned char *data;
};
static struct seg segs[16];
static int nsegs;

static int load_elf(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n;
	if (!e || elf_getphdrnum(e, &n) != 0)
		return -1;
	for (size_t i = 0; i < n && nsegs < 16; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		struct seg *s = &segs[nsegs++];
		s->vaddr = ph.p_vaddr;
		s->size = ph.p_filesz;
		s->data = malloc(ph.p_filesz);
		if (!s->data || pread(fd, s->data, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			return -1;
	}
	elf_end(e);
	close(fd);
	return nsegs ? 0 : -1;
}

static bool word_at(uint64_t ea, uint32_t *w)
{
	for (int i = 0; i < nsegs; i++)
		if (ea >= segs[i].vaddr && ea + 4 <= segs[i].vaddr + segs[i].size) {
			const unsigned char *p = segs[i].data + (ea - segs[i].vaddr);
			*w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			     (uint32_t)p[3] << 24;
			return true;
		}
	return false;
}

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

/* X-form (primary 31) loads and stores, by extended opcode. */
static bool x_form_mem(unsigned xo)
{
	static const unsigned list[] = {
		20, 21, 23, 52, 53, 55, 84, 87, 116, 119, 149, 150, 151, 181, 183, 214, 215,
		247, 279, 311, 341, 343, 373, 375, 407, 439, 532, 534, 535, 567, 599, 631, 660,
		662, 663, 694, 695, 726, 727, 759, 790, 918, 1014,
	};
	for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
		if (list[i] == xo)
			return true;
	return false;
}

/* The data EA of the instruction (w, or prefix p + suffix w), or false. */
static bool data_ea(uint64_t pc, uint32_t p, uint32_t w, bool prefixed, const uint64_t *gpr,
		    uint64_t *ea)
{
	unsigned op = w >> 26, ra = (w >> 16) & 31, rb = (w >> 11) & 31;
	uint64_t base = ra ? gpr[ra] : 0;
	if (prefixed) {
		unsigned type = (p >> 24) & 3;	/* 0: 8LS, 2: MLS */
		bool mem = (type == 2 && op >= 32 && op <= 55) || (type == 0 && op >= 41);
		if (!mem)
			return false;
		int64_t d = sext(((uint64_t)(p & 0x3FFFF) << 16) | (w & 0xFFFF), 34);
		*ea = ((p >> 20) & 1) ? pc + (uint64_t)d : base + (uint64_t)d;
		return true;
	}
	if (op >= 32 && op <= 55) {	/* D-form */
		*ea = base + (uint64_t)sext(w & 0xFFFF, 16);
		return true;
	}
	if (op == 58 || op == 62 || op == 57) {	/* DS-form: ld/std and friends */
		*ea = base + (uint64_t)sext(w & 0xFFFC, 16);
		return true;
	}
	if (op == 56 || op == 61) {	/* DQ-form */
		*ea = base + (uint64_t)sext(w & 0xFFF0, 16);
		return true;
	}
	if (op == 31 && x_form_mem((w >> 1) & 0x3FF)) {
		*ea = base + gpr[rb];
		return true;
	}
	return false;
}

static void emit(uint64_t pc, const uint64_t *gpr)
{
	uint32_t w, s;
	if (!word_at(pc, &w)) {
		fprintf(stderr, "qemu2stream: no instruction at %016" PRIx64 " in the ELF\n", pc);
		exit(1);
	}
	uint64_t ea;
	if ((w >> 26) == 1) {
		if (!word_at(pc + 4, &s))
			exit(1);
		printf("%016" PRIx64 " %08" PRIx32 "%08" PRIx32, pc, w, s);
		if (data_ea(pc, w, s, true, gpr, &ea))
			printf(" %016" PRIx64, ea);
	} else {
		printf("%016" PRIx64 " %08" PRIx32, pc, w);
		if (data_ea(pc, 0, w, false, gpr, &ea))
			printf(" %016" PRIx64, ea);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	if (argc != 3 || load_elf(argv[1]) < 0) {
		fprintf(stderr, "usage: qemu2stream PROGRAM.elf QEMU.log (a readable ELF)\n");
		return 2;
	}
	FILE *log = fopen(argv[2], "r");
	if (!log) {
		perror(argv[2]);
		return 1;
	}
	char line[512];
	uint64_t gpr[32] = {0}, pc = 0;
	bool pending = false;
	unsigned long count = 0;
	while (fgets(line, sizeof line, log)) {
		if (!strncmp(line, "Trace ", 6)) {
			if (pending)
				emit(pc, gpr);
			char *b = strchr(line, '[');
			char *slash = b ? strchr(b, '/') : NULL;
			if (!slash)
				continue;
			pc = strtoull(slash + 1, NULL, 16);
			pending = true;
			count++;
		} else if (!strncmp(line, "GPR", 3)) {
			unsigned r = (unsigned)strtoul(line + 3, NULL, 10);
			char *p = line + 5;
			for (unsigned k = 0; k < 4 && r + k < 32; k++)
				gpr[r + k] = strtoull(p, &p, 16);
		}
	}
	if (pending)
		emit(pc, gpr);
	fclose(log);
	fprintf(stderr, "qemu2stream: %lu instructions\n", count);
	return count ? 0 : 1;
}
