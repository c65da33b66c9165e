/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit qtdis (qtdis): list a Qtrace file.
 *
 *   qtdis [-r] [-v] [-e ELF] [-b] [-d N] [-s|-i|-c] FILE
 *
 * One line per executed instruction (a prefixed instruction's two records
 * give one line), as IBM's qtdis prints it: `-v` lines are identical to
 * its, the disassembly being GNU libopcodes' (POWER10).  Differences:
 * `-r` prints the bytes of each word in instruction (big-endian) order
 * (`--host-order` gives the reference's little-endian order), the suffix
 * of a prefixed instruction is the real one, a damaged file ends with an
 * error naming the offset and exit status 1, and usage errors exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands/power_report.h"
#include "commands/qtdis_format.h"
#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"

enum mode { MODE_LIST, MODE_QTBUILD, MODE_DUMP, MODE_STATS, MODE_MIX, MODE_BLOCKS };

struct opts {
	tk_cli cli;
	bool raw, verbose, host_order;
	const char *elf;
	enum mode mode;
	int reports;		/* -s -i -c given */
	long dump_strategy;
};

static void usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"Usage: %s [-r] [-v] [-e ELF] [-b] [-d N] [-s|-i|-c] FILE\n\n"
		"List the instructions of a Qtrace file, one line each.\n\n"
		"  -v            annotations: data address, RPNs, page sizes, radix walks, branches\n"
		"  -r            the instruction bytes (in instruction order; see --host-order)\n"
		"  -e ELF        symbols from an ELF image for addresses and branch targets\n"
		"  -b            qtbuild assembly output\n"
		"  -d 1          instruction and data addresses instead of disassembly\n"
		"  -s            statistics\n"
		"  -i            instruction mix\n"
		"  -c            basic blocks\n"
		"  --host-order  with -r: each word's bytes little-endian first, as IBM's qtdis on x86\n"
		"  -q, --quiet   no progress meter\n"
		"  --help        show this help\n"
		"  --version     print the version\n",
		prog);
}

static tk_status usage_error(struct opts *o, const char *msg, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s\n", o->cli.prog, msg, arg ? " " : "", arg ? arg : "");
	usage(stderr, o->cli.prog);
	return TK_ST_USAGE;
}

/* TK_ST_OK, DONE (--help, --version) or USAGE. */
static tk_status parse_args(struct opts *o, int argc, char **argv)
{
	enum { OPT_HELP = 1000, OPT_HOST_ORDER, OPT_PROGRESS, OPT_VERSION };
	static const struct option longopts[] = {
		{"help", no_argument, NULL, OPT_HELP},
		{"version", no_argument, NULL, OPT_VERSION},
		{"host-order", no_argument, NULL, OPT_HOST_ORDER},
		{"quiet", no_argument, NULL, 'q'},
		{"show-progress-meter", no_argument, NULL, OPT_PROGRESS},
		{NULL, 0, NULL, 0},
	};
	bool progress_forced = false;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":rve:bd:sicq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': o->raw = true; break;
		case 'v': o->verbose = true; break;
		case 'e': o->elf = optarg; break;
		case 'b': o->mode = MODE_QTBUILD; break;
		case 'd': {
			char *end;
			o->dump_strategy = strtol(optarg, &end, 10);
			if (*end || end == optarg)
				return usage_error(o, "-d needs a number, not", optarg);
			o->mode = MODE_DUMP;
			break;
		}
		case 's': o->mode = MODE_STATS; o->reports++; break;
		case 'i': o->mode = MODE_MIX; o->reports++; break;
		case 'c': o->mode = MODE_BLOCKS; o->reports++; break;
		case 'q': o->cli.quiet = true; break;
		case OPT_HOST_ORDER: o->host_order = true; break;
		case OPT_PROGRESS: progress_forced = true; break;
		case OPT_HELP:
			usage(stdout, o->cli.prog);
			return TK_ST_DONE;
		case OPT_VERSION:
			tk_cli_print_version(o->cli.prog);
			return TK_ST_DONE;
		case ':':
			return usage_error(o, "option needs an argument:", argv[optind - 1]);
		default:
			return usage_error(o, "unknown option", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error(o, optind >= argc ? "no Qtrace file given" : "unexpected argument",
			    optind >= argc ? NULL : argv[optind + 1]);
	o->cli.trace = argv[optind];
	if (o->reports > 1)
		return usage_error(o, "-s, -i and -c go one at a time", NULL);
	if (o->reports && (o->verbose || o->raw)) {
		fprintf(stderr, "Dumping stats (-s/-i/-c) can only be used alone\n");
		return TK_ST_USAGE;
	}
	if (o->mode == MODE_DUMP && o->dump_strategy != 1) {
		fprintf(stderr, "Unknown dump strategy %ld\n", o->dump_strategy);
		return TK_ST_USAGE;
	}
	o->cli.progress = progress_forced || (!o->cli.quiet && isatty(STDERR_FILENO));
	return TK_ST_OK;
}

/* A record that must outlive the next read: its walks copied. */
typedef struct kept {
	tk_qt_record rec;
	tk_qt_walk iw, dw;
} kept;

static void keep(kept *k, const tk_qt_record *r)
{
	k->rec = *r;
	if (r->insn_walk) {
		k->iw = *r->insn_walk;
		k->rec.insn_walk = &k->iw;
	}
	if (r->data_walk) {
		k->dw = *r->data_walk;
		k->rec.data_walk = &k->dw;
	}
}

static void dump_addresses(FILE *fp, const tk_qt_record *r)
{
	fprintf(fp, "IFTCH EA:0x%016" PRIx64, r->ea);
	/* RA printed as RPN << 12 whatever the page size, as the reference */
	if (r->valid & TK_QT_NEXT_RPN)
		fprintf(fp, " RA:0x%016" PRIx64, (uint64_t)r->next_rpn << 12);
	if (r->valid & TK_QT_NEXT_PAGE_SHIFT)
		fprintf(fp, " PAGE_SIZE:0x%" PRIx64, (uint64_t)1 << (r->next_page_shift & 63));
	fputc('\n', fp);
	if (r->valid & TK_QT_DATA_EA) {
		fprintf(fp, "LDST EA:0x%016" PRIx64, r->data_ea);
		if (r->valid & TK_QT_DATA_RPN)
			fprintf(fp, " RA:0x%016" PRIx64, (uint64_t)r->data_rpn << 12);
		if (r->valid & TK_QT_DATA_PAGE_SHIFT)
			fprintf(fp, " PAGE_SIZE:0x%" PRIx64, (uint64_t)1 << (r->data_page_shift & 63));
		fputc('\n', fp);
	}
}

struct state {
	struct opts *o;
	qtdis_format fmt;
	power_report *report;
	uint64_t count, prev_ea;
	unsigned prev_width;
	unsigned nprogress;	/* records since the meter was last updated */
	char line[QTDIS_LINE_MAX];
};

static void emit(struct state *s, const tk_qt_record *r, const uint32_t *w, unsigned n)
{
	switch (s->o->mode) {
	case MODE_LIST:
		fwrite(s->line, 1, qtdis_line(&s->fmt, r, w, n, s->line), stdout);
		break;
	case MODE_QTBUILD:
		if (s->count == 0)
			printf("#include \"qtb.h\"\nstart_trace\t0x%016" PRIx64 "\n", r->ea);
		else if (r->ea != s->prev_ea + s->prev_width)
			printf("branch_to_abs\t0x%016" PRIx64 "\n", r->ea);
		if (s->count % 10 == 0)
			printf("# instruction number %" PRIu64 "\n", s->count);
		qtdis_disasm(&s->fmt, r->ea, w, n, s->line, sizeof s->line);
		if (r->valid & TK_QT_DATA_EA)
			printf("%s\t; ldst 0x%016" PRIx64 "\n", s->line, r->data_ea);
		else
			printf("%s\n", s->line);
		break;
	case MODE_DUMP:
		dump_addresses(stdout, r);
		break;
	default:
		power_report_add(s->report, r->ea, w, n, r->valid & TK_QT_BRANCH,
				 r->valid & TK_QT_DATA_EA, r->page_shift);
		break;
	}
	s->count++;
	s->prev_ea = r->ea;
	s->prev_width = 4 * n;
}

int tk_cmd_qtdis(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	o.cli.prog = argv[0];
	tk_status pst = parse_args(&o, argc, argv);
	if (pst != TK_ST_OK)
		return tk_cli_exit(pst);

	tk_symtab *st = NULL;
	if (o.elf) {
		int rc = tk_symtab_load(o.elf, 0, &st);
		if (rc < 0) {
			tk_cli_error(&o.cli, "%s: %s", o.elf,
				     rc == TK_ERR_OPEN ? strerror(errno) : tk_strerror(rc));
			return TK_EXIT_FAIL;
		}
	}
	tk_qt_reader *r;
	int rc = tk_qt_reader_open(o.cli.trace, NULL, &r);
	if (rc < 0) {
		tk_cli_error(&o.cli, "%s", tk_qt_reader_last_error());
		tk_symtab_free(st);
		return TK_EXIT_FAIL;
	}
	struct state s = {.o = &o};
	qtdis_addr_style style = o.mode == MODE_QTBUILD ? QTDIS_ADDR_DUMMY :
				 st ? QTDIS_ADDR_SYMBOL : QTDIS_ADDR_PLAIN;
	if (qtdis_format_init(&s.fmt, st, style) < 0 ||
	    (o.reports && !(s.report = power_report_new()))) {
		tk_cli_error(&o.cli, "out of memory");
		tk_qt_reader_free(r);
		tk_symtab_free(st);
		return TK_EXIT_FAIL;
	}
	s.fmt.raw = o.raw;
	s.fmt.raw_host_order = o.host_order;
	s.fmt.verbose = o.verbose;
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);

	tk_qt_record rec;
	kept prefix;
	while ((rc = tk_qt_reader_next(r, &rec)) > 0) {
		uint32_t words[2] = {rec.insn, 0};
		if (tk_ppc_is_prefix(rec.insn)) {
			/* The line is the prefix record's, with the suffix word. */
			keep(&prefix, &rec);
			rc = tk_qt_reader_next(r, &rec);
			if (rc <= 0) {
				emit(&s, &prefix.rec, words, 1);
				break;
			}
			words[1] = rec.insn;
			emit(&s, &prefix.rec, words, 2);
		} else {
			emit(&s, &rec, words, 1);
		}
		if (!(++s.nprogress & 65535))
			tk_cli_progress(&o.cli, "reading", tk_qt_reader_offset(r), tk_qt_reader_size(r));
	}
	tk_cli_progress_clear();
	int status = TK_EXIT_OK;
	if (s.report) {
		if (o.mode == MODE_STATS)
			power_report_print_stats(s.report, stdout);
		else if (o.mode == MODE_MIX)
			power_report_print_mix(s.report, stdout);
		else
			power_report_print_blocks(s.report, stdout);
	}
	if (fflush(stdout) != 0) {
		tk_cli_error(&o.cli, "error writing standard output: %s", strerror(errno));
		status = TK_EXIT_FAIL;
	}
	if (rc < 0) {
		tk_cli_error(&o.cli, "%s", tk_qt_reader_error(r));
		status = TK_EXIT_FAIL;
	}
	power_report_free(s.report);
	qtdis_format_fini(&s.fmt);
	tk_qt_reader_free(r);
	tk_symtab_free(st);
	return status;
}
