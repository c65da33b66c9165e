/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The code the Intel PT fuzz targets decode against: a loop, a call, a
 * return and an indirect jump at 0x1000, written once to a file (the
 * perf.data seeds name that file in their MMAP2 records). */
#ifndef TK_FUZZ_PT_CODE_H
#define TK_FUZZ_PT_CODE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracekit/pt.h"

#define TK_FUZZ_PT_CODE_PATH "/tmp/tracekit-fuzz-pt.code"
#define TK_FUZZ_PT_CODE_ADDR 0x1000

static const uint8_t tk_fuzz_pt_code[] = {
	0x31, 0xc0,			/* 1000: xor eax, eax */
	0xff, 0xc0,			/* 1002: inc eax */
	0x83, 0xf8, 0x05,		/* 1004: cmp eax, 5 */
	0x75, 0xf9,			/* 1007: jne 1002 */
	0xe8, 0x02, 0x00, 0x00, 0x00,	/* 1009: call 1010 */
	0xff, 0xe3,			/* 100e: jmp rbx */
	0xc3,				/* 1010: ret */
	0xeb, 0xfe,			/* 1011: jmp 1011 (an endless loop) */
	0xe8, 0xfb, 0xff, 0xff, 0xff,	/* 1013: call 1013 (endless recursion) */
};

/* Whether path already holds exactly the code. */
static inline int tk_fuzz_pt_code_present(const char *path)
{
	uint8_t buf[sizeof tk_fuzz_pt_code + 1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return n == sizeof tk_fuzz_pt_code && !memcmp(buf, tk_fuzz_pt_code, n);
}

/* Write the code to path unless it is there already.  libipt maps the
 * code by its path again at every resynchronisation and refuses a file
 * whose modification time changed since the decoder was set up, so a
 * fuzzer starting beside another one must not rewrite an identical file.
 * A new file is written under a name of its own, then renamed into place:
 * truncating a file another fuzzer has mapped would kill that one with
 * SIGBUS. */
static inline void tk_fuzz_pt_write_code_at(const char *path)
{
	if (tk_fuzz_pt_code_present(path))
		return;
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return;
	size_t n = fwrite(tk_fuzz_pt_code, 1, sizeof tk_fuzz_pt_code, f);
	if (fclose(f) == 0 && n == sizeof tk_fuzz_pt_code)
		rename(tmp, path);
	else
		remove(tmp);
}

/* The shared code file, which the perf.data seeds name. */
static inline void tk_fuzz_pt_write_code(void)
{
	tk_fuzz_pt_write_code_at(TK_FUZZ_PT_CODE_PATH);
}

static volatile unsigned tk_fuzz_sink;

/* Decode every stream with both decoders; read everything items point at. */
static inline void tk_fuzz_pt_decode_all(tk_pt *pt, unsigned threads)
{
	for (unsigned s = 0; s < tk_pt_stream_count(pt); s++)
		for (int mode = 0; mode < 3; mode++) {
			/* block decoder, instruction decoder, joined blocks (the
			 * runs the report tools read) */
			tk_pt_decode_opts o;
			tk_pt_decode_opts_init(&o);
			o.decoder = mode == 1 ? TK_PT_DECODER_INSN : TK_PT_DECODER_BLOCK;
			o.threads = threads;
			o.piece_bytes = 64;
			o.max_linear = 4096;
			o.block_marks = mode == 0;
			o.blocks_only = o.join_blocks = mode == 2;
			tk_pt_decode *d;
			if (tk_pt_decode_new(pt, s, &o, &d) < 0)
				continue;
			tk_pt_item it;
			while (tk_pt_decode_next(d, &it) > 0) {
				for (unsigned i = 0; it.bytes && i < it.size; i++)
					tk_fuzz_sink += it.bytes[i];
				for (const char *t = it.text; t && *t; t++)
					tk_fuzz_sink += (unsigned char)*t;
				tk_fuzz_sink += it.ninsn + it.size + it.branch + (it.end_ip & 0xff);
			}
			tk_pt_decode_free(d);
		}
}

static inline int tk_fuzz_pt_line(void *ctx, const char *text)
{
	(void)ctx;
	while (*text)
		tk_fuzz_sink += (unsigned char)*text++;
	return 0;
}

static inline void tk_fuzz_pt_dump_all(tk_pt *pt)
{
	tk_pt_dump_opts o;
	tk_pt_dump_opts_init(&o);
	for (unsigned s = 0; s < tk_pt_stream_count(pt); s++)
		tk_pt_dump(pt, s, &o, tk_fuzz_pt_line, NULL);
}

#endif
