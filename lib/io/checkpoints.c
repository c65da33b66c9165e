/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the checkpoint table of a gzip or plain zstd file, and the
 * file that keeps it between runs.
 *
 * A checkpoint is a place where decompression can start again: for zstd
 * a frame boundary; for gzip a deflate block boundary (the file offset,
 * the unused bits of the byte before it) with the 32 KiB of output before
 * it, which the following blocks may copy from, as zlib's zran example
 * does.  Windows are stored deflated; while recording they go to an
 * anonymous temporary file, so memory does not grow with the trace.
 *
 * The checkpoint file (all integers little-endian):
 *
 *   0   8  magic "TKCKPT\r\n"
 *   8   4  format version (1)
 *   12  4  codec: 1 gzip, 2 zstd
 *   16  8  size of the compressed file it describes
 *   24  8  its modification time, ns since the epoch
 *   32  8  its status change time, ns
 *   40  8  decompressed size
 *   48  8  number of checkpoints N
 *   56  8  checkpoint spacing (informative)
 *   64  N x 40 bytes, one per checkpoint, decompressed offsets increasing:
 *        0 u64 decompressed offset    8 u64 compressed offset
 *       16 u64 offset of its window in this file
 *       24 u32 stored window bytes (0: none)   28 u32 crc32 of them
 *       32 u32 gzip: unused bits (0-7) | the byte before << 8 |
 *              1 << 16 if a member header starts there
 *       36 u32 zero
 *   64 + 40N  8  XXH64 of every byte before it
 *   then the windows (raw deflate), each checked by its crc32 when used.
 *
 * The file is written under a temporary name and renamed into place; it is
 * rebuilt when the compressed file's size or times differ from those
 * recorded, or when it fails a check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "input_impl.h"

#define MAGIC "TKCKPT\r\n"
#define VERSION 1
#define HDR 64
#define ENTRY 40

void tk_ckpt_init(tk_ckpt_table *t, uint64_t spacing)
{
	memset(t, 0, sizeof *t);
	t->spacing = spacing;
	t->fd = -1;
}

void tk_ckpt_free(tk_ckpt_table *t)
{
	free(t->v);
	if (t->spill)
		fclose(t->spill);
	if (t->fd >= 0)
		close(t->fd);
	tk_ckpt_init(t, t->spacing);
}

int tk_ckpt_add(tk_ckpt_table *t, uint64_t out, uint64_t in, uint32_t aux,
		const uint8_t *window, size_t wlen)
{
	if (t->n && out <= t->v[t->n - 1].out)
		return 0;	/* never two for one offset */
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 64;
		tk_ckpt *v = realloc(t->v, c * sizeof *v);
		if (!v)
			return TK_ERR_NOMEM;
		t->v = v;
		t->cap = c;
	}
	tk_ckpt *k = &t->v[t->n];
	memset(k, 0, sizeof *k);
	k->out = out;
	k->in = in;
	k->aux = aux;
	if (window && wlen) {
		uint8_t z[TK_GZ_WINDOW + 1024];
		z_stream zs;
		memset(&zs, 0, sizeof zs);
		if (deflateInit2(&zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return TK_ERR_NOMEM;
		zs.next_in = (Bytef *)window;
		zs.avail_in = (uInt)wlen;
		zs.next_out = z;
		zs.avail_out = sizeof z;
		int zr = deflate(&zs, Z_FINISH);
		size_t zlen = sizeof z - zs.avail_out;
		deflateEnd(&zs);
		if (zr != Z_STREAM_END)
			return TK_ERR_NOMEM;
		if (!t->spill && !(t->spill = tmpfile()))
			return TK_ERR_IO;
		if (fwrite(z, 1, zlen, t->spill) != zlen)
			return TK_ERR_IO;
		k->win_off = t->spill_len;
		k->win_len = (uint32_t)zlen;
		k->win_crc = (uint32_t)crc32(0, z, (uInt)zlen);
		t->spill_len += zlen;
	}
	t->n++;
	return 0;
}

size_t tk_ckpt_find(const tk_ckpt_table *t, uint64_t out)
{
	size_t lo = 0, hi = t->n;	/* the answer is in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].out <= out)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Read stored bytes [off, off + n) of the windows. */
static int read_stored(const tk_ckpt_table *t, uint64_t off, uint8_t *buf, size_t n)
{
	size_t done = 0;
	if (t->spill) {
		if (fflush(t->spill) != 0)
			return TK_ERR_IO;
		while (done < n) {
			ssize_t k = pread(fileno(t->spill), buf + done, n - done, (off_t)(off + done));
			if (k <= 0)
				return TK_ERR_IO;
			done += (size_t)k;
		}
		return 0;
	}
	if (t->fd < 0)
		return TK_ERR_CORRUPT;
	while (done < n) {
		ssize_t k = pread(t->fd, buf + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 ? TK_ERR_CORRUPT : TK_ERR_IO;
		done += (size_t)k;
	}
	return 0;
}

int tk_ckpt_window(const tk_ckpt_table *t, size_t k, uint8_t *win, size_t *wlen)
{
	const tk_ckpt *c = &t->v[k];
	*wlen = 0;
	if (!c->win_len)
		return 0;
	uint8_t *z = malloc(c->win_len);
	if (!z)
		return TK_ERR_NOMEM;
	int rc = read_stored(t, c->win_off, z, c->win_len);
	if (rc == 0 && (uint32_t)crc32(0, z, c->win_len) != c->win_crc)
		rc = TK_ERR_CORRUPT;
	if (rc == 0) {
		z_stream zs;
		memset(&zs, 0, sizeof zs);
		if (inflateInit2(&zs, -15) != Z_OK) {
			free(z);
			return TK_ERR_NOMEM;
		}
		zs.next_in = z;
		zs.avail_in = c->win_len;
		zs.next_out = win;
		zs.avail_out = TK_GZ_WINDOW;
		int zr = inflate(&zs, Z_FINISH);
		*wlen = TK_GZ_WINDOW - zs.avail_out;
		inflateEnd(&zs);
		if (zr != Z_STREAM_END)
			rc = TK_ERR_CORRUPT;
	}
	free(z);
	return rc;
}

/* ---- the file ---- */

static void put_header(uint8_t *h, const tk_ckpt_table *t, int codec, const tk_raw *id)
{
	memset(h, 0, HDR);
	memcpy(h, MAGIC, 8);
	tk_wle32(h + 8, VERSION);
	tk_wle32(h + 12, codec == TK_INPUT_GZIP ? 1 : 2);
	tk_wle64(h + 16, id->size);
	tk_wle64(h + 24, id->mtime_ns);
	tk_wle64(h + 32, id->ctime_ns);
	tk_wle64(h + 40, t->total_out);
	tk_wle64(h + 48, t->n);
	tk_wle64(h + 56, t->spacing);
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return TK_ERR_IO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int tk_ckpt_save(const tk_ckpt_table *t, const char *path, int codec, const tk_raw *id)
{
	if (!t->complete || !t->n)
		return TK_ERR_INVAL;
	size_t tablen = HDR + (size_t)t->n * ENTRY + 8;
	uint8_t *tab = malloc(tablen);
	char *tmp = malloc(strlen(path) + 16);
	if (!tab || !tmp) {
		free(tab);
		free(tmp);
		return TK_ERR_NOMEM;
	}
	put_header(tab, t, codec, id);
	uint64_t woff = tablen;
	for (size_t i = 0; i < t->n; i++) {
		const tk_ckpt *c = &t->v[i];
		uint8_t *e = tab + HDR + i * ENTRY;
		memset(e, 0, ENTRY);
		tk_wle64(e, c->out);
		tk_wle64(e + 8, c->in);
		tk_wle64(e + 16, c->win_len ? woff : 0);
		tk_wle32(e + 24, c->win_len);
		tk_wle32(e + 28, c->win_crc);
		tk_wle32(e + 32, c->aux);
		woff += c->win_len;
	}
	tk_wle64(tab + tablen - 8, tk_xxh64(tab, tablen - 8, 0));

	sprintf(tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	int rc = fd < 0 ? TK_ERR_OPEN : 0;
	if (rc == 0) {
		mode_t um = umask(0);
		umask(um);
		fchmod(fd, 0666 & ~um);
		rc = write_all(fd, tab, tablen);
	}
	uint8_t *w = rc == 0 ? malloc(TK_GZ_WINDOW + 1024) : NULL;
	if (rc == 0 && !w)
		rc = TK_ERR_NOMEM;
	for (size_t i = 0; rc == 0 && i < t->n; i++) {
		const tk_ckpt *c = &t->v[i];
		if (!c->win_len)
			continue;
		if (c->win_len > TK_GZ_WINDOW + 1024)
			rc = TK_ERR_CORRUPT;
		else if ((rc = read_stored(t, c->win_off, w, c->win_len)) == 0)
			rc = write_all(fd, w, c->win_len);
	}
	free(w);
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = TK_ERR_IO;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = TK_ERR_IO;
	if (rc < 0 && fd >= 0)
		unlink(tmp);
	free(tab);
	free(tmp);
	return rc;
}

int tk_ckpt_parse(tk_ckpt_table *t, const uint8_t *p, size_t n, int codec, const tk_raw *id)
{
	if (n < HDR + 8 || memcmp(p, MAGIC, 8) != 0)
		return TK_ERR_CORRUPT;
	if (tk_le32(p + 8) != VERSION)
		return TK_ERR_FORMAT;
	uint64_t count = tk_le64(p + 48);
	if (count == 0 || count > (n - HDR - 8) / ENTRY)
		return TK_ERR_CORRUPT;
	size_t tablen = HDR + (size_t)count * ENTRY + 8;
	if (tk_le64(p + tablen - 8) != tk_xxh64(p, tablen - 8, 0))
		return TK_ERR_CORRUPT;
	if (tk_le32(p + 12) != (codec == TK_INPUT_GZIP ? 1u : 2u) || tk_le64(p + 16) != id->size ||
	    tk_le64(p + 24) != id->mtime_ns || tk_le64(p + 32) != id->ctime_ns)
		return TK_ERR_NOTFOUND;
	tk_ckpt *v = malloc((size_t)count * sizeof *v);
	if (!v)
		return TK_ERR_NOMEM;
	uint64_t total = tk_le64(p + 40);
	for (size_t i = 0; i < count; i++) {
		const uint8_t *e = p + HDR + i * ENTRY;
		tk_ckpt *c = &v[i];
		c->out = tk_le64(e);
		c->in = tk_le64(e + 8);
		c->win_off = tk_le64(e + 16);
		c->win_len = tk_le32(e + 24);
		c->win_crc = tk_le32(e + 28);
		c->aux = tk_le32(e + 32);
		bool bad = c->in > id->size || c->out > total ||
			   (i == 0 ? c->out != 0 || c->in != 0
				   : c->out <= v[i - 1].out || c->in < v[i - 1].in) ||
			   c->win_len > TK_GZ_WINDOW + 1024 || TK_GZ_AUX_BITS(c->aux) > 7 ||
			   (c->win_len && c->win_off < tablen) ||
			   (codec != TK_INPUT_GZIP && (c->win_len || c->aux > TK_GZ_AUX(0, 0, 1)));
		if (bad) {
			free(v);
			return TK_ERR_CORRUPT;
		}
	}
	tk_ckpt_free(t);
	t->v = v;
	t->n = t->cap = (size_t)count;
	t->total_out = total;
	t->complete = true;
	t->spacing = tk_le64(p + 56);
	return 0;
}

int tk_ckpt_load(tk_ckpt_table *t, const char *path, int codec, const tk_raw *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TK_ERR_OPEN;
	struct stat st;
	uint8_t h[HDR];
	ssize_t k = 0;
	int rc = TK_ERR_CORRUPT;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (k = pread(fd, h, HDR, 0)) != HDR ||
	    memcmp(h, MAGIC, 8) != 0)
		goto fail;
	uint64_t count = tk_le64(h + 48);
	if (count == 0 || count > ((uint64_t)st.st_size - HDR) / ENTRY)
		goto fail;
	size_t tablen = HDR + (size_t)count * ENTRY + 8;
	uint8_t *tab = malloc(tablen);
	if (!tab) {
		rc = TK_ERR_NOMEM;
		goto fail;
	}
	if (pread(fd, tab, tablen, 0) != (ssize_t)tablen) {
		free(tab);
		goto fail;
	}
	rc = tk_ckpt_parse(t, tab, tablen, codec, id);
	free(tab);
	if (rc < 0)
		goto fail;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].win_len && t->v[i].win_off + t->v[i].win_len > (uint64_t)st.st_size) {
			tk_ckpt_free(t);
			rc = TK_ERR_CORRUPT;
			goto fail;
		}
	t->fd = fd;
	return 0;
fail:
	close(fd);
	return rc;
}
