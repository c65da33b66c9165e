/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Qtrace files and HTM dumps as one stream of executed
 * instructions (prefixed pairs merged, branch kinds classified). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binin.h"
#include "tracekit/error.h"
#include "tracekit/htm.h"
#include "tracekit/power.h"
#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"

struct tk_power {
	tk_power_format format;
	tk_qt_reader *qt;
	tk_htm *htm;
	/* one record of look-ahead */
	tk_qt_record next;
	bool have_next, at_end, next_gap;
	int pending_err;
	uint64_t invalid_seen;		/* HTM: invalid sequences and stray words so far */
	char errmsg[320];
};

static _Thread_local char last_error[320];

const char *tk_power_last_error(void) { return last_error; }

void tk_power_opts_init(tk_power_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
}

tk_power_format tk_power_probe(const void *head, size_t len, int *confidence)
{
	int q = tk_qt_probe(head, len), h = tk_htm_probe(head, len);
	if (confidence)
		*confidence = q > h ? q : h;
	if (!q && !h)
		return TK_POWER_DETECT;
	return q >= h ? TK_POWER_QTRACE : TK_POWER_HTM;
}

static int detect(const char *path, tk_power_format *fmt)
{
	tk_binin *in;
	int rc = tk_binin_open(path, &in);
	if (rc < 0)
		return rc;
	unsigned char head[512];
	long n = tk_binin_read(in, head, sizeof head);
	tk_binin_close(in);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return TK_ERR_EMPTY;
	*fmt = tk_power_probe(head, (size_t)n, NULL);
	if (*fmt == TK_POWER_DETECT) {
		snprintf(last_error, sizeof last_error,
			 "%s: neither a Qtrace file nor a POWER Core HTM dump", path);
		return TK_ERR_FORMAT;
	}
	return 0;
}

int tk_power_open(const char *path, const tk_power_opts *o, tk_power **out)
{
	*out = NULL;
	last_error[0] = 0;
	tk_power_opts opts;
	tk_power_opts_init(&opts);
	if (o)
		memcpy(&opts, o, o->size < sizeof opts ? o->size : sizeof opts);
	tk_power_format fmt = opts.format;
	int rc = 0;
	if (fmt == TK_POWER_DETECT) {
		if (!strcmp(path, "-")) {
			snprintf(last_error, sizeof last_error,
				 "standard input: give the format (it cannot be read twice)");
			return TK_ERR_INVAL;
		}
		if ((rc = detect(path, &fmt)) < 0)
			return rc;
	}
	tk_power *p = calloc(1, sizeof *p);
	if (!p)
		return TK_ERR_NOMEM;
	p->format = fmt;
	if (fmt == TK_POWER_QTRACE) {
		tk_qt_reader_opts qo;
		tk_qt_reader_opts_init(&qo);
		rc = tk_qt_reader_open(path, &qo, &p->qt);
		if (rc < 0)
			snprintf(last_error, sizeof last_error, "%s", tk_qt_reader_last_error());
	} else {
		tk_htm_opts ho;
		tk_htm_opts_init(&ho);
		ho.diag = opts.diag;
		ho.diag_ctx = opts.diag_ctx;
		rc = tk_htm_open(path, &ho, &p->htm);
	}
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void tk_power_free(tk_power *p)
{
	if (!p)
		return;
	tk_qt_reader_free(p->qt);
	tk_htm_free(p->htm);
	free(p);
}

const char *tk_power_error(const tk_power *p)
{
	return p->qt ? tk_qt_reader_error(p->qt) : tk_htm_error(p->htm);
}

tk_power_format tk_power_format_of(const tk_power *p) { return p->format; }

uint64_t tk_power_offset(const tk_power *p)
{
	return p->qt ? tk_qt_reader_offset(p->qt) : tk_htm_offset(p->htm);
}

uint64_t tk_power_size(const tk_power *p)
{
	return p->qt ? tk_qt_reader_size(p->qt) : tk_htm_size(p->htm);
}

/* The next record into p->next; sets at_end / pending_err. */
static void pull(tk_power *p)
{
	p->have_next = false;
	if (p->at_end || p->pending_err)
		return;
	int rc = p->qt ? tk_qt_reader_next(p->qt, &p->next) : tk_htm_next(p->htm, &p->next);
	if (rc > 0) {
		p->next.insn_walk = p->next.data_walk = NULL;	/* not kept */
		p->next.regs = NULL;
		p->have_next = true;
		p->next_gap = p->next.valid & TK_QT_AFTER_HEADER;
		if (p->htm) {	/* invalid sequences stepped over before it */
			const tk_htm_stats *st = tk_htm_get_stats(p->htm);
			uint64_t inv = st->invalid_sequences + st->untagged_words;
			p->next_gap = inv != p->invalid_seen;
			p->invalid_seen = inv;
		}
	} else if (rc == 0) {
		p->at_end = true;
	} else {
		p->pending_err = rc;
	}
}

int tk_power_next(tk_power *p, tk_power_insn *out)
{
	if (!p->have_next)
		pull(p);
	if (!p->have_next)
		return p->pending_err ? p->pending_err : 0;
	tk_qt_record first = p->next;
	uint64_t last_next_ea = first.next_ea;
	memset(out, 0, sizeof *out);
	out->ea = first.ea;
	out->words[0] = first.insn;
	out->width = 4;
	out->number = first.number;
	out->offset = first.offset;
	out->gap_before = p->next_gap;
	if (first.valid & TK_QT_DATA_EA) {
		out->has_data_ea = true;
		out->data_ea = first.data_ea;
	}
	if (first.valid & TK_QT_RA) {
		out->has_ra = true;
		out->ra = first.ra;
	}
	if (first.valid & TK_QT_DATA_RA) {
		out->has_data_ra = true;
		out->data_ra = first.data_ra;
	}
	pull(p);
	if (tk_ppc_is_prefix(first.insn) && p->have_next && p->next.ea == first.ea + 4) {
		out->words[1] = p->next.insn;
		out->width = 8;
		last_next_ea = p->next.next_ea;
		pull(p);
	}
	if (p->qt)
		out->next_ea = last_next_ea;	/* what the file says */
	else
		out->next_ea = p->have_next ? p->next.ea : out->ea + out->width;
	out->branch = tk_ppc_branch_kind(out->words[0], out->width, out->ea, out->next_ea);
	return 1;
}
