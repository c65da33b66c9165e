/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: reading a piece of a mapped Tarmac file on its own (the
 * tk_chunk_ops of source_author.h).
 *
 * Pieces are cut after a newline.  The parser's state between lines is the
 * last timestamp and cpu (a line without a timestamp repeats them), the
 * last instruction set (s/d register names follow it), whether x/w
 * registers were seen before any instruction, and whether the last line
 * was an LD/ST diagram (the next lines may continue it).  The warm-up
 * starts at the last instruction line before the piece: it sets the
 * instruction set, and carries a timestamp in every Tarmac flavour, so the
 * state is nearly always right at the piece's start; the core checks it.
 * Lines are handled as the file source handles them: too long or holding
 * NUL bytes, skipped with a warning; a trailing '\r' ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "core/simd.h"
#include "tarmac_impl.h"
#include "tracekit/error.h"
#include "tracekit/source_author.h"

#define WARM_BACK_MAX (256u << 10)	/* look no further back for an instruction */
#define WARM_FALLBACK (16u << 10)
#define NL_BATCH 2048			/* newlines found per vector scan */

struct tk_chunk {
	const tk_source *src;
	const uint8_t *data;
	uint64_t size, pos, end;
	tk_tarmac_parser *parser;
	tk_chunk_state begin_state;
	uint64_t lineno;	/* lines of the piece read */
	const tk_event *evs;
	size_t nev, iev;
	tk_chunk_diag_fn diag;
	void *diag_ctx;
	bool warned_state;
	bool sniff;		/* the piece starts the file: check it is text */
	int sticky;
	/* newlines and NUL bytes, found a batch at a time */
	uint32_t nl[NL_BATCH];	/* offsets from nl_base */
	size_t nl_n, nl_i;
	uint64_t nl_base, scan;	/* scan: the next byte to look at */
	uint64_t nul;		/* a NUL byte at or after pos in [pos, scan), or UINT64_MAX */
};

static void get_state(const tk_tarmac_parser *p, tk_chunk_state *out)
{
	memset(out, 0, sizeof *out);
	memcpy(out->b, &p->time, 8);
	memcpy(out->b + 8, &p->cpu, 4);
	out->b[12] = (uint8_t)p->last_isa;
	/* Whether x/w registers were seen only matters (and is kept) while
	 * no instruction has given the instruction set, which never becomes
	 * unknown again. */
	out->b[13] = p->last_isa == TK_ISA_UNKNOWN && p->saw_a64_reg;
	out->b[14] = (uint8_t)p->ldst_prev;
}

static void set_state(tk_tarmac_parser *p, const tk_chunk_state *in)
{
	tk_tarmac_parser_reset(p, 0, 0);
	memcpy(&p->time, in->b, 8);
	memcpy(&p->cpu, in->b + 8, 4);
	p->last_isa = (tk_isa)in->b[12];
	p->saw_a64_reg = in->b[13];
	p->ldst_prev = (char)in->b[14];
}

static uint64_t boundary(const uint8_t *data, uint64_t size, uint64_t at)
{
	if (at == 0 || at >= size)
		return at >= size ? size : 0;
	if (data[at - 1] == '\n')
		return at;
	const uint8_t *nl = memchr(data + at, '\n', (size_t)(size - at));
	return nl ? (uint64_t)(nl - data) + 1 : size;
}

/* Does the line [s, e) carry an instruction: [timestamp [unit]] [cpuN]
 * IT|IS|ES as one of its first words? */
static bool insn_line(const uint8_t *s, const uint8_t *e)
{
	for (int word = 0; word < 4 && s < e; word++) {
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		const uint8_t *w = s;
		while (s < e && *s != ' ' && *s != '\t')
			s++;
		if (s - w == 2 && ((w[0] == 'I' && (w[1] == 'T' || w[1] == 'S')) ||
				   (w[0] == 'E' && w[1] == 'S')))
			return true;
	}
	return false;
}

static uint64_t warmup(const uint8_t *data, uint64_t size, uint64_t begin)
{
	if (begin == 0)
		return 0;
	uint64_t limit = begin > WARM_BACK_MAX ? begin - WARM_BACK_MAX : 0;
	uint64_t end = begin - 1;	/* the newline ending the line before */
	while (end > limit) {
		const uint8_t *p = data + end;
		uint64_t start = end;
		while (start > 0 && data[start - 1] != '\n')
			start--;
		if (insn_line(data + start, p))
			return start;
		if (start == 0)
			return 0;
		end = start - 1;
	}
	return boundary(data, size, begin > WARM_FALLBACK ? begin - WARM_FALLBACK : 0);
}

static void report(tk_chunk *c, tk_diag_level level, uint64_t line, const char *msg, bool once)
{
	if (!c->diag)
		return;
	tk_diag d = {.level = level, .file = tk_source_path(c->src), .line = line, .msg = msg};
	c->diag(c->diag_ctx, &d, once);
}

/* The next line of [pos, limit) (for the warm-up): false at the end. */
static bool next_line(tk_chunk *c, uint64_t limit, const char **s, size_t *len, uint64_t *off)
{
	if (c->pos >= limit)
		return false;
	const uint8_t *p = c->data + c->pos;
	const uint8_t *nl = memchr(p, '\n', (size_t)(limit - c->pos));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(limit - c->pos);
	*s = (const char *)p;
	*len = n;
	*off = c->pos;
	c->pos += n + (nl ? 1 : 0);
	return true;
}

/* The next line of the piece, its newlines found by vector scans of a
 * batch of lines at a time, which also find NUL bytes. */
static bool piece_line(tk_chunk *c, const char **s, size_t *len, uint64_t *off)
{
	if (c->pos >= c->end)
		return false;
	if (c->nl_i == c->nl_n && c->scan < c->end) {
		size_t scanned, nul;
		c->nl_base = c->scan;
		c->nl_n = tk_simd_newlines(c->data + c->scan, (size_t)(c->end - c->scan), c->nl,
					   NL_BATCH, &scanned, &nul);
		c->nl_i = 0;
		if (c->nul == UINT64_MAX && nul != SIZE_MAX)
			c->nul = c->nl_base + nul;
		c->scan += scanned;
	}
	uint64_t stop = c->end;
	if (c->nl_i < c->nl_n)
		stop = c->nl_base + c->nl[c->nl_i++];
	*s = (const char *)c->data + c->pos;
	*len = (size_t)(stop - c->pos);
	*off = c->pos;
	c->pos = stop < c->end ? stop + 1 : stop;
	return true;
}

/* Does the line [off, off + len) hold a NUL byte?  (Then the next one is
 * looked for after it.) */
static bool line_has_nul(tk_chunk *c, uint64_t off, size_t len)
{
	if (c->nul >= off + len)
		return false;
	uint64_t from = off + len;
	const uint8_t *z = from < c->scan ? memchr(c->data + from, 0, (size_t)(c->scan - from)) : NULL;
	c->nul = z ? (uint64_t)(z - c->data) : UINT64_MAX;
	return true;
}

static size_t max_line(const tk_chunk *c)
{
	return c->parser->opts.max_line ? c->parser->opts.max_line : (64u << 20);
}

static int chunk_open(const tk_source *src, const uint8_t *data, uint64_t size, uint64_t from,
		      uint64_t begin, uint64_t end, const tk_chunk_state *in, tk_chunk_diag_fn diag,
		      void *diag_ctx, tk_chunk **out)
{
	tk_chunk *c = calloc(1, sizeof *c);
	if (!c)
		return TK_ERR_NOMEM;
	tk_tarmac_opts o = *tk_tarmac_source_opts(src);
	o.diag = NULL;
	if (tk_tarmac_parser_new(&o, &c->parser) < 0) {
		free(c);
		return TK_ERR_NOMEM;
	}
	c->src = src;
	c->data = data;
	c->size = size;
	c->end = end;
	c->diag = diag;
	c->diag_ctx = diag_ctx;
	c->sniff = begin == 0;
	if (in) {
		set_state(c->parser, in);
	} else {
		/* The warm-up: parse silently, as the file source would. */
		const tk_event *evs;
		size_t nev;
		const char *s;
		size_t len;
		uint64_t off;
		c->pos = from;
		size_t ml = max_line(c);
		while (next_line(c, begin, &s, &len, &off))
			if (len < ml && !memchr(s, 0, len))
				tk_tarmac_parse_line(c->parser, s, len, 0, off, &evs, &nev);
	}
	c->parser->missing_state = false;
	c->pos = c->scan = begin;
	c->nul = UINT64_MAX;
	get_state(c->parser, &c->begin_state);
	*out = c;
	return 0;
}

/* Read and parse lines until one yields events: 1, 0 at the end. */
static int refill(tk_chunk *c)
{
	const char *s;
	size_t len;
	uint64_t off;
	size_t ml = max_line(c);
	while (c->iev >= c->nev) {
		if (!piece_line(c, &s, &len, &off))
			return 0;
		c->lineno++;
		bool nul = line_has_nul(c, off, len);
		if (len >= ml) {
			char msg[64];
			snprintf(msg, sizeof msg, "line longer than %zu bytes: skipped", ml);
			report(c, TK_DIAG_WARNING, c->lineno, msg, false);
			continue;
		}
		if (nul) {
			report(c, TK_DIAG_WARNING, c->lineno,
			       "line contains NUL bytes (binary data?): skipped", false);
			continue;
		}
		c->iev = 0;
		int rc = tk_tarmac_parse_line(c->parser, s, len, c->lineno, off, &c->evs, &c->nev);
		if (rc < 0)
			report(c, TK_DIAG_WARNING, c->lineno, tk_tarmac_parser_error(c->parser), false);
		if (c->parser->missing_state && !c->warned_state) {
			c->warned_state = true;
			report(c, TK_DIAG_WARNING, c->lineno,
			       "instruction line without an instruction-set state letter: "
			       "instruction set unknown (use --implicit-thumb if the trace is Thumb)",
			       true);
		}
	}
	return 1;
}

static int chunk_next(tk_chunk *c, const tk_event **ev)
{
	if (c->sticky)
		return c->sticky;
	if (c->sniff) {
		c->sniff = false;
		size_t n = c->size < 4096 ? (size_t)c->size : 4096;
		const char *why = tk_tarmac_sniff_binary((const char *)c->data, n);
		if (why) {
			report(c, TK_DIAG_ERROR, 1, why, false);
			return c->sticky = TK_ERR_BINARY;
		}
	}
	if (c->iev >= c->nev) {
		int rc = refill(c);
		if (rc <= 0)
			return rc;
	}
	*ev = &c->evs[c->iev++];
	return 1;
}

static void chunk_state(const tk_chunk *c, bool at_begin, tk_chunk_state *out)
{
	if (at_begin)
		*out = c->begin_state;
	else
		get_state(c->parser, out);
}

static uint64_t chunk_lines(const tk_chunk *c)
{
	return c->lineno;
}

static void chunk_free(tk_chunk *c)
{
	if (!c)
		return;
	tk_tarmac_parser_free(c->parser);
	free(c);
}

const tk_chunk_ops tk_tarmac_chunk_ops = {
	.boundary = boundary,
	.warmup = warmup,
	.open = chunk_open,
	.next = chunk_next,
	.state = chunk_state,
	.lines = chunk_lines,
	.free = chunk_free,
};
