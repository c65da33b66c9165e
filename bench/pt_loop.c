/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The anchors of the Intel PT benchmark: plain libipt decode loops, what
 * libipt's ptxed does with --quiet.  Usage: pt_loop insn|blk TRACE ELF
 * (the ELF's loadable segments at their own addresses).  Prints the
 * number of instructions. */
#include <gelf.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)len);
	if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void add_elf(struct pt_image *img, const char *path)
{
	size_t n;
	uint8_t *b = load(path, &n);
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)b, n);
	size_t ph;
	elf_getphdrnum(e, &ph);
	for (size_t i = 0; i < ph; i++) {
		GElf_Phdr p;
		if (gelf_getphdr(e, (int)i, &p) && p.p_type == PT_LOAD && p.p_filesz)
			pt_image_add_file(img, path, p.p_offset, p.p_filesz, NULL, p.p_vaddr);
	}
	elf_end(e);
	free(b);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	size_t n;
	uint8_t *trace = load(argv[2], &n);
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = trace;
	cfg.end = trace + n;
	bool blk = argv[1][0] == 'b';
	struct pt_image *img = pt_image_alloc(NULL);
	add_elf(img, argv[3]);
	struct pt_insn_decoder *id = blk ? NULL : pt_insn_alloc_decoder(&cfg);
	struct pt_block_decoder *bd = blk ? pt_blk_alloc_decoder(&cfg) : NULL;
	if (blk)
		pt_blk_set_image(bd, img);
	else
		pt_insn_set_image(id, img);
	uint64_t insns = 0;
	for (;;) {
		int status = blk ? pt_blk_sync_forward(bd) : pt_insn_sync_forward(id);
		if (status < 0)
			break;
		for (;;) {
			while (status & pts_event_pending) {
				struct pt_event ev;
				status = blk ? pt_blk_event(bd, &ev, sizeof ev) : pt_insn_event(id, &ev, sizeof ev);
				if (status < 0)
					break;
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (blk) {
				struct pt_block b;
				status = pt_blk_next(bd, &b, sizeof b);
				insns += b.ninsn;
			} else {
				struct pt_insn in;
				status = pt_insn_next(id, &in, sizeof in);
				if (in.iclass != ptic_error)
					insns++;
			}
			if (status < 0)
				break;
		}
		if (status == -pte_eos || status >= 0)
			break;
	}
	printf("insn: %" PRIu64 ".\n", insns);
	pt_insn_free_decoder(id);
	pt_blk_free_decoder(bd);
	pt_image_free(img);
	free(trace);
	return 0;
}
