/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: "tld", the trace linker's function-level trace buffers as a
 * trace source.
 *
 * Reads the dump files the trace-buffer generator saves (and tld-extract
 * rebuilds), magic "TKTLDUMP", and the files of RTEMS's `rtrace save`,
 * magic "RTEMS-TRACE", through the dump reader (tracekit/tld_dump.h):
 *
 *   entry record -> TK_EV_CALL   (the function's name and real address,
 *                                 its arguments as typed bytes)
 *   exit record  -> TK_EV_RETURN (the return value, none for void)
 *
 * The context is the thread, numbered 0, 1, ... in order of first
 * appearance; the time is the record's, in the dump's clock (ns, ticks of
 * RTLD_TRACE_BUFFER_CLOCK(), the trace time for an extracted dump, or a
 * record sequence number: TK_TIME_RECORDS); the line is the record number
 * and the offset its byte offset in the file.
 *
 * A buffer that filled up ("finished") ends with a TK_EV_GAP of kind
 * buffer full: the calls still open there never returned in the trace.
 * Damage (a truncated or corrupt file) is reported with the byte offset,
 * the records before it are kept, and a decode-error gap ends the trace.
 * An rtrace file has names but no addresses: they come from --image.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/source_author.h"
#include "tracekit/symbols.h"
#include "tracekit/tld_dump.h"

extern const tk_source_format tk_format_tld;

typedef struct tld_src {
	tk_source base;
	tk_tld_dump *dump;
	tk_symtab *symtab;		/* from --image, or NULL */
	uint8_t *data;			/* owned copy of a compressed file or a stream */
	tk_source_image *images;	/* info.images */
	tk_value *values;		/* scratch: the values of one event */
	uint64_t *addrs;		/* each function's address (from --image
					 * by name where the file has none) */
	uint32_t max_values;
	const tk_tld_dump_info *dinfo;
	uint64_t records;		/* records returned */
	uint64_t last_time, end_offset;
	uint32_t last_context;
	bool reading;			/* open is over: damage is a warning */
	bool ended;			/* the closing gap was given */
} tld_src;

/* The reader's diagnostics: at open they are the source's errors; while
 * reading, damage is turned into a warning and a gap by next(). */
static void reader_diag(void *ctx, const tk_diag *d)
{
	tld_src *t = ctx;
	/* Notes (the reader's hint that an rtrace file needs an image) are
	 * replaced by start()'s own messages. */
	if (t->reading || d->level == TK_DIAG_NOTE)
		return;
	if (t->base.diag)
		t->base.diag(t->base.diag_ctx, d);
}

static tk_time_unit time_unit_of(tk_tld_clock c)
{
	switch (c) {
	case TK_TLD_CLOCK_NS:
		return TK_TIME_NS;
	case TK_TLD_CLOCK_SEQUENCE:
		return TK_TIME_RECORDS;
	default:	/* RTLD_TRACE_BUFFER_CLOCK() ticks, or a trace's own clock */
		return TK_TIME_TICKS;
	}
}

/* The gap that ends the trace: buffer full or damage. */
static void gap_event(tld_src *t, tk_event *ev, tk_gap_kind kind, const char *msg)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = TK_EV_GAP;
	ev->context = t->last_context;
	ev->time = t->last_time;
	ev->line = t->records + 1;
	ev->offset = t->end_offset;
	ev->u.gap.kind = kind;
	ev->u.gap.msg = msg;
	ev->u.gap.msg_len = strlen(msg);
}

/* The reader's message without its "byte offset N: " prefix. */
static const char *strip_offset(const char *msg)
{
	if (!strncmp(msg, "byte offset ", 12)) {
		const char *p = strstr(msg, ": ");
		if (p)
			return p + 2;
	}
	return msg;
}

static int tld_next(tk_source *s, tk_event *ev)
{
	tld_src *t = (tld_src *)s;
	if (t->ended)
		return 0;
	tk_tld_record r;
	int rc = tk_tld_dump_next(t->dump, &r);
	s->pos = tk_tld_dump_pos(t->dump);
	if (rc < 0) {
		const char *msg = strip_offset(tk_tld_dump_error(t->dump));
		tk_source_report_at(s, TK_DIAG_WARNING, t->end_offset,
				    "%s; the trace ends there (%" PRIu64 " records before it are used)",
				    msg, t->records);
		gap_event(t, ev, TK_GAP_DECODE_ERROR, msg);
		t->ended = true;
		return 1;
	}
	if (rc == 0) {
		t->ended = true;
		if (!t->dinfo->finished)
			return 0;
		tk_source_report_at(s, TK_DIAG_WARNING, t->end_offset,
				    "the trace buffer filled up after record %" PRIu64
				    ": later calls were not recorded, calls still open are closed "
				    "at the end of the trace", t->records);
		gap_event(t, ev, TK_GAP_BUFFER_FULL, "the trace buffer filled up");
		return 1;
	}
	memset(ev, 0, sizeof *ev);
	ev->kind = r.exit ? TK_EV_RETURN : TK_EV_CALL;
	ev->context = r.context;
	ev->time = r.time;
	ev->line = r.number;
	ev->offset = r.offset;
	tk_func_event *fe = &ev->u.func;
	fe->addr = r.func < t->dinfo->nfuncs ? t->addrs[r.func] : r.addr;
	fe->name = r.name;
	fe->name_len = r.name_len;
	uint32_t n = r.nvalues < t->max_values ? r.nvalues : t->max_values;
	for (uint32_t i = 0; i < n; i++) {
		const tk_tld_value *v = &r.values[i];
		/* A record cut at its largest size holds only avail bytes. */
		t->values[i] = (tk_value){v->type, strlen(v->type), v->bytes, v->avail};
	}
	fe->nvalues = n;
	fe->values = n ? t->values : NULL;
	if (r.context && !(s->info.caps & TK_CAP_CONTEXTS))
		s->info.caps |= TK_CAP_CONTEXTS;	/* several threads, as far as seen */
	t->records = r.number;
	t->last_time = r.time;
	t->last_context = r.context;
	t->end_offset = tk_tld_dump_pos(t->dump);
	return 1;
}

static int tld_seek(tk_source *s, const tk_seek_point *at)
{
	tld_src *t = (tld_src *)s;
	int rc = tk_tld_dump_seek(t->dump, at->offset, at->line);
	if (rc < 0)
		return rc;
	t->ended = false;
	t->records = at->line - 1;
	t->last_time = at->time;
	t->last_context = at->context;
	t->end_offset = at->offset;
	return 0;
}

static void tld_free(tk_source *s)
{
	tld_src *t = (tld_src *)s;
	tk_tld_dump_free(t->dump);
	tk_symtab_free(t->symtab);
	free(t->data);
	if (t->images)
		for (size_t i = 0; i < s->info.nimages; i++)
			free((char *)t->images[i].path);
	free(t->images);
	free(t->values);
	free(t->addrs);
}

static const tk_source_ops tld_ops = {
	.next = tld_next,
	.free = tld_free,
	.seek = tld_seek,
};

/* "ELF[@BIAS]": the image and the load offset added to its addresses. */
static int split_image(const char *arg, char **path, uint64_t *bias)
{
	const char *at = strrchr(arg, '@');
	*bias = 0;
	size_t n = strlen(arg);
	if (at && at[1]) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(at + 1, &end, 0);
		if (!*end && !errno) {
			*bias = v;
			n = (size_t)(at - arg);
		}
	}
	if (!(*path = strndup(arg, n)))
		return TK_ERR_NOMEM;
	return 0;
}

/* The --image options: their symbols give an rtrace file's addresses. */
static int load_images(tld_src *t, const tk_source_spec *spec)
{
	size_t n = spec && spec->size >= sizeof *spec ? spec->nimages : 0;
	if (!n)
		return 0;
	if (!(t->images = calloc(n, sizeof *t->images)))
		return TK_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		char *path;
		uint64_t bias;
		int rc = split_image(spec->images[i], &path, &bias);
		if (rc < 0)
			return rc;
		t->images[i] = (tk_source_image){path, bias};
		t->base.info.nimages = i + 1;
		tk_symtab *st;
		if ((rc = tk_symtab_load(path, bias, &st)) < 0) {
			tk_source_report(&t->base, TK_DIAG_ERROR, 0, "--image=%s: %s", path,
					 rc == TK_ERR_OPEN ? strerror(errno) : tk_strerror(rc));
			return TK_ERR_INVAL;
		}
		if (!t->symtab) {
			t->symtab = st;
		} else if ((rc = tk_symtab_merge(t->symtab, st)) < 0) {
			tk_symtab_free(st);
			return rc;
		}
	}
	t->base.info.images = t->images;
	return 0;
}

/* Open the reader over t->data (len bytes) or, if data is NULL, the file
 * at path (mapped); then fill the source's info. */
static int start(tld_src *t, const char *path, size_t len, const tk_source_spec *spec)
{
	int rc = load_images(t, spec);
	if (rc < 0)
		return rc;
	tk_tld_dump_opts o = {sizeof o, reader_diag, t, NULL};
	rc = t->data ? tk_tld_dump_open_mem(t->data, len, path, &o, &t->dump)
		     : tk_tld_dump_open(path, &o, &t->dump);
	if (rc < 0)
		return rc;
	t->dinfo = tk_tld_dump_get_info(t->dump);
	if (t->dinfo->kind == TK_TLD_FILE_RTRACE && !t->symtab) {
		tk_source_report(&t->base, TK_DIAG_ERROR, 0,
				 "an RTEMS `rtrace save` file names its functions but has no "
				 "addresses: give the traced program with --image=ELF");
		return TK_ERR_INVAL;
	}
	/* Addresses: the file's, else the image's symbol of that name.  Two
	 * functions at address 0 would merge in every report: refuse. */
	uint32_t nf = t->dinfo->nfuncs, missing = 0;
	const char *first_missing = NULL;
	if (nf && !(t->addrs = calloc(nf, sizeof *t->addrs)))
		return TK_ERR_NOMEM;
	for (uint32_t i = 0; i < nf; i++) {
		const tk_tld_func *f = tk_tld_dump_func(t->dump, i);
		if (f->argc > t->max_values)
			t->max_values = f->argc;
		const tk_symbol *sym = f->addr || !t->symtab ? NULL : tk_symtab_find(t->symtab, f->name);
		t->addrs[i] = f->addr ? f->addr : sym ? sym->addr : 0;
		if (!t->addrs[i] && !missing++)
			first_missing = f->name;
	}
	if (missing) {
		char more[48] = "";
		if (missing > 1)
			snprintf(more, sizeof more, " (and %u others)", missing - 1);
		tk_source_report(&t->base, TK_DIAG_ERROR, 0,
				 "function %s%s has no address in the file nor in the --image: "
				 "give the traced program with --image=ELF", first_missing, more);
		return TK_ERR_INVAL;
	}
	if (t->max_values && !(t->values = calloc(t->max_values, sizeof *t->values)))
		return TK_ERR_NOMEM;
	tk_source_info *in = &t->base.info;
	in->big_endian = t->dinfo->big_endian;
	in->time_unit = time_unit_of(t->dinfo->clock);
	in->caps &= ~(unsigned)TK_CAP_CONTEXTS;	/* set when a second thread shows */
	in->context_name = "thread";
	t->base.size = t->dinfo->file_size;
	t->end_offset = t->dinfo->buffer_offset;
	t->reading = true;
	return tk_source_set_options(&t->base, spec);
}

static int make(const char *path, const tk_source_spec *spec, tld_src **out)
{
	tld_src *t = calloc(1, sizeof *t);
	if (!t)
		return TK_ERR_NOMEM;
	int rc = tk_source_init(&t->base, &tld_ops, &tk_format_tld, path, spec);
	if (rc < 0) {
		tk_source_free(&t->base);
		return rc;
	}
	*out = t;
	return 0;
}

/* Read the rest of `in` after head into one malloc'ed block. */
static int slurp(tk_input *in, const uint8_t *head, size_t hlen, uint8_t **data, size_t *len)
{
	size_t cap = hlen > 65536 ? hlen * 2 : 65536, n = hlen;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return TK_ERR_NOMEM;
	if (hlen)
		memcpy(buf, head, hlen);
	for (;;) {
		if (n == cap) {
			uint8_t *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				return TK_ERR_NOMEM;
			}
			buf = b;
			cap *= 2;
		}
		size_t got;
		int rc = tk_input_read(in, buf + n, cap - n, &got);
		if (rc < 0) {
			free(buf);
			return rc;
		}
		if (!got)
			break;
		n += got;
	}
	*data = buf;
	*len = n;
	return 0;
}

static int finish_open(tld_src *t, int rc, tk_source **out)
{
	if (rc < 0) {
		tk_source_free(&t->base);
		return rc;
	}
	*out = &t->base;
	return 0;
}

static int tld_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	tld_src *t;
	int rc = make(path, spec, &t);
	if (rc < 0)
		return rc;
	/* A plain file is mapped by the reader; a compressed one is read
	 * whole into memory (the reader needs random access). */
	tk_input *in;
	size_t len = 0;
	if ((rc = tk_input_open(path, spec ? spec->input_opts : NULL, &in)) < 0)
		return finish_open(t, rc, out);
	if (tk_input_get_format(in) != TK_INPUT_PLAIN)
		rc = slurp(in, NULL, 0, &t->data, &len);
	tk_input_close(in);
	if (rc == 0)
		rc = start(t, path, len, spec);
	return finish_open(t, rc, out);
}

static int tld_open_stream(tk_input *in, const uint8_t *head, size_t hlen, const char *name,
			   const tk_source_spec *spec, tk_source **out)
{
	tld_src *t;
	int rc = make(name, spec, &t);
	if (rc < 0) {
		tk_input_close(in);
		return rc;
	}
	size_t len = 0;
	rc = slurp(in, head, hlen, &t->data, &len);
	tk_input_close(in);
	if (rc == 0)
		rc = start(t, name, len, spec);
	if (rc == 0)
		t->base.info.caps &= ~(unsigned)TK_CAP_SEEK;
	return finish_open(t, rc, out);
}

static int tld_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	return tk_tld_probe(head, len);
}

const tk_source_format tk_format_tld = {
	.name = "tld",
	.summary = "function entry/exit records of the trace linker's trace buffers "
		   "(dump files, RTEMS rtrace save files)",
	.detection = "magic 'TKTLDUMP' (dump) or 'RTEMS-TRACE\\0' (rtrace save)",
	.caps = TK_CAP_FUNCS | TK_CAP_CALLS | TK_CAP_CONTEXTS | TK_CAP_SEEK,
	.time_unit = TK_TIME_NS,
	.options = NULL,
	/* An rtrace file's addresses come from the images. */
	.images_in_key = true,
	.probe = tld_probe,
	.open = tld_open,
	.open_stream = tld_open_stream,
};
