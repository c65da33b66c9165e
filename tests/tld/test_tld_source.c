/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The "tld" trace source on dumps written here: detection by content,
 * what tk_source_info says, every record as a CALL or RETURN event with
 * its values, threads as contexts, the gap of a full buffer and of damage,
 * and the source-neutral call detector on unbalanced records (an exit
 * whose entry was not recorded, entries whose exits were lost) and on
 * several threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "tracekit/calls.h"
#include "tracekit/error.h"
#include "tracekit/source.h"
#include "tracekit/tld_dump.h"

static char diags[4096];

static void collect(void *ctx, const tk_diag *d)
{
	(void)ctx;
	size_t n = strlen(diags);
	snprintf(diags + n, sizeof diags - n, "%s: %s%s\n",
		 d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note",
		 d->has_offset ? "at offset: " : "", d->msg);
}

/* outer(int) -> int, leaf(int) -> int, idle(void) */
static const uint32_t int_sizes[] = {4, 4}, void_sizes[] = {0, 0};
static const char *const int_types[] = {"int", "int"};
static const char *const void_types[] = {"void", "void"};
static const tk_tld_func funcs[] = {
	{"outer", 0x1000, 2, int_sizes, int_types},
	{"leaf", 0x2000, 2, int_sizes, int_types},
	{"idle", 0x3000, 2, void_sizes, void_types},
};

struct buf {
	uint8_t b[4096];
	size_t n;
	bool big;
};

static void put32(struct buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[b->n + (size_t)(b->big ? 3 - i : i)] = (uint8_t)(v >> (8 * i));
	b->n += 4;
}

/* A record of function f: entry (value = the argument) or exit (the
 * return value; none for idle). */
static void rec(struct buf *b, uint32_t f, bool exit, uint32_t thread, uint64_t time, uint32_t value)
{
	bool has = f != 2;
	put32(b, f | (uint32_t)(24 + (has ? 4 : 0)) << 16 | (exit ? 1u << 30 : 0));
	put32(b, thread);
	put32(b, 0);
	put32(b, 0);
	put32(b, (uint32_t)(time >> 32));
	put32(b, (uint32_t)time);
	if (has)
		put32(b, value);
}

static char path[64];

static void write_dump(const struct buf *b, tk_tld_clock clock, bool finished, size_t cut)
{
	tk_tld_dump_info info = {
		.size = sizeof info, .big_endian = b->big, .pointer_size = 8, .clock = clock,
		.machine = 62, .finished = finished, .capacity_words = 1024,
		.used_words = (uint32_t)(b->n / 4),
	};
	FILE *fp = fopen(path, "wb");
	CHECK(fp && tk_tld_dump_write(fp, &info, funcs, 3, b->b) == 0);
	fclose(fp);
	if (cut)
		CHECK(truncate(path, (off_t)cut) == 0);
}

static tk_source *open_src(void)
{
	diags[0] = 0;
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.diag = collect;
	tk_source *src = NULL;
	int rc = tk_source_open(path, &spec, &src);
	CHECKF(rc == 0, "open: %d %s", rc, diags);
	return src;
}

/* The records of a buffer as events, and what the source says. */
static void test_events(bool big)
{
	struct buf b = {.big = big};
	rec(&b, 0, false, 7, 100, 3);	/* outer(3) on thread 7 */
	rec(&b, 1, false, 7, 110, 4);	/* leaf(4) */
	rec(&b, 1, true, 7, 120, 8);
	rec(&b, 2, false, 9, 130, 0);	/* idle() on thread 9 */
	rec(&b, 2, true, 9, 140, 0);
	rec(&b, 0, true, 7, 150, 8);
	write_dump(&b, TK_TLD_CLOCK_TICKS, false, 0);
	tk_source *src = open_src();
	if (!src)
		return;
	tk_source_info si = {.size = sizeof si};
	CHECK(tk_source_get_info(src, &si) == 0);
	CHECK_STR(si.format, "tld");
	CHECK(si.time_unit == TK_TIME_TICKS);
	CHECK(si.big_endian == big);
	CHECK_STR(si.context_name, "thread");
	CHECK((si.caps & (TK_CAP_FUNCS | TK_CAP_CALLS)) == (TK_CAP_FUNCS | TK_CAP_CALLS));
	CHECK(!(si.caps & (TK_CAP_INSNS | TK_CAP_CONTEXTS)));
	static const struct {
		tk_event_kind kind;
		uint32_t ctx;
		uint64_t time, addr;
		const char *name;
		uint32_t nvalues;
	} want[] = {
		{TK_EV_CALL, 0, 100, 0x1000, "outer", 1}, {TK_EV_CALL, 0, 110, 0x2000, "leaf", 1},
		{TK_EV_RETURN, 0, 120, 0x2000, "leaf", 1}, {TK_EV_CALL, 1, 130, 0x3000, "idle", 0},
		{TK_EV_RETURN, 1, 140, 0x3000, "idle", 0}, {TK_EV_RETURN, 0, 150, 0x1000, "outer", 1},
	};
	tk_event ev;
	uint64_t first_offset = 0;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CHECK(tk_source_next(src, &ev) == 1);
		CHECKF(ev.kind == want[i].kind && ev.context == want[i].ctx && ev.time == want[i].time &&
			       ev.u.func.addr == want[i].addr && ev.line == i + 1 &&
			       ev.u.func.nvalues == want[i].nvalues,
		       "event %zu", i);
		CHECK(ev.u.func.name_len == strlen(want[i].name) &&
		      !memcmp(ev.u.func.name, want[i].name, ev.u.func.name_len));
		if (i == 0)
			first_offset = ev.offset;
		if (i == 1) {	/* leaf(4): 4 bytes in the target's order */
			const tk_value *v = &ev.u.func.values[0];
			CHECK(v->size == 4 && v->type_len == 3 && !memcmp(v->type, "int", 3));
			CHECK(v->bytes[big ? 3 : 0] == 4 && v->bytes[big ? 0 : 3] == 0);
			CHECK(ev.offset == first_offset + 28);
		}
	}
	CHECK(tk_source_next(src, &ev) == 0);
	CHECK(tk_source_next(src, &ev) == 0);
	CHECK(tk_source_get_info(src, &si) == 0);
	CHECK(si.caps & TK_CAP_CONTEXTS);	/* a second thread was seen */
	/* Seek back to record 2. */
	tk_seek_point at = {first_offset + 28, 2, 100, 0};
	CHECK(tk_source_seek(src, &at) == 0);
	CHECK(tk_source_next(src, &ev) == 1 && ev.line == 2 && ev.time == 110);
	CHECK(diags[0] == 0);
	tk_source_free(src);
}

/* Feed the whole source to the call detector. */
static tk_calltree *calls_of(tk_source *src, uint32_t *gaps)
{
	tk_calls_opts co;
	tk_calls_opts_init(&co);
	co.steps = TK_STEPS_FUNCS;
	tk_calls *c;
	CHECK(tk_calls_new(&co, &c) == 0);
	tk_event ev;
	*gaps = 0;
	while (tk_source_next(src, &ev) == 1) {
		*gaps += ev.kind == TK_EV_GAP;
		CHECK(tk_calls_feed(c, &ev) == 0);
	}
	tk_calltree *t = NULL;
	CHECK(tk_calls_finish(c, &t) == 0);
	tk_calls_free(c);
	return t;
}

/* Unbalanced records: the buffer was triggered inside a call (an exit
 * without its entry), then filled up (entries without exits). */
static void test_unbalanced(void)
{
	struct buf b = {0};
	rec(&b, 1, true, 5, 10, 0);	/* leaf's exit, its entry not recorded */
	rec(&b, 0, false, 5, 20, 2);	/* outer(2) */
	rec(&b, 1, false, 5, 30, 0);	/* leaf(0) */
	rec(&b, 1, true, 5, 40, 0);
	rec(&b, 1, false, 5, 50, 1);	/* leaf(1): the buffer fills */
	write_dump(&b, TK_TLD_CLOCK_NS, true, 0);
	tk_source *src = open_src();
	if (!src)
		return;
	uint32_t gaps;
	tk_calltree *t = calls_of(src, &gaps);
	CHECK(gaps == 1);
	CHECKF(strstr(diags, "warning: at offset: the trace buffer filled up after record 5") != NULL,
	       "%s", diags);
	/* root, outer, leaf(0), leaf(1): outer and leaf(1) close at the end. */
	CHECKF(t && t->count == 4 && t->nroots == 1, "count %u", t ? t->count : 0);
	if (t && t->count == 4) {
		CHECK(t->calls[0].entry.time == 10 && t->calls[0].exit.time == 50);
		uint32_t outer = t->calls[0].first_child;
		CHECK(outer != TK_CALL_NONE && t->calls[outer].entry.pc == 0x1000);
		CHECK(t->calls[outer].exit.time == 50);
		uint32_t l0 = t->calls[outer].first_child;
		CHECK(l0 != TK_CALL_NONE && t->calls[l0].entry.pc == 0x2000);
		uint32_t l1 = l0 != TK_CALL_NONE ? t->calls[l0].next_sibling : TK_CALL_NONE;
		CHECK(l1 != TK_CALL_NONE && t->calls[l1].entry.time == 50);
	}
	tk_calltree_free(t);
	tk_source_free(src);
}

/* Two threads interleaved: one call stack each (a return on one thread
 * never closes a call of the other). */
static void test_threads(void)
{
	struct buf b = {0};
	rec(&b, 0, false, 1, 10, 1);	/* A: outer */
	rec(&b, 0, false, 2, 11, 1);	/* B: outer */
	rec(&b, 1, false, 1, 12, 0);	/* A: leaf */
	rec(&b, 0, true, 2, 13, 0);	/* B: outer returns */
	rec(&b, 1, true, 1, 14, 0);	/* A: leaf returns */
	rec(&b, 0, true, 1, 15, 0);	/* A: outer returns */
	write_dump(&b, TK_TLD_CLOCK_SEQUENCE, false, 0);
	tk_source *src = open_src();
	if (!src)
		return;
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(src, &si);
	CHECK(si.time_unit == TK_TIME_RECORDS);
	uint32_t gaps;
	tk_calltree *t = calls_of(src, &gaps);
	CHECK(gaps == 0);
	CHECKF(t && t->nroots == 2 && t->count == 5, "roots %u count %u", t ? t->nroots : 0,
	       t ? t->count : 0);
	if (t && t->count == 5) {
		uint32_t a = t->calls[0].first_child;
		CHECK(a != TK_CALL_NONE && t->calls[a].exit.time == 15 &&
		      t->calls[a].first_child != TK_CALL_NONE);
		uint32_t rb = t->calls[0].next_sibling;
		CHECK(rb != TK_CALL_NONE && t->calls[rb].context == 1);
		uint32_t bo = rb != TK_CALL_NONE ? t->calls[rb].first_child : TK_CALL_NONE;
		CHECK(bo != TK_CALL_NONE && t->calls[bo].exit.time == 13 &&
		      t->calls[bo].first_child == TK_CALL_NONE);
	}
	tk_calltree_free(t);
	tk_source_free(src);
}

/* Damage: the records before it, then a decode-error gap and a warning
 * naming the byte offset; an empty or headless file does not open. */
static void test_damage(void)
{
	struct buf b = {0};
	rec(&b, 0, false, 1, 10, 1);
	rec(&b, 0, true, 1, 20, 1);
	rec(&b, 1, false, 1, 30, 1);
	write_dump(&b, TK_TLD_CLOCK_NS, false, 0);
	FILE *fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	long size = ftell(fp);
	fclose(fp);
	write_dump(&b, TK_TLD_CLOCK_NS, false, (size_t)size - 3);
	tk_source *src = open_src();
	if (!src)
		return;
	tk_event ev;
	int n = 0;
	while (tk_source_next(src, &ev) == 1 && ev.kind != TK_EV_GAP)
		n++;
	CHECK(n == 2);
	CHECK(ev.kind == TK_EV_GAP && ev.u.gap.kind == TK_GAP_DECODE_ERROR && ev.line == 3);
	CHECK(ev.offset == (uint64_t)size - 28);
	CHECK(tk_source_next(src, &ev) == 0);
	CHECKF(strstr(diags, "warning: at offset: record 3: the file ends inside it (truncated); "
			     "the trace ends there (2 records before it are used)") != NULL,
	       "%s", diags);
	tk_source_free(src);

	write_dump(&b, TK_TLD_CLOCK_NS, false, 20);	/* inside the header */
	diags[0] = 0;
	tk_source_spec spec;
	tk_source_spec_init(&spec);
	spec.diag = collect;
	CHECK(tk_source_open(path, &spec, &src) < 0);
	CHECKF(strstr(diags, "error: byte offset") != NULL, "%s", diags);
}

int main(void)
{
	snprintf(path, sizeof path, "/tmp/tk-tld-source-%d.bin", (int)getpid());
	test_events(false);
	test_events(true);
	test_unbalanced();
	test_threads();
	test_damage();
	unlink(path);
	return check_report("test_tld_source");
}
