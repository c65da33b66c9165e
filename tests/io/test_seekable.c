/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests of the seekable zstd writer and of XXH64.
 *
 * usage: test_seekable CASE WORKDIR
 *   xxh64   published values, and libzstd's own frame checksums (the low
 *           32 bits of XXH64 of the content) for many lengths
 *   writer  the same bytes for 1 and 2 threads; the zstd tool decodes the
 *           output; the seek table describes every frame; empty input
 */
#include <zstd.h>

#include "io_util.h"
#include "io/input_impl.h"

static void xxh64(void)
{
	CHECK_EQ(tk_xxh64("", 0, 0), 0xEF46DB3751D8E999ull);
	CHECK_EQ(tk_xxh64("abc", 3, 0), 0x44BC2CF5AD770999ull);
	size_t len;
	char *text = make_text(200000, &len);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	size_t cap = ZSTD_compressBound(len);
	uint8_t *z = malloc(cap);
	for (size_t n = 0; n < len; n = n < 100 ? n + 1 : n * 3 / 2 + rng() % 97) {
		size_t off = (size_t)(rng() % 8);	/* unaligned starts too */
		if (off + n > len)
			break;
		size_t r = ZSTD_compress2(cc, z, cap, text + off, n);
		CHECK(!ZSTD_isError(r) && r >= 4);
		CHECKF(tk_le32(z + r - 4) == (uint32_t)tk_xxh64(text + off, n, 0), "length %zu", n);
	}
	free(z);
	free(text);
	ZSTD_freeCCtx(cc);
}

static void writer(void)
{
	size_t len;
	char *text = make_all(&len);
	const char *plain = plain_path();
	char a[1024], b[1024];
	snprintf(a, sizeof a, "%s", path_of("one.zst"));
	snprintf(b, sizeof b, "%s", path_of("two.zst"));
	CHECK(write_seekable(plain, a, 262144, 1) == 0);
	CHECK(write_seekable(plain, b, 262144, 2) == 0);
	size_t na, nb;
	uint8_t *pa = read_file(a, &na), *pb = read_file(b, &nb);
	CHECK(na == nb && !memcmp(pa, pb, na));
	/* the seek table: one entry per frame, sizes adding up */
	size_t frames = (len + 262143) / 262144;
	CHECK_EQ(tk_le32(pa + na - 4), 0x8F92EAB1u);
	CHECK_EQ(pa[na - 5], 0x80);
	CHECK_EQ(tk_le32(pa + na - 9), frames);
	const uint8_t *t = pa + na - 9 - 12 * frames;
	CHECK_EQ(tk_le32(t - 8), 0x184D2A5Eu);
	CHECK_EQ(tk_le32(t - 4), 12 * frames + 9);
	uint64_t in = 0, out = 0;
	for (size_t i = 0; i < frames; i++) {
		uint32_t cs = tk_le32(t + 12 * i), ds = tk_le32(t + 12 * i + 4);
		CHECK_EQ(ZSTD_getFrameContentSize(pa + in, cs), ds);
		CHECK_EQ(ZSTD_findFrameCompressedSize(pa + in, cs), cs);
		CHECK_EQ(tk_le32(t + 12 * i + 8), (uint32_t)tk_xxh64(text + out, ds, 0));
		in += cs;
		out += ds;
	}
	CHECK_EQ(out, len);
	CHECK_EQ(in + 8 + 12 * frames + 9, na);
	free(pa);
	free(pb);
	/* the reference decoder reads it as one zstd stream */
	char cmd[3000];
	snprintf(cmd, sizeof cmd, "zstd -q -d -c '%s' | cmp -s - '%s'", a, plain);
	CHECK(system(cmd) == 0);
	/* empty input: a seek table of no frame */
	write_file(path_of("empty.txt"), "", 0);
	CHECK(write_seekable(path_of("empty.txt"), path_of("empty.zst"), 0, 2) == 0);
	tk_input *inp;
	CHECK(tk_input_open(path_of("empty.zst"), NULL, &inp) == 0);
	CHECK(tk_input_is_seekable_zstd(inp) && tk_input_size(inp) == 0);
	uint8_t buf[16];
	size_t got = 1;
	CHECK(tk_input_read(inp, buf, sizeof buf, &got) == 0 && got == 0);
	CHECK(tk_input_pread(inp, 0, buf, sizeof buf, &got) == 0 && got == 0);
	tk_input_close(inp);
	snprintf(cmd, sizeof cmd, "zstd -q -t '%s'", path_of("empty.zst"));
	CHECK(system(cmd) == 0);
	/* bad options */
	CHECK(tk_input_open(plain, NULL, &inp) == 0);
	tk_zstd_seekable_opts o;
	tk_zstd_seekable_opts_init(&o);
	o.frame_size = (size_t)2 << 30;
	CHECK(tk_zstd_seekable_write(inp, 1, &o, NULL) == TK_ERR_INVAL);
	o.frame_size = 0;
	o.level = 99;
	CHECK(tk_zstd_seekable_write(inp, 1, &o, NULL) == TK_ERR_INVAL);
	tk_input_close(inp);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_seekable CASE WORKDIR\n");
		return 2;
	}
	workdir = argv[2];
	mkdir(workdir, 0755);
	if (!strcmp(argv[1], "xxh64"))
		xxh64();
	else if (!strcmp(argv[1], "writer"))
		writer();
	else {
		fprintf(stderr, "unknown case %s\n", argv[1]);
		return 2;
	}
	return check_report(argv[1]);
}
