/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: POWER instruction classes, the branch kind by link-register
 * semantics, the HTM branch recodings, and the libopcodes text of every
 * instruction form of the public qtdis test listings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/htm.h"
#include "tracekit/ppc.h"

static void test_classes(void)
{
	/* b, bl, bc, bclr, bcctr, bctar */
	CHECK(tk_ppc_is_branch(0x48000010));
	CHECK(tk_ppc_is_branch(0x40820008));
	CHECK(tk_ppc_is_branch(0x4e800020));
	CHECK(tk_ppc_is_branch(0x4e800420));
	CHECK(tk_ppc_is_branch(0x4e800460));
	CHECK(!tk_ppc_is_branch(0x4c000024));	/* rfid */
	CHECK(!tk_ppc_is_branch(0x44000002));	/* sc */
	CHECK(!tk_ppc_is_branch(0x38600000));
	/* conditional: BO not "branch always" */
	CHECK(tk_ppc_is_conditional_branch(0x40820008));	/* bne */
	CHECK(tk_ppc_is_conditional_branch(0x4d820020));	/* beqlr */
	CHECK(tk_ppc_is_conditional_branch(0x4e400020));	/* bdzlr */
	CHECK(tk_ppc_is_conditional_branch(0x4ce20460));	/* bnetar+ */
	CHECK(!tk_ppc_is_conditional_branch(0x4e800020));	/* blr */
	CHECK(!tk_ppc_is_conditional_branch(0x42800008));	/* bc 20,0: always */
	CHECK(!tk_ppc_is_conditional_branch(0x48000010));
	/* unconditional, as the Qtrace reader's fix-up sees it */
	CHECK(tk_ppc_is_unconditional_branch(0x48000010));
	CHECK(tk_ppc_is_unconditional_branch(0x4e800420));	/* bctr */
	CHECK(tk_ppc_is_unconditional_branch(0x44000002));	/* sc */
	CHECK(tk_ppc_is_unconditional_branch(0x4c000024));	/* rfid */
	CHECK(tk_ppc_is_unconditional_branch(0x4c0000a4));	/* rfscv */
	CHECK(tk_ppc_is_unconditional_branch(0x4c000224));	/* hrfid */
	CHECK(tk_ppc_is_unconditional_branch(0x4c000064));	/* rfi */
	CHECK(!tk_ppc_is_unconditional_branch(0x40820008));
	CHECK(!tk_ppc_is_unconditional_branch(0x60000000));
	/* rfi-like words */
	CHECK(tk_ppc_is_rfi_like(0x4c0000a4));
	CHECK(tk_ppc_is_rfi_like(0x4c000024));
	CHECK(tk_ppc_is_rfi_like(0x4c000224));
	CHECK(tk_ppc_is_rfi_like(0x44000002));
	CHECK(tk_ppc_is_rfi_like(0x44000022));
	CHECK(tk_ppc_is_rfi_like(0x44000001));	/* scv 0 */
	CHECK(tk_ppc_is_rfi_like(0x44000fe1));	/* scv 127 */
	CHECK(!tk_ppc_is_rfi_like(0x4e800020));
	CHECK(tk_ppc_is_prefix(0x07000000));
	CHECK(!tk_ppc_is_prefix(0x60000000));
	CHECK(tk_ppc_is_linking_branch(0x48000101));
	CHECK(!tk_ppc_is_linking_branch(0x48000100));
	CHECK(!tk_ppc_is_linking_branch(0x38600001));
}

static void test_branch_kind(void)
{
	const uint64_t ea = 0x10000200;
	/* bl fib+8: leaves the fall-through */
	CHECK_EQ(tk_ppc_branch_kind(0x4bffff91, 4, ea, ea - 0x70), TK_BR_CALL);
	/* bla */
	CHECK_EQ(tk_ppc_branch_kind(0x48000103, 4, ea, 0x100), TK_BR_CALL);
	/* bcl 20,31,$+4 (the get-PC idiom) and bl $+4 land on the fall-through */
	CHECK_EQ(tk_ppc_branch_kind(0x429f0005, 4, ea, ea + 4), TK_BR_NONE);
	CHECK_EQ(tk_ppc_branch_kind(0x48000005, 4, ea, ea + 4), TK_BR_NONE);
	/* bcl to elsewhere is a call */
	CHECK_EQ(tk_ppc_branch_kind(0x429f0011, 4, ea, ea + 0x10), TK_BR_CALL);
	/* bctrl, bclrl, bctarl */
	CHECK_EQ(tk_ppc_branch_kind(0x4e800421, 4, ea, 0x10000100), TK_BR_CALL);
	CHECK_EQ(tk_ppc_branch_kind(0x4e800021, 4, ea, 0x10000100), TK_BR_CALL);
	CHECK_EQ(tk_ppc_branch_kind(0x4e800461, 4, ea, 0x10000100), TK_BR_CALL);
	/* blr taken; beqlr taken and not taken */
	CHECK_EQ(tk_ppc_branch_kind(0x4e800020, 4, ea, 0x10000400), TK_BR_RETURN);
	CHECK_EQ(tk_ppc_branch_kind(0x4d820020, 4, ea, 0x10000400), TK_BR_RETURN);
	CHECK_EQ(tk_ppc_branch_kind(0x4d820020, 4, ea, ea + 4), TK_BR_NONE);
	/* bctr, b, bne taken: jumps; bne not taken: none */
	CHECK_EQ(tk_ppc_branch_kind(0x4e800420, 4, ea, 0x10000800), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x48000010, 4, ea, ea + 0x10), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x40820008, 4, ea, ea + 8), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x40820008, 4, ea, ea + 4), TK_BR_NONE);
	/* sc, rfid, an interrupt after an add: mode changes, not calls */
	CHECK_EQ(tk_ppc_branch_kind(0x44000002, 4, ea, 0xc00), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x44000002, 4, ea, ea + 4), TK_BR_NONE);
	CHECK_EQ(tk_ppc_branch_kind(0x4c000024, 4, 0xc00, 0x10000204), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x7c632214, 4, ea, 0x900), TK_BR_JUMP);
	CHECK_EQ(tk_ppc_branch_kind(0x7c632214, 4, ea, ea + 4), TK_BR_NONE);
	/* a prefixed pair: 8 bytes */
	CHECK_EQ(tk_ppc_branch_kind(0x04100000, 8, ea, ea + 8), TK_BR_NONE);
	CHECK_EQ(tk_ppc_branch_kind(0x04100000, 8, ea, ea + 4), TK_BR_JUMP);
}

/* The POWER10 recoding examples of the format description (image, EA,
 * PowerISA word), and hand-worked POWER8 ones. */
static void test_recode(void)
{
	static const struct { uint32_t img; uint64_t ea; uint32_t word; } p10[] = {
		{0x03A481FC, 0xc000000000ea080cull, 0x4BFFFFE4},	/* b */
		{0x018C419D, 0x10000670, 0x40E20004},			/* bne+ */
		{0x2B944020, 0x100006c8, 0x4DE20020},			/* beqlr+ */
		{0x2B9C4120, 0x100006d4, 0x4DE20420},			/* beqctr+ */
		{0x299C4960, 0x10000728, 0x4CE20460},			/* bnetar+ */
		{0x2D1C0120, 0x100006f8, 0x4E800420},			/* bctr */
		{0x4C1E00A4, 0xc00000000000da08ull, 0x4C0000A4},	/* rfscv */
		{0x4C1E0024, 0xc000000000010900ull, 0x4C000024},	/* rfid */
	};
	for (size_t i = 0; i < sizeof p10 / sizeof p10[0]; i++) {
		uint32_t w = tk_htm_fixup_word(tk_htm_p10_recode(p10[i].img, p10[i].ea));
		CHECKF(w == p10[i].word, "p10 %08x: %08x, expected %08x", p10[i].img, w, p10[i].word);
	}
	/* msb modes: the target's high bits are the EA's +1 / -1 */
	CHECK_EQ(tk_htm_p10_recode(0x10000004, 0x13fffff0), 0x48000020u);	/* b +0x20 */
	CHECK_EQ(tk_htm_p10_recode(0x3FE1FFFC, 0x14000010), 0x4BFFFFE0u);	/* b -0x20 */
	/* The reference's zero for type 3, primary 19, XO != 18 mod 32 is
	 * replaced by the image with bits 11-14 cleared. */
	CHECK_EQ(tk_htm_p10_recode(0x4C1E0364, 0), 0x4C000364u);
	/* POWER8: b 0x2000 from 0x1000; bne +8 from 0x10000670 (worked by hand
	 * from the demunge rules) */
	CHECK_EQ(tk_htm_p8_demunge(0x00002002, 0x1000), 0x48001000u);
	CHECK_EQ(tk_htm_p8_demunge(0x10410678, 0x10000670), 0x40820008u);
	CHECK_EQ(tk_htm_fixup_word(0x4e80e020), 0x4e800020u);	/* reserved bits of bclr */
	CHECK_EQ(tk_htm_fixup_word(0x7c00e020), 0x7c00e020u);	/* not XL: unchanged */
}

/* Every instruction form of the public test listings, with the text
 * libopcodes 2.40 gives (machine powerpc64, -M power10). */
static void test_disasm(void)
{
	if (!tk_ppc_disasm_available()) {
		printf("test_ppc: built without libopcodes: disassembly not checked\n");
		return;
	}
	static const struct { uint64_t ea; uint32_t w[2]; unsigned n; const char *text; } t[] = {
		{0, {0x7f843800}, 1, "cmpw    cr7,r4,r7"},
		{0, {0xebed0030}, 1, "ld      r31,48(r13)"},
		{0xc000000000ea080cull, {0x4bffffe4}, 1, "b       c000000000ea07f0 "},
		{0, {0x39290001}, 1, "addi    r9,r9,1"},
		{0x10000670, {0x40e20004}, 1, "bne+    0000000010000674 "},
		{0x10000674, {0x40c20004}, 1, "bne-    0000000010000678 "},
		{0x10000678, {0x40820004}, 1, "bne     000000001000067c "},
		{0x10000684, {0x40e10004}, 1, "ble+    0000000010000688 "},
		{0x10000698, {0x41e10004}, 1, "bgt+    000000001000069c "},
		{0x100006a0, {0x41810004}, 1, "bgt     00000000100006a4 "},
		{0x100006ac, {0x41e30004}, 1, "bso+    00000000100006b0 "},
		{0x100006b0, {0x41c30004}, 1, "bso-    00000000100006b4 "},
		{0, {0x60000000}, 1, "nop"},
		{0, {0x38600000}, 1, "li      r3,0"},
		{0, {0x38600fff}, 1, "li      r3,4095"},
		{0, {0x7c6ff120}, 1, "mtcr    r3"},
		{0, {0x4de20020}, 1, "beqlr+"},
		{0, {0x4dc20020}, 1, "beqlr-"},
		{0, {0x4d820020}, 1, "beqlr"},
		{0, {0x4de20420}, 1, "beqctr+"},
		{0, {0x4d820420}, 1, "beqctr"},
		{0, {0x3c600000}, 1, "lis     r3,0"},
		{0, {0x3c60ffff}, 1, "lis     r3,-1"},
		{0, {0x60630000}, 1, "ori     r3,r3,0"},
		{0, {0x606306fc}, 1, "ori     r3,r3,1788"},
		{0, {0x6063ffff}, 1, "ori     r3,r3,65535"},
		/* 2.40 prints the extended mnemonic; older binutils (and so the
		 * upstream listing) print rldicr r3,r3,32,31 */
		{0, {0x786307c6}, 1, "sldi    r3,r3,32"},
		{0, {0x64631000}, 1, "oris    r3,r3,4096"},
		{0, {0x6463ffff}, 1, "oris    r3,r3,65535"},
		{0, {0x7c6903a6}, 1, "mtctr   r3"},
		{0, {0x4e800420}, 1, "bctr"},
		{0, {0x4f600020}, 1, "bdzlr+"},
		{0, {0x4f400020}, 1, "bdzlr-"},
		{0, {0x4e400020}, 1, "bdzlr"},
		{0, {0x4ce20460}, 1, "bnetar+"},
		{0, {0x4cc20460}, 1, "bnetar-"},
		{0, {0x4c820460}, 1, "bnetar"},
		{0, {0x4c0000a4}, 1, "rfscv"},
		{0, {0x4c000024}, 1, "rfid"},
		{0, {0xe9290000}, 1, "ld      r9,0(r9)"},
		{0, {0x07000000, 0x00000000}, 2, "pnop"},
		{0, {0x7c631b78}, 1, "mr      r3,r3"},
		{0, {0x7c3f4840}, 1, "cmpld   r31,r9"},
		{0, {0x7cc01b24}, 1, "slbmte  r6,r3"},
		{0, {0x00000000}, 1, ".long 0x0"},
	};
	tk_ppc_disasm *d;
	CHECK(tk_ppc_disasm_new(NULL, NULL, &d) == 0);
	char buf[128];
	for (int pass = 0; pass < 2; pass++)	/* the second pass comes from the cache */
		for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
			tk_ppc_disasm_insn(d, t[i].ea, t[i].w, t[i].n, buf, sizeof buf);
			CHECK_STR(buf, t[i].text);
		}
	/* A branch's text follows its address (never taken from the cache). */
	uint32_t b = 0x48000010;
	tk_ppc_disasm_insn(d, 0x1000, &b, 1, buf, sizeof buf);
	CHECK_STR(buf, "b       0000000000001010 ");
	tk_ppc_disasm_insn(d, 0x2000, &b, 1, buf, sizeof buf);
	CHECK_STR(buf, "b       0000000000002010 ");
	/* PC-relative prefixed: the comment's target follows the address */
	uint32_t pla[2] = {0x06100000, 0x38600010};	/* pla r3,16 */
	char other[128];
	tk_ppc_disasm_insn(d, 0x1000, pla, 2, buf, sizeof buf);
	tk_ppc_disasm_insn(d, 0x2000, pla, 2, other, sizeof other);
	CHECKF(strcmp(buf, other) != 0, "%s / %s", buf, other);
	/* truncation */
	tk_ppc_disasm_insn(d, 0, t[1].w, 1, buf, 5);
	CHECK_STR(buf, "ld  ");
	tk_ppc_disasm_free(d);
}

int main(void)
{
	test_classes();
	test_branch_kind();
	test_recode();
	test_disasm();
	return check_report("test_ppc");
}
