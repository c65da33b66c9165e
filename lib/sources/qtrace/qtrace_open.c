/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Qtrace reader — buffering, header entries, opening.
 *
 * Reads the file through a 1 MiB buffer that always holds a whole entry
 * before it is parsed (an entry is at most ~100 KiB: a header with a
 * 64 KiB comment, or a record with full register blocks), so the parser
 * only checks bounds against the end of the data.  Field order and
 * validity rules are those of the reference reader; where that reader has
 * faults (no bounds on radix blocks, reading past the end of the file)
 * this one reports an error with the offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/qtrace/qtrace_reader.h"
#include "tracekit/error.h"

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
int qt_refill(tk_qt_reader *r)
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

int qt_fail(tk_qt_reader *r, int err, uint64_t off, const char *fmt, ...)
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

void qt_note(tk_qt_reader *r, uint64_t off, const char *msg)
{
	if (!r->opts.diag)
		return;
	tk_diag d = {TK_DIAG_NOTE, r->name, 0, msg, true, off};
	r->opts.diag(r->opts.diag_ctx, &d);
}


/* ---- radix blocks ------------------------------------------------------------ */

/* Parse a radix block shaped by (host, guest) modes into *w (nr_ptes = 0
 * when the host mode is not radix).  Returns 0 or an error. */
int qt_parse_walk(tk_qt_reader *r, cursor *c, unsigned host, unsigned guest, tk_qt_walk *w)
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
	uint64_t at = qt_off_of(r, c);
	unsigned nptes = get8(c), nwalks = get8(c);
	if (c->short_read)
		return 0;	/* reported by the caller */
	if (nptes > TK_QT_NR_RADIX_PTES || nwalks < 1 || nwalks > TK_QT_MAX_RADIX_WALKS)
		return qt_fail(r, TK_ERR_CORRUPT, at,
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

int qt_short_entry(tk_qt_reader *r, uint64_t start, const char *what)
{
	return qt_fail(r, TK_ERR_EOF, start, "the file ends inside %s", what);
}

/* Parse a header entry at the cursor (its word is known to be 0). */
int qt_parse_header(tk_qt_reader *r, cursor *c, tk_qt_header *h)
{
	uint64_t start = qt_off_of(r, c);
	memset(h, 0, sizeof *h);
	h->size = sizeof *h;
	get32(c);
	uint16_t flags = get16(c);
	uint16_t flags2 = get16(c);
	if (c->short_read)
		return qt_short_entry(r, start, "a header");
	if (flags != QTF_EXTENDED)
		return qt_fail(r, TK_ERR_CORRUPT, start,
			    "header: extended flags missing (flags 0x%04x)", flags);
	if (!(flags2 & QTF2_FILE_HEADER) || (flags2 & ~(QTF2_FILE_HEADER | QTF2_EXTENDED2)))
		return qt_fail(r, TK_ERR_CORRUPT, start, "header: bad flags2 0x%04x", flags2);
	uint16_t flags3 = (flags2 & QTF2_EXTENDED2) ? get16(c) : 0;
	uint16_t hf = get16(c);
	if (c->short_read)
		return qt_short_entry(r, start, "a header");
	if (hf & ~QTH_KNOWN)
		return qt_fail(r, TK_ERR_CORRUPT, start,
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
		int rc = qt_parse_walk(r, c, (flags3 >> QTF3_INSN_HOST_SHIFT) & 3,
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
		return qt_short_entry(r, start, "a header");

	/* The header describes the next instruction. */
	if (!(hf & QTH_IAR))
		qt_note(r, start, "header has no instruction address");
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
	int rc = qt_refill(r);
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
	rc = qt_parse_header(r, &c, &r->hdr);
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

