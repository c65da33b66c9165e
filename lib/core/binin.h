/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: a byte stream from a binary file, decompressed.
 *
 * Opens a path ("-" = standard input) or a memory buffer and hands out its
 * bytes in order.  gzip, zstd and xz data are recognised by their magic
 * numbers and decompressed on the fly (when tracekit was built with zlib,
 * libzstd, liblzma); offsets are then offsets in the decompressed data.
 */
#ifndef TRACEKIT_LIB_BININ_H
#define TRACEKIT_LIB_BININ_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_binin tk_binin;

typedef enum tk_binin_codec {
	TK_BININ_PLAIN = 0,
	TK_BININ_GZIP,
	TK_BININ_ZSTD,
	TK_BININ_XZ,
} tk_binin_codec;

/* Errors: TK_ERR_OPEN, TK_ERR_ISDIR (errno kept), TK_ERR_UNSUPPORTED
 * (compressed with a codec this build lacks), TK_ERR_NOMEM, TK_ERR_IO. */
int tk_binin_open(const char *path, tk_binin **out);
int tk_binin_open_mem(const void *data, size_t len, tk_binin **out);

/* Read up to n bytes; returns the count (0 at the end) or TK_ERR_IO /
 * TK_ERR_CORRUPT (bad compressed data).  Reads until n bytes or the end,
 * so a short count means the end of the data. */
long tk_binin_read(tk_binin *in, void *buf, size_t n);

/* The codec detected. */
tk_binin_codec tk_binin_codec_of(const tk_binin *in);

/* Size of the file on disk (compressed size for compressed data), 0 if
 * unknown; bytes of it consumed so far.  For progress meters. */
uint64_t tk_binin_file_size(const tk_binin *in);
uint64_t tk_binin_file_pos(const tk_binin *in);

void tk_binin_close(tk_binin *in);

#endif
