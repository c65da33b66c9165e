/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): names in expressions (resolve.h). */
#include "resolve.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr.h"
#include "regsets.h"

int tkv_resolve_name(void *vctx, const char *name, size_t len, uint64_t *value,
		     char *err, size_t errlen)
{
	const tkv_scope *s = vctx;
	tk_reg_view view;
	char tmp[128];

	if (len >= sizeof tmp) {
		snprintf(err, errlen, "name too long");
		return -1;
	}
	memcpy(tmp, name, len);
	tmp[len] = '\0';
	if (!strcasecmp(tmp, "pc") && s->pc_pos != TK_POS_NONE) {
		tk_index_pos p;
		if (tk_index_get_pos(s->idx, s->pc_pos, &p) == 0) {
			*value = p.pc;
			return 0;
		}
	}
	/* The execution state of the position, not the last one shown. */
	bool a64 = s->a64;
	if (s->isa_pos != TK_POS_NONE) {
		int st = tkv_isa_a64(s->idx, s->isa_pos);
		if (st >= 0)
			a64 = st;
	}
	int found = tk_reg_lookup(name, len, 0, a64, &view);
	if (found == 0 && a64 && view.reg == TK_REG_R14)
		view = (tk_reg_view){TK_REG_X30, 0, 8};	/* lr is x30 in AArch64 */
	if (found == 0 && !a64 && view.reg >= TK_REG_X0 && view.reg <= TK_REG_XSP) {
		snprintf(err, errlen, "%s does not exist in AArch32 (the instruction set here): "
			 "use r0-r12, sp, lr, pc", tmp);
		return -1;
	}
	if (found == 0 && a64 && view.reg <= TK_REG_R15) {	/* r0-r15 */
		snprintf(err, errlen, "%s does not exist in AArch64 (the instruction set here): "
			 "use x0-x30, w0-w30, sp, lr, pc", tmp);
		return -1;
	}
	if (found == 0 && view.len <= 8) {
		uint8_t val[8] = {0}, known[8] = {0};
		if (s->state == TK_POS_NONE ||
		    tk_index_reg(s->idx, s->state, view, val, known) == 0) {
			uint64_t v = 0;
			for (int i = view.len - 1; i >= 0; i--) {
				if (!known[i]) {
					snprintf(err, errlen, "%s is not known at this position", tmp);
					return -1;
				}
				v = v << 8 | val[i];
			}
			*value = v;
			return 0;
		}
	}
	if (s->symtab) {
		const tk_symbol *sym = tk_symtab_find(s->symtab, tmp);
		if (sym) {
			*value = sym->addr;
			return 0;
		}
	}
	snprintf(err, errlen, "no register or symbol '%s'%s", tmp,
		 s->symtab ? "" : " (symbols need --image)");
	return -1;
}

int tkv_eval(const tkv_scope *scope, const char *text, uint64_t *value,
	     char *err, size_t errlen)
{
	return tk_expr_eval(text, tkv_resolve_name, (void *)scope, value, err, errlen);
}
