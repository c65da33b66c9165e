/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: the text and events of trace lines (tks_read_lines).
 *
 * The index records where each position's group of lines starts (line
 * number and byte offset); a line inside a group is found by walking the
 * group's lines in the mapped text.  Each group is parsed from its
 * instruction line on, with a parser of this request's own (parsers keep
 * state between lines: the last timestamp, the execution state that names
 * s/d registers), so answers never depend on earlier requests.
 */
#include <stdlib.h>

#include "serve.h"
#include "tracekit/error.h"
#include "tracekit/tarmac.h"

/* Lines of a group parsed before the wanted ones at most: a group is one
 * instruction and its updates, but text lines can make one huge. */
#define MAX_LEAD_LINES 4096

uint64_t tks_end_line(const tks_trace *t)
{
	return t->info.lines + 1;
}

int tks_read_lines(tks_trace *t, uint64_t from, uint64_t count, tks_line_fn fn, void *ctx)
{
	uint64_t end = tks_end_line(t);
	if (from == 0)
		from = 1;
	if (from >= end || count == 0 || !t->ninsns)
		return 0;
	if (count > end - from)
		count = end - from;
	uint64_t to = from + count;

	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	o.implicit_thumb = tk_cli_has_source_opt(&t->cli, "implicit-thumb");
	o.big_endian = tk_cli_big_endian(&t->cli);
	tk_tarmac_parser *parser;
	int rc = tk_tarmac_parser_new(&o, &parser);
	if (rc)
		return rc;

	uint64_t pos;
	if (tk_index_find_line(t->idx, from, &pos)) {
		tk_tarmac_parser_free(parser);
		return TK_ERR_NOTFOUND;
	}
	uint64_t line = from;
	while (line < to && pos < t->ninsns) {
		tk_index_pos p;
		if ((rc = tk_index_get_pos(t->idx, pos, &p)))
			break;
		uint64_t off = tkv_pos_offset(&t->text, p.first_offset, p.first_line);
		uint64_t n = p.first_line;
		/* Position 0's group starts at line 1 with the lines before the
		 * first instruction; parse from the instruction line when the
		 * wanted lines are after it. */
		if (line >= p.line && p.line > n) {
			n = p.line;
			off = tkv_pos_offset(&t->text, p.offset, p.line);
		} else if (line > n + MAX_LEAD_LINES) {
			/* Skip most of a huge group without parsing it. */
			while (n < line - MAX_LEAD_LINES && off < t->text.size) {
				off = tkv_line_next(&t->text, off);
				n++;
			}
		}
		uint64_t gend = p.end_line < to ? p.end_line : to;
		while (n < gend && off < t->text.size) {
			uint64_t le = tkv_line_end(&t->text, off);
			const tk_event *evs = NULL;
			size_t nev = 0, len;
			const char *text = tkv_line_text(&t->text, off, (size_t)(le - off), &len);
			tk_tarmac_parse_line(parser, text, len, n, off, &evs, &nev);
			if (n >= line) {
				tks_line l = {
					.n = n, .text = text, .len = len,
					.pos = pos, .is_insn = n == p.line,
					.events = evs, .nevents = nev,
				};
				if (fn(ctx, &l)) {
					tk_tarmac_parser_free(parser);
					return 0;
				}
			}
			off = tkv_line_next(&t->text, off);
			n++;
		}
		line = gend;
		if (off >= t->text.size)
			break;
		pos++;
	}
	tk_tarmac_parser_free(parser);
	return rc;
}
