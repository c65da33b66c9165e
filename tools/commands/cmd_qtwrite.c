/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit qtwrite: make a Qtrace file, or a POWER Core HTM dump, from a
 * text stream of executed instructions.
 *
 *   qtwrite [--htm[=power10|power8|power8-full]] -o OUT STREAM
 *
 * STREAM has one executed instruction per line: "EA WORD [DATA_EA]" in hex
 * (WORD of 16 digits for a prefixed pair, or the prefix and the suffix on
 * two lines).  Without --htm the Qtrace writer makes OUT; with --htm an
 * encoder makes a dump that `htm2qt` decodes back to the same
 * instructions.  Tests and benchmarks use it to turn instruction streams
 * recorded under qemu into test data.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/htm.h"
#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"

struct ctx {
	tk_cli cli;
	bool htm;
	tk_htm_encoding enc;
	tk_qt_writer *qw;
	tk_htm_encoder *he;
	tk_qt_stream_insn held;		/* a prefix line waiting for its suffix line */
	bool have_held;
	uint64_t held_line;
};

static void usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"Usage: %s [--htm[=power10|power8|power8-full]] -o OUT STREAM\n\n"
		"Write the executed instructions of STREAM (\"-\": standard input) as a Qtrace\n"
		"file, or with --htm as a POWER Core HTM dump that htm2qt decodes back to them.\n"
		"STREAM has one instruction per line: EA WORD [DATA_EA], in hex; WORD has 16\n"
		"digits for a prefixed instruction (prefix, suffix); '#' starts a comment.\n\n"
		"  --htm[=power10]    a POWER10 dump (XLATE, IEARA, INST, MSR, PREFIX, DEA/DRA, stamps)\n"
		"  --htm=power8       a POWER8 dump, IEA/IRA words only after jumps (the software TLB\n"
		"                     gives the rest)\n"
		"  --htm=power8-full  a POWER8 dump with IEA and IRA words on every record\n"
		"  -o, --output=OUT   the file to write (standard output if it is not a terminal)\n"
		"  --help             show this help\n"
		"  --version          print the version\n",
		prog);
}

/* TK_ST_OK, DONE (--help, --version) or USAGE. */
static tk_status parse_args(struct ctx *c, int argc, char **argv)
{
	enum { OPT_HELP = 1000, OPT_HTM, OPT_VERSION };
	static const struct option longopts[] = {
		{"help", no_argument, NULL, OPT_HELP},
		{"version", no_argument, NULL, OPT_VERSION},
		{"htm", optional_argument, NULL, OPT_HTM},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': c->cli.output = optarg; break;
		case OPT_HTM:
			c->htm = true;
			if (!optarg || !strcmp(optarg, "power10") || !strcmp(optarg, "p10"))
				c->enc = TK_HTM_ENC_P10;
			else if (!strcmp(optarg, "power8") || !strcmp(optarg, "p8"))
				c->enc = TK_HTM_ENC_P8;
			else if (!strcmp(optarg, "power8-full") || !strcmp(optarg, "p8-full"))
				c->enc = TK_HTM_ENC_P8_FULL;
			else {
				tk_cli_error(&c->cli, "--htm=%s: expected power10, power8 or power8-full",
					     optarg);
				return TK_ST_USAGE;
			}
			break;
		case OPT_HELP:
			usage(stdout, c->cli.prog);
			return TK_ST_DONE;
		case OPT_VERSION:
			tk_cli_print_version(c->cli.prog);
			return TK_ST_DONE;
		case ':':
			tk_cli_error(&c->cli, "option '%s' needs an argument", argv[optind - 1]);
			return TK_ST_USAGE;
		default:
			tk_cli_error(&c->cli, "unknown option '%s' (try --help)", argv[optind - 1]);
			return TK_ST_USAGE;
		}
	}
	if (optind != argc - 1) {
		tk_cli_error(&c->cli, optind >= argc ? "no stream given (usage: %s -o OUT STREAM)"
						      : "unexpected argument (usage: %s -o OUT STREAM)",
			     c->cli.prog);
		return TK_ST_USAGE;
	}
	c->cli.trace = argv[optind];
	if ((!c->cli.output || !strcmp(c->cli.output, "-")) && isatty(STDOUT_FILENO)) {
		tk_cli_error(&c->cli, "will not write binary data to a terminal: give -o OUT");
		return TK_ST_USAGE;
	}
	return TK_ST_OK;
}

static int add(struct ctx *c, const tk_qt_stream_insn *in)
{
	if (c->he)
		return tk_htm_encoder_add(c->he, in->ea, in->words, in->nwords, in->has_data_ea,
					  in->data_ea);
	tk_qt_record recs[2];
	unsigned n = tk_qt_stream_records(in, recs);
	for (unsigned i = 0; i < n; i++) {
		int rc = tk_qt_writer_add(c->qw, &recs[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One stream line; prefix and suffix lines are joined for the encoder.
 * Returns 0 or -1 after printing an error. */
static int line(struct ctx *c, const char *s, size_t n, uint64_t lineno)
{
	tk_qt_stream_insn in;
	const char *why;
	int rc = tk_qt_stream_parse(s, n, &in, &why);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "%s:%" PRIu64 ": error: %s\n", c->cli.trace, lineno, why);
		return -1;
	}
	if (c->have_held) {
		c->have_held = false;
		if (in.nwords != 1 || in.ea != c->held.ea + 4) {
			fprintf(stderr, "%s:%" PRIu64 ": error: the prefix on line %" PRIu64
				" is not followed by its suffix at EA + 4\n", c->cli.trace, lineno,
				c->held_line);
			return -1;
		}
		c->held.words[1] = in.words[0];
		c->held.nwords = 2;
		in = c->held;
	} else if (c->he && in.nwords == 1 && tk_ppc_is_prefix(in.words[0])) {
		c->held = in;
		c->have_held = true;
		c->held_line = lineno;
		return 0;
	}
	rc = add(c, &in);
	if (rc < 0) {
		fprintf(stderr, "%s:%" PRIu64 ": error: %s\n", c->cli.trace, lineno,
			rc == TK_ERR_INVAL ? "a prefixed instruction cannot go in a POWER8 dump"
					   : strerror(errno));
		return -1;
	}
	return 0;
}

int tk_cmd_qtwrite(int argc, char **argv)
{
	struct ctx c;
	memset(&c, 0, sizeof c);
	c.cli.prog = argv[0];
	tk_status pst = parse_args(&c, argc, argv);
	if (pst != TK_ST_OK)
		return tk_cli_exit(pst);

	FILE *in = strcmp(c.cli.trace, "-") ? fopen(c.cli.trace, "r") : stdin;
	if (!in) {
		tk_cli_error(&c.cli, "%s: %s", c.cli.trace, strerror(errno));
		return TK_EXIT_FAIL;
	}
	FILE *out = tk_cli_open_output(&c.cli);
	if (!out) {
		if (in != stdin)
			fclose(in);
		return TK_EXIT_FAIL;
	}
	int rc = c.htm ? tk_htm_encoder_new(out, c.enc, &c.he) : tk_qt_writer_new(out, 0, &c.qw);
	int status = TK_EXIT_OK;
	if (rc < 0) {
		tk_cli_error(&c.cli, "out of memory");
		status = TK_EXIT_FAIL;
	}
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t lineno = 0;
	while (status == TK_EXIT_OK && (n = getline(&buf, &cap, in)) >= 0) {
		lineno++;
		if (n && buf[n - 1] == '\n')
			n--;
		if (line(&c, buf, (size_t)n, lineno) < 0)
			status = TK_EXIT_FAIL;
	}
	free(buf);
	if (status == TK_EXIT_OK && ferror(in)) {
		tk_cli_error(&c.cli, "%s: read error: %s", c.cli.trace, strerror(errno));
		status = TK_EXIT_FAIL;
	}
	if (status == TK_EXIT_OK && c.have_held) {
		fprintf(stderr, "%s:%" PRIu64 ": error: the stream ends after a prefix\n",
			c.cli.trace, c.held_line);
		status = TK_EXIT_FAIL;
	}
	if (in != stdin)
		fclose(in);
	if (status == TK_EXIT_OK) {
		rc = c.he ? tk_htm_encoder_finish(c.he) : tk_qt_writer_finish(c.qw);
		if (rc < 0 || tk_cli_close_output(&c.cli, out) < 0) {
			if (rc < 0)
				tk_cli_error(&c.cli, "%s: write error: %s",
					     c.cli.output ? c.cli.output : "standard output", strerror(errno));
			status = TK_EXIT_FAIL;
		}
		if (status == TK_EXIT_OK && c.he && tk_htm_encoder_stats(c.he)->unrecodable)
			fprintf(stderr, "%s: note: %" PRIu64 " branches written without the HTM branch "
				"recoding (not expressible in it)\n", c.cli.prog,
				tk_htm_encoder_stats(c.he)->unrecodable);
	} else {
		tk_cli_discard_output(&c.cli, out);
	}
	tk_htm_encoder_free(c.he);
	tk_qt_writer_free(c.qw);
	return status;
}
