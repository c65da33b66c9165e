/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: call frame information at an address (libdw).
 *
 * .debug_frame is asked first (bare-metal Arm images have only that), then
 * .eh_frame.  The rows libdw computes are reduced to what a frame-pointer
 * walk needs: the CFA as register + offset, and for each register whether
 * it is unchanged, saved at CFA + offset, or something else.  At load the
 * sections' entries are walked once, so damage is reported with its
 * offset even if no lookup ever reaches it.
 */
#include <stdlib.h>
#include <string.h>

#include "dw_impl.h"
#include "tracekit/error.h"

/* Report every undecodable entry of one CFI section once, by offset. */
static void check_section(tk_dwarf *d, const char *name, bool eh)
{
	Elf_Scn *scn = NULL;
	for (size_t i = 1; i < d->nsecs; i++)
		if (d->secs[i].name && !strcmp(d->secs[i].name, name) && d->secs[i].type != SHT_NOBITS)
			scn = d->secs[i].scn;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf)
		return;
	const unsigned char *ident = (const unsigned char *)elf_getident(d->elf, NULL);
	if (!ident)
		return;
	Dwarf_Off off = 0, next;
	unsigned reported = 0;
	while (off < data->d_size) {
		Dwarf_CFI_Entry e;
		int rc = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0) {
			if (reported++ < 5)
				tk_dw_report(d, TK_DIAG_ERROR, "%s at offset 0x%llx: bad CIE or FDE: %s",
					     name, (unsigned long long)off, dwarf_errmsg(-1));
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
		}
		off = next;
	}
}

void tk_dw_check_cfi(tk_dwarf *d)
{
	check_section(d, ".debug_frame", false);
	check_section(d, ".eh_frame", true);
}

static bool read_rule(Dwarf_Frame *frame, int regno, tk_dwarf_rule *rule)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	memset(rule, 0, sizeof *rule);
	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
		return false;
	if (nops == 0) {
		rule->kind = ops ? TK_DWARF_RULE_UNDEFINED : TK_DWARF_RULE_SAME;
		return true;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		size_t k = 1;
		int64_t off = 0;
		if (k < nops && ops[k].atom == DW_OP_plus_uconst)
			off = (int64_t)ops[k++].number;
		if (k == nops) {
			rule->kind = TK_DWARF_RULE_OFFSET;
			rule->offset = off;
			return true;
		}
		if (k + 1 == nops && ops[k].atom == DW_OP_stack_value) {
			rule->kind = TK_DWARF_RULE_VAL_OFFSET;
			rule->offset = off;
			return true;
		}
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		rule->kind = TK_DWARF_RULE_REGISTER;
		rule->reg = (unsigned)ops[0].number;
		return true;
	}
	if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		rule->kind = TK_DWARF_RULE_REGISTER;
		rule->reg = ops[0].atom - DW_OP_reg0;
		return true;
	}
	rule->kind = TK_DWARF_RULE_OTHER;
	return true;
}

static int row_at(Dwarf_CFI *cfi, uint64_t pc, tk_dwarf_cfi *out)
{
	Dwarf_Frame *frame;
	/* libdw does not tell "no entry" from "bad entry" through its API:
	 * damage was reported when the image was loaded. */
	if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return TK_ERR_NOTFOUND;
	memset(out, 0, sizeof *out);
	Dwarf_Addr start, end;
	bool signal;
	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	out->start = start;
	out->end = end;
	out->ra_reg = ra < 0 ? 0 : (unsigned)ra;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			out->cfa_simple = true;
			out->cfa_reg = (unsigned)ops[0].number;
			out->cfa_offset = (int64_t)ops[0].number2;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			out->cfa_simple = true;
			out->cfa_reg = ops[0].atom - DW_OP_breg0;
			out->cfa_offset = (int64_t)ops[0].number;
		}
	}
	for (int r = 0; r < TK_DWARF_CFI_REGS; r++)
		if (!read_rule(frame, r, &out->regs[r]))
			out->regs[r].kind = TK_DWARF_RULE_OTHER;
	free(frame);
	return 0;
}

int tk_dwarf_cfi_at(tk_dwarf *d, uint64_t pc, tk_dwarf_cfi *out)
{
	if (d->dbg && !d->cfi_debug)
		d->cfi_debug = dwarf_getcfi(d->dbg);
	int rc = TK_ERR_NOTFOUND;
	if (d->cfi_debug)
		rc = row_at(d->cfi_debug, pc, out);
	if (rc != TK_ERR_NOTFOUND)
		return rc;
	if (!d->cfi_eh_tried) {
		d->cfi_eh_tried = true;
		d->cfi_eh = dwarf_getcfi_elf(d->elf);
	}
	if (d->cfi_eh)
		rc = row_at(d->cfi_eh, pc, out);
	return rc;
}
