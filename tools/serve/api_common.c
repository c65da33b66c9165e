/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve: JSON pieces every answer uses (serve.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_out.h"
#include "serve.h"

json_t *tks_hex(uint64_t v)
{
	return tkj_hex(v);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

json_t *tks_text(const char *s, size_t len)
{
	/* Trace text is usually ASCII: copy only when a byte is not valid
	 * UTF-8 (or NUL), replacing it with '?'. */
	size_t i = 0;
	while (i < len) {
		size_t k = s[i] ? utf8_seq((const unsigned char *)s + i, len - i) : 0;
		if (!k)
			break;
		i += k;
	}
	if (i == len)
		return json_stringn_nocheck(s, len);
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	while (i < len) {
		size_t k = copy[i] ? utf8_seq((const unsigned char *)copy + i, len - i) : 0;
		if (!k) {
			copy[i] = '?';
			k = 1;
		}
		i += k;
	}
	json_t *j = json_stringn_nocheck(copy, len);
	free(copy);
	return j;
}

const char *tks_func_name(tks_trace *t, uint64_t addr, char *buf, size_t size)
{
	const tk_symbol *s = t->cli.symtab ? tk_symtab_containing(t->cli.symtab, addr) : NULL;
	if (!s)
		return NULL;
	if (s->addr == addr)
		snprintf(buf, size, "%s", s->name);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, s->name, addr - s->addr);
	return buf;
}

json_t *tks_position_json(tks_trace *t, uint64_t pos)
{
	tk_index_pos p;
	uint32_t call = 0;
	if (tk_index_get_pos(t->idx, pos, &p))
		return NULL;
	tk_index_call_at(t->idx, pos, &call);
	json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:s,s:i,s:b,s:I}",
			      "insn", (json_int_t)pos, "line", (json_int_t)p.line,
			      "first_line", (json_int_t)p.first_line,
			      "end_line", (json_int_t)p.end_line, "time", (json_int_t)p.time,
			      "pc", tks_hex(p.pc), "isa", tk_isa_name(p.isa), "width", p.width,
			      "executed", p.executed, "call", (json_int_t)call);
	if (j && p.nbytes) {
		char enc[40];
		snprintf(enc, sizeof enc, "%0*llx", p.nbytes * 2, (unsigned long long)p.encoding);
		json_object_set_new(j, "encoding", json_string(enc));
	}
	return j;
}

void tks_call_lines(tks_trace *t, uint32_t c, uint64_t *first, uint64_t *end)
{
	tk_index_call_pos cp;
	tk_index_pos a, b;
	*first = *end = 0;
	if (tk_index_get_call_pos(t->idx, c, &cp) || tk_index_get_pos(t->idx, cp.entry, &a) ||
	    tk_index_get_pos(t->idx, cp.exit, &b))
		return;
	*first = a.line;
	*end = b.end_line;
}
