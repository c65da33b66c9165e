/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the line-table decoder's shared parts: a bounded reader over
 * .debug_line, the header with its directory and file tables (dw_linehdr.c)
 * and the program (dw_line.c). */
#ifndef TRACEKIT_DWARF_DW_LINE_H
#define TRACEKIT_DWARF_DW_LINE_H

#include <string.h>

#include "dw_impl.h"

/* A bounded reader over .debug_line. */
typedef struct lrd {
	const uint8_t *base, *p, *end;
	bool big, err;
} lrd;

static inline uint64_t rd_n(lrd *r, unsigned n)
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

static inline uint64_t rd_uleb(lrd *r)
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

static inline int64_t rd_sleb(lrd *r)
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

static inline const char *rd_cstr(lrd *r)
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

/* The raw tables of a header. */
typedef struct ltab {
	const char **dirs;
	uint32_t ndirs, capdirs;
	const char **fnames;
	uint64_t *fdirs;
	uint32_t nfiles, capfiles;
} ltab;

/* ---- the program ---- */

typedef struct lhdr {
	unsigned version, offset_size, addr_size;
	uint8_t min_insn, max_ops, default_stmt, line_range, opcode_base;
	int8_t line_base;
	uint8_t std_len[256];
} lhdr;

/* Read the header at r (r->end is then the table's end, r->p the program).
 * Returns 0, 1 with *why (damage; r->p near it), or TK_ERR_NOMEM. */
int tk_dw_line_header(tk_dwarf *d, dw_unit *u, lrd *r, lhdr *h, ltab *t, const char **why);
/* Add a file (DW_LNE_define_file).  Returns 0 or TK_ERR_NOMEM. */
int tk_dw_ltab_add_file(ltab *t, const char *s, uint64_t dir);
/* binutils' spelling of slot i of the file table; NULL without memory. */
char *tk_dw_spell(const ltab *t, uint32_t i, const char *comp_dir, bool from_0);

#endif
