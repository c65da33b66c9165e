/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: binary input with transparent gzip / zstd / xz decompression. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/binin.h"
#include "tracekit/error.h"

#ifdef TK_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef TK_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef TK_HAVE_LZMA
#include <lzma.h>
#endif

#define RAW_SIZE (256u << 10)

struct tk_binin {
	int fd;			/* -1 for memory */
	bool own_fd;
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	uint64_t file_size, file_pos;
	tk_binin_codec codec;
	/* compressed input */
	unsigned char *raw;
	size_t raw_pos, raw_len;
	bool raw_eof;
	bool done;		/* decompressor finished, no more input */
	/* bytes read to detect the codec, handed out first (plain) */
	unsigned char head[8];
	size_t head_pos, head_len;
#ifdef TK_HAVE_ZLIB
	z_stream z;
	bool z_init;
#endif
#ifdef TK_HAVE_ZSTD
	ZSTD_DStream *zs;
#endif
#ifdef TK_HAVE_LZMA
	lzma_stream xz;
	bool xz_init;
#endif
};

/* Read from the underlying file or buffer, as read() does. */
static long raw_read(tk_binin *in, void *buf, size_t n)
{
	if (in->fd < 0) {
		size_t k = in->mem_len - in->mem_pos;
		if (k > n)
			k = n;
		memcpy(buf, in->mem + in->mem_pos, k);
		in->mem_pos += k;
		in->file_pos += k;
		return (long)k;
	}
	for (;;) {
		ssize_t k = read(in->fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return TK_ERR_IO;
		in->file_pos += (uint64_t)k;
		return (long)k;
	}
}

/* Fill `in->raw` with more compressed input. */
static int raw_fill(tk_binin *in)
{
	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	in->raw_pos = 0;
	in->raw_len = 0;
	if (in->head_pos < in->head_len) {
		memcpy(in->raw, in->head + in->head_pos, in->head_len - in->head_pos);
		in->raw_len = in->head_len - in->head_pos;
		in->head_pos = in->head_len;
		return 0;
	}
	long k = raw_read(in, in->raw, RAW_SIZE);
	if (k < 0)
		return (int)k;
	if (k == 0)
		in->raw_eof = true;
	in->raw_len = (size_t)k;
	return 0;
}

static tk_binin_codec detect(const unsigned char *h, size_t n)
{
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return TK_BININ_GZIP;
	if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
		return TK_BININ_ZSTD;
	if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return TK_BININ_XZ;
	return TK_BININ_PLAIN;
}

static int setup_codec(tk_binin *in)
{
	if (in->codec == TK_BININ_PLAIN)
		return 0;
	in->raw = malloc(RAW_SIZE);
	if (!in->raw)
		return TK_ERR_NOMEM;
	switch (in->codec) {
	case TK_BININ_GZIP:
#ifdef TK_HAVE_ZLIB
		if (inflateInit2(&in->z, 15 + 32) != Z_OK)
			return TK_ERR_NOMEM;
		in->z_init = true;
		return 0;
#else
		return TK_ERR_UNSUPPORTED;
#endif
	case TK_BININ_ZSTD:
#ifdef TK_HAVE_ZSTD
		in->zs = ZSTD_createDStream();
		if (!in->zs)
			return TK_ERR_NOMEM;
		ZSTD_initDStream(in->zs);
		return 0;
#else
		return TK_ERR_UNSUPPORTED;
#endif
	case TK_BININ_XZ:
#ifdef TK_HAVE_LZMA
		in->xz = (lzma_stream)LZMA_STREAM_INIT;
		if (lzma_stream_decoder(&in->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
			return TK_ERR_NOMEM;
		in->xz_init = true;
		return 0;
#else
		return TK_ERR_UNSUPPORTED;
#endif
	case TK_BININ_PLAIN:
		break;
	}
	return 0;
}

static int finish_open(tk_binin *in, tk_binin **out)
{
	long k = 0;
	size_t got = 0;
	/* Up to 6 bytes for the magic (fewer at the end of a short file). */
	while (got < 6) {
		k = raw_read(in, in->head + got, 6 - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (k < 0) {
		tk_binin_close(in);
		return TK_ERR_IO;
	}
	in->head_len = got;
	in->codec = detect(in->head, got);
	int rc = setup_codec(in);
	if (rc < 0) {
		tk_binin_close(in);
		return rc;
	}
	*out = in;
	return 0;
}

int tk_binin_open(const char *path, tk_binin **out)
{
	*out = NULL;
	tk_binin *in = calloc(1, sizeof *in);
	if (!in)
		return TK_ERR_NOMEM;
	if (!strcmp(path, "-")) {
		in->fd = STDIN_FILENO;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			int e = errno;
			free(in);
			errno = e;
			return TK_ERR_OPEN;
		}
		in->own_fd = true;
	}
	struct stat sb;
	if (fstat(in->fd, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			tk_binin_close(in);
			errno = EISDIR;
			return TK_ERR_ISDIR;
		}
		if (S_ISREG(sb.st_mode))
			in->file_size = (uint64_t)sb.st_size;
	}
	return finish_open(in, out);
}

int tk_binin_open_mem(const void *data, size_t len, tk_binin **out)
{
	*out = NULL;
	tk_binin *in = calloc(1, sizeof *in);
	if (!in)
		return TK_ERR_NOMEM;
	in->fd = -1;
	in->mem = data;
	in->mem_len = len;
	in->file_size = len;
	return finish_open(in, out);
}

static long read_plain(tk_binin *in, unsigned char *buf, size_t n)
{
	size_t got = 0;
	if (in->head_pos < in->head_len) {
		size_t k = in->head_len - in->head_pos;
		if (k > n)
			k = n;
		memcpy(buf, in->head + in->head_pos, k);
		in->head_pos += k;
		got = k;
	}
	while (got < n) {
		long k = raw_read(in, buf + got, n - got);
		if (k < 0)
			return k;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (long)got;
}

/* One step of the decompressor: fills buf[*got..n). */
static int inflate_some(tk_binin *in, unsigned char *buf, size_t n, size_t *got)
{
	int rc = raw_fill(in);
	if (rc < 0)
		return rc;
	const unsigned char *src = in->raw + in->raw_pos;
	size_t avail = in->raw_len - in->raw_pos;
	if (avail == 0 && in->raw_eof) {
		in->done = true;
		/* Input ended: fine at a stream boundary, else truncated data. */
		return 0;
	}
	switch (in->codec) {
#ifdef TK_HAVE_ZLIB
	case TK_BININ_GZIP: {
		in->z.next_in = (unsigned char *)src;
		in->z.avail_in = (uInt)avail;
		in->z.next_out = buf + *got;
		in->z.avail_out = (uInt)(n - *got);
		int zr = inflate(&in->z, Z_NO_FLUSH);
		in->raw_pos += avail - in->z.avail_in;
		*got = n - in->z.avail_out;
		if (zr == Z_STREAM_END) {
			/* Concatenated members: go on if more input follows. */
			inflateReset(&in->z);
			return 0;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return TK_ERR_CORRUPT;
		return 0;
	}
#endif
#ifdef TK_HAVE_ZSTD
	case TK_BININ_ZSTD: {
		ZSTD_inBuffer ib = {src, avail, 0};
		ZSTD_outBuffer ob = {buf, n, *got};
		size_t zr = ZSTD_decompressStream(in->zs, &ob, &ib);
		in->raw_pos += ib.pos;
		*got = ob.pos;
		if (ZSTD_isError(zr))
			return TK_ERR_CORRUPT;
		return 0;
	}
#endif
#ifdef TK_HAVE_LZMA
	case TK_BININ_XZ: {
		in->xz.next_in = src;
		in->xz.avail_in = avail;
		in->xz.next_out = buf + *got;
		in->xz.avail_out = n - *got;
		lzma_ret xr = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);
		in->raw_pos += avail - in->xz.avail_in;
		*got = n - in->xz.avail_out;
		if (xr == LZMA_STREAM_END) {
			in->done = true;
			return 0;
		}
		if (xr != LZMA_OK && xr != LZMA_BUF_ERROR)
			return TK_ERR_CORRUPT;
		return 0;
	}
#endif
	default:
		return TK_ERR_UNSUPPORTED;
	}
}

long tk_binin_read(tk_binin *in, void *buf, size_t n)
{
	if (in->codec == TK_BININ_PLAIN)
		return read_plain(in, buf, n);
	size_t got = 0;
	while (got < n && !in->done) {
		size_t before = got;
		uint64_t raw_before = in->raw_pos;
		int rc = inflate_some(in, buf, n, &got);
		if (rc < 0)
			return rc;
		/* No progress with input left: the decoder is stuck (corrupt). */
		if (got == before && in->raw_pos == raw_before && !in->done &&
		    in->raw_pos < in->raw_len)
			return TK_ERR_CORRUPT;
	}
	return (long)got;
}

tk_binin_codec tk_binin_codec_of(const tk_binin *in) { return in->codec; }
uint64_t tk_binin_file_size(const tk_binin *in) { return in->file_size; }
uint64_t tk_binin_file_pos(const tk_binin *in) { return in->file_pos; }

void tk_binin_close(tk_binin *in)
{
	if (!in)
		return;
#ifdef TK_HAVE_ZLIB
	if (in->z_init)
		inflateEnd(&in->z);
#endif
#ifdef TK_HAVE_ZSTD
	if (in->zs)
		ZSTD_freeDStream(in->zs);
#endif
#ifdef TK_HAVE_LZMA
	if (in->xz_init)
		lzma_end(&in->xz);
#endif
	if (in->own_fd)
		close(in->fd);
	free(in->raw);
	free(in);
}
