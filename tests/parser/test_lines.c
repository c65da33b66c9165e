/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: the Tarmac line parser (tk_tarmac_parse_line) on its own.
 *
 * The expected values below were worked out by hand from the seed's format
 * specification and the comments of the corpus (traces/tarmac/parsertest*.txt),
 * not copied from the parser's output.  Usage: test_lines TRACES_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/tarmac.h"

static tk_tarmac_parser *P;
static const tk_event *EV;
static size_t NEV;
static int RC;
static uint64_t lineno;

static void parser(bool implicit_thumb, bool big_endian)
{
	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	o.implicit_thumb = implicit_thumb;
	o.big_endian = big_endian;
	tk_tarmac_parser_free(P);
	if (tk_tarmac_parser_new(&o, &P) < 0)
		abort();
}

static void parse(const char *line)
{
	RC = tk_tarmac_parse_line(P, line, strlen(line), ++lineno, 0, &EV, &NEV);
}

static bool eqs(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* Bytes as "b8fb..": "--" not accessed, "??" unknown. */
static const char *hexs(const uint8_t *v, const uint8_t *st, size_t n, bool msb_first)
{
	static char buf[1024];
	char *o = buf;
	for (size_t k = 0; k < n && o + 3 < buf + sizeof buf; k++) {
		size_t i = msb_first ? n - 1 - k : k;
		if (st[i] == TK_BYTE_SET)
			o += sprintf(o, "%02x", v[i]);
		else
			o += sprintf(o, st[i] == TK_BYTE_NONE ? "--" : "??");
	}
	*o = 0;
	return buf;
}

#define ONE(kind_) CHECKF(RC == 0 && NEV == 1 && EV[0].kind == (kind_), \
			  "line %llu: rc %d, %zu events, kind %d (%s)", (unsigned long long)lineno, \
			  RC, NEV, NEV ? (int)EV[0].kind : -1, tk_tarmac_parser_error(P))

static void insn(const char *line, uint64_t time, uint64_t pc, tk_isa isa, unsigned width,
		 bool has_enc, uint32_t enc, bool executed, const char *mode, const char *disasm)
{
	parse(line);
	ONE(TK_EV_INSN);
	if (NEV != 1 || EV[0].kind != TK_EV_INSN)
		return;
	const tk_insn *in = &EV[0].u.insn;
	CHECKF(EV[0].time == time, "%s: time %llu", line, (unsigned long long)EV[0].time);
	CHECKF(in->pc == pc, "%s: pc %llx", line, (unsigned long long)in->pc);
	CHECKF(in->isa == isa, "%s: isa %s", line, tk_isa_name(in->isa));
	CHECKF(in->width == width, "%s: width %u", line, in->width);
	CHECKF((in->nbytes != 0) == has_enc && (!has_enc || tk_insn_encoding(in) == enc),
	       "%s: enc %llx", line, (unsigned long long)tk_insn_encoding(in));
	CHECKF(in->executed == executed, "%s: executed %d", line, in->executed);
	CHECKF(eqs(in->mode, in->mode_len, mode), "%s: mode '%.*s'", line, (int)in->mode_len, in->mode);
	CHECKF(eqs(in->disasm, in->disasm_len, disasm), "%s: disasm '%.*s'", line,
	       (int)in->disasm_len, in->disasm);
	CHECK(in->branch == TK_BR_UNKNOWN);
}

/* value: most significant byte first, as in the trace. */
static void reg(const char *line, tk_reg r, unsigned off, unsigned len, const char *value,
		const char *name)
{
	parse(line);
	ONE(TK_EV_REG);
	if (NEV != 1 || EV[0].kind != TK_EV_REG)
		return;
	const tk_reg_update *u = &EV[0].u.reg;
	CHECKF(u->view.reg == r && u->view.offset == off && u->view.len == len,
	       "%s: view %u [%u+%u]", line, u->view.reg, u->view.offset, u->view.len);
	const char *got = hexs(u->value, u->state, u->view.len, true);
	CHECKF(!strcmp(got, value), "%s: value %s, expected %s", line, got, value);
	CHECKF(eqs(u->name, u->name_len, name), "%s: name '%.*s'", line, (int)u->name_len, u->name);
}

/* bytes: in address order. */
static void mem_n(size_t i, uint64_t addr, bool write, const char *bytes)
{
	if (i >= NEV || EV[i].kind != TK_EV_MEM) {
		CHECKF(0, "line %llu: no memory event %zu", (unsigned long long)lineno, i);
		return;
	}
	const tk_mem_access *m = &EV[i].u.mem;
	CHECKF(m->addr == addr, "line %llu: addr %llx", (unsigned long long)lineno,
	       (unsigned long long)m->addr);
	CHECK(m->write == write);
	CHECKF(m->size == strlen(bytes) / 2, "line %llu: size %u", (unsigned long long)lineno, m->size);
	const char *got = hexs(m->bytes, m->state, m->size, false);
	CHECKF(!strcmp(got, bytes), "line %llu: bytes %s, expected %s", (unsigned long long)lineno, got,
	       bytes);
}

static void mem(const char *line, uint64_t addr, bool write, const char *bytes)
{
	parse(line);
	ONE(TK_EV_MEM);
	mem_n(0, addr, write, bytes);
}

static void text(const char *line, const char *kind)
{
	parse(line);
	ONE(TK_EV_TEXT);
	if (NEV == 1)
		CHECKF(eqs(EV[0].u.text.kind, EV[0].u.text.kind_len, kind), "%s: kind '%.*s'", line,
		       (int)EV[0].u.text.kind_len, EV[0].u.text.kind);
}

static void bad(const char *line, const char *why)
{
	parse(line);
	CHECKF(RC == TK_ERR_PARSE, "%s: rc %d", line, RC);
	CHECKF(strstr(tk_tarmac_parser_error(P), why), "%s: error '%s' lacks '%s'", line,
	       tk_tarmac_parser_error(P), why);
	CHECKF(NEV == 1 && EV[0].kind == TK_EV_TEXT, "%s: the line is not kept as text", line);
}

static void instructions(void)
{
	parser(false, false);
	insn("0 clk IT (0) 00008000 fa000000 A svc_s : BLX      {pc}+8 ; 0x8008",
	     0, 0x8000, TK_ISA_A32, 4, true, 0xfa000000, true, "svc_s", "BLX      {pc}+8 ; 0x8008");
	insn("1 clk IT (1) 00008008 a00a T svc_s : ADR      r0,{pc}+0x2c ; 0x8034",
	     1, 0x8008, TK_ISA_T32, 2, true, 0xa00a, true, "svc_s", "ADR      r0,{pc}+0x2c ; 0x8034");
	insn("12 clk IS (12) 0000802c 1afb T svc_s : SUBNE    r3,r7,r3",
	     12, 0x802c, TK_ISA_T32, 2, true, 0x1afb, false, "svc_s", "SUBNE    r3,r7,r3");
	insn("2696 clk IT (2696) 000096ea e8bd87f0 T svc_s : POP      {r4-r10,pc}",
	     2696, 0x96ea, TK_ISA_T32, 4, true, 0xe8bd87f0, true, "svc_s", "POP      {r4-r10,pc}");
	insn("53 clk IT (53) 002109f0 f94003e1 O EL3h_s : LDR      x1,[sp,#0]",
	     53, 0x2109f0, TK_ISA_A64, 4, true, 0xf94003e1, true, "EL3h_s", "LDR      x1,[sp,#0]");
	insn("483 clk IS (483) 0000c7ec 54ffffa1 O EL3h_s : B.NE     {pc}-0xc ; 0xc7e0",
	     483, 0xc7ec, TK_ISA_A64, 4, true, 0x54ffffa1, false, "EL3h_s", "B.NE     {pc}-0xc ; 0xc7e0");
	/* physical address of both halfwords */
	insn("3 clk IT (3) 0000800a:00000000800a,00000000800c e8900c00 T svc_s : LDM      r0,{r10,r11}",
	     3, 0x800a, TK_ISA_T32, 4, true, 0xe8900c00, true, "svc_s", "LDM      r0,{r10,r11}");
	insn("23 clk IT (23) 0000815c:00000000815c_NS,00000000815e_NS f7ffef76 T hyp_n : BLX      {pc}-0x110 ; 0x804c",
	     23, 0x815c, TK_ISA_T32, 4, true, 0xf7ffef76, true, "hyp_n", "BLX      {pc}-0x110 ; 0x804c");
	/* a cpu token */
	insn("1 clk cpu0 IT (1) 10001848 f64f6000 T thread_s : MOV      r0,#0xfe00",
	     1, 0x10001848, TK_ISA_T32, 4, true, 0xf64f6000, true, "thread_s", "MOV      r0,#0xfe00");
	CHECK(EV[0].context == 0);
	parse("7 clk cpu3 IT (7) 1000184c f2c30003 T thread_s : MOVT     r0,#0x3003");
	CHECK(NEV == 1 && EV[0].context == 3);
	/* "(address) encoding" with a "---_-" mode and a tab in the disassembly */
	insn("    6000000 cs IT (00000000004d6eb8) 54fffea1 O  ---_- :        b.ne\t0x4d6e8c",
	     6000000, 0x4d6eb8, TK_ISA_A64, 4, true, 0x54fffea1, true, "---_-", "b.ne\t0x4d6e8c");
	/* Cortex-M4 RTL: (address:serial) address encoding T16, no mode or colon */
	insn("      3041 cyc IT (00022a7c:00000006) 00022a7c     48f6 T16 LDR      r0,[pc,#984]  ; [0x22e58]",
	     3041, 0x22a7c, TK_ISA_T32, 2, true, 0x48f6, true, "", "LDR      r0,[pc,#984]  ; [0x22e58]");
	/* Cortex-R5 RTL: mode missing before the colon */
	insn(" 948756 ns IT (00000000:00000000) 00000000 ea000006 A :                      B pc+0x00000018 ; 0x00000020",
	     948756, 0, TK_ISA_A32, 4, true, 0xea000006, true, "", "B pc+0x00000018 ; 0x00000020");
	/* ES: executed unless CCFAIL */
	insn("     41000 ns  ES  (00000000:e59ff018) A svc:            LDR      pc,{pc}+0x20 ; 0x20",
	     41000, 0, TK_ISA_A32, 4, true, 0xe59ff018, true, "svc", "LDR      pc,{pc}+0x20 ; 0x20");
	insn("     800000 ns  ES  (000001a4:03a06a01) A svc:     CCFAIL MOVEQ    r6,#0x1000",
	     800000, 0x1a4, TK_ISA_A32, 4, true, 0x03a06a01, false, "svc", "MOVEQ    r6,#0x1000");
	insn("       3981 tic ES  (000000d8:c878)     T thrd_s:         LDMCS    r0!,{r3-r6}",
	     3981, 0xd8, TK_ISA_T32, 2, true, 0xc878, true, "thrd_s", "LDMCS    r0!,{r3-r6}");
	/* failed fetch: no encoding, no disassembly */
	insn("     307754 tic ES  (0000aaaaabaf59f0:--------) O el0t_ns:",
	     307754, 0xaaaaabaf59f0, TK_ISA_A64, 4, false, 0, true, "el0t_ns", "");
	insn("11519 tic ES (10000b58:--------) T thrd_s:",
	     11519, 0x10000b58, TK_ISA_T32, 0, false, 0, true, "thrd_s", "");
	/* ES lines that are not instructions */
	text("      17000 ns  ES  EXC [0x00] Reset", "ES");
	text("     12345 ns  ES  Reset", "ES");

	/* No state letter: Thumb if the encoding is 16-bit... */
	insn("354ns IT 00000350 490d        LDR      r1,[pc,#52]  ; [0x388]",
	     354, 0x350, TK_ISA_T32, 2, true, 0x490d, true, "", "LDR      r1,[pc,#52]  ; [0x388]");
	/* ...or with --implicit-thumb; otherwise unknown. */
	insn("355ns IT 00000352 f000f800 BL       {pc}",
	     355, 0x352, TK_ISA_UNKNOWN, 4, true, 0xf000f800, true, "", "BL       {pc}");
	parser(true, false);
	insn("355ns IT 00000352 f000f800 BL       {pc}",
	     355, 0x352, TK_ISA_T32, 4, true, 0xf000f800, true, "", "BL       {pc}");
	insn("       1166.214000us IT 0000010a b510        PUSH     {r4,lr}",
	     1166214000, 0x10a, TK_ISA_T32, 2, true, 0xb510, true, "", "PUSH     {r4,lr}");
}

static void timestamps(void)
{
	parser(false, false);
	parse("180000140000 ps R r0 00000001");
	CHECK(NEV == 1 && EV[0].time == 180000140000ull);
	parse("                    R r1 00000002");	/* no timestamp: the previous one */
	CHECK(NEV == 1 && EV[0].time == 180000140000ull);
	parse("271ns R r13 20001fff (MSP)");
	CHECK(NEV == 1 && EV[0].time == 271);
	parse("         10.356000us R CONTROL 00000000");
	CHECK(NEV == 1 && EV[0].time == 10356000);
	parse("1.5 clk R r0 00000000");	/* padded to 6 fraction digits */
	CHECK(NEV == 1 && EV[0].time == 1500000);
	parse("2.12345678us R r0 00000000");	/* and cut after 6 */
	CHECK(NEV == 1 && EV[0].time == 2123456);
	parse("18446744073709551615 R r0 00000000");	/* UINT64_MAX */
	CHECK(RC == 0 && NEV == 1 && EV[0].time == UINT64_MAX);
	bad("18446744073709551616 R r0 00000000", "too large");
	/* any unit word, when a type word follows */
	parse("100 sec R r0 00000001");
	CHECK(RC == 0 && NEV == 1 && EV[0].kind == TK_EV_REG && EV[0].time == 100);
	parse("101 cycles cpu2 MR4 00001000 00000000");
	CHECK(RC == 0 && NEV == 1 && EV[0].kind == TK_EV_MEM && EV[0].time == 101 && EV[0].context == 2);
	text("102 CADI E simulation_stopped", "CADI");
	text("103 ps SIGNAL: SIGNAL=VIRQ STATE=N", "SIGNAL");
	parse("42 cyc");	/* a timestamp alone */
	CHECK(RC == 0 && NEV == 0);
	parse("");
	CHECK(RC == 0 && NEV == 0);
	parse("   \t  \r");
	CHECK(RC == 0 && NEV == 0);
	parse("R r0 00000000");
	CHECK(NEV == 1 && EV[0].time == 42);
	parse("5 clk cpu1 R r0 00000000");
	CHECK(NEV == 1 && EV[0].context == 1);
	parse("   R r1 00000000");	/* same line group: same cpu */
	CHECK(NEV == 1 && EV[0].context == 1);
	parse("6 clk R r0 00000000");
	CHECK(NEV == 1 && EV[0].context == 0);
	/* a trailing \r (CRLF files) is not part of the line */
	parse("7 clk IT (7) 00008000 e3a01000 A svc_s : MOV r1,#0\r");
	CHECK(NEV == 1 && eqs(EV[0].u.insn.disasm, EV[0].u.insn.disasm_len, "MOV r1,#0"));
}

static void registers(void)
{
	parser(false, false);
	reg("9 clk R r0 0000ab34", TK_REG_R0, 0, 4, "0000ab34", "r0");
	reg("0 clk R r14_svc 00008004", TK_REG_R14, 0, 4, "00008004", "r14_svc");
	reg("0 clk R cpsr 000001f3", TK_REG_PSR, 0, 4, "000001f3", "cpsr");
	reg("0 clk R X30 0000000000008004", TK_REG_X30, 0, 8, "0000000000008004", "X30");
	reg("502 clk R SP_EL3 0000000010000000", TK_REG_XSP, 0, 8, "0000000010000000", "SP_EL3");
	reg("513 clk R FPCR 01230123:23452345", TK_REG_FPCR, 0, 8, "0123012323452345", "FPCR");
	reg("0 clk cpu0 R r13_main_s 30040000", TK_REG_R13, 0, 4, "30040000", "r13_main_s");
	reg("0 clk cpu0 R MSP_S 30040000", TK_REG_R13, 0, 4, "30040000", "MSP_S");
	reg("    6000019 cs R E15 0000007f99d14b94", TK_REG_X0 + 15, 0, 8, "0000007f99d14b94", "E15");
	reg("    6000021 cs R Q17 42211549420dd96e41fed91542211526", TK_REG_V0 + 17, 0, 16,
	    "42211549420dd96e41fed91542211526", "Q17");
	/* interpretations after the value are ignored */
	reg("    6000017 cs R cpsr 20000000 __C_", TK_REG_PSR, 0, 4, "20000000", "cpsr");
	reg("271ns R r13 20001fff (MSP)", TK_REG_R13, 0, 4, "20001fff", "r13");
	/* extra info before the value */
	reg("                    R R1 (USR) 00000800", TK_REG_R0 + 1, 0, 4, "00000800", "R1");
	reg("                    R SCTLR (AARCH32) 00c50878", TK_REG_NONE, 0, 4, "00c50878", "SCTLR");
	/* unmodelled, with a name of two words */
	reg("40 clk R DC CISW 00000000:00000000", TK_REG_NONE, 0, 8, "0000000000000000", "DC CISW");
	reg("1678 clk R IC IALLU 00000000:0000000", TK_REG_NONE, 0, 8, "0000000000000000", "IC IALLU");
	reg("39319 clk R AT S12E1W 00000000:00000004", TK_REG_NONE, 0, 8, "0000000000000004", "AT S12E1W");
	/* every way of writing q0 is the same update */
	const char *q0[] = {
		"608 clk R q0 93c467e37db0c7a4d1be3f810152cb56",
		"608 clk R q0 93c467e37db0c7a4_d1be3f810152cb56",
		"608 clk R V0 93c467e37db0c7a4d1be3f810152cb56",
		"608 clk R V0 93c467e37db0c7a4_d1be3f810152cb56",
		"608 clk R Q0 93c467e3 7db0c7a4 d1be3f81 0152cb56",
	};
	for (size_t i = 0; i < 5; i++) {
		parse(q0[i]);
		CHECK(NEV == 1 && EV[0].u.reg.view.reg == TK_REG_V0 && EV[0].u.reg.view.len == 16);
		CHECK(NEV == 1 && EV[0].u.reg.value[0] == 0x56 && EV[0].u.reg.value[15] == 0x93);
	}
	/* partial updates */
	reg("123 ns R Q0 -------- -------- 3ff6a09e 667f3bcd", TK_REG_V0, 0, 16,
	    "----------------3ff6a09e667f3bcd", "Q0");
	reg("124 ns R Q0 3ff428a2 f98d728b -------- --------", TK_REG_V0, 0, 16,
	    "3ff428a2f98d728b----------------", "Q0");
	reg("R X0 -------- --------", TK_REG_X0, 0, 8, "----------------", "X0");
	reg("R X1 --------", TK_REG_X0 + 1, 0, 8, "----------------", "X1");
	/* indeterminate nibbles make the byte unknown */
	reg("         10 ns R psr xx0xxXxx", TK_REG_PSR, 0, 4, "????????", "psr");
	reg("         10 ns R fpscr xXX000Xx", TK_REG_FPSCR, 0, 4, "????00??", "fpscr");
	/* sizes */
	reg("R FPCR fedcba9876543210", TK_REG_FPCR, 0, 8, "fedcba9876543210", "FPCR");
	reg("R FPCR 76543210", TK_REG_FPCR, 0, 8, "0000000076543210", "FPCR");
	reg("R SP 01234567", TK_REG_R13, 0, 4, "01234567", "SP");
	/* AArch64 (an X-sized SP seen): a bit range on SP with a value
	 * too short for any stack pointer keeps SP's view (found by the
	 * fuzzer: it used to give an event of no register and no bytes). */
	parser(false, false);
	parse("R SP 00c400000000a2c8");
	reg("R SP<63:0> 12", TK_REG_XSP, 0, 8, "0000000000000012", "SP<63:0>");
	{
		/* The fuzzer's line: NUL bytes end the value's token early. */
		static const char l[] = "R SP<63:0> 00\x82" "000:\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0xpss";
		parser(false, false);
		parse("R SP 00c400000000a2c8");
		RC = tk_tarmac_parse_line(P, l, sizeof l - 1, ++lineno, 0, &EV, &NEV);
		for (size_t i = 0; RC == 0 && i < NEV; i++)
			CHECKF(EV[i].kind != TK_EV_REG || EV[i].u.reg.view.len > 0,
			       "a register event of no bytes (reg %u)", EV[i].u.reg.view.reg);
		CHECK(RC == 0 || RC == TK_ERR_PARSE);
	}
	reg("R SP 0123456789abcdef", TK_REG_XSP, 0, 8, "0123456789abcdef", "SP");
	reg("R X0 01234567 89abcdef", TK_REG_X0, 0, 8, "0123456789abcdef", "X0");
	reg("R SP_EL2 fedcba98 76543210", TK_REG_XSP, 0, 8, "fedcba9876543210", "SP_EL2");
	reg("8677000000 ps R cpsr 1220023cd", TK_REG_PSR, 0, 4, "220023cd", "cpsr");
	reg("1 clk R x2 0", TK_REG_X0 + 2, 0, 8, "0000000000000000", "x2");
	reg("1 clk R r3 00000000abcdef01", TK_REG_R0 + 3, 0, 4, "abcdef01", "r3");
	/* bit ranges, and the short value of the Neoverse N1 testbench */
	reg("                    R V0<127:64> ffeeddccbbaa9988", TK_REG_V0, 8, 8, "ffeeddccbbaa9988", "V0<127:64>");
	reg("                    R V0<63:0> 7766554433221100", TK_REG_V0, 0, 8, "7766554433221100", "V0<63:0>");
	reg("                    R V5<63:0> 00000000", TK_REG_V0 + 5, 0, 8, "0000000000000000", "V5<63:0>");
	/* SVE: the view is as long as the value (the vector length) */
	reg("97703 clk R Z3 40437ae4_3f9b5c75_403f687a_3fe1f6c0", TK_REG_Z0 + 3, 0, 16,
	    "40437ae43f9b5c75403f687a3fe1f6c0", "Z3");
	reg("26230 clk R P0 a682", TK_REG_P0, 0, 2, "a682", "P0");
	reg("20002 clk R P7 fedcba98_76543210", TK_REG_P0 + 7, 0, 8, "fedcba9876543210", "P7");
	parse("10004 clk R Z29 "
	      "0000003f_0000003e_0000003d_0000003c_0000003b_0000003a_00000039_00000038_00000037_00000036_00000035_00000034_00000033_00000032_00000031_00000030_"
	      "0000002f_0000002e_0000002d_0000002c_0000002b_0000002a_00000029_00000028_00000027_00000026_00000025_00000024_00000023_00000022_00000021_00000020_"
	      "0000001f_0000001e_0000001d_0000001c_0000001b_0000001a_00000019_00000018_00000017_00000016_00000015_00000014_00000013_00000012_00000011_00000010_"
	      "0000000f_0000000e_0000000d_0000000c_0000000b_0000000a_00000009_00000008_00000007_00000006_00000005_00000004_00000003_00000002_00000001_00000000");
	CHECK(RC == 0 && NEV == 1 && EV[0].u.reg.view.len == 256 && EV[0].u.reg.value[4] == 1 &&
	      EV[0].u.reg.value[252] == 0x3f);

	/* s/d: AArch64 overlay after an A64 instruction, AArch32 after A32 */
	parse("1 clk IT (1) 00008000 1e201000 O EL1h_s : FMOV s0,#2.0");
	reg("1 clk R d9 4000000000000000", TK_REG_V0 + 9, 0, 8, "4000000000000000", "d9");
	reg("1 clk R s5 40000000", TK_REG_V0 + 5, 0, 4, "40000000", "s5");
	parse("2 clk IT (2) 00008004 eeb00a00 A svc_s : VMOV.F32 s0,#2.0");
	reg("2 clk R d9 4000000000000000", TK_REG_V0 + 4, 8, 8, "4000000000000000", "d9");
	reg("2 clk R s5 40000000", TK_REG_V0 + 1, 4, 4, "40000000", "s5");
	/* before any instruction, x registers say AArch64 */
	parser(false, false);
	reg("0 clk R s1 3f800000", TK_REG_V0, 4, 4, "3f800000", "s1");
	reg("0 clk R X0 0000000000000000", TK_REG_X0, 0, 8, "0000000000000000", "X0");
	reg("0 clk R s1 3f800000", TK_REG_V0 + 1, 0, 4, "3f800000", "s1");

	/* wN in AArch32 code is the AArch32 register of the architectural
	 * mapping (seed: "also used to report register updates in 32-bit
	 * code"): x13/x14 are sp_usr/lr_usr, x15-x23 the banked sp/lr of
	 * hyp, irq, svc, abt, und, x24-x30 the fiq r8-r14. */
	parser(false, false);
	parse("1 clk IT (1) 00008000 eb000001 A svc_s : BL {pc}+0xc");
	reg("1 clk R W14 00008004", TK_REG_R14, 0, 4, "00008004", "W14");
	reg("1 clk R w13 00100000", TK_REG_R13, 0, 4, "00100000", "w13");
	reg("1 clk R W3 00000003", TK_REG_R0 + 3, 0, 4, "00000003", "W3");
	reg("1 clk R W18 00008008", TK_REG_R14, 0, 4, "00008008", "W18");	/* lr_svc */
	reg("1 clk R W19 000ffff0", TK_REG_R13, 0, 4, "000ffff0", "W19");	/* sp_svc */
	reg("1 clk R W15 00000015", TK_REG_R13, 0, 4, "00000015", "W15");	/* sp_hyp */
	reg("1 clk R W24 00000024", TK_REG_R0 + 8, 0, 4, "00000024", "W24");	/* r8_fiq */
	reg("1 clk R W30 00000030", TK_REG_R14, 0, 4, "00000030", "W30");	/* lr_fiq */
	reg("1 clk R WSP 00000040", TK_REG_XSP, 0, 4, "00000040", "WSP");	/* no AArch32 twin */
	parse("2 clk IT (2) 0000800c 4770 T svc_s : BX lr");
	reg("2 clk R W14 0000800d", TK_REG_R14, 0, 4, "0000800d", "W14");
	/* in AArch64 code, and before any instruction, wN stays xN */
	parse("3 clk IT (3) 00009000 d2808002 O EL3h_s : MOV x2,#0x400");
	reg("3 clk R W14 00000009", TK_REG_X0 + 14, 0, 4, "00000009", "W14");
	parser(false, false);
	reg("0 clk R W14 00000009", TK_REG_X0 + 14, 0, 4, "00000009", "W14");

	/* malformed */
	parser(false, false);
	bad("1 clk R X0 zz", "'zz' is not hex digits");
	bad("1 clk R", "register name is missing");
	bad("1 clk R X0", "value is missing");
	bad("1 clk R X0 0123456789abcdef01", "has 9 bytes but the register has 8");
	bad("1 clk R X0 -3", "mixes '-'");
	bad("1 clk R X0 1234:", "ends with ':'");
	bad("1 clk R X0 (USR 1234", "'(' without ')'");
	bad("1 clk R V0<63:0 1234", "'<' without '>'");
}

static void memory(void)
{
	parser(false, false);
	mem("2 clk MR4 00008034 000029b4", 0x8034, false, "b4290000");
	mem("415 clk MR1 000090c0 72", 0x90c0, false, "72");
	mem("1191 clk MR2 0000ab94 2202", 0xab94, false, "0222");
	mem("763 clk MW1 0fffffb8 00", 0xfffffb8, true, "00");
	mem("1 clk MR8 0000c7c8:00000000c7c8 00000000_0000ca68", 0xc7c8, false, "68ca000000000000");
	CHECK(EV[0].u.mem.has_paddr && EV[0].u.mem.paddr == 0xc7c8 && !EV[0].u.mem.exclusive);
	mem("180000140000 ps MR8 0000010006fffcc0:010116fffcc0_NS 00000100_05101000", 0x10006fffcc0,
	    false, "0010100500010000");
	CHECK(EV[0].u.mem.has_paddr && EV[0].u.mem.paddr == 0x10116fffcc0);
	mem("    6000001 cs R08 0000007f99d14af4 4305000042ea0000", 0x7f99d14af4, false, "0000ea4200000543");
	mem("    6000022 cs W08 0000007f99d09ef0 41fc6886421faa65", 0x7f99d09ef0, true, "65aa1f428668fc41");
	mem("    6379085 cs W04 X ffffffbdc3c15c30 010c010b", 0xffffffbdc3c15c30, true, "0b010c01");
	CHECK(EV[0].u.mem.exclusive && !EV[0].u.mem.has_paddr);
	mem("1 clk MW4X 00001000 12345678", 0x1000, true, "78563412");
	CHECK(EV[0].u.mem.exclusive);
	mem("1 clk MR02 00001000 1234", 0x1000, false, "3412");
	mem("72415 clk MR16 400171e0 400f731b40000000 3ff87cc460000000", 0x400171e0, false,
	    "00000060c47cf83f000000401b730f40");
	mem("1 clk MR4 00001000 12", 0x1000, false, "12000000");	/* zero-extended */
	parse("28491 clk MR4 dfdfdfcf (ABORTED)");
	ONE(TK_EV_MEM);
	CHECK(EV[0].u.mem.aborted && EV[0].u.mem.addr == 0xdfdfdfcf && EV[0].u.mem.size == 4 &&
	      EV[0].u.mem.state[0] == TK_BYTE_NONE);
	/* RTL M-lines: memory order, whatever the endianness */
	mem("      3039 cyc MNW4___D 2002fa00 efbeefbe", 0x2002fa00, true, "efbeefbe");
	mem("     109570 ns MSW4___D 201fffec xxxxxxxx", 0x201fffec, true, "????????");
	mem("1340833 ns MNW4____ (00000050:000000a8) 05011000 00000003", 0x05011000, true, "00000003");
	text("      3037 cyc MNR4O__I 00022ae4 f7ffffcb", "MNR4O__I");	/* instruction fetch */
	text("1359353 ns MCW4___R (01000250:000000bb) TRANSFER 00000000", "MCW4___R");
	/* Cadence: logical order; fetches ignored */
	mem("       1166.177000us MR4_D 00000000 00204800", 0, false, "00482000");
	text("       1166.205000us MR2_I 0000010a b5100000", "MR2_I");
	/* big-endian */
	parser(false, true);
	mem("2 clk MR4 00008034 000029b4", 0x8034, false, "000029b4");
	mem("1 clk MR2 00001000 1234", 0x1000, false, "1234");
	mem("      3039 cyc MNW4___D 2002fa00 efbeefbe", 0x2002fa00, true, "efbeefbe");

	parser(false, false);
	bad("1 clk MR4 zzz 00000000", "address 'zzz' is not a hex number");
	bad("1 clk MR4 1000:zz 00000000", "physical address 'zz'");
	bad("1 clk MR4 1000 123456789a", "5 bytes, more than the 4");
	bad("1 clk MR4 1000", "contents");
	bad("1 clk MR4 1000 (FOO)", "(ABORTED)");
	bad("1 clk MNW4___D 1000 1234", "2 bytes, expected 4");
	text("1 clk MR3 1000 123456", "MR3");	/* not a memory line */
}

static void diagrams(void)
{
	parser(false, false);
	parse("                    LD 00000020  ........ ........ ........ 00000080     0000000020    NM ISH INC");
	ONE(TK_EV_MEM);
	mem_n(0, 0x20, false, "80000000");
	CHECK(EV[0].u.mem.has_paddr && EV[0].u.mem.paddr == 0x20);
	parse("                    LD 00000370  ........ ......48 ........ ........     0000000370    NM ISH IWBRWA");
	ONE(TK_EV_MEM);
	mem_n(0, 0x378, false, "48");
	parse("                    ST b0000000  ........ ........ ........ ......##     00b0000000    SO ISH INC");
	ONE(TK_EV_MEM);
	mem_n(0, 0xb0000000, true, "??");
	parse("                    ST 000000009ffdb810 ........ ........ 00...... ........    S:009ffdb810    NM NSH IWTNA OWTNA");
	ONE(TK_EV_MEM);
	mem_n(0, 0x9ffdb817, true, "00");
	CHECK(EV[0].u.mem.has_paddr && EV[0].u.mem.paddr == 0x9ffdb817);
	/* several runs: one event each, lowest address first */
	parse("                    LD 000000007ff80fe0 ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH");
	CHECK(RC == 0 && NEV == 3);
	mem_n(0, 0x7ff80fe0, false, "11");
	mem_n(1, 0x7ff80fe2, false, "2222");
	mem_n(2, 0x7ff80fe8, false, "44444444");
	parse("                    ST 000000009ffdb810 ....0000 ........ 88888888 88888888    S:009ffdb810    NM NSH IWTNA OWTNA");
	CHECK(RC == 0 && NEV == 2);
	mem_n(0, 0x9ffdb810, true, "8888888888888888");
	mem_n(1, 0x9ffdb81c, true, "0000");
	/* any split of the 32 characters into whole bytes */
	parse("130 clk ST 0010000 6665646362613938 3736 353433323130 S:0000010000 nGnRnE OSH");
	CHECK(RC == 0 && NEV == 1);
	mem_n(0, 0x10000, true, "30313233343536373839616263646566");

	/* continuation lines, the second with a decimal-looking address */
	parse("  947020259 ps  ES  (000000008000d1fc:a90d8be1) O el3t_rt:        STP      x1,x2,[sp,#0xd8] ");
	parse("                    ST 000000009884cfb0  ........ ........ 00000000 000000fe  NS:000000009884cfb0   NM ISH IWBRWA");
	CHECK(NEV == 1 && EV[0].time == 947020259);
	mem_n(0, 0x9884cfb0, true, "fe00000000000000");
	parse("                       000000009884cfa0  00000000 00000007 ........ ........  NS:000000009884cfa0   NM ISH IWBRWA");
	CHECK(RC == 0 && NEV == 1 && EV[0].time == 947020259);
	mem_n(0, 0x9884cfa8, true, "0700000000000000");
	parse("                       000000009884cf90  ........ 11111111 22222222 ........  NS:000000009884cf90   NM ISH IWBRWA");
	CHECK(RC == 0 && NEV == 1);
	mem_n(0, 0x9884cf94, true, "2222222211111111");
	parse("       3981 tic ES  (000000d8:c878)     T thrd_s:         LDMCS    r0!,{r3-r6}");
	parse("                    LD 00004020  ........ 626d654d 2043424d 4545203e   S:0000000000004020  NM NSH");
	CHECK(NEV == 1);
	mem_n(0, 0x4020, false, "3e2045454d4243204d656d62");
	parse("                       00004010  3e000a73 ........ ........ ........   S:0000000000004010  NM NSH");
	CHECK(RC == 0 && NEV == 1 && EV[0].time == 3981);
	mem_n(0, 0x401c, false, "730a003e");
	/* not after an LD/ST line: a decimal-looking first word is a timestamp */
	text("                    BR (00000080) A", "BR");
	parse("00004010  3e000a73 ........ ........ ........");
	CHECK(NEV == 1 && EV[0].kind == TK_EV_TEXT && EV[0].time == 4010);

	bad("1 clk LD 1000 ........ ........", "memory diagram has 8 bytes, expected 16");
	bad("1 clk ST 1000 ........ ........ ........ ......4", "'......4'");
	bad("1 clk ST 1000 ........ ........ ........ ......4x", "'......4x'");
	bad("1 clk LD zz ........ ........ ........ ........", "address 'zz'");
}

static void others(void)
{
	parser(false, false);
	text("4541 clk CADI E simulation_stopped", "CADI");
	text("0 clk cpu0 E DebugEvent_HaltingDebugState 00000000", "E");
	text("0 ps E 00000000 00000000 CoreEvent_Reset", "E");
	text("0 clk SIGNAL: SIGNAL=VIRQ STATE=N", "SIGNAL");
	text("Tarmac Text Rev 3t", "Tarmac");
	text("                    BR (00000080) A", "BR");
	text("               EXC [0x00] Reset", "EXC");
	text("# a comment", "#");
	text("0 ps CACHE MAINTENANCE Instruction and Data cache Invalidate All to PoU 00000000", "CACHE");
	text("2000000 ps INFO_EXCEPTION_REASON: Data abort", "INFO_EXCEPTION_REASON");
	parse("4541 clk CADI E simulation_stopped");
	CHECK(NEV == 1 && eqs(EV[0].u.text.text, EV[0].u.text.len, "CADI E simulation_stopped"));

	bad("6 clk IT (1) 00008000 fa00 A svc_s : BLX", "not 8 hex digits");
	bad("7 clk IT (1) 00008000 zzzz A svc_s : BLX", "encoding 'zzzz'");
	bad("8 clk IT (1 00008000", "'(' without ')'");
	bad("9 clk ES (1000:zz) A svc: foo", "encoding 'zz'");
	bad("9 clk ES (zz:e1a00000) A svc: foo", "address 'zz'");
	bad("9 clk IT zz e1a00000 A svc: foo", "address 'zz'");
}

/* Every line of a corpus file parses, in order, with one parser. */
static void corpus(const char *dir, const char *file, bool implicit_thumb, size_t min_events)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *fp = fopen(path, "r");
	CHECKF(fp, "cannot open %s", path);
	if (!fp)
		return;
	parser(implicit_thumb, false);
	char *line = NULL;
	size_t cap = 0, events = 0;
	ssize_t n;
	uint64_t ln = 0;
	while ((n = getline(&line, &cap, fp)) >= 0) {
		ln++;
		if (n && line[n - 1] == '\n')
			n--;
		int rc = tk_tarmac_parse_line(P, line, (size_t)n, ln, 0, &EV, &NEV);
		CHECKF(rc == 0, "%s:%llu: %s", file, (unsigned long long)ln, tk_tarmac_parser_error(P));
		const char *s = line;
		while (*s == ' ')
			s++;
		if (*s != '#')
			events += NEV;
		for (size_t i = 0; i < NEV; i++)
			CHECK(EV[i].line == ln);
	}
	free(line);
	fclose(fp);
	CHECKF(events >= min_events, "%s: only %zu events", file, events);
}

int main(int argc, char **argv)
{
	instructions();
	timestamps();
	registers();
	memory();
	diagrams();
	others();
	if (argc > 1) {
		corpus(argv[1], "parsertest.txt", false, 150);
		corpus(argv[1], "parsertest-implicit-thumb.txt", true, 15);
	}
	tk_tarmac_parser_free(P);
	return check_report("test_lines");
}
