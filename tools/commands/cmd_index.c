/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit index (tarmac-index): build the index of a trace, or check that
 * the existing one is up to date, and summarise what it holds. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli_index.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void ckpt_progress(void *ctx, uint64_t done, uint64_t total)
{
	fprintf(stderr, "\rreading %s to build its checkpoint table: %3u%%", (const char *)ctx,
		total ? (unsigned)(done * 100 / total) : 0);
	if (done >= total)
		fputs("\r\033[K", stderr);
}

/* A compressed trace: make sure random access to its text is ready (the
 * checkpoint table beside the index loaded, or rebuilt if it went
 * missing or stale), so that browse and dump jump at once.  Returns 0, or
 * -1 after an error; *what describes it for the summary. */
static int random_access(tk_cli *cli, const tk_index *idx, char *what, size_t n)
{
	tk_input_opts o;
	tk_input_opts_init(&o);
	if (cli->progress) {
		o.progress = ckpt_progress;
		o.progress_ctx = (void *)cli->trace;
	}
	tk_input *in = NULL;
	int rc = tk_index_open_text(idx, cli->trace, &o, &in);
	if (rc == 0 && (rc = tk_input_random_access(in)) < 0)
		tk_cli_error(cli, "%s: %s", cli->trace, tk_input_error(in));
	else if (rc < 0)
		tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(rc));
	if (rc == 0) {
		unsigned long long k = (unsigned long long)tk_input_restart_points(in);
		if (tk_input_is_seekable_zstd(in))
			snprintf(what, n, "seekable zstd, %llu frames", k);
		else if (tk_input_get_format(in) == TK_INPUT_XZ)
			snprintf(what, n, "xz, %llu blocks", k);
		else
			snprintf(what, n, "%llu restart points in %s.ckpt (%s)", k, tk_index_path(idx),
				 tk_input_checkpoint_status(in));
	}
	tk_input_close(in);
	return rc < 0 ? -1 : 0;
}

int tk_cmd_index(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary = "Build the index of TRACE (register and memory state at every\n"
			   "instruction, write history, call tree) if it is missing or out of\n"
			   "date, or reuse it, and print a summary of what it holds.",
		/* --image: formats that decode code from it (Intel PT) */
		.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE,
		.min_args = 0,
		.max_args = 0,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	double t0 = now_ms();
	tk_index *idx;
	tk_status st = tk_cli_open_index(&cli, true, &idx);
	if (st != TK_ST_OK)
		return tk_cli_exit(st);
	double t1 = now_ms();
	tk_index_info in = {.size = sizeof in};
	tk_index_get_info(idx, &in);
	char access[600] = "";
	if (in.trace_format != TK_INPUT_PLAIN && random_access(&cli, idx, access, sizeof access)) {
		tk_index_free(idx);
		return TK_EXIT_FAIL;
	}
	if (cli.only_index || cli.quiet) {
		tk_index_free(idx);
		return TK_EXIT_OK;
	}
	if (in.trace_format != TK_INPUT_PLAIN)
		printf("trace:             %s (%llu bytes, %s-compressed: %llu bytes of text)\n", cli.trace,
		       (unsigned long long)in.trace_size, tk_input_format_name(in.trace_format),
		       (unsigned long long)in.text_size);
	else
		printf("trace:             %s (%llu bytes)\n", cli.trace, (unsigned long long)in.trace_size);
	if (cli.memory_index)
		printf("index:             in memory (%llu bytes, format version %u)\n",
		       (unsigned long long)in.file_size, in.version);
	else
		printf("index:             %s (%llu bytes, format version %u)\n", tk_index_path(idx),
		       (unsigned long long)in.file_size, in.version);
	if (*access)
		printf("random access:     %s\n", access);
	char caps[256];
	printf("format:            %s%s%s (%s)\n", in.format, *in.options ? ", --" : "",
	       in.options, tk_caps_string(in.caps, caps, sizeof caps));
	printf("lines:             %llu\n", (unsigned long long)in.lines);
	if (in.func_steps)
		printf("function events:   %llu\n", (unsigned long long)in.instructions);
	else
		printf("instructions:      %llu\n", (unsigned long long)in.instructions);
	if (in.contexts > 1)
		printf("contexts:          %u (%ss)\n", in.contexts, in.context_name);
	printf("calls:             %llu\n", (unsigned long long)in.calls);
	/* What the source cannot tell is not listed as zero. */
	bool tarmac = in.format && !strcmp(in.format, "tarmac");
	if (in.caps & TK_CAP_REGS) {
		printf("registers seen:    %u\n", in.regs_seen);
		printf("register updates:  %llu\n", (unsigned long long)in.reg_updates);
	}
	if (in.caps & TK_CAP_MEM)
		printf("memory accesses:   %llu\n", (unsigned long long)in.mem_accesses);
	if (in.caps & TK_CAP_MEM_VALUES)
		printf("memory bytes known: %llu of %llu touched\n",
		       (unsigned long long)in.mem_bytes_known,
		       (unsigned long long)in.mem_bytes_touched);
	if (tarmac)
		printf("semihosting calls: %llu\n", (unsigned long long)in.semihosting_calls);
	if (in.caps & (TK_CAP_INSNS | TK_CAP_MEM))
		printf("byte order:        %s%s\n", in.big_endian ? "big-endian" : "little-endian",
		       !tarmac ? "" : in.big_endian ? " (--bi)" : " (--li)");
	printf("build time:        %llu ms\n", (unsigned long long)in.build_ms);
	printf("open time:         %.1f ms\n", t1 - t0);
	if (cli.verbose) {
		printf("registers:        ");
		for (tk_reg r = 0; r < TK_REG_COUNT; r++)
			if (tk_index_reg_seen(idx, r))
				printf(" %s", tk_reg_name(r));
		printf("\n");
	}
	tk_index_free(idx);
	return TK_EXIT_OK;
}
