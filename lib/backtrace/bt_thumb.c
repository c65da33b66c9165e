/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: where a Thumb function keeps {r7, lr}, from its prologue.
 *
 * GCC's Thumb prologue with a frame pointer is, possibly interleaved with
 * other instructions:
 *   push {..., r7, lr}        (16-bit, or push.w / stmdb sp!)
 *   vpush {d8-...}            (optional)
 *   sub sp, #n                (optional; 16-bit, sub.w or subw)
 *   add r7, sp, #m            (or mov r7, sp)
 * r7 then points m bytes above the stack pointer, below the locals, and the
 * saved r7 and lr sit n + 8 * (d registers pushed) - m + 4 * (their index
 * in the push) bytes above r7.
 */
#include <string.h>

#include "bt_impl.h"

/* ThumbExpandImm of the 12-bit i:imm3:imm8 field of a 32-bit encoding. */
static uint32_t expand_imm(uint32_t imm12)
{
	if ((imm12 >> 10) == 0) {
		uint32_t b = imm12 & 0xff;
		switch ((imm12 >> 8) & 3) {
		case 0: return b;
		case 1: return b << 16 | b;
		case 2: return b << 24 | b << 8;
		default: return b << 24 | b << 16 | b << 8 | b;
		}
	}
	uint32_t v = 0x80 | (imm12 & 0x7f);
	unsigned rot = imm12 >> 7;
	return v >> rot | v << (32 - rot);
}

static uint32_t imm12_of(uint32_t h1, uint32_t h2)
{
	return (h1 >> 10 & 1) << 11 | (h2 >> 12 & 7) << 8 | (h2 & 0xff);
}

bool tk_bt_thumb_prologue(tk_dwarf *image, uint64_t fn_start, int64_t *fp_off, bool *lr_saved,
			  int64_t *lr_off)
{
	uint8_t code[96];
	size_t len = sizeof code;
	while (len >= 2 && tk_dwarf_read(image, fn_start, code, len) != 0)
		len /= 2;
	if (len < 2)
		return false;
	bool be = tk_dwarf_big_endian(image);
	int pushed = -1, idx7 = -1, idxlr = -1;
	int64_t below = 0;	/* bytes the stack went down after the push */
	for (size_t at = 0; at + 2 <= len;) {
		uint32_t h1 = be ? (uint32_t)code[at] << 8 | code[at + 1]
				 : (uint32_t)code[at + 1] << 8 | code[at];
		bool wide = (h1 >> 11) >= 0x1d;
		uint32_t h2 = 0;
		if (wide) {
			if (at + 4 > len)
				break;
			h2 = be ? (uint32_t)code[at + 2] << 8 | code[at + 3]
				: (uint32_t)code[at + 3] << 8 | code[at + 2];
		}
		at += wide ? 4 : 2;
		if (!wide && (h1 & 0xfe00) == 0xb400) {		/* push {rlist[, lr]} */
			uint32_t mask = (h1 & 0xff) | ((h1 & 0x100) ? 1u << 14 : 0);
			if (pushed >= 0)
				return false;
			pushed = __builtin_popcount(mask);
			idx7 = (mask >> 7 & 1) ? __builtin_popcount(mask & 0x7f) : -1;
			idxlr = (mask >> 14 & 1) ? pushed - 1 : -1;
		} else if (wide && h1 == 0xe92d) {		/* push.w {rlist} */
			uint32_t mask = h2 & 0x5fff;
			if (pushed >= 0)
				return false;
			pushed = __builtin_popcount(mask);
			idx7 = (mask >> 7 & 1) ? __builtin_popcount(mask & 0x7f) : -1;
			idxlr = (mask >> 14 & 1) ? __builtin_popcount(mask & 0x3fff) : -1;
		} else if (wide && (h1 & 0xffbf) == 0xed2d && (h2 & 0x0f00) == 0x0b00) {
			below += (h2 & 0xff) * 4;			/* vpush {d...} */
		} else if (!wide && (h1 & 0xff80) == 0xb080) {	/* sub sp, #imm7*4 */
			below += (h1 & 0x7f) * 4;
		} else if (wide && (h1 & 0xfbef) == 0xf1ad && (h2 & 0x8f00) == 0x0d00) {
			below += expand_imm(imm12_of(h1, h2));	/* sub.w sp, sp, #imm */
		} else if (wide && (h1 & 0xfbff) == 0xf2ad && (h2 & 0x8f00) == 0x0d00) {
			below += imm12_of(h1, h2);			/* subw sp, sp, #imm12 */
		} else if ((!wide && (h1 & 0xff00) == 0xaf00) ||	/* add r7, sp, #imm8*4 */
			   (!wide && h1 == 0x466f) ||			/* mov r7, sp */
			   (wide && (h1 & 0xfbef) == 0xf10d && (h2 & 0x8f00) == 0x0700)) {
			int64_t m = 0;
			if (!wide && (h1 & 0xff00) == 0xaf00)
				m = (h1 & 0xff) * 4;
			else if (wide)
				m = expand_imm(imm12_of(h1, h2));
			if (pushed < 0 || idx7 < 0)
				return false;
			int64_t base = below - m;	/* the push area, above r7 */
			*fp_off = base + 4 * idx7;
			*lr_saved = idxlr >= 0;
			*lr_off = base + 4 * (idxlr >= 0 ? idxlr : 0);
			return true;
		} else if (!wide && ((h1 & 0xff87) == 0x4700 || (h1 & 0xf000) == 0xd000 ||
				     (h1 & 0xf800) == 0xe000)) {
			return false;	/* a branch before r7 was set */
		}
	}
	return false;
}
