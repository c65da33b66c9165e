/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test of lib/export/vcd_writer.c: the exact text of a small dump
 * (header, shortest value forms, text, partial updates, unchanged values
 * written once, times only when something changed), the argument checks,
 * and a dump in the style of Arm's tarmac-vcd (integers without a bit
 * range, a "bit", GTKWave strings with their escapes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracekit/error.h"
#include "tracekit/vcd.h"

#include "../check.h"

static const char expected[] =
	"$date\n\ttoday\n$end\n"
	"$version\n\ttest 1 ($ end)\n$end\n"
	"$timescale 1 ps $end\n"
	"$scope module top $end\n"
	"$var wire 1 ! clk $end\n"
	"$var reg 32 \" r [31:0] $end\n"
	"$scope module sub $end\n"
	"$var reg 24 % s [23:0] $end\n"
	"$upscope $end\n"
	"$var wire 16 & bus [15:0] $end\n"
	"$upscope $end\n"
	"$enddefinitions $end\n"
	"#0\n"
	"$dumpvars\n"
	"x!\n"
	"bx \"\n"
	"bx %\n"
	"bx &\n"
	"$end\n"
	/* changes at time 0, after the initial values */
	"1!\n"
	"b0 \"\n"
	"#5\n"
	"b10010001101000101011001111000 \"\n"	/* 0x12345678: no leading 0 */
	"b11000010110001001100011 %\n"		/* "abc", a leading 0 bit dropped */
	"bz &\n"
	"#7\n"
	"b0xxxxxxxx0000000001111000 \"\n"	/* 0x00??0078: one 0 kept before x */
	"b1100010 %\n"				/* "b": NULs above dropped */
	"#9\n"
	"bx00000001 &\n"			/* x above a known byte */
	"0!\n"
	"b11111111111111111111111111111111 \"\n";

static const char expected_arm[] =
	"$timescale 1 ns $end\n"
	"$scope module CPU $end\n"
	"$var integer 64 ! x0 $end\n"
	"$var string 1 \" InstAsm $end\n"
	"$var bit 1 % InstExecuted $end\n"
	"$var string 1 & MemRW $end\n"
	"$upscope $end\n"
	"$enddefinitions $end\n"
	"#0\n"
	"$dumpvars\n"
	"bx !\n"
	"s \"\n"
	"x%\n"
	"s &\n"
	"$end\n"
	"#1\n"
	"b100000000000000000000 !\n"
	"sMOV\\040x0,#0x100000 \"\n"	/* a blank is \040 */
	"1%\n"
	"sW &\n"
	"#2\n"
	"sa\\tb\\\\c\\?\\\"\\001\\377 \"\n"	/* C escapes, octal for the rest */
	"s &\n";

/* The Arm-style dump: integers, a bit, strings. */
static void arm_style(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	tk_vcd_opts o;
	tk_vcd_opts_init(&o);
	tk_vcd *w;
	CHECK(tk_vcd_new(fp, &o, &w) == 0);
	tk_vcd_var x0, asm_, exec, rw, bad;
	CHECK(tk_vcd_scope(w, "CPU") == 0);
	CHECK(tk_vcd_add_var(w, "integer", 64, "x0", &x0) == 0);
	CHECK(tk_vcd_add_string(w, "InstAsm", &asm_) == 0);
	CHECK(tk_vcd_add_var(w, "bit", 1, "InstExecuted", &exec) == 0);
	CHECK(tk_vcd_add_string(w, "MemRW", &rw) == 0);
	CHECKF(tk_vcd_add_string(w, "2bad", &bad) == TK_ERR_INVAL, "bad string name refused");
	CHECK(tk_vcd_begin(w) == 0);
	CHECKF(tk_vcd_add_string(w, "late", &bad) == TK_ERR_INVAL, "string after begin refused");
	CHECK(tk_vcd_time(w, 1) == 0);
	tk_vcd_set_u64(w, x0, 0x100000);
	tk_vcd_set_string(w, asm_, "MOV x0,#0x100000", 16);
	tk_vcd_set_u64(w, exec, 1);
	tk_vcd_set_string(w, rw, "W", 1);
	tk_vcd_set_u64(w, asm_, 5);		/* not a number variable: ignored */
	tk_vcd_set_string(w, x0, "no", 2);	/* not a string variable: ignored */
	CHECK(tk_vcd_time(w, 2) == 0);
	tk_vcd_set_string(w, asm_, "a\tb\\c?\"\001\377", 9);
	tk_vcd_set_string(w, rw, "", 0);
	tk_vcd_set_u64(w, exec, 1);		/* unchanged: not written */
	CHECK(tk_vcd_time(w, 3) == 0);
	tk_vcd_set_string(w, rw, "", 0);	/* unchanged */
	CHECK(tk_vcd_finish(w) == 0);
	tk_vcd_free(w);
	fclose(fp);
	if (len != strlen(expected_arm) || memcmp(buf, expected_arm, len) != 0) {
		check_failures++;
		fprintf(stderr, "FAIL: Arm-style dump differs.\n--- got:\n%s--- expected:\n%s", buf,
			expected_arm);
	}
	free(buf);
}

int main(void)
{
	arm_style();
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	tk_vcd_opts o;
	tk_vcd_opts_init(&o);
	CHECKF(!strcmp(o.timescale, "1 ns"), "default timescale");
	o.date = "today";
	o.version = "test 1 ($end)";
	o.timescale = "1 ps";
	tk_vcd *w;
	CHECKF(tk_vcd_new(fp, &o, &w) == 0, "new");
	tk_vcd_var clk, r, s, bus, bad;
	CHECKF(tk_vcd_scope(w, "top") == 0, "scope");
	CHECKF(tk_vcd_add_var(w, "wire", 1, "clk", &clk) == 0, "clk");
	CHECKF(tk_vcd_add_var(w, "reg", 32, "r", &r) == 0, "r");
	CHECKF(tk_vcd_add_var(w, "reg", 12, "odd", &bad) == TK_ERR_INVAL, "12 bits refused");
	CHECKF(tk_vcd_add_var(w, "bogus", 8, "t", &bad) == TK_ERR_INVAL, "bad type refused");
	CHECKF(tk_vcd_add_var(w, "reg", 8, "9x", &bad) == TK_ERR_INVAL, "bad name refused");
	CHECKF(tk_vcd_scope(w, "sub") == 0, "scope sub");
	CHECKF(tk_vcd_add_var(w, "reg", 24, "s", &s) == 0, "s");
	CHECKF(tk_vcd_upscope(w) == 0, "upscope");
	CHECKF(tk_vcd_add_var(w, "wire", 16, "bus", &bus) == 0, "bus");
	CHECKF(tk_vcd_begin(w) == 0, "begin");
	CHECKF(tk_vcd_add_var(w, "wire", 8, "late", &bad) == TK_ERR_INVAL, "var after begin");

	tk_vcd_set_u64(w, clk, 1);
	tk_vcd_set_u64(w, r, 0);
	tk_vcd_set_all(w, bus, TK_VCD_X);	/* unchanged: not written */
	CHECKF(tk_vcd_time(w, 5) == 0, "time 5");
	tk_vcd_set_u64(w, r, 0x12345678);
	tk_vcd_set_text(w, s, "abc", 3);
	tk_vcd_set_all(w, bus, TK_VCD_Z);
	tk_vcd_set_u64(w, clk, 1);		/* unchanged */
	CHECKF(tk_vcd_time(w, 6) == 0, "time 6");
	/* nothing changes at 6: no "#6" */
	tk_vcd_set_u64(w, clk, 1);
	CHECKF(tk_vcd_time(w, 7) == 0, "time 7");
	uint8_t v[4] = {0x78, 0, 0xee, 0};
	uint8_t st[4] = {TK_VCD_KNOWN, TK_VCD_KNOWN, TK_VCD_X, TK_VCD_KNOWN};
	tk_vcd_set_bytes(w, r, 0, v, st, 4);
	tk_vcd_set_text(w, s, "b", 1);
	CHECKF(tk_vcd_time(w, 9) == 0, "time 9");
	uint8_t v2[2] = {1, 0}, st2[2] = {TK_VCD_KNOWN, TK_VCD_X};
	tk_vcd_set_bytes(w, bus, 0, v2, st2, 2);
	tk_vcd_set_u64(w, clk, 0);
	/* A partial update keeping the other bytes: all ones, in two steps. */
	uint8_t ff[4] = {0xff, 0xff, 0xff, 0xff};
	uint8_t keep[4] = {TK_VCD_KNOWN, TK_VCD_KNOWN, TK_VCD_KEEP, TK_VCD_KEEP};
	tk_vcd_set_bytes(w, r, 0, ff, NULL, 4);
	tk_vcd_set_bytes(w, r, 0, ff, keep, 4);
	CHECKF(tk_vcd_time(w, 8) == TK_ERR_INVAL, "time going back refused");
	CHECKF(tk_vcd_now(w) == 9, "now");
	CHECKF(tk_vcd_finish(w) == 0, "finish");
	tk_vcd_free(w);
	fclose(fp);

	if (len != strlen(expected) || memcmp(buf, expected, len) != 0) {
		check_failures++;
		fprintf(stderr, "FAIL: dump differs.\n--- got:\n%s--- expected:\n%s", buf, expected);
	}
	free(buf);

	CHECKF(tk_vcd_new(stdout, &(tk_vcd_opts){.size = sizeof o, .timescale = "3 ns"}, &w) ==
		      TK_ERR_INVAL,
	      "bad timescale refused");

	return check_report("vcd writer");
}
