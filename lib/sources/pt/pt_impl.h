/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: what the files of lib/pt share. */
#ifndef TK_PT_IMPL_H
#define TK_PT_IMPL_H

#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>

#include "tracekit/error.h"
#include "tracekit/pt.h"

/* A place in a stream where data is missing: decoding stops before it and
 * starts afresh (at the next PSB) after it. */
struct pt_gap {
	uint64_t offset;
	tk_pt_gap_kind kind;
	char why[96];
};

struct pt_stream {
	tk_pt_stream_info info;
	uint8_t *owned;		/* perf streams: the joined bytes */
	struct pt_gap *gaps;	/* sorted by offset */
	uint32_t ngaps, gapcap;
};

/* A piece of code in memory: size bytes of path at file offset foff,
 * mapped at vaddr; data points into the mapped file. */
struct pt_section {
	uint64_t vaddr, size, foff;
	const uint8_t *data;
	const char *path;	/* owned by the file map */
};

struct pt_filemap {
	char *path;
	void *map;
	size_t len;
};

struct tk_pt {
	char *path;
	tk_pt_format format;
	uint8_t *file;		/* the whole trace file */
	size_t file_len;
	tk_pt_cpu cpu;
	struct pt_cpu ptcpu;
	struct pt_errata errata;

	struct pt_stream *streams;
	unsigned nstreams;

	struct pt_section *sections;	/* in the order added: later wins */
	unsigned nsections, seccap;
	tk_pt_image_info *images;
	unsigned nimages, imgcap;
	struct pt_filemap *maps;
	unsigned nmaps, mapcap;
	bool user_images;	/* images added through tk_pt_add_* */

	tk_diag_fn diag;
	void *diag_ctx;
	char detail[512];
};

/* Diagnostics: "offset 0x...: ..." texts go to the callback with the file. */
void tk_pt_diag(const tk_pt *pt, tk_diag_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tk_pt_set_detail(tk_pt *pt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* perf.data: fill pt->streams, the MMAP images and the CPU from the file.
 * Errors as tk_pt_open. */
int tk_pt_perf_read(tk_pt *pt, bool cpu_auto);

/* Add a gap to a stream (kept sorted). */
int tk_pt_stream_add_gap(struct pt_stream *s, uint64_t offset, tk_pt_gap_kind kind,
			 const char *why);

/* Images: map a file (kept until tk_pt_free); add a section; add an ELF
 * file's loadable segments shifted by bias, recording the image. */
int tk_pt_map_file(tk_pt *pt, const char *path, const struct pt_filemap **out);
int tk_pt_add_section(tk_pt *pt, const struct pt_filemap *fm, uint64_t foff, uint64_t size,
		      uint64_t vaddr);
int tk_pt_add_image_info(tk_pt *pt, const char *path, uint64_t bias, uint64_t start,
			 uint64_t end, bool raw);
/* For an ELF mapped at addr from file offset pgoff (an MMAP record): the
 * bias of its symbols; 0 if the file is not an ELF. */
uint64_t tk_pt_elf_bias(const struct pt_filemap *fm, uint64_t addr, uint64_t pgoff);
void tk_pt_clear_images(tk_pt *pt);
void tk_pt_unmap_files(tk_pt *pt);

/* Read up to n bytes of code at ip from one section.  Returns the count
 * (0 if ip is not mapped). */
size_t tk_pt_mem_read(const tk_pt *pt, uint64_t ip, uint8_t *buf, size_t n);

/* Fill a libipt image with every section. */
int tk_pt_fill_image(const tk_pt *pt, struct pt_image *image);

/* A pt_config for bytes [begin, end) with the CPU and errata. */
void tk_pt_config(const tk_pt *pt, struct pt_config *cfg, const uint8_t *begin,
		  const uint8_t *end);


/* ptxed's text for an event (no brackets). */
void tk_pt_event_text(const struct pt_event *ev, char *buf, size_t n);

/* ---- instruction facts (lib/pt/pt_insninfo.c) ------------------------------ */

/* What one instruction is: read from the image once, classified with
 * capstone into libipt's instruction classes. */
struct pt_insn_info {
	uint64_t ip;
	uint64_t target;	/* direct branches: the target */
	uint8_t size;		/* 0: not decodable */
	uint8_t iclass;		/* enum pt_insn_class */
	uint8_t branch;		/* tk_branch */
	uint8_t direct;		/* a direct (relative) branch */
	uint8_t raw[15];
};

struct pt_insn_cache;

int tk_pt_insn_cache_new(const tk_pt *pt, struct pt_insn_cache **out);
void tk_pt_insn_cache_free(struct pt_insn_cache *c);
/* The facts of the instruction at ip (cached).  Never NULL unless out of
 * memory; size 0 if the bytes are not mapped or not an instruction. */
const struct pt_insn_info *tk_pt_insn_at(struct pt_insn_cache *c, uint64_t ip);
/* Classify given bytes (a truncated block's last instruction). */
void tk_pt_insn_classify(struct pt_insn_cache *c, uint64_t ip, const uint8_t *raw, uint8_t size,
			 struct pt_insn_info *out);
/* tk_branch of a libipt class for an instruction (call to the next
 * instruction: JUMP). */
static inline tk_branch tk_pt_branch_of(int iclass, bool call_next)
{
	switch (iclass) {
	case ptic_call:
		return call_next ? TK_BR_JUMP : TK_BR_CALL;
	case ptic_far_call:
		return TK_BR_CALL;
	case ptic_return:
	case ptic_far_return:
		return TK_BR_RETURN;
	case ptic_jump:
	case ptic_cond_jump:
	case ptic_far_jump:
		return TK_BR_JUMP;
	default:
		return TK_BR_NONE;
	}
}

#endif
