/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test: POWER ELFv2 symbols.  A function that sets up its TOC pointer
 * has a local entry point (st_other bits 5-7) where direct calls land:
 * `bl fib+8` calls fib, so an address lookup there must name fib.
 *
 *   test_power_symbols POWER8.elf POWER10.elf
 * (the test program built for POWER8 uses a TOC; for POWER10 it is
 * PC-relative and has no local entry points) */
#include <stdio.h>

#include "../check.h"
#include "tracekit/symbols.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_power_symbols POWER8.elf POWER10.elf\n");
		return 2;
	}
	tk_symtab *st;
	CHECK(tk_symtab_load(argv[1], 0, &st) == 0);
	CHECK_EQ(tk_symtab_machine(st), 21);	/* EM_PPC64 */
	CHECK(!tk_symtab_big_endian(st));
	const tk_symbol *fib = tk_symtab_find(st, "fib");
	CHECK(fib != NULL);
	if (fib) {
		CHECK_EQ(fib->local_entry, 8);
		CHECK(tk_symtab_at(st, fib->addr) == fib);
		CHECK(tk_symtab_at(st, fib->addr + 8) == fib);	/* the local entry */
		CHECK(tk_symtab_at(st, fib->addr + 4) == NULL);
		CHECK(tk_symtab_at(st, fib->addr + 12) == NULL);
		CHECK(tk_symtab_containing(st, fib->addr + 8) == fib);
	}
	const tk_symbol *sq = tk_symtab_find(st, "square");	/* a leaf: no TOC */
	CHECK(sq && sq->local_entry == 0);
	const tk_symbol *m = tk_symtab_find(st, "main");
	CHECK(m && m->local_entry == 8 && tk_symtab_at(st, m->addr + 8) == m);
	tk_symtab_free(st);

	CHECK(tk_symtab_load(argv[2], 0, &st) == 0);
	fib = tk_symtab_find(st, "fib");
	CHECK(fib && fib->local_entry == 0);
	tk_symtab_free(st);
	return check_report("test_power_symbols");
}
