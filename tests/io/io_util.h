/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: what the input-layer tests share: a synthetic trace-like
 * text, files compressed by the real tools (gzip, zstd, xz and the
 * library's own seekable writer) in every layout the reader must handle,
 * and reading helpers. */
#ifndef TRACEKIT_TESTS_IO_UTIL_H
#define TRACEKIT_TESTS_IO_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/input.h"

static const char *workdir;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* About n bytes of Tarmac-like lines: varied enough that compressors
 * produce many blocks, regular enough to compress. */
static inline char *make_text(size_t n, size_t *len)
{
	char *s = malloc(n + 256);
	size_t k = 0;
	uint64_t t = 1000, pc = 0x8000;
	while (k < n) {
		uint64_t r = rng();
		switch (r % 4) {
		case 0:
		case 1:
			k += (size_t)sprintf(s + k, "%llu clk IT (%llu) %08llx %08llx A svc_el%u : add x%u, x%u, #%u\n",
					     (unsigned long long)t, (unsigned long long)(t / 2),
					     (unsigned long long)pc, (unsigned long long)(r >> 32),
					     (unsigned)(r % 3), (unsigned)(r >> 8) % 31, (unsigned)(r >> 16) % 31,
					     (unsigned)(r >> 24) % 4096);
			pc += 4;
			break;
		case 2:
			k += (size_t)sprintf(s + k, "%llu clk R X%u %016llx\n", (unsigned long long)t,
					     (unsigned)(r >> 8) % 31, (unsigned long long)(r * 7));
			break;
		default:
			k += (size_t)sprintf(s + k, "%llu clk MW8 %08llx %016llx\n", (unsigned long long)t,
					     (unsigned long long)(r >> 40) << 3, (unsigned long long)r);
		}
		t += 1 + r % 5;
		if (r % 977 == 0)
			pc = 0x8000 + (r >> 20) % 65536 * 4;
	}
	*len = k;
	return s;
}

static inline char *path_of(const char *name)
{
	static char buf[8][1024];
	static int i;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof buf[i], "%s/%s", workdir, name);
	return buf[i];
}

static inline void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static inline uint8_t *read_file(const char *path, size_t *n)
{
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)len + 1);
	*n = fread(p, 1, (size_t)len, f);
	fclose(f);
	return p;
}

static inline void run(const char *cmd)
{
	if (system(cmd) != 0) {
		fprintf(stderr, "failed: %s\n", cmd);
		exit(1);
	}
}

/* Write seekable zstd with the library. */
static inline int write_seekable(const char *from, const char *to, size_t frame, unsigned threads)
{
	tk_input *in;
	int rc = tk_input_open(from, NULL, &in);
	if (rc < 0)
		return rc;
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	tk_zstd_seekable_opts o;
	tk_zstd_seekable_opts_init(&o);
	o.frame_size = frame;
	o.threads = threads;
	o.level = 3;
	rc = tk_zstd_seekable_write(in, fd, &o, NULL);
	close(fd);
	tk_input_close(in);
	return rc;
}

/* The variants: name suffix, how to make it from PLAIN, expected format. */
typedef struct variant {
	const char *name;
	const char *cmd;	/* %1$s plain path, %2$s output path */
	tk_input_format format;
} variant;

static const variant variants[] = {
	{"gz", "gzip -6 -c '%1$s' > '%2$s'", TK_INPUT_GZIP},
	{"gz-members", "head -c 3000000 '%1$s' | gzip -1 -c > '%2$s' && tail -c +3000001 '%1$s' | gzip -9 -c >> '%2$s'",
	 TK_INPUT_GZIP},
	{"zst", "zstd -q -3 -c '%1$s' > '%2$s'", TK_INPUT_ZSTD},
	{"zst-frames", "head -c 2500000 '%1$s' | zstd -q -c > '%2$s' && tail -c +2500001 '%1$s' | zstd -q -12 -c >> '%2$s'",
	 TK_INPUT_ZSTD},
	{"seekable", NULL, TK_INPUT_ZSTD},
	{"xz", "xz -1 -c '%1$s' > '%2$s'", TK_INPUT_XZ},
	{"xz-blocks", "xz -1 --block-size=700000 -c '%1$s' > '%2$s'", TK_INPUT_XZ},
	{"xz-streams", "head -c 1000000 '%1$s' | xz -0 -c > '%2$s' && tail -c +1000001 '%1$s' | xz -1 --block-size=900000 -c >> '%2$s'",
	 TK_INPUT_XZ},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static inline const char *plain_path(void)
{
	return path_of("data.txt");
}

static inline const char *variant_path(const variant *v)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/data.%s", workdir, v->name);
	return buf;
}

/* Make data.txt and every variant (once per work directory). */
static inline char *make_all(size_t *len)
{
	rng_state = 0x9e3779b97f4a7c15ull;
	char *text = make_text(4u << 20, len);
	write_file(plain_path(), text, *len);
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		char out[1024];
		snprintf(out, sizeof out, "%s", variant_path(v));
		if (!v->cmd) {
			if (write_seekable(plain_path(), out, 300000, 2) < 0) {
				fprintf(stderr, "cannot write %s\n", out);
				exit(1);
			}
			continue;
		}
		char cmd[4096];
		snprintf(cmd, sizeof cmd, v->cmd, plain_path(), out);
		run(cmd);
	}
	return text;
}

/* Read everything sequentially; returns the rc that ended it. */
static inline int read_all(tk_input *in, uint8_t **out, size_t *n)
{
	size_t cap = 1 << 20;
	*out = malloc(cap);
	*n = 0;
	for (;;) {
		if (cap - *n < 65536)
			*out = realloc(*out, cap *= 2);
		size_t got;
		size_t want = 1 + rng() % 65535;	/* odd sizes, on purpose */
		int rc = tk_input_read(in, *out + *n, want, &got);
		*n += got;
		if (rc < 0)
			return rc;
		if (!got)
			return 0;
	}
}

#endif
