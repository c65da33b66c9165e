/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the core: instruction encodings, copying events out of
 * their source, the registry's detection and options, and seeking back to
 * a record.  Usage: test_core TRACES_DIR WORK_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/event.h"
#include "tracekit/source.h"

static const char *traces, *work;

static void test_encodings(void)
{
	/* A32 and A64: one little-endian word */
	tk_insn in = {.isa = TK_ISA_A64};
	tk_insn_set_encoding(&in, 0xd2a00200, 4);
	CHECK(in.nbytes == 4 && in.bytes[0] == 0x00 && in.bytes[1] == 0x02 &&
	      in.bytes[2] == 0xa0 && in.bytes[3] == 0xd2);
	CHECK_EQ(tk_insn_encoding(&in), 0xd2a00200);
	/* T32, 32-bit: hw1 first, each halfword little-endian */
	in = (tk_insn){.isa = TK_ISA_T32};
	tk_insn_set_encoding(&in, 0xf000f800, 4);
	CHECK(in.bytes[0] == 0x00 && in.bytes[1] == 0xf0 && in.bytes[2] == 0x00 &&
	      in.bytes[3] == 0xf8);
	CHECK_EQ(tk_insn_encoding(&in), 0xf000f800);
	tk_insn_set_encoding(&in, 0xbeab, 2);
	CHECK(in.nbytes == 2 && in.bytes[0] == 0xab && in.bytes[1] == 0xbe);
	CHECK_EQ(tk_insn_encoding(&in), 0xbeab);
	/* POWER: big-endian words, a prefixed pair prefix first */
	in = (tk_insn){.isa = TK_ISA_PPC64};
	tk_insn_set_encoding(&in, 0x0600000038600001ull, 8);
	CHECK(in.bytes[0] == 0x06 && in.bytes[3] == 0x00 && in.bytes[4] == 0x38 &&
	      in.bytes[7] == 0x01);
	CHECK_EQ(tk_insn_encoding(&in), 0x0600000038600001ull);
	/* x86: memory order; the number reads the bytes big-endian */
	in = (tk_insn){.isa = TK_ISA_X86_64, .nbytes = 3, .bytes = {0x48, 0x89, 0xe5}};
	CHECK_EQ(tk_insn_encoding(&in), 0x4889e5);
	in.nbytes = 0;
	CHECK_EQ(tk_insn_encoding(&in), 0);
}

static void test_copy(void)
{
	static const uint8_t val[4] = {1, 2, 3, 4}, st[4] = {1, 1, 2, 1}, b1[2] = {7, 8};
	static const tk_value vals[2] = {{"int", 3, val, 4}, {"char *", 6, b1, 2}};
	char raw[] = "10 0 enter 1000 main";
	tk_event ev = {.kind = TK_EV_CALL, .context = 3, .time = 10, .line = 4, .offset = 99,
		       .raw = raw, .raw_len = strlen(raw)};
	ev.u.func = (tk_func_event){.addr = 0x1000, .site = 0x20, .name = "main", .name_len = 4,
				    .nvalues = 2, .values = vals};
	tk_event *c;
	CHECK(tk_event_copy(&ev, 0, &c) == 0);
	raw[0] = 'X';	/* the copy does not point into the source */
	CHECK(c->kind == TK_EV_CALL && c->context == 3 && c->line == 4 && c->offset == 99);
	CHECK(c->raw != raw && c->raw_len == 20 && !memcmp(c->raw, "10 0 enter", 10));
	CHECK(c->u.func.name != ev.u.func.name && !memcmp(c->u.func.name, "main", 4));
	CHECK(c->u.func.nvalues == 2 && c->u.func.values != vals);
	CHECK(c->u.func.values[0].size == 4 && !memcmp(c->u.func.values[0].bytes, val, 4) &&
	      c->u.func.values[0].bytes != val);
	CHECK(!memcmp(c->u.func.values[1].type, "char *", 6));
	free(c);

	/* data only: no text, but the values and the function name stay */
	tk_event reg = {.kind = TK_EV_REG, .raw = raw, .raw_len = 5};
	reg.u.reg = (tk_reg_update){.view = {TK_REG_R0, 0, 4}, .name = "r0", .name_len = 2,
				    .value = val, .state = st};
	size_t n = tk_event_copy_size(&reg, TK_COPY_DATA_ONLY);
	CHECK(n < tk_event_copy_size(&reg, 0));
	_Alignas(max_align_t) char buf[512];
	CHECK(tk_event_copy_into(&reg, TK_COPY_DATA_ONLY, buf, n - 1) == NULL);
	c = tk_event_copy_into(&reg, TK_COPY_DATA_ONLY, buf, sizeof buf);
	CHECK(c && c->raw == NULL && c->u.reg.name_len == 0 && !memcmp(c->u.reg.value, val, 4) &&
	      !memcmp(c->u.reg.state, st, 4) && (const char *)c->u.reg.value >= buf &&
	      (const char *)c->u.reg.value < buf + sizeof buf);
	c = tk_event_copy_into(&ev, TK_COPY_DATA_ONLY, buf, sizeof buf);
	CHECK(c && c->u.func.name_len == 4 && !memcmp(c->u.func.name, "main", 4));
	CHECK(c->u.func.values[0].type_len == 0 && c->u.func.values[1].size == 2);
	tk_event gap = {.kind = TK_EV_GAP};
	gap.u.gap = (tk_gap){TK_GAP_OVERFLOW, "lost", 4};
	CHECK(tk_event_copy(&gap, 0, &c) == 0 && c->u.gap.kind == TK_GAP_OVERFLOW &&
	      !memcmp(c->u.gap.msg, "lost", 4));
	free(c);
}

static const char *detect(const char *path)
{
	const tk_source_format *f;
	return tk_source_detect(path, NULL, &f) == 0 ? f->name : "none";
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
}

static void test_registry(void)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/quicksort.tarmac", traces);
	CHECK_STR(detect(p), "tarmac");
	/* by content, not by name */
	snprintf(p, sizeof p, "%s/ft.tarmac", work);
	write_file(p, "# tracekit function trace\n1 0 enter 10 f\n");
	CHECK_STR(detect(p), "functext");
	snprintf(p, sizeof p, "%s/t.functext", work);
	write_file(p, "0 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0\n");
	CHECK_STR(detect(p), "tarmac");
	CHECK(tk_source_format_find("tarmac") && !tk_source_format_find("nonesuch"));
	const tk_source_format *const *all;
	CHECK(tk_source_formats(&all) >= 2);

	/* the options that change the events, canonical */
	const tk_source_format *tarmac = tk_source_format_find("tarmac");
	tk_source_opt opts[] = {{"li", ""}, {"implicit-thumb", ""}, {"bi", ""}};
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.opts = opts;
	spec.nopts = 3;
	char *key;
	CHECK(tk_source_options_key(tarmac, &spec, &key) == 0);
	CHECK_STR(key, "bi,implicit-thumb");
	free(key);
	spec.nopts = 1;
	CHECK(tk_source_options_key(tarmac, &spec, &key) == 0);
	CHECK_STR(key, "");
	free(key);

	/* an unknown format named is refused; info comes from the format */
	spec.nopts = 0;
	spec.format = "nonesuch";
	tk_source *src;
	CHECK(tk_source_open(p, &spec, &src) == TK_ERR_NOTFOUND);
	spec.format = "tarmac";
	CHECK(tk_source_open(p, &spec, &src) == 0);
	tk_source_info info = {.size = sizeof info};
	CHECK(tk_source_get_info(src, &info) == 0);
	CHECK_STR(info.format, "tarmac");
	CHECK((info.caps & TK_CAP_REGS) && (info.caps & TK_CAP_SEEK) && info.time_unit == TK_TIME_TICKS);
	tk_event ev;
	CHECK(tk_source_next(src, &ev) == 1 && ev.kind == TK_EV_INSN);
	CHECK(tk_source_get_info(src, &info) == 0 && info.isa == TK_ISA_A32);
	tk_source_free(src);
}

/* Read the whole trace, then seek back to every instruction line and read
 * its line's events again: the same events. */
static void test_seek(void)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/calculator-aarch64-es-ld-st-style.tarmac", traces);
	tk_source *a, *b;
	CHECK(tk_source_open(p, NULL, &a) == 0 && tk_source_open(p, NULL, &b) == 0);
	tk_event ev, again;
	uint64_t n = 0, checked = 0, prev_time = 0;
	while (tk_source_next(a, &ev) == 1 && checked < 2000) {
		n++;
		if (ev.kind != TK_EV_INSN || n % 7)
			continue;
		tk_seek_point at = {ev.offset, ev.line, prev_time, ev.context};
		CHECK(tk_source_seek(b, &at) == 0);
		CHECK(tk_source_next(b, &again) == 1);
		CHECKF(again.kind == TK_EV_INSN && again.line == ev.line && again.offset == ev.offset &&
		       again.time == ev.time && again.u.insn.pc == ev.u.insn.pc &&
		       tk_insn_encoding(&again.u.insn) == tk_insn_encoding(&ev.u.insn) &&
		       again.raw_len == ev.raw_len, "line %llu", (unsigned long long)ev.line);
		checked++;
		prev_time = ev.time;
	}
	CHECKF(checked > 500, "%llu lines checked", (unsigned long long)checked);
	tk_seek_point bad = {1ull << 40, 1, 0, 0};
	CHECK(tk_source_seek(b, &bad) == TK_ERR_INVAL);
	tk_source_free(a);
	tk_source_free(b);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_core TRACES_DIR WORK_DIR\n");
		return 2;
	}
	traces = argv[1];
	work = argv[2];
	test_encodings();
	test_copy();
	test_registry();
	test_seek();
	return check_report("core");
}
