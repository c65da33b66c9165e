/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dump and rtrace readers on files made here: a dump written by
 * tk_tld_dump_write in both byte orders, the same records as an `rtrace
 * save` file, and every kind of damage: the file cut at every length,
 * corrupt headers, records and tables.  The records before the damage
 * must come out, then one error naming the file and the byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/tld_dump.h"

static char diags[8192];

static void collect(void *ctx, const tk_diag *d)
{
	(void)ctx;
	size_t n = strlen(diags);
	snprintf(diags + n, sizeof diags - n, "%s: %s: %s\n", d->file,
		 d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note",
		 d->msg);
}

/* The functions: add(int, int) -> int, hello(const char *), tick(void),
 * huge(struct of 20000 bytes) -> unsigned. */
static const uint32_t add_sizes[] = {4, 4, 4}, hello_sizes[] = {0, 8}, tick_sizes[] = {0, 0},
		      huge_sizes[] = {4, 20000};
static const char *const add_types[] = {"int", "int", "int"};
static const char *const hello_types[] = {"void", "const char *"};
static const char *const tick_types[] = {"void", "void"};
static const char *const huge_types[] = {"unsigned int", "struct huge"};
static const tk_tld_func funcs[] = {
	{"add", 0x401000, 3, add_sizes, add_types},
	{"hello", 0x401100, 2, hello_sizes, hello_types},
	{"tick", 0x401200, 2, tick_sizes, tick_types},
	{"huge", 0x401300, 2, huge_sizes, huge_types},
};

struct buf {
	uint8_t *b;
	size_t n, cap;
	bool big;
};

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->b = realloc(b->b, b->cap);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[b->big ? 3 - i : i] = (uint8_t)(v >> (8 * i));
	put_bytes(b, x, 4);
}

/* One record: header with the size its signature gives (cut at the
 * maximum), then the payload (memory-order bytes), padded. */
static void record(struct buf *b, uint32_t index, bool exit, uint32_t thread, uint64_t time,
		   const void *payload, size_t len)
{
	size_t size = 24 + len;
	if (size > TK_TLD_RECORD_MAX) {
		size = TK_TLD_RECORD_MAX;
		len = size - 24;
	}
	put32(b, index | (uint32_t)size << 16 | (exit ? 1u << 30 : 0));
	put32(b, thread);
	put32(b, 0x0102);
	put32(b, 7);
	put32(b, (uint32_t)(time >> 32));
	put32(b, (uint32_t)time);
	put_bytes(b, payload, len);
	static const uint8_t zero[4];
	put_bytes(b, zero, (4 - size % 4) % 4);
}

static uint8_t huge_arg[20000];
static size_t record_offsets[16];	/* within the buffer */
static size_t nrecords;

static struct buf make_buffer(bool big)
{
	struct buf b = {NULL, 0, 0, big};
	nrecords = 0;
	uint8_t two_three[8] = {2, 0, 0, 0, 3, 0, 0, 0}, five[4] = {5, 0, 0, 0};
	uint8_t ptr[8] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0, 0};
	uint8_t sum[4] = {0xaa, 0xbb, 0xcc, 0xdd};
	if (big) {
		/* ints in memory order of a big-endian target */
		memset(two_three, 0, 8);
		two_three[3] = 2;
		two_three[7] = 3;
		memset(five, 0, 4);
		five[3] = 5;
	}
	for (size_t i = 0; i < sizeof huge_arg; i++)
		huge_arg[i] = (uint8_t)(i * 7 + 1);
#define REC(...) (record_offsets[nrecords++] = b.n, record(&b, __VA_ARGS__))
	REC(0, false, 100, 1000, two_three, 8);	/* add(2, 3) */
	REC(1, false, 100, 1001, ptr, 8);	/* hello(ptr) nested */
	REC(1, true, 100, 1002, NULL, 0);
	REC(0, true, 100, 0x100000003ull, five, 4);	/* add returns 5 */
	REC(2, false, 200, 0x100000004ull, NULL, 0);	/* tick() on another thread */
	REC(2, true, 200, 0x100000005ull, NULL, 0);
	REC(3, false, 100, 0x100000006ull, huge_arg, sizeof huge_arg);	/* cut */
	REC(3, true, 100, 0x100000007ull, sum, 4);
#undef REC
	return b;
}

static struct buf make_dump(bool big, bool finished)
{
	struct buf rec = make_buffer(big);
	tk_tld_dump_info info = {
		.size = sizeof info, .big_endian = big, .pointer_size = 8,
		.clock = TK_TLD_CLOCK_NS, .clock_hz = 1000000000, .machine = 62,
		.finished = finished, .triggered = true, .mode = 0x300,
		.capacity_words = 100000, .used_words = (uint32_t)(rec.n / 4),
	};
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	CHECK(tk_tld_dump_write(fp, &info, funcs, 4, rec.b) == 0);
	fclose(fp);
	free(rec.b);
	return (struct buf){(uint8_t *)data, len, len, big};
}

/* The header and table size of a dump (where the records start). */
static size_t buffer_start(const struct buf *d)
{
	tk_tld_dump *r;
	CHECK(tk_tld_dump_open_mem(d->b, d->n, "x", NULL, &r) == 0);
	size_t off = (size_t)tk_tld_dump_get_info(r)->buffer_offset;
	tk_tld_dump_free(r);
	return off;
}

static void check_records(tk_tld_dump *r, bool big)
{
	tk_tld_record rec;
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK(!rec.exit);
	CHECK_STR(rec.name, "add");
	CHECK_EQ(rec.name_len, 3);
	CHECK_EQ(rec.addr, 0x401000);
	CHECK_EQ(rec.time, 1000);
	CHECK_EQ(rec.number, 1);
	CHECK_EQ(rec.thread, 100);
	CHECK_EQ(rec.context, 0);
	CHECK_EQ(rec.cur_priority, 1);
	CHECK_EQ(rec.real_priority, 2);
	CHECK_EQ(rec.state, 7);
	CHECK_EQ(rec.nvalues, 2);
	CHECK_STR(rec.values[1].type, "int");
	CHECK_EQ(rec.values[1].size, 4);
	CHECK_EQ(rec.values[1].avail, 4);
	CHECK_EQ(rec.values[1].bytes[big ? 3 : 0], 3);
	uint64_t first = rec.offset;
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK_STR(rec.name, "hello");
	CHECK_EQ(rec.nvalues, 1);
	CHECK_STR(rec.values[0].type, "const char *");
	CHECK_EQ(rec.values[0].bytes[1], 0x20);
	CHECK_EQ(rec.offset, first + 32);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK(rec.exit);
	CHECK_EQ(rec.nvalues, 0);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK(rec.exit);
	CHECK_STR(rec.name, "add");
	CHECK_EQ(rec.time, 0x100000003ull);
	CHECK_EQ(rec.nvalues, 1);
	CHECK_STR(rec.values[0].type, "int");
	CHECK_EQ(rec.values[0].bytes[big ? 3 : 0], 5);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK_STR(rec.name, "tick");
	CHECK_EQ(rec.context, 1);
	CHECK_EQ(rec.thread, 200);
	CHECK_EQ(rec.nvalues, 0);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK_EQ(rec.context, 1);
	/* A record over 16383 bytes is cut: the argument is partly there. */
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK_STR(rec.name, "huge");
	CHECK_EQ(rec.nvalues, 1);
	CHECK_EQ(rec.values[0].size, 20000);
	CHECK_EQ(rec.values[0].avail, TK_TLD_RECORD_MAX - 24);
	CHECK(!memcmp(rec.values[0].bytes, huge_arg, rec.values[0].avail));
	CHECK_EQ(rec.context, 0);
	uint64_t huge_at = rec.offset;
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK(rec.exit);
	CHECK_EQ(rec.values[0].bytes[0], 0xaa);
	CHECK_EQ(rec.number, 8);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 0);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 0);
	/* Back to a record reported before. */
	CHECK_EQ(tk_tld_dump_seek(r, huge_at, 7), 0);
	CHECK_EQ(tk_tld_dump_next(r, &rec), 1);
	CHECK_EQ(rec.number, 7);
	CHECK_STR(rec.name, "huge");
	CHECK_EQ(tk_tld_dump_seek(r, huge_at + 1, 7), TK_ERR_INVAL);
}

static void test_good(void)
{
	for (int big = 0; big < 2; big++) {
		struct buf d = make_dump(big, true);
		tk_tld_dump *r;
		tk_tld_dump_opts o = {sizeof o, collect, NULL, NULL};
		diags[0] = '\0';
		CHECK(tk_tld_probe(d.b, d.n) == 100);
		CHECKF(tk_tld_dump_open_mem(d.b, d.n, "good.dump", &o, &r) == 0, "%s", diags);
		const tk_tld_dump_info *in = tk_tld_dump_get_info(r);
		CHECK_EQ(in->kind, TK_TLD_FILE_DUMP);
		CHECK_EQ(in->big_endian, big);
		CHECK_EQ(in->pointer_size, 8);
		CHECK_EQ(in->machine, 62);
		CHECK_EQ(in->clock, TK_TLD_CLOCK_NS);
		CHECK_EQ(in->clock_hz, 1000000000);
		CHECK(in->finished && in->triggered);
		CHECK_EQ(in->mode, 0x300);
		CHECK_EQ(in->nfuncs, 4);
		CHECK_EQ(in->capacity_words, 100000);
		CHECK_EQ(in->buffer_offset % 4, 0);
		const tk_tld_func *f = tk_tld_dump_func(r, 1);
		CHECK_STR(f->name, "hello");
		CHECK_EQ(f->argc, 2);
		CHECK_STR(f->types[1], "const char *");
		CHECK(tk_tld_dump_func(r, 4) == NULL);
		check_records(r, big);
		CHECKF(diags[0] == '\0', "%s", diags);
		tk_tld_dump_free(r);
		free(d.b);
	}
}

/* Cut at every length: no crash; the records wholly before the cut come
 * out, then one error naming the file and a byte offset. */
static void test_truncated(void)
{
	struct buf d = make_dump(false, false);
	size_t start = buffer_start(&d);
	for (size_t len = 0; len < d.n; len++) {
		tk_tld_dump *r;
		tk_tld_dump_opts o = {sizeof o, collect, NULL, NULL};
		diags[0] = '\0';
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, d.b, len);
		int rc = tk_tld_dump_open_mem(copy, len, "cut.dump", &o, &r);
		if (len < start) {
			CHECKF(rc == (len == 0 ? TK_ERR_EMPTY : TK_ERR_EOF), "len %zu: rc %d", len, rc);
			CHECKF(strstr(diags, "cut.dump: error: byte offset ") != NULL, "len %zu: %s", len, diags);
			free(copy);
			continue;
		}
		CHECKF(rc == 0, "len %zu: rc %d %s", len, rc, diags);
		if (rc) {
			free(copy);
			continue;
		}
		size_t whole = 0;
		for (size_t i = 0; i < nrecords; i++) {
			size_t end = i + 1 < nrecords ? record_offsets[i + 1] : d.n - start;
			if (start + end <= len)
				whole = i + 1;
		}
		tk_tld_record rec;
		size_t n = 0;
		int last;
		while ((last = tk_tld_dump_next(r, &rec)) == 1)
			n++;
		CHECKF(n == whole, "len %zu: %zu records, expected %zu", len, n, whole);
		if (whole < nrecords) {
			CHECKF(last == TK_ERR_EOF, "len %zu: last %d", len, last);
			char want[64];
			snprintf(want, sizeof want, "cut.dump: error: byte offset %zu: record %zu",
				 start + record_offsets[whole], whole + 1);
			CHECKF(strstr(diags, want) != NULL, "len %zu: want \"%s\" in %s", len, want, diags);
			CHECK_EQ(tk_tld_dump_next(r, &rec), 0);
		}
		tk_tld_dump_free(r);
		free(copy);
	}
	free(d.b);
}

static int open_expect(const uint8_t *data, size_t len, int want_rc, const char *want)
{
	tk_tld_dump *r;
	tk_tld_dump_opts o = {sizeof o, collect, NULL, NULL};
	diags[0] = '\0';
	int rc = tk_tld_dump_open_mem(data, len, "bad.dump", &o, &r);
	CHECKF(rc == want_rc, "rc %d, expected %d (%s): %s", rc, want_rc, want, diags);
	CHECKF(strstr(diags, want) != NULL, "expected \"%s\" in %s", want, diags);
	if (!rc)
		tk_tld_dump_free(r);
	return rc;
}

/* Corrupt the record at index k: the ones before come out, then the error. */
static void corrupt_record(size_t k, uint32_t w0, const char *want)
{
	struct buf d = make_dump(false, false);
	size_t at = buffer_start(&d) + record_offsets[k];
	memcpy(d.b + at, &w0, 4);
	tk_tld_dump *r;
	tk_tld_dump_opts o = {sizeof o, collect, NULL, NULL};
	diags[0] = '\0';
	CHECK(tk_tld_dump_open_mem(d.b, d.n, "bad.dump", &o, &r) == 0);
	tk_tld_record rec;
	size_t n = 0;
	int last;
	while ((last = tk_tld_dump_next(r, &rec)) == 1)
		n++;
	CHECK_EQ(n, k);
	CHECK_EQ(last, TK_ERR_CORRUPT);
	char prefix[64];
	snprintf(prefix, sizeof prefix, "bad.dump: error: byte offset %zu: ", at);
	CHECKF(strstr(diags, prefix) && strstr(diags, want), "expected \"%s%s\" in %s", prefix, want,
	       diags);
	CHECKF(!strncmp(tk_tld_dump_error(r), prefix + strlen("bad.dump: error: "),
			strlen(prefix) - strlen("bad.dump: error: ")),
	       "tk_tld_dump_error: %s", tk_tld_dump_error(r));
	tk_tld_dump_free(r);
	free(d.b);
}

static void test_corrupt(void)
{
	open_expect((const uint8_t *)"", 0, TK_ERR_EMPTY, "bad.dump: error: byte offset 0: empty file");
	open_expect((const uint8_t *)"hello world, not a dump", 23, TK_ERR_FORMAT,
		    "byte offset 0: not a trace-buffer dump");
	open_expect((const uint8_t *)"TKTL", 4, TK_ERR_EOF,
		    "byte offset 0: the file ends inside the magic number");
	struct buf d = make_dump(false, false);
	uint8_t *c = malloc(d.n);
#define MUTATE(off, bytes, len) (memcpy(c, d.b, d.n), memcpy(c + (off), bytes, len))
	MUTATE(8, "\x01\x02\x03\x04", 4);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 8: byte-order mark 0x04030201");
	MUTATE(12, "\x02\x00", 2);
	open_expect(c, d.n, TK_ERR_UNSUPPORTED, "byte offset 12: dump format version 2");
	MUTATE(14, "\x03", 1);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 14: pointer size 3");
	MUTATE(15, "\x09", 1);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 15: clock kind 9");
	MUTATE(32, "\x00\x00\x02\x00", 4);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 32: 131072 functions");
	MUTATE(44, "\xff\xff\x00\x00", 4);
	open_expect(c, d.n, TK_ERR_EOF, "byte offset 44: function table at 65535");
	/* The first function's name length (after its 8-byte address). */
	MUTATE(56, "\x09\x00\x00\x00", 4);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 60: function 0: its name is 3 bytes long, its length says 9");
	MUTATE(64, "\x00\x00\x00\x00", 4);
	open_expect(c, d.n, TK_ERR_CORRUPT, "byte offset 64: add: 0 signature entries");
	/* More words used than the buffer holds: a warning only. */
	MUTATE(36, "\x01\x00\x00\x00", 4);
	CHECK(open_expect(c, d.n, 0, "bad.dump: warning: byte offset 40: ") == 0);
	free(c);

	/* Extra bytes after the records: a warning. */
	c = malloc(d.n + 5);
	memcpy(c, d.b, d.n);
	memcpy(c + d.n, "xxxxx", 5);
	open_expect(c, d.n + 5, 0, "warning: byte offset");
	free(c);
	free(d.b);

	corrupt_record(0, 9u | 32u << 16, "record 1: function index 9, the table has 4 functions");
	corrupt_record(3, 0u | 40u << 16 | 1u << 30, "record 4: exit of add is 40 bytes, its signature makes it 28");
	corrupt_record(5, 2u | 8u << 16 | 1u << 30, "record 6: exit of tick is 8 bytes, its signature makes it 24");
}

/* The same records as an `rtrace save` file (no addresses, no header
 * fields beyond the byte-order mark). */
static void test_rtrace(void)
{
	struct buf rec = make_buffer(false);
	struct buf f = {NULL, 0, 0, false};
	put_bytes(&f, "RTEMS-TRACE\0", 12);
	put32(&f, 0x11223344);
	put32(&f, 4);
	for (int i = 0; i < 4; i++)
		put_bytes(&f, funcs[i].name, strlen(funcs[i].name) + 1);
	for (int i = 0; i < 4; i++) {
		put32(&f, funcs[i].argc);
		for (uint32_t a = 0; a < funcs[i].argc; a++) {
			put32(&f, funcs[i].sizes[a]);
			put_bytes(&f, funcs[i].types[a], strlen(funcs[i].types[a]) + 1);
		}
	}
	size_t start = f.n;
	put_bytes(&f, rec.b, rec.n);
	tk_tld_dump *r;
	tk_tld_dump_opts o = {sizeof o, collect, NULL, NULL};
	diags[0] = '\0';
	CHECK(tk_tld_probe(f.b, f.n) == 100);
	CHECKF(tk_tld_dump_open_mem(f.b, f.n, "rt.bin", &o, &r) == 0, "%s", diags);
	const tk_tld_dump_info *in = tk_tld_dump_get_info(r);
	CHECK_EQ(in->kind, TK_TLD_FILE_RTRACE);
	CHECK_EQ(in->buffer_offset, start);
	CHECK_EQ(in->used_words, rec.n / 4);
	CHECK_EQ(in->clock, TK_TLD_CLOCK_NS);
	tk_tld_record x;
	size_t n = 0;
	while (tk_tld_dump_next(r, &x) == 1) {
		n++;
		CHECK_EQ(x.addr, 0);
	}
	CHECK_EQ(n, nrecords);
	tk_tld_dump_free(r);
	/* Cut inside the function table and inside a record. */
	open_expect(f.b, start - 3, TK_ERR_EOF, "bad.dump: error: byte offset ");
	CHECKF(tk_tld_dump_open_mem(f.b, start + 40, "rt.bin", &o, &r) == 0, "%s", diags);
	CHECK_EQ(tk_tld_dump_next(r, &x), 1);
	CHECK_EQ(tk_tld_dump_next(r, &x), TK_ERR_CORRUPT);	/* the buffer ends inside record 2 */
	tk_tld_dump_free(r);
	free(rec.b);
	free(f.b);
}

/* Seeds for the fuzzer (fuzz/fuzz_tld_dump.c): a mode byte (0: read as
 * is), then the file. */
static void write_seed(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	CHECKF(fp != NULL, "%s", path);
	if (!fp)
		return;
	fputc(0, fp);
	fwrite(data, 1, len, fp);
	fclose(fp);
}

static void write_seeds(const char *dir)
{
	char cmd[1100];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	CHECK(system(cmd) == 0);
	for (int big = 0; big < 2; big++) {
		struct buf d = make_dump(big, big);
		write_seed(dir, big ? "be.dump" : "le.dump", d.b, d.n);
		free(d.b);
	}
	struct buf rec = make_buffer(false);
	struct buf f = {NULL, 0, 0, false};
	put_bytes(&f, "RTEMS-TRACE\0", 12);
	put32(&f, 0x11223344);
	put32(&f, 2);
	put_bytes(&f, "add\0tick\0", 9);
	const tk_tld_func *fs[2] = {&funcs[0], &funcs[2]};
	for (int i = 0; i < 2; i++) {
		put32(&f, fs[i]->argc);
		for (uint32_t a = 0; a < fs[i]->argc; a++) {
			put32(&f, fs[i]->sizes[a]);
			put_bytes(&f, fs[i]->types[a], strlen(fs[i]->types[a]) + 1);
		}
	}
	put_bytes(&f, rec.b, 128);	/* the first records (add, hello: index 1 is bad here) */
	write_seed(dir, "rtrace.bin", f.b, f.n);
	free(rec.b);
	free(f.b);
}

int main(void)
{
	const char *seeds = getenv("TK_TLD_SEEDS");
	if (seeds && *seeds)
		write_seeds(seeds);
	test_good();
	test_truncated();
	test_corrupt();
	test_rtrace();
	return check_report("test_tld_dump");
}
