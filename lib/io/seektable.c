/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading the seek table of a seekable zstd file.
 *
 * The seekable format: zstd frames compressed independently, then one
 * skippable frame (magic 0x184D2A5E, a 4-byte size) holding the seek
 * table: one entry per frame before it (compressed size, decompressed size,
 * each 4 bytes, and a 4-byte checksum, the low 32 bits of the XXH64 of the
 * frame's content, when the descriptor's top bit says so), then a 9-byte
 * footer: the number of frames (4 bytes), the descriptor (1 byte: bit 7
 * checksums, bits 6-2 reserved, must be 0) and the magic 0x8F92EAB1, the
 * last 4 bytes of the file.  The frames' compressed sizes add up to the
 * offset of the seek table frame.
 */
#include <stdlib.h>

#include "input_impl.h"

int tk_seektable_read(const tk_raw *raw, tk_ckpt_table *t)
{
	uint64_t fsize = raw->size;
	uint8_t foot[TK_SEEKABLE_FOOTER];
	size_t got;
	if (fsize < 8 + TK_SEEKABLE_FOOTER)
		return 0;
	int rc = tk_raw_pread(raw, fsize - TK_SEEKABLE_FOOTER, foot, sizeof foot, &got);
	if (rc < 0)
		return rc;
	if (got != sizeof foot || tk_le32(foot + 5) != TK_SEEKABLE_MAGIC)
		return 0;
	uint32_t nframes = tk_le32(foot);
	uint8_t desc = foot[4];
	if (desc & 0x7c)
		return TK_ERR_CORRUPT;	/* reserved bits: a newer format */
	bool sums = desc & 0x80;
	uint64_t esize = sums ? 12 : 8;
	uint64_t tsize = 8 + (uint64_t)nframes * esize + TK_SEEKABLE_FOOTER;
	if (nframes > TK_SEEKABLE_MAX_FRAMES || tsize > fsize)
		return TK_ERR_CORRUPT;
	uint8_t *tab = malloc((size_t)tsize);
	if (!tab)
		return TK_ERR_NOMEM;
	uint64_t toff = fsize - tsize;
	rc = tk_raw_pread(raw, toff, tab, (size_t)tsize, &got);
	if (rc < 0 || got != tsize) {
		free(tab);
		return rc < 0 ? rc : TK_ERR_CORRUPT;
	}
	if (tk_le32(tab) != TK_SEEKABLE_SKIP_MAGIC || tk_le32(tab + 4) != tsize - 8) {
		free(tab);
		return TK_ERR_CORRUPT;
	}
	tk_ckpt_free(t);
	t->has_sums = sums;
	uint64_t in = 0, out = 0;
	rc = 0;
	for (uint32_t i = 0; i < nframes && rc == 0; i++) {
		const uint8_t *e = tab + 8 + i * esize;
		uint32_t csize = tk_le32(e), dsize = tk_le32(e + 4);
		if (dsize && (csize == 0 || in + csize > toff))
			rc = TK_ERR_CORRUPT;
		else if (dsize)	/* frames without content are never a restart point */
			rc = tk_ckpt_add(t, out, in, sums ? tk_le32(e + 8) : 0, NULL, 0);
		in += csize;
		out += dsize;
	}
	free(tab);
	if (rc == 0 && in != toff)
		rc = TK_ERR_CORRUPT;
	if (rc < 0) {
		tk_ckpt_free(t);
		return rc;
	}
	t->total_out = out;
	t->total_in = toff;
	t->complete = true;
	return 1;
}
