/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the dump and rtrace readers (tld_dump.h). */
#ifndef TRACEKIT_TLD_DUMP_IMPL_H
#define TRACEKIT_TLD_DUMP_IMPL_H

#include "tracekit/tld_dump.h"

struct dump_func {
	tk_tld_func pub;
	size_t name_len;
	uint32_t nargs;		/* parameters (0 for none) */
	bool has_ret;
	uint64_t entry_size;	/* bytes of the parameters */
	uint64_t ret_size;
	tk_tld_value *entry_values;	/* nargs, types and sizes filled */
	tk_tld_value exit_value;
	uint32_t *sizes;
	const char **types;
};

struct tk_tld_dump {
	const uint8_t *data;
	size_t len;
	bool mapped;		/* munmap data at the end */
	bool owned;		/* free data at the end */
	char *name;
	tk_tld_dump_opts opts;
	tk_tld_dump_info info;
	bool swap;		/* the file's byte order is not ours */
	struct dump_func *funcs;
	uint64_t declared_end;	/* end of the used words, as the header says */
	uint64_t pos;		/* offset of the next record */
	uint64_t released;	/* mapped pages before this were given back */
	uint64_t number;	/* records returned */
	bool done;
	uint32_t *threads;	/* thread ids in order of first appearance */
	uint32_t nthreads, cthreads;
	uint32_t last_thread, last_context;
	char err[512];
};

uint32_t tk_tld_rd32(const tk_tld_dump *d, uint64_t off);
uint64_t tk_tld_rd64(const tk_tld_dump *d, uint64_t off);

/* Report a problem at a byte offset (kept for tk_tld_dump_error). */
void tk_tld_dump_report(tk_tld_dump *d, tk_diag_level level, uint64_t offset,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Header parsers: fill info, funcs, declared_end and pos.  Return 0 or a
 * negative tk_err after reporting. */
int tk_tld_parse_dump_header(tk_tld_dump *d);
int tk_tld_parse_rtrace_header(tk_tld_dump *d);

/* A function table entry at *off: the signature part (argc, then argc
 * {size, type} pairs), shared by both formats.  rtrace types are bare
 * NUL-terminated strings (typed_len false); dump types have a length. */
int tk_tld_parse_sig(tk_tld_dump *d, struct dump_func *f, uint64_t *off, bool typed_len);

/* A NUL-terminated string of at most max bytes at *off; NULL with *err
 * (TK_ERR_EOF or TK_ERR_CORRUPT) after reporting. */
const char *tk_tld_parse_string(tk_tld_dump *d, uint64_t *off, size_t max, size_t *len,
				const char *what, int *err);

#endif
