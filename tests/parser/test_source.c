/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: the Tarmac file source on awkward input: CRLF line ends, a
 * last line without a newline, a truncated last line, binary files, NUL bytes
 * inside a trace, an empty file, a directory, a missing file, a 5 MB line,
 * lines over the length limit, a stream.  Never a crash or a hang; a clear
 * diagnostic naming file:line; the source goes on where it can.
 *
 * Usage: test_source DATA_DIR SCRATCH_DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tracekit/error.h"
#include "tracekit/tarmac.h"

static const char *data_dir, *scratch_dir;

/* Diagnostics received, as "LEVEL FILE:LINE: MSG\n" lines. */
static char diags[8192];
static int ndiag;

static void on_diag(void *ctx, const tk_diag *d)
{
	(void)ctx;
	size_t n = strlen(diags);
	snprintf(diags + n, sizeof diags - n, "%s %s:%llu: %s\n",
		 d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note",
		 d->file ? d->file : "?", (unsigned long long)d->line, d->msg);
	ndiag++;
}

static char *path_in(const char *dir, const char *name)
{
	static char buf[2][4096];
	static int k;
	k ^= 1;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

typedef struct result {
	int open_rc;
	int end_rc;		/* what tk_source_next returned last (0 or an error) */
	size_t n;		/* events read */
	tk_event ev[64];	/* the first 64 (pointers not valid after) */
	uint8_t byte0[64];	/* their first value byte (REG, MEM) */
	char text0[128];	/* the first TEXT event's text */
	uint64_t warnings, pos, size;
} result;

static result run(const char *path, size_t max_line)
{
	result r;
	memset(&r, 0, sizeof r);
	diags[0] = 0;
	ndiag = 0;
	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	o.diag = on_diag;
	o.max_line = max_line;
	tk_source *src;
	r.open_rc = tk_tarmac_open(path, &o, &src);
	if (r.open_rc < 0)
		return r;
	tk_event ev;
	int rc;
	while ((rc = tk_source_next(src, &ev)) > 0) {
		if (r.n < 64) {
			r.ev[r.n] = ev;
			if (ev.kind == TK_EV_REG)
				r.byte0[r.n] = ev.u.reg.value[0];
			else if (ev.kind == TK_EV_MEM && !ev.u.mem.aborted)
				r.byte0[r.n] = ev.u.mem.bytes[0];
		}
		if (ev.kind == TK_EV_TEXT && !r.text0[0])
			snprintf(r.text0, sizeof r.text0, "%.*s", (int)(ev.u.text.len > 100 ? 100 : ev.u.text.len),
				 ev.u.text.text);
		r.n++;
	}
	r.end_rc = rc;
	/* an error is sticky */
	if (rc < 0)
		CHECK(tk_source_next(src, &ev) == rc);
	else
		CHECK(tk_source_next(src, &ev) == 0);
	r.warnings = tk_source_warnings(src);
	r.pos = tk_source_pos(src);
	r.size = tk_source_size(src);
	CHECK(!strcmp(tk_source_path(src), path));
	tk_source_free(src);
	return r;
}

static void write_file(const char *path, const char *head, char fill, size_t nfill, const char *tail)
{
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		perror(path);
		exit(2);
	}
	fputs(head, fp);
	for (size_t i = 0; i < nfill; i++)
		putc(fill, fp);
	fputs(tail, fp);
	fclose(fp);
}

static void line_endings(void)
{
	result lf = run(path_in(data_dir, "lf.tarmac"), 0);
	result crlf = run(path_in(data_dir, "crlf.tarmac"), 0);
	CHECK(lf.open_rc == 0 && crlf.open_rc == 0);
	CHECK(lf.end_rc == 0 && crlf.end_rc == 0);
	CHECK(lf.warnings == 0 && crlf.warnings == 0);
	CHECKF(lf.n == 5 && crlf.n == 5, "%zu / %zu events", lf.n, crlf.n);
	for (size_t i = 0; i < 5 && i < lf.n && i < crlf.n; i++) {
		CHECK(lf.ev[i].kind == crlf.ev[i].kind);
		CHECK(lf.ev[i].line == crlf.ev[i].line);
	}
	CHECK(crlf.ev[0].kind == TK_EV_INSN && crlf.ev[0].u.insn.pc == 0x8000);
	CHECK(crlf.ev[3].kind == TK_EV_MEM && crlf.ev[3].line == 5 && crlf.ev[3].u.mem.addr == 0x20);
	CHECKF(!strcmp(crlf.text0, "CADI E simulation_stopped"), "'%s'", crlf.text0);
	/* byte offsets of the lines */
	CHECK(lf.ev[1].offset == 56 && crlf.ev[1].offset == 57);
	CHECK(lf.pos == lf.size && lf.size == 235);
	CHECK(crlf.pos == crlf.size && crlf.size == 241);
}

static void last_lines(void)
{
	/* complete, just no final newline: no complaint */
	result r = run(path_in(data_dir, "no-newline.tarmac"), 0);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.warnings == 0 && ndiag == 0);
	CHECK(r.n == 3 && r.ev[2].kind == TK_EV_INSN && tk_insn_encoding(&r.ev[2].u.insn) == 0xf9420100 &&
	      r.ev[2].line == 3);
	CHECK(r.pos == r.size);
	/* cut in the middle of the encoding: that line is reported */
	r = run(path_in(data_dir, "truncated.tarmac"), 0);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.n == 3 && r.warnings == 1);
	CHECKF(strstr(diags, "truncated.tarmac:3: instruction line: encoding 'f94'"), "%s", diags);
	CHECK(r.ev[2].kind == TK_EV_TEXT);
}

static void binary(void)
{
	result r = run(path_in(data_dir, "garbage.bin"), 0);
	CHECK(r.open_rc == 0 && r.end_rc == TK_ERR_BINARY && r.n == 0);
	CHECKF(strstr(diags, "error ") && strstr(diags, "garbage.bin:1: binary data (NUL bytes)"), "%s", diags);
	r = run(path_in(data_dir, "elf-header.bin"), 0);
	CHECK(r.end_rc == TK_ERR_BINARY && strstr(diags, "an ELF file"));
	/* a gzip header and nothing more: read as gzip, and cut short */
	r = run(path_in(data_dir, "compressed.gz"), 0);
	CHECKF(r.end_rc == TK_ERR_EOF && r.n == 0 &&
	       strstr(diags, "truncated gzip data: the file ends at byte 10"), "%s", diags);
	/* NUL bytes inside a text trace: those lines are skipped */
	r = run(path_in(data_dir, "nul-inside.tarmac"), 0);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.warnings == 2);
	CHECKF(strstr(diags, "nul-inside.tarmac:3: line contains NUL bytes") &&
	       strstr(diags, "nul-inside.tarmac:5: line contains NUL bytes"), "%s", diags);
	CHECK(r.n == 4 && r.ev[2].u.reg.view.reg == TK_REG_R0 + 3 && r.ev[2].line == 4 &&
	      r.ev[3].u.reg.view.reg == TK_REG_R0 + 4 && r.ev[3].line == 6);
}

static void empty_and_missing(void)
{
	result r = run(path_in(data_dir, "empty.tarmac"), 0);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.n == 0 && r.warnings == 0 && ndiag == 0);
	r = run(data_dir, 0);
	CHECK(r.open_rc == TK_ERR_ISDIR);
	errno = 0;
	r = run(path_in(data_dir, "no-such-file.tarmac"), 0);
	CHECK(r.open_rc == TK_ERR_OPEN && errno == ENOENT);
}

static void long_lines(void)
{
	/* 5 MB lines: one of text, one register value far too long; each
	 * followed by a good line. */
	const char *p = path_in(scratch_dir, "long-lines.tarmac");
	FILE *fp = fopen(p, "wb");
	if (!fp) {
		perror(p);
		exit(2);
	}
	fputs("1 clk E ", fp);
	for (int i = 0; i < 5 << 20; i++)
		putc('a' + i % 26, fp);
	fputs("\n2 clk R r0 00000001\n3 clk R X0 ", fp);
	for (int i = 0; i < 5 << 20; i++)
		putc('0' + i % 10, fp);
	fputs("\n4 clk R r1 00000002\n", fp);
	fclose(fp);
	result r = run(p, 0);
	CHECK(r.open_rc == 0 && r.end_rc == 0);
	CHECKF(r.n == 4 && r.warnings == 1, "%zu events, %llu warnings", r.n,
	       (unsigned long long)r.warnings);
	CHECK(r.ev[0].kind == TK_EV_TEXT && r.ev[0].u.text.len == 2 + (5u << 20));
	CHECK(r.ev[1].kind == TK_EV_REG && r.ev[1].line == 2);
	CHECK(r.ev[2].kind == TK_EV_TEXT && r.ev[2].line == 3);
	CHECK(r.ev[3].kind == TK_EV_REG && r.ev[3].line == 4 && r.ev[3].offset == r.size - 20);
	CHECKF(strstr(diags, "long-lines.tarmac:3: R line: X0 value '0123456789") &&
	       strstr(diags, "is too long"), "%s", diags);
	CHECK(r.pos == r.size);

	/* Over the limit: skipped, with a warning, and the next line is fine. */
	r = run(p, 1 << 20);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.n == 2 && r.warnings == 2);
	CHECKF(strstr(diags, "long-lines.tarmac:1: line longer than 1048576 bytes: skipped") &&
	       strstr(diags, "long-lines.tarmac:3: line longer than 1048576 bytes: skipped"), "%s", diags);
	CHECK(r.ev[0].line == 2 && r.ev[1].line == 4 && r.byte0[1] == 2);
	CHECK(r.pos == r.size);

	/* A file of one huge line and no newline at all. */
	p = path_in(scratch_dir, "one-long-line.tarmac");
	write_file(p, "1 clk E ", 'x', 3 << 20, "");
	r = run(p, 1 << 20);
	CHECK(r.open_rc == 0 && r.end_rc == 0 && r.n == 0 && r.warnings == 1);
	r = run(p, 0);
	CHECK(r.n == 1 && r.warnings == 0 && r.ev[0].u.text.len == 2 + (3u << 20));
}

static void stream(void)
{
	FILE *fp = fopen(path_in(data_dir, "lf.tarmac"), "r");
	CHECK(fp != NULL);
	if (!fp)
		return;
	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	tk_source *src;
	CHECK(tk_tarmac_open_stream(fp, "<test>", &o, &src) == 0);
	tk_event ev;
	size_t n = 0;
	while (tk_source_next(src, &ev) > 0)
		n++;
	CHECK(n == 5 && !strcmp(tk_source_path(src), "<test>"));
	tk_source_free(src);
	fclose(fp);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_source DATA_DIR SCRATCH_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	scratch_dir = argv[2];
	line_endings();
	last_lines();
	binary();
	empty_and_missing();
	long_lines();
	stream();
	return check_report("test_source");
}
