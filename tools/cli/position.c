/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: positions written on the command line (see position.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "position.h"

static bool number(const char *s, size_t len, uint64_t *v)
{
	char buf[32], *end;
	if (!len || len >= sizeof buf || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
	errno = 0;
	unsigned long long x = strtoull(hex ? buf + 2 : buf, &end, hex ? 16 : 10);
	if (errno || *end || (hex && !buf[2]))
		return false;
	*v = x;
	return true;
}

static int pc_visit(const tk_cli *cli, const tk_index *idx, const char *text, uint64_t *pos,
		    char *msg, size_t size)
{
	const char *spec = text + 3;
	const char *at = strchr(spec, '@');
	size_t alen = at ? (size_t)(at - spec) : strlen(spec);
	uint64_t addr, n = 1;
	if (at && (!number(at + 1, strlen(at + 1), &n) || n == 0)) {
		snprintf(msg, size, "'%s': the visit after '@' must be a number from 1", text);
		return -1;
	}
	if (!number(spec, alen, &addr)) {
		char name[256];
		if (alen == 0 || alen >= sizeof name) {
			snprintf(msg, size, "'%s': no address after 'pc:'", text);
			return -1;
		}
		memcpy(name, spec, alen);
		name[alen] = 0;
		const tk_symbol *s = tk_symtab_find(cli->symtab, name);
		if (!s) {
			snprintf(msg, size, cli->symtab ? "'%s': no symbol '%s' in the image"
							 : "'%s': '%s' is not an address (symbols need --image)",
				 text, name);
			return -1;
		}
		addr = s->addr;
	}
	uint64_t p = TK_POS_NONE, seen = 0;
	while (seen < n && tk_index_find_pc(idx, p, addr, true, &p) == 0)
		seen++;
	if (seen < n) {
		if (seen == 0)
			snprintf(msg, size, "'%s': the trace never executes 0x%llx", text,
				 (unsigned long long)addr);
		else
			snprintf(msg, size, "'%s': 0x%llx is executed only %llu time%s", text,
				 (unsigned long long)addr, (unsigned long long)seen, seen == 1 ? "" : "s");
		return -1;
	}
	*pos = p;
	return 0;
}

int tk_cli_position(const tk_cli *cli, const tk_index *idx, const char *text, uint64_t *pos,
		    char *msg, size_t size)
{
	uint64_t count = tk_index_count(idx), v;
	if (!count) {
		snprintf(msg, size, "'%s': the trace has no instructions", text);
		return -1;
	}
	if (!strcmp(text, "end")) {
		*pos = count - 1;
		return 0;
	}
	if (text[0] == '#') {
		if (!number(text + 1, strlen(text + 1), &v) || v >= count) {
			snprintf(msg, size, "'%s': positions go from #0 to #%llu", text,
				 (unsigned long long)count - 1);
			return -1;
		}
		*pos = v;
		return 0;
	}
	if (!strncmp(text, "t:", 2)) {
		if (!number(text + 2, strlen(text + 2), &v)) {
			snprintf(msg, size, "'%s': not a time", text);
			return -1;
		}
		if (tk_index_find_time(idx, v, pos) != 0) {
			snprintf(msg, size, "'%s': no instruction at or after that time", text);
			return -1;
		}
		return 0;
	}
	if (!strncmp(text, "pc:", 3))
		return pc_visit(cli, idx, text, pos, msg, size);
	if (number(text, strlen(text), &v)) {
		if (tk_index_find_line(idx, v, pos) != 0) {
			snprintf(msg, size, "'%s': no such line with an instruction", text);
			return -1;
		}
		return 0;
	}
	snprintf(msg, size, "'%s' is not a position (LINE, #N, end, t:TIME or pc:ADDR[@N])", text);
	return -1;
}
