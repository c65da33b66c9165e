/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the HTM's branch recodings back to PowerISA words.
 *
 * For a branch, the trace unit replaces the instruction image by a form
 * that carries the *absolute* low bits of the target (and how the high
 * bits relate to the branch's EA: same, +1, -1, or absolute) instead of
 * the displacement.  The decoder rebuilds the displacement from the EA.
 * IBM bit numbers in comments: bit 0 is the most significant.
 */
#include "sources/htm/htm_impl.h"
#include "tracekit/ppc.h"

/* High bits of the target from the EA's: msb 0 same, 1 plus one, 3 minus one. */
static uint64_t high_adjust(unsigned msb)
{
	return msb == 1 ? 1 : msb == 3 ? UINT64_MAX : 0;
}

uint32_t tk_htm_p10_recode(uint32_t op, uint64_t ea)
{
	uint32_t lk = (op >> 30) & 1;			/* bit 1 */
	unsigned msb = (op >> 28) & 3;			/* bits 2-3 */
	unsigned type = (op >> 19) & 3;			/* bits 11-12 */
	uint32_t bo_hi = (op >> 23) & 0xF;		/* bits 5-8: BO >> 1 */
	uint32_t bo_lo = (op >> 18) & 1;		/* bit 13 */
	uint32_t bi = ((op >> 21) & 1) << 4 | ((op >> 13) & 0xF);	/* bits 10, 15-18 */
	uint32_t bh = (op >> 9) & 3;			/* bits 21-22 */

	switch (type) {
	case 0: {	/* I-form b: word offset in bits 4-10 and 15-31 */
		uint64_t target = ((uint64_t)((op >> 21) & 0x7F) << 17 | (op & 0x1FFFF)) << 2;
		if (msb == 2)
			return 0x48000000u | (uint32_t)target | 2 | lk;
		uint64_t t = (((ea >> 26) + high_adjust(msb)) << 26) | target;
		return 0x48000000u | ((uint32_t)(t - ea) & 0x03FFFFFCu) | lk;
	}
	case 1: {	/* B-form bc: target in bits 4 and 19-31 */
		uint32_t bo = bo_hi << 1 | bo_lo;
		uint64_t target = ((uint64_t)((op >> 27) & 1) << 13 | (op & 0x1FFF)) << 2;
		if (msb == 2) {
			/* The reference shifts bit 10 of BI by 5 here (it lands in
			 * BO's last bit); kept for byte-identical output. */
			uint32_t bi_abs = ((op >> 21) & 1) << 5 | ((op >> 13) & 0xF);
			return 0x40000002u | (uint32_t)target | bo << 21 | bi_abs << 16 | lk;
		}
		uint64_t t = (((ea >> 16) + high_adjust(msb)) << 16) | target;
		return 0x40000000u | ((uint32_t)(t - ea) & 0xFFFCu) | bo << 21 | bi << 16 | lk;
	}
	case 2: {	/* bclr */
		uint32_t bo = bo_hi << 1 | ((bo_hi & 1) ? bo_lo : 0);
		return 0x4C000020u | bo << 21 | bi << 16 | bh << 11 | lk;
	}
	default: {	/* bcctr / bctar, or a non-branch the unit flags (sc, rfid, mtmsr) */
		unsigned primary = op >> 26;
		if (primary == 17 || primary == 31)
			return op & ~0x001E0000u;
		if (primary == 19)
			/* The reference yields 0 unless XO = 18 mod 32 (rfid, rfscv,
			 * hrfid, stop, rfebb); a 0 word would read back as a Qtrace
			 * header, so the image is kept with bits 11-14 cleared. */
			return op & ~0x001E0000u;
		uint32_t bo = bo_hi << 1 | ((bo_hi & 1) ? bo_lo : 0);
		uint32_t w = 0x4C000420u | bo << 21 | bi << 16 | bh << 11 | lk;
		if ((op >> 11) & 1)	/* bit 20: bctar */
			w |= 0x40;
		return w;
	}
	}
}

uint32_t tk_htm_p8_demunge(uint32_t op, uint64_t ea)
{
	unsigned type = (op >> 28) & 3;
	unsigned msb = (op >> 26) & 3;
	if (type == 0 && !(op & 2))
		type = 1;
	if (type != 0)	/* bits 7-16 move up to 6-15, bit 6 down to 16 */
		op = (op & 0xFC007FFFu) | ((op << 1) & 0x03FF0000u) | ((op >> 10) & 0x00008000u);
	uint32_t link = (op >> 30) & 1;
	op = (op & 0xBFFFFFFEu) | link;
	switch (type) {
	case 0: {
		if (msb == 2)
			return 0x48000000u | (op & 0x03FFFFFFu) | 2;
		uint64_t t = (((ea >> 26) + high_adjust(msb)) << 26) | (op & 0x03FFFFFCu);
		return 0x48000000u | ((uint32_t)(t - ea) & 0x03FFFFFCu) | (op & 1);
	}
	case 1: {
		if (msb == 2)
			return 0x40000002u | (op & 0x03FFFFFFu);
		uint64_t t = (((ea >> 16) + high_adjust(msb)) << 16) | (op & 0xFFFCu);
		return 0x40000000u | ((uint32_t)(t - ea) & 0xFFFCu) | (op & 0x03FF0001u);
	}
	case 2:
		return 0x4C000020u | (op & 0x03FFF801u);
	default: {
		uint32_t w = 0x4C000420u | (op & 0x03FFF801u);
		if (op & 0x2000)
			w |= 0x40;	/* bctar */
		return w;
	}
	}
}

uint32_t tk_htm_fixup_word(uint32_t w)
{
	/* bclr, bcctr, bctar (XO 16, 528, 560: 16 in bits 26-30): bits 16-18
	 * are reserved. */
	if (tk_ppc_primary(w) == 19 && ((w >> 1) & 0x1F) == 16)
		w &= ~0xE000u;
	return w;
}
