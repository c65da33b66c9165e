/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit truncate (tarmac-truncate): cut a trace that ends in a loop.
 *
 * Where to cut is lib/loop_detect.c's job (see tracekit/loop.h): a trace
 * whose last lines repeat with a period of at most 4096 lines, over at
 * least three iterations and 16 lines, is cut after the first two
 * iterations of the repeating tail; any other trace is copied unchanged,
 * byte for byte.
 *
 * A last line without its newline (a hung simulation killed in the middle
 * of writing it) is left out of the detection: if the lines before it end
 * in a loop, the trace is cut as usual, and the partial line, being after
 * the cut, is dropped; if they do not, the input is copied unchanged, the
 * partial line included.  A last line with its newline is a line like any
 * other.  Both ways of reading below apply this rule and give the same
 * output.
 *
 * Only the end of a trace matters, so the input is read in the way that
 * touches least of it:
 *
 *  - a regular file: find where the complete lines end (the start of an
 *    unterminated last line, or the end of the file); parse the last few
 *    MB before that; if the trace ends in a loop whose start lies further
 *    back, walk back from there one chunk at a time comparing keys one
 *    period apart; then copy the kept prefix with copy_file_range/sendfile,
 *    never through the parser;
 *  - a pipe, or a compressed trace (read through the input layer, which
 *    decompresses it): parse everything in order,
 *    writing out each line as soon as no cut can fall before it; only the
 *    lines that would be dropped if the trace ended now are held back, in
 *    memory up to 64 MB and in a temporary file beyond; bytes after the
 *    last newline are never fed to the detector, only held (and written
 *    out if no cut is made).
 *
 * Both ways feed the same detector the same keys: the file way starts the
 * parser WARM lines before the first line it uses, so the line-to-line
 * state of the Tarmac parser has settled.
 *
 * TRACEKIT_TRUNCATE_MEM=BYTES in the environment lowers the 64 MB held in
 * memory (the tests use it to reach the temporary file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/input.h"
#include "tracekit/loop.h"
#include "tracekit/tarmac.h"

#define WARM 256			/* parser warm-up lines */
#define TAIL_START (4u << 20)		/* first tail window */
#define CHUNK (1u << 20)		/* read size */
#define SPILL_LIMIT (64u << 20)		/* held bytes kept in memory */

struct ctx {
	tk_cli cli;
	tk_tarmac_opts topts;
	tk_loop_opts lopts;
	int in, out;
	tk_input *input;		/* the stream way reads through this */
	const char *name;		/* input name for messages */
};

static void io_error(struct ctx *c, const char *what)
{
	tk_cli_error(&c->cli, "%s: %s", what, strerror(errno));
}

static int new_parser(struct ctx *c, tk_tarmac_parser **p)
{
	if (tk_tarmac_parser_new(&c->topts, p) < 0) {
		tk_cli_error(&c->cli, "out of memory");
		return -1;
	}
	return 0;
}

static uint64_t key_of(tk_tarmac_parser *p, const char *s, size_t n, uint64_t lineno,
		       uint64_t off, bool *insn)
{
	const tk_event *ev;
	size_t nev;
	/* A malformed line comes back as a text event: keyed like one. */
	tk_tarmac_parse_line(p, s, n, lineno, off, &ev, &nev);
	return tk_loop_line_key(ev, nev, insn);
}

/* ---- output ---------------------------------------------------------------- */

static int write_all(struct ctx *c, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = write(c->out, buf, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			io_error(c, c->cli.output ? c->cli.output : "standard output");
			return -1;
		}
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Copy bytes [from, to) of the input file to the output. */
static int copy_range(struct ctx *c, uint64_t from, uint64_t to)
{
	static bool no_cfr, no_sendfile;
	off_t off = (off_t)from;
	while ((uint64_t)off < to) {
		size_t want = to - (uint64_t)off > (1u << 30) ? 1u << 30 : (size_t)(to - (uint64_t)off);
		ssize_t k = -1;
		if (!no_cfr) {
			k = copy_file_range(c->in, &off, c->out, NULL, want, 0);
			if (k < 0 && errno != EINTR) {
				no_cfr = true;	/* a pipe, another file system... */
				continue;
			}
		} else if (!no_sendfile) {
			k = sendfile(c->out, c->in, &off, want);
			if (k < 0 && errno != EINTR) {
				no_sendfile = true;
				continue;
			}
		} else {
			static char buf[CHUNK];
			k = pread(c->in, buf, want < CHUNK ? want : CHUNK, off);
			if (k > 0) {
				if (write_all(c, buf, (size_t)k))
					return -1;
				off += k;
			}
		}
		if (k == 0) {
			tk_cli_error(&c->cli, "%s: file shrank while being read", c->name);
			return -1;
		}
		if (k < 0 && errno != EINTR) {
			io_error(c, c->name);
			return -1;
		}
	}
	return 0;
}

/* Newlines in [from, to) of the input file (for -v). */
static uint64_t count_lines(struct ctx *c, uint64_t from, uint64_t to)
{
	static char buf[CHUNK];
	uint64_t n = 0;
	while (from < to) {
		size_t want = to - from < CHUNK ? (size_t)(to - from) : CHUNK;
		ssize_t k = pread(c->in, buf, want, (off_t)from);
		if (k <= 0)
			break;
		for (const char *p = buf, *e = buf + k; (p = memchr(p, '\n', (size_t)(e - p))); p++)
			n++;
		from += (uint64_t)k;
	}
	return n;
}

/* ---- regular files: from the end ----------------------------------------- */

/* Read [from, to) of the input into a malloc'd buffer. */
static char *read_range(struct ctx *c, uint64_t from, uint64_t to)
{
	size_t n = (size_t)(to - from);
	char *buf = malloc(n ? n : 1);
	if (!buf) {
		tk_cli_error(&c->cli, "out of memory");
		return NULL;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(c->in, buf + got, n - got, (off_t)(from + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k < 0)
				io_error(c, c->name);
			else
				tk_cli_error(&c->cli, "%s: file shrank while being read", c->name);
			free(buf);
			return NULL;
		}
		got += (size_t)k;
	}
	return buf;
}

/* Line starts in buf[0, n) (buf holds file bytes from base): the first
 * line begins at 0 if base is 0 or the byte before it is a newline, else
 * after the first newline.  Returns the count, or -1 (out of memory). */
static long line_starts(const char *buf, size_t n, bool at_line_start, size_t **out)
{
	size_t cap = 1024, cnt = 0;
	size_t *v = malloc(cap * sizeof *v);
	if (!v)
		return -1;
	size_t pos = 0;
	if (!at_line_start) {
		const char *nl = memchr(buf, '\n', n);
		pos = nl ? (size_t)(nl - buf) + 1 : n;
	}
	while (pos < n) {
		if (cnt == cap) {
			size_t *w = realloc(v, (cap *= 2) * sizeof *v);
			if (!w) {
				free(v);
				return -1;
			}
			v = w;
		}
		v[cnt++] = pos;
		const char *nl = memchr(buf + pos, '\n', n - pos);
		pos = nl ? (size_t)(nl - buf) + 1 : n;
	}
	*out = v;
	return (long)cnt;
}

static bool byte_before_is_newline(struct ctx *c, uint64_t off)
{
	char ch;
	return off == 0 || (pread(c->in, &ch, 1, (off_t)off - 1) == 1 && ch == '\n');
}

/* Line i of a chunk: [starts[i], starts[i+1] or n), without the newline. */
static size_t line_len(const char *buf, const size_t *starts, long cnt, long i, size_t n)
{
	size_t e = i + 1 < cnt ? starts[i + 1] : n;
	if (e > starts[i] && buf[e - 1] == '\n')
		e--;
	return e - starts[i];
}

struct keyed {
	uint64_t key, off;
	bool insn;
};

/*
 * Keys of the lines of [from, to) (to is a line start or EOF), skipping
 * the first WARM lines as parser warm-up unless from is 0.  Grows the
 * range backwards while it has no usable line.  Returns the count of keyed
 * lines (>= 0), or -1 on error; *first_off is where the first keyed line
 * starts.
 */
static long key_chunk(struct ctx *c, uint64_t from, uint64_t to, struct keyed **out,
		      uint64_t *first_off)
{
	for (;;) {
		char *buf = read_range(c, from, to);
		if (!buf)
			return -1;
		size_t *starts;
		size_t n = (size_t)(to - from);
		long cnt = line_starts(buf, n, byte_before_is_newline(c, from), &starts);
		if (cnt < 0) {
			free(buf);
			tk_cli_error(&c->cli, "out of memory");
			return -1;
		}
		long skip = from == 0 ? 0 : WARM;
		if (cnt > skip || from == 0) {
			struct keyed *k = malloc(((size_t)cnt + 1) * sizeof *k);
			tk_tarmac_parser *p = NULL;
			if (!k)
				tk_cli_error(&c->cli, "out of memory");
			if (!k || new_parser(c, &p)) {
				free(k);
				free(starts);
				free(buf);
				return -1;
			}
			long m = 0;
			for (long i = 0; i < cnt; i++) {
				bool insn;
				uint64_t key = key_of(p, buf + starts[i], line_len(buf, starts, cnt, i, n),
						      0, from + starts[i], &insn);
				if (i >= skip)
					k[m++] = (struct keyed){key, from + starts[i], insn};
			}
			*first_off = m ? k[0].off : to;
			tk_tarmac_parser_free(p);
			free(starts);
			free(buf);
			*out = k;
			return m;
		}
		free(starts);
		free(buf);
		uint64_t span = to - from;
		from = span * 2 > to ? 0 : to - span * 2;
	}
}

/*
 * The tail from tail_off on is periodic with period p, and keys[0..p) are
 * its first p lines.  Walk back through the file until a line differs
 * from the one p lines after it; return the offset where the repeating
 * tail really starts (-1 on error).
 */
static int64_t extend_back(struct ctx *c, uint32_t p, uint64_t tail_off, const uint64_t *first_keys)
{
	uint64_t *later = malloc(p * sizeof *later);
	if (!later) {
		tk_cli_error(&c->cli, "out of memory");
		return -1;
	}
	memcpy(later, first_keys, p * sizeof *later);
	uint64_t end = tail_off, start = tail_off;
	while (end > 0) {
		uint64_t from = end > CHUNK ? end - CHUNK : 0;
		struct keyed *k;
		uint64_t first_off;
		long m = key_chunk(c, from, end, &k, &first_off);
		if (m < 0) {
			free(later);
			return -1;
		}
		/* Compare line i with line i + p; past the chunk, with later[]. */
		bool stop = false;
		for (long i = m - 1; i >= 0; i--) {
			long j = i + (long)p;
			uint64_t other = j < m ? k[j].key : later[j - m];
			if (k[i].key != other) {
				stop = true;
				break;
			}
			start = k[i].off;
		}
		if (!stop && m > 0) {
			/* later[] becomes the first p keys of chunk + later. */
			uint64_t *nl = malloc(p * sizeof *nl);
			if (!nl) {
				free(k);
				free(later);
				tk_cli_error(&c->cli, "out of memory");
				return -1;
			}
			for (uint32_t i = 0; i < p; i++)
				nl[i] = (long)i < m ? k[i].key : later[i - (uint32_t)m];
			free(later);
			later = nl;
		}
		free(k);
		if (stop)
			break;
		end = first_off;
		if (m == 0 && from == 0)
			break;
	}
	free(later);
	return (int64_t)start;
}

/*
 * Where the lines the detector sees end: `size`, or, when the input does
 * not end in a newline, the start of its unterminated last line (0 if it
 * has no newline at all).  Returns -1 on error.
 */
static int64_t complete_lines_end(struct ctx *c, uint64_t size)
{
	uint64_t end = size;
	while (end > 0) {
		uint64_t from = end > CHUNK ? end - CHUNK : 0;
		char *buf = read_range(c, from, end);
		if (!buf)
			return -1;
		const char *nl = memrchr(buf, '\n', (size_t)(end - from));
		int64_t at = nl ? (int64_t)(from + (uint64_t)(nl - buf) + 1) : -1;
		free(buf);
		if (at >= 0)
			return at;
		end = from;
	}
	return 0;
}

/* From the start of the repeating tail, find the first kept iteration and
 * the cut offset (see loop.h). */
static int finish_cut(struct ctx *c, uint64_t start_off, uint32_t p, uint64_t size, tk_loop *loop)
{
	uint64_t span = (uint64_t)p * 256 + 4096;
	for (;;) {
		uint64_t to = size - start_off > span ? start_off + span : size;
		char *buf = read_range(c, start_off, to);
		if (!buf)
			return -1;
		size_t *starts;
		size_t n = (size_t)(to - start_off);
		long cnt = line_starts(buf, n, true, &starts);
		tk_tarmac_parser *tp = NULL;
		if (cnt < 0 || new_parser(c, &tp)) {
			free(buf);
			if (cnt >= 0)
				free(starts);
			return -1;
		}
		long need = (long)p * (long)(c->lopts.keep + 1);
		if (cnt > need || to == size) {
			long first = 0;
			for (long i = 0; i < (long)p && i < cnt; i++) {
				bool insn;
				key_of(tp, buf + starts[i], line_len(buf, starts, cnt, i, n), 0, 0, &insn);
				if (insn) {
					first = i;
					break;
				}
			}
			long cut = first + (long)p * (long)c->lopts.keep;
			loop->start_offset = start_off;
			loop->cut_offset = cut < cnt ? start_off + starts[cut] : size;
			tk_tarmac_parser_free(tp);
			free(starts);
			free(buf);
			return 0;
		}
		tk_tarmac_parser_free(tp);
		free(starts);
		free(buf);
		span *= 2;
	}
}

static int truncate_file(struct ctx *c, uint64_t file_size)
{
	/* Detect on the complete lines only: [0, size). */
	int64_t lines_end = complete_lines_end(c, file_size);
	if (lines_end < 0)
		return -1;
	uint64_t size = (uint64_t)lines_end;
	uint64_t window = TAIL_START;
	tk_loop loop;
	int found;
	uint64_t first_fed_off;
	uint64_t *first_keys = NULL;
	for (;;) {
		uint64_t from = size > window ? size - window : 0;
		struct keyed *k;
		long m = key_chunk(c, from, size, &k, &first_fed_off);
		if (m < 0)
			return -1;
		tk_loopdet *d;
		if (tk_loopdet_new(&c->lopts, &d) < 0) {
			free(k);
			tk_cli_error(&c->cli, "out of memory");
			return -1;
		}
		/* Enough lines for the longest loop to qualify, or the whole file? */
		uint64_t enough = (uint64_t)c->lopts.max_period * (c->lopts.min_repeats + 1);
		if (from > 0 && (uint64_t)m < enough && window < size) {
			free(k);
			tk_loopdet_free(d);
			window *= 2;
			continue;
		}
		for (long i = 0; i < m; i++)
			tk_loopdet_feed(d, k[i].key, k[i].insn, k[i].off);
		found = tk_loopdet_result(d, &loop);
		tk_loopdet_free(d);
		if (found && loop.start == 0 && from > 0) {
			first_keys = malloc(loop.period * sizeof *first_keys);
			if (!first_keys) {
				free(k);
				tk_cli_error(&c->cli, "out of memory");
				return -1;
			}
			for (uint32_t i = 0; i < loop.period; i++)
				first_keys[i] = k[i].key;
		}
		free(k);
		break;
	}

	if (found && first_keys) {
		/* The repetition goes back past the window. */
		int64_t s = extend_back(c, loop.period, first_fed_off, first_keys);
		free(first_keys);
		if (s < 0 || finish_cut(c, (uint64_t)s, loop.period, size, &loop))
			return -1;
	}
	uint64_t end = found ? loop.cut_offset : file_size;
	if (c->cli.verbose) {
		if (found) {
			uint64_t s = count_lines(c, 0, loop.start_offset) + 1;
			uint64_t kept = count_lines(c, 0, end);
			uint64_t total = kept + count_lines(c, end, file_size) +
					 !byte_before_is_newline(c, file_size);
			fprintf(stderr, "%s: %s ends in a loop of %u lines repeating from line %llu:"
				" kept lines 1-%llu of %llu\n", c->cli.prog, c->name, loop.period,
				(unsigned long long)s, (unsigned long long)kept, (unsigned long long)total);
		} else {
			fprintf(stderr, "%s: %s does not end in a loop: copied unchanged\n",
				c->cli.prog, c->name);
		}
	}
	return copy_range(c, 0, end);
}

/* ---- pipes: in order, holding back what may be cut ---------------------- */

struct holdback {
	char *mem;		/* bytes [mem_base, mem_base + mem_len) */
	size_t mem_len, mem_cap;
	uint64_t mem_base;
	FILE *spill;		/* bytes [emitted, mem_base), when not empty */
	uint64_t spill_base;	/* file offset 0 holds this stream offset */
	uint64_t emitted;	/* everything before this is written out */
};

/* Write out the held bytes before stream offset `to`. */
static int emit_to(struct ctx *c, struct holdback *h, uint64_t to)
{
	if (to <= h->emitted)
		return 0;
	if (h->spill && h->emitted < h->mem_base) {
		uint64_t stop = to < h->mem_base ? to : h->mem_base;
		static char buf[CHUNK];
		while (h->emitted < stop) {
			size_t want = stop - h->emitted < CHUNK ? (size_t)(stop - h->emitted) : CHUNK;
			ssize_t k = pread(fileno(h->spill), buf, want, (off_t)(h->emitted - h->spill_base));
			if (k <= 0) {
				io_error(c, "temporary file");
				return -1;
			}
			if (write_all(c, buf, (size_t)k))
				return -1;
			h->emitted += (uint64_t)k;
		}
		if (h->emitted == h->mem_base) {
			/* The spill is used up: start it afresh. */
			if (ftruncate(fileno(h->spill), 0) != 0) {
				io_error(c, "temporary file");
				return -1;
			}
			h->spill_base = h->mem_base;
		}
	}
	if (to > h->emitted) {
		size_t skip = (size_t)(h->emitted - h->mem_base);
		size_t n = (size_t)(to - h->emitted);
		if (write_all(c, h->mem + skip, n))
			return -1;
		h->emitted = to;
	}
	/* Drop written bytes from memory. */
	if (h->emitted > h->mem_base) {
		size_t drop = (size_t)(h->emitted - h->mem_base);
		memmove(h->mem, h->mem + drop, h->mem_len - drop);
		h->mem_len -= drop;
		h->mem_base = h->emitted;
	}
	return 0;
}

/* Move the held bytes before stream offset `upto` from memory to the
 * spill file. */
static int spill(struct ctx *c, struct holdback *h, uint64_t upto)
{
	if (!h->spill) {
		h->spill = tmpfile();
		if (!h->spill) {
			io_error(c, "temporary file");
			return -1;
		}
		h->spill_base = h->mem_base;
	}
	size_t n = (size_t)(upto - h->mem_base);
	if (pwrite(fileno(h->spill), h->mem, n, (off_t)(h->mem_base - h->spill_base)) != (ssize_t)n) {
		io_error(c, "temporary file");
		return -1;
	}
	memmove(h->mem, h->mem + n, h->mem_len - n);
	h->mem_len -= n;
	h->mem_base += n;
	return 0;
}

static int truncate_stream(struct ctx *c)
{
	struct holdback h = {0};
	tk_loopdet *d = NULL;
	tk_tarmac_parser *p = NULL;
	int rc = -1;
	h.mem_cap = 4 * (size_t)CHUNK;
	h.mem = malloc(h.mem_cap);
	if (!h.mem || tk_loopdet_new(&c->lopts, &d) < 0 || new_parser(c, &p)) {
		tk_cli_error(&c->cli, "out of memory");
		goto out;
	}
	size_t mem_limit = SPILL_LIMIT;
	const char *env = getenv("TRACEKIT_TRUNCATE_MEM");
	if (env && strtoull(env, NULL, 0) > 0)
		mem_limit = (size_t)strtoull(env, NULL, 0);
	uint64_t line_off = 0;	/* stream offset of the next unparsed line */
	uint64_t nlines = 0;
	bool eof = false;
	while (!eof) {
		if (h.mem_cap - h.mem_len < CHUNK) {
			char *m = realloc(h.mem, h.mem_cap * 2);
			if (!m) {
				tk_cli_error(&c->cli, "out of memory");
				goto out;
			}
			h.mem = m;
			h.mem_cap *= 2;
		}
		size_t k;
		if (tk_input_read(c->input, h.mem + h.mem_len, CHUNK, &k) < 0) {
			tk_cli_error(&c->cli, "%s: %s", c->name, tk_input_error(c->input));
			goto out;
		}
		eof = k == 0;
		h.mem_len += k;
		/* Key every complete line.  An unterminated last line is never
		 * fed: it stays held, after every possible cut, and is written
		 * out only if the trace is copied whole. */
		const char *base = h.mem;
		uint64_t end = h.mem_base + h.mem_len;
		while (line_off < end) {
			const char *s = base + (line_off - h.mem_base);
			const char *nl = memchr(s, '\n', (size_t)(end - line_off));
			if (!nl)
				break;
			size_t len = (size_t)(nl - s);
			bool insn;
			uint64_t key = key_of(p, s, len, ++nlines, line_off, &insn);
			tk_loopdet_feed(d, key, insn, line_off);
			line_off += len + 1;
		}
		if (emit_to(c, &h, tk_loopdet_safe_offset(d)))
			goto out;
		if (h.mem_len > mem_limit && line_off > h.mem_base && spill(c, &h, line_off))
			goto out;
	}
	tk_loop loop;
	uint64_t end = h.mem_base + h.mem_len;
	if (line_off < end)
		nlines++;	/* the unterminated last line, for -v */
	int found = tk_loopdet_result(d, &loop);
	if (found && loop.cut_offset < h.emitted) {
		/* Only when over 64 candidate loops were live at once. */
		loop.cut_offset = h.emitted;
	}
	if (c->cli.verbose) {
		if (found)
			fprintf(stderr, "%s: %s ends in a loop of %u lines repeating from line %llu:"
				" kept lines 1-%llu of %llu\n", c->cli.prog, c->name, loop.period,
				(unsigned long long)loop.start + 1, (unsigned long long)loop.cut,
				(unsigned long long)nlines);
		else
			fprintf(stderr, "%s: %s does not end in a loop: copied unchanged\n",
				c->cli.prog, c->name);
	}
	rc = emit_to(c, &h, found ? loop.cut_offset : end);
out:
	if (h.spill)
		fclose(h.spill);
	free(h.mem);
	tk_loopdet_free(d);
	tk_tarmac_parser_free(p);
	return rc;
}

/* After a failure: make tk_cli_close_output() see a write error, so it
 * removes its temporary file instead of renaming it over -o FILE. */
static void discard_output(tk_cli *cli, FILE *fp)
{
	if (fp == stdout)
		return;
	close(fileno(fp));
	fputc('\n', fp);
	fflush(fp);
	tk_cli_close_output(cli, fp);
}

/* ---- the command ----------------------------------------------------------- */

int tk_cmd_truncate(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS] [TRACE]",
		.summary =
		"Cut a trace that ends in a loop (a crashed or hung program repeating the\n"
		"same instruction, the same short loop, or the same exception messages)\n"
		"just after the loop has been seen to repeat: the output keeps everything\n"
		"before the loop and its first two iterations, starting at the loop's\n"
		"first instruction line, so it ends on a whole instruction.  A loop is a\n"
		"period of at most 4096 lines that repeats up to the last line at least\n"
		"three times and over at least 16 lines; lines are compared without their\n"
		"timestamps, instruction counters, register values, memory addresses and\n"
		"data.  A trace that does not end in a loop is copied unchanged, byte for\n"
		"byte.  A last line without its newline (a simulation killed while writing\n"
		"it) is left out of the detection: if the lines before it end in a loop,\n"
		"the trace is cut as usual and the partial line is dropped; otherwise the\n"
		"trace is copied unchanged, partial line included.  Reads standard input\n"
		"when no TRACE is given.",
		.flags = TK_CLI_TRACE | TK_CLI_OUTPUT | TK_CLI_STDIN,
		.min_args = 0,
		.max_args = 0,
	};
	struct ctx c = {0};
	tk_cli_parse(&c.cli, argc, argv, &spec);
	tk_tarmac_opts_init(&c.topts);
	c.topts.implicit_thumb = c.cli.implicit_thumb;
	c.topts.big_endian = c.cli.endian == 'b';
	tk_loop_opts_init(&c.lopts);

	bool use_stdin = !strcmp(c.cli.trace, "-");
	c.name = use_stdin ? "<stdin>" : c.cli.trace;
	c.in = use_stdin ? STDIN_FILENO : open(c.cli.trace, O_RDONLY);
	if (c.in < 0) {
		io_error(&c, c.name);
		return TK_EXIT_FAIL;
	}
	struct stat sb;
	if (fstat(c.in, &sb) != 0) {
		io_error(&c, c.name);
		return TK_EXIT_FAIL;
	}
	if (S_ISDIR(sb.st_mode)) {
		tk_cli_error(&c.cli, "%s: is a directory, not a trace file", c.name);
		return TK_EXIT_FAIL;
	}
	int rc = tk_input_open_fd(c.in, !use_stdin, c.name, NULL, &c.input);
	if (rc < 0) {
		tk_cli_error(&c.cli, "%s: %s", c.name, tk_strerror(rc));
		if (!use_stdin)
			close(c.in);
		return TK_EXIT_FAIL;
	}
	FILE *fp = tk_cli_open_output(&c.cli);
	if (!fp) {
		tk_input_close(c.input);
		return TK_EXIT_FAIL;
	}
	fflush(fp);
	c.out = fileno(fp);

	if (S_ISREG(sb.st_mode) && lseek(c.in, 0, SEEK_CUR) == 0 &&
	    tk_input_get_format(c.input) == TK_INPUT_PLAIN)
		rc = truncate_file(&c, (uint64_t)sb.st_size);
	else
		rc = truncate_stream(&c);
	tk_input_close(c.input);	/* closes c.in, unless standard input */
	if (rc) {
		discard_output(&c.cli, fp);
		return TK_EXIT_FAIL;
	}
	return tk_cli_close_output(&c.cli, fp) ? TK_EXIT_FAIL : TK_EXIT_OK;
}
