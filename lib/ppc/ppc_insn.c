/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: POWER instruction classes (branches, link-register semantics). */
#include "tracekit/ppc.h"

enum {
	OP_BC = 16, OP_SC = 17, OP_B = 18, OP_XL = 19,
	XO_BCLR = 16, XO_BCCTR = 528, XO_BCTAR = 560,
	XO_RFID = 18, XO_RFI = 50, XO_RFSCV = 82, XO_HRFID = 274,
};

static unsigned xo_xl(uint32_t w) { return (w >> 1) & 0x3FF; }

/* BO tests CR or CTR unless both "ignore" bits (0x10 CR, 0x04 CTR) are set. */
static bool bo_conditional(uint32_t w) { return (((w >> 21) & 0x14) != 0x14); }

static bool is_xl_branch(uint32_t w)
{
	if (tk_ppc_primary(w) != OP_XL)
		return false;
	unsigned xo = xo_xl(w);
	return xo == XO_BCLR || xo == XO_BCCTR || xo == XO_BCTAR;
}

bool tk_ppc_is_branch(uint32_t w)
{
	unsigned op = tk_ppc_primary(w);
	return op == OP_B || op == OP_BC || is_xl_branch(w);
}

bool tk_ppc_is_rfi_like(uint32_t w)
{
	return w == 0x4C0000A4u || w == 0x4C000024u || w == 0x4C000224u ||
	       w == 0x44000002u || w == 0x44000022u || (w & 0xFFFFF001u) == 0x44000001u;
}

bool tk_ppc_is_conditional_branch(uint32_t w)
{
	unsigned op = tk_ppc_primary(w);
	if (op == OP_BC)
		return bo_conditional(w);
	return is_xl_branch(w) && bo_conditional(w);
}

bool tk_ppc_is_unconditional_branch(uint32_t w)
{
	unsigned op = tk_ppc_primary(w);
	if (op == OP_BC || is_xl_branch(w))
		return !bo_conditional(w);
	if (op == OP_SC || op == OP_B)
		return true;
	if (op == OP_XL) {
		unsigned xo = xo_xl(w);
		return xo == XO_RFI || xo == XO_RFID || xo == XO_HRFID || xo == XO_RFSCV;
	}
	return false;
}

bool tk_ppc_is_linking_branch(uint32_t w)
{
	return tk_ppc_is_branch(w) && (w & 1);
}

tk_branch tk_ppc_branch_kind(uint32_t word, unsigned width, uint64_t ea, uint64_t next_ea)
{
	if (width != 8)
		width = 4;
	bool left = next_ea != ea + width;
	if (!left)
		return TK_BR_NONE;
	if (width == 8 || !tk_ppc_is_branch(word))
		return TK_BR_JUMP;	/* sc, rfid, an interrupt: a mode change */
	if (word & 1)
		return TK_BR_CALL;	/* bl, bcl, bclrl, bcctrl, bctarl */
	if (tk_ppc_primary(word) == OP_XL && xo_xl(word) == XO_BCLR)
		return TK_BR_RETURN;
	return TK_BR_JUMP;
}
