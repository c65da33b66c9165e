/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Intel PT as a trace source of the common event model.
 *
 * Two formats share this adapter: "pt" (raw AUX data) and "perf"
 * (perf.data with AUXTRACE records).  The streams of a trace (one per perf
 * buffer, i.e. per CPU) are decoded one after the other; every decoded
 * instruction becomes a TK_EV_INSN in context = the stream's CPU, with
 * line and time its 1-based number in the decoded flow (across streams)
 * and offset the decoder's position in its stream.
 *
 * A reader that asks for runs (tk_source_want_runs) gets TK_EV_RUN events
 * instead of instructions: the block decoder's blocks, joined up to one
 * that ends in a call or a return (blocks end at every call).
 *
 * What interrupts the flow becomes a TK_EV_GAP, so that no call or return
 * is inferred across it: a decode error (reported with its offset, and
 * where decoding resumed), an overflow, missing perf data, and tracing
 * switched off and back on somewhere else.  Tracing that resumes exactly
 * where it stopped (an interrupt in a user-only trace) is no gap: nothing
 * of the traced flow is missing.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_decode.h"
#include "tracekit/error.h"
#include "tracekit/pt.h"
#include "tracekit/source_author.h"

extern const tk_source_format tk_format_pt;
extern const tk_source_format tk_format_perf;

typedef struct pt_source {
	tk_source base;
	tk_pt *pt;
	tk_pt_decode *dec;
	unsigned stream, nstreams;
	uint32_t cpu;			/* the current stream's CPU */
	uint64_t done_bytes;		/* bytes of the streams finished */
	uint64_t ninsns;		/* instructions so far, all streams */
	tk_source_image *images;
	size_t nimages;
	/* A decode error waiting for where decoding resumed. */
	bool err_pending;
	uint64_t err_offset;
	char err_text[160];
	/* Tracing switched off; an "enabled" that is no "resume" is a gap. */
	bool disabled;
	char gap_text[200];
	int sticky;
	bool runs;			/* TK_EV_RUN per block */
	const struct rec *blk, *blk_end;	/* blocks taken, not yet yielded */
	unsigned threads;		/* decoding threads (0: every core) */
	uint64_t max_linear;		/* endless-loop guard (0: the default) */
	bool started;
} pt_source;

/* ---- options ---- */

/* "FILE@ADDR" (at = true) or "FILE" (at = false): *path malloc'ed. */
static int split_at(const char *arg, char **path, bool *at, uint64_t *addr)
{
	const char *sep = strrchr(arg, '@');
	*at = false;
	*addr = 0;
	if (sep && tk_pt_parse_number(sep + 1, addr) == 0) {
		*at = true;
		*path = strndup(arg, (size_t)(sep - arg));
		return *path ? 0 : TK_ERR_NOMEM;
	}
	*path = strdup(arg);
	return *path ? 0 : TK_ERR_NOMEM;
}

/* Add --image=ELF[@ADDR] and --raw=FILE@ADDR (every one given). */
static int add_images(pt_source *ps, const tk_source_spec *spec)
{
	tk_source *s = &ps->base;
	int rc = 0;
	for (size_t i = 0; spec && rc == 0 && i < spec->nimages; i++) {
		char *path;
		bool at;
		uint64_t addr;
		if ((rc = split_at(spec->images[i], &path, &at, &addr)) < 0)
			return rc;
		if ((rc = tk_pt_add_elf(ps->pt, path, at, addr)) < 0)
			tk_source_report(s, TK_DIAG_ERROR, 0, "--image=%s: %s", spec->images[i],
					 tk_pt_error_detail(ps->pt));
		free(path);
	}
	size_t nopts = spec && spec->size >= sizeof *spec ? spec->nopts : 0;
	for (size_t i = 0; rc == 0 && i < nopts; i++) {
		if (strcmp(spec->opts[i].name, "raw"))
			continue;
		const char *arg = spec->opts[i].value ? spec->opts[i].value : "";
		char *path;
		bool at;
		uint64_t addr;
		if ((rc = split_at(arg, &path, &at, &addr)) < 0)
			return rc;
		if (!at) {
			tk_source_report(s, TK_DIAG_ERROR, 0,
					 "--raw=%s: give the load address as FILE@ADDR", arg);
			rc = TK_ERR_INVAL;
		} else if ((rc = tk_pt_add_raw(ps->pt, path, addr)) < 0) {
			tk_source_report(s, TK_DIAG_ERROR, 0, "--raw=%s: %s", arg,
					 tk_pt_error_detail(ps->pt));
		}
		free(path);
	}
	return rc < 0 ? TK_ERR_INVAL : 0;	/* a diagnostic said why */
}

/* info.images: the ELF images in use, with their bias (raw binaries have
 * no symbols). */
static int list_images(pt_source *ps)
{
	unsigned n = tk_pt_image_count(ps->pt);
	if (!n)
		return 0;
	if (!(ps->images = calloc(n, sizeof *ps->images)))
		return TK_ERR_NOMEM;
	for (unsigned i = 0; i < n; i++) {
		const tk_pt_image_info *im = tk_pt_image(ps->pt, i);
		if (im && !im->raw)
			ps->images[ps->nimages++] = (tk_source_image){im->path, im->bias};
	}
	ps->base.info.images = ps->images;
	ps->base.info.nimages = ps->nimages;
	return 0;
}

/* ---- reading ---- */

static void forward_diag(void *ctx, const tk_diag *d)
{
	tk_source *s = ctx;
	if (d->level != TK_DIAG_ERROR)
		s->warnings++;
	if (s->diag)
		s->diag(s->diag_ctx, d);
}

/* " (buffer N, cpu C)" for perf.data streams, else "". */
static const char *where(pt_source *ps, char *buf, size_t n)
{
	if (tk_pt_format_of(ps->pt) != TK_PT_FORMAT_PERF) {
		buf[0] = 0;
		return buf;
	}
	tk_pt_stream_info si;
	if (tk_pt_stream(ps->pt, ps->stream, &si) == 0)
		snprintf(buf, n, " (buffer %" PRIu32 ", cpu %" PRIu32 ")", si.index, si.cpu);
	else
		buf[0] = 0;
	return buf;
}

/* Report the pending decode error, with where decoding resumed (or that
 * it never did). */
static void flush_error(pt_source *ps, bool resumed, uint64_t at)
{
	if (!ps->err_pending)
		return;
	char w[64];
	where(ps, w, sizeof w);
	if (resumed)
		tk_source_report_at(&ps->base, TK_DIAG_WARNING, ps->err_offset,
				    "%s%s, resumed at 0x%" PRIx64, ps->err_text, w, at);
	else
		tk_source_report_at(&ps->base, TK_DIAG_WARNING, ps->err_offset,
				    "%s%s; no trace after it", ps->err_text, w);
	ps->err_pending = false;
}

/* --max-linear=N: how many instructions may decode without the trace
 * moving on before the loop is called endless (a positive count). */
static int parse_max_linear(pt_source *ps, const tk_source_spec *spec)
{
	const char *v = tk_source_spec_get(spec, "max-linear");
	if (!v)
		return 0;
	uint64_t n;
	if (tk_pt_parse_number(v, &n) < 0 || n == 0) {
		tk_source_report(&ps->base, TK_DIAG_ERROR, 0,
				 "--max-linear=%s: expected a positive instruction count", v);
		return TK_ERR_INVAL;
	}
	ps->max_linear = n;
	return 0;
}

static int start_stream(pt_source *ps)
{
	tk_pt_decode_opts o;
	tk_pt_decode_opts_init(&o);
	o.blocks_only = o.join_blocks = ps->runs;
	o.threads = ps->threads;
	o.max_linear = ps->max_linear;
	ps->started = true;
	tk_pt_stream_info si;
	int rc = tk_pt_stream(ps->pt, ps->stream, &si);
	if (rc == 0)
		rc = tk_pt_decode_new(ps->pt, ps->stream, &o, &ps->dec);
	if (rc == 0) {
		ps->cpu = si.cpu;
		ps->disabled = false;
	}
	return rc;
}

static void end_stream(pt_source *ps)
{
	tk_pt_stream_info si;
	flush_error(ps, false, 0);
	if (tk_pt_stream(ps->pt, ps->stream, &si) == 0)
		ps->done_bytes += si.size;
	tk_pt_decode_free(ps->dec);
	ps->dec = NULL;
	ps->stream++;
}

static void make_gap(pt_source *ps, tk_event *ev, const tk_pt_item *it, tk_gap_kind kind,
		     const char *msg)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = TK_EV_GAP;
	ev->context = ps->cpu;
	ev->time = ps->ninsns;
	ev->line = ps->ninsns + 1;
	ev->offset = it->offset;
	ev->u.gap.kind = kind;
	snprintf(ps->gap_text, sizeof ps->gap_text, "%s", msg ? msg : "");
	ev->u.gap.msg = ps->gap_text;
	ev->u.gap.msg_len = strlen(ps->gap_text);
}

static void make_insn(pt_source *ps, tk_event *ev, const tk_pt_item *it)
{
	memset(ev, 0, sizeof *ev);
	ps->ninsns++;
	ev->kind = TK_EV_INSN;
	ev->context = ps->cpu;
	ev->time = ev->line = ps->ninsns;
	ev->offset = it->offset;
	tk_insn *in = &ev->u.insn;
	in->pc = it->ip;
	in->isa = TK_ISA_X86_64;
	in->branch = it->branch;
	in->width = it->size;
	in->nbytes = it->size <= TK_INSN_MAX_BYTES ? it->size : TK_INSN_MAX_BYTES;
	if (it->bytes)
		memcpy(in->bytes, it->bytes, in->nbytes);
	else
		in->nbytes = 0;
	in->executed = true;
	in->mode = in->disasm = "";
}

/* A block (runs mode): its instructions as one run. */
static void make_run(pt_source *ps, tk_event *ev, const struct rec *b)
{
	ev->kind = TK_EV_RUN;
	ev->context = ps->cpu;
	ev->time = ev->line = ps->ninsns + 1;
	ps->ninsns += b->aux;
	ev->offset = b->offset;
	ev->raw = NULL;
	ev->raw_len = 0;
	tk_insn_run *r = &ev->u.run;
	r->first_pc = b->ip;
	r->count = b->aux;
	/* Field by field: with nbytes 0 the bytes mean nothing, and a run
	 * is made for every call and return (zeroing them cost 1.5% of a profile). */
	tk_insn *l = &r->last;
	l->pc = b->u.end_ip;
	l->isa = TK_ISA_X86_64;
	l->branch = (tk_branch)b->branch;
	l->width = b->size;
	l->nbytes = 0;
	l->executed = true;
	l->mode = l->disasm = "";
	l->mode_len = l->disasm_len = 0;
}

/* One decoder item: 1 with an event in ev, 0 for none. */
static int on_item(pt_source *ps, const tk_pt_item *it, tk_event *ev)
{
	char w[64];
	switch (it->kind) {
	case TK_PT_INSN:
		flush_error(ps, true, it->offset);
		make_insn(ps, ev, it);
		return 1;
	case TK_PT_BLOCK:
		if (!it->ninsn)
			return 0;
		flush_error(ps, true, it->offset);
		make_run(ps, ev, &(struct rec){.kind = R_BLOCK, .size = it->size,
					       .branch = (uint8_t)it->branch, .aux = it->ninsn,
					       .ip = it->ip, .offset = it->offset,
					       .u.end_ip = it->end_ip});
		return 1;
	case TK_PT_ERROR:
		flush_error(ps, false, 0);
		ps->err_pending = true;
		ps->err_offset = it->offset;
		snprintf(ps->err_text, sizeof ps->err_text, "%s", it->text ? it->text : "error");
		make_gap(ps, ev, it, TK_GAP_DECODE_ERROR, ps->err_text);
		return 1;
	case TK_PT_GAP: {
		flush_error(ps, false, 0);
		tk_gap_kind k = it->gap == TK_PT_GAP_BUFFER_FULL ? TK_GAP_BUFFER_FULL :
				it->gap == TK_PT_GAP_OVERFLOW ? TK_GAP_OVERFLOW : TK_GAP_OTHER;
		tk_source_report_at(&ps->base, TK_DIAG_WARNING, it->offset, "%s%s",
				    it->text ? it->text : "trace data missing", where(ps, w, sizeof w));
		make_gap(ps, ev, it, k, it->text);
		return 1;
	}
	case TK_PT_EVENT:
		if (it->gap == TK_PT_GAP_OVERFLOW) {
			tk_source_report_at(&ps->base, TK_DIAG_WARNING, it->offset,
					    "the CPU lost trace data (overflow)%s",
					    where(ps, w, sizeof w));
			make_gap(ps, ev, it, TK_GAP_OVERFLOW, "overflow");
			return 1;
		}
		if (it->gap == TK_PT_GAP_DISABLED) {
			ps->disabled = true;
			return 0;
		}
		if (ps->disabled && it->text && !strcmp(it->text, "enabled")) {
			ps->disabled = false;
			make_gap(ps, ev, it, TK_GAP_DISABLED, "tracing disabled");
			return 1;
		}
		if (it->text && !strcmp(it->text, "resumed"))
			ps->disabled = false;
		return 0;
	default:
		return 0;
	}
}

/* The fast path of runs: up to cap runs into evs from the block records
 * taken from the decoder (those of no instruction skipped); how many. */
static size_t take_runs(pt_source *ps, tk_event *evs, size_t cap)
{
	size_t n = 0;
	while (n < cap && ps->blk < ps->blk_end) {
		const struct rec *b = ps->blk++;
		ps->base.pos = ps->done_bytes + b->offset;
		if (b->aux)
			make_run(ps, &evs[n++], b);
	}
	return n;
}

static int pt_next(tk_source *s, tk_event *ev)
{
	pt_source *ps = (pt_source *)s;
	if (ps->sticky)
		return ps->sticky;
	for (;;) {
		if (take_runs(ps, ev, 1))
			return 1;
		if (!ps->dec) {
			if (ps->stream >= ps->nstreams) {
				s->pos = s->size;
				return 0;
			}
			int rc = start_stream(ps);
			if (rc < 0)
				return ps->sticky = rc;
		}
		const struct rec *b;
		size_t n = ps->err_pending ? 0 : tk_pt_decode_take_blocks(ps->dec, &b);
		if (n) {
			ps->blk = b;
			ps->blk_end = b + n;
			continue;
		}
		tk_pt_item it;
		int rc = tk_pt_decode_next(ps->dec, &it);
		if (rc < 0)
			return ps->sticky = rc;
		if (rc == 0) {
			end_stream(ps);
			continue;
		}
		s->pos = ps->done_bytes + tk_pt_decode_pos(ps->dec);
		if (on_item(ps, &it, ev))
			return 1;
	}
}

/* The runs of the blocks taken from the decoder, as many as fit; else
 * one event as pt_next gives it. */
static int pt_next_many(tk_source *s, tk_event *evs, size_t cap)
{
	pt_source *ps = (pt_source *)s;
	if (ps->sticky)
		return ps->sticky;
	size_t n = take_runs(ps, evs, cap < INT_MAX ? cap : INT_MAX);
	return n ? (int)n : pt_next(s, evs);
}

static void pt_free(tk_source *s)
{
	pt_source *ps = (pt_source *)s;
	tk_pt_decode_free(ps->dec);
	tk_pt_free(ps->pt);
	free(ps->images);
}

static bool pt_want_runs(tk_source *s)
{
	pt_source *ps = (pt_source *)s;
	if (!ps->started)
		ps->runs = true;
	return ps->runs;
}

static const tk_source_ops pt_ops = {
	.next = pt_next,
	.free = pt_free,
	.seek = NULL,
	.want_runs = pt_want_runs,
	.next_many = pt_next_many,
};

/* ---- opening ---- */

static int open_as(const char *path, const tk_source_spec *spec, const tk_source_format *fmt,
		   tk_source **out)
{
	pt_source *ps = calloc(1, sizeof *ps);
	if (!ps)
		return TK_ERR_NOMEM;
	int rc = tk_source_init(&ps->base, &pt_ops, fmt, path, spec);
	if (rc == 0)
		rc = tk_source_set_options(&ps->base, spec);
	if (rc < 0) {
		tk_source_free(&ps->base);
		return rc;
	}
	if ((rc = parse_max_linear(ps, spec)) < 0) {
		tk_source_free(&ps->base);
		return rc;
	}
	tk_pt_opts o;
	tk_pt_opts_init(&o);
	o.format = fmt == &tk_format_perf ? TK_PT_FORMAT_PERF : TK_PT_FORMAT_RAW;
	o.cpu = tk_source_spec_get(spec, "cpu");
	o.diag = forward_diag;
	o.diag_ctx = &ps->base;
	if ((rc = tk_pt_open(path, &o, &ps->pt)) == 0)
		rc = add_images(ps, spec);
	if (rc == 0 && o.format == TK_PT_FORMAT_RAW && !tk_pt_image_count(ps->pt)) {
		tk_source_report(&ps->base, TK_DIAG_ERROR, 0, "raw PT needs the traced code: give "
				 "--image=ELF[@ADDR] or --raw=FILE@ADDR");
		rc = TK_ERR_INVAL;
	}
	if (rc == 0)
		rc = list_images(ps);
	if (rc < 0) {
		tk_source_free(&ps->base);
		return rc;
	}
	ps->nstreams = tk_pt_stream_count(ps->pt);
	if (spec && spec->size >= offsetof(tk_source_spec, threads) + sizeof spec->threads)
		ps->threads = spec->threads;
	ps->base.info.isa = TK_ISA_X86_64;
	ps->base.info.context_name = "cpu";
	/* Several CPUs only where the perf.data has buffers of several. */
	bool several = false;
	tk_pt_stream_info first, si;
	for (unsigned i = 0; i < ps->nstreams; i++)
		if (tk_pt_stream(ps->pt, i, &si) == 0) {
			if (i == 0)
				first = si;
			else if (si.cpu != first.cpu)
				several = true;
			ps->base.size += si.size;
		}
	if (!several)
		ps->base.info.caps &= ~(unsigned)TK_CAP_CONTEXTS;
	*out = &ps->base;
	return 0;
}

static int pt_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	return open_as(path, spec, &tk_format_pt, out);
}

static int perf_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	return open_as(path, spec, &tk_format_perf, out);
}

/* A PSB (after PAD bytes) in the first 4 KiB is sure; the ".pt" suffix
 * alone only breaks a tie between formats that see nothing. */
static int pt_probe(const uint8_t *head, size_t len, const char *path)
{
	if (tk_pt_probe(head, len, NULL) == TK_PT_FORMAT_RAW)
		return 90;
	return tk_pt_probe(head, len, path) == TK_PT_FORMAT_RAW ? 1 : 0;
}

static int perf_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	return tk_pt_probe(head, len, NULL) == TK_PT_FORMAT_PERF ? 100 : 0;
}

static const tk_source_option pt_options[] = {
	{"cpu", "F/M[/S]|auto|none",
	 "Intel PT: the CPU the trace was recorded on, for errata (auto: perf.data's)", true},
	{"raw", "FILE@ADDR", "Intel PT: code from a raw binary loaded at ADDR (repeatable)", true},
	{"max-linear", "N",
	 "Intel PT: call a loop endless after N instructions that need no trace (default 2^26)",
	 true},
	{NULL, NULL, NULL, false},
};

const tk_source_format tk_format_pt = {
	.name = "pt",
	.summary = "Intel Processor Trace, raw AUX data (code from --image=ELF[@ADDR], --raw)",
	.detection = "a PSB packet, after optional PAD bytes, in the first 4 KiB (or the .pt suffix)",
	.caps = TK_CAP_INSNS | TK_CAP_CALLS,
	.time_unit = TK_TIME_INSNS,
	.options = pt_options,
	.images_in_key = true,
	.probe = pt_probe,
	.open = pt_open,
	.open_stream = NULL,
};

const tk_source_format tk_format_perf = {
	.name = "perf",
	.summary = "perf.data with Intel PT (AUXTRACE) data; code from its mappings or --image",
	.detection = "magic 'PERFILE2'",
	.caps = TK_CAP_INSNS | TK_CAP_CALLS | TK_CAP_CONTEXTS,
	.time_unit = TK_TIME_INSNS,
	.options = pt_options,
	.images_in_key = true,
	.probe = perf_probe,
	.open = perf_open,
	.open_stream = NULL,
};
