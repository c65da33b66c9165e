/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the functions of a compilation unit, for addr2line -f and -i.
 *
 * Every DW_TAG_subprogram, DW_TAG_inlined_subroutine and DW_TAG_entry_point
 * of the unit becomes a dw_func with its address ranges, in DIE order.  The
 * name follows binutils' rules, attribute by attribute in the DIE's order:
 *  - DW_AT_linkage_name (or DW_AT_MIPS_linkage_name) always wins and needs
 *    no symbol lookup;
 *  - DW_AT_name counts if no name is known yet; in C and the other
 *    languages without mangling it too needs no symbol lookup, in C++ the
 *    ELF symbol at the function's start may replace it later;
 *  - DW_AT_abstract_origin and DW_AT_specification name the function after
 *    the DIE they point to (which may follow its own DW_AT_specification).
 * An inlined instance records the nearest enclosing function as its caller,
 * with the file and line of the call.  Ranges that touch are merged, as
 * binutils merges them (this decides which function is the smallest one
 * containing an address).
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

/* binutils' mangle_style(): 0 for languages whose names are not mangled. */
static bool unmangled_language(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
	case 0x8765:	/* DW_LANG_Upc */
	case 0x8101:	/* DW_LANG_HP_Basic91 */
	case 0x8106:	/* DW_LANG_HP_IMacro */
	case 0x8107:	/* DW_LANG_HP_Assembler */
		return true;
	default:
		return false;
	}
}

static bool is_str_form(unsigned form)
{
	switch (form) {
	case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp:
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2:
	case DW_FORM_strx3: case DW_FORM_strx4: case DW_FORM_GNU_strp_alt:
	case DW_FORM_GNU_str_index:
		return true;
	default:
		return false;
	}
}

static bool is_ref_form(unsigned form)
{
	switch (form) {
	case DW_FORM_ref_addr: case DW_FORM_ref1: case DW_FORM_ref2:
	case DW_FORM_ref4: case DW_FORM_ref8: case DW_FORM_ref_udata:
	case DW_FORM_GNU_ref_alt:
		return true;
	default:
		return false;
	}
}

static int lang_of(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return 0;
	return dwarf_attr(&cu, DW_AT_language, &a) && dwarf_formudata(&a, &w) == 0 ? (int)w : 0;
}

/* The name a referenced DIE gives (binutils' find_abstract_instance): its
 * attributes update the same name as the referring DIE's, in order, so a
 * linkage name read first is kept over a later DW_AT_name. */
typedef struct abst {
	const char **name;
	bool *is_linkage;
	int lang;
	unsigned depth;
	bool bad;
} abst;

static int abstract_attr(Dwarf_Attribute *a, void *arg);

static void follow(Dwarf_Attribute *a, const char **name, bool *is_linkage, unsigned depth,
		   bool *bad)
{
	Dwarf_Die ref;
	if (depth >= 100 || !dwarf_formref_die(a, &ref)) {
		*bad = true;
		return;
	}
	abst st = {name, is_linkage, lang_of(&ref), depth + 1, false};
	if (dwarf_getattrs(&ref, abstract_attr, &st, 0) < 0)
		st.bad = true;
	*bad |= st.bad;
}

static int abstract_attr(Dwarf_Attribute *a, void *arg)
{
	abst *st = arg;
	unsigned form = dwarf_whatform(a);
	switch (dwarf_whatattr(a)) {
	case DW_AT_name:
		if (!*st->name && is_str_form(form)) {
			*st->name = dwarf_formstring(a);
			if (*st->name && unmangled_language(st->lang))
				*st->is_linkage = true;
		}
		break;
	case DW_AT_specification:
		if (is_ref_form(form))
			follow(a, st->name, st->is_linkage, st->depth, &st->bad);
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		if (is_str_form(form)) {
			const char *s = dwarf_formstring(a);
			if (s) {
				*st->name = s;
				*st->is_linkage = true;
			}
		}
		break;
	}
	return st->bad ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* The ranges of the function being read, in binutils' list order: the
 * first range, then the others newest first. */
typedef struct rlist {
	dw_range *r;
	uint32_t n, cap;
} rlist;

static int range_add(rlist *l, uint64_t low, uint64_t high)
{
	if (low == high)
		return 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (low == l->r[i].high) {
			l->r[i].high = high;
			return 0;
		}
		if (high == l->r[i].low) {
			l->r[i].low = low;
			return 0;
		}
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 8;
		dw_range *nr = realloc(l->r, cap * sizeof *nr);
		if (!nr)
			return TK_ERR_NOMEM;
		l->r = nr;
		l->cap = cap;
	}
	if (l->n == 0) {
		l->r[l->n++] = (dw_range){low, high};
		return 0;
	}
	memmove(l->r + 2, l->r + 1, (l->n - 1) * sizeof *l->r);
	l->r[1] = (dw_range){low, high};
	l->n++;
	return 0;
}

typedef struct fscan {
	tk_dwarf *d;
	dw_unit *u;
	dw_func *f;
	Dwarf_Die *die;
	rlist ranges;
	uint64_t low, high;
	bool high_rel, have_high;
	bool bad;
	int err;
} fscan;

static int func_attr(Dwarf_Attribute *a, void *arg)
{
	fscan *s = arg;
	unsigned form = dwarf_whatform(a);
	Dwarf_Word w;
	Dwarf_Addr addr;
	switch (dwarf_whatattr(a)) {
	case DW_AT_call_file:
		if (!is_str_form(form) && dwarf_formudata(a, &w) == 0)
			s->f->call_file = tk_dw_file_name(s->u, w);
		break;
	case DW_AT_call_line:
		if (dwarf_formudata(a, &w) == 0)
			s->f->call_line = (unsigned)w;
		break;
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		if (is_ref_form(form))
			follow(a, &s->f->name, &s->f->is_linkage, 0, &s->bad);
		break;
	case DW_AT_name:
		if (!s->f->name && is_str_form(form)) {
			s->f->name = dwarf_formstring(a);
			if (s->f->name && unmangled_language(s->u->lang))
				s->f->is_linkage = true;
		}
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		if (is_str_form(form)) {
			const char *n = dwarf_formstring(a);
			if (n) {
				s->f->name = n;
				s->f->is_linkage = true;
			}
		}
		break;
	case DW_AT_low_pc:
		if (dwarf_formaddr(a, &addr) == 0)
			s->low = addr;
		break;
	case DW_AT_high_pc:
		if (form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index) {
			if (dwarf_formaddr(a, &addr) == 0) {
				s->high = addr;
				s->high_rel = false;
			}
		} else if (dwarf_formudata(a, &w) == 0) {
			s->high = w;
			s->high_rel = true;
		}
		break;
	case DW_AT_ranges: {
		/* binutils 2.40 does not resolve a range list index
		 * (DW_FORM_rnglistx, as clang emits): no ranges. */
		if (form == DW_FORM_rnglistx)
			break;
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(s->die, off, &base, &start, &end)) > 0)
			if ((s->err = range_add(&s->ranges, start, end)) != 0 ||
			    (s->err = tk_dw_add_range(&s->u->late_ranges, &s->u->nlate_ranges,
						      start, end)) != 0)
				return DWARF_CB_ABORT;
		if (off < 0)
			s->bad = true;
		break;
	}
	}
	return DWARF_CB_OK;
}

static int add_func(tk_dwarf *d, dw_unit *u, Dwarf_Die *die, int tag, uint32_t caller,
		    uint32_t *capf, uint32_t *capr)
{
	if (u->nfuncs == *capf) {
		uint32_t cap = *capf ? 2 * *capf : 64;
		dw_func *nf = realloc(u->funcs, (size_t)cap * sizeof *nf);
		if (!nf)
			return TK_ERR_NOMEM;
		u->funcs = nf;
		*capf = cap;
	}
	dw_func *f = &u->funcs[u->nfuncs];
	memset(f, 0, sizeof *f);
	f->inlined = tag == DW_TAG_inlined_subroutine;
	f->caller = f->inlined ? caller : DW_NONE;
	fscan s = {.d = d, .u = u, .f = f, .die = die};
	if (dwarf_getattrs(die, func_attr, &s, 0) < 0 && !s.err)
		s.bad = true;
	if (s.err) {
		free(s.ranges.r);
		return s.err;
	}
	if (s.bad)
		tk_dw_report(d, TK_DIAG_ERROR, ".debug_info at offset 0x%llx: bad attribute of a function: %s",
			     (unsigned long long)dwarf_dieoffset(die), dwarf_errmsg(-1));
	if (s.high) {
		uint64_t high = s.high_rel ? s.low + s.high : s.high;
		if (range_add(&s.ranges, s.low, high) ||
		    tk_dw_add_range(&u->late_ranges, &u->nlate_ranges, s.low, high)) {
			free(s.ranges.r);
			return TK_ERR_NOMEM;
		}
	}
	if (u->nfranges + s.ranges.n > *capr) {
		uint32_t cap = *capr ? *capr : 64;
		while (cap < u->nfranges + s.ranges.n)
			cap *= 2;
		dw_range *nr = realloc(u->franges, (size_t)cap * sizeof *nr);
		if (!nr) {
			free(s.ranges.r);
			return TK_ERR_NOMEM;
		}
		u->franges = nr;
		*capr = cap;
	}
	f->range0 = u->nfranges;
	f->nranges = s.ranges.n;
	if (s.ranges.n)
		memcpy(u->franges + u->nfranges, s.ranges.r, s.ranges.n * sizeof *s.ranges.r);
	u->nfranges += s.ranges.n;
	free(s.ranges.r);
	u->nfuncs++;
	return 0;
}

static int cmp_flook(const void *a, const void *b)
{
	const dw_flook *x = a, *y = b;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high < y->high ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int build_lookup(dw_unit *u)
{
	uint32_t n = 0;
	u->flook = malloc((u->nfuncs ? u->nfuncs : 1) * sizeof *u->flook);
	if (!u->flook)
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < u->nfuncs; i++) {
		const dw_func *f = &u->funcs[i];
		if (!f->nranges)
			continue;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (uint32_t k = 0; k < f->nranges; k++) {
			const dw_range *r = &u->franges[f->range0 + k];
			if (r->low < lo)
				lo = r->low;
			if (r->high > hi)
				hi = r->high;
		}
		u->flook[n++] = (dw_flook){lo, hi, i};
	}
	qsort(u->flook, n, sizeof *u->flook, cmp_flook);
	uint64_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (u->flook[i].high > m)
			m = u->flook[i].high;
		u->flook[i].high = m;
	}
	u->nflook = n;
	return 0;
}

int tk_dw_scan_funcs(tk_dwarf *d, dw_unit *u)
{
	typedef struct level { Dwarf_Die die; uint32_t encl; } level;
	uint32_t capf = 0, capr = 0, depth = 0, cap = 32;
	level *stack = malloc(cap * sizeof *stack);
	if (!stack)
		return TK_ERR_NOMEM;
	int rc = 0;
	if (dwarf_child(&u->die, &stack[0].die) == 0) {
		stack[0].encl = DW_NONE;
		depth = 1;
	}
	while (depth) {
		level *lv = &stack[depth - 1];
		int tag = dwarf_tag(&lv->die);
		uint32_t encl = lv->encl;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_entry_point) {
			if ((rc = add_func(d, u, &lv->die, tag, lv->encl, &capf, &capr)) != 0)
				break;
			encl = u->nfuncs - 1;
		} else if ((tag == DW_TAG_variable || tag == DW_TAG_member) &&
			   (rc = tk_dw_add_var(d, u, &lv->die)) != 0) {
			break;
		}
		Dwarf_Die child;
		int has = dwarf_haschildren(&lv->die) > 0 ? dwarf_child(&lv->die, &child) : 1;
		if (has < 0) {
			tk_dw_report(d, TK_DIAG_ERROR, ".debug_info at offset 0x%llx: bad DIE: %s",
				     (unsigned long long)dwarf_dieoffset(&lv->die), dwarf_errmsg(-1));
			has = 1;
		}
		if (has == 0) {
			if (depth == cap) {
				cap *= 2;
				level *ns = realloc(stack, cap * sizeof *ns);
				if (!ns) {
					rc = TK_ERR_NOMEM;
					break;
				}
				stack = ns;
				lv = &stack[depth - 1];
			}
			stack[depth].die = child;
			stack[depth].encl = encl;
			depth++;
			continue;
		}
		/* No children: go to the next sibling, climbing as needed. */
		while (depth) {
			int sib = dwarf_siblingof(&stack[depth - 1].die, &stack[depth - 1].die);
			if (sib == 0)
				break;
			if (sib < 0)
				tk_dw_report(d, TK_DIAG_ERROR,
					     ".debug_info at offset 0x%llx: bad DIE tree: %s",
					     (unsigned long long)dwarf_dieoffset(&stack[depth - 1].die),
					     dwarf_errmsg(-1));
			depth--;
		}
	}
	free(stack);
	if (rc)
		return rc;
	return build_lookup(u);
}
