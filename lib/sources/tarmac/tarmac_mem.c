/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Tarmac memory access lines.
 *
 * Contiguous lines: TYPE [X] [(insn:serial)] virt[:phys] contents | (ABORTED)
 *   TYPE is M?[RW]0?SIZE X? ("MR4", "R04", "MW8X"), or an RTL M-line with a
 *   letter before R/W and flags after the size ("MNW4___D", "MSW4___D"), or
 *   the Cadence form "MR4_D".  A final 'I' flag ("MNR4O__I", "MR2_I") marks
 *   an instruction fetch, which is kept as text.
 *   Contents are the logical value (most significant digit first), stored in
 *   memory according to the trace's endianness (tk_tarmac_opts.big_endian),
 *   except in RTL M-lines, which show the bytes in memory order: the first
 *   two digits are the byte at the address (so the endianness option does
 *   not apply to them).
 *
 * Diagrammatic lines: LD|ST address diagram extra-info
 *   The diagram is 16 bytes, little-endian: the rightmost pair is the byte
 *   at the address.  ".." is a byte not accessed, "##" one accessed with an
 *   unknown value.  One event per run of accessed bytes, lowest first.  The
 *   extra info may give the physical address of the base ("S:007ff80fe0",
 *   "NS:...", or a bare hex word); it is used when present.
 */
#include "tarmac_impl.h"
#include "tracekit/error.h"

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

bool tk_tarmac_memtype(tk_tok t, tk_memtype *mt)
{
	const char *s = t.s;
	size_t n = t.n, i = 0;
	bool m = false;

	*mt = (tk_memtype){0};
	if (n && s[0] == 'M') {
		m = true;
		i = 1;
		/* RTL: "MNW4___D" */
		if (n > 2 && s[1] != 'R' && s[1] != 'W' && is_upper(s[1]) && (s[2] == 'R' || s[2] == 'W')) {
			mt->memory_order = true;
			i = 2;
		}
	}
	if (i >= n || (s[i] != 'R' && s[i] != 'W'))
		return false;
	mt->write = s[i++] == 'W';
	if (i < n && s[i] == '0')
		i++;
	unsigned size = 0, digits = 0;
	while (i < n && tk_is_digit((unsigned char)s[i]) && digits < 3) {
		size = size * 10 + (unsigned)(s[i++] - '0');
		digits++;
	}
	if (size == 0 || size > 64 || (size & (size - 1)))
		return false;
	mt->size = size;
	if (i == n)
		return true;
	if (i + 1 == n && s[i] == 'X') {
		mt->exclusive = true;
		return true;
	}
	if (!m)
		return false;
	/* Flags of the RTL and Cadence forms: letters and '_'. */
	for (size_t j = i; j < n; j++)
		if (!is_upper(s[j]) && s[j] != '_')
			return false;
	mt->fetch = s[n - 1] == 'I';
	return true;
}

static tk_event *mem_event(tk_tarmac_parser *p, uint64_t addr, uint32_t size, bool write)
{
	tk_event *e = tk_tarmac_event(p, TK_EV_MEM);
	tk_mem_access *m = &e->u.mem;
	*m = (tk_mem_access){0};
	m->addr = addr;
	m->size = size;
	m->write = write;
	m->bytes = p->mem;
	m->state = p->mem_state;
	return e;
}

int tk_tarmac_mem(tk_tarmac_parser *p, tk_lex *l, const tk_memtype *mt)
{
	bool exclusive = mt->exclusive;
	tk_lex_ws(l);
	if (l->end - l->p >= 2 && l->p[0] == 'X' && !tk_is_word((unsigned char)l->p[1])) {
		exclusive = true;	/* "W04 X ffffffbdc3c15c30 010c010b" */
		l->p++;
	}
	/* "(00000050:000000a8)": address and serial number of the instruction */
	if (tk_lex_punct(l, '(')) {
		while (l->p < l->end && *l->p != ')')
			l->p++;
		if (l->p == l->end)
			return tk_tarmac_fail(p, "memory line: '(' without ')'");
		l->p++;
	}

	uint64_t addr, paddr = 0;
	size_t nd;
	tk_tok a = {0};
	if (!tk_lex_hexword(l, &addr, &nd) && !tk_tok_addr(a = tk_lex_next(l), &addr)) {
		if (mt->memory_order && tk_tok_is_word(a))
			return 1;	/* "MCW4___R (...) TRANSFER 00000000": not memory */
		return tk_tarmac_fail_tok(p, "memory line: address", a, "is not a hex number");
	}
	bool has_paddr = false;
	if (tk_lex_punct(l, ':')) {
		has_paddr = true;
		if (!tk_lex_hexword(l, &paddr, &nd)) {
			tk_tok pa = tk_lex_next(l);
			if (!tk_tok_addr(pa, &paddr))
				return tk_tarmac_fail_tok(p, "memory line: physical address", pa,
							  "is not a hex number");
		}
	}

	uint32_t size = mt->size;
	if (tk_lex_punct(l, '(')) {
		if (!TK_TOK_EQ(tk_lex_next(l), "ABORTED") || !tk_lex_punct(l, ')'))
			return tk_tarmac_fail(p, "memory line: expected contents or '(ABORTED)'");
		tk_event *e = mem_event(p, addr, size, mt->write);
		for (uint32_t i = 0; i < size; i++) {
			p->mem[i] = 0;
			p->mem_state[i] = TK_BYTE_NONE;
		}
		e->u.mem.exclusive = exclusive;
		e->u.mem.aborted = true;
		e->u.mem.paddr = paddr;
		e->u.mem.has_paddr = has_paddr;
		return 0;
	}

	tk_tok bad;
	const char *why;
	int n = tk_lex_contents(l, size, p->val, p->state, &bad, &why);
	if (n < 0)
		return tk_tarmac_fail_tok(p, "memory line: contents", bad, why);
	if ((uint32_t)n > size)
		return tk_tarmac_fail(p, "memory line: contents have %d bytes, more than the %u of the access",
				      n, size);
	if ((uint32_t)n < size) {
		if (mt->memory_order)
			return tk_tarmac_fail(p, "memory line: contents have %d bytes, expected %u", n, size);
		for (uint32_t k = (uint32_t)n; k < size; k++) {
			p->val[k] = 0;
			p->state[k] = TK_BYTE_SET;
		}
	}
	bool reverse = mt->memory_order || p->opts.big_endian;
	for (uint32_t i = 0; i < size; i++) {
		uint32_t k = reverse ? size - 1 - i : i;
		p->mem[i] = p->val[k];
		p->mem_state[i] = p->state[k];
	}
	tk_event *e = mem_event(p, addr, size, mt->write);
	e->u.mem.exclusive = exclusive;
	e->u.mem.paddr = paddr;
	e->u.mem.has_paddr = has_paddr;
	return 0;
}

/* Physical address of the diagram in the extra info, if it gives one. */
static bool ldst_paddr(tk_lex *l, uint64_t *paddr)
{
	tk_tok t = tk_lex_next(l);
	if (tk_lex_punct(l, ':')) {
		if (!(TK_TOK_EQ(t, "S") || TK_TOK_EQ(t, "NS")))
			return false;
		t = tk_lex_next(l);
	}
	return tk_tok_hex64(t, paddr);
}

int tk_tarmac_ldst(tk_tarmac_parser *p, tk_lex *l, bool write, bool quiet)
{
	uint64_t addr;
	size_t nd;
	tk_tok a = {0};
	if (!tk_lex_hexword(l, &addr, &nd) && !tk_tok_addr(a = tk_lex_next(l), &addr))
		return quiet ? 1 : tk_tarmac_fail_tok(p, write ? "ST line: address" : "LD line: address",
						      a, "is not a hex number");

	char diagram[32];
	size_t got = 0;
	while (got < sizeof diagram) {
		tk_tok w = tk_lex_next(l);
		bool ok = tk_tok_is_word(w) && w.n % 2 == 0 && got + w.n <= sizeof diagram;
		for (size_t i = 0; ok && i < w.n; i++)
			ok = tk_hexval((unsigned char)w.s[i]) >= 0 || w.s[i] == '.' || w.s[i] == '#';
		if (!ok) {
			if (quiet)
				return 1;
			if (!w.n)
				return tk_tarmac_fail(p, "%s line: memory diagram has %zu bytes, expected 16",
						      write ? "ST" : "LD", got / 2);
			return tk_tarmac_fail_tok(p, write ? "ST line: memory diagram word" :
						  "LD line: memory diagram word", w,
						  "is not whole bytes of hex digits, '..' or '##' within 16 bytes");
		}
		for (size_t i = 0; i < w.n; i++)
			diagram[got++] = w.s[i];
	}

	/* The rightmost pair is the byte at addr. */
	for (size_t i = 0; i < 16; i++) {
		const char *pair = diagram + 30 - 2 * i;
		int hi = tk_hexval((unsigned char)pair[0]), lo = tk_hexval((unsigned char)pair[1]);
		if (hi >= 0 && lo >= 0) {
			p->mem[i] = (uint8_t)(hi << 4 | lo);
			p->mem_state[i] = TK_BYTE_SET;
		} else if (pair[0] == '.' && pair[1] == '.') {
			p->mem[i] = 0;
			p->mem_state[i] = TK_BYTE_NONE;
		} else if (pair[0] == '#' && pair[1] == '#') {
			p->mem[i] = 0;
			p->mem_state[i] = TK_BYTE_UNKNOWN;
		} else {
			if (quiet)
				return 1;
			return tk_tarmac_fail(p, "%s line: byte '%.2s' of the memory diagram is not hex, '..' or '##'",
					      write ? "ST" : "LD", pair);
		}
	}

	uint64_t paddr = 0;
	bool has_paddr = ldst_paddr(l, &paddr);
	for (size_t i = 0; i < 16;) {
		if (p->mem_state[i] == TK_BYTE_NONE) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < 16 && p->mem_state[j] != TK_BYTE_NONE)
			j++;
		tk_event *e = mem_event(p, addr + i, (uint32_t)(j - i), write);
		e->u.mem.bytes = p->mem + i;
		e->u.mem.state = p->mem_state + i;
		e->u.mem.has_paddr = has_paddr;
		e->u.mem.paddr = paddr + i;
		i = j;
	}
	return 0;
}
