/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit ptdump: the packets of an Intel PT trace, as libipt's ptdump
 * prints them. */
#include <string.h>

#include "pt_cli.h"

enum { OPT_NO_OFFSET = PTO_LAST + 1, OPT_NO_PAD, OPT_NO_TIMING };

struct ptdump_ctx {
	tk_pt_cli p;
	tk_pt_dump_opts d;
};

static int handle(tk_cli *cli, int val, const char *arg, void *vctx)
{
	struct ptdump_ctx *c = vctx;
	switch (val) {
	case OPT_NO_OFFSET: c->d.no_offset = true; return 0;
	case OPT_NO_PAD: c->d.no_pad = true; return 0;
	case OPT_NO_TIMING: c->d.no_timing = true; return 0;
	}
	return tk_pt_cli_option(cli, &c->p, val, arg) == 0 ? 0 : -1;
}

static int print_line(void *ctx, const char *text)
{
	FILE *fp = ctx;
	fputs(text, fp);
	putc('\n', fp);
	return ferror(fp) ? 1 : 0;	/* the write error is reported at close */
}

int tk_cmd_ptdump(int argc, char **argv)
{
	static const struct option extra[] = {
		TK_PT_CLI_OPTIONS,
		{"no-offset", no_argument, NULL, OPT_NO_OFFSET},
		{"no-pad", no_argument, NULL, OPT_NO_PAD},
		{"no-timing", no_argument, NULL, OPT_NO_TIMING},
		{0},
	};
	struct ptdump_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	tk_pt_dump_opts_init(&ctx.d);
	const tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary = "Print the packets of an Intel PT trace (raw PT or perf.data), one per line,\n"
			   "as libipt's ptdump prints them: the offset, the packet, its payload.  A\n"
			   "packet that cannot be decoded is reported as [OFFSET: error decoding\n"
			   "packet: MESSAGE] and the dump goes on at the next PSB.  perf.data buffers\n"
			   "are dumped one after the other, each under [buffer N, cpu C].",
		.options_help = "  --no-offset              do not show the offset column\n"
				"  --no-pad                 do not show PAD packets\n"
				"  --no-timing              do not show timing packets (tsc, cbr, tma, mtc, cyc)\n"
				TK_PT_CLI_HELP,
		.flags = TK_CLI_OUTPUT,
		.min_args = 0,
		.max_args = 1,
		.extra = extra,
		.handle = handle,
		.ctx = &ctx,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (tk_pt_cli_trace(&cli, &ctx.p) < 0)
		return TK_EXIT_USAGE;
	tk_pt *pt;
	if (tk_pt_cli_open(&cli, &ctx.p, &pt))
		return TK_EXIT_FAIL;
	FILE *fp = tk_cli_open_output(&cli);
	if (!fp) {
		tk_pt_free(pt);
		return TK_EXIT_FAIL;
	}
	int rc = 0;
	for (unsigned i = 0; i < tk_pt_stream_count(pt) && rc == 0; i++) {
		if (tk_pt_format_of(pt) == TK_PT_FORMAT_PERF) {
			tk_pt_stream_info si;
			tk_pt_stream(pt, i, &si);
			fprintf(fp, "[buffer %u, cpu %u]\n", si.index, si.cpu);
		}
		rc = tk_pt_dump(pt, i, &ctx.d, print_line, fp);
	}
	tk_pt_free(pt);
	if (rc < 0)
		tk_cli_error(&cli, "%s", tk_strerror(rc));
	if (rc < 0) {
		tk_cli_discard_output(&cli, fp);
		return TK_EXIT_FAIL;
	}
	return tk_cli_close_output(&cli, fp) ? TK_EXIT_FAIL : TK_EXIT_OK;
}
