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
 * Damage is reported with the byte offset in .debug_line; the unit then
 * has no line table (binutils ignores such a unit too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dw_line.h"
#include "tracekit/error.h"

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
					if (r->err || tk_dw_ltab_add_file(t, nm, dir))
						return fail(d, u, r, "bad DW_LNE_define_file");
					char **nf = realloc(u->files, (size_t)t->nfiles * sizeof *nf);
					if (!nf)
						return TK_ERR_NOMEM;
					u->files = nf;
					u->files[u->nfiles] = tk_dw_spell(t, t->nfiles - 1, u->comp_dir, u->files_from_0);
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
	int rc = tk_dw_line_header(d, u, &r, &h, &t, &why);
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
		if (!(u->files[i] = tk_dw_spell(&t, i, u->comp_dir, u->files_from_0))) {
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
