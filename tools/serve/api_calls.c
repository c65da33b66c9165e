/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: calls: the stack at a position, the tree (lazily, a few
 * levels at a time), and the stretches of lines that folded calls hide. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_out.h"
#include "serve.h"

/* Call c of the index.  The nodes a request reads may lie anywhere in the
 * call tree (the children of a root span all of it): the index's pages
 * are given back every few thousand, not only after the request. */
static bool node(tks_trace *t, uint32_t c, tk_call *out)
{
	static _Thread_local unsigned reads;
	if (++reads % 2048 == 0)
		tk_index_trim(t->idx);
	return tk_index_get_call(t->idx, c, out) == 0;
}

/* The end of c's subtree (calls are numbered in preorder: [c, end)): the
 * next sibling of c or of its nearest ancestor that has one. */
static uint32_t subtree_end(tks_trace *t, uint32_t c)
{
	tk_call n;
	for (uint32_t up = c; up != TK_CALL_NONE && node(t, up, &n); up = n.parent)
		if (n.next_sibling != TK_CALL_NONE)
			return n.next_sibling;
	return tk_index_call_count(t->idx);
}

/* One activation, with the lines it covers and the callers' lines. */
static json_t *call_json(tks_trace *t, uint32_t c)
{
	tk_call node_c, *call = &node_c;
	if (!node(t, c, call))
		return NULL;
	char name[256];
	json_t *j = tkj_call(call, c, tks_func_name(t, call->entry.pc, name, sizeof name));
	if (!j)
		return NULL;
	uint64_t first, end;
	tks_call_lines(t, c, &first, &end);
	uint32_t nchildren = 0, last;
	tk_call k;
	for (uint32_t ch = call->first_child; ch != TK_CALL_NONE && node(t, ch, &k);
	     ch = k.next_sibling)
		nchildren++;
	/* Calls are numbered in preorder: the subtree is [c, subtree_end). */
	last = subtree_end(t, c);
	json_object_set_new(j, "first_line", json_integer((json_int_t)first));
	json_object_set_new(j, "end_line", json_integer((json_int_t)end));
	json_object_set_new(j, "children", json_integer(nchildren));
	json_object_set_new(j, "subtree_end", json_integer(last));
	return j;
}

json_t *tks_api_callstack(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint64_t pos;
	if (tks_param_line_pos(rq, t, "line", &pos, e))
		return NULL;
	uint32_t c;
	if (!tk_index_call_count(t->idx) || tk_index_call_at(t->idx, pos, &c))
		return tks_fail(e, 404, "no call tree");
	/* next=1: the calls containing the next instruction (the one about
	 * to run): the terminal browser's fold keys work on that one. */
	const char *next = rq->param(rq->ctx, "next");
	if (next && !strcmp(next, "1") && pos + 1 < t->ninsns)
		tk_index_call_at(t->idx, pos + 1, &c);
	json_t *frames = json_array();
	tk_call n;
	for (uint32_t k = c; frames && k != TK_CALL_NONE && node(t, k, &n); k = n.parent)
		if (json_array_append_new(frames, call_json(t, k)))
			break;
	return json_pack("{s:I,s:o}", "insn", (json_int_t)pos, "frames", frames);
}

json_t *tks_api_calltree(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint32_t count = tk_index_call_count(t->idx);
	uint64_t id = 0, depth = 1, offset = 0, limit = 200;
	int have_call = tks_param_u64(rq, "call", &id, e);
	if (have_call < 0 || tks_param_u64(rq, "depth", &depth, e) < 0 ||
	    tks_param_u64(rq, "offset", &offset, e) < 0 || tks_param_u64(rq, "limit", &limit, e) < 0)
		return NULL;
	if (!count)
		return tks_fail(e, 404, "the trace has no instructions, so no call tree");
	if (rq->param(rq->ctx, "from")) {
		uint64_t pos;
		uint32_t c;
		if (have_call)
			return tks_fail(e, 400, "give one of call= or from=");
		if (tks_param_line_pos(rq, t, "from", &pos, e))
			return NULL;
		tk_index_call_at(t->idx, pos, &c);
		id = c;
	}
	if (id >= count)
		return tks_fail(e, 404, "no call %" PRIu64 " (the tree has %u)", id, count);
	if (depth > 8)
		return tks_fail(e, 400, "parameter 'depth': at most 8 levels at a time");
	if (limit == 0 || limit > 1000)
		return tks_fail(e, 400, "parameter 'limit': 1 to 1000 children per call");
	/* Breadth-first to the depth asked for: a flat list of nodes, each
	 * naming its parent; children beyond offset+limit are left for a
	 * later request (the node's "children" says how many there are). */
	json_t *nodes = json_array();
	uint32_t *queue = malloc(sizeof *queue * 4096), qn = 0, qh = 0;
	uint64_t budget = 20000;	/* nodes in one answer */
	if (!nodes || !queue) {
		free(queue);
		json_decref(nodes);
		return tks_fail(e, 500, "out of memory");
	}
	json_array_append_new(nodes, call_json(t, (uint32_t)id));
	queue[qn++] = (uint32_t)id;
	bool truncated = false;
	tk_call top, cur, kid;
	node(t, (uint32_t)id, &top);
	while (qh < qn) {
		uint32_t c = queue[qh++];
		if (!node(t, c, &cur) || cur.depth - top.depth >= depth)
			continue;
		uint64_t k = 0;
		for (uint32_t ch = cur.first_child; ch != TK_CALL_NONE && node(t, ch, &kid);
		     ch = kid.next_sibling, k++) {
			if (c == id && k < offset)
				continue;
			if (k >= (c == id ? offset : 0) + limit || !budget) {
				truncated = true;
				break;
			}
			budget--;
			json_array_append_new(nodes, call_json(t, ch));
			if (qn < 4096)
				queue[qn++] = ch;
		}
	}
	free(queue);
	return json_pack("{s:I,s:o,s:b}", "root", (json_int_t)id, "nodes", nodes, "truncated",
			 truncated);
}

/* calls=RANGES: "1-5,7,9-200" (ranges of call ids, inclusive). */
static int parse_ranges(const char *s, uint32_t count, uint32_t (*out)[2], size_t max,
			size_t *n, tks_error *e)
{
	*n = 0;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s || *s == '-' || *s == '+' || *s == ' ')
			goto bad;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				goto bad;
			b = strtoul(s, &end, 10);
		}
		if (*end && *end != ',')
			goto bad;
		if (b < a || a >= count)
			goto bad;
		if (b >= count)
			b = count - 1;
		if (*n >= max) {
			tks_fail(e, 400, "parameter 'calls': more than %zu ranges", max);
			return -1;
		}
		out[*n][0] = (uint32_t)a;
		out[(*n)++][1] = (uint32_t)b;
		s = *end ? end + 1 : end;
	}
	return 0;
bad:
	tks_fail(e, 400, "parameter 'calls': expected ranges of call ids like 1-5,7 "
		 "(ascending, below %u)", count);
	return -1;
}

static int cmp_range(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

json_t *tks_api_folds(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	uint32_t ncalls = tk_index_call_count(t->idx);
	const char *spec = "";
	if (tks_param_str(rq, "calls", 65536, &spec, e) < 0)
		return NULL;
	size_t max = strlen(spec) / 2 + 1, n;
	uint32_t (*r)[2] = malloc(max * sizeof *r);
	json_t *hidden = json_array();
	if (!r || !hidden) {
		free(r);
		json_decref(hidden);
		return tks_fail(e, 500, "out of memory");
	}
	if (ncalls <= 1) {
		free(r);
		return json_pack("{s:o,s:I}", "hidden", hidden, "hidden_lines", (json_int_t)0);
	}
	if (parse_ranges(spec, ncalls, r, max, &n, e)) {
		free(r);
		json_decref(hidden);
		return NULL;
	}
	qsort(r, n, sizeof *r, cmp_range);
	/* Outermost folded calls, in preorder: after each, skip its subtree. */
	uint64_t total = 0, count = 0;
	uint32_t next = 1;	/* the first call not inside a recorded one */
	for (size_t i = 0; i < n; i++) {
		uint32_t c = r[i][0] > next ? r[i][0] : next;
		while (c <= r[i][1] && c < ncalls) {
			if (c == 0) {	/* the root never folds */
				c++;
				continue;
			}
			if (++count > TKS_MAX_FOLDED) {
				free(r);
				json_decref(hidden);
				return tks_fail(e, 400, "more than %d folded calls to show: fold fewer",
						TKS_MAX_FOLDED);
			}
			uint64_t first, end;
			tks_call_lines(t, c, &first, &end);
			tk_call call;
			node(t, c, &call);
			json_array_append_new(hidden, json_pack("[I,I,I,I]", (json_int_t)first,
								(json_int_t)end, (json_int_t)c,
								(json_int_t)call.exit.line));
			total += end - first;
			c = subtree_end(t, c);
		}
		if (c > next)
			next = c;
	}
	free(r);
	return json_pack("{s:o,s:I}", "hidden", hidden, "hidden_lines", (json_int_t)total);
}
