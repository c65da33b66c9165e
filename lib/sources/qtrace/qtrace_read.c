/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Qtrace reader.
 *
 * Reads the file through a 1 MiB buffer that always holds a whole entry
 * before it is parsed (an entry is at most ~100 KiB: a header with a
 * 64 KiB comment, or a record with full register blocks), so the parser
 * only checks bounds against the end of the data.  Field order, validity
 * rules and the branch fix-ups are those of the reference reader; where
 * that reader has faults (no bounds on radix blocks or registers, reading
 * past the end of the file) this one reports an error with the offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binin.h"
#include "sources/qtrace/qtrace_impl.h"
#include "tracekit/error.h"
#include "tracekit/ppc.h"

#define BUF_SIZE (1u << 20)
#define ENTRY_MAX (128u << 10)	/* an entry always fits */
#define MAX_REGS 255

struct tk_qt_reader {
	tk_binin *in;
	char *name;
	tk_qt_reader_opts opts;
	unsigned char *buf;
	size_t pos, len;	/* parse position, bytes in buf */
	uint64_t base;		/* file offset of buf[0] */
	bool eof;

	tk_qt_header hdr;
	/* reader state */
	uint64_t next_ea;
	bool next_rpn_valid, next_ps_valid, next_gps_valid;
	uint32_t next_rpn;
	uint8_t next_ps, next_gps;
	bool rpn_valid, ps_valid, gps_valid;
	uint32_t rpn;
	uint8_t ps, gps;
	tk_qt_walk insn_walk, next_insn_walk, data_walk;
	bool prev_prefix;
	uint32_t version;
	uint64_t number;

	int err;
	char errmsg[320];

	tk_qt_regs regs;
	tk_qt_reg reg_store[3][2][MAX_REGS];	/* gpr, fpr, spr × in, out */
};

static _Thread_local char last_open_error[320];

const char *tk_qt_reader_last_error(void) { return last_open_error; }

void tk_qt_reader_opts_init(tk_qt_reader_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

/* ---- buffer and cursor ---------------------------------------------------- */

/* Make at least ENTRY_MAX bytes available from pos (or all that is left).
 * Returns 0 or a negative error. */
static int refill(tk_qt_reader *r)
{
	if (r->eof || r->len - r->pos >= ENTRY_MAX)
		return 0;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->base += r->pos;
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < BUF_SIZE) {
		long k = tk_binin_read(r->in, r->buf + r->len, BUF_SIZE - r->len);
		if (k < 0)
			return (int)k;
		if (k == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)k;
	}
	return 0;
}

typedef struct cursor {
	const unsigned char *p, *end;
	bool short_read;	/* ran past the data */
} cursor;

static bool has(cursor *c, size_t n)
{
	if ((size_t)(c->end - c->p) >= n)
		return true;
	c->short_read = true;
	c->p = c->end;
	return false;
}

static uint8_t get8(cursor *c)
{
	return has(c, 1) ? *c->p++ : 0;
}

static uint16_t get16(cursor *c)
{
	if (!has(c, 2))
		return 0;
	uint16_t v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	c->p += 2;
	return v;
}

static uint32_t get32(cursor *c)
{
	if (!has(c, 4))
		return 0;
	uint32_t v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
		     (uint32_t)c->p[2] << 8 | c->p[3];
	c->p += 4;
	return v;
}

static uint64_t get64(cursor *c)
{
	uint64_t hi = get32(c);
	return hi << 32 | get32(c);
}

static void skip(cursor *c, size_t n)
{
	if (has(c, n))
		c->p += n;
}

static int fail(tk_qt_reader *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(tk_qt_reader *r, int err, uint64_t off, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof r->errmsg, "%s: offset %" PRIu64 ": %s", r->name, off, msg);
	r->err = err;
	return err;
}

static void note(tk_qt_reader *r, uint64_t off, const char *msg)
{
	if (!r->opts.diag)
		return;
	tk_diag d = {TK_DIAG_NOTE, r->name, off, msg};
	r->opts.diag(r->opts.diag_ctx, &d);
}

static uint64_t off_of(const tk_qt_reader *r, const cursor *c)
{
	return r->base + (uint64_t)(c->p - r->buf);
}

/* ---- radix blocks ------------------------------------------------------------ */

/* Parse a radix block shaped by (host, guest) modes into *w (nr_ptes = 0
 * when the host mode is not radix).  Returns 0 or an error. */
static int parse_walk(tk_qt_reader *r, cursor *c, unsigned host, unsigned guest, tk_qt_walk *w)
{
	w->nr_ptes = 0;
	w->nr_walks = 0;
	if (host != QT_MODE_RADIX)
		return 0;
	if (guest != QT_MODE_RADIX) {
		w->nr_ptes = TK_QT_NR_RADIX_PTES;
		w->nr_walks = 1;
		w->type = guest == QT_MODE_REAL ? TK_QT_WALK_GUEST_REAL :
			  guest == QT_MODE_NOT_DEFINED ? TK_QT_WALK_HOST_RADIX : TK_QT_WALK_UNSPECIFIED;
		for (int i = 0; i < TK_QT_NR_RADIX_PTES; i++)
			w->host_ptes[0][i] = get64(c);
		w->guest_real_addrs[0] = 0;
		return 0;
	}
	uint64_t at = off_of(r, c);
	unsigned nptes = get8(c), nwalks = get8(c);
	if (c->short_read)
		return 0;	/* reported by the caller */
	if (nptes > TK_QT_NR_RADIX_PTES || nwalks < 1 || nwalks > TK_QT_MAX_RADIX_WALKS)
		return fail(r, TK_ERR_CORRUPT, at,
			    "radix block of %u walks of %u PTEs (at most %d of %d)", nwalks,
			    nptes, TK_QT_MAX_RADIX_WALKS, TK_QT_NR_RADIX_PTES);
	w->nr_ptes = (uint8_t)nptes;
	w->nr_walks = (uint8_t)nwalks;
	w->type = TK_QT_WALK_NESTED;
	for (unsigned j = 0; j < nwalks; j++)
		for (unsigned i = 0; i < nptes; i++)
			w->host_ptes[j][i] = get64(c);
	for (unsigned j = 0; j + 1 < nwalks; j++)
		w->host_real_addrs[j] = get64(c);
	for (unsigned j = 0; j < nwalks; j++)
		w->guest_real_addrs[j] = get64(c);
	return 0;
}

/* ---- header ---------------------------------------------------------------- */

static int short_entry(tk_qt_reader *r, uint64_t start, const char *what)
{
	return fail(r, TK_ERR_EOF, start, "the file ends inside %s", what);
}

/* Parse a header entry at the cursor (its word is known to be 0). */
static int parse_header(tk_qt_reader *r, cursor *c, tk_qt_header *h)
{
	uint64_t start = off_of(r, c);
	memset(h, 0, sizeof *h);
	h->size = sizeof *h;
	get32(c);
	uint16_t flags = get16(c);
	uint16_t flags2 = get16(c);
	if (c->short_read)
		return short_entry(r, start, "a header");
	if (flags != QTF_EXTENDED)
		return fail(r, TK_ERR_CORRUPT, start,
			    "header: extended flags missing (flags 0x%04x)", flags);
	if (!(flags2 & QTF2_FILE_HEADER) || (flags2 & ~(QTF2_FILE_HEADER | QTF2_EXTENDED2)))
		return fail(r, TK_ERR_CORRUPT, start, "header: bad flags2 0x%04x", flags2);
	uint16_t flags3 = (flags2 & QTF2_EXTENDED2) ? get16(c) : 0;
	uint16_t hf = get16(c);
	if (c->short_read)
		return short_entry(r, start, "a header");
	if (hf & ~QTH_KNOWN)
		return fail(r, TK_ERR_CORRUPT, start,
			    "header: unhandled file header flags 0x%04x", hf & ~QTH_KNOWN);
	h->flags3 = flags3;
	h->hdr_flags = hf;
	if (hf & QTH_MAGIC) {
		h->has_magic = true;
		h->magic = get32(c);
	}
	if (hf & QTH_VERSION)
		h->version = get32(c);
	h->ea = (hf & QTH_IAR) ? get64(c) : UINT64_MAX;
	if (hf & QTH_IAR_VSID)
		skip(c, 7);
	tk_qt_walk walk = {0};
	if ((hf & QTH_IAR_RPN) && (flags2 & QTF2_EXTENDED2)) {
		int rc = parse_walk(r, c, (flags3 >> QTF3_INSN_HOST_SHIFT) & 3,
				    (flags3 >> QTF3_INSN_GUEST_SHIFT) & 3, &walk);
		if (rc < 0)
			return rc;
	}
	if (hf & QTH_IAR_RPN) {
		h->has_rpn = true;
		h->rpn = get32(c);
	}
	if (hf & QTH_IAR_PAGE_SIZE) {
		h->has_page_shift = true;
		h->page_shift = get8(c);
	}
	if (hf & QTH_IAR_GPAGE_SIZE) {
		h->has_guest_page_shift = true;
		h->guest_page_shift = get8(c);
	}
	if (flags3 & QTF3_PTCR)
		get64(c);
	if (flags3 & QTF3_LPID) {
		h->has_lpid = true;
		h->lpid = (uint32_t)get64(c);
	}
	if (flags3 & QTF3_PID) {
		h->has_pid = true;
		h->pid = get32(c);
	}
	if (hf & QTH_COMMENT)
		skip(c, get16(c));
	if (c->short_read)
		return short_entry(r, start, "a header");

	/* The header describes the next instruction. */
	if (!(hf & QTH_IAR))
		note(r, start, "header has no instruction address");
	if (hf & QTH_VERSION)
		r->version = h->version;
	r->next_ea = h->ea;
	r->next_rpn_valid = h->has_rpn;
	r->next_rpn = h->rpn;
	r->next_ps_valid = h->has_page_shift;
	r->next_ps = h->page_shift;
	r->next_gps_valid = h->has_guest_page_shift;
	r->next_gps = h->guest_page_shift;
	if (walk.nr_ptes)
		r->next_insn_walk = walk;
	return 0;
}

/* ---- opening ---------------------------------------------------------------- */

static int open_common(tk_binin *in, const char *name, const tk_qt_reader_opts *o,
		       tk_qt_reader **out)
{
	tk_qt_reader *r = calloc(1, sizeof *r);
	if (r) {
		r->name = strdup(name);
		r->buf = malloc(BUF_SIZE);
	}
	if (!r || !r->name || !r->buf) {
		tk_binin_close(in);
		tk_qt_reader_free(r);
		return TK_ERR_NOMEM;
	}
	r->in = in;
	if (o)
		memcpy(&r->opts, o, o->size < sizeof r->opts ? o->size : sizeof r->opts);
	int rc = refill(r);
	if (rc < 0) {
		snprintf(last_open_error, sizeof last_open_error, "%s: %s", name, tk_strerror(rc));
		tk_qt_reader_free(r);
		return rc;
	}
	if (r->len == 0) {
		snprintf(last_open_error, sizeof last_open_error, "%s: the file is empty", name);
		tk_qt_reader_free(r);
		return TK_ERR_EMPTY;
	}
	cursor c = {r->buf, r->buf + r->len, false};
	if (r->len < 4 || get32(&c) != 0) {
		snprintf(last_open_error, sizeof last_open_error,
			 "%s: offset 0: not a Qtrace file (the first word is not a header)", name);
		rc = r->len < 4 ? TK_ERR_EOF : TK_ERR_FORMAT;
		tk_qt_reader_free(r);
		return rc;
	}
	c.p = r->buf;
	rc = parse_header(r, &c, &r->hdr);
	if (rc < 0) {
		snprintf(last_open_error, sizeof last_open_error, "%s", r->errmsg);
		tk_qt_reader_free(r);
		return rc == TK_ERR_CORRUPT ? TK_ERR_FORMAT : rc;
	}
	r->pos = (size_t)(c.p - r->buf);
	last_open_error[0] = 0;
	*out = r;
	return 0;
}

int tk_qt_reader_open(const char *path, const tk_qt_reader_opts *o, tk_qt_reader **out)
{
	*out = NULL;
	tk_binin *in;
	int rc = tk_binin_open(path, &in);
	if (rc < 0) {
		int e = errno;
		snprintf(last_open_error, sizeof last_open_error, "%s: %s", path,
			 rc == TK_ERR_OPEN || rc == TK_ERR_ISDIR ? strerror(e) : tk_strerror(rc));
		errno = e;
		return rc;
	}
	return open_common(in, strcmp(path, "-") ? path : "<stdin>", o, out);
}

int tk_qt_reader_open_mem(const void *data, size_t len, const char *name,
			  const tk_qt_reader_opts *o, tk_qt_reader **out)
{
	*out = NULL;
	tk_binin *in;
	int rc = tk_binin_open_mem(data, len, &in);
	if (rc < 0)
		return rc;
	return open_common(in, name ? name : "<memory>", o, out);
}

void tk_qt_reader_free(tk_qt_reader *r)
{
	if (!r)
		return;
	tk_binin_close(r->in);
	free(r->name);
	free(r->buf);
	free(r);
}

const char *tk_qt_reader_error(const tk_qt_reader *r) { return r->err ? r->errmsg : ""; }
const tk_qt_header *tk_qt_reader_header(const tk_qt_reader *r) { return &r->hdr; }
uint64_t tk_qt_reader_next_ea(const tk_qt_reader *r) { return r->next_ea; }
uint64_t tk_qt_reader_offset(const tk_qt_reader *r) { return r->base + r->pos; }
uint64_t tk_qt_reader_size(const tk_qt_reader *r) { return tk_binin_file_size(r->in); }

/* ---- records ---------------------------------------------------------------- */

static void parse_reg_values(cursor *c, unsigned n, unsigned idx_bytes, tk_qt_reg *out)
{
	for (unsigned i = 0; i < n; i++) {
		out[i].index = idx_bytes == 2 ? get16(c) : get8(c);
		out[i].value = get64(c);
	}
}

static void parse_regs(tk_qt_reader *r, cursor *c)
{
	tk_qt_regs *g = &r->regs;
	bool vsx = r->version >= 0x07000000u;
	for (int k = 0; k < 2; k++) {
		g->n_gpr[k] = get8(c);
		g->n_fpr[k] = get8(c);
		g->n_vmx[k] = get8(c);
		g->n_vsx[k] = vsx ? get8(c) : 0;
		g->n_spr[k] = get8(c);
	}
	for (int k = 0; k < 2; k++) {
		parse_reg_values(c, g->n_gpr[k], 1, r->reg_store[0][k]);
		parse_reg_values(c, g->n_fpr[k], 1, r->reg_store[1][k]);
		skip(c, 18u * g->n_vmx[k]);
		skip(c, 18u * g->n_vsx[k]);
		parse_reg_values(c, g->n_spr[k], 2, r->reg_store[2][k]);
		g->gpr[k] = r->reg_store[0][k];
		g->fpr[k] = r->reg_store[1][k];
		g->spr[k] = r->reg_store[2][k];
	}
}

/* Promote the "next" translation facts to the current instruction. */
static void promote(tk_qt_reader *r, uint64_t off)
{
	if (r->next_rpn_valid) {
		if (!r->rpn_valid)
			note(r, off, "insn rpn becomes valid");
		r->rpn = r->next_rpn;
		r->rpn_valid = true;
	}
	if (r->next_ps_valid) {
		if (!r->ps_valid)
			note(r, off, "insn page size becomes valid");
		r->ps = r->next_ps;
		r->ps_valid = true;
	}
	if (r->next_gps_valid) {
		if (!r->gps_valid)
			note(r, off, "guest insn page size becomes valid");
		r->gps = r->next_gps;
		r->gps_valid = true;
	}
	if (r->next_insn_walk.nr_ptes) {
		r->insn_walk = r->next_insn_walk;
		r->next_insn_walk.nr_ptes = 0;
	}
}

static uint64_t page_mask(unsigned shift)
{
	return shift >= 64 ? UINT64_MAX : ((uint64_t)1 << shift) - 1;
}

static uint64_t rebuild_ra(uint32_t rpn, bool shift_valid, unsigned shift, uint64_t ea)
{
	unsigned s = shift_valid ? shift : 16;
	if (s >= 64)
		return ea;
	return ((uint64_t)rpn << s) | (ea & page_mask(s));
}

/* Only primary opcodes 16 (bc) and 19 (bclr, bcctr, bctar) can be
 * conditional branches: a cheap test before the full one. */
static inline bool may_be_branch(uint32_t w)
{
	unsigned op = w >> 26;
	return op == 16 || op == 19;
}

static int parse_record(tk_qt_reader *r, cursor *c, tk_qt_record *rec)
{
	uint64_t start = off_of(r, c);
	memset(rec, 0, sizeof *rec);
	rec->offset = start;
	rec->number = ++r->number;
	rec->ea = r->next_ea;
	promote(r, start);
	if (r->insn_walk.nr_ptes)
		rec->insn_walk = &r->insn_walk;
	if (r->rpn_valid) {
		rec->valid |= TK_QT_RA;
		rec->ra = rebuild_ra(r->rpn, r->ps_valid, r->ps, rec->ea);
	}
	if (r->ps_valid) {
		rec->valid |= TK_QT_PAGE_SHIFT;
		rec->page_shift = r->ps;
	}
	if (r->gps_valid) {
		rec->valid |= TK_QT_GUEST_PAGE_SHIFT;
		rec->guest_page_shift = r->gps;
	}

	rec->insn = get32(c);
	if (r->prev_prefix)
		rec->valid |= TK_QT_SUFFIX;
	uint16_t flags = get16(c);
	uint16_t flags2 = (flags & QTF_EXTENDED) ? get16(c) : 0;
	uint16_t flags3 = (flags2 & QTF2_EXTENDED2) ? get16(c) : 0;
	if (c->short_read)
		return short_entry(r, start, "a record");
	if (flags & QTF_UNKNOWN)
		return fail(r, TK_ERR_CORRUPT, start, "unhandled flags 0x%04x", flags & QTF_UNKNOWN);
	if (flags2 & ~QTF2_KNOWN)
		return fail(r, TK_ERR_CORRUPT, start, "unhandled flags2 0x%04x", flags2 & ~QTF2_KNOWN);

	if (flags == QTF_EXTENDED && flags2 == 0) {
		/* The common record: sequential, nothing about the next
		 * instruction, no data. */
		r->next_ea = rec->ea + 4;
		r->next_rpn_valid = r->next_ps_valid = r->next_gps_valid = false;
		rec->next_ea = r->next_ea;
		if (may_be_branch(rec->insn) && tk_ppc_is_conditional_branch(rec->insn))
			rec->valid |= TK_QT_BRANCH | TK_QT_CONDITIONAL;
		r->prev_prefix = tk_ppc_is_prefix(rec->insn);
		return 0;
	}
	if (flags & QTF_NODE) {
		rec->valid |= TK_QT_NODE;
		rec->node = get8(c);
	}
	if (flags & QTF_TERMINATION) {
		uint64_t at = off_of(r, c);
		rec->term_node = get8(c);
		rec->term_code = get8(c);
		if (c->short_read)
			return short_entry(r, start, "a record");
		switch (rec->term_code) {
		case TK_QT_TERM_MAX_BRANCH_DEPTH:
		case TK_QT_TERM_MAX_INST_DEPTH:
			rec->valid |= TK_QT_CONDITIONAL;
			break;
		case TK_QT_TERM_UNCONDITIONAL:
		case TK_QT_TERM_EXCEPTION:
			break;
		default:
			return fail(r, TK_ERR_CORRUPT, at, "inconsistent branch: termination code 0x%02x",
				    rec->term_code);
		}
		rec->valid |= TK_QT_BRANCH | TK_QT_TERM;
	}
	if (flags & QTF_PROCESSOR)
		get8(c);
	if (flags & QTF_DATA_ADDRESS) {
		rec->valid |= TK_QT_DATA_EA;
		rec->data_ea = get64(c);
	}
	if (flags & QTF_DATA_VSID)
		skip(c, 7);
	if (flags & QTF_DATA_RPN) {
		if (flags2 & QTF2_EXTENDED2) {
			int rc = parse_walk(r, c, (flags3 >> QTF3_DATA_HOST_SHIFT) & 3,
					    (flags3 >> QTF3_DATA_GUEST_SHIFT) & 3, &r->data_walk);
			if (rc < 0)
				return rc;
			if (r->data_walk.nr_ptes)
				rec->data_walk = &r->data_walk;
		}
		rec->valid |= TK_QT_DATA_RPN;
		rec->data_rpn = get32(c);
	}
	if (flags & QTF_IAR) {
		rec->valid |= TK_QT_IAR;
		r->next_ea = get64(c);
	} else {
		r->next_ea = rec->ea + 4;
	}
	if (flags & QTF_IAR_VSID)
		skip(c, 7);
	r->next_rpn_valid = false;
	if (flags & QTF_IAR_RPN) {
		if (flags2 & QTF2_EXTENDED2) {
			int rc = parse_walk(r, c, (flags3 >> QTF3_INSN_HOST_SHIFT) & 3,
					    (flags3 >> QTF3_INSN_GUEST_SHIFT) & 3, &r->next_insn_walk);
			if (rc < 0)
				return rc;
		}
		r->next_rpn_valid = true;
		r->next_rpn = get32(c);
	}
	if (flags & QTF_REGISTER_TRACE) {
		parse_regs(r, c);
		rec->valid |= TK_QT_REGS;
		rec->regs = &r->regs;
	}
	if (flags2 & QTF2_SEQ_RPN) {
		uint32_t seq = get32(c);
		if (!r->next_rpn_valid) {
			r->next_rpn_valid = true;
			r->next_rpn = seq;
		}
	}
	if (flags2 & QTF2_TRACE_ERROR)
		get8(c);
	if (flags2 & QTF2_SEQ_PAGE_SIZE)
		get8(c);	/* overridden or cleared by the IAR page size just after */
	r->next_ps_valid = false;
	if (flags2 & QTF2_IAR_PAGE_SIZE) {
		r->next_ps_valid = true;
		r->next_ps = get8(c);
	}
	if (flags2 & QTF2_DATA_PAGE_SIZE) {
		rec->valid |= TK_QT_DATA_PAGE_SHIFT;
		rec->data_page_shift = get8(c);
	}
	r->next_gps_valid = false;
	if (flags2 & QTF2_INSN_GPAGE_SIZE) {
		r->next_gps_valid = true;
		r->next_gps = get8(c);
	}
	if (flags2 & QTF2_DATA_GPAGE_SIZE) {
		rec->valid |= TK_QT_GUEST_DATA_PAGE_SHIFT;
		rec->guest_data_page_shift = get8(c);
	}
	if (c->short_read)
		return short_entry(r, start, "a record");

	/* What the record says about the next instruction. */
	rec->next_ea = r->next_ea;
	if (r->next_rpn_valid) {
		rec->valid |= TK_QT_NEXT_RPN;
		rec->next_rpn = r->next_rpn;
	}
	if (r->next_ps_valid) {
		rec->valid |= TK_QT_NEXT_PAGE_SHIFT;
		rec->next_page_shift = r->next_ps;
	}
	if (r->next_gps_valid) {
		rec->valid |= TK_QT_NEXT_GUEST_PAGE_SHIFT;
		rec->next_guest_page_shift = r->next_gps;
	}

	/* Branch fix-ups. */
	if (flags & QTF_TERMINATION) {
		if (r->next_ea != rec->ea + 4)
			rec->valid |= TK_QT_BRANCH_TAKEN;
		if (tk_ppc_is_unconditional_branch(rec->insn))
			rec->valid &= ~(uint32_t)TK_QT_CONDITIONAL;
	} else if (may_be_branch(rec->insn) && tk_ppc_is_conditional_branch(rec->insn)) {
		rec->valid |= TK_QT_BRANCH | TK_QT_CONDITIONAL;
	}
	if (rec->valid & TK_QT_DATA_RPN) {
		rec->valid |= TK_QT_DATA_RA;
		rec->data_ra = rebuild_ra(rec->data_rpn, rec->valid & TK_QT_DATA_PAGE_SHIFT,
					  rec->data_page_shift, rec->data_ea);
	}
	r->prev_prefix = tk_ppc_is_prefix(rec->insn);
	return 0;
}

int tk_qt_reader_next(tk_qt_reader *r, tk_qt_record *rec)
{
	if (r->err)
		return r->err;
	bool after_header = false;
	for (;;) {
		int rc = refill(r);
		if (rc < 0)
			return fail(r, rc, r->base + r->len, "%s", tk_strerror(rc));
		if (r->pos == r->len)
			return 0;
		cursor c = {r->buf + r->pos, r->buf + r->len, false};
		/* An entry whose word is 0 is a header, except after a prefix
		 * (the suffix of a prefixed instruction may be 0). */
		if (!r->prev_prefix && r->len - r->pos >= 4 && get32(&c) == 0) {
			c.p = r->buf + r->pos;
			tk_qt_header h;
			rc = parse_header(r, &c, &h);
			if (rc < 0)
				return rc;
			r->pos = (size_t)(c.p - r->buf);
			after_header = true;
			continue;
		}
		c.p = r->buf + r->pos;
		rc = parse_record(r, &c, rec);
		if (rc < 0)
			return rc;
		if (after_header)
			rec->valid |= TK_QT_AFTER_HEADER;
		r->pos = (size_t)(c.p - r->buf);
		return 1;
	}
}

int tk_qt_probe(const void *head, size_t len)
{
	const unsigned char *p = head;
	if (len < 10)
		return 0;
	unsigned flags = (unsigned)p[4] << 8 | p[5], flags2 = (unsigned)p[6] << 8 | p[7];
	if (p[0] | p[1] | p[2] | p[3] || flags != QTF_EXTENDED || !(flags2 & QTF2_FILE_HEADER) ||
	    (flags2 & ~(QTF2_FILE_HEADER | QTF2_EXTENDED2)))
		return 0;
	size_t at = (flags2 & QTF2_EXTENDED2) ? 10 : 8;
	if (len < at + 2)
		return 80;
	unsigned hf = (unsigned)p[at] << 8 | p[at + 1];
	return (hf & ~QTH_KNOWN) ? 0 : 90;
}
