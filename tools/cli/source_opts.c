/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading back the formats' options a command line gave. */
#include <string.h>

#include "cli.h"

bool tk_cli_has_source_opt(const tk_cli *cli, const char *name)
{
	for (size_t i = 0; i < cli->nsopts; i++)
		if (!strcmp(cli->sopts[i].name, name))
			return true;
	return false;
}

/* The byte order the options give: 'b' (--bi last), 'l' (--li last), 0. */
int tk_cli_endian_option(const tk_cli *cli)
{
	int e = 0;
	for (size_t i = 0; i < cli->nsopts; i++)
		if (!strcmp(cli->sopts[i].name, "bi"))
			e = 'b';
		else if (!strcmp(cli->sopts[i].name, "li"))
			e = 'l';
	return e;
}

bool tk_cli_big_endian(const tk_cli *cli)
{
	return tk_cli_endian_option(cli) == 'b';
}

