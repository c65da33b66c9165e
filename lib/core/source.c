/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the event source interface (dispatch to the implementation),
 * and what every source shares: its info, options and diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/source_author.h"

const char *tk_time_unit_name(tk_time_unit unit)
{
	switch (unit) {
	case TK_TIME_TICKS: return "ticks";
	case TK_TIME_PS: return "ps";
	case TK_TIME_NS: return "ns";
	case TK_TIME_INSNS: return "instructions";
	case TK_TIME_RECORDS: return "records";
	case TK_TIME_UNKNOWN: break;
	}
	return "unknown";
}

const char *tk_caps_string(unsigned caps, char *buf, size_t size)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{TK_CAP_INSNS, "instructions"}, {TK_CAP_REGS, "registers"},
		{TK_CAP_MEM, "memory"}, {TK_CAP_MEM_VALUES, "memory-values"},
		{TK_CAP_CALLS, "calls"}, {TK_CAP_FUNCS, "functions"},
		{TK_CAP_CONTEXTS, "contexts"}, {TK_CAP_TEXT, "text"}, {TK_CAP_SEEK, "seek"},
	};
	size_t n = 0;
	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(caps & names[i].bit))
			continue;
		int k = snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
				 names[i].name);
		if (k > 0)
			n += (size_t)k;
	}
	return buf;
}

void tk_source_spec_init(tk_source_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->size = sizeof *spec;
}

const char *tk_source_spec_get(const tk_source_spec *spec, const char *name)
{
	if (!spec || spec->size < offsetof(tk_source_spec, images))
		return NULL;
	const char *v = NULL;
	for (size_t i = 0; i < spec->nopts; i++)
		if (!strcmp(spec->opts[i].name, name))
			v = spec->opts[i].value ? spec->opts[i].value : "";
	return v;
}

int tk_source_init(tk_source *src, const tk_source_ops *ops, const tk_source_format *fmt,
		   const char *path, const tk_source_spec *spec)
{
	src->ops = ops;
	src->format = fmt;
	memset(&src->info, 0, sizeof src->info);
	src->info.size = sizeof src->info;
	src->info.format = fmt ? fmt->name : "";
	src->info.caps = fmt ? fmt->caps & ~TK_CAP_SEEK : 0;
	if (fmt && (fmt->caps & TK_CAP_SEEK) && ops->seek)
		src->info.caps |= TK_CAP_SEEK;
	src->info.time_unit = fmt ? fmt->time_unit : TK_TIME_UNKNOWN;
	src->info.context_name = "cpu";
	src->info.options = "";
	src->options = NULL;
	src->pos = src->size = src->warnings = 0;
	src->diag = spec ? spec->diag : NULL;
	src->diag_ctx = spec ? spec->diag_ctx : NULL;
	src->input = NULL;
	src->path = strdup(path ? path : "<stdin>");
	return src->path ? 0 : TK_ERR_NOMEM;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_key_option(const tk_source_format *fmt, const char *name)
{
	for (const tk_source_option *o = fmt ? fmt->options : NULL; o && o->name; o++)
		if (o->index_key && !strcmp(o->name, name))
			return true;
	return false;
}

int tk_source_options_key(const tk_source_format *fmt, const tk_source_spec *spec, char **out)
{
	/* Every occurrence counts: repeatable options (--raw) add up, and a
	 * repeated plain one at worst makes an index look stale. */
	size_t n = spec && spec->size >= offsetof(tk_source_spec, images) ? spec->nopts : 0;
	size_t len = 1;
	*out = NULL;
	char **parts = calloc(n + 1, sizeof *parts);
	if (!parts)
		return TK_ERR_NOMEM;
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_key_option(fmt, spec->opts[i].name))
			continue;
		const char *name = spec->opts[i].name;
		const char *v = spec->opts[i].value ? spec->opts[i].value : "";
		size_t m = strlen(name) + strlen(v) + 2;
		if (!(parts[k] = malloc(m))) {
			rc = TK_ERR_NOMEM;
			break;
		}
		snprintf(parts[k], m, *v ? "%s=%s" : "%s", name, v);
		len += m;
		k++;
	}
	bool images = fmt && fmt->images_in_key && spec && spec->size >= sizeof *spec;
	for (size_t i = 0; images && i < spec->nimages; i++)
		len += strlen(spec->images[i]) + 8;
	char *s = rc ? NULL : malloc(len);
	if (s) {
		qsort(parts, k, sizeof *parts, cmp_str);
		s[0] = 0;
		for (size_t i = 0; i < k; i++) {
			if (i && !strcmp(parts[i], parts[i - 1]))
				continue;	/* the same option twice */
			if (i)
				strcat(s, ",");
			strcat(s, parts[i]);
		}
		/* in order: the first image is where decoding starts looking */
		for (size_t i = 0; images && i < spec->nimages; i++) {
			if (*s)
				strcat(s, ",");
			strcat(s, "image=");
			strcat(s, spec->images[i]);
		}
		*out = s;
	} else {
		rc = TK_ERR_NOMEM;
	}
	for (size_t i = 0; i < k; i++)
		free(parts[i]);
	free(parts);
	return rc;
}

int tk_source_set_options(tk_source *src, const tk_source_spec *spec)
{
	char *s;
	int rc = tk_source_options_key(src->format, spec, &s);
	if (rc < 0)
		return rc;
	free(src->options);
	src->options = s;
	src->info.options = s;
	return 0;
}

static void report(tk_source *src, tk_diag_level level, uint64_t line, bool has_offset,
		   uint64_t offset, const char *fmt, va_list ap)
{
	if (level != TK_DIAG_ERROR && level != TK_DIAG_NOTE)
		src->warnings++;
	if (!src->diag)
		return;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	tk_diag d = {level, src->path, line, msg, has_offset, offset};
	src->diag(src->diag_ctx, &d);
}

void tk_source_report(tk_source *src, tk_diag_level level, uint64_t line,
		      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(src, level, line, false, 0, fmt, ap);
	va_end(ap);
}

void tk_source_report_at(tk_source *src, tk_diag_level level, uint64_t offset,
			 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(src, level, 0, true, offset, fmt, ap);
	va_end(ap);
}

int tk_source_get_info(const tk_source *src, tk_source_info *info)
{
	if (!info || info->size < offsetof(tk_source_info, context_name))
		return TK_ERR_INVAL;
	size_t n = info->size < sizeof *info ? info->size : sizeof *info;
	memcpy(info, &src->info, n);
	info->size = n;
	return 0;
}

int tk_source_next(tk_source *src, tk_event *ev)
{
	return src->ops->next(src, ev);
}

int tk_source_next_many(tk_source *src, tk_event *evs, size_t cap)
{
	if (src->ops->next_many && cap > 1)
		return src->ops->next_many(src, evs, cap);
	return src->ops->next(src, evs);
}

bool tk_source_want_runs(tk_source *src)
{
	return src->ops->want_runs && src->ops->want_runs(src);
}

int tk_source_seek(tk_source *src, const tk_seek_point *at)
{
	if (!src->ops->seek || !(src->info.caps & TK_CAP_SEEK))
		return TK_ERR_UNSUPPORTED;
	return src->ops->seek(src, at);
}

uint64_t tk_source_pos(const tk_source *src)
{
	return src->pos;
}

uint64_t tk_source_size(const tk_source *src)
{
	return src->size;
}

uint64_t tk_source_warnings(const tk_source *src)
{
	return src->warnings;
}

const char *tk_source_path(const tk_source *src)
{
	return src->path;
}

tk_input *tk_source_input(const tk_source *src)
{
	return src->input;
}

void tk_source_free(tk_source *src)
{
	if (!src)
		return;
	if (src->ops && src->ops->free)
		src->ops->free(src);
	free(src->path);
	free(src->options);
	free(src);
}
