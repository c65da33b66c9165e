/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit htm2qt (htmdecoder): convert a POWER Core HTM dump to Qtrace.
 *
 *   htm2qt [-D] [-d] [-s] [-i] [-b] [-o OUT.qt] DUMP
 *
 * The options and messages are those of IBM's htmdecoder (options may
 * follow the dump name), except that usage errors exit with status 2 and
 * an unknown option is an error; see docs/POWER.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands/power_report.h"
#include "tracekit/htm.h"
#include "tracekit/ppc.h"
#include "tracekit/qtrace.h"

struct ctx {
	tk_cli cli;
	bool debug, dump, stats, mix, blocks;
	char *default_out;
	power_report *report;
	tk_qt_record prefix;		/* a prefix waiting for its suffix (report) */
	bool have_prefix;
	unsigned nprogress;		/* records since the meter was last updated */
};

static void usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"Usage: %s [-Ddsib]... [-o <outfile.qt>] <htmdump>\n\n"
		"Convert a POWER8/POWER10 Core HTM dump (plain, gzip, zstd or xz) to a Qtrace file.\n\n"
		"\t-D\t\tDebug info: every stamp and instruction record, then the statistics\n"
		"\t-d\t\tDump every instruction record, then the statistics\n"
		"\t-s\t\tDump stats (no Qtrace file is written)\n"
		"\t-i\t\tDump instruction mix (no Qtrace file is written)\n"
		"\t-b\t\tBasic block analysis (no Qtrace file is written)\n"
		"\t-o FILE\t\tthe Qtrace file to write (default: <htmdump>.qt)\n"
		"\t-q, --quiet\tno progress meter\n"
		"\t--show-progress-meter\tprogress meter even when not on a terminal\n"
		"\t--help\t\tshow this help\n"
		"\t--version\tprint the version\n",
		prog);
}

static void on_invalid(void *vctx, const tk_htm_invalid *inv)
{
	(void)vctx;
	tk_cli_progress_clear();
	printf("Invalid record:%" PRIu64 " offset:%" PRIu64 " data:%016" PRIx64 " \n", inv->number,
	       inv->offset, inv->word);
}

static void on_stamp(void *vctx, const tk_htm_stamp *s)
{
	struct ctx *c = vctx;
	if (!c->debug)
		return;
	char text[128];
	tk_htm_stamp_text(s, text, sizeof text);
	printf("%s\n", text);
}

static void on_diag(void *vctx, const tk_diag *d)
{
	(void)vctx;
	tk_cli_progress_clear();
	fprintf(stderr, "%s: offset %" PRIu64 ": %s: %s\n", d->file ? d->file : "?", d->line,
		d->level == TK_DIAG_ERROR ? "error" : d->level == TK_DIAG_WARNING ? "warning" : "note",
		d->msg);
}

static void print_record(const tk_qt_record *r)
{
	printf("INSN  iea:%016" PRIx64 " op:%08" PRIx32, r->ea, r->insn);
	if (r->valid & TK_QT_RA)
		printf(" ira:%016" PRIx64, r->ra);
	if (r->valid & TK_QT_PAGE_SHIFT)
		printf(" ipgsize:%d", r->page_shift);
	if (r->valid & TK_QT_DATA_EA)
		printf(" dea:%016" PRIx64, r->data_ea);
	if (r->valid & TK_QT_DATA_RA)
		printf(" dra:%016" PRIx64, r->data_ra);
	if (r->valid & TK_QT_DATA_PAGE_SHIFT)
		printf(" dpgsize:%d", r->data_page_shift);
	putchar('\n');
}

static void stat_line(const char *label, uint64_t v)
{
	printf("%48s : %" PRIu64 "\n", label, v);
}

static void print_tlb_entry(void *ctx, uint64_t ea, uint64_t ra, unsigned shift)
{
	(void)ctx;
	printf("TLBDUMP ea:%016" PRIx64 " ra:%016" PRIx64 " pgsize:%u\n", ea, ra, shift);
}

static void print_stats(const tk_htm *d)
{
	const tk_htm_stats *s = tk_htm_get_stats(d);
	uint64_t cpi = s->insns_processed ? s->cycles / s->insns_processed : 0;
	printf("%48s : 0x%016" PRIx64 "\n", "RAW Checksum", s->raw_checksum);
	stat_line("Total Records Scanned", s->records_scanned);
	stat_line("Total Records Processed", s->records_processed);
	stat_line("Total Instructions Scanned", s->insns_scanned);
	stat_line("Total Instructions Processed", s->insns_processed);
	stat_line("Total TimeStamps Scanned", s->stamps_scanned);
	stat_line("Total TimeStamps Processed", s->stamps_processed);
	stat_line("Total Cycles for Processed Instructions", s->cycles);
	stat_line("Total Interrupts Processed", s->interrupts);
	stat_line("Total Branches taken after Non branches", s->jumps_after_non_branch);
	stat_line("Pipeline CPI", cpi);
	stat_line("CHTM CPI", cpi);
	stat_line("Unique ESIDs with IRPNs", s->esids_with_irpn);
	stat_line("Unique ESIDs without IRPNs", s->esids_without_irpn);
	stat_line("Instructions with IRAs", s->insns_with_ira);
	stat_line("Instructions without IRAs", s->insns_without_ira);
	stat_line("SLBMTE Instructions", 0);
	stat_line("SLBIA Instructions", 0);
	stat_line("RFID Instructions", 0);
	stat_line("Total Instructions With I-VSIDs", 0);
	stat_line("Total Instructions Without I-VSIDs", s->insns_processed);
	stat_line("Total Instructions With D-VSIDs", s->vsid_records);
	stat_line("Total Instructions Without D-VSIDs", s->insns_processed - s->vsid_records);
	stat_line("Total Instruction Records with ESID record", s->esid_records);
	stat_line("Total Instruction Records with VSID record", s->vsid_records);
	for (int i = 0; i < 4; i++) {
		char label[64];
		snprintf(label, sizeof label, "Total VSID records with Segment Size %d", i);
		stat_line(label, s->vsid_segment_size[i]);
	}
	stat_line("4K data pages", s->data_pages[0]);
	stat_line("64K data pages", s->data_pages[1]);
	stat_line("16M data pages", s->data_pages[2]);
	stat_line("4K instruction pages", s->insn_pages[0]);
	stat_line("64K instruction pages", s->insn_pages[1]);
	stat_line("16M instruction pages", s->insn_pages[2]);
	tk_htm_tlb_foreach(d, print_tlb_entry, NULL);
}

/* Feed the summaries, merging a prefixed pair into one instruction. */
static void report_record(struct ctx *c, const tk_qt_record *r)
{
	if (c->have_prefix) {
		c->have_prefix = false;
		const tk_qt_record *p = &c->prefix;
		if (r->ea == p->ea + 4) {
			uint32_t w[2] = {p->insn, r->insn};
			power_report_add(c->report, p->ea, w, 2, p->valid & TK_QT_BRANCH,
					 p->valid & TK_QT_DATA_EA, p->page_shift);
			return;
		}
		power_report_add(c->report, p->ea, &p->insn, 1, p->valid & TK_QT_BRANCH,
				 p->valid & TK_QT_DATA_EA, p->page_shift);
	}
	if (tk_ppc_is_prefix(r->insn)) {
		c->prefix = *r;
		c->have_prefix = true;
		return;
	}
	power_report_add(c->report, r->ea, &r->insn, 1, r->valid & TK_QT_BRANCH,
			 r->valid & TK_QT_DATA_EA, r->page_shift);
}

/* TK_ST_OK, DONE (--help, --version) or USAGE. */
static tk_status parse_args(struct ctx *c, int argc, char **argv)
{
	enum { OPT_HELP = 1000, OPT_PROGRESS, OPT_VERSION };
	static const struct option longopts[] = {
		{"help", no_argument, NULL, OPT_HELP},
		{"version", no_argument, NULL, OPT_VERSION},
		{"quiet", no_argument, NULL, 'q'},
		{"show-progress-meter", no_argument, NULL, OPT_PROGRESS},
		{NULL, 0, NULL, 0},
	};
	bool progress_forced = false;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":Ddsibo:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'D': c->debug = c->dump = true; break;
		case 'd': c->dump = true; break;
		case 's': c->stats = true; break;
		case 'i': c->mix = true; break;
		case 'b': c->blocks = true; break;
		case 'o': c->cli.output = optarg; break;
		case 'q': c->cli.quiet = true; break;
		case OPT_PROGRESS: progress_forced = true; break;
		case OPT_HELP:
			usage(stdout, c->cli.prog);
			return TK_ST_DONE;
		case OPT_VERSION:
			tk_cli_print_version(c->cli.prog);
			return TK_ST_DONE;
		case ':':
			fprintf(stderr, "%s: option '%s' needs an argument\n", c->cli.prog, argv[optind - 1]);
			usage(stderr, c->cli.prog);
			return TK_ST_USAGE;
		default:
			if (optopt)
				fprintf(stderr, "%s: unknown option '-%c'\n", c->cli.prog, optopt);
			else
				fprintf(stderr, "%s: unknown option '%s'\n", c->cli.prog, argv[optind - 1]);
			usage(stderr, c->cli.prog);
			return TK_ST_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "Expected arguments after options\n");
		usage(stderr, c->cli.prog);
		return TK_ST_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", c->cli.prog, argv[optind + 1]);
		usage(stderr, c->cli.prog);
		return TK_ST_USAGE;
	}
	c->cli.trace = argv[optind];
	if ((c->stats || c->mix || c->blocks) && c->cli.output) {
		fprintf(stderr, "ERROR: -s/-i/-b and -o options incompatible\n");
		return TK_ST_USAGE;
	}
	c->cli.progress = progress_forced || (!c->cli.quiet && isatty(STDERR_FILENO));
	return TK_ST_OK;
}

int tk_cmd_htm2qt(int argc, char **argv)
{
	struct ctx c;
	memset(&c, 0, sizeof c);
	c.cli.prog = argv[0];
	tk_status st = parse_args(&c, argc, argv);
	if (st != TK_ST_OK)
		return tk_cli_exit(st);
	bool write_qt = !(c.stats || c.mix || c.blocks);

	tk_htm_opts o;
	tk_htm_opts_init(&o);
	o.diag = on_diag;
	o.on_invalid = on_invalid;
	o.on_stamp = on_stamp;
	o.ctx = &c;
	tk_htm *d;
	int rc = tk_htm_open(c.cli.trace, &o, &d);
	if (rc < 0) {
		tk_cli_error(&c.cli, "%s: %s", c.cli.trace,
			     rc == TK_ERR_OPEN || rc == TK_ERR_ISDIR ? strerror(errno) : tk_strerror(rc));
		return TK_EXIT_FAIL;
	}
	if (c.mix || c.blocks) {
		c.report = power_report_new();
		if (!c.report) {
			tk_cli_error(&c.cli, "out of memory");
			tk_htm_free(d);
			return TK_EXIT_FAIL;
		}
	}
	FILE *out = NULL;
	tk_qt_writer *w = NULL;
	if (write_qt) {
		if (!c.cli.output) {
			size_t n = strlen(c.cli.trace) + 4;
			c.default_out = malloc(n);
			if (c.default_out)
				snprintf(c.default_out, n, "%s.qt", c.cli.trace);
			c.cli.output = c.default_out;
		}
		/* tk_cli_open_output says why it failed */
		out = c.cli.output ? tk_cli_open_output(&c.cli) : NULL;
		if (!out || tk_qt_writer_new(out, 0, &w) < 0) {
			if (out || !c.cli.output)
				tk_cli_error(&c.cli, "out of memory");
			if (out)
				tk_cli_discard_output(&c.cli, out);
			tk_htm_free(d);
			free(c.default_out);
			return TK_EXIT_FAIL;
		}
	}
	if (c.dump)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	tk_qt_record rec;
	int status = TK_EXIT_OK;
	uint64_t nrecs = 0;
	while ((rc = tk_htm_next(d, &rec)) > 0) {
		nrecs++;
		if (c.dump)
			print_record(&rec);
		if (w && (rc = tk_qt_writer_add(w, &rec)) < 0)
			break;
		if (c.report)
			report_record(&c, &rec);
		if (!(++c.nprogress & 65535))
			tk_cli_progress(&c.cli, "decoding", tk_htm_offset(d), tk_htm_size(d));
	}
	tk_cli_progress_clear();
	if (rc < 0) {
		if (tk_htm_error(d)[0])
			tk_cli_error(&c.cli, "%s", tk_htm_error(d));
		else
			tk_cli_error(&c.cli, "%s: %s", c.cli.output ? c.cli.output : c.cli.trace,
				     rc == TK_ERR_IO ? strerror(errno) : tk_strerror(rc));
		status = TK_EXIT_FAIL;
	}
	if (rc == 0 && nrecs == 0)
		fprintf(stderr, "%s: warning: no instructions in %s\n", c.cli.prog, c.cli.trace);
	if (w) {
		/* The records decoded before damage are kept. */
		if (tk_qt_writer_finish(w) < 0 || tk_cli_close_output(&c.cli, out) < 0) {
			if (status == TK_EXIT_OK)
				tk_cli_error(&c.cli, "%s: write error", c.cli.output);
			status = TK_EXIT_FAIL;
		}
		tk_qt_writer_free(w);
	}
	if (c.report && c.have_prefix)
		power_report_add(c.report, c.prefix.ea, &c.prefix.insn, 1, false, false, 0);
	if (c.dump || c.stats)
		print_stats(d);
	if (c.mix && power_report_print_mix(c.report, stdout) < 0)
		status = TK_EXIT_FAIL;
	if (c.blocks)
		power_report_print_blocks(c.report, stdout);
	if (fflush(stdout) != 0)
		status = TK_EXIT_FAIL;
	power_report_free(c.report);
	tk_htm_free(d);
	free(c.default_out);
	return status;
}
