/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit ptxed: the instructions an Intel PT trace executed, one per
 * line, as libipt's ptxed prints them (disassembly by capstone). */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt_cli.h"

enum {
	OPT_NO_INST = PTO_LAST + 1, OPT_ATT, OPT_OFFSET, OPT_ICLASS, OPT_SHOW_BLOCKS, OPT_STAT,
	OPT_BLOCK_DECODER, OPT_INSN_DECODER, OPT_MAX_LINEAR,
};

struct ptxed_ctx {
	tk_pt_cli p;
	bool no_inst, att, offset, iclass, show_blocks, stat;
	tk_pt_decoder decoder;
	uint64_t max_linear;	/* 0: the decoder's default */
};

static int handle(tk_cli *cli, int val, const char *arg, void *vctx)
{
	struct ptxed_ctx *c = vctx;
	switch (val) {
	case OPT_NO_INST: c->no_inst = true; return 0;
	case OPT_ATT: c->att = true; return 0;
	case OPT_OFFSET: c->offset = true; return 0;
	case OPT_ICLASS: c->iclass = true; return 0;
	case OPT_SHOW_BLOCKS: c->show_blocks = true; return 0;
	case OPT_STAT: c->stat = true; return 0;
	case OPT_BLOCK_DECODER: c->decoder = TK_PT_DECODER_BLOCK; return 0;
	case OPT_INSN_DECODER: c->decoder = TK_PT_DECODER_INSN; return 0;
	case OPT_MAX_LINEAR:
		if (tk_pt_parse_number(arg, &c->max_linear) < 0 || !c->max_linear) {
			tk_cli_error(cli, "--max-linear=%s: expected a positive instruction count", arg);
			return -1;
		}
		return 0;
	}
	return tk_pt_cli_option(cli, &c->p, val, arg) == 0 ? 0 : -1;
}

static char *put_hex16(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 15; i >= 0; i--) {
		p[i] = digits[v & 15];
		v >>= 4;
	}
	return p + 16;
}

static void print_insn(FILE *fp, const struct ptxed_ctx *c, const tk_pt_item *it)
{
	char line[320], *p = line;
	if (c->offset) {
		p = put_hex16(p, it->offset);
		*p++ = ' ';
		*p++ = ' ';
	}
	if (it->speculative) {
		*p++ = '?';
		*p++ = ' ';
	}
	p = put_hex16(p, it->ip);
	if (c->iclass)
		p += sprintf(p, "  %-10s", tk_pt_iclass_name(it->iclass));
	if (!c->no_inst) {
		*p++ = ' ';
		*p++ = ' ';
		int n = tk_pt_disasm(it->bytes, it->size, it->ip, c->att, p,
				     sizeof line - (size_t)(p - line) - 2);
		if (n < 0)
			n = sprintf(p, "(bad)");
		p += n;
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), fp);
}

static void print_event(FILE *fp, const struct ptxed_ctx *c, const tk_pt_item *it)
{
	if (c->offset)
		fprintf(fp, "[%016" PRIx64 "  %s]\n", it->offset, it->text);
	else
		fprintf(fp, "[%s]\n", it->text);
}

struct progress {
	bool on, drawn;
	double last;
	uint64_t total;
	unsigned counter;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress_tick(struct progress *pg, const char *trace, uint64_t pos)
{
	if (!pg->on || ++pg->counter < 65536)
		return;
	pg->counter = 0;
	double t = now();
	if (t - pg->last < 0.1)
		return;
	pg->last = t;
	fprintf(stderr, "\rdecoding %s: %3u%%", trace,
		(unsigned)(pg->total ? pos * 100 / pg->total : 0));
	pg->drawn = true;
}

/* Decode and print stream i.  Returns the number of errors or a tk_err. */
static int64_t run_stream(tk_cli *cli, struct ptxed_ctx *c, tk_pt *pt, unsigned i, FILE *fp,
			  uint64_t *insns, uint64_t *blocks, struct progress *pg)
{
	tk_pt_decode_opts o;
	tk_pt_decode_opts_init(&o);
	o.decoder = c->decoder;
	o.threads = c->p.threads;
	o.piece_bytes = c->p.piece_bytes;
	o.max_linear = c->max_linear;
	o.count_only = cli->quiet;
	o.block_marks = c->show_blocks && !cli->quiet;
	tk_pt_decode *d;
	int rc = tk_pt_decode_new(pt, i, &o, &d);
	if (rc < 0)
		return rc;
	tk_pt_stream_info si;
	tk_pt_stream(pt, i, &si);
	pg->total = si.size;
	int64_t errors = 0;
	tk_pt_item it;
	while ((rc = tk_pt_decode_next(d, &it)) > 0) {
		progress_tick(pg, c->p.trace, it.offset);
		switch (it.kind) {
		case TK_PT_INSN:
			if (!cli->quiet)
				print_insn(fp, c, &it);
			break;
		case TK_PT_BLOCK:
			if (cli->quiet)
				break;
			if (c->stat)
				fprintf(fp, "[block %" PRIx64 "]\n", it.number);
			else
				fputs("[block]\n", fp);
			break;
		case TK_PT_EVENT:
			if (!cli->quiet)
				print_event(fp, c, &it);
			break;
		case TK_PT_END:
			if (!cli->quiet)
				fputs("[end of trace]\n", fp);
			break;
		case TK_PT_ERROR:
			errors++;
			fprintf(fp, "[%" PRIx64 ", %" PRIx64 ": %s]\n", it.offset, it.ip, it.text);
			break;
		case TK_PT_GAP:
			errors++;
			fprintf(fp, "[%" PRIx64 ": gap: %s]\n", it.offset, it.text);
			break;
		}
	}
	*insns += tk_pt_decode_insns(d);
	*blocks += tk_pt_decode_blocks(d);
	tk_pt_decode_free(d);
	return rc < 0 ? rc : errors;
}

int tk_cmd_ptxed(int argc, char **argv)
{
	static const struct option extra[] = {
		TK_PT_CLI_OPTIONS,
		{"no-inst", no_argument, NULL, OPT_NO_INST},
		{"att", no_argument, NULL, OPT_ATT},
		{"offset", no_argument, NULL, OPT_OFFSET},
		{"iclass", no_argument, NULL, OPT_ICLASS},
		{"block:show-blocks", no_argument, NULL, OPT_SHOW_BLOCKS},
		{"stat", no_argument, NULL, OPT_STAT},
		{"block-decoder", no_argument, NULL, OPT_BLOCK_DECODER},
		{"insn-decoder", no_argument, NULL, OPT_INSN_DECODER},
		{"max-linear", required_argument, NULL, OPT_MAX_LINEAR},
		{0},
	};
	struct ptxed_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	const tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary = "Print the instructions an Intel PT trace (raw PT or perf.data) executed, one\n"
			   "per line, as libipt's ptxed prints them: the address (16 hex digits) and\n"
			   "its disassembly, with events such as [enabled] and [disabled].  Decode\n"
			   "errors are shown as [OFFSET, IP: error: MESSAGE]; decoding goes on at\n"
			   "the next PSB.  Raw PT needs the code (--image, --raw); perf.data brings\n"
			   "the images of the traced process with it.",
		.options_help = "  --no-inst                print addresses only, no disassembly\n"
				"  --att                    AT&T syntax (default: Intel)\n"
				"  --offset                 print the trace offset first\n"
				"  --iclass                 print libipt's class of each instruction\n"
				"  --block:show-blocks      mark where each block begins (block decoder)\n"
				"  --stat                   print the number of instructions (and blocks)\n"
				"  --block-decoder          use libipt's block decoder (default, faster)\n"
				"  --insn-decoder           use libipt's instruction flow decoder\n"
				"  --max-linear=N           call a loop endless after N instructions that\n"
				"                           need no trace (default 2^26)\n"
				TK_PT_CLI_HELP,
		.flags = TK_CLI_OUTPUT,
		.min_args = 0,
		.max_args = 1,
		.extra = extra,
		.handle = handle,
		.ctx = &ctx,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (tk_pt_cli_trace(&cli, &ctx.p) < 0)
		return TK_EXIT_USAGE;
	tk_pt *pt;
	if (tk_pt_cli_open(&cli, &ctx.p, &pt))
		return TK_EXIT_FAIL;
	if (tk_pt_format_of(pt) == TK_PT_FORMAT_RAW && tk_pt_image_count(pt) == 0) {
		tk_cli_error(&cli, "%s: raw PT needs the traced code: give --image=ELF[@ADDR] or "
			     "--raw=FILE@ADDR", ctx.p.trace);
		tk_pt_free(pt);
		return TK_EXIT_FAIL;
	}
	FILE *fp = tk_cli_open_output(&cli);
	if (!fp) {
		tk_pt_free(pt);
		return TK_EXIT_FAIL;
	}
	static char obuf[1 << 16];
	setvbuf(fp, obuf, _IOFBF, sizeof obuf);
	struct progress pg = {.on = cli.progress && !isatty(fileno(fp)), .last = now()};
	uint64_t insns = 0, blocks = 0;
	int64_t errors = 0;
	unsigned n = tk_pt_stream_count(pt);
	for (unsigned i = 0; i < n; i++) {
		if (n > 1) {
			tk_pt_stream_info si;
			tk_pt_stream(pt, i, &si);
			if (!cli.quiet)
				fprintf(fp, "[buffer %u, cpu %u]\n", si.index, si.cpu);
		}
		int64_t e = run_stream(&cli, &ctx, pt, i, fp, &insns, &blocks, &pg);
		if (e < 0) {
			if (pg.drawn)
				fputs("\r\033[K", stderr);
			tk_cli_error(&cli, "%s: %s", ctx.p.trace, tk_strerror((int)e));
			tk_pt_free(pt);
			tk_cli_discard_output(&cli, fp);
			return TK_EXIT_FAIL;
		}
		errors += e;
	}
	if (pg.drawn)
		fputs("\r\033[K", stderr);
	if (ctx.stat) {
		fprintf(fp, "insn: %" PRIu64 ".\n", insns);
		if (ctx.decoder == TK_PT_DECODER_BLOCK)
			fprintf(fp, "blocks:\t%" PRIu64 ".\n", blocks);
	}
	tk_pt_free(pt);
	if (tk_cli_close_output(&cli, fp))
		return TK_EXIT_FAIL;
	if (errors)
		fprintf(stderr, "%s: %" PRId64 " decode error%s or gap%s in %s\n", cli.prog, errors,
			errors == 1 ? "" : "s", errors == 1 ? "" : "s", ctx.p.trace);
	return errors ? TK_EXIT_FAIL : TK_EXIT_OK;
}
