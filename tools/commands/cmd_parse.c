/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit parse: print the events of every trace line, one per output line.
 *
 * The format is stable (tests compare it) and meant to be read:
 *
 *   L<line> t=<time>[ cpu=<n>] INSN pc=0x<addr> <A32|T32|A64|?> w=<bytes>
 *       enc=0x<hex>|enc=none exec|ccfail[ mode=<mode>] "<disassembly>"
 *   L<line> t=<time> REG <reg>[<first>:<end>]=<value> name=<as written>
 *   L<line> t=<time> MEM <R|W> addr=0x<addr>[ paddr=0x<addr>] size=<n>
 *       [ excl] bytes=<bytes>| aborted
 *   L<line> t=<time> TEXT kind=<type word> "<line without timestamp>"
 *   L<line> t=<time> RUN n=<count> first=0x<addr> last=0x<addr> w=<bytes>
 *       branch=<none|jump|call|return|unknown>       (--runs)
 *
 * (each event on one line).  <reg> is the canonical register ("x1", "v0",
 * "r13"...) or "none" for one tracekit does not model; [first:end) are the
 * bytes of it written (byte 0 least significant).  A register <value> is
 * printed most significant byte first, as a trace writes it; memory <bytes>
 * in address order (first = the byte at addr).  A byte is two hex digits,
 * "--" if not written (a partial update) or "??" if written with an unknown
 * value.  Strings are quoted with \" \\ \t \xNN escapes.
 *
 * --runs asks the source for runs of instructions where it has them (Intel
 * PT's blocks, as the call detector reads them); L and t are the run's
 * first instruction's.
 * --count prints only the number of lines and events of each kind: a quick
 * check of a big trace, and the parser benchmark.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tracekit/event.h"

enum { OPT_COUNT = 256, OPT_RUNS };

static const struct option parse_opts[] = {
	{"count", no_argument, NULL, OPT_COUNT},
	{"runs", no_argument, NULL, OPT_RUNS},
	{NULL, 0, NULL, 0},
};

struct parse_flags {
	bool count, runs;
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	(void)cli;
	(void)arg;
	struct parse_flags *f = ctx;
	if (val == OPT_COUNT)
		f->count = true;
	else if (val == OPT_RUNS)
		f->runs = true;
	return 0;
}

static const char *branch_name(tk_branch b)
{
	switch (b) {
	case TK_BR_NONE: return "none";
	case TK_BR_JUMP: return "jump";
	case TK_BR_CALL: return "call";
	case TK_BR_RETURN: return "return";
	case TK_BR_UNKNOWN: break;
	}
	return "unknown";
}

static void put_quoted(FILE *fp, const char *s, size_t n)
{
	putc('"', fp);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

static void put_name(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20) {
			put_quoted(fp, s, n);
			return;
		}
	fwrite(s, 1, n, fp);
}

static void put_byte(FILE *fp, uint8_t v, uint8_t state)
{
	if (state == TK_BYTE_SET)
		fprintf(fp, "%02x", v);
	else
		fputs(state == TK_BYTE_NONE ? "--" : "??", fp);
}

/* A function event's arguments (or return value), one line each, as the
 * trace linker's printf generator prints them: " %2d] TYPE(SIZE) = BYTES"
 * (" rt] ..." for the return value), bytes in memory order. */
static void print_values(FILE *fp, const tk_event *ev)
{
	const tk_func_event *fe = &ev->u.func;
	for (uint32_t i = 0; i < fe->nvalues; i++) {
		const tk_value *v = &fe->values[i];
		if (ev->kind == TK_EV_RETURN)
			fputs(" rt] ", fp);
		else
			fprintf(fp, " %2u] ", i + 1);
		fprintf(fp, "%.*s(%u) = ", (int)v->type_len, v->type, v->size);
		for (uint32_t b = 0; b < v->size; b++)
			fprintf(fp, "%02x", v->bytes[b]);
		putc('\n', fp);
	}
}

static void print_event(FILE *fp, const tk_event *ev, const char *context_name)
{
	fprintf(fp, "L%llu t=%llu", (unsigned long long)ev->line, (unsigned long long)ev->time);
	if (ev->context)
		fprintf(fp, " %s=%u", context_name, ev->context);
	switch (ev->kind) {
	case TK_EV_INSN: {
		const tk_insn *in = &ev->u.insn;
		fprintf(fp, " INSN pc=0x%llx %s w=%u", (unsigned long long)in->pc,
			tk_isa_name(in->isa), in->width);
		if (in->nbytes)
			fprintf(fp, " enc=0x%0*llx", in->nbytes * 2,
				(unsigned long long)tk_insn_encoding(in));
		else
			fputs(" enc=none", fp);
		fputs(in->executed ? " exec" : " ccfail", fp);
		if (in->mode_len) {
			fputs(" mode=", fp);
			put_name(fp, in->mode, in->mode_len);
		}
		putc(' ', fp);
		put_quoted(fp, in->disasm, in->disasm_len);
		break;
	}
	case TK_EV_REG: {
		const tk_reg_update *r = &ev->u.reg;
		const char *reg = r->view.reg == TK_REG_NONE ? "none" : tk_reg_name(r->view.reg);
		fprintf(fp, " REG %s[%u:%u]=", reg, r->view.offset, r->view.offset + r->view.len);
		for (unsigned i = r->view.len; i-- > 0;)
			put_byte(fp, r->value[i], r->state[i]);
		fputs(" name=", fp);
		put_name(fp, r->name, r->name_len);
		break;
	}
	case TK_EV_MEM: {
		const tk_mem_access *m = &ev->u.mem;
		fprintf(fp, " MEM %c addr=0x%llx", m->write ? 'W' : 'R', (unsigned long long)m->addr);
		if (m->has_paddr)
			fprintf(fp, " paddr=0x%llx", (unsigned long long)m->paddr);
		fprintf(fp, " size=%u", m->size);
		if (m->exclusive)
			fputs(" excl", fp);
		if (m->aborted) {
			fputs(" aborted", fp);
		} else {
			fputs(" bytes=", fp);
			for (uint32_t i = 0; i < m->size; i++)
				put_byte(fp, m->bytes[i], m->state[i]);
		}
		break;
	}
	case TK_EV_TEXT:
		fputs(" TEXT kind=", fp);
		put_name(fp, ev->u.text.kind, ev->u.text.kind_len);
		putc(' ', fp);
		put_quoted(fp, ev->u.text.text, ev->u.text.len);
		break;
	case TK_EV_CALL:
	case TK_EV_RETURN:
		fprintf(fp, " %s addr=0x%llx site=0x%llx", ev->kind == TK_EV_CALL ? "CALL" : "RETURN",
			(unsigned long long)ev->u.func.addr, (unsigned long long)ev->u.func.site);
		if (ev->u.func.name) {
			fputs(" name=", fp);
			put_name(fp, ev->u.func.name, ev->u.func.name_len);
		}
		break;
	case TK_EV_GAP:
		fprintf(fp, " GAP kind=%s ", tk_gap_kind_name(ev->u.gap.kind));
		put_quoted(fp, ev->u.gap.msg, ev->u.gap.msg_len);
		break;
	case TK_EV_RUN: {
		const tk_insn_run *r = &ev->u.run;
		fprintf(fp, " RUN n=%llu first=0x%llx last=0x%llx w=%u branch=%s",
			(unsigned long long)r->count, (unsigned long long)r->first_pc,
			(unsigned long long)r->last.pc, r->last.width, branch_name(r->last.branch));
		break;
	}
	}
	putc('\n', fp);
	if (ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN)
		print_values(fp, ev);
}

int tk_cmd_parse(int argc, char **argv)
{
	struct parse_flags flags = {false, false};
	tk_cli_spec spec = {
		.usage = "[OPTIONS] [TRACE]",
		.summary = "Print the events of every line (record) of TRACE (or standard\n"
			   "input), in any format tracekit reads, one event per line:\n"
			   "  L12 t=53 INSN pc=0x2109f0 A64 w=4 enc=0xf94003e1 exec mode=EL3h_s \"LDR      x1,[sp,#0]\"\n"
			   "  L13 t=53 MEM R addr=0xffb80 paddr=0xffb80 size=8 bytes=b8fb0f0000000000\n"
			   "  L14 t=53 REG x1[0:8]=00000000000ffbb8 name=X1\n"
			   "  L15 t=53 TEXT kind=CADI \"CADI E simulation_stopped\"\n"
			   "Register values are shown most significant byte first, memory bytes in\n"
			   "address order; \"--\" is a byte not written, \"??\" one of unknown value.\n"
			   "Registers tracekit does not model show as none[0:N].  Malformed lines are\n"
			   "reported as FILE:LINE: warning: ... and printed as TEXT.",
		.options_help = "  --count                  print only the number of lines and events\n"
				"  --runs                   runs of instructions where the format has them\n"
				"                           (Intel PT's blocks: RUN n=... first=... last=...)\n",
		.flags = TK_CLI_TRACE | TK_CLI_STDIN | TK_CLI_OUTPUT | TK_CLI_IMAGE,
		.min_args = 0,
		.max_args = 0,
		.extra = parse_opts,
		.handle = handle,
		.ctx = &flags,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);

	tk_source *src;
	if (tk_cli_open_trace(&cli, &src))
		return TK_EXIT_FAIL;
	if (flags.runs)
		tk_source_want_runs(src);
	bool count = flags.count;
	FILE *out = tk_cli_open_output(&cli);
	if (!out) {
		tk_source_free(src);
		return TK_EXIT_FAIL;
	}
	static char obuf[1 << 16];
	if (out == stdout)
		setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	uint64_t nkind[TK_EV_KIND_MAX + 1] = {0}, nev = 0, last_line = 0;
	tk_event ev;
	int rc;
	while ((rc = tk_cli_next(&cli, src, &ev)) > 0) {
		nev++;
		last_line = ev.line;
		if (count) {
			if ((unsigned)ev.kind <= TK_EV_KIND_MAX)
				nkind[ev.kind]++;
		} else {
			print_event(out, &ev, cli.tinfo.context_name);
		}
	}
	if (count) {
		fprintf(out, "events: %llu (last at line %llu)\n", (unsigned long long)nev,
			(unsigned long long)last_line);
		for (int k = TK_EV_INSN; k <= TK_EV_KIND_MAX; k++)
			if (nkind[k])
				fprintf(out, "  %-6s %llu\n", tk_event_kind_name((tk_event_kind)k),
					(unsigned long long)nkind[k]);
		fprintf(out, "warnings: %llu\n", (unsigned long long)tk_source_warnings(src));
	}
	tk_cli_close_trace(&cli, src);
	int status = rc < 0 ? TK_EXIT_FAIL : TK_EXIT_OK;
	if (tk_cli_close_output(&cli, out))
		status = TK_EXIT_FAIL;
	tk_cli_fini(&cli);
	return status;
}
