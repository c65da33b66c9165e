/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: a line table's header: its parameters, directories and files
 * (DWARF 2 to 5, the DWARF 5 entry formats included), and file names
 * spelled as binutils spells them: DIR/FILE or COMP_DIR/DIR/FILE without
 * normalising "..", "<unknown>" for file 0 before DWARF 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dw_line.h"
#include "tracekit/error.h"


static int add_dir(ltab *t, const char *s)
{
	if (t->ndirs == t->capdirs) {
		uint32_t cap = t->capdirs ? 2 * t->capdirs : 16;
		const char **nd = realloc(t->dirs, cap * sizeof *nd);
		if (!nd)
			return TK_ERR_NOMEM;
		t->dirs = nd;
		t->capdirs = cap;
	}
	t->dirs[t->ndirs++] = s;
	return 0;
}

int tk_dw_ltab_add_file(ltab *t, const char *s, uint64_t dir)
{
	if (t->nfiles == t->capfiles) {
		uint32_t cap = t->capfiles ? 2 * t->capfiles : 16;
		const char **nf = realloc(t->fnames, cap * sizeof *nf);
		if (!nf)
			return TK_ERR_NOMEM;
		t->fnames = nf;
		uint64_t *nd = realloc(t->fdirs, cap * sizeof *nd);
		if (!nd)
			return TK_ERR_NOMEM;
		t->fdirs = nd;
		t->capfiles = cap;
	}
	t->fnames[t->nfiles] = s;
	t->fdirs[t->nfiles++] = dir;
	return 0;
}

static bool is_abs(const char *p)
{
	return p[0] == '/';
}

/* binutils' spelling of file index `i` of the raw tables (0-based slots:
 * for DWARF < 5 slot k is file k + 1). */
char *tk_dw_spell(const ltab *t, uint32_t i, const char *comp_dir, bool from_0)
{
	const char *name = t->fnames[i];
	if (!name)
		return strdup("<unknown>");
	if (is_abs(name))
		return strdup(name);
	uint64_t dir = t->fdirs[i];
	if (!from_0)
		dir--;		/* 0 (the unit's directory) wraps: no subdir */
	const char *sub = dir < t->ndirs ? t->dirs[dir] : NULL;
	const char *top = NULL;
	if (!sub || !is_abs(sub))
		top = comp_dir;
	if (!top) {
		top = sub;
		sub = NULL;
	}
	if (!top)
		return strdup(name);
	size_t len = strlen(top) + strlen(name) + 2 + (sub ? strlen(sub) + 1 : 0);
	char *s = malloc(len);
	if (!s)
		return NULL;
	if (sub)
		snprintf(s, len, "%s/%s/%s", top, sub, name);
	else
		snprintf(s, len, "%s/%s", top, name);
	return s;
}

const char *tk_dw_file_name(const dw_unit *u, uint64_t file)
{
	if (!u->files_from_0) {
		if (file == 0)
			return "<unknown>";
		file--;
	}
	if (file >= u->nfiles)
		return "<unknown>";
	return u->files[file];
}

/* ---- DWARF 5 entry formats ---- */

static const char *str_at(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, 0, len - off))
		return NULL;
	return (const char *)sec + off;
}

/* Read one attribute value of `form`; a string result goes to *s, an
 * integer to *v.  Returns false for a form we cannot skip. */
static bool rd_form(tk_dwarf *d, lrd *r, uint64_t form, unsigned offset_size,
		    const char **s, uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case DW_FORM_string: *s = rd_cstr(r); return true;
	case DW_FORM_line_strp:
		*s = str_at(d->line_str, d->line_str_len, rd_n(r, offset_size));
		return true;
	case DW_FORM_strp:
		*s = str_at(d->str, d->str_len, rd_n(r, offset_size));
		return true;
	case DW_FORM_udata: *v = rd_uleb(r); return true;
	case DW_FORM_sdata: *v = (uint64_t)rd_sleb(r); return true;
	case DW_FORM_data1: case DW_FORM_strx1: *v = rd_n(r, 1); return true;
	case DW_FORM_data2: case DW_FORM_strx2: *v = rd_n(r, 2); return true;
	case DW_FORM_strx3: *v = rd_n(r, 3); return true;
	case DW_FORM_data4: case DW_FORM_strx4: *v = rd_n(r, 4); return true;
	case DW_FORM_data8: *v = rd_n(r, 8); return true;
	case DW_FORM_strx: *v = rd_uleb(r); return true;
	case DW_FORM_data16:
		rd_n(r, 8);
		rd_n(r, 8);
		return true;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);
		if (n > (uint64_t)(r->end - r->p)) {
			r->err = true;
			return true;
		}
		r->p += n;
		return true;
	}
	case DW_FORM_block1: {
		uint64_t n = rd_n(r, 1);
		if (n > (uint64_t)(r->end - r->p))
			r->err = true;
		else
			r->p += n;
		return true;
	}
	default:
		return false;
	}
}

/* A DWARF 5 directory or file name table. */
static int rd_entries(tk_dwarf *d, lrd *r, unsigned offset_size, ltab *t, bool files,
		      const char **why)
{
	uint8_t nformats = (uint8_t)rd_n(r, 1);
	uint64_t ct[256], fm[256];
	for (unsigned i = 0; i < nformats; i++) {
		ct[i] = rd_uleb(r);
		fm[i] = rd_uleb(r);
	}
	uint64_t count = rd_uleb(r);
	if (r->err) {
		*why = "truncated entry format";
		return 1;
	}
	if (count > (uint64_t)(r->end - r->p)) {
		*why = "impossible number of entries";
		return 1;
	}
	for (uint64_t k = 0; k < count; k++) {
		const char *path = NULL;
		uint64_t dir = 0;
		for (unsigned i = 0; i < nformats; i++) {
			const char *s;
			uint64_t v;
			if (!rd_form(d, r, fm[i], offset_size, &s, &v)) {
				*why = "unsupported form in the file table";
				return 1;
			}
			if (ct[i] == DW_LNCT_path)
				path = s;
			else if (ct[i] == DW_LNCT_directory_index)
				dir = v;
		}
		if (r->err) {
			*why = "truncated file table";
			return 1;
		}
		int rc = files ? tk_dw_ltab_add_file(t, path, dir) : add_dir(t, path);
		if (rc)
			return rc;
	}
	return 0;
}

int tk_dw_line_header(tk_dwarf *d, dw_unit *u, lrd *r, lhdr *h, ltab *t, const char **why)
{
	uint64_t len = rd_n(r, 4);
	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = rd_n(r, 8);
		h->offset_size = 8;
	}
	if (r->err || len > (uint64_t)(r->end - r->p)) {
		*why = "unit length runs past the section";
		return 1;
	}
	r->end = r->p + len;
	h->version = (unsigned)rd_n(r, 2);
	if (r->err || h->version < 2 || h->version > 5) {
		*why = "unsupported line table version";
		return 1;
	}
	h->addr_size = u->addr_size;
	if (h->version >= 5) {
		h->addr_size = (unsigned)rd_n(r, 1);
		rd_n(r, 1);	/* segment selector size */
		if (h->addr_size != 2 && h->addr_size != 4 && h->addr_size != 8) {
			*why = "bad address size";
			return 1;
		}
	}
	uint64_t hlen = rd_n(r, h->offset_size);
	if (r->err || hlen > (uint64_t)(r->end - r->p)) {
		*why = "header length runs past the table";
		return 1;
	}
	const uint8_t *prog = r->p + hlen;
	h->min_insn = (uint8_t)rd_n(r, 1);
	h->max_ops = h->version >= 4 ? (uint8_t)rd_n(r, 1) : 1;
	h->default_stmt = (uint8_t)rd_n(r, 1);
	h->line_base = (int8_t)rd_n(r, 1);
	h->line_range = (uint8_t)rd_n(r, 1);
	h->opcode_base = (uint8_t)rd_n(r, 1);
	if (r->err) {
		*why = "truncated header";
		return 1;
	}
	if (h->line_range == 0) {
		*why = "line_range is 0";
		return 1;
	}
	if (h->max_ops != 1) {
		*why = "more than one operation per instruction (VLIW) is not supported";
		return 1;
	}
	if (h->opcode_base == 0) {
		*why = "opcode_base is 0";
		return 1;
	}
	memset(h->std_len, 0, sizeof h->std_len);
	for (unsigned i = 1; i < h->opcode_base; i++)
		h->std_len[i] = (uint8_t)rd_n(r, 1);
	lrd hr = *r;
	hr.end = prog;
	if (h->version >= 5) {
		int rc = rd_entries(d, &hr, h->offset_size, t, false, why);
		if (rc == 0)
			rc = rd_entries(d, &hr, h->offset_size, t, true, why);
		if (rc)
			return rc;
	} else {
		for (;;) {
			const char *s = rd_cstr(&hr);
			if (hr.err || !*s)
				break;
			if (add_dir(t, s))
				return TK_ERR_NOMEM;
		}
		for (;;) {
			const char *s = rd_cstr(&hr);
			if (hr.err || !*s)
				break;
			uint64_t dir = rd_uleb(&hr);
			rd_uleb(&hr);
			rd_uleb(&hr);
			if (hr.err)
				break;
			if (tk_dw_ltab_add_file(t, s, dir))
				return TK_ERR_NOMEM;
		}
		if (hr.err) {
			*r = hr;
			*why = "truncated directory or file table";
			return 1;
		}
	}
	if (hr.err) {
		*r = hr;
		return 1;
	}
	r->p = prog;
	return 0;
}
