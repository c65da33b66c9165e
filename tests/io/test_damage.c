/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests of the input layer on damaged files: truncated and corrupt
 * compressed data (the bytes before the damage, then an error naming a
 * byte offset; never a crash), bad seek tables, and checkpoint files that
 * are missing, stale, corrupt, truncated or unwritable (rebuilt, with the
 * same answers).
 *
 * usage: test_damage CASE WORKDIR   (CASE: truncated, corrupt, checkpoints)
 */
#include <utime.h>

#include "io_util.h"

static char *text;
static size_t text_len;

/* Copy the variant's file with [cut, end) dropped, or byte `flip`
 * inverted; returns the new path. */
static const char *damaged(const variant *v, uint64_t cut, uint64_t flip, const char *tag)
{
	size_t n;
	uint8_t *p = read_file(variant_path(v), &n);
	if (cut < n)
		n = (size_t)cut;
	if (flip < n)
		p[flip] ^= 0x55;
	static char out[1200];
	snprintf(out, sizeof out, "%s.%s", variant_path(v), tag);
	write_file(out, p, n);
	free(p);
	return out;
}

static uint64_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void truncated(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		uint64_t size = file_size(variant_path(v));
		uint64_t cuts[] = {7, size / 10 + 3, size / 2 + 1, size - size / 50, size - 5};
		for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
			const char *p = damaged(v, cuts[c], UINT64_MAX, "cut");
			tk_input *in;
			CHECK(tk_input_open(p, NULL, &in) == 0);
			uint8_t *all;
			size_t n;
			int rc = read_all(in, &all, &n);
			CHECKF(rc == TK_ERR_EOF || rc == TK_ERR_CORRUPT,
			       "%s cut at %llu: rc %d after %zu bytes", v->name,
			       (unsigned long long)cuts[c], rc, n);
			/* (a cut in the last trailer loses no data) */
			CHECKF(n <= text_len && memcmp(all, text, n) == 0,
			       "%s cut at %llu: %zu bytes, not a prefix", v->name,
			       (unsigned long long)cuts[c], n);
			CHECKF(strstr(tk_input_error(in), "byte") && tk_input_error_offset(in) <= cuts[c],
			       "%s cut at %llu: %s (offset %llu)", v->name, (unsigned long long)cuts[c],
			       tk_input_error(in), (unsigned long long)tk_input_error_offset(in));
			/* the error sticks */
			size_t got;
			CHECK(tk_input_read(in, all, 10, &got) == rc && got == 0);
			free(all);
			tk_input_close(in);
			/* random access: data or an error, never a crash */
			CHECK(tk_input_open(p, NULL, &in) == 0);
			uint8_t b[4096];
			for (int k = 0; k < 20; k++) {
				uint64_t off = rng() % text_len;
				rc = tk_input_pread(in, off, b, sizeof b, &got);
				CHECKF(rc < 0 ? *tk_input_error(in) != 0 : memcmp(b, text + off, got) == 0,
				       "%s cut at %llu: pread %llu: rc %d", v->name,
				       (unsigned long long)cuts[c], (unsigned long long)off, rc);
			}
			tk_input_close(in);
		}
	}
}

static void corrupt(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		uint64_t size = file_size(variant_path(v));
		uint64_t flips[] = {size / 3, size / 2 + 11, size * 4 / 5};
		for (size_t f = 0; f < 3; f++) {
			const char *p = damaged(v, UINT64_MAX, flips[f], "flip");
			tk_input *in;
			CHECK(tk_input_open(p, NULL, &in) == 0);
			uint8_t *all;
			size_t n;
			int rc = read_all(in, &all, &n);
			/* the content checksums (gzip CRC-32, zstd XXH64, xz CRC-64)
			 * catch what the decoder does not */
			CHECKF(rc < 0 && strstr(tk_input_error(in), "byte"), "%s flip at %llu: rc %d: %s",
			       v->name, (unsigned long long)flips[f], rc, tk_input_error(in));
			free(all);
			tk_input_close(in);
			CHECK(tk_input_open(p, NULL, &in) == 0);
			uint8_t b[4096];
			size_t got;
			for (int k = 0; k < 20; k++) {
				uint64_t off = rng() % text_len;
				rc = tk_input_pread(in, off, b, sizeof b, &got);
				CHECK(rc <= 0 && (rc == 0 || *tk_input_error(in)));
			}
			tk_input_close(in);
		}
	}
	/* a bad seek table: sizes that do not add up make it plain zstd, read
	 * whole; a wrong checksum fails the frame it describes */
	const variant *sk = NULL;
	for (size_t i = 0; i < NVARIANTS; i++)
		if (!strcmp(variants[i].name, "seekable"))
			sk = &variants[i];
	uint64_t size = file_size(variant_path(sk));
	size_t frames = (text_len + 299999) / 300000;
	uint64_t table = size - 9 - 12 * frames;	/* the first entry */
	const char *p = damaged(sk, UINT64_MAX, table + 1, "badsize");
	tk_input *in;
	CHECK(tk_input_open(p, NULL, &in) == 0 && !tk_input_is_seekable_zstd(in));
	uint8_t *b = malloc(text_len);
	size_t got;
	CHECK(tk_input_pread(in, 0, b, text_len, &got) == 0 && got == text_len &&
	      !memcmp(b, text, got));
	tk_input_close(in);
	p = damaged(sk, UINT64_MAX, table + 12 + 8, "badsum");	/* frame 1's checksum */
	CHECK(tk_input_open(p, NULL, &in) == 0 && tk_input_is_seekable_zstd(in));
	CHECK(tk_input_pread(in, 10, b, 100, &got) == 0 && !memcmp(b, text + 10, 100));
	int rc = tk_input_pread(in, 300010, b, 100, &got);
	CHECKF(rc == TK_ERR_CORRUPT && strstr(tk_input_error(in), "checksum"), "rc %d: %s", rc,
	       tk_input_error(in));
	tk_input_close(in);
	free(b);
}

/* Open the gzip variant with checkpoint file ck; read at random; return
 * the checkpoint status. */
static const char *use(const char *trace, const char *ck, char *status)
{
	tk_input_opts o;
	tk_input_opts_init(&o);
	o.checkpoint_spacing = 150000;
	o.checkpoint_file = ck;
	tk_input *in;
	CHECK(tk_input_open(trace, &o, &in) == 0);
	uint8_t b[3000];
	for (int k = 0; k < 300; k++) {
		uint64_t off = rng() % text_len;
		size_t got;
		int rc = tk_input_pread(in, off, b, sizeof b, &got);
		size_t want = text_len - off < sizeof b ? text_len - off : sizeof b;
		CHECKF(rc == 0 && got == want && !memcmp(b, text + off, got), "pread %llu: %d %s",
		       (unsigned long long)off, rc, tk_input_error(in));
	}
	strcpy(status, tk_input_checkpoint_status(in));
	tk_input_close(in);
	return status;
}

static void flip_at(const char *path, uint64_t off)
{
	size_t n;
	uint8_t *p = read_file(path, &n);
	if (off < n)
		p[off] ^= 1;
	write_file(path, p, n);
	free(p);
}

static void checkpoints(void)
{
	char st[256];
	for (size_t i = 0; i < 4; i++) {	/* gz, gz-members, zst, zst-frames */
		const variant *v = &variants[i];
		const char *trace = variant_path(v);
		char ck[1200];
		snprintf(ck, sizeof ck, "%s.ckpt", trace);
		unlink(ck);
		CHECKF(!strcmp(use(trace, ck, st), "rebuilt and saved (it was missing)"), "%s", st);
		CHECKF(!strcmp(use(trace, ck, st), "loaded"), "%s", st);
		/* the trace changed (its time): stale */
		struct stat sb;
		stat(trace, &sb);
		struct utimbuf ut = {sb.st_atime, sb.st_mtime + 10};
		utime(trace, &ut);
		CHECKF(strstr(use(trace, ck, st), "stale"), "%s", st);
		CHECKF(!strcmp(use(trace, ck, st), "loaded"), "%s", st);
		/* a damaged entry: the table checksum */
		flip_at(ck, 64 + 9);
		CHECKF(strstr(use(trace, ck, st), "(it was corrupt)"), "%s", st);
		/* another version */
		flip_at(ck, 8);
		CHECKF(strstr(use(trace, ck, st), "of another version"), "%s", st);
		/* cut short */
		size_t n;
		uint8_t *p = read_file(ck, &n);
		write_file(ck, p, n / 2);
		free(p);
		CHECKF(strstr(use(trace, ck, st), "(it was corrupt)"), "%s: %s", v->name, st);
		CHECKF(!strcmp(use(trace, ck, st), "loaded"), "%s", st);
		if (v->format == TK_INPUT_GZIP) {
			/* a damaged window (its own crc): found when used, rebuilt */
			p = read_file(ck, &n);
			uint64_t count = 0;
			memcpy(&count, p + 48, 8);
			uint64_t windows = 64 + 40 * count + 8;
			free(p);
			CHECK(n > windows + 100);
			for (uint64_t off = windows + 50; off < n; off += 997)
				flip_at(ck, off);
			CHECKF(strstr(use(trace, ck, st), "(it was corrupt)"), "%s", st);
			CHECKF(!strcmp(use(trace, ck, st), "loaded"), "%s", st);
		}
		/* not writable: built for this run only */
		CHECKF(strstr(use(trace, path_of("no-such-dir/x.ckpt"), st), "not saved"), "%s", st);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_damage CASE WORKDIR\n");
		return 2;
	}
	workdir = argv[2];
	mkdir(workdir, 0755);
	text = make_all(&text_len);
	if (!strcmp(argv[1], "truncated"))
		truncated();
	else if (!strcmp(argv[1], "corrupt"))
		corrupt();
	else if (!strcmp(argv[1], "checkpoints"))
		checkpoints();
	else {
		fprintf(stderr, "unknown case %s\n", argv[1]);
		return 2;
	}
	free(text);
	return check_report(argv[1]);
}
