/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: Tarmac register lines.
 *
 *   R name [(extra-info)] contents [interpretation]
 *
 * The name may carry a banked suffix ("r13_svc") or a bit range
 * ("V0<127:64>"); see tk_reg_lookup.  Names tracekit does not model are kept
 * (view.reg = TK_REG_NONE) with the value as written; such a name may be
 * several words ("R DC CISW 00000000:00000000").
 *
 * The value is fitted to the view:
 *  - shorter than the view: zero-extended (a number written with fewer
 *    digits), except that if its top byte is "--" the missing bytes are "--"
 *    too ("R X1 --------" is a non-update).  The z and p registers are the
 *    exception: their size depends on the implementation's vector length, so
 *    the view shrinks to the bytes written.
 *  - longer: the extra high bytes must be zero or "--", else the line is
 *    malformed.  Except for psr: Fast Models write "cpsr" with extra status
 *    bits above bit 31 ("R cpsr 1220023cd"), which are not the PSR's and
 *    are dropped.
 */
#include <stdio.h>
#include <string.h>

#include "tarmac_impl.h"
#include "tracekit/error.h"

/* Every character a hex digit, '-', 'x' or '_': could be part of a value. */
static bool hexish(tk_tok t)
{
	for (size_t i = 0; i < t.n; i++) {
		unsigned char c = (unsigned char)t.s[i];
		if (tk_hexval(c) < 0 && c != '-' && c != '_' && c != 'x' && c != 'X')
			return false;
	}
	return t.n > 0;
}

static bool vector_length_reg(tk_reg r)
{
	return r >= TK_REG_Z0 && r < TK_REG_PSR;
}

/*
 * "wN" written while executing AArch32 code: the seed says some Tarmac
 * variants report AArch32 register updates this way, "via the
 * architecturally defined correspondence between the AArch32 and AArch64
 * registers".  That correspondence (Arm ARM, "Mapping of the AArch32
 * registers to AArch64") puts r0-r12 in x0-x12, sp_usr/lr_usr in x13/x14,
 * and the banked sp/lr of hyp, irq, svc, abt, und, and r8-r14 of fiq in
 * x15-x30.  tracekit maps banked registers to the register they bank
 * ("r14_irq" is r14), so wN is the AArch32 register below.  Without this,
 * an AArch32 trace in that style has no r13/r14 updates at all, and the
 * call detector (which reads r13/r14 in AArch32 code) finds no call.
 */
static const uint8_t w_to_r[31] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	13, 14,			/* x13 sp_usr, x14 lr_usr */
	13,			/* x15 sp_hyp */
	14, 13,			/* x16 lr_irq, x17 sp_irq */
	14, 13,			/* x18 lr_svc, x19 sp_svc */
	14, 13,			/* x20 lr_abt, x21 sp_abt */
	14, 13,			/* x22 lr_und, x23 sp_und */
	8, 9, 10, 11, 12,	/* x24-x28 r8_fiq-r12_fiq */
	13, 14,			/* x29 sp_fiq, x30 lr_fiq */
};

static void aarch32_w_view(tk_reg_view *view)
{
	if (view->reg >= TK_REG_X0 && view->reg < TK_REG_X0 + 31 && view->offset == 0 &&
	    view->len == 4) {
		view->reg = (tk_reg)(TK_REG_R0 + w_to_r[view->reg - TK_REG_X0]);
	}
}

/* Is the name "w" or "W" and a register number (not "wsp", "wzr")? */
static bool is_w_name(tk_tok name)
{
	return name.n >= 2 && name.n <= 3 && (name.s[0] == 'w' || name.s[0] == 'W') &&
	       tk_is_digit((unsigned char)name.s[1]) &&
	       (name.n == 2 || tk_is_digit((unsigned char)name.s[2]));
}

/* tk_reg_lookup(name, 0, a64) through the parser's cache of names. */
static bool lookup(tk_tarmac_parser *p, tk_tok name, int a64, tk_reg_view *view)
{
	if (name.n >= sizeof p->regnames[0].name)
		return tk_reg_lookup(name.s, name.n, 0, a64, view) == 0;
	unsigned h = ((unsigned char)name.s[0] * 31u + (unsigned char)name.s[name.n - 1] * 7u +
		      (unsigned char)name.s[name.n / 2] + (unsigned)name.n * 3u + (unsigned)a64) & 63;
	struct tk_tarmac_regname *c = &p->regnames[h];
	if (c->len == name.n && c->a64 == (a64 != 0) && !memcmp(c->name, name.s, name.n)) {
		*view = c->view;
		return c->known;
	}
	c->known = tk_reg_lookup(name.s, name.n, 0, a64, view) == 0;
	c->view = *view;
	c->a64 = a64 != 0;
	c->len = (uint8_t)name.n;
	memcpy(c->name, name.s, name.n);
	return c->known;
}

int tk_tarmac_reg(tk_tarmac_parser *p, tk_lex *l)
{
	tk_tok name = tk_lex_next(l);
	if (!tk_tok_is_word(name))
		return tk_tarmac_fail(p, "R line: register name is missing");

	/* "V0<127:64>": the bit range is part of the name. */
	if (l->p < l->end && *l->p == '<') {
		const char *q = l->p;
		while (q < l->end && *q != '>')
			q++;
		if (q == l->end)
			return tk_tarmac_fail(p, "R line: '<' without '>' after the register name");
		l->p = q + 1;
		name.n = (size_t)(l->p - name.s);
	}

	int a64 = p->last_isa == TK_ISA_A64 || (p->last_isa == TK_ISA_UNKNOWN && p->saw_a64_reg);
	tk_reg_view view;
	bool known = lookup(p, name, a64, &view);
	bool w32 = known && (p->last_isa == TK_ISA_A32 || p->last_isa == TK_ISA_T32) &&
		   is_w_name(name);
	if (w32)
		aarch32_w_view(&view);

	if (!known) {
		/* A name of several words: "DC CISW", "TLBI ALLE3". */
		for (;;) {
			const char *save = l->p;
			tk_tok w = tk_lex_next(l);
			if (!tk_tok_is_word(w) || hexish(w) || tk_lex_eol(l)) {
				l->p = save;
				break;
			}
			name.n = (size_t)(w.s + w.n - name.s);
		}
	}

	/* "(USR)", "(AARCH32)": ignored. */
	if (tk_lex_punct(l, '(')) {
		while (l->p < l->end && *l->p != ')')
			l->p++;
		if (l->p == l->end)
			return tk_tarmac_fail(p, "R line: '(' without ')' after the register name");
		l->p++;
	}

	size_t limit = TK_REG_MAX_BYTES;
	bool sp = known && (view.reg == TK_REG_R13 || view.reg == TK_REG_XSP);
	if (sp)
		limit = 8;
	else if (known)
		limit = vector_length_reg(view.reg) ? tk_reg_size(view.reg) : view.len;

	tk_tok bad;
	const char *why;
	int n = tk_lex_contents(l, limit, p->val, p->state, &bad, &why);
	if (n < 0) {
		char what[96];
		snprintf(what, sizeof what, "R line: %.*s value", name.n > 40 ? 40 : (int)name.n, name.s);
		return tk_tarmac_fail_tok(p, what, bad, why);
	}
	if (n == 0)
		return tk_tarmac_fail(p, "R line: %.*s has no value", name.n > 40 ? 40 : (int)name.n,
				      name.s);
	if (sp) {
		/* The value's width tells SP from WSP; a width the stack
		 * pointer cannot have keeps the first answer. */
		tk_reg_view wide;
		if (tk_reg_lookup(name.s, name.n, (unsigned)n, a64, &wide) == 0) {
			view = wide;
			if (w32)
				aarch32_w_view(&view);
		}
	}

	if (!known) {
		view.reg = TK_REG_NONE;
		view.offset = 0;
		view.len = (uint16_t)n;
	} else {
		if (vector_length_reg(view.reg) && (unsigned)n < view.len)
			view.len = (uint16_t)n;
		size_t len = view.len;
		if ((size_t)n < len) {
			uint8_t fill = p->state[n - 1] == TK_BYTE_NONE ? TK_BYTE_NONE : TK_BYTE_SET;
			for (size_t k = (size_t)n; k < len; k++) {
				p->val[k] = 0;
				p->state[k] = fill;
			}
		} else if (view.reg != TK_REG_PSR) {
			for (size_t k = len; k < (size_t)n; k++)
				if (p->state[k] != TK_BYTE_NONE &&
				    (p->state[k] != TK_BYTE_SET || p->val[k] != 0))
					return tk_tarmac_fail(p, "R line: %.*s value has %d bytes but the register has %zu",
							      name.n > 40 ? 40 : (int)name.n, name.s, n, len);
		}
		if (p->last_isa == TK_ISA_UNKNOWN && view.reg >= TK_REG_X0 && view.reg <= TK_REG_XSP)
			p->saw_a64_reg = true;
	}

	tk_event *e = tk_tarmac_event(p, TK_EV_REG);
	e->u.reg.view = view;
	e->u.reg.name = name.s;
	e->u.reg.name_len = name.n;
	e->u.reg.value = p->val;
	e->u.reg.state = p->state;
	return 0;
}
