/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: "functext", a tiny text format of function enter/exit records.
 *
 * Made for tests and for hand-written examples: it exercises everything a
 * function-level source (the trace linker's buffers, ...) gives the core:
 * calls and returns in several contexts, calls that never return, gaps.
 *
 *   # tracekit function trace
 *   TIME CONTEXT enter ADDR [NAME]
 *   TIME CONTEXT exit ADDR [NAME]
 *   TIME CONTEXT gap [disabled|overflow|decode|full|other [MESSAGE...]]
 *
 * The first line is the header, exactly as above: it is how the format is
 * recognised.  TIME and CONTEXT are decimal, ADDR hexadecimal (with or
 * without 0x).  Other lines starting with '#', and blank lines, are
 * comments.  A malformed line is reported and skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "core/linereader.h"
#include "tracekit/error.h"
#include "tracekit/source_author.h"

#define HEADER "# tracekit function trace"

extern const tk_source_format tk_format_functext;

typedef struct functext {
	tk_source base;
	tk_linereader lr;
	tk_input *in;		/* owned */
	uint64_t lineno;
	int sticky;
} functext;

typedef struct field {
	const char *s;
	size_t n;
} field;

/* The next blank-separated field of [*p, end). */
static field next_field(const char **p, const char *end)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	const char *e = s;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	return (field){s, (size_t)(e - s)};
}

static bool field_is(field f, const char *word)
{
	return f.n == strlen(word) && !memcmp(f.s, word, f.n);
}

static bool parse_num(field f, int base, uint64_t *out)
{
	if (base == 16 && f.n > 2 && f.s[0] == '0' && (f.s[1] == 'x' || f.s[1] == 'X')) {
		f.s += 2;
		f.n -= 2;
	}
	if (!f.n || f.n > 20)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < f.n; i++) {
		unsigned c = (unsigned char)f.s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		if (v > (UINT64_MAX - d) / (unsigned)base)
			return false;
		v = v * (unsigned)base + d;
	}
	*out = v;
	return true;
}

static const struct {
	const char *word;
	tk_gap_kind kind;
} gap_kinds[] = {
	{"disabled", TK_GAP_DISABLED}, {"overflow", TK_GAP_OVERFLOW},
	{"decode", TK_GAP_DECODE_ERROR}, {"full", TK_GAP_BUFFER_FULL}, {"other", TK_GAP_OTHER},
};

/* Parse one line into ev; 1 = an event, 0 = nothing (comment), -1 = bad
 * (why says why). */
static int parse(const char *s, size_t len, tk_event *ev, const char **why)
{
	const char *p = s, *end = s + len;
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	field f = next_field(&p, end);
	if (!f.n || f.s[0] == '#')
		return 0;
	uint64_t ctx;
	if (!parse_num(f, 10, &ev->time)) {
		*why = "expected a decimal time";
		return -1;
	}
	if (!parse_num(next_field(&p, end), 10, &ctx) || ctx > UINT32_MAX) {
		*why = "expected a decimal context after the time";
		return -1;
	}
	ev->context = (uint32_t)ctx;
	field verb = next_field(&p, end);
	if (field_is(verb, "gap")) {
		ev->kind = TK_EV_GAP;
		field k = next_field(&p, end);
		ev->u.gap.kind = TK_GAP_OTHER;
		if (k.n) {
			size_t i = 0;
			while (i < sizeof gap_kinds / sizeof gap_kinds[0] && !field_is(k, gap_kinds[i].word))
				i++;
			if (i == sizeof gap_kinds / sizeof gap_kinds[0]) {
				*why = "unknown gap kind (disabled, overflow, decode, full, other)";
				return -1;
			}
			ev->u.gap.kind = gap_kinds[i].kind;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		ev->u.gap.msg = p;
		ev->u.gap.msg_len = (size_t)(end - p);
		return 1;
	}
	if (field_is(verb, "enter"))
		ev->kind = TK_EV_CALL;
	else if (field_is(verb, "exit"))
		ev->kind = TK_EV_RETURN;
	else {
		*why = "expected 'enter', 'exit' or 'gap' after the context";
		return -1;
	}
	memset(&ev->u.func, 0, sizeof ev->u.func);
	if (!parse_num(next_field(&p, end), 16, &ev->u.func.addr)) {
		*why = "expected a hexadecimal function address";
		return -1;
	}
	field name = next_field(&p, end);
	if (name.n) {
		ev->u.func.name = name.s;
		ev->u.func.name_len = name.n;
	}
	if (next_field(&p, end).n) {
		*why = "unexpected text after the function name";
		return -1;
	}
	return 1;
}

static int functext_next(tk_source *s, tk_event *ev)
{
	functext *ft = (functext *)s;
	if (ft->sticky)
		return ft->sticky;
	for (;;) {
		tk_line line;
		int rc = tk_linereader_next(&ft->lr, &line);
		if (rc <= 0) {
			if (rc < 0) {
				const char *msg = tk_input_error(ft->in);
				tk_source_report(s, TK_DIAG_ERROR, ft->lineno + 1, "read error: %s",
						 *msg ? msg : tk_strerror(rc));
				ft->sticky = rc;
			}
			return rc;
		}
		ft->lineno++;
		s->pos = tk_input_consumed(ft->in);
		if (line.too_long || line.has_nul) {
			tk_source_report(s, TK_DIAG_WARNING, ft->lineno, "%s: skipped",
					 line.too_long ? "line too long" : "line contains NUL bytes");
			continue;
		}
		if (ft->lineno == 1 && (line.len < strlen(HEADER) ||
					memcmp(line.s, HEADER, strlen(HEADER)))) {
			tk_source_report(s, TK_DIAG_ERROR, 1, "not a function trace: the first line "
					 "must be '" HEADER "'");
			return ft->sticky = TK_ERR_FORMAT;
		}
		memset(ev, 0, sizeof *ev);
		const char *why = NULL;
		int k = parse(line.s, line.len, ev, &why);
		if (k < 0) {
			tk_source_report(s, TK_DIAG_WARNING, ft->lineno, "%s: line skipped", why);
			continue;
		}
		if (k == 0)
			continue;
		ev->line = ft->lineno;
		ev->offset = line.offset;
		ev->raw = line.s;
		ev->raw_len = line.len;
		return 1;
	}
}

static int functext_seek(tk_source *s, const tk_seek_point *at)
{
	functext *ft = (functext *)s;
	uint64_t size = tk_input_size(ft->in);
	if (at->line == 0 || (size != TK_INPUT_SIZE_UNKNOWN && at->offset > size))
		return TK_ERR_INVAL;
	int rc = tk_linereader_seek(&ft->lr, at->offset);
	if (rc < 0)
		return rc;
	ft->lineno = at->line - 1;
	ft->sticky = 0;
	return 0;
}

static void functext_free(tk_source *s)
{
	functext *ft = (functext *)s;
	tk_linereader_fini(&ft->lr);
	tk_input_close(ft->in);
}

static const tk_source_ops functext_ops = {
	.next = functext_next,
	.free = functext_free,
	.seek = functext_seek,
};

/* Make the source over `in` (owned from now on, even on failure). */
static int make(tk_input *in, const char *name, const tk_source_spec *spec, tk_source **out)
{
	functext *ft = calloc(1, sizeof *ft);
	if (!ft) {
		tk_input_close(in);
		return TK_ERR_NOMEM;
	}
	ft->in = in;
	int rc = tk_source_init(&ft->base, &functext_ops, &tk_format_functext, name, spec);
	if (rc == 0)
		rc = tk_linereader_init(&ft->lr, in, 0);
	if (rc < 0) {
		tk_source_free(&ft->base);
		return rc;
	}
	ft->base.input = in;
	ft->base.info.context_name = "thread";
	ft->base.size = tk_input_file_size(in);
	if (!ft->base.size)
		ft->base.info.caps &= ~(unsigned)TK_CAP_SEEK;
	*out = &ft->base;
	return 0;
}

static int functext_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	tk_input *in;
	int rc = tk_input_open(path, spec ? spec->input_opts : NULL, &in);
	return rc < 0 ? rc : make(in, path, spec, out);
}

static int functext_open_stream(tk_input *in, const uint8_t *head, size_t len, const char *name,
				const tk_source_spec *spec, tk_source **out)
{
	int rc = make(in, name, spec, out);
	if (rc == 0 && (rc = tk_linereader_prime(&((functext *)*out)->lr, head, len)) < 0) {
		tk_source_free(*out);
		*out = NULL;
	}
	return rc;
}

static int functext_probe(const uint8_t *head, size_t len, const char *path)
{
	(void)path;
	size_t n = strlen(HEADER);
	return len >= n && !memcmp(head, HEADER, n) ? 100 : 0;
}

const tk_source_format tk_format_functext = {
	.name = "functext",
	.summary = "function enter/exit records as text (for tests and examples)",
	.detection = "first line '" HEADER "'",
	.caps = TK_CAP_FUNCS | TK_CAP_CALLS | TK_CAP_CONTEXTS | TK_CAP_TEXT | TK_CAP_SEEK,
	.time_unit = TK_TIME_TICKS,
	.options = NULL,
	.probe = functext_probe,
	.open = functext_open,
	.open_stream = functext_open_stream,
};
