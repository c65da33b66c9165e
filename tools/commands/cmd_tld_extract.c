/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld-extract: the trace buffer of a program trace-linked with
 * trace-buffer-generator, rebuilt from the memory writes of a Tarmac trace
 * of it (for instance one `tracekit record` made), with the names and
 * signatures from its ELF image, written as a dump file.  Each record's
 * time is the trace time of the write of its first word. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/tld_dump.h"

static void print_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : cli->prog,
		d->level == TK_DIAG_ERROR ? "error" : "warning", d->msg);
}

int tk_cmd_tld_extract(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "--image=ELF [-o DUMP] TRACE",
		.summary = "Rebuild the trace buffer of a program linked by `tracekit tld` with the\n"
			   "trace-buffer generator from the memory writes in a Tarmac TRACE of it,\n"
			   "and write it as a dump file (for tld-dump and the report tools) with\n"
			   "the function names and signatures read from the image.  The time of\n"
			   "each record is the trace time of the write of its first word.",
		.flags = TK_CLI_TRACE | TK_CLI_OUTPUT | TK_CLI_IMAGE,
		.min_args = 0,
		.max_args = 0,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (!cli.image) {
		tk_cli_error(&cli, "--image=ELF is required: the trace-linked program");
		return TK_EXIT_USAGE;
	}
	if ((!cli.output || !strcmp(cli.output, "-")) && isatty(1)) {
		tk_cli_error(&cli, "the dump is binary: give -o FILE (or redirect the output)");
		return TK_EXIT_USAGE;
	}
	if (tk_cli_load_image(&cli))
		return TK_EXIT_FAIL;
	tk_tld_image *img;
	if (tk_tld_image_load(cli.image, print_diag, &cli, &img)) {
		tk_cli_fini(&cli);
		return TK_EXIT_FAIL;
	}
	int status = TK_EXIT_FAIL;
	tk_tld_extract *x = NULL;
	tk_source *src = NULL;
	FILE *out = NULL;
	if (tk_tld_extract_new(img, &x)) {
		tk_cli_error(&cli, "out of memory");
		goto done;
	}
	if (tk_cli_open_trace(&cli, &src))
		goto done;
	tk_event ev;
	int rc;
	while ((rc = tk_cli_next(&cli, src, &ev)) > 0)
		if (ev.kind == TK_EV_MEM)
			tk_tld_extract_mem(x, &ev.u.mem, ev.time);
	tk_cli_close_trace(&cli, src);	/* frees src */
	src = NULL;
	if (rc < 0)
		goto done;
	if (!tk_tld_extract_writes(x))
		fprintf(stderr, "%s: warning: %s: no write to the trace buffer: no call was recorded "
				"(are the functions enabled, and is the trace of this program?)\n",
			cli.prog, cli.trace);
	if (!(out = tk_cli_open_output(&cli)))
		goto done;
	if (tk_tld_extract_write(x, out)) {
		tk_cli_error(&cli, "%s: write error", cli.output ? cli.output : "standard output");
		tk_cli_discard_output(&cli, out);
		goto done;
	}
	if (tk_cli_close_output(&cli, out) == 0)
		status = TK_EXIT_OK;
done:
	tk_source_free(src);
	tk_tld_extract_free(x);
	tk_tld_image_free(img);
	tk_cli_fini(&cli);
	return status;
}
