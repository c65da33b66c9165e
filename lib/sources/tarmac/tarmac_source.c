/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the Tarmac file source: lines from the line reader (over the
 * input layer, so compressed traces read the same), events from the line
 * parser, problems to the diagnostic callback. */
#include <stdlib.h>
#include <string.h>

#include "core/linereader.h"
#include "tracekit/source_author.h"
#include "tarmac_impl.h"
#include "tracekit/error.h"
#include "tracekit/tarmac.h"

typedef struct tarmac_source {
	tk_source base;
	tk_linereader lr;
	tk_input *in;
	bool own_in;
	bool compressed;	/* progress in file bytes, not text bytes */
	tk_tarmac_parser *parser;
	const tk_event *evs;
	size_t nev, iev;
	uint64_t lineno;
	int sticky;		/* a fatal error, returned again on every call */
	bool sniffed;
	bool warned_state;
} tarmac_source;

/* Length of the well-formed UTF-8 sequence at u (lead byte >= 0x80), or 0
 * if it is not one (a sequence cut by the end of the buffer counts as
 * well-formed). */
static size_t utf8_length(const unsigned char *u, size_t avail)
{
	size_t len = u[0] >= 0xc2 && u[0] <= 0xdf ? 2 :
		     u[0] >= 0xe0 && u[0] <= 0xef ? 3 :
		     u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	for (size_t k = 1; k < len && k < avail; k++)
		if ((u[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Is the start of the file text?  Returns NULL or why not.  A NUL byte
 * in the first line, or many control characters in the first 4 KiB, mean
 * binary data; NUL bytes further on only spoil their own lines (a trace
 * whose tail was never written, say), which are skipped with a warning. */
const char *tk_tarmac_sniff_binary(const void *d, size_t n)
{
	const unsigned char *u = d;
	if (n >= 2 && u[0] == 0x1f && u[1] == 0x8b)
		return "gzip-compressed data, not a text trace (decompress it first)";
	if (n >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd)
		return "zstd-compressed data, not a text trace (decompress it first)";
	if (n >= 6 && memcmp(d, "\xfd" "7zXZ", 5) == 0)
		return "xz-compressed data, not a text trace (decompress it first)";
	if (n >= 3 && memcmp(d, "BZh", 3) == 0 && n >= 4 && u[3] >= '1' && u[3] <= '9')
		return "bzip2-compressed data, not a text trace (decompress it first)";
	if (n >= 4 && memcmp(d, "\x7f" "ELF", 4) == 0)
		return "an ELF file, not a trace (give it with --image)";
	if (n > 4096)
		n = 4096;
	const char *nl = memchr(d, '\n', n);
	if (memchr(d, 0, nl ? (size_t)((const char *)nl - (const char *)d) : n))
		return "binary data (NUL bytes), not a text trace";
	/* Count bytes no text has: control characters, and bytes >= 0x80
	 * that are not part of a well-formed UTF-8 sequence.  NUL bytes after
	 * the first line are not counted (see above). */
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (u[i] >= 0x80) {
			size_t len = utf8_length(u + i, n - i);
			if (len)
				i += len - 1;
			else
				bad++;
		} else if (u[i] == 0x7f ||
			   (u[i] < 0x20 && !strchr("\t\n\r\f\v\033", u[i]))) {
			bad++;
		}
	}
	if (bad > n / 16)
		return "binary data, not a text trace";
	return NULL;
}

/* An error of the input (its message names the byte offset) or of the
 * line reader. */
static void report_read_error(tarmac_source *ts, int rc, uint64_t line)
{
	const char *msg = tk_input_error(ts->in);
	tk_source_report(&ts->base, TK_DIAG_ERROR, line, "%s", *msg ? msg : tk_strerror(rc));
}

static int sniff(tarmac_source *ts)
{
	const char *d;
	size_t n;
	ts->sniffed = true;
	int rc = tk_linereader_peek(&ts->lr, &d, &n);
	if (rc < 0) {
		report_read_error(ts, rc, 0);
		return rc;
	}
	const char *why = tk_tarmac_sniff_binary(d, n);
	if (!why)
		return 0;
	tk_source_report(&ts->base, TK_DIAG_ERROR, 1, "%s", why);
	return TK_ERR_BINARY;
}

/* Read and parse lines until one yields events. */
static int refill(tarmac_source *ts)
{
	tk_source *s = &ts->base;
	while (ts->iev >= ts->nev) {
		tk_line line;
		int rc = tk_linereader_next(&ts->lr, &line);
		if (rc <= 0) {
			if (rc < 0)
				report_read_error(ts, rc, ts->lineno + 1);
			return rc;
		}
		ts->lineno++;
		s->pos = ts->compressed ? tk_input_consumed(ts->in) : tk_linereader_pos(&ts->lr);
		if (line.too_long) {
			tk_source_report(s, TK_DIAG_WARNING, ts->lineno,
					 "line longer than %zu bytes: skipped", ts->lr.max_line);
			continue;
		}
		if (line.has_nul) {
			tk_source_report(s, TK_DIAG_WARNING, ts->lineno,
					 "line contains NUL bytes (binary data?): skipped");
			continue;
		}
		ts->iev = 0;
		rc = tk_tarmac_parse_line(ts->parser, line.s, line.len, ts->lineno, line.offset,
					  &ts->evs, &ts->nev);
		if (rc < 0)
			tk_source_report(s, TK_DIAG_WARNING, ts->lineno, "%s",
					 tk_tarmac_parser_error(ts->parser));
		if (ts->parser->missing_state && !ts->warned_state) {
			ts->warned_state = true;
			tk_source_report(s, TK_DIAG_WARNING, ts->lineno,
					 "instruction line without an instruction-set state letter: "
					 "instruction set unknown (use --implicit-thumb if the trace is Thumb)");
		}
	}
	return 1;
}

static int tarmac_next(tk_source *s, tk_event *ev)
{
	tarmac_source *ts = (tarmac_source *)s;
	if (ts->sticky)
		return ts->sticky;
	if (!ts->sniffed) {
		int rc = sniff(ts);
		if (rc < 0)
			return ts->sticky = rc;
	}
	if (ts->iev >= ts->nev) {
		int rc = refill(ts);
		if (rc < 0)
			ts->sticky = rc;
		if (rc <= 0)
			return rc;
	}
	*ev = ts->evs[ts->iev++];
	if (ev->kind == TK_EV_INSN && s->info.isa == TK_ISA_UNKNOWN)
		s->info.isa = ev->u.insn.isa;
	return 1;
}

static int tarmac_seek(tk_source *s, const tk_seek_point *at)
{
	tarmac_source *ts = (tarmac_source *)s;
	uint64_t size = tk_input_size(ts->in);
	if (at->line == 0 || (size != TK_INPUT_SIZE_UNKNOWN && at->offset > size))
		return TK_ERR_INVAL;
	int rc = tk_linereader_seek(&ts->lr, at->offset);
	if (rc < 0)
		return rc;
	tk_tarmac_parser_reset(ts->parser, at->time, at->context);
	ts->lineno = at->line - 1;
	ts->iev = ts->nev = 0;
	ts->sticky = 0;
	ts->sniffed = at->offset > 0;	/* the start is sniffed again */
	return 0;
}

static void tarmac_free(tk_source *s)
{
	tarmac_source *ts = (tarmac_source *)s;
	tk_linereader_fini(&ts->lr);
	if (ts->own_in)
		tk_input_close(ts->in);
	tk_tarmac_parser_free(ts->parser);
}

static const tk_source_ops tarmac_ops = {
	.next = tarmac_next,
	.free = tarmac_free,
	.seek = tarmac_seek,
};

const tk_tarmac_opts *tk_tarmac_source_opts(const tk_source *s)
{
	return &((const tarmac_source *)s)->parser->opts;
}

static int make_source(tk_input *in, bool own, const char *name, const tk_tarmac_opts *opts,
		       const tk_source_spec *spec, tk_source **out)
{
	tarmac_source *ts = calloc(1, sizeof *ts);
	if (!ts)
		return TK_ERR_NOMEM;
	tk_source_spec diag_only;
	if (!spec) {
		tk_source_spec_init(&diag_only);
		diag_only.diag = opts ? opts->diag : NULL;
		diag_only.diag_ctx = opts ? opts->diag_ctx : NULL;
		spec = &diag_only;
	}
	int rc = tk_source_init(&ts->base, &tarmac_ops, &tk_format_tarmac, name, spec);
	if (rc == 0)
		rc = tk_source_set_options(&ts->base, spec);
	if (rc == 0)
		rc = tk_tarmac_parser_new(opts, &ts->parser);
	if (rc == 0)
		rc = tk_linereader_init(&ts->lr, in, ts->parser->opts.max_line);
	if (rc < 0) {
		tk_source_free(&ts->base);	/* the caller closes in on failure */
		return rc;
	}
	ts->in = in;
	ts->own_in = own;
	ts->compressed = tk_input_get_format(in) != TK_INPUT_PLAIN;
	ts->base.input = in;
	ts->base.size = tk_input_file_size(in);
	ts->base.info.big_endian = ts->parser->opts.big_endian;
	/* Seeking needs random access: a pipe cannot. */
	if (!ts->base.size)
		ts->base.info.caps &= ~(unsigned)TK_CAP_SEEK;
	*out = &ts->base;
	return 0;
}

/* Open with the input layer, hand the input to the source. */
static int open_owned(int rc, tk_input *in, const char *name, const tk_tarmac_opts *opts,
		      const tk_source_spec *spec, tk_source **out)
{
	if (rc < 0)
		return rc;
	rc = make_source(in, true, name, opts, spec, out);
	if (rc < 0)
		tk_input_close(in);
	return rc;
}

int tk_tarmac_open(const char *path, const tk_tarmac_opts *opts, tk_source **out)
{
	*out = NULL;
	tk_input *in;
	int rc = tk_input_open(path, NULL, &in);
	return open_owned(rc, in, strcmp(path, "-") ? path : "<stdin>", opts, NULL, out);
}

int tk_tarmac_open_stream(FILE *fp, const char *name, const tk_tarmac_opts *opts,
			  tk_source **out)
{
	*out = NULL;
	tk_input *in;
	int rc = tk_input_open_stream(fp, name ? name : "<stream>", NULL, &in);
	return open_owned(rc, in, name ? name : "<stream>", opts, NULL, out);
}

int tk_tarmac_open_input(tk_input *in, const char *name, const tk_tarmac_opts *opts,
			 tk_source **out)
{
	*out = NULL;
	return make_source(in, false, name ? name : tk_input_name(in), opts, NULL, out);
}

/* ---- the format: options, detection, opening through the registry ---- */

static const tk_source_option tarmac_options[] = {
	{"implicit-thumb", NULL, "instruction lines without a state letter are Thumb", true},
	{"li", NULL, "the traced CPU is little-endian (default)", false},
	{"bi", NULL, "the traced CPU is big-endian", true},
	{NULL, NULL, NULL, false},
};

/* The Tarmac options of a spec (the last of --li / --bi wins). */
static void opts_from_spec(const tk_source_spec *spec, tk_tarmac_opts *o)
{
	tk_tarmac_opts_init(o);
	o->implicit_thumb = tk_source_spec_get(spec, "implicit-thumb") != NULL;
	for (size_t i = 0; spec && i < spec->nopts; i++) {
		if (!strcmp(spec->opts[i].name, "bi"))
			o->big_endian = true;
		else if (!strcmp(spec->opts[i].name, "li"))
			o->big_endian = false;
	}
	o->diag = spec ? spec->diag : NULL;
	o->diag_ctx = spec ? spec->diag_ctx : NULL;
}

static int format_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	tk_tarmac_opts o;
	opts_from_spec(spec, &o);
	*out = NULL;
	tk_input *in;
	int rc = tk_input_open(path, spec ? spec->input_opts : NULL, &in);
	return open_owned(rc, in, path, &o, spec, out);
}

static int format_open_stream(tk_input *in, const uint8_t *head, size_t len, const char *name,
			      const tk_source_spec *spec, tk_source **out)
{
	tk_tarmac_opts o;
	opts_from_spec(spec, &o);
	int rc = open_owned(0, in, name, &o, spec, out);
	if (rc == 0 && (rc = tk_linereader_prime(&((tarmac_source *)*out)->lr, head, len)) < 0) {
		tk_source_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Does a line start like a Tarmac line: [timestamp [unit]] [cpuN] TYPE? */
static bool looks_tarmac(const char *s, const char *end)
{
	static const char *const types[] = {"IT", "IS", "ES", "R", "MR", "MW", "LD", "ST",
					    "BR", "E", "Tarmac"};
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (int word = 0; word < 4 && s < end; word++) {
		const char *w = s;
		while (s < end && *s != ' ' && *s != '\t')
			s++;
		size_t n = (size_t)(s - w);
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (n == strlen(types[i]) && !memcmp(w, types[i], n))
				return true;
		if (n > 2 && w[0] == 'M' && (w[1] == 'R' || w[1] == 'W'))
			return true;	/* MR4, MW8X... */
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
	}
	return false;
}

/* Any text is read as Tarmac, as the last resort (the source then says
 * precisely why binary data is not a trace); lines that look like Tarmac
 * make it sure. */
static int tarmac_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	const char *s = (const char *)head, *end = s + len;
	for (int lines = 0; s < end && lines < 32; lines++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		if (looks_tarmac(s, e))
			return 60;
		if (!nl)
			break;
		s = nl + 1;
	}
	return 1;
}

const tk_source_format tk_format_tarmac = {
	.name = "tarmac",
	.summary = "Arm Tarmac text trace (Fast Models, RTL simulators, tracekit record)",
	.detection = "text lines of Tarmac records (IT/IS/ES instructions, R registers, "
		     "MR/MW/LD/ST memory); any other text is read as Tarmac too",
	.caps = TK_CAP_INSNS | TK_CAP_REGS | TK_CAP_MEM | TK_CAP_MEM_VALUES | TK_CAP_CONTEXTS |
		TK_CAP_TEXT | TK_CAP_SEEK,
	.time_unit = TK_TIME_TICKS,
	.options = tarmac_options,
	.probe = tarmac_probe,
	.open = format_open,
	.open_stream = format_open_stream,
	.chunks = &tk_tarmac_chunk_ops,
};
