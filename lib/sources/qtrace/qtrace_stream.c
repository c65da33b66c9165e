/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: text streams of executed POWER instructions ("EA WORD [DATA_EA]"
 * per line), the input of `tracekit qtwrite`. */
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *p (optional 0x); returns its digit count, 0 if none or
 * more than 16 digits. */
static unsigned hex_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	unsigned n = 0;
	uint64_t x = 0;
	while (s < end && hexval(*s) >= 0) {
		if (++n > 16)
			return 0;
		x = x << 4 | (uint64_t)hexval(*s++);
	}
	if (s < end && *s != ' ' && *s != '\t' && *s != '\r')
		return 0;	/* trailing garbage in the field */
	*p = s;
	*v = x;
	return n;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

int tk_qt_stream_parse(const char *line, size_t len, tk_qt_stream_insn *out, const char **why)
{
	const char *p = line, *end = line + len;
	memset(out, 0, sizeof *out);
	*why = NULL;
	p = skip_space(p, end);
	if (p == end || *p == '#')
		return 0;
	uint64_t ea, word;
	if (!hex_field(&p, end, &ea)) {
		*why = "expected a hex instruction address";
		return TK_ERR_PARSE;
	}
	p = skip_space(p, end);
	unsigned digits = hex_field(&p, end, &word);
	if (!digits) {
		*why = "expected a hex instruction word after the address";
		return TK_ERR_PARSE;
	}
	if (ea & 3) {
		*why = "the instruction address is not a multiple of 4";
		return TK_ERR_PARSE;
	}
	out->ea = ea;
	if (digits > 8) {
		out->words[0] = (uint32_t)(word >> 32);
		out->words[1] = (uint32_t)word;
		out->nwords = 2;
		if (!tk_ppc_is_prefix(out->words[0])) {
			*why = "a word of more than 8 digits must be a prefixed pair (prefix opcode 1)";
			return TK_ERR_PARSE;
		}
	} else {
		out->words[0] = (uint32_t)word;
		out->nwords = 1;
	}
	p = skip_space(p, end);
	if (p < end && *p != '#') {
		if (!hex_field(&p, end, &out->data_ea)) {
			*why = "expected a hex data address after the word";
			return TK_ERR_PARSE;
		}
		out->has_data_ea = true;
		p = skip_space(p, end);
		if (p < end && *p != '#') {
			*why = "unexpected text after the data address";
			return TK_ERR_PARSE;
		}
	}
	return 1;
}

unsigned tk_qt_stream_records(const tk_qt_stream_insn *in, tk_qt_record out[2])
{
	memset(out, 0, 2 * sizeof *out);
	uint32_t w = in->words[0];
	out[0].ea = in->ea;
	out[0].insn = w;
	if (in->has_data_ea) {
		out[0].valid |= TK_QT_DATA_EA;
		out[0].data_ea = in->data_ea;
	}
	if (tk_ppc_is_branch(w) || tk_ppc_is_rfi_like(w))
		out[0].valid |= TK_QT_BRANCH;
	if (tk_ppc_is_conditional_branch(w))
		out[0].valid |= TK_QT_CONDITIONAL;
	if (in->nwords != 2)
		return 1;
	out[1].ea = in->ea + 4;
	out[1].insn = in->words[1];
	return 2;
}
