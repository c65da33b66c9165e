/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: variables at fixed addresses, for data addresses in addr2line.
 *
 * For an address in a section without code where a symbol starts exactly,
 * binutils answers with the declaration of the variable at that address
 * whose name is part of the symbol's (DW_TAG_variable or DW_TAG_member whose DW_AT_location is
 * just DW_OP_addr): its DW_AT_decl_file and DW_AT_decl_line, read in the
 * DIE's attribute order, DW_AT_specification giving the declaration's.
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

typedef struct vscan {
	dw_unit *u;
	bool big;
	dw_var v;
	bool fixed;		/* at an address (not on the stack) */
} vscan;

static int spec_attr(Dwarf_Attribute *a, void *arg)
{
	vscan *s = arg;
	Dwarf_Word w;
	switch (dwarf_whatattr(a)) {
	case DW_AT_name:
		if (!s->v.name)
			s->v.name = dwarf_formstring(a);
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name: {
		const char *n = dwarf_formstring(a);
		if (n)
			s->v.name = n;
		break;
	}
	case DW_AT_decl_file:
		if (dwarf_formudata(a, &w) == 0)
			s->v.file = tk_dw_file_name(s->u, w);
		break;
	case DW_AT_decl_line:
		if (dwarf_formudata(a, &w) == 0)
			s->v.line = (unsigned)w;
		break;
	}
	return DWARF_CB_OK;
}

static int var_attr(Dwarf_Attribute *a, void *arg)
{
	vscan *s = arg;
	Dwarf_Word w;
	Dwarf_Die ref;
	switch (dwarf_whatattr(a)) {
	case DW_AT_specification:
		if (dwarf_formref_die(a, &ref))
			dwarf_getattrs(&ref, spec_attr, s, 0);
		break;
	case DW_AT_name: {
		const char *n = dwarf_formstring(a);
		if (n)
			s->v.name = n;
		break;
	}
	case DW_AT_decl_file:
		if (dwarf_formudata(a, &w) == 0)
			s->v.file = tk_dw_file_name(s->u, w);
		break;
	case DW_AT_decl_line:
		if (dwarf_formudata(a, &w) == 0)
			s->v.line = (unsigned)w;
		break;
	case DW_AT_location: {
		Dwarf_Block b;
		unsigned form = dwarf_whatform(a);
		if ((form == DW_FORM_exprloc || form == DW_FORM_block || form == DW_FORM_block1 ||
		     form == DW_FORM_block2 || form == DW_FORM_block4) &&
		    dwarf_formblock(a, &b) == 0 && b.length >= 1 && b.data[0] == DW_OP_addr) {
			s->fixed = true;
			if (b.length == 1 + s->u->addr_size) {
				uint64_t v = 0;
				unsigned n = s->u->addr_size;
				for (unsigned i = 0; i < n; i++)
					v |= (uint64_t)b.data[1 + (s->big ? n - 1 - i : i)] << (8 * i);
				s->v.addr = v;
			}
		}
		break;
	}
	}
	return DWARF_CB_OK;
}

int tk_dw_add_var(const tk_dwarf *d, dw_unit *u, Dwarf_Die *die)
{
	vscan s = {.u = u, .big = d->big_endian};
	dwarf_getattrs(die, var_attr, &s, 0);
	if (!s.fixed || !s.v.name || !s.v.file)
		return 0;
	if (u->nvars == u->capvars) {
		uint32_t cap = u->capvars ? 2 * u->capvars : 64;
		dw_var *nv = realloc(u->vars, cap * sizeof *nv);
		if (!nv)
			return TK_ERR_NOMEM;
		u->vars = nv;
		u->capvars = cap;
	}
	u->vars[u->nvars++] = s.v;
	return 0;
}

const dw_var *tk_dw_find_var(const dw_unit *u, const char *name, uint64_t addr)
{
	/* binutils 2.40 accepts a variable whose name is part of the
	 * symbol's: a function's static "counter" is the symbol "counter.0". */
	for (uint32_t i = u->nvars; i-- > 0;)
		if (u->vars[i].addr == addr && strstr(name, u->vars[i].name))
			return &u->vars[i];
	return NULL;
}
