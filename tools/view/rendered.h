/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers: lines rendered from the index for a trace without
 * text (see rendered.c). */
#ifndef TRACEKIT_VIEW_RENDERED_H
#define TRACEKIT_VIEW_RENDERED_H

#include <stddef.h>
#include <stdint.h>

#include "tracekit/index.h"

typedef struct tkv_render tkv_render;

/* Errors: TK_ERR_NOMEM. */
int tkv_render_new(const tk_index *idx, tkv_render **out);
void tkv_render_free(tkv_render *r);

/* The text of record `line` (1-based), without a newline; valid until the
 * next call. */
const char *tkv_render_line(tkv_render *r, uint64_t line, size_t *len);

#endif
