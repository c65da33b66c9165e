/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests of the input layer (tracekit/input.h) on a 6 MB trace-like text
 * compressed by gzip, zstd and xz in every layout (one member/frame/block,
 * several, several streams) and by the library's seekable zstd writer:
 * sequential reads and random reads at thousands of offsets give exactly
 * the plain bytes; checkpoint tables are recorded, saved, reloaded.
 *
 * usage: test_input CASE WORKDIR
 *   roundtrip  sequential and random reads of every variant
 *   record     checkpoints recorded by a sequential pass, saved, loaded
 *   stream     a pipe reads sequentially, refuses random access
 *   detect     formats by content (not by name), empty and tiny inputs
 */
#include "io_util.h"

static char *text;
static size_t text_len;

static void check_random(tk_input *in, const char *what, unsigned count)
{
	uint8_t *buf = malloc(1 << 20);
	for (unsigned i = 0; i < count; i++) {
		/* mostly jumps anywhere, some runs of nearby reads, some over
		 * the end */
		uint64_t off = i % 7 == 3 ? text_len - rng() % 5000 : rng() % (text_len + 100);
		size_t n = i % 11 == 0 ? (size_t)(rng() % (1 << 20)) : (size_t)(rng() % 5000);
		size_t got;
		int rc = tk_input_pread(in, off, buf, n, &got);
		size_t want = off >= text_len ? 0 : (text_len - off < n ? (size_t)(text_len - off) : n);
		CHECKF(rc == 0 && got == want && memcmp(buf, text + (off < text_len ? off : 0), got) == 0,
		       "%s: pread(%llu, %zu): rc %d got %zu want %zu: %s", what,
		       (unsigned long long)off, n, rc, got, want, tk_input_error(in));
		if (rc || got != want)
			break;
	}
	free(buf);
}

/* One frame or block: a jump back decodes from the start of the file. */
static bool single_unit(const variant *v)
{
	return !strcmp(v->name, "zst") || !strcmp(v->name, "xz");
}

static void roundtrip(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		tk_input *in;
		tk_input_opts o;
		tk_input_opts_init(&o);
		o.checkpoint_spacing = 200000;
		char ck[1200];
		snprintf(ck, sizeof ck, "%s.ckpt", variant_path(v));
		unlink(ck);
		o.checkpoint_file = ck;
		int rc = tk_input_open(variant_path(v), &o, &in);
		CHECKF(rc == 0, "%s: open: %d", v->name, rc);
		if (rc)
			continue;
		CHECKF(tk_input_get_format(in) == v->format, "%s: format %s", v->name,
		       tk_input_format_name(tk_input_get_format(in)));
		CHECK(tk_input_is_seekable_zstd(in) == !strcmp(v->name, "seekable"));
		uint8_t *all;
		size_t n;
		rc = read_all(in, &all, &n);
		CHECKF(rc == 0 && n == text_len && memcmp(all, text, n) == 0,
		       "%s: sequential read: rc %d, %zu bytes of %zu: %s", v->name, rc, n, text_len,
		       tk_input_error(in));
		free(all);
		CHECK_EQ(tk_input_tell(in), text_len);
		struct stat st;
		stat(variant_path(v), &st);
		CHECK_EQ(tk_input_consumed(in), st.st_size);
		/* random access on the same input, then on a fresh one that loads
		 * the checkpoint file the first one saved */
		unsigned reads = single_unit(v) ? 20 : 400;
		check_random(in, v->name, reads);
		CHECK_EQ(tk_input_size(in), text_len);
		bool needs_table = v->format == TK_INPUT_GZIP ||
				   (v->format == TK_INPUT_ZSTD && strcmp(v->name, "seekable"));
		CHECKF(!needs_table || !strncmp(tk_input_checkpoint_status(in), "rebuilt and saved", 17),
		       "%s: %s", v->name, tk_input_checkpoint_status(in));
		uint64_t points = tk_input_restart_points(in);
		tk_input_close(in);
		if (!strcmp(v->name, "gz") || !strcmp(v->name, "xz-blocks") || !strcmp(v->name, "seekable"))
			CHECKF(points > 4, "%s: %llu restart points", v->name, (unsigned long long)points);
		if (!strcmp(v->name, "zst-frames") || !strcmp(v->name, "gz-members"))
			CHECKF(points >= 2, "%s: %llu restart points", v->name, (unsigned long long)points);

		rc = tk_input_open(variant_path(v), &o, &in);
		CHECK(rc == 0);
		if (rc)
			continue;
		CHECK(tk_input_random_access(in) == 0);
		CHECKF(!needs_table || !strcmp(tk_input_checkpoint_status(in), "loaded"), "%s: %s",
		       v->name, tk_input_checkpoint_status(in));
		CHECK_EQ(tk_input_size(in), text_len);
		CHECK_EQ(tk_input_restart_points(in), points);
		check_random(in, v->name, reads);
		tk_input_close(in);
	}
}

/* The checkpoints of a sequential pass, saved and used by another input. */
static void record(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		tk_input_opts o;
		tk_input_opts_init(&o);
		o.record_checkpoints = true;
		o.checkpoint_spacing = 100000;
		tk_input *in;
		if (tk_input_open(variant_path(v), &o, &in))
			continue;
		char ck[1200];
		snprintf(ck, sizeof ck, "%s.rec.ckpt", variant_path(v));
		unlink(ck);
		CHECK(tk_input_save_checkpoints(in, ck) == (v->format == TK_INPUT_PLAIN ? 1 :
			(v->format == TK_INPUT_XZ || !strcmp(v->name, "seekable")) ? 1 : TK_ERR_INVAL));
		uint8_t *all;
		size_t n;
		int rc = read_all(in, &all, &n);
		free(all);
		CHECK(rc == 0 && n == text_len);
		rc = tk_input_save_checkpoints(in, ck);
		bool own = v->format == TK_INPUT_XZ || !strcmp(v->name, "seekable");
		CHECKF(rc == (own ? 1 : 0), "%s: save: %d", v->name, rc);
		/* the recorded table serves random access in the same input */
		check_random(in, v->name, single_unit(v) ? 30 : 300);
		CHECK(*tk_input_checkpoint_status(in) == 0);	/* nothing loaded or built */
		tk_input_close(in);
		if (own)
			continue;
		tk_input_opts_init(&o);
		o.checkpoint_file = ck;
		CHECK(tk_input_open(variant_path(v), &o, &in) == 0);
		check_random(in, v->name, single_unit(v) ? 30 : 300);
		CHECKF(!strcmp(tk_input_checkpoint_status(in), "loaded"), "%s: %s", v->name,
		       tk_input_checkpoint_status(in));
		/* gzip: every 100 KB; zstd: only frame boundaries */
		CHECKF(tk_input_restart_points(in) > (v->format == TK_INPUT_GZIP ? 10u : 1u),
		       "%s: %llu", v->name, (unsigned long long)tk_input_restart_points(in));
		tk_input_close(in);
	}
}

static void stream(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const variant *v = &variants[i];
		char cmd[1200];
		snprintf(cmd, sizeof cmd, "cat '%s'", variant_path(v));
		FILE *p = popen(cmd, "r");
		tk_input *in;
		CHECK(tk_input_open_stream(p, "<pipe>", NULL, &in) == 0);
		CHECK(tk_input_get_format(in) == v->format);
		uint8_t *all;
		size_t n;
		int rc = read_all(in, &all, &n);
		CHECKF(rc == 0 && n == text_len && !memcmp(all, text, n), "%s: rc %d n %zu", v->name, rc, n);
		free(all);
		size_t got;
		uint8_t b[4];
		CHECK(tk_input_pread(in, 0, b, 4, &got) == TK_ERR_UNSUPPORTED);
		CHECK(strstr(tk_input_error(in), "stream") != NULL);
		tk_input_close(in);
		pclose(p);
	}
}

static void detect(void)
{
	static const struct {
		const char *data;
		size_t len;
		tk_input_format f;
		bool error;	/* a compressed stream cut short */
	} cases[] = {
		{"", 0, TK_INPUT_PLAIN, false},
		{"\x1f", 1, TK_INPUT_PLAIN, false},
		{"\x1f\x8b", 2, TK_INPUT_GZIP, true},
		{"\x28\xb5\x2f\xfd", 4, TK_INPUT_ZSTD, true},
		/* an empty skippable frame: a valid zstd stream of nothing */
		{"\x5e\x2a\x4d\x18\0\0\0\0", 8, TK_INPUT_ZSTD, false},
		{"\x5e\x2a\x4d\x18\4\0\0\0", 8, TK_INPUT_ZSTD, true},
		{"\xfd" "7zXZ\0", 6, TK_INPUT_XZ, true},
		{"\xfd" "7zXY\0", 6, TK_INPUT_PLAIN, false},
		{"BZh91AY&SY", 10, TK_INPUT_PLAIN, false},	/* bzip2: the Tarmac source names it */
		{"0 clk IT (0) 00008000 e1a00000 A svc : mov r0,r0\n", 46, TK_INPUT_PLAIN, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tk_input *in;
		CHECK(tk_input_open_memory(cases[i].data, cases[i].len, "mem", NULL, &in) == 0);
		CHECKF(tk_input_get_format(in) == cases[i].f, "case %zu: %s", i,
		       tk_input_format_name(tk_input_get_format(in)));
		uint8_t b[64];
		size_t got;
		int rc = tk_input_read(in, b, sizeof b, &got);
		if (cases[i].f == TK_INPUT_PLAIN)
			CHECK(rc == 0 && got == cases[i].len && !memcmp(b, cases[i].data, got));
		else if (cases[i].error)
			CHECKF(rc < 0 && got == 0 && *tk_input_error(in), "case %zu: rc %d", i, rc);
		else
			CHECKF(rc == 0 && got == 0, "case %zu: rc %d", i, rc);
		tk_input_close(in);
	}
	/* by content, never by name: a gzip file named .txt, a text named .gz */
	tk_input *in;
	char p[2200];
	snprintf(p, sizeof p, "cp '%s' '%s'", variant_path(&variants[0]), path_of("gzip-named.txt"));
	run(p);
	CHECK(tk_input_open(path_of("gzip-named.txt"), NULL, &in) == 0 &&
	      tk_input_get_format(in) == TK_INPUT_GZIP);
	tk_input_close(in);
	write_file(path_of("text-named.gz"), "hello\n", 6);
	CHECK(tk_input_open(path_of("text-named.gz"), NULL, &in) == 0 &&
	      tk_input_get_format(in) == TK_INPUT_PLAIN && tk_input_size(in) == 6);
	tk_input_close(in);
	CHECK(tk_input_open(workdir, NULL, &in) == TK_ERR_ISDIR);
	CHECK(tk_input_open(path_of("no-such-file"), NULL, &in) == TK_ERR_OPEN);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_input CASE WORKDIR\n");
		return 2;
	}
	workdir = argv[2];
	mkdir(workdir, 0755);
	text = make_all(&text_len);
	if (!strcmp(argv[1], "roundtrip"))
		roundtrip();
	else if (!strcmp(argv[1], "record"))
		record();
	else if (!strcmp(argv[1], "stream"))
		stream();
	else if (!strcmp(argv[1], "detect"))
		detect();
	else {
		fprintf(stderr, "unknown case %s\n", argv[1]);
		return 2;
	}
	free(text);
	return check_report(argv[1]);
}
