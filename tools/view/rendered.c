/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers: the lines of a trace that has no text (Intel PT,
 * Qtrace, HTM dumps, trace-buffer dumps), rendered from its index.
 *
 * A binary source numbers its records 1, 2, ... as a text trace numbers
 * its lines, and the index keeps every step's record number, time, pc,
 * context and bytes.  So the browsers read such a trace as text whose
 * "offsets" are record numbers minus one: line L is rendered from the
 * position whose record is L (see textfile.h, tkv_pos_offset).
 *
 * An instruction:  TIME  CONTEXT  PC  BYTES  DISASSEMBLY
 * A function event: TIME  CONTEXT  CALL|RETURN  ADDR  NAME
 * A record that is no step (the suffix record of a POWER prefixed
 * instruction, a record the index skipped) is shown as "(record N)".
 */
#include "rendered.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/ppc.h"
#include "tracekit/pt.h"

struct tkv_render {
	const tk_index *idx;
	char ctx_name[16];
	tk_ppc_disasm *ppc;	/* made on the first POWER instruction */
	bool ppc_failed;
	char buf[512];
};

int tkv_render_new(const tk_index *idx, tkv_render **out)
{
	tkv_render *r = calloc(1, sizeof *r);
	if (!r)
		return TK_ERR_NOMEM;
	r->idx = idx;
	tk_index_info info = {.size = sizeof info};
	const char *name = "cpu";
	if (tk_index_get_info(idx, &info) == 0 && info.context_name)
		name = info.context_name;
	snprintf(r->ctx_name, sizeof r->ctx_name, "%s", name);
	*out = r;
	return 0;
}

void tkv_render_free(tkv_render *r)
{
	if (!r)
		return;
	if (r->ppc)
		tk_ppc_disasm_free(r->ppc);
	free(r);
}

/* Branch targets as 0x..., which the browsers name (tkv_symbolise). */
static size_t ppc_target(void *ctx, uint64_t addr, char *buf, size_t size)
{
	(void)ctx;
	int n = snprintf(buf, size, "0x%" PRIx64, addr);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* The disassembly of a step, into buf; 0 if there is none to give. */
static size_t disasm(tkv_render *r, const tk_index_pos *p, char *buf, size_t size)
{
	if (p->isa == TK_ISA_X86_64 && p->nbytes) {
		int n = tk_pt_disasm(p->bytes, p->nbytes, p->pc, false, buf, size);
		return n > 0 ? (size_t)n : 0;
	}
	if (p->isa == TK_ISA_PPC64 && (p->width == 4 || p->width == 8)) {
		if (!r->ppc && !r->ppc_failed && tk_ppc_disasm_new(ppc_target, NULL, &r->ppc) < 0)
			r->ppc_failed = true;
		if (!r->ppc)
			return 0;
		uint32_t w[2];
		unsigned nw = p->width / 4;
		if (nw == 2) {
			w[0] = (uint32_t)(p->encoding >> 32);
			w[1] = (uint32_t)p->encoding;
		} else {
			w[0] = (uint32_t)p->encoding;
		}
		return tk_ppc_disasm_insn(r->ppc, p->pc, w, nw, buf, size);
	}
	return 0;
}

static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	if (*n >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

const char *tkv_render_line(tkv_render *r, uint64_t line, size_t *len)
{
	char *b = r->buf;
	size_t n = 0, size = sizeof r->buf;
	uint64_t pos;
	tk_index_pos p;
	if (tk_index_find_line(r->idx, line, &pos) < 0 || tk_index_get_pos(r->idx, pos, &p) < 0 ||
	    p.line != line) {
		append(b, size, &n, "(record %" PRIu64 ")", line);
		*len = n;
		return b;
	}
	append(b, size, &n, "%10" PRIu64 "  %s%-3" PRIu32 " ", p.time,
	       strcmp(r->ctx_name, "cpu") ? "t" : "cpu", p.context);
	if (p.kind == TK_EV_CALL || p.kind == TK_EV_RETURN) {
		const char *name = tk_index_func_name(r->idx, p.pc);
		append(b, size, &n, " %-6s 0x%016" PRIx64 "%s%s", p.kind == TK_EV_CALL ? "CALL" : "RETURN",
		       p.pc, name ? "  " : "", name ? name : "");
		*len = n;
		return b;
	}
	append(b, size, &n, " %016" PRIx64 "  ", p.pc);
	/* The bytes in the order the machine holds them, padded so that the
	 * disassembly starts in one column. */
	unsigned shown = 0;
	for (unsigned i = 0; i < p.nbytes && i < 10; i++, shown++)
		append(b, size, &n, "%02x", p.bytes[i]);
	for (; shown < 10; shown++)
		append(b, size, &n, "  ");
	char text[256];
	size_t t = disasm(r, &p, text, sizeof text);
	if (t)
		append(b, size, &n, "  %.*s", (int)t, text);
	*len = n;
	return b;
}
