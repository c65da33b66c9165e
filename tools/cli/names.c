/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: naming functions the way Arm's tools do (see cli.h), or as
 * the trace names them. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

const char *tk_cli_symbol_name(const tk_cli *cli, uint64_t addr)
{
	static char ring[8][512];
	static unsigned next;
	const tk_symbol *s = tk_symtab_at(cli->symtab, addr);
	if (!s)
		s = tk_symtab_containing(cli->symtab, addr);
	if (!s)
		return tk_namemap_get(&cli->names, addr);
	/* A POWER ELFv2 local entry point is the function too. */
	if (addr == s->addr || cli->no_offsets ||
	    (s->local_entry && addr == s->addr + s->local_entry))
		return s->name;
	char *buf = ring[next++ % 8];
	snprintf(buf, sizeof ring[0], "%s + 0x%" PRIx64, s->name, addr - s->addr);
	return buf;
}
