/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit symbols: list the symbols tracekit reads from an ELF image, or
 * look names and addresses up (what --image gives every other command). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void print_sym(const tk_symbol *s)
{
	printf("0x%-10llx %-8llu %-6s %s%s\n", (unsigned long long)s->addr,
	       (unsigned long long)s->size, s->kind == TK_SYM_FUNC ? "func" : "object",
	       s->name, s->thumb ? " (thumb)" : "");
}

int tk_cmd_symbols(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS] ELF [NAME|ADDRESS...]",
		.summary = "List the function and object symbols of an ELF image, sorted by\n"
			   "address (address, size, kind, name), or look up the given names\n"
			   "and addresses: an address prints the symbol containing it.",
		.options_help = "  --load-offset=N          add N to every symbol address\n",
		.flags = TK_CLI_IMAGE,
		.min_args = 1,
		.max_args = -1,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	cli.image = cli.args[0];
	if (tk_cli_load_image(&cli))
		return TK_EXIT_FAIL;

	int rc = TK_EXIT_OK;
	if (cli.nargs == 1) {
		uint32_t n;
		const tk_symbol *syms = tk_symtab_symbols(cli.symtab, &n);
		for (uint32_t i = 0; i < n; i++)
			print_sym(&syms[i]);
	}
	for (int i = 1; i < cli.nargs; i++) {
		const char *q = cli.args[i];
		const tk_symbol *s = tk_symtab_find(cli.symtab, q);
		if (!s) {
			char *end;
			unsigned long long a = strtoull(q, &end, 0);
			if (end != q && !*end)
				s = tk_symtab_containing(cli.symtab, a);
		}
		if (s) {
			print_sym(s);
		} else {
			tk_cli_error(&cli, "%s: no symbol '%s'", cli.image, q);
			rc = TK_EXIT_FAIL;
		}
	}
	tk_cli_fini(&cli);
	return rc;
}
