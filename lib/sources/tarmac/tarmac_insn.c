/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Tarmac instruction lines (IT, IS, ES).
 *
 *   IT (index) address encoding state mode : disassembly
 *   IT (address) encoding state mode : disassembly
 *   IT (address:serial) address encoding state : disassembly   (Cortex-M/R RTL)
 *   IT address encoding disassembly                 (no state: --implicit-thumb)
 *   ES (address:encoding) state mode: [CCFAIL] disassembly
 *
 * The address may carry a physical address and the address of the second
 * halfword ("0000815c:00000000815c_NS,00000000815e_NS"); both are ignored.
 * The mode and even the state may be missing; the encoding may be "--------"
 * when the fetch failed.
 */
#include "tarmac_impl.h"
#include "tracekit/error.h"

/* "A", "T", "O" and the longer "A32", "T16", "T32", "A64". */
static tk_isa state_isa(tk_tok t)
{
	if (t.n == 1) {
		switch (t.s[0]) {
		case 'A': return TK_ISA_A32;
		case 'T': return TK_ISA_T32;
		case 'O': return TK_ISA_A64;
		}
	} else if (t.n == 3) {
		if (TK_TOK_EQ(t, "A32"))
			return TK_ISA_A32;
		if (TK_TOK_EQ(t, "T16") || TK_TOK_EQ(t, "T32"))
			return TK_ISA_T32;
		if (TK_TOK_EQ(t, "A64"))
			return TK_ISA_A64;
	}
	return TK_ISA_UNKNOWN;
}

static bool all_dashes(tk_tok t)
{
	for (size_t i = 0; i < t.n; i++)
		if (t.s[i] != '-')
			return false;
	return t.n > 0;
}

/* A hex number, by the fast path if it can. */
static bool hex_addr(tk_lex *l, uint64_t *v)
{
	size_t nd;
	return tk_lex_hexword(l, v, &nd) || tk_tok_addr(tk_lex_next(l), v);
}

/* address [":" physical] ["," second-halfword-physical] */
static bool address(tk_lex *l, uint64_t *pc)
{
	uint64_t phys;
	if (!hex_addr(l, pc))
		return false;
	const char *save = l->p;
	if (tk_lex_punct(l, ':') && hex_addr(l, &phys)) {
		save = l->p;
		if (tk_lex_punct(l, ',') && hex_addr(l, &phys))
			save = l->p;
	}
	l->p = save;
	return true;
}

/* Is the next token a state letter, ':' or the end of the line? */
static bool state_follows(tk_lex *l)
{
	tk_tok t = tk_lex_peek(l);
	return t.n == 0 || tk_tok_is(t, ':') || state_isa(t) != TK_ISA_UNKNOWN;
}

typedef struct encoding {
	tk_tok tok;		/* as written */
	uint32_t value;
	bool known;		/* false: "--------" */
} encoding;

/* An encoding: 4 or 8 hex digits, or dashes.  Returns false if the next
 * word is not one (it is consumed all the same, in e->tok). */
static bool read_encoding(tk_lex *l, encoding *e)
{
	uint64_t v;
	size_t nd;
	tk_lex_ws(l);
	const char *start = l->p;
	if (tk_lex_hexword(l, &v, &nd)) {
		e->tok = (tk_tok){start, nd};
		e->value = (uint32_t)v;
		e->known = true;
		return nd == 4 || nd == 8;
	}
	e->tok = tk_lex_next(l);
	e->known = false;
	return all_dashes(e->tok);
}

/* The usual "(index) address encoding " (both of 8 hex digits, one space
 * between): read in one go, as the general path would read it.  Else
 * nothing consumed. */
static bool usual_insn(tk_lex *l, uint64_t *pc, encoding *e)
{
	tk_lex_ws(l);
	const char *q = l->p, *end = l->end;
	if (q == end || *q != '(')
		return false;
	do
		q++;
	while (q < end && tk_is_digit((unsigned char)*q));
	uint32_t a, v;
	if (end - q < 19 || q == l->p + 1 || q[0] != ')' || q[1] != ' ' || q[10] != ' ' ||
	    (end - q > 19 && !tk_is_space((unsigned char)q[19])) || !tk_simd_hex8(q + 2, &a) ||
	    !tk_simd_hex8(q + 11, &v))
		return false;
	*pc = a;
	e->tok = (tk_tok){q + 11, 8};
	e->value = v;
	e->known = true;
	l->p = q + 19;
	return true;
}

int tk_tarmac_insn(tk_tarmac_parser *p, tk_lex *l, tk_tok type)
{
	bool es = type.s[0] == 'E';
	bool executed = es || type.s[1] == 'T';
	uint64_t pc;
	encoding enc = {0};
	bool enc_ok;

	if (!es && usual_insn(l, &pc, &enc)) {
		enc_ok = true;
	} else if (es) {
		if (!tk_lex_punct(l, '('))
			return 1;	/* "ES EXC [0x00] Reset", "ES Reset" */
		tk_lex_ws(l);
		tk_tok a = tk_lex_peek(l);
		if (!hex_addr(l, &pc))
			return tk_tarmac_fail_tok(p, "ES line: address", a, "is not a hex number");
		if (!tk_lex_punct(l, ':'))
			return tk_tarmac_fail(p, "ES line: expected ':' between address and encoding");
		enc_ok = read_encoding(l, &enc);
		if (!tk_lex_punct(l, ')'))
			return tk_tarmac_fail(p, "ES line: expected ')' after the encoding");
	} else if (tk_lex_punct(l, '(')) {
		/* "(index) address encoding" if an address and an encoding
		 * follow the ')'; else "(address) encoding", but only if a state
		 * letter comes next (so garbage is not taken for it). */
		tk_tok a = tk_lex_next(l);
		bool serial = tk_lex_punct(l, ':');	/* "(address:serial)" */
		if (serial)
			tk_lex_next(l);
		if (!tk_lex_punct(l, ')'))
			return tk_tarmac_fail(p, "instruction line: '(' without ')'");
		const char *save = l->p;
		bool addr_ok = address(l, &pc);
		enc_ok = addr_ok && read_encoding(l, &enc);
		if (!enc_ok && !serial && tk_tok_addr(a, &pc)) {
			encoding enc2;
			l->p = save;
			if (read_encoding(l, &enc2) && state_follows(l)) {
				enc = enc2;
				enc_ok = true;
			}
		}
		if (!enc_ok && !addr_ok)
			return tk_tarmac_fail(p, "instruction line: expected an address and an encoding");
	} else {
		tk_lex_ws(l);
		tk_tok a = tk_lex_peek(l);
		if (!address(l, &pc))
			return tk_tarmac_fail_tok(p, "instruction line: address", a, "is not a hex number");
		enc_ok = read_encoding(l, &enc);
	}
	if (!enc_ok)
		return tk_tarmac_fail_tok(p, "instruction line: encoding", enc.tok,
					  "is not 4 or 8 hex digits");

	/* Built in place: the event slot, taken only at the end. */
	tk_insn *in = &p->ev[p->nev].u.insn;
	*in = (tk_insn){0};
	in->pc = pc;
	in->executed = executed;
	in->branch = TK_BR_UNKNOWN;

	/* [state] [[mode] ':'] disassembly */
	const char *save = l->p;
	in->isa = state_isa(tk_lex_next(l));
	if (in->isa == TK_ISA_UNKNOWN)
		l->p = save;
	save = l->p;
	tk_tok m = tk_lex_next(l);
	if (tk_tok_is(m, ':')) {
		m.n = 0;
	} else if (!(tk_tok_is_word(m) && tk_lex_punct(l, ':'))) {
		l->p = save;
		m.n = 0;
	}
	in->mode = m.s;
	in->mode_len = m.n;

	tk_lex_ws(l);
	if (es && l->end - l->p >= 6 && l->p[0] == 'C') {
		save = l->p;
		if (TK_TOK_EQ(tk_lex_next(l), "CCFAIL")) {
			in->executed = false;
			tk_lex_ws(l);
		} else {
			l->p = save;
		}
	}
	in->disasm = l->p;
	in->disasm_len = (size_t)(l->end - l->p);

	if (in->isa == TK_ISA_UNKNOWN) {
		/* No state letter.  Only Thumb has 16-bit encodings. */
		if (p->opts.implicit_thumb || (enc.known && enc.tok.n == 4))
			in->isa = TK_ISA_T32;
		else
			p->missing_state = true;
	}
	if (enc.known && enc.tok.n != 8 && (in->isa == TK_ISA_A32 || in->isa == TK_ISA_A64))
		return tk_tarmac_fail_tok(p, "instruction line: encoding", enc.tok,
					  "is not 8 hex digits, as Arm and AArch64 ones are");
	if (enc.known) {
		in->width = (uint8_t)(enc.tok.n / 2);
		tk_insn_set_encoding(in, enc.value, in->width);
	}
	else if (in->isa == TK_ISA_A32 || in->isa == TK_ISA_A64)
		in->width = 4;
	if (in->isa != TK_ISA_UNKNOWN)
		p->last_isa = in->isa;

	tk_tarmac_event(p, TK_EV_INSN);
	return 0;
}
