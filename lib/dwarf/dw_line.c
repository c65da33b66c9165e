/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: decoding a DWARF line-number program (versions 2 to 5).
 *
 * The rows are kept the way binutils keeps them, since addr2line's answer
 * depends on it:
 *  - a row at the same address as the row just before it (and both ending
 *    a sequence or neither) replaces that row: of several rows at one
 *    address, the last one counts;
 *  - a sequence's rows are sorted by address (the end row stays last) and
 *    the sequence's low address is the lowest of its rows;
 *  - sequences are sorted by low address (the larger first when two start
 *    together, else in table order); one inside an earlier one is dropped
 *    and one overlapping an earlier one starts where that one ends;
 *  - file names are spelled DIR/FILE or COMP_DIR/DIR/FILE without
 *    normalisation, "<unknown>" for file 0 before DWARF 5.
 * Damage is reported with the byte offset in .debug_line; the unit then
 * has no line table (binutils ignores such a unit too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

/* A bounded reader over .debug_line. */
typedef struct lrd {
	const uint8_t *base, *p, *end;
	bool big, err;
} lrd;

static uint64_t rd_n(lrd *r, unsigned n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->err = true;
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned b = r->p[r->big ? i : n - 1 - i];
		v = v << 8 | b;
	}
	r->p += n;
	return v;
}

static uint64_t rd_uleb(lrd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (r->p >= r->end) {
			r->err = true;
			return v;
		}
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t rd_sleb(lrd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (r->p >= r->end) {
			r->err = true;
			return (int64_t)v;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static const char *rd_cstr(lrd *r)
{
	const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
	if (!nul) {
		r->err = true;
		r->p = r->end;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = nul + 1;
	return s;
}

/* The raw tables of the header. */
typedef struct ltab {
	const char **dirs;
	uint32_t ndirs, capdirs;
	const char **fnames;
	uint64_t *fdirs;
	uint32_t nfiles, capfiles;
} ltab;

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

static int add_file(ltab *t, const char *s, uint64_t dir)
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
static char *spell(const ltab *t, uint32_t i, const char *comp_dir, bool from_0)
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
		int rc = files ? add_file(t, path, dir) : add_dir(t, path);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- rows and sequences ---- */

typedef struct rowbuf {
	dw_row *rows;
	uint32_t n, cap;
	dw_seq *seqs;
	uint32_t nseqs, capseqs;
	uint32_t seq_first;	/* first row of the open sequence */
	bool open;
	uint64_t seq_low;
} rowbuf;

static int add_row(rowbuf *b, uint64_t addr, const char *file, uint32_t line, uint32_t disc,
		   bool end)
{
	if (b->open && b->n > b->seq_first) {
		dw_row *last = &b->rows[b->n - 1];
		/* Same address as the previous row (which cannot be an end
		 * row: those close the sequence): the new row replaces it. */
		if (last->addr == addr && !end) {
			*last = (dw_row){addr, file, line, disc};
			return 0;
		}
	}
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 256;
		if (cap < b->cap)
			return TK_ERR_NOMEM;
		dw_row *nr = realloc(b->rows, (size_t)cap * sizeof *nr);
		if (!nr)
			return TK_ERR_NOMEM;
		b->rows = nr;
		b->cap = cap;
	}
	if (!b->open) {
		b->open = true;
		b->seq_first = b->n;
		b->seq_low = addr;
	}
	if (addr < b->seq_low)
		b->seq_low = addr;
	b->rows[b->n++] = (dw_row){addr, file, line, disc};
	if (end) {
		if (b->nseqs == b->capseqs) {
			uint32_t cap = b->capseqs ? 2 * b->capseqs : 16;
			dw_seq *ns = realloc(b->seqs, (size_t)cap * sizeof *ns);
			if (!ns)
				return TK_ERR_NOMEM;
			b->seqs = ns;
			b->capseqs = cap;
		}
		b->seqs[b->nseqs++] = (dw_seq){b->seq_low, addr, b->seq_first, b->n - b->seq_first};
		b->open = false;
	}
	return 0;
}

/* Rows of a sequence out of address order (rare: hand-made tables) are
 * sorted, stably; the end row stays last. */
static void sort_sequence(dw_row *rows, uint32_t n)
{
	for (uint32_t i = 1; i + 1 < n; i++) {
		dw_row x = rows[i];
		uint32_t j = i;
		while (j > 0 && rows[j - 1].addr > x.addr) {
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = x;
	}
}

static int cmp_seq(const void *a, const void *b)
{
	const dw_seq *x = a, *y = b;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high > y->high ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int finish_sequences(rowbuf *b)
{
	/* A sequence left open at the end of the table ends at its last row. */
	if (b->open && b->n > b->seq_first) {
		dw_row last = b->rows[b->n - 1];
		b->n--;
		b->open = b->n > b->seq_first;
		if (!b->open) {
			b->open = true;
			b->seq_first = b->n;
			b->seq_low = last.addr;
		}
		if (add_row(b, last.addr, last.file, last.line, last.disc, true))
			return TK_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < b->nseqs; i++)
		sort_sequence(b->rows + b->seqs[i].first, b->seqs[i].n);
	if (!b->nseqs)
		return 0;
	qsort(b->seqs, b->nseqs, sizeof *b->seqs, cmp_seq);
	uint32_t n = 1;
	uint64_t last_high = b->seqs[0].high;
	for (uint32_t i = 1; i < b->nseqs; i++) {
		dw_seq s = b->seqs[i];
		if (s.low < last_high) {
			if (s.high <= last_high)
				continue;	/* nested */
			s.low = last_high;	/* overlapping */
		}
		last_high = s.high;
		b->seqs[n++] = s;
	}
	b->nseqs = n;
	return 0;
}

/* ---- the program ---- */

typedef struct lhdr {
	unsigned version, offset_size, addr_size;
	uint8_t min_insn, max_ops, default_stmt, line_range, opcode_base;
	int8_t line_base;
	uint8_t std_len[256];
} lhdr;

static int fail(tk_dwarf *d, dw_unit *u, const lrd *r, const char *why)
{
	tk_dw_report(d, TK_DIAG_ERROR, ".debug_line at offset 0x%llx: %s (line table of the unit at .debug_info offset 0x%llx)",
		     (unsigned long long)(r->p - r->base), why, (unsigned long long)u->offset);
	u->error = true;
	return 1;
}

static int run_program(tk_dwarf *d, dw_unit *u, lrd *r, const lhdr *h, ltab *t, rowbuf *b)
{
	while (r->p < r->end) {
		uint64_t addr = 0;
		uint64_t file = u->files_from_0 ? 0 : 1;
		uint32_t line = 1, disc = 0;
		bool end = false;
		const char *fname = t->nfiles ? tk_dw_file_name(u, file) : NULL;
		while (!end && r->p < r->end) {
			const uint8_t *at = r->p;
			uint8_t op = (uint8_t)rd_n(r, 1);
			if (op >= h->opcode_base) {
				unsigned adj = op - h->opcode_base;
				addr += (uint64_t)(adj / h->line_range) * h->min_insn;
				line += (uint32_t)(h->line_base + (int)(adj % h->line_range));
				if (add_row(b, addr, fname, line, disc, false))
					return TK_ERR_NOMEM;
				disc = 0;
				continue;
			}
			switch (op) {
			case 0: {	/* extended */
				uint64_t len = rd_uleb(r);
				if (r->err || len > (uint64_t)(r->end - r->p)) {
					r->p = at;
					return fail(d, u, r, "extended opcode runs past the table");
				}
				const uint8_t *next = r->p + len;
				if (len == 0)
					break;
				uint8_t ext = (uint8_t)rd_n(r, 1);
				switch (ext) {
				case DW_LNE_end_sequence:
					end = true;
					if (add_row(b, addr, fname, line, disc, true))
						return TK_ERR_NOMEM;
					disc = 0;
					break;
				case DW_LNE_set_address:
					if (len - 1 > 8) {
						r->p = at;
						return fail(d, u, r, "bad DW_LNE_set_address length");
					}
					addr = rd_n(r, (unsigned)(len - 1));
					break;
				case DW_LNE_define_file: {
					const char *nm = rd_cstr(r);
					uint64_t dir = rd_uleb(r);
					rd_uleb(r);
					rd_uleb(r);
					if (r->err || add_file(t, nm, dir))
						return fail(d, u, r, "bad DW_LNE_define_file");
					char **nf = realloc(u->files, (size_t)t->nfiles * sizeof *nf);
					if (!nf)
						return TK_ERR_NOMEM;
					u->files = nf;
					u->files[u->nfiles] = spell(t, t->nfiles - 1, u->comp_dir, u->files_from_0);
					if (!u->files[u->nfiles])
						return TK_ERR_NOMEM;
					u->nfiles++;
					break;
				}
				case DW_LNE_set_discriminator:
					disc = (uint32_t)rd_uleb(r);
					break;
				default:
					break;
				}
				r->p = next;
				break;
			}
			case DW_LNS_copy:
				if (add_row(b, addr, fname, line, disc, false))
					return TK_ERR_NOMEM;
				disc = 0;
				break;
			case DW_LNS_advance_pc:
				addr += rd_uleb(r) * h->min_insn;
				break;
			case DW_LNS_advance_line:
				line += (uint32_t)rd_sleb(r);
				break;
			case DW_LNS_set_file:
				file = rd_uleb(r);
				fname = tk_dw_file_name(u, file);
				break;
			case DW_LNS_set_column:
				rd_uleb(r);
				break;
			case DW_LNS_negate_stmt:
			case DW_LNS_set_basic_block:
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				break;
			case DW_LNS_const_add_pc:
				addr += (uint64_t)((255 - h->opcode_base) / h->line_range) * h->min_insn;
				break;
			case DW_LNS_fixed_advance_pc:
				addr += rd_n(r, 2);
				break;
			case DW_LNS_set_isa:
				rd_uleb(r);
				break;
			default:
				for (unsigned k = 0; k < h->std_len[op]; k++)
					rd_uleb(r);
				break;
			}
			if (r->err) {
				r->p = at;
				return fail(d, u, r, "truncated line-number program");
			}
		}
	}
	return 0;
}

static int read_header(tk_dwarf *d, dw_unit *u, lrd *r, lhdr *h, ltab *t, const char **why)
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
			if (add_file(t, s, dir))
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

int tk_dw_decode_lines(tk_dwarf *d, dw_unit *u)
{
	if (!d->line_data || u->stmt_off >= d->line_len) {
		tk_dw_report(d, TK_DIAG_ERROR,
			     ".debug_info at offset 0x%llx: line table offset 0x%llx is outside .debug_line",
			     (unsigned long long)u->offset, (unsigned long long)u->stmt_off);
		u->error = true;
		return 1;
	}
	lrd r = {d->line_data, d->line_data + u->stmt_off, d->line_data + d->line_len,
		 d->big_endian, false};
	lhdr h;
	ltab t = {0};
	rowbuf b = {0};
	const char *why = "bad header";
	int rc = read_header(d, u, &r, &h, &t, &why);
	if (rc == TK_ERR_NOMEM)
		goto out;
	if (rc) {
		rc = fail(d, u, &r, why);
		goto out;
	}
	u->files_from_0 = h.version >= 5;
	u->files = calloc(t.nfiles ? t.nfiles : 1, sizeof *u->files);
	if (!u->files) {
		rc = TK_ERR_NOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < t.nfiles; i++) {
		if (!(u->files[i] = spell(&t, i, u->comp_dir, u->files_from_0))) {
			rc = TK_ERR_NOMEM;
			goto out;
		}
		u->nfiles++;
	}
	rc = run_program(d, u, &r, &h, &t, &b);
	if (rc)
		goto out;
	/* Each sequence's [lowest, highest address] goes into binutils'
	 * trie when it decodes the unit (before sequences are trimmed). */
	for (uint32_t i = 0; rc == 0 && i < b.nseqs; i++) {
		uint64_t high = 0;
		for (uint32_t k = 0; k < b.seqs[i].n; k++)
			if (b.rows[b.seqs[i].first + k].addr > high)
				high = b.rows[b.seqs[i].first + k].addr;
		rc = tk_dw_add_range(&u->late_ranges, &u->nlate_ranges, b.seqs[i].low, high);
	}
	if (rc == 0)
		rc = finish_sequences(&b);
	if (rc)
		goto out;
	u->rows = b.rows;
	u->nrows = b.n;
	u->seqs = b.seqs;
	u->nseqs = b.nseqs;
	b.rows = NULL;
	b.seqs = NULL;
out:
	free(b.rows);
	free(b.seqs);
	free(t.dirs);
	free(t.fnames);
	free(t.fdirs);
	return rc;
}
