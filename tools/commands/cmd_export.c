/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit export: the call tree as a file for Perfetto UI / chrome://tracing
 * (--to=chrome) or speedscope (--to=speedscope); see tools/export/export.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "export/export.h"

enum { OPT_TO = 256, OPT_UNIT, OPT_SCALE };

struct options {
	const char *to;
	tke_opts o;
};

static const struct option extra[] = {
	{"to", required_argument, NULL, OPT_TO},
	{"unit", required_argument, NULL, OPT_UNIT},
	{"time-scale", required_argument, NULL, OPT_SCALE},
	{NULL, 0, NULL, 0},
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct options *op = ctx;
	char *end;
	switch (val) {
	case OPT_TO:
		if (strcmp(arg, "chrome") && strcmp(arg, "speedscope")) {
			tk_cli_error(cli, "--to: '%s' is not chrome or speedscope", arg);
			return -1;
		}
		op->to = arg;
		return 0;
	case OPT_UNIT:
		if (!strcmp(arg, "time"))
			op->o.insns = false;
		else if (!strcmp(arg, "instructions") || !strcmp(arg, "insns"))
			op->o.insns = true;
		else {
			tk_cli_error(cli, "--unit: '%s' is not time or instructions", arg);
			return -1;
		}
		return 0;
	case OPT_SCALE:
		errno = 0;
		op->o.scale = strtod(arg, &end);
		if (errno || *end || end == arg || !(op->o.scale > 0)) {
			tk_cli_error(cli, "--time-scale: '%s' is not a positive number", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

int tk_cmd_export(int argc, char **argv)
{
	struct options op = {.to = NULL, .o = {.insns = false, .scale = 1.0}};
	tk_cli_spec spec = {
		.usage = "--to=chrome|speedscope [OPTIONS] TRACE [-o FILE]",
		.summary =
			"Write every function activation of the trace's call tree for a\n"
			"profile viewer: Chrome Trace Event JSON ('X' events with the entry line\n"
			"and pc; opens in Perfetto UI and chrome://tracing) or a speedscope\n"
			"evented profile.  Times are the trace's, one unit shown as one\n"
			"microsecond unless --time-scale says otherwise.",
		.options_help =
			"  --to=FORMAT              chrome or speedscope (required)\n"
			"  --unit=UNIT              time (trace timestamps, default) or instructions\n"
			"  --time-scale=US          microseconds per trace time unit (default 1;\n"
			"                           0.001 for a trace in ns, 1e-6 in ps)\n",
		.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE | TK_CLI_OUTPUT,
		.min_args = 0,
		.max_args = 0,
		.extra = extra,
		.handle = handle,
		.ctx = &op,
	};
	tk_cli cli;
	tk_cli_parse(&cli, argc, argv, &spec);
	if (!op.to) {
		tk_cli_error(&cli, "--to=chrome or --to=speedscope is required");
		return TK_EXIT_USAGE;
	}
	int status = TK_EXIT_FAIL;
	FILE *fp = NULL;
	if (tk_cli_load_image(&cli) || !(fp = tk_cli_open_output(&cli)))
		goto out;
	int rc = !strcmp(op.to, "chrome") ? tke_chrome(&cli, fp, &op.o)
					  : tke_speedscope(&cli, fp, &op.o);
	if (rc) {
		tk_cli_discard_output(&cli, fp);
		goto out;
	}
	if (tk_cli_close_output(&cli, fp) == 0)
		status = TK_EXIT_OK;
out:
	tk_symtab_free(cli.symtab);
	tk_namemap_fini(&cli.names);
	return status;
}
