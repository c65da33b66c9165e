/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit internal: the Tarmac line parser's state, shared by the modules
 * that parse one kind of line each (tarmac_insn.c, tarmac_reg.c,
 * tarmac_mem.c) and the dispatcher (tarmac_parse.c). */
#ifndef TRACEKIT_TARMAC_IMPL_H
#define TRACEKIT_TARMAC_IMPL_H

#include <stdarg.h>

#include "tarmac_lex.h"
#include "tracekit/tarmac.h"

/* An LD/ST line yields one event per run of accessed bytes: at most 8. */
#define TK_TARMAC_MAX_EVENTS 16

struct tk_tarmac_parser {
	tk_tarmac_opts opts;

	/* State carried from line to line. */
	uint64_t time;		/* last timestamp seen */
	uint32_t cpu;		/* cpu of the last line */
	tk_isa last_isa;	/* of the last instruction line */
	bool saw_a64_reg;	/* an x/w register before any instruction */
	char ldst_prev;		/* 'L' or 'S' if the last line was LD/ST */
	bool missing_state;	/* an instruction line had no state letter */

	/* The current line. */
	uint64_t lineno, offset;
	const char *line;	/* its text */
	size_t line_len;
	size_t nev;
	tk_event ev[TK_TARMAC_MAX_EVENTS];
	uint8_t val[TK_REG_MAX_BYTES];	/* register / contiguous memory data */
	uint8_t state[TK_REG_MAX_BYTES];
	uint8_t mem[TK_REG_MAX_BYTES];	/* memory data in memory order */
	uint8_t mem_state[TK_REG_MAX_BYTES];
	char err[256];

	/* Register names looked up lately (tk_tarmac_reg), by a hash of the
	 * name: a pure function of the name and a64, so nothing to carry. */
	struct tk_tarmac_regname {
		char name[15];
		uint8_t len;	/* 0: empty */
		bool a64, known;
		tk_reg_view view;
	} regnames[64];
};

/* A new event of the given kind with the line's common fields set. */
static inline tk_event *tk_tarmac_event(tk_tarmac_parser *p, tk_event_kind kind)
{
	tk_event *e = &p->ev[p->nev++];
	e->kind = kind;
	e->context = p->cpu;
	e->time = p->time;
	e->line = p->lineno;
	e->offset = p->offset;
	e->raw = p->line;
	e->raw_len = p->line_len;
	return e;
}

/* The format's descriptor (tarmac_source.c). */
extern const tk_source_format tk_format_tarmac;

/* Reading a piece of a file on its own (tarmac_chunk.c). */
extern const struct tk_chunk_ops tk_tarmac_chunk_ops;

/* The options a Tarmac source was opened with (tarmac_source.c). */
const tk_tarmac_opts *tk_tarmac_source_opts(const tk_source *s);

/* Forget the state carried between lines, as at the start of a file, but
 * with this time and cpu in force (seeking to a line). */
void tk_tarmac_parser_reset(tk_tarmac_parser *p, uint64_t time, uint32_t cpu);

/* Record why the line is malformed; returns TK_ERR_PARSE. */
int tk_tarmac_fail(tk_tarmac_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Same, quoting a token: "<what> 'TOKEN' <why>". */
int tk_tarmac_fail_tok(tk_tarmac_parser *p, const char *what, tk_tok t, const char *why);

/* The line-kind parsers.  l is positioned just after the type word.
 * They return 0 (events added), TK_ERR_PARSE, or 1 for "not this kind of
 * line after all: keep it as text". */
int tk_tarmac_insn(tk_tarmac_parser *p, tk_lex *l, tk_tok type);
int tk_tarmac_reg(tk_tarmac_parser *p, tk_lex *l);

/* Contiguous memory line; type describes the type word. */
typedef struct tk_memtype {
	bool write;
	bool exclusive;
	bool memory_order;	/* RTL "MNW4___D" style: data in memory order */
	bool fetch;		/* instruction fetch: not a data access */
	uint32_t size;
} tk_memtype;

/* Is t a contiguous memory type word ("MR4", "R04", "MW8X", "MNW4___D")? */
bool tk_tarmac_memtype(tk_tok t, tk_memtype *mt);
int tk_tarmac_mem(tk_tarmac_parser *p, tk_lex *l, const tk_memtype *mt);

/* LD/ST diagram after the type word (or a continuation line, from the
 * address).  With quiet set, a mismatch returns 1 and records nothing. */
int tk_tarmac_ldst(tk_tarmac_parser *p, tk_lex *l, bool write, bool quiet);

#endif
