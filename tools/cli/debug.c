/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: --debug types and --version (see cli.h). */
#include <string.h>

#include "cli.h"

/* The debug types, as --debug=list prints them. */
static const struct {
	const char *name, *help;
} types[] = {
	{"call_heuristics", "explain every decision of the call and return analysis"},
	{"all", "every type above"},
};

tk_status tk_cli_check_debug(const tk_cli *cli, const char *value)
{
	if (!strcmp(value, "list")) {
		printf("List of diagnostic types:\n");
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			printf("--debug=%s: %s\n", types[i].name, types[i].help);
		return TK_ST_DONE;
	}
	for (const char *p = value;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		bool known = false;
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (strlen(types[i].name) == n && !strncmp(types[i].name, p, n))
				known = true;
		if (!known) {
			tk_cli_error(cli, "unknown diagnostic type '%.*s' (--debug=list lists them)",
				     (int)n, p);
			return TK_ST_USAGE;
		}
		if (!e)
			return TK_ST_OK;
		p = e + 1;
	}
}

void tk_cli_print_version(const char *prog)
{
	if (!strncmp(prog, "tracekit", 8))
		printf("tracekit %s\n", TK_VERSION_STRING);
	else
		printf("%s (tracekit) %s\n", prog, TK_VERSION_STRING);
}
