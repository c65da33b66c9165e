/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: regular-expression search over the trace's text.
 *
 * POSIX extended expressions (glibc regcomp with REG_NEWLINE, so '^', '$'
 * and '.' keep to one line), run on 1 MiB slices of the mapped text that
 * end at line boundaries (REG_STARTEND: no copy).  A request searches for
 * at most SEARCH_BUDGET_MS; if it has not finished it answers where it got
 * to, and the client asks again from there, so a search of a huge trace
 * never ties up a server thread.  Back-references, which can take
 * exponential time, are refused.
 */
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "serve.h"

#define SLICE (1u << 20)
#define SEARCH_BUDGET_MS 150

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t count_nl(const char *p, uint64_t n)
{
	uint64_t c = 0;
	const char *e = p + n;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
		c++;
		p++;
	}
	return c;
}

/* Byte offset of the start of line `line` (1-based), from the index. */
static uint64_t line_offset(tks_trace *t, uint64_t line)
{
	uint64_t pos;
	tk_index_pos p;
	if (line >= tks_end_line(t))
		return t->text.size;
	if (tk_index_find_line(t->idx, line, &pos) || tk_index_get_pos(t->idx, pos, &p))
		return 0;
	uint64_t off = tkv_pos_offset(&t->text, p.first_offset, p.first_line);
	for (uint64_t n = p.first_line; n < line && off < t->text.size; n++)
		off = tkv_line_next(&t->text, off);
	return off;
}

static bool has_backref(const char *re)
{
	for (const char *p = re; *p; p++)
		if (*p == '\\' && p[1]) {
			if (p[1] >= '1' && p[1] <= '9')
				return true;
			p++;
		}
	return false;
}

/* The first match in [a, b) at or after a: 0 with *m set, else 1. */
static int match_in(const regex_t *rx, const char *base, uint64_t a, uint64_t b, regmatch_t *m)
{
	m->rm_so = (regoff_t)a;
	m->rm_eo = (regoff_t)b;
	return regexec(rx, base, 1, m, REG_STARTEND) == 0 ? 0 : 1;
}

/* A trace without text: its lines are rendered one at a time (textfile.h),
 * line L at text offset L - 1, and searched in turn. */
static json_t *search_rendered(tks_trace *t, const regex_t *rx, bool have_from, uint64_t from,
			       bool forward, uint64_t end_line)
{
	uint64_t lines = t->text.size;
	if (!have_from && !forward)
		from = end_line;
	if (from > lines + 1)
		from = lines + 1;
	double t0 = now_ms();
	for (uint64_t line = forward ? from + 1 : from - 1; line >= 1 && line <= lines;
	     line = forward ? line + 1 : line - 1) {
		size_t len;
		const char *text = tkv_line_text(&t->text, line - 1, 1, &len);
		regmatch_t m = {.rm_so = 0, .rm_eo = (regoff_t)len};
		if (regexec(rx, text, 1, &m, REG_STARTEND) == 0)
			return json_pack("{s:b,s:I,s:[I,I]}", "found", true, "line", (json_int_t)line,
					 "match", (json_int_t)m.rm_so, (json_int_t)m.rm_eo);
		if ((line & 1023) == 0 && now_ms() - t0 > SEARCH_BUDGET_MS)
			return json_pack("{s:b,s:b,s:I}", "found", false, "done", false, "from",
					 (json_int_t)line);
	}
	return json_pack("{s:b,s:b}", "found", false, "done", true);
}

json_t *tks_api_search(tks_server *s, tks_trace *t, const tks_request *rq, tks_error *e)
{
	const char *re, *dir = "next", *icase = NULL;
	uint64_t from = 0;
	int r = tks_param_str(rq, "re", TKS_MAX_REGEX, &re, e);
	if (r <= 0)
		return r ? NULL : tks_fail(e, 400, "parameter 're' is missing");
	int have_from = tks_param_u64(rq, "from", &from, e);
	if (have_from < 0 || tks_param_str(rq, "dir", 8, &dir, e) < 0 ||
	    tks_param_str(rq, "icase", 8, &icase, e) < 0)
		return NULL;
	bool forward = !strcmp(dir, "next");
	if (!forward && strcmp(dir, "prev"))
		return tks_fail(e, 400, "parameter 'dir': next or prev");
	if (!*re)
		return tks_fail(e, 400, "parameter 're' is empty");
	if (has_backref(re))
		return tks_fail(e, 400, "back-references (\\1...) are not supported in searches");
	regex_t rx;
	int flags = REG_EXTENDED | REG_NEWLINE | (icase && strcmp(icase, "0") ? REG_ICASE : 0);
	int rc = regcomp(&rx, re, flags);
	if (rc) {
		char msg[128];
		regerror(rc, &rx, msg, sizeof msg);
		return tks_fail(e, 400, "parameter 're': %s", msg);
	}
	uint64_t end_line = tks_end_line(t), size = t->text.size;
	const char *base = t->text.data;
	if (t->text.render) {
		json_t *j = search_rendered(t, &rx, have_from, from, forward, end_line);
		regfree(&rx);
		return j ? j : tks_fail(e, 500, "out of memory");
	}
	if (!base && size) {
		regfree(&rx);
		return tks_fail(e, 501, "search reads the trace's text mapped in memory: not "
				"available on a compressed trace");
	}
	if (!have_from && !forward)
		from = end_line;	/* backwards from the end */
	if (from > end_line)
		from = end_line;
	double t0 = now_ms();
	json_t *out = NULL;
	regmatch_t m;
	if (forward) {
		/* Lines after `from`. */
		uint64_t line = from + 1, a = line_offset(t, line);
		while (a < size) {
			uint64_t b = a + SLICE < size ? a + SLICE : size;
			if (b < size) {	/* end the slice at a line boundary */
				const char *nl = memchr(base + b, '\n', (size_t)(size - b));
				b = nl ? (uint64_t)(nl - base) + 1 : size;
			}
			if (match_in(&rx, base, a, b, &m) == 0) {
				uint64_t ml = line + count_nl(base + a, (uint64_t)m.rm_so - a);
				uint64_t ls = (uint64_t)m.rm_so;
				while (ls > 0 && base[ls - 1] != '\n')
					ls--;
				out = json_pack("{s:b,s:I,s:[I,I]}", "found", true, "line", (json_int_t)ml,
						"match", (json_int_t)(m.rm_so - (regoff_t)ls),
						(json_int_t)(m.rm_eo - (regoff_t)ls));
				break;
			}
			line += count_nl(base + a, b - a);
			a = b;
			if (a < size && now_ms() - t0 > SEARCH_BUDGET_MS) {
				out = json_pack("{s:b,s:b,s:I}", "found", false, "done", false, "from",
						(json_int_t)(line - 1));
				break;
			}
		}
	} else {
		/* Lines before `from`: slices backwards, the last match in each. */
		uint64_t b = line_offset(t, from ? from : 1), line_b = from ? from : 1;
		if (line_b == end_line)
			b = size;
		while (b > 0) {
			uint64_t a = b > SLICE ? b - SLICE : 0;
			while (a > 0 && base[a - 1] != '\n')
				a--;
			/* A last line without a newline counts too. */
			uint64_t line_a = line_b - count_nl(base + a, b - a) -
					  (b == size && base[size - 1] != '\n' ? 1 : 0);
			uint64_t at = a, best = UINT64_MAX;
			regmatch_t bm = {0, 0};
			while (at < b && match_in(&rx, base, at, b, &m) == 0) {
				best = (uint64_t)m.rm_so;
				bm = m;
				const char *nl = memchr(base + m.rm_so, '\n', (size_t)(b - (uint64_t)m.rm_so));
				at = nl ? (uint64_t)(nl - base) + 1 : b;
			}
			if (best != UINT64_MAX) {
				uint64_t ml = line_a + count_nl(base + a, best - a);
				uint64_t ls = best;
				while (ls > 0 && base[ls - 1] != '\n')
					ls--;
				out = json_pack("{s:b,s:I,s:[I,I]}", "found", true, "line", (json_int_t)ml,
						"match", (json_int_t)(bm.rm_so - (regoff_t)ls),
						(json_int_t)(bm.rm_eo - (regoff_t)ls));
				break;
			}
			b = a;
			line_b = line_a;
			if (b > 0 && now_ms() - t0 > SEARCH_BUDGET_MS) {
				out = json_pack("{s:b,s:b,s:I}", "found", false, "done", false, "from",
						(json_int_t)line_b);
				break;
			}
		}
	}
	regfree(&rx);
	if (!out)
		out = json_pack("{s:b,s:b}", "found", false, "done", true);
	return out;
}
