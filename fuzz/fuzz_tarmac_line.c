/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: libFuzzer target for the Tarmac line parser.
 *
 * The input is split into lines, each given to tk_tarmac_parse_line by two
 * fresh parsers (default options; implicit Thumb and big-endian), so the
 * state carried between lines (timestamps, LD/ST continuations) is fuzzed
 * too.  Beyond "no crash", every event must be self-consistent: pointers
 * inside the line or the parser, sizes within bounds.  Every byte an event
 * points at is read, so the sanitizers see any overread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/tarmac.h"

static volatile unsigned sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		sink += c[i];
}

static void check(const char *line, size_t len, const tk_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const tk_event *e = &ev[i];
		switch (e->kind) {
		case TK_EV_INSN:
			if (e->u.insn.width != 0 && e->u.insn.width != 2 && e->u.insn.width != 4)
				abort();
			touch(e->u.insn.mode, e->u.insn.mode_len);
			touch(e->u.insn.disasm, e->u.insn.disasm_len);
			if (e->u.insn.disasm_len &&
			    (e->u.insn.disasm < line || e->u.insn.disasm + e->u.insn.disasm_len > line + len))
				abort();
			break;
		case TK_EV_REG: {
			const tk_reg_view *v = &e->u.reg.view;
			if (v->len == 0 || v->len > TK_REG_MAX_BYTES)
				abort();
			if (v->reg != TK_REG_NONE && (v->reg >= TK_REG_COUNT ||
						      v->offset + v->len > tk_reg_size(v->reg)))
				abort();
			touch(e->u.reg.value, v->len);
			touch(e->u.reg.state, v->len);
			touch(e->u.reg.name, e->u.reg.name_len);
			for (unsigned k = 0; k < v->len; k++)
				if (e->u.reg.state[k] > TK_BYTE_UNKNOWN)
					abort();
			break;
		}
		case TK_EV_MEM:
			if (e->u.mem.size == 0 || e->u.mem.size > 64)
				abort();
			touch(e->u.mem.bytes, e->u.mem.size);
			touch(e->u.mem.state, e->u.mem.size);
			break;
		case TK_EV_TEXT:
			if (e->u.text.text < line || e->u.text.text + e->u.text.len > line + len)
				abort();
			touch(e->u.text.kind, e->u.text.kind_len);
			touch(e->u.text.text, e->u.text.len);
			break;
		default:
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tk_tarmac_parser *p[2];
	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	if (tk_tarmac_parser_new(&o, &p[0]) < 0)
		return 0;
	o.implicit_thumb = true;
	o.big_endian = true;
	if (tk_tarmac_parser_new(&o, &p[1]) < 0) {
		tk_tarmac_parser_free(p[0]);
		return 0;
	}
	/* A copy of exactly the input, so overreads past a line are caught. */
	char *buf = malloc(size ? size : 1);
	if (buf) {
		memcpy(buf, data, size);
		const char *s = buf, *end = buf + size;
		uint64_t lineno = 0;
		while (s < end) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
			lineno++;
			for (int k = 0; k < 2; k++) {
				const tk_event *ev;
				size_t n;
				int rc = tk_tarmac_parse_line(p[k], s, len, lineno, (uint64_t)(s - buf), &ev, &n);
				if (rc != 0 && rc != TK_ERR_PARSE)
					abort();
				if (rc == TK_ERR_PARSE && (n != 1 || !tk_tarmac_parser_error(p[k])[0]))
					abort();
				check(s, len, ev, n);
			}
			s += len + 1;
		}
		free(buf);
	}
	tk_tarmac_parser_free(p[0]);
	tk_tarmac_parser_free(p[1]);
	return 0;
}
