/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the input layer's binary readers.
 *
 * The first byte chooses:
 *   0  the rest is a file: detected, read in order (gzip members and
 *      headers, zstd frames, xz streams), then read at random offsets
 *      (the seekable zstd seek table, the xz index, a checkpoint table
 *      built by a pass);
 *   1  a checkpoint file and a compressed file: u16 length of the
 *      checkpoint file, the checkpoint file, the compressed file.  The
 *      checkpoint file's checksum and identity are set right before it is
 *      used, so the entries themselves (restart offsets, unused bits,
 *      windows) reach the decoders.
 * Nothing may crash, leak, hang or read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/input_impl.h"

static void exercise(tk_input *in, const uint8_t *d, size_t n)
{
	static uint8_t buf[1 << 16];
	size_t got;
	uint64_t total = 0;
	/* in order, bounded: a small file can inflate a lot */
	while (total < (4u << 20) && tk_input_read(in, buf, sizeof buf, &got) == 0 && got)
		total += got;
	if (tk_input_random_access(in) < 0)
		return;
	uint64_t size = tk_input_size(in);
	for (size_t i = 0; i < 6 && i + 4 <= n; i++) {
		uint64_t off = size ? tk_le32(d + i) % (size + 16) : 0;
		if (tk_input_pread(in, off, buf, 1 + d[i] * 16, &got) < 0)
			break;
	}
}

static void checkpoints(const uint8_t *d, size_t n)
{
	if (n < 2)
		return;
	size_t clen = (size_t)(d[0] | d[1] << 8);
	d += 2;
	n -= 2;
	if (clen > n || clen < 72)
		return;
	const uint8_t *trace = d + clen;
	size_t tlen = n - clen;
	uint8_t *ck = malloc(clen);
	memcpy(ck, d, clen);
	memcpy(ck, "TKCKPT\r\n", 8);
	tk_wle64(ck + 16, tlen);	/* describes the trace below */
	tk_wle64(ck + 24, 0);
	tk_wle64(ck + 32, 0);
	uint64_t count = tk_le64(ck + 48);
	if (count && count <= (clen - 72) / 40) {
		size_t tab = 64 + (size_t)count * 40;
		tk_wle64(ck + tab, tk_xxh64(ck, tab, 0));
	}
	int fd = memfd_create("ckpt", 0);
	if (fd < 0 || write(fd, ck, clen) != (ssize_t)clen) {
		if (fd >= 0)
			close(fd);
		free(ck);
		return;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	tk_input_opts o;
	tk_input_opts_init(&o);
	o.memlimit = 64u << 20;
	o.checkpoint_file = path;
	tk_input *in;
	if (tk_input_open_memory(trace, tlen, "fuzz", &o, &in) == 0) {
		/* the codec field must name the trace's format to be used */
		if (tk_input_get_format(in) == TK_INPUT_GZIP || tk_input_get_format(in) == TK_INPUT_ZSTD) {
			tk_wle32(ck + 12, tk_input_get_format(in) == TK_INPUT_GZIP ? 1 : 2);
			if (count && count <= (clen - 72) / 40) {
				size_t tab = 64 + (size_t)count * 40;
				tk_wle64(ck + tab, tk_xxh64(ck, tab, 0));
			}
			if (pwrite(fd, ck, clen, 0) != (ssize_t)clen) {
				tk_input_close(in);
				close(fd);
				free(ck);
				return;
			}
		}
		uint8_t buf[4096];
		size_t got;
		if (tk_input_random_access(in) == 0)
			for (size_t i = 0; i < 4 && i + 4 <= tlen; i++)
				if (tk_input_pread(in, tk_le32(trace + i) % (tk_input_size(in) + 8), buf,
						   sizeof buf, &got) < 0)
					break;
		tk_input_close(in);
	}
	close(fd);
	free(ck);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] == 1) {
		checkpoints(data + 1, size - 1);
		return 0;
	}
	tk_input_opts o;
	tk_input_opts_init(&o);
	o.memlimit = 64u << 20;
	o.checkpoint_spacing = 4096;
	o.record_checkpoints = data[0] & 2;
	tk_input *in;
	if (tk_input_open_memory(data + 1, size - 1, "fuzz", &o, &in) == 0) {
		exercise(in, data + 1, size - 1);
		tk_input_close(in);
	}
	return 0;
}
