/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: addr2line's answer for an address, by binutils 2.40's rules.
 *
 *  1. The address must lie in a loaded (SHF_ALLOC) section; the sections
 *     are tried in header order until one gives an answer.
 *  2. The units whose address ranges hold it, in unit order, then the
 *     units without ranges: the first whose function table or line table
 *     knows the address answers.  A unit without a usable line table is
 *     skipped.
 *  3. Its line: the sequence holding the address, and in it the last row
 *     at or below it (never the end row).
 *  4. Its function: of the unit's functions with a range holding the
 *     address, the one with the smallest such range; of equal ones, the
 *     later DIE (an inlined call fills its caller's range exactly).
 *  5. The name: the function's, if it needs no symbol lookup (see
 *     dw_funcs.c); otherwise (no function, or a C++ function named only by
 *     DW_AT_name) the ELF symbol's (dw_elfsym.c), which for such a function
 *     also becomes its name for good when the symbol starts exactly where
 *     the function does.  Without a DWARF file name, the symbol's STT_FILE
 *     gives one.
 *  6. The inline chain: from an inlined function, each enclosing function
 *     with the file and line of the call.
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

static const dw_func *lookup_func(const dw_unit *u, uint64_t addr)
{
	uint32_t n = u->nflook;
	if (!n || u->flook[n - 1].high < addr)
		return NULL;
	uint32_t lo = 0, hi = n, first = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const dw_flook *e = &u->flook[mid];
		if (addr < e->low)
			hi = mid;
		else if (addr >= e->high)
			lo = mid + 1;
		else
			hi = first = mid;
	}
	const dw_func *best = NULL;
	uint32_t best_i = 0;
	uint64_t best_len = UINT64_MAX;
	for (; first < n && u->flook[first].low <= addr; first++) {
		uint32_t fi = u->flook[first].func;
		const dw_func *f = &u->funcs[fi];
		for (uint32_t k = 0; k < f->nranges; k++) {
			const dw_range *r = &u->franges[f->range0 + k];
			if (addr < r->low || addr >= r->high)
				continue;
			uint64_t len = r->high - r->low;
			if (len < best_len || (len == best_len && fi > best_i)) {
				best = f;
				best_i = fi;
				best_len = len;
			}
		}
	}
	return best;
}

static const dw_row *lookup_row(const dw_unit *u, uint64_t addr)
{
	uint32_t lo = 0, hi = u->nseqs;
	const dw_seq *s = NULL;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		s = &u->seqs[mid];
		if (addr < s->low)
			hi = mid;
		else if (addr >= s->high)
			lo = mid + 1;
		else
			break;
	}
	if (!s || addr < s->low || addr >= s->high)
		return NULL;
	const dw_row *rows = u->rows + s->first;
	lo = 0;
	hi = s->n;
	uint32_t mid = 0;
	const dw_row *r = NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = &rows[mid];
		if (addr < r->addr)
			hi = mid;
		else if (mid + 1 < s->n && addr >= rows[mid + 1].addr)
			lo = mid + 1;
		else
			break;
	}
	if (r && mid + 1 < s->n && addr >= r->addr && addr < rows[mid + 1].addr)
		return r;
	return NULL;
}

static int push_loc(tk_dwarf *d, const tk_dwarf_loc *l)
{
	if (d->nlocs == d->caplocs) {
		unsigned cap = d->caplocs ? 2 * d->caplocs : 16;
		tk_dwarf_loc *nl = realloc(d->locs, cap * sizeof *nl);
		if (!nl)
			return TK_ERR_NOMEM;
		d->locs = nl;
		d->caplocs = cap;
	}
	d->locs[d->nlocs++] = *l;
	return 0;
}

/* ---- binutils' lazy view of the units ----
 *
 * binutils reads units only as far as it needs them, and files their
 * address ranges in a trie as it learns them; which unit answers can
 * depend on that (e.g. an assembler function whose symbol size runs past
 * its unit's range into the next unit's code answers for those bytes once
 * its unit has been decoded).  So the same happens here, on the ranges
 * read up front:
 *  - a query tries, in insertion order, each unit with a trie entry
 *    holding the address; then the units read without any range; then
 *    reads further units in order, trying each whose DIE ranges hold the
 *    address (or that has none), until one answers;
 *  - reading a unit files its DIE ranges; trying it the first time
 *    ("decoding") files its sequences' and functions' ranges;
 *  - a range of a unit that overlaps or touches an entry of the same unit
 *    widens that entry instead of adding one.
 */

static bool ranges_touch(uint64_t l1, uint64_t h1, uint64_t l2, uint64_t h2)
{
	if (l1 == l2 || h1 == h2)
		return true;
	if (l1 > l2) {
		uint64_t t = l1;
		l1 = l2;
		l2 = t;
		h1 = h2;
	}
	return l2 <= h1;
}

static int trie_insert(tk_dwarf *d, uint32_t ui, uint64_t low, uint64_t high)
{
	dw_unit *u = &d->units[ui];
	for (uint32_t k = 0; k < u->nentries; k++) {
		dw_tentry *e = &d->tent[u->entries[k]];
		if (ranges_touch(low, high, e->low, e->high)) {
			/* Usually inside already (a unit's functions and
			 * sequences lie in its range): nothing to re-sort. */
			if (low < e->low || high > e->high)
				d->tdirty = true;
			if (low < e->low)
				e->low = low;
			if (high > e->high)
				e->high = high;
			return 0;
		}
	}
	if (d->ntent == d->captent) {
		uint32_t cap = d->captent ? 2 * d->captent : 256;
		dw_tentry *nt = realloc(d->tent, (size_t)cap * sizeof *nt);
		if (!nt)
			return TK_ERR_NOMEM;
		d->tent = nt;
		d->captent = cap;
	}
	if (u->nentries == u->capentries) {
		uint32_t cap = u->capentries ? 2 * u->capentries : 4;
		uint32_t *ne = realloc(u->entries, cap * sizeof *ne);
		if (!ne)
			return TK_ERR_NOMEM;
		u->entries = ne;
		u->capentries = cap;
	}
	u->entries[u->nentries++] = d->ntent;
	d->tent[d->ntent++] = (dw_tentry){low, high, ui};
	d->tdirty = true;
	return 0;
}

static int cmp_tent(const void *a, const void *b, void *base)
{
	const dw_tentry *t = base;
	const dw_tentry *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int trie_index(tk_dwarf *d)
{
	if (!d->tdirty)
		return 0;
	uint32_t *ns = realloc(d->tsort, (d->ntent ? d->ntent : 1) * sizeof *ns);
	if (!ns)
		return TK_ERR_NOMEM;
	d->tsort = ns;
	uint64_t *nm = realloc(d->tmax, (d->ntent ? d->ntent : 1) * sizeof *nm);
	if (!nm)
		return TK_ERR_NOMEM;
	d->tmax = nm;
	for (uint32_t i = 0; i < d->ntent; i++)
		d->tsort[i] = i;
	qsort_r(d->tsort, d->ntent, sizeof *d->tsort, cmp_tent, d->tent);
	uint64_t m = 0;
	for (uint32_t i = 0; i < d->ntent; i++) {
		if (d->tent[d->tsort[i]].high > m)
			m = d->tent[d->tsort[i]].high;
		d->tmax[i] = m;
	}
	d->tdirty = false;
	return 0;
}

/* The units with a trie entry holding addr, in entry order, into cand[]. */
static int trie_candidates(tk_dwarf *d, uint64_t addr, uint32_t *cand, uint32_t *n, uint32_t max)
{
	int rc = trie_index(d);
	if (rc)
		return rc;
	uint32_t lo = 0, hi = d->ntent, found = 0;
	uint32_t ent[64];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (d->tent[d->tsort[mid]].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i-- > 0 && d->tmax[i] > addr && found < 64;) {
		const dw_tentry *e = &d->tent[d->tsort[i]];
		if (addr < e->high)
			ent[found++] = d->tsort[i];
	}
	for (uint32_t i = 1; i < found; i++)
		for (uint32_t k = i; k > 0 && ent[k - 1] > ent[k]; k--) {
			uint32_t t = ent[k];
			ent[k] = ent[k - 1];
			ent[k - 1] = t;
		}
	*n = 0;
	for (uint32_t i = 0; i < found && *n < max; i++) {
		uint32_t ui = d->tent[ent[i]].unit;
		if (d->units[ui].mark == d->stamp)
			continue;
		d->units[ui].mark = d->stamp;
		cand[(*n)++] = ui;
	}
	return 0;
}

static int stash_next(tk_dwarf *d, uint32_t *ui)
{
	*ui = d->stashed++;
	dw_unit *u = &d->units[*ui];
	for (uint32_t k = 0; k < u->ncu_ranges; k++) {
		int rc = trie_insert(d, *ui, u->cu_ranges[k].low, u->cu_ranges[k].high);
		if (rc)
			return rc;
	}
	u->has_arange = u->ncu_ranges > 0;
	if (!u->has_arange) {
		uint32_t *nn = realloc(d->noranges, (d->nnoranges + 1) * sizeof *nn);
		if (!nn)
			return TK_ERR_NOMEM;
		d->noranges = nn;
		d->noranges[d->nnoranges++] = *ui;
	}
	return 0;
}

/* binutils decodes a unit the first time it consults it: its sequences
 * and functions go into the trie.  0, or TK_ERR_NOMEM. */
static int decode(tk_dwarf *d, uint32_t ui)
{
	dw_unit *u = &d->units[ui];
	if (u->decoded || u->error)
		return 0;
	u->decoded = true;
	for (uint32_t k = 0; k < u->nlate_ranges; k++) {
		int rc = trie_insert(d, ui, u->late_ranges[k].low, u->late_ranges[k].high);
		if (rc)
			return rc;
	}
	if (u->nlate_ranges)
		u->has_arange = true;
	return 0;
}

/* Try one unit: 1 if it knows addr (*func, *row set), 0 if not. */
static int try_unit(tk_dwarf *d, uint32_t ui, uint64_t addr, dw_func **func, const dw_row **row)
{
	dw_unit *u = &d->units[ui];
	if (u->error)
		return 0;
	int rc = decode(d, ui);
	if (rc)
		return rc;
	*func = (dw_func *)lookup_func(u, addr);
	*row = lookup_row(u, addr);
	return *func || *row;
}

static bool cu_contains(const dw_unit *u, uint64_t addr)
{
	for (uint32_t k = 0; k < u->ncu_ranges; k++)
		if (addr >= u->cu_ranges[k].low && addr < u->cu_ranges[k].high)
			return true;
	return false;
}

/* The unit that answers for addr, as binutils finds it; *unit NULL if none. */
static int find_unit(tk_dwarf *d, uint64_t addr, dw_unit **unit, dw_func **func,
		     const dw_row **row)
{
	*unit = NULL;
	d->stamp++;
	uint32_t cand[64], n;
	int rc = trie_candidates(d, addr, cand, &n, 64);
	for (uint32_t i = 0; rc == 0 && i < n; i++)
		if ((rc = try_unit(d, cand[i], addr, func, row)) > 0) {
			*unit = &d->units[cand[i]];
			return 0;
		}
	for (uint32_t i = 0; rc == 0 && i < d->nnoranges; i++) {
		uint32_t ui = d->noranges[i];
		if (d->units[ui].has_arange)
			continue;
		if ((rc = try_unit(d, ui, addr, func, row)) > 0) {
			*unit = &d->units[ui];
			return 0;
		}
	}
	while (rc == 0 && d->stashed < d->nunits) {
		uint32_t ui;
		if ((rc = stash_next(d, &ui)) != 0)
			break;
		dw_unit *u = &d->units[ui];
		if (u->ncu_ranges && !cu_contains(u, addr))
			continue;
		if ((rc = try_unit(d, ui, addr, func, row)) > 0) {
			*unit = u;
			return 0;
		}
	}
	return rc < 0 ? rc : 0;
}

/* A data address where a symbol starts: binutils looks for the variable
 * of that name at that address instead (the units it has read, newest
 * first, then the others in order), and answers with its declaration. */
static int variable_line(tk_dwarf *d, const dw_asym *sym, uint64_t addr, tk_dwarf_loc *loc)
{
	int rc = 0;
	for (uint32_t k = d->stashed; rc == 0 && k-- > 0;) {
		if (d->units[k].error || (rc = decode(d, k)) != 0)
			continue;
		const dw_var *v = tk_dw_find_var(&d->units[k], sym->name, addr);
		if (v) {
			loc->file = v->file;
			loc->line = v->line;
			return 1;
		}
	}
	while (rc == 0 && d->stashed < d->nunits) {
		uint32_t ui;
		if ((rc = stash_next(d, &ui)) != 0 || d->units[ui].error || (rc = decode(d, ui)) != 0)
			continue;
		const dw_var *v = tk_dw_find_var(&d->units[ui], sym->name, addr);
		if (v) {
			loc->file = v->file;
			loc->line = v->line;
			return 1;
		}
	}
	return rc;
}

/* binutils' _bfd_elf_find_nearest_line for one section. */
static int lookup_in_section(tk_dwarf *d, uint32_t sec, uint64_t addr, bool *found)
{
	tk_dwarf_loc loc = {0};
	dw_unit *unit = NULL;
	dw_func *func = NULL;
	const dw_row *r = NULL;
	*found = false;
	d->nlocs = 0;
	const dw_asym *exact = NULL;
	if (d->nunits && !(d->secs[sec].flags & SHF_EXECINSTR) &&
	    (exact = tk_dw_exact_symbol(d, sec, addr)) != NULL) {
		int rc = variable_line(d, exact, addr, &loc);
		if (rc < 0)
			return rc;
		*found = rc == 1;
	} else if (d->nunits) {
		int rc = find_unit(d, addr, &unit, &func, &r);
		if (rc)
			return rc;
		if (!unit)
			func = NULL;
		if (unit)
			*found = true;
		if (unit && r) {
			loc.file = r->file;
			loc.line = r->line;
			loc.discriminator = r->disc;
			loc.dwarf_line = true;
		}
	}
	if (func && func->is_linkage) {
		loc.function = func->name;
	} else {
		const dw_fsym *sym = tk_dw_find_function(d, sec, addr);
		if (sym) {
			loc.function = sym->name;
			if (!loc.file)
				loc.file = sym->file;
			*found = true;
		}
		if (func) {
			if (!sym)
				loc.function = func->name;
			else if (func->nranges && sym->value == unit->franges[func->range0].low)
				func->name = sym->name;
			func->is_linkage = true;
		}
	}
	if (!*found)
		return 0;
	int rc = push_loc(d, &loc);
	for (const dw_func *f = func; rc == 0 && f && f->inlined && f->caller != DW_NONE;
	     f = &unit->funcs[f->caller]) {
		const dw_func *c = &unit->funcs[f->caller];
		tk_dwarf_loc l = {c->name, f->call_file, f->call_line, 0, false};
		rc = push_loc(d, &l);
	}
	return rc;
}

int tk_dwarf_addr2line(tk_dwarf *d, uint64_t addr, const char *section, tk_dwarf_result *out)
{
	out->found = false;
	out->count = 0;
	out->locs = NULL;
	d->nlocs = 0;
	if (d->addr_bytes == 4)
		addr &= 0xffffffffu;
	bool found = false;
	int rc = 0;
	if (section) {
		uint32_t i;
		for (i = 1; i < d->nsecs; i++)
			if (d->secs[i].name && !strcmp(d->secs[i].name, section))
				break;
		if (i >= d->nsecs)
			return TK_ERR_NOTFOUND;
		const dw_sec *s = &d->secs[i];
		if ((s->flags & SHF_ALLOC) && addr < s->size)
			rc = lookup_in_section(d, i, s->addr + addr, &found);
	} else {
		for (uint32_t i = 1; i < d->nsecs && !found && rc == 0; i++) {
			const dw_sec *s = &d->secs[i];
			if ((s->flags & SHF_ALLOC) && addr >= s->addr && addr - s->addr < s->size)
				rc = lookup_in_section(d, i, addr, &found);
		}
	}
	if (rc)
		return rc;
	out->found = found;
	out->count = found ? d->nlocs : 0;
	out->locs = d->locs;
	return 0;
}

int tk_dwarf_srcline(tk_dwarf *d, uint64_t addr, const char **file, unsigned *line)
{
	tk_dwarf_result r;
	if (tk_dwarf_addr2line(d, addr, NULL, &r) || !r.found || !r.locs[0].dwarf_line ||
	    !r.locs[0].line || !r.locs[0].file)
		return 0;
	*file = r.locs[0].file;
	*line = r.locs[0].line;
	return 1;
}
