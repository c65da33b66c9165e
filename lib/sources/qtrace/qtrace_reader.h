/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the Qtrace reader's state and byte cursor, shared by
 * qtrace_open.c (buffer, header, opening) and qtrace_read.c (records). */
#ifndef TRACEKIT_QTRACE_READER_H
#define TRACEKIT_QTRACE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/binin.h"
#include "sources/qtrace/qtrace_impl.h"

#define BUF_SIZE (1u << 20)
#define ENTRY_MAX (128u << 10)	/* an entry always fits */
#define MAX_REGS 255

struct tk_qt_reader {
	tk_binin *in;
	char *name;
	tk_qt_reader_opts opts;
	unsigned char *buf;
	size_t pos, len;	/* parse position, bytes in buf */
	uint64_t base;		/* file offset of buf[0] */
	bool eof;

	tk_qt_header hdr;
	/* reader state */
	uint64_t next_ea;
	bool next_rpn_valid, next_ps_valid, next_gps_valid;
	uint32_t next_rpn;
	uint8_t next_ps, next_gps;
	bool rpn_valid, ps_valid, gps_valid;
	uint32_t rpn;
	uint8_t ps, gps;
	tk_qt_walk insn_walk, next_insn_walk, data_walk;
	bool prev_prefix;
	uint32_t version;
	uint64_t number;

	int err;
	char errmsg[320];

	tk_qt_regs regs;
	tk_qt_reg reg_store[3][2][MAX_REGS];	/* gpr, fpr, spr × in, out */
};

/* A cursor over buffered bytes: reads past the end set short_read and
 * return 0, so a parser checks once at the end of an entry. */
typedef struct cursor {
	const unsigned char *p, *end;
	bool short_read;	/* ran past the data */
} cursor;

static inline bool has(cursor *c, size_t n)
{
	if ((size_t)(c->end - c->p) >= n)
		return true;
	c->short_read = true;
	c->p = c->end;
	return false;
}

static inline uint8_t get8(cursor *c)
{
	return has(c, 1) ? *c->p++ : 0;
}

static inline uint16_t get16(cursor *c)
{
	if (!has(c, 2))
		return 0;
	uint16_t v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	c->p += 2;
	return v;
}

static inline uint32_t get32(cursor *c)
{
	if (!has(c, 4))
		return 0;
	uint32_t v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 |
		     (uint32_t)c->p[2] << 8 | c->p[3];
	c->p += 4;
	return v;
}

static inline uint64_t get64(cursor *c)
{
	uint64_t hi = get32(c);
	return hi << 32 | get32(c);
}

static inline void skip(cursor *c, size_t n)
{
	if (has(c, n))
		c->p += n;
}

static inline uint64_t qt_off_of(const tk_qt_reader *r, const cursor *c)
{
	return r->base + (uint64_t)(c->p - r->buf);
}

/* qtrace_open.c */
/* Make a whole entry available from r->pos (or all that is left). */
int qt_refill(tk_qt_reader *r);
/* Record an error "FILE: offset OFF: MESSAGE"; returns err. */
int qt_fail(tk_qt_reader *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void qt_note(tk_qt_reader *r, uint64_t off, const char *msg);
/* "the file ends inside WHAT" at start: TK_ERR_EOF. */
int qt_short_entry(tk_qt_reader *r, uint64_t start, const char *what);
int qt_parse_walk(tk_qt_reader *r, cursor *c, unsigned host, unsigned guest, tk_qt_walk *w);
/* Parse a header entry at the cursor (its word is 0); it sets the reader's
 * "next instruction" state. */
int qt_parse_header(tk_qt_reader *r, cursor *c, tk_qt_header *h);

#endif
