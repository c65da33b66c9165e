/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: reading and checking request parameters (serve.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "view/resolve.h"

int tks_param_u64(const tks_request *rq, const char *key, uint64_t *v, tks_error *e)
{
	const char *s = rq->param(rq->ctx, key);
	if (!s)
		return 0;
	char *end;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	errno = 0;
	unsigned long long x = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (!isxdigit((unsigned char)(hex ? s[2] : s[0])) || !isdigit((unsigned char)s[0]) ||
	    errno || *end) {
		tks_fail(e, 400, "parameter '%s': '%.40s' is not a number (decimal, or hex with 0x)",
			 key, s);
		return -1;
	}
	*v = x;
	return 1;
}

int tks_param_need_u64(const tks_request *rq, const char *key, uint64_t *v, tks_error *e)
{
	int r = tks_param_u64(rq, key, v, e);
	if (r == 0) {
		tks_fail(e, 400, "parameter '%s' is missing", key);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

int tks_param_line_pos(const tks_request *rq, tks_trace *t, const char *key, uint64_t *pos,
		       tks_error *e)
{
	uint64_t line;
	if (tks_param_need_u64(rq, key, &line, e))
		return -1;
	if (!t->ninsns) {
		tks_fail(e, 404, "the trace has no instructions");
		return -1;
	}
	if (line == 0 || line >= tks_end_line(t)) {
		tks_fail(e, 400, "parameter '%s': line %llu is not in the trace (lines 1 to %llu)",
			 key, (unsigned long long)line, (unsigned long long)(tks_end_line(t) - 1));
		return -1;
	}
	if (tk_index_find_line(t->idx, line, pos)) {
		tks_fail(e, 400, "parameter '%s': no position at line %llu", key,
			 (unsigned long long)line);
		return -1;
	}
	return 0;
}

int tks_param_str(const tks_request *rq, const char *key, size_t max, const char **v,
		  tks_error *e)
{
	const char *s = rq->param(rq->ctx, key);
	if (!s)
		return 0;
	if (strlen(s) > max) {
		tks_fail(e, 400, "parameter '%s' is longer than %zu characters", key, max);
		return -1;
	}
	*v = s;
	return 1;
}

int tks_eval_addr(tks_trace *t, uint64_t pos, const char *text, uint64_t *v, tks_error *e)
{
	char err[200];
	if (strlen(text) > TKS_MAX_EXPR) {
		tks_fail(e, 400, "address expression longer than %d characters", TKS_MAX_EXPR);
		return -1;
	}
	tkv_scope scope = {
		.idx = t->idx,
		.symtab = t->cli.symtab,
		.state = pos,
		.isa_pos = pos,
		.pc_pos = pos + 1 < t->ninsns ? pos + 1 : pos,
		.a64 = false,
	};
	if (tkv_eval(&scope, text, v, err, sizeof err)) {
		tks_fail(e, 400, "address '%.60s': %s", text, err);
		return -1;
	}
	return 0;
}
