/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit compress: write a trace as seekable zstd.
 *
 * Every tracekit command reads gzip, zstd and xz traces directly; this one
 * makes the form that is best for them: independent zstd frames and a seek
 * table, so the browser and dump jump anywhere without a checkpoint table,
 * and any zstd tool still decompresses it.  The input may itself be
 * compressed (it is read through the input layer).  The output is written
 * under a temporary name and renamed into place; the input is never
 * overwritten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/input.h"

enum { OPT_LEVEL = 256, OPT_FRAME_SIZE, OPT_THREADS, OPT_FORCE };

struct opts {
	tk_zstd_seekable_opts z;
	bool force;
};

static const struct option extra[] = {
	{"level", required_argument, NULL, OPT_LEVEL},
	{"frame-size", required_argument, NULL, OPT_FRAME_SIZE},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"force", no_argument, NULL, OPT_FORCE},
	{NULL, 0, NULL, 0},
};

/* "4M", "512K", "1G", "65536". */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return false;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if ((*end == 'i' || *end == 'B') && shift)	/* 4MiB, 4MB */
		end += end[0] == 'i' && end[1] == 'B' ? 2 : 1;
	if (*end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct opts *o = ctx;
	uint64_t v;
	char *end;
	switch (val) {
	case OPT_LEVEL:
		v = strtoull(arg, &end, 10);
		if (*end || end == arg || v < 1 || v > 19) {
			tk_cli_error(cli, "--level: '%s' is not a level from 1 to 19", arg);
			return 1;
		}
		o->z.level = (int)v;
		return 0;
	case OPT_FRAME_SIZE:
		if (!parse_size(arg, &v) || v < 4096 || v > (1u << 30)) {
			tk_cli_error(cli, "--frame-size: '%s' is not a size from 4K to 1G", arg);
			return 1;
		}
		o->z.frame_size = (size_t)v;
		return 0;
	case OPT_THREADS:
		v = strtoull(arg, &end, 10);
		if (*end || end == arg || v < 1 || v > 256) {
			tk_cli_error(cli, "--threads: '%s' is not a number from 1 to 256", arg);
			return 1;
		}
		o->z.threads = (unsigned)v;
		return 0;
	case OPT_FORCE:
		o->force = true;
		return 0;
	}
	return 1;
}

/* TRACE with a .gz/.xz/.zst/.zstd suffix replaced by .zst (malloc'd). */
static char *default_output(const char *trace)
{
	static const char *const sufs[] = {".gz", ".xz", ".zst", ".zstd", ".tgz"};
	size_t n = strlen(trace);
	for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
		size_t k = strlen(sufs[i]);
		if (n > k && !strcmp(trace + n - k, sufs[i])) {
			n -= k;
			break;
		}
	}
	char *out = malloc(n + 5);
	if (out) {
		memcpy(out, trace, n);
		memcpy(out + n, ".zst", 5);
	}
	return out;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	tk_cli_progress(ctx, "compressing", done, total);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int tk_cmd_compress(int argc, char **argv)
{
	static struct opts o;
	tk_zstd_seekable_opts_init(&o.z);
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary =
		"Compress a trace into seekable zstd: frames compressed independently and\n"
		"a seek table, so that browse and dump jump anywhere in it at once.  Every\n"
		"tracekit command reads .gz, .zst and .xz traces directly (found by their\n"
		"content); this is the form they read best, and the zstd tool still\n"
		"decompresses it.  TRACE may be compressed already, or '-' for standard\n"
		"input.  The output (default: TRACE with its .gz/.xz/.zst suffix replaced\n"
		"by .zst) is written under a temporary name and renamed into place; an\n"
		"existing default output is kept unless --force, and the input is never\n"
		"overwritten.",
		.options_help =
		"  --level=N                zstd compression level, 1-19 (default 7)\n"
		"  --frame-size=SIZE        decompressed bytes per frame (K, M, G suffixes;\n"
		"                           default 4M): smaller frames jump faster and\n"
		"                           compress a little less\n"
		"  --threads=N              compressing threads (default: one per CPU)\n"
		"  -f, --force              replace an existing default output\n",
		.flags = TK_CLI_OUTPUT,
		.min_args = 1,
		.max_args = 1,
		.extra = extra,
		.handle = handle,
		.ctx = &o,
	};
	/* -f is --force (the common layer knows only long options here). */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-f"))
			argv[i] = (char *)"--force";
		else if (!strcmp(argv[i], "--"))
			break;
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	const char *trace = cli.args[0];
	const char *name = !strcmp(trace, "-") ? "<stdin>" : trace;
	cli.trace = name;
	bool is_stdin = !strcmp(trace, "-");
	char *def = NULL;
	if (!cli.output) {
		if (is_stdin) {
			cli.output = "-";
		} else {
			if (!(def = default_output(trace))) {
				tk_cli_error(&cli, "out of memory");
				return TK_EXIT_FAIL;
			}
			if (!strcmp(def, trace)) {
				tk_cli_error(&cli, "%s: the output would replace the trace: give -o FILE", trace);
				free(def);
				return TK_EXIT_USAGE;
			}
			if (!o.force && access(def, F_OK) == 0) {
				tk_cli_error(&cli, "%s exists: give -o FILE, or --force to replace it", def);
				free(def);
				return TK_EXIT_FAIL;
			}
			cli.output = def;
		}
	}
	bool to_stdout = !strcmp(cli.output, "-");
	if (to_stdout && isatty(STDOUT_FILENO)) {
		tk_cli_error(&cli, "not writing compressed data to a terminal: give -o FILE");
		free(def);
		return TK_EXIT_USAGE;
	}
	if (!to_stdout && !is_stdin && same_file(trace, cli.output)) {
		tk_cli_error(&cli, "%s: the output would replace the trace: give another -o FILE",
			     cli.output);
		free(def);
		return TK_EXIT_USAGE;
	}
	tk_input *in;
	int rc = tk_input_open(trace, NULL, &in);
	if (rc < 0) {
		tk_cli_error(&cli, "%s: %s", trace,
			     rc == TK_ERR_OPEN ? strerror(errno) : tk_strerror(rc));
		free(def);
		return TK_EXIT_FAIL;
	}
	FILE *fp = tk_cli_open_output(&cli);
	if (!fp) {
		tk_input_close(in);
		free(def);
		return TK_EXIT_FAIL;
	}
	fflush(fp);
	o.z.progress = on_progress;
	o.z.progress_ctx = &cli;
	double t0 = now_s();
	tk_zstd_seekable_stats st;
	rc = tk_zstd_seekable_write(in, fileno(fp), &o.z, &st);
	tk_cli_progress_clear();
	int status = TK_EXIT_OK;
	if (rc < 0) {
		if (*tk_input_error(in))
			tk_cli_error(&cli, "%s: %s", name, tk_input_error(in));
		else if (rc == TK_ERR_IO)
			tk_cli_error(&cli, "%s: write error: %s", to_stdout ? "standard output" : cli.output,
				     strerror(errno));
		else
			tk_cli_error(&cli, "%s", tk_strerror(rc));
		tk_cli_discard_output(&cli, fp);
		status = TK_EXIT_FAIL;
	} else if (tk_cli_close_output(&cli, fp)) {
		status = TK_EXIT_FAIL;
	} else if (!cli.quiet) {
		double dt = now_s() - t0;
		fprintf(stderr, "%s: %s -> %s: %llu -> %llu bytes (%.2f%%), %llu frame%s, %.2f s (%.0f MB/s)\n",
			cli.prog, name, to_stdout ? "<stdout>" : cli.output,
			(unsigned long long)st.in_bytes, (unsigned long long)st.out_bytes,
			st.in_bytes ? 100.0 * st.out_bytes / st.in_bytes : 0.0,
			(unsigned long long)st.frames, st.frames == 1 ? "" : "s", dt,
			dt > 0 ? st.in_bytes / dt / 1e6 : 0.0);
	}
	tk_input_close(in);
	free(def);
	return status;
}
