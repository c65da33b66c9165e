/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit truncate (tarmac-truncate): cut a trace that ends in a loop.
 *
 * Arm's tarmac-truncate, line for line: the trace is copied one line at a
 * time, each line parsed and fed to the loop detector (tracekit/loop.h),
 * and the copy stops after the line the detector flags.  A trace that
 * never loops is copied byte for byte (CR LF line ends, a missing final
 * newline and all).  Streaming: the input is read once, in order, and
 * nothing but the current line is held, so a simulator can pipe its
 * trace through truncate while it runs (it gets SIGPIPE at the cut).
 *
 * Lines the parser cannot read are copied with a warning and not fed to
 * the detector, except a malformed last line without its newline (a
 * simulator killed while writing it): that one is left out, with a
 * warning, as Arm's tool does.
 *
 * Limits.  A line longer than 64 MB (the parser's limit) is copied
 * through without being held or parsed, with a warning.  Binary input
 * (compressed data, an ELF file, NUL bytes at the start) is refused before
 * anything is written; a later line with NUL bytes ends the output before
 * it, with a warning (a trace file whose zero-filled tail was never
 * written).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/input.h"
#include "tracekit/loop.h"
#include "tracekit/tarmac.h"

#define CHUNK (1u << 20)
#define MAX_LINE ((size_t)64 << 20)	/* as the parser's line reader */

/* The longest line parsed: MAX_LINE, or less for the tests
 * (TRACEKIT_MAX_LINE=BYTES in the environment, at least 64 KB). */
static size_t max_line(void)
{
	const char *env = getenv("TRACEKIT_MAX_LINE");
	unsigned long long v = env ? strtoull(env, NULL, 0) : 0;
	return v >= 65536 && v < MAX_LINE ? (size_t)v : MAX_LINE;
}
#define MAX_WARNINGS 20

struct ctx {
	tk_cli cli;
	tk_tarmac_parser *parser;
	tk_loopdet *det;
	tk_input *in;
	const char *name;		/* input name for messages */
	FILE *out;
	uint64_t lineno;
	uint64_t warnings;
	size_t max_line;
	bool stopped;
	bool nomem;		/* the detector ran out of memory: fail */
};

static void warn(struct ctx *c, uint64_t line, const char *fmt, const char *arg)
{
	if (++c->warnings > MAX_WARNINGS && !c->cli.verbose)
		return;
	fprintf(stderr, "%s:%" PRIu64 ": warning: ", c->name, line);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* Parse one complete line (without its '\n'), feed the detector; returns
 * whether the line is to be written (false only for a malformed last
 * line). */
static bool feed(struct ctx *c, const char *s, size_t len, bool last_unterminated)
{
	const tk_event *ev;
	size_t n;
	int rc = tk_tarmac_parse_line(c->parser, s, len, c->lineno, 0, &ev, &n);
	if (rc == TK_ERR_PARSE) {
		if (last_unterminated) {
			warn(c, c->lineno, "%s; ignoring this malformed last line (trace cut short?)",
			     tk_tarmac_parser_error(c->parser));
			return false;
		}
		warn(c, c->lineno, "%s", tk_tarmac_parser_error(c->parser));
		n = 0;
	}
	int stop = tk_loopdet_line(c->det, ev, n);
	if (stop < 0) {
		c->nomem = c->stopped = true;
		return false;
	}
	if (stop) {
		c->stopped = true;
		if (c->cli.verbose && stop == TK_LOOP_PC)
			fprintf(stderr, "%s: %s: cut after line %" PRIu64 ": the instruction at 0x%"
				PRIx64 " repeats with no register changing\n", c->cli.prog, c->name,
				c->lineno, tk_loopdet_detail(c->det));
		else if (c->cli.verbose)
			fprintf(stderr, "%s: %s: cut after line %" PRIu64 ": a block of %" PRIu64
				" text lines repeats\n", c->cli.prog, c->name, c->lineno,
				tk_loopdet_detail(c->det));
	}
	return true;
}

static int put(struct ctx *c, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, c->out) != n)
		return -1;
	return 0;
}

/* Read more input into buf[*len, cap); returns bytes read, 0 at the end,
 * -1 on error (printed). */
static ssize_t fill(struct ctx *c, char *buf, size_t *len, size_t cap)
{
	size_t k;
	int rc = tk_input_read(c->in, buf + *len, cap - *len, &k);
	if (rc < 0) {
		const char *why = tk_input_error(c->in);
		tk_cli_error(&c->cli, "%s: %s", c->name, *why ? why : tk_strerror(rc));
		return -1;
	}
	*len += k;
	return (ssize_t)k;
}

/* Copy the rest of a line longer than MAX_LINE (buf holds len bytes of
 * it, no newline), without holding it.  Returns 0, 1 at the end of the
 * input, -1 on error; *len is left holding what follows the line. */
static int pass_long_line(struct ctx *c, char *buf, size_t *len)
{
	char limit[32];
	snprintf(limit, sizeof limit, "%zu bytes", c->max_line);
	warn(c, c->lineno, "line longer than %s: copied without being parsed", limit);
	for (;;) {
		char *nl = memchr(buf, '\n', *len);
		size_t take = nl ? (size_t)(nl - buf) + 1 : *len;
		if (put(c, buf, take))
			return -1;
		memmove(buf, buf + take, *len - take);
		*len -= take;
		if (nl)
			return 0;
		ssize_t k = fill(c, buf, len, CHUNK);
		if (k < 0)
			return -1;
		if (k == 0)
			return 1;
	}
}

/* Copy the input, line by line, until the end or the cut.  Returns 0, or
 * -1 after an error (printed). */
static int run(struct ctx *c)
{
	size_t cap = 4 * (size_t)CHUNK, len = 0, scan = 0;
	char *buf = malloc(cap);
	if (!buf) {
		tk_cli_error(&c->cli, "out of memory");
		return -1;
	}
	int rc = -1;
	bool eof = false;
	/* The start of the input must be text (up to 4 KiB looked at). */
	while (!eof && len < 4096) {
		ssize_t k = fill(c, buf, &len, 4096);
		if (k < 0)
			goto out;
		eof = k == 0;
	}
	const char *why = tk_tarmac_sniff_binary(buf, len);
	if (why) {
		tk_cli_error(&c->cli, "%s: %s", c->name, why);
		goto out;
	}
	if (!(c->out = tk_cli_open_output(&c->cli)))
		goto out;
	setvbuf(c->out, NULL, _IOFBF, 1 << 16);
	size_t start = 0;	/* first byte of the current line */
	while (!c->stopped) {
		char *nl = memchr(buf + scan, '\n', len - scan);
		if (nl) {
			size_t end = (size_t)(nl - buf);
			size_t n = end - start;
			c->lineno++;
			if (memchr(buf + start, 0, n)) {
				warn(c, c->lineno, "%s", "line contains NUL bytes (binary data): "
				     "the output ends before it");
				break;
			}
			if (feed(c, buf + start, n, false) && put(c, buf + start, n + 1))
				goto write_error;
			start = scan = end + 1;
			continue;
		}
		/* No complete line left: make room, read more. */
		if (start) {
			memmove(buf, buf + start, len - start);
			len -= start;
			start = 0;
		}
		scan = len;
		if (eof) {
			if (len == 0)
				break;
			/* The last line, without a newline. */
			c->lineno++;
			if (memchr(buf, 0, len)) {
				warn(c, c->lineno, "%s", "line contains NUL bytes (binary data): "
				     "the output ends before it");
				break;
			}
			if (feed(c, buf, len, true) && put(c, buf, len))
				goto write_error;
			break;
		}
		if (len >= c->max_line) {
			c->lineno++;
			if (memchr(buf, 0, len)) {
				warn(c, c->lineno, "%s", "line contains NUL bytes (binary data): "
				     "the output ends before it");
				break;
			}
			tk_loopdet_line(c->det, NULL, 0);
			int r = pass_long_line(c, buf, &len);
			if (r < 0)
				goto write_error;
			eof = r == 1;
			scan = 0;
			continue;
		}
		if (cap - len < CHUNK) {
			size_t ncap = cap * 2 > c->max_line + CHUNK ? c->max_line + CHUNK : cap * 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				tk_cli_error(&c->cli, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t k = fill(c, buf, &len, cap - len < CHUNK ? cap : len + CHUNK);
		if (k < 0)
			goto out;
		eof = k == 0;
	}
	if (c->nomem) {
		tk_cli_error(&c->cli, "out of memory");
		goto out;
	}
	if (c->warnings > MAX_WARNINGS && !c->cli.verbose)
		fprintf(stderr, "%s: %" PRIu64 " warnings in %s (%" PRIu64 " not shown; -v shows all)\n",
			c->cli.prog, c->warnings, c->name, c->warnings - MAX_WARNINGS);
	if (c->cli.verbose && !c->stopped)
		fprintf(stderr, "%s: %s does not end in a loop: copied unchanged\n", c->cli.prog,
			c->name);
	rc = 0;
	goto out;
write_error:
	if (errno)
		tk_cli_error(&c->cli, "error writing %s: %s", c->cli.output ? c->cli.output
						: "standard output", strerror(errno));
out:
	free(buf);
	return rc;
}

int tk_cmd_truncate(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = "[OPTIONS] [TRACE]",
		.summary =
		"Cut a trace that ends in a loop (a crashed or hung program), by the rule\n"
		"of Arm's tarmac-truncate: the trace is copied line by line and ends\n"
		"  - after an instruction whose address is one of the 16 instructions\n"
		"    before it, when no register changed its value in between (its\n"
		"    register and memory lines are left out);\n"
		"  - after a block of k >= 8 text-only lines (messages such as\n"
		"    INFO_EXCEPTION_REASON, with no instruction or register line among\n"
		"    them) that repeats the k lines before it, timestamps aside.\n"
		"A trace that does not loop is copied unchanged, byte for byte.  A\n"
		"malformed last line without its newline (a simulation killed while\n"
		"writing it) is left out with a warning.  Streams: reads standard input\n"
		"when no TRACE is given, and writes as it reads.",
		.flags = TK_CLI_TRACE | TK_CLI_OUTPUT | TK_CLI_STDIN,
		.min_args = 0,
		.max_args = 0,
	};
	struct ctx c = {0};
	TK_CLI_PARSE(&c.cli, argc, argv, &spec);
	c.max_line = max_line();
	tk_tarmac_opts topts;
	tk_tarmac_opts_init(&topts);
	topts.implicit_thumb = tk_cli_has_source_opt(&c.cli, "implicit-thumb");
	topts.big_endian = tk_cli_big_endian(&c.cli);

	bool use_stdin = !strcmp(c.cli.trace, "-");
	c.name = use_stdin ? "<stdin>" : c.cli.trace;
	struct stat sb;
	if (!use_stdin && stat(c.cli.trace, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		tk_cli_error(&c.cli, "%s: is a directory, not a trace file", c.name);
		return TK_EXIT_FAIL;
	}
	/* Through the input layer: a compressed trace is read decompressed. */
	int orc = use_stdin ? tk_input_open_fd(STDIN_FILENO, false, c.name, NULL, &c.in)
			    : tk_input_open(c.cli.trace, NULL, &c.in);
	if (orc < 0) {
		tk_cli_error(&c.cli, "%s: %s", c.name,
			     orc == TK_ERR_OPEN ? strerror(errno) : tk_strerror(orc));
		return TK_EXIT_FAIL;
	}
	if (tk_tarmac_parser_new(&topts, &c.parser) < 0 || tk_loopdet_new(&c.det) < 0) {
		tk_cli_error(&c.cli, "out of memory");
		return TK_EXIT_FAIL;
	}
	int rc = run(&c);
	tk_input_close(c.in);
	tk_tarmac_parser_free(c.parser);
	tk_loopdet_free(c.det);
	if (rc) {
		if (c.out)
			tk_cli_discard_output(&c.cli, c.out);
		return TK_EXIT_FAIL;
	}
	return tk_cli_close_output(&c.cli, c.out) ? TK_EXIT_FAIL : TK_EXIT_OK;
}
