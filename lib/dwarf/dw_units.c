/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the compilation units of an image.
 *
 * Each unit's DIE gives its directory, language, line table offset and
 * address ranges.  A unit without a line table, or whose line table is
 * damaged, is never consulted (binutils does the same: it then knows
 * neither its lines nor its functions).
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

int tk_dw_add_range(dw_range **r, uint32_t *n, uint64_t low, uint64_t high)
{
	if (low >= high)
		return 0;
	if ((*n & (*n - 1)) == 0) {	/* grow at powers of two */
		uint32_t cap = *n ? 2 * *n : 4;
		dw_range *nr = realloc(*r, (size_t)cap * sizeof *nr);
		if (!nr)
			return TK_ERR_NOMEM;
		*r = nr;
	}
	(*r)[(*n)++] = (dw_range){low, high};
	return 0;
}

/* binutils drops a "HOST:" prefix some old compilers put on DW_AT_comp_dir
 * ("HOST.:/dir"). */
static const char *comp_dir_of(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *s = dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (s) {
		const char *c = strchr(s, ':');
		if (c && c != s && c[-1] == '.' && c[1] == '/')
			s = c + 1;
	}
	return s;
}

static int read_unit(tk_dwarf *d, dw_unit *u)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	u->comp_dir = comp_dir_of(&u->die);
	u->lang = dwarf_attr(&u->die, DW_AT_language, &a) && dwarf_formudata(&a, &w) == 0 ? (int)w : 0;
	if (dwarf_attr(&u->die, DW_AT_stmt_list, &a) && dwarf_formudata(&a, &w) == 0) {
		u->has_stmt = true;
		u->stmt_off = w;
	}
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(&u->die, off, &base, &start, &end)) > 0) {
		int rc = tk_dw_add_range(&u->cu_ranges, &u->ncu_ranges, start, end);
		if (rc)
			return rc;
	}
	if (off < 0 && dwarf_attr(&u->die, DW_AT_ranges, &a))
		tk_dw_report(d, TK_DIAG_ERROR, ".debug_info at offset 0x%llx: bad address ranges: %s",
			     (unsigned long long)u->offset, dwarf_errmsg(-1));
	return 0;
}

/* Walk the unit headers of .debug_info: damage stops libdw's unit list
 * silently, so say where. */
static void check_headers(tk_dwarf *d)
{
	const uint8_t *data;
	size_t len;
	if (tk_dw_section_data(d, ".debug_info", &data, &len) != 0 || !len)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (off < len) {
		int rc = dwarf_next_unit(d->dbg, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
					 NULL);
		if (rc != 0 || next <= off || next > len) {
			tk_dw_report(d, TK_DIAG_ERROR,
				     ".debug_info at offset 0x%llx: bad unit header%s%s; the units from there on are ignored",
				     (unsigned long long)off, rc < 0 ? ": " : "",
				     rc < 0 ? dwarf_errmsg(-1) : "");
			return;
		}
		off = next;
	}
}

int tk_dw_load_units(tk_dwarf *d)
{
	check_headers(d);
	tk_dw_section_data(d, ".debug_line", &d->line_data, &d->line_len);
	tk_dw_section_data(d, ".debug_line_str", &d->line_str, &d->line_str_len);
	tk_dw_section_data(d, ".debug_str", &d->str, &d->str_len);

	uint32_t cap = 0;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;
	int rc;
	uint64_t last_ok = 0;
	while ((rc = dwarf_get_units(d->dbg, cu, &next, &version, &type, &cudie, NULL)) == 0) {
		cu = next;
		if (type != DW_UT_compile && type != DW_UT_partial)
			continue;
		if (d->nunits == cap) {
			uint32_t ncap = cap ? 2 * cap : 64;
			dw_unit *nu = realloc(d->units, (size_t)ncap * sizeof *nu);
			if (!nu)
				return TK_ERR_NOMEM;
			d->units = nu;
			cap = ncap;
		}
		dw_unit *u = &d->units[d->nunits];
		memset(u, 0, sizeof *u);
		u->die = cudie;
		u->offset = dwarf_dieoffset(&cudie);
		uint8_t asz = 0;
		dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, &asz, NULL);
		u->addr_size = asz ? asz : d->addr_bytes;
		last_ok = u->offset;
		if ((rc = read_unit(d, u)) < 0)
			return rc;
		d->nunits++;
	}
	if (rc < 0 && !d->errors)
		tk_dw_report(d, TK_DIAG_ERROR,
			     ".debug_info: a unit after offset 0x%llx cannot be read: %s; the units after it are ignored",
			     (unsigned long long)last_ok, dwarf_errmsg(-1));

	for (uint32_t i = 0; i < d->nunits; i++) {
		dw_unit *u = &d->units[i];
		if (!u->has_stmt) {
			u->error = true;
			continue;
		}
		rc = tk_dw_decode_lines(d, u);
		if (rc == TK_ERR_NOMEM)
			return rc;
		if (rc)
			continue;
		if (u->nrows)
			d->has_lines = true;
		rc = tk_dw_scan_funcs(d, u);
		if (rc == TK_ERR_NOMEM)
			return rc;
	}

	return 0;
}

void tk_dw_free_units(tk_dwarf *d)
{
	for (uint32_t i = 0; i < d->nunits; i++) {
		dw_unit *u = &d->units[i];
		for (uint32_t k = 0; k < u->nfiles; k++)
			free(u->files[k]);
		free(u->files);
		free(u->seqs);
		free(u->rows);
		free(u->funcs);
		free(u->franges);
		free(u->flook);
		free(u->cu_ranges);
		free(u->late_ranges);
		free(u->entries);
		free(u->vars);
	}
	free(d->units);
	free(d->noranges);
	free(d->tent);
	free(d->tsort);
	free(d->tmax);
	d->units = NULL;
	d->nunits = 0;
}
