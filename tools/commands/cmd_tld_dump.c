/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld-dump: print the records of a trace-buffer dump or an
 * `rtrace save` file in the format of `tracekit parse`:
 *
 *   L<record> t=<time>[ cpu=<thread>] CALL addr=0x<addr> site=0x0 name=<name>
 *    %2d] <type>(<size>) = <bytes>          one line per argument
 *   L<record> t=<time>[ cpu=<thread>] RETURN addr=0x<addr> site=0x0 name=<name>
 *    rt] <type>(<size>) = <bytes>           the return value (not for void)
 *
 * The value lines are exactly what the printf generator prints (bytes in
 * memory order, two hex digits each; "--" for bytes a record over 16383
 * bytes could not hold).  <thread> is the thread's number in order of
 * first appearance, shown when not 0.  --info prints the header and the
 * function table instead; --count only counts.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tracekit/tld_dump.h"

enum { OPT_COUNT = 256, OPT_INFO };

struct dump_opts {
	bool count, info;
};

static const struct option dump_longs[] = {
	{"count", no_argument, NULL, OPT_COUNT},
	{"info", no_argument, NULL, OPT_INFO},
	{NULL, 0, NULL, 0},
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct dump_opts *o = ctx;
	if (val == OPT_COUNT)
		o->count = true;
	else if (val == OPT_INFO)
		o->info = true;
	return 0;
}

static void print_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	if (d->level == TK_DIAG_NOTE && !cli->verbose)
		return;
	const char *lvl = d->level == TK_DIAG_ERROR	? "error"
			  : d->level == TK_DIAG_WARNING ? "warning"
							: "note";
	fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : cli->prog, lvl, d->msg);
}

static void print_value(FILE *out, const char *label, const tk_tld_value *v)
{
	static const char hex[] = "0123456789abcdef";
	fprintf(out, " %s] %s(%u) = ", label, v->type, v->size);
	char buf[512];
	size_t n = 0;
	for (uint32_t i = 0; i < v->size; i++) {
		if (n + 2 > sizeof buf) {
			fwrite(buf, 1, n, out);
			n = 0;
		}
		buf[n++] = i < v->avail ? hex[v->bytes[i] >> 4] : '-';
		buf[n++] = i < v->avail ? hex[v->bytes[i] & 15] : '-';
	}
	fwrite(buf, 1, n, out);
	putc('\n', out);
}

static void print_record(FILE *out, const tk_tld_record *r)
{
	fprintf(out, "L%llu t=%llu", (unsigned long long)r->number, (unsigned long long)r->time);
	if (r->context)
		fprintf(out, " cpu=%u", r->context);
	fprintf(out, " %s addr=0x%llx site=0x0 name=%.*s\n", r->exit ? "RETURN" : "CALL",
		(unsigned long long)r->addr, (int)r->name_len, r->name);
	for (uint32_t i = 0; i < r->nvalues; i++) {
		char label[16];
		if (r->exit)
			snprintf(label, sizeof label, "rt");
		else
			snprintf(label, sizeof label, "%2u", i + 1);
		print_value(out, label, &r->values[i]);
	}
}

static void print_info(FILE *out, const tk_tld_dump *d)
{
	static const char *const clocks[] = {"ns", "sequence", "ticks", "trace time"};
	const tk_tld_dump_info *in = tk_tld_dump_get_info(d);
	fprintf(out, "format:       %s\n",
		in->kind == TK_TLD_FILE_DUMP ? "tracekit trace-buffer dump" : "RTEMS rtrace save");
	if (in->kind == TK_TLD_FILE_DUMP)
		fprintf(out, "version:      %u\n", in->version);
	fprintf(out, "byte order:   %s-endian\n", in->big_endian ? "big" : "little");
	if (in->pointer_size)
		fprintf(out, "pointers:     %u bytes\n", in->pointer_size);
	if (in->machine)
		fprintf(out, "machine:      %u (ELF e_machine)\n", in->machine);
	fprintf(out, "clock:        %s", clocks[in->clock]);
	if (in->clock_hz)
		fprintf(out, " (%llu Hz)", (unsigned long long)in->clock_hz);
	fprintf(out, "\nbuffer:       %u of %u words used%s%s\n", in->used_words, in->capacity_words,
		in->finished ? ", finished (full: later calls were lost)" : "",
		in->triggered ? ", triggered" : "");
	fprintf(out, "functions:    %u\n", in->nfuncs);
	for (uint32_t i = 0; i < in->nfuncs; i++) {
		const tk_tld_func *f = tk_tld_dump_func(d, i);
		fprintf(out, "  %u 0x%llx %s %s(", i, (unsigned long long)f->addr, f->types[0], f->name);
		for (uint32_t a = 1; a < f->argc; a++)
			fprintf(out, "%s%s", a > 1 ? ", " : "", f->types[a]);
		fputs(")\n", out);
	}
}

int tk_cmd_tld_dump(int argc, char **argv)
{
	struct dump_opts o = {0};
	tk_cli_spec spec = {
		.usage = "[OPTIONS] DUMP",
		.summary = "Print the function entry and exit records of a trace-buffer dump (saved\n"
			   "by a program trace-linked with trace-buffer-generator, or made by\n"
			   "tld-extract) or of an RTEMS `rtrace save` file, one per line as\n"
			   "`tracekit parse` prints calls:\n"
			   "  L1 t=1043 CALL addr=0x401136 site=0x0 name=add\n"
			   "    1] int(4) = 02000000\n"
			   "    2] int(4) = 03000000\n"
			   "  L2 t=1101 RETURN addr=0x401136 site=0x0 name=add\n"
			   "   rt] int(4) = 05000000\n"
			   "An rtrace file has no addresses: give the program with --image.",
		.options_help = "  --info                   print the header and the function table\n"
				"  --count                  print only the number of records\n",
		.flags = TK_CLI_OUTPUT | TK_CLI_IMAGE | TK_CLI_TRACE,
		.min_args = 0,
		.max_args = 0,
		.extra = dump_longs,
		.handle = handle,
		.ctx = &o,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (tk_cli_load_image(&cli))
		return TK_EXIT_FAIL;
	tk_tld_dump_opts dopts = {sizeof dopts, print_diag, &cli, cli.symtab};
	tk_tld_dump *d;
	int rc = tk_tld_dump_open(cli.trace, &dopts, &d);
	if (rc) {
		tk_cli_fini(&cli);
		return TK_EXIT_FAIL;
	}
	FILE *out = tk_cli_open_output(&cli);
	if (!out) {
		tk_tld_dump_free(d);
		tk_cli_fini(&cli);
		return TK_EXIT_FAIL;
	}
	static char obuf[1 << 16];
	if (out == stdout)
		setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	tk_tld_record rec;
	uint64_t n = 0, calls = 0;
	if (o.info)
		print_info(out, d);
	else
		while ((rc = tk_tld_dump_next(d, &rec)) > 0) {
			n++;
			calls += !rec.exit;
			if (!o.count)
				print_record(out, &rec);
		}
	if (o.count)
		fprintf(out, "records: %llu (%llu entries, %llu exits)\n", (unsigned long long)n,
			(unsigned long long)calls, (unsigned long long)(n - calls));
	tk_tld_dump_free(d);
	tk_cli_fini(&cli);
	if (tk_cli_close_output(&cli, out))
		return TK_EXIT_FAIL;
	return rc < 0 ? TK_EXIT_FAIL : TK_EXIT_OK;
}
