/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit addr2line: a drop-in replacement for binutils' addr2line.
 *
 * Same options (-a -b -C -e -f -i -j -p -r -R -s, their long forms, and
 * --image as another name for --exe), same output byte for byte (see
 * include/tracekit/dwarf.h for how the answers are chosen).  Addresses come
 * from the arguments, or from standard input a line at a time (as binutils
 * reads them: lines of up to 99 characters, each parsed as hexadecimal).
 *
 * Output is buffered, but flushed before every read of standard input that
 * would block, so it works as a coprocess (one address in, its answer out)
 * and is fast in batch.  binutils prints one quirk this keeps: the lines an
 * -i inline chain adds repeat the discriminator of the address's own line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracekit/dwarf.h"
#include "tracekit/error.h"

struct opts {
	const char *prog;
	bool addresses, functions, inlines, demangle, pretty, basenames;
	const char *section;
};

/* The output line buffer. */
struct out {
	char *s;
	size_t len, cap;
	bool nomem;	/* a line was lost: out of memory */
};

static void out_add(struct out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + n)
			cap *= 2;
		char *ns = realloc(o->s, cap);
		if (!ns) {
			o->nomem = true;
			return;
		}
		o->s = ns;
		o->cap = cap;
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
}

static void out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

static void out_uint(struct out *o, unsigned v)
{
	char buf[16], *p = buf + sizeof buf;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	out_add(o, p, (size_t)(buf + sizeof buf - p));
}

static void out_hex(struct out *o, uint64_t v, unsigned digits)
{
	static const char hex[] = "0123456789abcdef";
	char buf[16];
	for (unsigned i = 0; i < digits; i++)
		buf[digits - 1 - i] = hex[(v >> (4 * i)) & 15];
	out_add(o, buf, digits);
}

static void diag_print(void *ctx, const tk_diag *d)
{
	const char *prog = ctx;
	fprintf(stderr, "%s: %s: %s%s\n", prog, d->file ? d->file : "?",
		d->level == TK_DIAG_ERROR ? "error: " : d->level == TK_DIAG_WARNING ? "warning: " : "",
		d->msg);
}

/* One address: what binutils' translate_addresses prints for it. */
static int answer(tk_dwarf *d, const struct opts *op, uint64_t pc, struct out *o)
{
	if (tk_dwarf_addr_bytes(d) == 4)
		pc &= 0xffffffffu;
	if (op->addresses) {
		out_add(o, "0x", 2);
		out_hex(o, pc, tk_dwarf_addr_bytes(d) == 4 ? 8 : 16);
		out_str(o, op->pretty ? ": " : "\n");
	}
	tk_dwarf_result r;
	int rc = tk_dwarf_addr2line(d, pc, op->section, &r);
	if (rc == TK_ERR_NOMEM)
		return rc;
	if (!r.found) {
		if (op->functions)
			out_str(o, op->pretty ? "?? " : "??\n");
		out_str(o, "??:0\n");
		return 0;
	}
	unsigned disc = r.locs[0].discriminator;
	for (unsigned i = 0; i < r.count && (i == 0 || op->inlines); i++) {
		const tk_dwarf_loc *l = &r.locs[i];
		if (i && op->pretty)
			out_str(o, " (inlined by) ");
		if (op->functions) {
			const char *name = l->function;
			char *alloc = NULL;
			if (!name || !*name)
				name = "??";
			else if (op->demangle && (alloc = tk_dwarf_demangle(name)))
				name = alloc;
			out_str(o, name);
			out_str(o, op->pretty ? " at " : "\n");
			free(alloc);
		}
		const char *file = l->file;
		if (op->basenames && file) {
			const char *slash = strrchr(file, '/');
			if (slash)
				file = slash + 1;
		}
		out_str(o, file ? file : "??");
		out_add(o, ":", 1);
		if (l->line) {
			out_uint(o, l->line);
			if (disc) {
				out_str(o, " (discriminator ");
				out_uint(o, disc);
				out_add(o, ")", 1);
			}
			out_add(o, "\n", 1);
		} else {
			out_str(o, "?\n");
		}
	}
	return 0;
}

/* An address as binutils 2.40 reads it: hexadecimal, "0x" optional, after
 * blanks; one '+' is skipped; a leading '-' gives 0; overflow gives all
 * ones; parsing stops at the first character that is not a digit. */
static uint64_t parse_address(const char *s)
{
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s == '-')
		return 0;
	if (*s == '+')
		s++;
	return strtoul(s, NULL, 16);
}

/* Standard input, read in blocks; lines cut as fgets(buf, 100) cuts them. */
struct in {
	char buf[65536];
	size_t start, end;
	bool eof;
};

/* The next chunk (at most 99 bytes, up to and including a newline) into
 * line[]; false at the end.  Flushes stdout before a read that may block. */
static bool next_chunk(struct in *in, char *line)
{
	for (;;) {
		size_t avail = in->end - in->start;
		const char *p = in->buf + in->start;
		size_t lim = avail < 99 ? avail : 99;
		const char *nl = memchr(p, '\n', lim);
		if (nl || avail >= 99 || (in->eof && avail)) {
			size_t n = nl ? (size_t)(nl - p) + 1 : lim;
			memcpy(line, p, n);
			line[n] = 0;
			in->start += n;
			return true;
		}
		if (in->eof)
			return false;
		memmove(in->buf, p, avail);
		in->start = 0;
		in->end = avail;
		fflush(stdout);
		ssize_t got;
		do
			got = read(STDIN_FILENO, in->buf + in->end, sizeof in->buf - in->end);
		while (got < 0 && errno == EINTR);
		if (got <= 0)
			in->eof = true;
		else
			in->end += (size_t)got;
	}
}

static void usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"usage: %s [OPTIONS] [ADDRESS...]\n\n"
		"Translate addresses into function names and source FILE:LINE, from the\n"
		"DWARF of an ELF image; output identical to binutils' addr2line.  Without\n"
		"addresses, they are read from standard input, one a line (hexadecimal).\n\n"
		"Options:\n"
		"  -e, --exe=ELF, --image=ELF  the image (default a.out)\n"
		"  -a, --addresses          print each address first\n"
		"  -f, --functions          print the function name\n"
		"  -i, --inlines            also the functions the code was inlined into\n"
		"  -C, --demangle[=STYLE]   demangle C++ names (STYLE is accepted and ignored)\n"
		"  -s, --basenames          file names without their directory\n"
		"  -p, --pretty-print       one line per address\n"
		"  -j, --section=NAME       addresses are offsets into section NAME\n"
		"  -b, --target=BFDNAME     accepted and ignored (the format is always ELF)\n"
		"  -r, -R                   accepted and ignored (demangler recursion limit)\n"
		"  -h, --help               show this help\n"
		"  -v, --version            show the version\n\n"
		"Exit status: 0, or 1 if the image cannot be read or has damaged DWARF\n"
		"(reported on standard error, naming the section and offset).\n",
		prog);
}

int tk_cmd_addr2line(int argc, char **argv)
{
	enum { OPT_IMAGE = 256 };
	static const struct option longopts[] = {
		{"addresses", no_argument, NULL, 'a'},
		{"basenames", no_argument, NULL, 's'},
		{"demangle", optional_argument, NULL, 'C'},
		{"exe", required_argument, NULL, 'e'},
		{"image", required_argument, NULL, OPT_IMAGE},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"pretty-print", no_argument, NULL, 'p'},
		{"recurse-limit", no_argument, NULL, 'R'},
		{"recursion-limit", no_argument, NULL, 'R'},
		{"no-recurse-limit", no_argument, NULL, 'r'},
		{"no-recursion-limit", no_argument, NULL, 'r'},
		{"section", required_argument, NULL, 'j'},
		{"target", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'H'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct opts op = {.prog = argv[0]};
	const char *file = "a.out";
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ab:Ce:rRsfHhij:pVv", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': op.addresses = true; break;
		case 'b': case 'r': case 'R': break;
		case 'C': op.demangle = true; break;
		case 'e': case OPT_IMAGE: file = optarg; break;
		case 's': op.basenames = true; break;
		case 'f': op.functions = true; break;
		case 'i': op.inlines = true; break;
		case 'j': op.section = optarg; break;
		case 'p': op.pretty = true; break;
		case 'h': case 'H': usage(stdout, op.prog); return TK_EXIT_OK;
		case 'v': case 'V': tk_cli_print_version(op.prog); return TK_EXIT_OK;
		default:
			if (optopt && optopt < 256)
				fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", op.prog, optopt);
			else
				fprintf(stderr, "%s: unknown option or missing argument '%s' (try --help)\n",
					op.prog, argv[optind - 1]);
			return TK_EXIT_USAGE;
		}
	}
	tk_dwarf_opts dopts = {sizeof dopts, diag_print, (void *)op.prog};
	tk_dwarf *d;
	int rc = tk_dwarf_open(file, &dopts, &d);
	if (rc < 0) {
		if (rc == TK_ERR_OPEN)
			fprintf(stderr, "%s: %s: %s\n", op.prog, file, strerror(errno));
		else if (rc == TK_ERR_ELF)
			fprintf(stderr, "%s: %s: not an ELF file\n", op.prog, file);
		else
			fprintf(stderr, "%s: %s: %s\n", op.prog, file, tk_strerror(rc));
		return TK_EXIT_FAIL;
	}
	int status = TK_EXIT_OK;
	struct out o = {0};
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	if (op.section) {
		tk_dwarf_result r;
		if (tk_dwarf_addr2line(d, 0, op.section, &r) == TK_ERR_NOTFOUND) {
			fprintf(stderr, "%s: %s: cannot find section %s\n", op.prog, file, op.section);
			tk_dwarf_free(d);
			return TK_EXIT_FAIL;
		}
	}
	if (optind < argc) {
		for (int i = optind; i < argc && status == TK_EXIT_OK; i++) {
			o.len = 0;
			if (answer(d, &op, parse_address(argv[i]), &o) || o.nomem)
				status = TK_EXIT_FAIL;
			else
				fwrite(o.s, 1, o.len, stdout);
		}
	} else {
		static struct in in;
		char line[100];
		while (status == TK_EXIT_OK && next_chunk(&in, line)) {
			o.len = 0;
			if (answer(d, &op, parse_address(line), &o) || o.nomem)
				status = TK_EXIT_FAIL;
			else
				fwrite(o.s, 1, o.len, stdout);
		}
	}
	if (o.nomem)
		fprintf(stderr, "%s: out of memory\n", op.prog);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the output: %s\n", op.prog, strerror(errno));
		status = TK_EXIT_FAIL;
	}
	if (tk_dwarf_error_count(d))
		status = TK_EXIT_FAIL;
	free(o.s);
	tk_dwarf_free(d);
	return status;
}
