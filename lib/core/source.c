/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the event source interface (dispatch to the implementation). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/source_author.h"
#include "tracekit/error.h"

int tk_source_init(tk_source *src, const tk_source_ops *ops, const char *path,
		   tk_diag_fn diag, void *diag_ctx)
{
	src->ops = ops;
	src->pos = src->size = src->warnings = 0;
	src->diag = diag;
	src->diag_ctx = diag_ctx;
	src->input = NULL;
	src->path = strdup(path ? path : "<stdin>");
	return src->path ? 0 : TK_ERR_NOMEM;
}

void tk_source_report(tk_source *src, tk_diag_level level, uint64_t line,
		      const char *fmt, ...)
{
	if (level != TK_DIAG_ERROR && level != TK_DIAG_NOTE)
		src->warnings++;
	if (!src->diag)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tk_diag d = {level, src->path, line, msg};
	src->diag(src->diag_ctx, &d);
}

int tk_source_next(tk_source *src, tk_event *ev)
{
	return src->ops->next(src, ev);
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
	free(src);
}
