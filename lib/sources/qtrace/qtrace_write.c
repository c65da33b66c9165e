/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Qtrace writer.
 *
 * The bytes are those of the reference writer (qtrace-tools' qtwriter):
 * the header is made from the first record; record i is written when
 * record i+1 arrives, because it carries i+1's EA (on a jump), RPN and page
 * size, and the termination code of the transition; the last record is
 * flushed with a synthetic successor at EA + 4.
 *
 * Where the reference writes bytes its own reader misreads, this writer
 * departs from it (never for records without radix walks or guest page
 * sizes, i.e. never for what the HTM decoder makes):
 *  - when flags3 is written, a side that carries no walk gets host mode
 *    NOT_DEFINED, so a reader does not expect a radix block there; and the
 *    reference's stray data-side bits for a single instruction walk are not
 *    written;
 *  - the data page size is written before the instruction guest page size
 *    (the reader's order; the reference swaps them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sources/qtrace/qtrace_impl.h"
#include "tracekit/error.h"

#define OUT_SIZE (256u << 10)
#define REC_MAX 1024		/* a record with two full walks fits */

struct tk_qt_writer {
	FILE *fp;
	uint32_t magic;
	unsigned char *out;
	size_t len;
	uint64_t flushed;
	bool header_written, have_prev;
	tk_qt_record prev;
	tk_qt_walk prev_insn_walk, prev_data_walk;	/* copies behind prev's pointers */
	int err;
};

int tk_qt_writer_new(FILE *fp, uint32_t magic, tk_qt_writer **out)
{
	*out = NULL;
	tk_qt_writer *w = calloc(1, sizeof *w);
	if (!w)
		return TK_ERR_NOMEM;
	w->out = malloc(OUT_SIZE);
	if (!w->out) {
		free(w);
		return TK_ERR_NOMEM;
	}
	w->fp = fp;
	w->magic = magic;
	*out = w;
	return 0;
}

void tk_qt_writer_free(tk_qt_writer *w)
{
	if (!w)
		return;
	free(w->out);
	free(w);
}

uint64_t tk_qt_writer_bytes(const tk_qt_writer *w) { return w->flushed + w->len; }

static int flush(tk_qt_writer *w)
{
	if (w->len && fwrite(w->out, 1, w->len, w->fp) != w->len) {
		w->err = TK_ERR_IO;
		return w->err;
	}
	w->flushed += w->len;
	w->len = 0;
	return 0;
}

/* ---- byte emitters over a record buffer ---------------------------------- */

static unsigned char *put8(unsigned char *p, unsigned v) { *p++ = (unsigned char)v; return p; }

static unsigned char *put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
	return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
	return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

static bool walk_ok(const tk_qt_walk *x)
{
	return !x || x->nr_ptes == 0 ||
	       (x->nr_ptes <= TK_QT_NR_RADIX_PTES && x->nr_walks >= 1 &&
		x->nr_walks <= TK_QT_MAX_RADIX_WALKS);
}

/* The radix block: 4 PTEs for a single walk, the counted form otherwise. */
static unsigned char *put_walk(unsigned char *p, const tk_qt_walk *x)
{
	if (x->nr_walks == 1) {
		for (int i = 0; i < TK_QT_NR_RADIX_PTES; i++)
			p = put64(p, i < x->nr_ptes ? x->host_ptes[0][i] : 0);
		return p;
	}
	p = put8(p, x->nr_ptes);
	p = put8(p, x->nr_walks);
	for (unsigned j = 0; j < x->nr_walks; j++)
		for (unsigned i = 0; i < x->nr_ptes; i++)
			p = put64(p, x->host_ptes[j][i]);
	for (unsigned j = 0; j + 1 < x->nr_walks; j++)
		p = put64(p, x->host_real_addrs[j]);
	for (unsigned j = 0; j < x->nr_walks; j++)
		p = put64(p, x->guest_real_addrs[j]);
	return p;
}

static uint32_t rpn_of(uint64_t ra, bool shift_valid, unsigned shift)
{
	unsigned s = shift_valid ? shift : 16;
	return s >= 64 ? 0 : (uint32_t)(ra >> s);
}

/* ---- header and records ----------------------------------------------------- */

/* Room for one more entry, written in place (committed by done()). */
static unsigned char *room(tk_qt_writer *w)
{
	if (w->len + REC_MAX > OUT_SIZE)
		flush(w);	/* on error the buffer is reused; w->err says so */
	return w->out + w->len;
}

static void done(tk_qt_writer *w, const unsigned char *end)
{
	w->len = (size_t)(end - w->out);
	if (w->err)
		w->len = 0;
}

static void write_header(tk_qt_writer *w, const tk_qt_record *r0)
{
	/* (The reference writes a walk even without an RA; its reader then
	 * does not expect one.  No walk without an RA here.) */
	const tk_qt_walk *walk = (r0->valid & TK_QT_RA) && qt_walk_present(r0->insn_walk)
					 ? r0->insn_walk : NULL;
	unsigned char *p = room(w);
	p = put32(p, 0);
	p = put16(p, QTF_EXTENDED);
	p = put16(p, QTF2_FILE_HEADER | (walk ? QTF2_EXTENDED2 : 0));
	if (walk) {
		unsigned f3 = walk->nr_walks > 1 ? 0 : qt_walk_guest_mode(walk) << QTF3_INSN_GUEST_SHIFT;
		p = put16(p, f3);
	}
	unsigned hf = QTH_IAR | QTH_VERSION;
	if (r0->valid & TK_QT_RA)
		hf |= QTH_IAR_RPN;
	if (r0->valid & TK_QT_PAGE_SHIFT)
		hf |= QTH_IAR_PAGE_SIZE;
	if (r0->valid & TK_QT_GUEST_PAGE_SHIFT)
		hf |= QTH_IAR_GPAGE_SIZE;
	if (w->magic)
		hf |= QTH_MAGIC;
	p = put16(p, hf);
	if (w->magic)
		p = put32(p, w->magic);
	p = put32(p, TK_QT_VERSION);
	p = put64(p, r0->ea);
	if (walk)
		p = put_walk(p, walk);
	if (r0->valid & TK_QT_RA)
		p = put32(p, rpn_of(r0->ra, r0->valid & TK_QT_PAGE_SHIFT, r0->page_shift));
	if (r0->valid & TK_QT_PAGE_SHIFT)
		p = put8(p, r0->page_shift);
	if (r0->valid & TK_QT_GUEST_PAGE_SHIFT)
		p = put8(p, r0->guest_page_shift);
	done(w, p);
}

/* Write prev's record, now that its successor r is known. */
static void write_record(tk_qt_writer *w, const tk_qt_record *r)
{
	const tk_qt_record *P = &w->prev;
	bool iar_change = r->ea != P->ea + 4;
	bool p_branch = P->valid & TK_QT_BRANCH;
	bool is_branch = p_branch || iar_change;
	const tk_qt_walk *dwalk = (P->valid & TK_QT_DATA_RA) && qt_walk_present(P->data_walk)
					  ? P->data_walk : NULL;
	bool next_ra = (r->valid & TK_QT_RA) && iar_change;
	const tk_qt_walk *iwalk = next_ra && qt_walk_present(r->insn_walk) ? r->insn_walk : NULL;

	unsigned flags = QTF_EXTENDED, flags2 = 0, flags3 = 0;
	if (P->valid & TK_QT_DATA_EA)
		flags |= QTF_DATA_ADDRESS;
	if (P->valid & TK_QT_DATA_RA)
		flags |= QTF_DATA_RPN;
	if (P->valid & TK_QT_DATA_PAGE_SHIFT)
		flags2 |= QTF2_DATA_PAGE_SIZE;
	if (P->valid & TK_QT_GUEST_DATA_PAGE_SHIFT)
		flags2 |= QTF2_DATA_GPAGE_SIZE;
	if (next_ra)
		flags |= QTF_IAR_RPN;
	if ((r->valid & TK_QT_PAGE_SHIFT) && iar_change)
		flags2 |= QTF2_IAR_PAGE_SIZE;
	if ((r->valid & TK_QT_GUEST_PAGE_SHIFT) && iar_change)
		flags2 |= QTF2_INSN_GPAGE_SIZE;
	if (is_branch) {
		flags |= QTF_NODE | QTF_TERMINATION;
		if (iar_change)
			flags |= QTF_IAR_CHANGE | QTF_IAR;
	}
	if (dwalk || iwalk) {
		flags2 |= QTF2_EXTENDED2;
		if (dwalk)
			flags3 |= dwalk->nr_walks > 1 ? 0 : qt_walk_guest_mode(dwalk) << QTF3_DATA_GUEST_SHIFT;
		else
			flags3 |= (QT_MODE_NOT_DEFINED << QTF3_DATA_HOST_SHIFT) |
				  (QT_MODE_NOT_DEFINED << QTF3_DATA_GUEST_SHIFT);
		if (iwalk)
			flags3 |= iwalk->nr_walks > 1 ? 0 : QT_MODE_NOT_DEFINED << QTF3_INSN_GUEST_SHIFT;
		else
			flags3 |= (QT_MODE_NOT_DEFINED << QTF3_INSN_HOST_SHIFT) |
				  (QT_MODE_NOT_DEFINED << QTF3_INSN_GUEST_SHIFT);
	}

	unsigned char *p = room(w);
	p = put32(p, P->insn);
	p = put16(p, flags);
	p = put16(p, flags2);
	if (flags2 & QTF2_EXTENDED2)
		p = put16(p, flags3);
	if (is_branch) {
		unsigned code = !p_branch ? TK_QT_TERM_EXCEPTION :
				(P->valid & TK_QT_CONDITIONAL) ? TK_QT_TERM_MAX_BRANCH_DEPTH
							       : TK_QT_TERM_UNCONDITIONAL;
		p = put8(p, 0);
		p = put8(p, 0);
		p = put8(p, code);
	}
	if (flags & QTF_DATA_ADDRESS)
		p = put64(p, P->data_ea);
	if (flags & QTF_DATA_RPN) {
		if (dwalk)
			p = put_walk(p, dwalk);
		p = put32(p, rpn_of(P->data_ra, P->valid & TK_QT_DATA_PAGE_SHIFT, P->data_page_shift));
	}
	if (is_branch && iar_change)
		p = put64(p, r->ea);
	if (next_ra) {
		if (iwalk)
			p = put_walk(p, iwalk);
		p = put32(p, rpn_of(r->ra, r->valid & TK_QT_PAGE_SHIFT, r->page_shift));
	}
	if (flags2 & QTF2_IAR_PAGE_SIZE)
		p = put8(p, r->page_shift);
	if (flags2 & QTF2_DATA_PAGE_SIZE)
		p = put8(p, P->data_page_shift);
	if (flags2 & QTF2_INSN_GPAGE_SIZE)
		p = put8(p, r->guest_page_shift);
	if (flags2 & QTF2_DATA_GPAGE_SIZE)
		p = put8(p, P->guest_data_page_shift);
	done(w, p);
}

static void keep_prev(tk_qt_writer *w, const tk_qt_record *r)
{
	w->prev = *r;
	w->prev.insn_walk = NULL;
	w->prev.data_walk = NULL;
	if (qt_walk_present(r->insn_walk)) {
		w->prev_insn_walk = *r->insn_walk;
		w->prev.insn_walk = &w->prev_insn_walk;
	}
	if (qt_walk_present(r->data_walk)) {
		w->prev_data_walk = *r->data_walk;
		w->prev.data_walk = &w->prev_data_walk;
	}
	w->have_prev = true;
}

int tk_qt_writer_add(tk_qt_writer *w, const tk_qt_record *r)
{
	if (w->err)
		return w->err;
	if (!walk_ok(r->insn_walk) || !walk_ok(r->data_walk))
		return TK_ERR_INVAL;
	if (!w->header_written) {
		write_header(w, r);
		w->header_written = true;
	} else {
		write_record(w, r);
	}
	keep_prev(w, r);
	return w->err;
}

int tk_qt_writer_finish(tk_qt_writer *w)
{
	if (w->err)
		return w->err;
	tk_qt_record last;
	memset(&last, 0, sizeof last);
	last.ea = (w->have_prev ? w->prev.ea : 0) + 4;
	if (!w->header_written) {
		write_header(w, &last);
		w->header_written = true;
	} else {
		write_record(w, &last);
	}
	w->have_prev = false;
	if (flush(w) < 0 || fflush(w->fp) != 0)
		w->err = TK_ERR_IO;
	return w->err;
}
