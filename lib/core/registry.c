/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the registry of trace formats, detection, and opening a trace
 * with the right format. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracekit/error.h"
#include "tracekit/source_author.h"

#define TK_FORMAT(name) extern const tk_source_format tk_format_##name;
#include "sources/formats.def"
#undef TK_FORMAT

static const tk_source_format *const formats[] = {
#define TK_FORMAT(name) &tk_format_##name,
#include "sources/formats.def"
#undef TK_FORMAT
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* Bytes of a file's start that probes see. */
#define HEAD_BYTES 4096

size_t tk_source_formats(const tk_source_format *const **list)
{
	*list = formats;
	return NFORMATS;
}

const tk_source_format *tk_source_format_find(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

static void diag(const tk_source_spec *spec, const char *path, const char *msg)
{
	if (!spec || !spec->diag)
		return;
	tk_diag d = {TK_DIAG_ERROR, path, 0, msg, false, 0};
	spec->diag(spec->diag_ctx, &d);
}

/* The best format for these first bytes, or NULL. */
static const tk_source_format *best(const uint8_t *head, size_t n, const char *path,
				    bool need_stream)
{
	const tk_source_format *f = NULL;
	int score = 0;
	for (size_t i = 0; i < NFORMATS; i++) {
		if (need_stream && !formats[i]->open_stream)
			continue;
		int s = formats[i]->probe ? formats[i]->probe(head, n, path) : 0;
		if (s > score) {
			score = s;
			f = formats[i];
		}
	}
	return f;
}

/* Read up to HEAD_BYTES of in (decompressed) into head.  Damage after
 * the first bytes is the source's to report, where it is. */
static int read_head(tk_input *in, const tk_source_spec *spec, uint8_t *head, size_t *n)
{
	*n = 0;
	while (*n < HEAD_BYTES) {
		size_t got;
		int rc = tk_input_read(in, head + *n, HEAD_BYTES - *n, &got);
		if (rc < 0 && !*n) {
			const char *why = tk_input_error(in);
			if (why && *why)
				diag(spec, tk_input_name(in), why);
		}
		if (rc < 0)
			return *n ? 0 : rc;
		if (!got)
			break;
		*n += got;
	}
	return 0;
}

/* The first bytes of a file, decompressed: formats are recognised by what
 * the trace says, whether or not it is compressed. */
static int open_file(const char *path, const tk_source_spec *spec, uint8_t *head, size_t *n)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return TK_ERR_ISDIR;
	}
	tk_input_opts o;
	tk_input_opts_init(&o);
	o.no_thread = true;
	tk_input *in;
	int rc = tk_input_open(path, &o, &in);
	if (rc < 0)
		return rc;
	rc = read_head(in, spec, head, n);
	tk_input_close(in);
	return rc;
}

int tk_source_detect(const char *path, const tk_source_spec *spec, const tk_source_format **out)
{
	uint8_t head[HEAD_BYTES];
	size_t n;
	*out = NULL;
	if (!strcmp(path, "-"))
		return TK_ERR_UNSUPPORTED;	/* reading stdin would consume it */
	int rc = open_file(path, spec, head, &n);
	if (rc < 0)
		return rc;
	if (!(*out = best(head, n, path, false))) {
		diag(spec, path, "not a trace in any format tracekit reads "
				 "(see 'tracekit formats')");
		return TK_ERR_FORMAT;
	}
	return 0;
}

/* The format the spec names, if it names one. */
static int check_format(const tk_source_spec *spec, const char *path,
			const tk_source_format **fmt)
{
	if (!spec || !spec->format)
		return 0;
	*fmt = tk_source_format_find(spec->format);
	if (*fmt)
		return 0;
	char msg[160];
	snprintf(msg, sizeof msg, "unknown format '%s' (see 'tracekit formats')", spec->format);
	diag(spec, path, msg);
	return TK_ERR_NOTFOUND;
}

static int open_stdin(const tk_source_spec *spec, const tk_source_format *fmt, tk_source **out)
{
	uint8_t head[HEAD_BYTES];
	size_t n;
	tk_input *in;
	int rc = tk_input_open_fd(STDIN_FILENO, false, "<stdin>", spec ? spec->input_opts : NULL,
				  &in);
	if (rc < 0)
		return rc;
	if ((rc = read_head(in, spec, head, &n)) < 0) {
		tk_input_close(in);
		return rc;
	}
	if (!fmt && !(fmt = best(head, n, "-", true))) {
		tk_input_close(in);
		diag(spec, "<stdin>", "not a trace in any format tracekit reads from a pipe "
				      "(see 'tracekit formats')");
		return TK_ERR_FORMAT;
	}
	if (!fmt->open_stream) {
		tk_input_close(in);
		char msg[160];
		snprintf(msg, sizeof msg, "%s traces cannot be read from standard input: "
			 "give a file", fmt->name);
		diag(spec, "<stdin>", msg);
		return TK_ERR_UNSUPPORTED;
	}
	rc = fmt->open_stream(in, head, n, "<stdin>", spec, out);
	if (rc == 0)
		(*out)->format = fmt;
	return rc;
}

int tk_source_open(const char *path, const tk_source_spec *spec, tk_source **out)
{
	const tk_source_format *fmt = NULL;
	*out = NULL;
	int rc = check_format(spec, path, &fmt);
	if (rc < 0)
		return rc;
	if (!strcmp(path, "-"))
		return open_stdin(spec, fmt, out);
	if (!fmt && (rc = tk_source_detect(path, spec, &fmt)) < 0)
		return rc;
	rc = fmt->open(path, spec, out);
	if (rc == 0)
		(*out)->format = fmt;
	return rc;
}
