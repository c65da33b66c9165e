/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: routing an API request to its handler (see serve.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define RAW_KEY "\x01raw"

static const struct route {
	const char *name;
	tks_handler fn;
	bool needs_trace;
} routes[] = {
	{"traces", tks_api_traces, false},
	{"lines", tks_api_lines, true},
	{"position", tks_api_position, true},
	{"regs", tks_api_regs, true},
	{"mem", tks_api_mem, true},
	{"history", tks_api_history, true},
	{"callstack", tks_api_callstack, true},
	{"calltree", tks_api_calltree, true},
	{"folds", tks_api_folds, true},
	{"profile", tks_api_profile, true},
	{"flamegraph", tks_api_flamegraph, true},
	{"search", tks_api_search, true},
	{"symbols", tks_api_symbols, true},
};

json_t *tks_fail(tks_error *e, int status, const char *fmt, ...)
{
	va_list ap;
	e->status = status;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return NULL;
}

json_t *tks_raw_json(const char *text)
{
	return json_pack("{ss}", RAW_KEY, text);
}

static int error_body(int status, const char *msg, char **body, size_t *len)
{
	json_t *j = json_pack("{s:s%,s:i}", "error", msg, strlen(msg), "status", status);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!s)	/* out of memory: a constant answer, still JSON */
		s = strdup("{\"error\":\"out of memory\",\"status\":500}");
	*body = s;
	*len = s ? strlen(s) : 0;
	return status;
}

/* The trace named by trace=ID; the first (and only) one may be implied. */
static tks_trace *find_trace(tks_server *s, const tks_request *rq, tks_error *e)
{
	uint64_t id = 0;
	int r = tks_param_u64(rq, "trace", &id, e);
	if (r < 0)
		return NULL;
	if (r == 0 && s->ntraces != 1) {
		tks_fail(e, 400, "parameter 'trace' is missing (this server has %u traces: see traces)",
			 s->ntraces);
		return NULL;
	}
	if (id >= s->ntraces) {
		tks_fail(e, 404, "no trace %llu (this server has %u)", (unsigned long long)id,
			 s->ntraces);
		return NULL;
	}
	return &s->traces[id];
}

int tks_api_handle(tks_server *s, const tks_request *rq, char **body, size_t *len)
{
	tks_error e = {500, "internal error"};
	const struct route *r = NULL;
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (!strcmp(rq->route, routes[i].name))
			r = &routes[i];
	if (!r) {
		char msg[160];
		snprintf(msg, sizeof msg, "no API route '%.60s' (see docs/API.md)", rq->route);
		return error_body(404, msg, body, len);
	}
	tks_trace *t = NULL;
	if (r->needs_trace && !(t = find_trace(s, rq, &e)))
		return error_body(e.status, e.msg, body, len);
	json_t *j = r->fn(s, t, rq, &e);
	if (t) {
		/* The pages this request mapped go back: a long session must
		 * not make the trace or its index resident. */
		tkv_file_trim(&t->text);
		tk_index_trim(t->idx);
	}
	if (!j)
		return error_body(e.status, e.msg, body, len);
	char *text;
	json_t *raw = json_object_get(j, RAW_KEY);
	if (raw)
		text = strdup(json_string_value(raw));
	else
		text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!text)
		return error_body(500, "out of memory", body, len);
	size_t n = strlen(text);
	if (n > TKS_MAX_RESPONSE) {
		free(text);
		return error_body(413, "the answer would be too large: ask for less", body, len);
	}
	*body = text;
	*len = n;
	return 200;
}
