/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the input layer's parts (see tracekit/input.h).
 *
 *   input.c        opening, format detection, sequential reads, errors
 *   raw.c          the file's own bytes: descriptor, stream or memory, and
 *                  a cursor over them that decoders pull compressed data from
 *   random.c       random access: restart points, a decoder moved forward
 *                  from the nearest one, a buffer of recent output
 *   in_gzip.c, in_zstd.c, in_xz.c   the decoders
 *   readahead.c    the sequential decoder on a second thread
 *   checkpoints.c  the checkpoint table and its file
 *   seektable.c    the zstd seek table; xxhash64.c its checksum
 *   zstd_write.c   writing seekable zstd
 *
 * A decoder reads compressed bytes through a tk_cin, either sequentially
 * (the input's own reads) or from a given file offset (pread), so the same
 * code serves the sequential pass and random access.
 */
#ifndef TRACEKIT_IO_INPUT_IMPL_H
#define TRACEKIT_IO_INPUT_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracekit/error.h"
#include "tracekit/input.h"

#define TK_CKPT_SPACING_DEFAULT (4u << 20)
#define TK_MEMLIMIT_DEFAULT (1ull << 30)
#define TK_GZ_WINDOW 32768u

/* ---- the file's bytes (raw.c) ---- */

typedef struct tk_raw {
	int fd;			/* -1 for a FILE or memory */
	bool own_fd;
	FILE *fp;
	const uint8_t *mem;
	uint64_t mem_len;
	bool positional;	/* pread works: a regular file or memory */
	uint64_t size;		/* bytes of the file (positional only) */
	uint64_t mtime_ns, ctime_ns;
	uint64_t pos;		/* sequential position */
	uint8_t head[8];	/* bytes read from a stream to detect the format */
	size_t nhead, ihead;
} tk_raw;

/* Sequential read: *got = 0 at the end.  Errors: TK_ERR_IO (errno). */
int tk_raw_read(tk_raw *r, void *buf, size_t n, size_t *got);
/* Positional read; *got < n only at the end.  Errors: TK_ERR_IO,
 * TK_ERR_UNSUPPORTED (not positional). */
int tk_raw_pread(const tk_raw *r, uint64_t off, void *buf, size_t n, size_t *got);

/* A cursor over compressed bytes: buf[pos, len) unconsumed, buf[0] at
 * file offset base. */
typedef struct tk_cin {
	tk_input *in;
	bool sequential;	/* tk_raw_read, else tk_raw_pread at base + len */
	uint8_t *buf;
	size_t cap, pos, len;
	uint64_t base;
	bool eof;
} tk_cin;

int tk_cin_init(tk_cin *c, tk_input *in, bool sequential, size_t cap);
void tk_cin_fini(tk_cin *c);
/* Move to file offset off (positional cursors only), emptying the buffer. */
void tk_cin_seek(tk_cin *c, uint64_t off);
/* Read more after len (moving the unconsumed bytes to the front first).
 * Sets eof when nothing more comes.  Errors: TK_ERR_IO (reported). */
int tk_cin_fill(tk_cin *c);
/* Make at least n bytes available (fewer only at eof). */
int tk_cin_need(tk_cin *c, size_t n);
static inline uint64_t tk_cin_off(const tk_cin *c) { return c->base + c->pos; }
static inline size_t tk_cin_avail(const tk_cin *c) { return c->len - c->pos; }

/* ---- restart points (checkpoints.c) ---- */

/* One place where decompression can start. */
typedef struct tk_ckpt {
	uint64_t out;		/* decompressed offset */
	uint64_t in;		/* file offset of the first compressed byte */
	uint64_t win_off;	/* stored window: offset in the spill / file */
	uint32_t win_len;	/* stored (deflated) bytes, 0 if none */
	uint32_t win_crc;	/* crc32 of the stored bytes */
	uint32_t aux;		/* per codec, see below */
} tk_ckpt;

/* aux for gzip: bits (0-7) not yet used of the byte before `in`, that
 * byte, and whether `in` is the start of a member (a gzip header). */
#define TK_GZ_AUX(bits, byte, member) ((uint32_t)(bits) | (uint32_t)(byte) << 8 | \
				       ((member) ? 1u << 16 : 0))
#define TK_GZ_AUX_BITS(a) ((a) & 7)
#define TK_GZ_AUX_BYTE(a) (((a) >> 8) & 0xff)
#define TK_GZ_AUX_MEMBER(a) (((a) >> 16) & 1)
/* aux for xz: the block's check type.  For seekable zstd: the frame's
 * checksum (TK_CKPT_HAS_SUM set in the table's flags). */

typedef struct tk_ckpt_table {
	tk_ckpt *v;
	size_t n, cap;
	uint64_t total_out;	/* decompressed size, when complete */
	uint64_t total_in;	/* seekable zstd: where the seek table starts */
	bool complete;		/* covers the whole file */
	bool has_sums;		/* seekable zstd: aux is the frame checksum */
	uint64_t spacing;
	FILE *spill;		/* windows recorded, not yet saved */
	uint64_t spill_len;
	int fd;			/* a loaded checkpoint file: windows read here */
} tk_ckpt_table;

void tk_ckpt_init(tk_ckpt_table *t, uint64_t spacing);
void tk_ckpt_free(tk_ckpt_table *t);
/* Append a restart point (out must grow); window: the dictionary bytes
 * before it (gzip), or NULL.  Errors: TK_ERR_NOMEM, TK_ERR_IO. */
int tk_ckpt_add(tk_ckpt_table *t, uint64_t out, uint64_t in, uint32_t aux,
		const uint8_t *window, size_t wlen);
/* The last restart point at or before out (the table is not empty). */
size_t tk_ckpt_find(const tk_ckpt_table *t, uint64_t out);
/* Inflate the window of point k into win (TK_GZ_WINDOW bytes); *wlen.
 * Errors: TK_ERR_CORRUPT (checksum), TK_ERR_IO. */
int tk_ckpt_window(const tk_ckpt_table *t, size_t k, uint8_t *win, size_t *wlen);

/* The checkpoint file.  codec: TK_INPUT_GZIP or TK_INPUT_ZSTD; identity:
 * the compressed file's size and times. */
int tk_ckpt_save(const tk_ckpt_table *t, const char *path, int codec, const tk_raw *id);
/* Load and check path against the file; TK_ERR_CORRUPT, TK_ERR_FORMAT
 * (another version), TK_ERR_NOTFOUND (describes another file or codec),
 * TK_ERR_OPEN. */
int tk_ckpt_load(tk_ckpt_table *t, const char *path, int codec, const tk_raw *id);
/* Parse a checkpoint file already in memory (the fuzz target's way in);
 * windows are then not readable (fd -1). */
int tk_ckpt_parse(tk_ckpt_table *t, const uint8_t *p, size_t n, int codec, const tk_raw *id);

/* ---- zstd seek table (seektable.c) ---- */

#define TK_ZSTD_MAGIC 0xFD2FB528u
#define TK_ZSTD_SKIPPABLE_MASK 0xFFFFFFF0u
#define TK_ZSTD_SKIPPABLE 0x184D2A50u
#define TK_SEEKABLE_SKIP_MAGIC 0x184D2A5Eu
#define TK_SEEKABLE_MAGIC 0x8F92EAB1u
#define TK_SEEKABLE_FOOTER 9
#define TK_SEEKABLE_MAX_FRAMES 0x8000000u

/* Read the seek table at the end of the file.  Returns 1 and fills t
 * (a restart point per frame that holds data, total_out, has_sums), 0 if
 * the file ends in no seek table, TK_ERR_CORRUPT for a seek table that
 * contradicts itself or the file, TK_ERR_IO. */
int tk_seektable_read(const tk_raw *raw, tk_ckpt_table *t);

/* XXH64 (seed 0) of p[0, n). */
uint64_t tk_xxh64(const void *p, size_t n, uint64_t seed);

/* ---- decoders ---- */

typedef struct tk_dec tk_dec;
typedef struct tk_readahead tk_readahead;

typedef struct tk_codec {
	const char *name;
	int (*create)(tk_input *in, tk_dec **out);
	/* Start at restart point from (NULL: the start of the file). */
	int (*start)(tk_dec *d, const tk_ckpt *from, const tk_ckpt_table *t, size_t k);
	/* Decompress up to n bytes; *got = 0 and rc 0 at the end of the data
	 * (or, started at a restart point of a block format, of the block). */
	int (*read)(tk_dec *d, uint8_t *out, size_t n, size_t *got);
	void (*destroy)(tk_dec *d);
	/* Restart points of the file itself (seek table, xz index), or 0
	 * if it needs a checkpoint table. */
	int (*own_points)(tk_input *in, tk_ckpt_table *t);
} tk_codec;

/* What every decoder starts with. */
struct tk_dec {
	const tk_codec *codec;
	tk_input *in;
	tk_cin cin;
	uint64_t out;		/* decompressed offset of the next byte */
	tk_ckpt_table *rec;	/* record restart points here, or NULL */
	uint64_t last_rec;	/* out of the last one recorded */
};

extern const tk_codec tk_codec_gzip, tk_codec_zstd, tk_codec_xz;

/* Record a restart point if the spacing since the last one is reached. */
int tk_dec_maybe_record(tk_dec *d, uint64_t in, uint32_t aux, const uint8_t *win,
			size_t wlen, bool force);

/* One frame k of a seekable zstd file, decoded whole into dst (dlen
 * bytes, its decompressed size) and checked against the seek table. *ctx
 * keeps a decoder between calls (tk_zstd_frame_free). */
int tk_zstd_frame(tk_input *in, const tk_ckpt_table *t, size_t k, uint8_t *dst, size_t dlen,
		  void **ctx);
void tk_zstd_frame_free(void *ctx);

/* ---- the input ---- */

struct tk_input {
	char *name;
	tk_input_format format;
	const tk_codec *codec;	/* NULL for plain */
	tk_raw raw;
	tk_input_opts opts;
	char *ckpt_path;

	tk_dec *seq;		/* the sequential decoder */
	tk_readahead *ra;	/* ...running on its own thread */
	bool ra_tried;
	uint64_t tell;
	int pending;		/* an error to return on the next read */
	bool seq_done;

	/* random access (random.c) */
	bool random_ready;
	bool seekable_zstd;
	tk_ckpt_table rnd;	/* restart points: read from the file, loaded, built */
	tk_ckpt_table recd;	/* recorded by the sequential pass */
	tk_ckpt_table *pts;	/* the one in use: rnd, or recd once complete */
	void *frame_ctx;	/* seekable zstd: the frame decoder */
	bool rebuilt;		/* the checkpoint file was found bad and rebuilt */
	char ckpt_status[160];
	tk_dec *cur;		/* the random-access decoder */
	size_t cur_k;		/* its restart point */
	bool cur_live;
	uint8_t *pbuf;		/* recent output: [pbuf_off, pbuf_off + pbuf_len) */
	size_t pbuf_cap, pbuf_len;
	uint64_t pbuf_off;
	uint64_t size;		/* decompressed size or UNKNOWN */

	void *map;		/* tk_input_map */
	uint64_t map_len;

	int err;
	uint64_t err_off;
	char errmsg[320];
};

/* Set the input's error (message without the file name) and return err. */
int tk_input_fail(tk_input *in, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* readahead.c: the sequential decoder on a second thread */
int tk_readahead_start(tk_input *in);
/* Copy up to n bytes; *end once the last buffer is used up (then the
 * thread is joined and the return is the decoder's final rc). */
int tk_readahead_read(tk_readahead *ra, uint8_t *out, size_t n, size_t *got, bool *end);
uint64_t tk_readahead_consumed(const tk_readahead *ra);
void tk_readahead_stop(tk_readahead *ra);

/* random.c */
int tk_random_setup(tk_input *in);
int tk_random_pread(tk_input *in, uint64_t off, uint8_t *buf, size_t n, size_t *got);
void tk_random_free(tk_input *in);

static inline uint32_t tk_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t tk_le64(const uint8_t *p)
{
	return (uint64_t)tk_le32(p) | (uint64_t)tk_le32(p + 4) << 32;
}
static inline void tk_wle32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void tk_wle64(uint8_t *p, uint64_t v)
{
	tk_wle32(p, (uint32_t)v);
	tk_wle32(p + 4, (uint32_t)(v >> 32));
}

#endif
