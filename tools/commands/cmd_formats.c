/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit formats: the trace formats tracekit reads, how each is
 * recognised, what its traces can tell, and its options. */
#include <stdio.h>

#include "cli/cli.h"

int tk_cmd_formats(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS]",
		.summary = "List every trace format tracekit reads: its name (for --format),\n"
			   "how a file of it is recognised, its capabilities (what its events\n"
			   "can tell: instructions, registers, memory, calls, function events,\n"
			   "several contexts, text lines, seeking), the unit of its times and\n"
			   "the options it adds to every command.",
		.flags = 0,
		.min_args = 0,
		.max_args = 0,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	const tk_source_format *const *fmts;
	size_t n = tk_source_formats(&fmts);
	for (size_t i = 0; i < n; i++) {
		const tk_source_format *f = fmts[i];
		char caps[256];
		printf("%s\n", f->name);
		printf("  %s\n", f->summary);
		printf("  detected by:  %s\n", f->detection);
		printf("  capabilities: %s\n", tk_caps_string(f->caps, caps, sizeof caps));
		printf("  time unit:    %s\n", tk_time_unit_name(f->time_unit));
		printf("  stdin:        %s\n", f->open_stream ? "yes" : "no");
		for (const tk_source_option *o = f->options; o && o->name; o++)
			printf("  option:       --%s%s%s  %s\n", o->name, o->arg ? "=" : "",
			       o->arg ? o->arg : "", o->help);
		if (i + 1 < n)
			putchar('\n');
	}
	return fflush(stdout) == 0 ? TK_EXIT_OK : TK_EXIT_FAIL;
}
