/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit dump: answer index queries on the command line, one per run,
 * in a plain format that tests (and curious users) can compare.
 *
 * A position AT is written as a trace line number (the instruction whose
 * group of lines contains it), "#N" for position N, or "end" for the last.
 * Register values print most significant byte first, memory in address
 * order; an unknown byte prints as "??".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_index.h"
#include "json/json_cmds.h"

static const char usage_text[] =
	"[OPTIONS] TRACE QUERY ARGS...\n\n"
	"Queries (AT = line number, #POSITION or 'end'):\n"
	"  pos AT                       the instruction at AT and its group of lines\n"
	"  text AT                      the trace's lines of that group\n"
	"  regs AT                      every register with a known byte\n"
	"  reg AT NAME...               registers or views by name (w0, s3, d1, sp, cpsr...)\n"
	"  mem AT ADDR LEN              LEN bytes of memory from ADDR\n"
	"  history reg NAME             every position writing the register\n"
	"  history mem ADDR [LEN]       every position writing any byte of the range\n"
	"  prev-write reg AT NAME       the write the value at AT comes from\n"
	"  prev-write mem AT ADDR [LEN] (likewise for memory)\n"
	"  next-write reg AT NAME       the next write after AT\n"
	"  next-write mem AT ADDR [LEN] (likewise for memory)\n"
	"  changes AT1 AT2 [LO HI]      memory written between AT1 and AT2, as ranges\n"
	"  find-time TIME               the first instruction at or after TIME\n"
	"  find-pc AT ADDR [back]       the next (previous) visit of an address\n"
	"  calls                        the call tree, with positions\n"
	"  call-at AT                   the innermost call containing AT";

static tk_cli cli;
static tk_index *idx;
static bool json;	/* --json: each answer as one JSON document */

static int json_flag(tk_cli *c, int val, const char *arg, void *ctx)
{
	json = true;
	return 0;
}

static int emit(json_t *j)
{
	return tkj_print(stdout, j) ? TK_EXIT_FAIL : TK_EXIT_OK;
}

/* A list of positions as JSON, or "none" for an empty answer. */
static json_t *jlist;

static void print_line_of(uint64_t pos);

static int fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", cli.prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return TK_EXIT_USAGE;
}

static bool parse_num(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return false;
	*v = x;
	return true;
}

static bool parse_at(const char *s, uint64_t *pos)
{
	uint64_t v;
	if (!strcmp(s, "end")) {
		if (!tk_index_count(idx))
			return false;
		*pos = tk_index_count(idx) - 1;
		return true;
	}
	if (s[0] == '#')
		return parse_num(s + 1, pos) && *pos < tk_index_count(idx);
	return parse_num(s, &v) && tk_index_find_line(idx, v, pos) == 0;
}

static void print_line_of(uint64_t pos)
{
	tk_index_pos p;
	if (json) {
		if (!jlist)
			jlist = json_array();
		json_array_append_new(jlist, tkj_position(idx, pos));
		return;
	}
	if (tk_index_get_pos(idx, pos, &p) == 0)
		printf("pos %llu line %llu time %llu pc 0x%llx\n", (unsigned long long)pos,
		       (unsigned long long)p.line, (unsigned long long)p.time,
		       (unsigned long long)p.pc);
}

static void print_value(const uint8_t *v, const uint8_t *k, unsigned n)
{
	for (unsigned i = n; i-- > 0;) {
		if (k[i])
			printf("%02x", v[i]);
		else
			printf("??");
	}
}

static int q_pos(uint64_t pos)
{
	tk_index_pos p;
	if (json)
		return emit(tkj_position(idx, pos));
	if (tk_index_get_pos(idx, pos, &p))
		return TK_EXIT_FAIL;
	printf("pos %llu line %llu offset %llu time %llu pc 0x%llx isa %s width %u %s",
	       (unsigned long long)pos, (unsigned long long)p.line, (unsigned long long)p.offset,
	       (unsigned long long)p.time, (unsigned long long)p.pc, tk_isa_name(p.isa), p.width,
	       p.executed ? "executed" : "not-executed");
	if (p.nbytes)
		printf(" encoding %0*llx", p.nbytes * 2 > 8 ? p.nbytes * 2 : 8,
		       (unsigned long long)p.encoding);
	if (p.kind != TK_EV_INSN)
		printf(" %s", p.kind == TK_EV_CALL ? "call" : "return");
	if (p.context)
		printf(" context %u", p.context);
	printf(" lines %llu-%llu bytes %llu-%llu\n", (unsigned long long)p.first_line,
	       (unsigned long long)p.end_line - 1, (unsigned long long)p.first_offset,
	       (unsigned long long)p.end_offset);
	return TK_EXIT_OK;
}

static int q_regs(uint64_t pos)
{
	tk_index_regset *rs;
	if (json)
		return emit(tkj_dump_regs(idx, pos));
	if (tk_index_regset_alloc(&rs) || tk_index_regset_at(idx, pos, rs))
		return TK_EXIT_FAIL;
	for (tk_reg r = 0; r < TK_REG_COUNT; r++) {
		uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES];
		tk_reg_view view = {r, 0, (uint16_t)tk_reg_size(r)};
		tk_index_regset_get(rs, view, v, k);
		bool any = false;
		for (unsigned i = 0; i < view.len; i++)
			any |= k[i];
		if (!any)
			continue;
		printf("%s ", tk_reg_name(r));
		print_value(v, k, view.len);
		printf("\n");
	}
	tk_index_regset_free(rs);
	return TK_EXIT_OK;
}

static int lookup_reg(uint64_t pos, const char *name, tk_reg_view *view)
{
	if (tk_index_reg_lookup(idx, pos, name, view))
		return fail("unknown register '%s'", name);
	return 0;
}

static int q_reg(uint64_t pos, char **names, int n)
{
	json_t *obj = json ? json_object() : NULL;
	for (int i = 0; i < n; i++) {
		tk_reg_view view;
		uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES];
		int rc = lookup_reg(pos, names[i], &view);
		if (rc)
			return rc;
		if (tk_index_reg(idx, pos, view, v, k))
			return TK_EXIT_FAIL;
		if (json) {
			for (unsigned b = 0; b < view.len; b++)
				k[b] = k[b] ? TK_BYTE_SET : TK_BYTE_UNKNOWN;
			json_object_set_new(obj, names[i], tkj_bytes(v, k, view.len, true));
			continue;
		}
		printf("%s ", names[i]);
		print_value(v, k, view.len);
		printf("\n");
	}
	if (json)
		return emit(json_pack("{s:o,s:o}", "position", tkj_position(idx, pos), "registers", obj));
	return TK_EXIT_OK;
}

static int q_mem(uint64_t pos, uint64_t addr, uint64_t len)
{
	if (len > (1u << 24))
		return fail("%s: length too large", "mem");
	if (len && addr + len - 1 < addr)
		return fail("%s: range past the top of the address space", "mem");
	if (json)
		return emit(tkj_dump_mem(idx, pos, addr, len));
	uint8_t *v = malloc(len ? len : 1), *k = malloc(len ? len : 1);
	if (!v || !k || tk_index_mem(idx, pos, addr, len, v, k)) {
		free(v);
		free(k);
		return TK_EXIT_FAIL;
	}
	for (uint64_t i = 0; i < len; i++) {
		if (i % 16 == 0)
			printf("%s%llx:", i ? "\n" : "", (unsigned long long)(addr + i));
		if (k[i])
			printf(" %02x", v[i]);
		else
			printf(" ??");
	}
	printf("\n");
	free(v);
	free(k);
	return TK_EXIT_OK;
}

/* One write query: reg (view) or mem (addr, len). */
typedef struct wq {
	bool mem;
	tk_reg_view view;
	uint64_t addr, len;
} wq;

static int wq_prev(const wq *q, uint64_t pos, uint64_t *out)
{
	return q->mem ? tk_index_mem_prev_write(idx, pos, q->addr, q->len, out)
		      : tk_index_reg_prev_write(idx, pos, q->view, out);
}

static int wq_next(const wq *q, uint64_t pos, uint64_t *out)
{
	return q->mem ? tk_index_mem_next_write(idx, pos, q->addr, q->len, out)
		      : tk_index_reg_next_write(idx, pos, q->view, out);
}

/* "reg NAME" or "mem ADDR [LEN]" at argv[0..]; pos for name lookups. */
static int parse_wq(char **args, int n, uint64_t pos, wq *q)
{
	memset(q, 0, sizeof *q);
	if (n >= 2 && !strcmp(args[0], "reg") && n == 2) {
		return lookup_reg(pos, args[1], &q->view);
	} else if (n >= 2 && !strcmp(args[0], "mem") && n <= 3) {
		q->mem = true;
		q->len = 1;
		if (!parse_num(args[1], &q->addr) || (n == 3 && !parse_num(args[2], &q->len)))
			return fail("bad address or length in '%s' query", "mem");
		/* The library rejects these with TK_ERR_INVAL, which history
		 * would print as "never written" and the write queries as a
		 * silent failure. */
		if (!q->len || q->addr + q->len - 1 < q->addr)
			return fail("%s: empty range, or range past the top of the address space",
				    "mem");
		return 0;
	}
	return fail("expected 'reg NAME' or 'mem ADDR [LEN]'%s", "");
}

static int q_history(char **args, int n)
{
	wq q;
	int rc = parse_wq(args, n, tk_index_count(idx) ? tk_index_count(idx) - 1 : 0, &q);
	if (rc)
		return rc;
	uint64_t pos;
	if (!tk_index_count(idx))
		return TK_EXIT_OK;
	if (wq_prev(&q, 0, &pos) == 0)
		print_line_of(pos);
	else
		pos = 0;
	while (wq_next(&q, pos, &pos) == 0)
		print_line_of(pos);
	return json ? emit(json_pack("{s:o}", "writes", jlist ? jlist : json_array())) : TK_EXIT_OK;
}

static int q_write(bool prev, char **args, int n)
{
	uint64_t pos, out;
	if (n < 3 || !parse_at(args[1], &pos))
		return fail("expected 'reg AT NAME' or 'mem AT ADDR [LEN]'%s", "");
	char *shifted[3] = {args[0], args[2], n > 3 ? args[3] : NULL};
	wq q;
	int rc = parse_wq(shifted, n - 1, pos, &q);
	if (rc)
		return rc;
	rc = prev ? wq_prev(&q, pos, &out) : wq_next(&q, pos, &out);
	if (rc == TK_ERR_NOTFOUND) {
		if (json)
			return emit(json_pack("{s:n}", "position"));
		printf("none\n");
		return TK_EXIT_OK;
	}
	if (rc)
		return TK_EXIT_FAIL;
	if (json)
		return emit(json_pack("{s:o}", "position", tkj_position(idx, out)));
	print_line_of(out);
	return TK_EXIT_OK;
}

static int print_range(void *ctx, uint64_t addr, uint64_t len)
{
	if (json)
		return json_array_append_new(ctx, json_pack("{s:o,s:I}", "addr", tkj_hex(addr), "len",
							    (json_int_t)len));
	printf("%llx-%llx (%llu bytes)\n", (unsigned long long)addr,
	       (unsigned long long)(addr + len - 1), (unsigned long long)len);
	return 0;
}

static int q_changes(char **args, int n)
{
	uint64_t a, b, lo = 0, hi = UINT64_MAX;
	if (n != 2 && n != 4)
		return fail("expected 'changes AT1 AT2 [LO HI]'%s", "");
	if (!parse_at(args[0], &a) || !parse_at(args[1], &b) ||
	    (n == 4 && (!parse_num(args[2], &lo) || !parse_num(args[3], &hi))))
		return fail("bad position or address in '%s'", "changes");
	json_t *ranges = json ? json_array() : NULL;
	if (tk_index_mem_changes(idx, a, b, lo, hi, true, print_range, ranges)) {
		json_decref(ranges);
		return TK_EXIT_FAIL;
	}
	return json ? emit(json_pack("{s:o}", "changes", ranges)) : TK_EXIT_OK;
}

static int q_calls(void)
{
	tk_callwalk *w;
	int rc = tk_index_calls_walk(idx, 0, &w);
	if (rc < 0) {
		tk_cli_error(&cli, "%s", tk_strerror(rc));
		return TK_EXIT_FAIL;
	}
	bool several = tk_callwalk_roots(w) > 1;
	json_t *list = json ? json_array() : NULL;
	tk_call node, *c = &node;
	for (uint32_t i = 0; (rc = tk_callwalk_next(w, c)) > 0; i++) {
		/* the node's positions, as tk_index_get_call_pos gives them */
		bool root = c->parent == TK_CALL_NONE;
		tk_index_call_pos cp = {root ? TK_POS_NONE : c->call.pos, c->entry.pos, c->exit.pos,
					root ? TK_POS_NONE : c->resume.pos};
		if (json) {
			json_t *j = tkj_call(c, i, NULL);
			json_object_set_new(j, "positions", json_pack("{s:I,s:I}", "entry",
					    (json_int_t)cp.entry, "exit", (json_int_t)cp.exit));
			json_array_append_new(list, j);
			continue;
		}
		printf("%*s%u: entry pos %llu line %llu pc 0x%llx - exit pos %llu line %llu",
		       (int)(2 * c->depth), "", i, (unsigned long long)cp.entry,
		       (unsigned long long)c->entry.line, (unsigned long long)c->entry.pc,
		       (unsigned long long)cp.exit, (unsigned long long)c->exit.line);
		if (c->parent != TK_CALL_NONE)
			printf("; call pos %llu, resume pos %llu", (unsigned long long)cp.call,
			       (unsigned long long)cp.resume);
		else if (several)
			printf("; %s %u", cli.tinfo.context_name, c->context);
		if (c->flags & TK_CALL_UNRETURNED)
			printf("; never returned");
		if (c->flags & TK_CALL_UNWOUND)
			printf("; unwound");
		printf("\n");
	}
	tk_callwalk_free(w);
	if (rc < 0) {
		json_decref(list);
		tk_cli_error(&cli, "%s", tk_strerror(rc));
		return TK_EXIT_FAIL;
	}
	return json ? emit(json_pack("{s:o}", "calls", list)) : TK_EXIT_OK;
}

/* A query the trace has no data for: say so (exit 1). */
static int no_data(const char *what)
{
	tk_cli_error(&cli, "%s: the trace has no %s (a %s trace: see 'tracekit formats')",
		     cli.trace, what, cli.tinfo.format);
	return TK_EXIT_FAIL;
}

/* The trace's own lines of a position's group, read at the index's
 * offsets (through the checkpoint table for a compressed trace). */
static int q_text(uint64_t pos)
{
	tk_index_pos p;
	if (tk_index_get_pos(idx, pos, &p))
		return TK_EXIT_FAIL;
	tk_input *in;
	int rc = tk_index_open_text(idx, cli.trace, NULL, &in);
	if (rc < 0) {
		tk_cli_error(&cli, "%s: %s", cli.trace, tk_strerror(rc));
		return TK_EXIT_FAIL;
	}
	char buf[65536];
	uint64_t off = p.first_offset;
	while (off < p.end_offset) {
		uint64_t want = p.end_offset - off;
		size_t got;
		rc = tk_input_pread(in, off, buf, want < sizeof buf ? (size_t)want : sizeof buf, &got);
		fwrite(buf, 1, got, stdout);
		if (rc < 0 || !got)
			break;
		off += got;
	}
	if (rc < 0)
		tk_cli_error(&cli, "%s: %s", cli.trace, tk_input_error(in));
	else if (off < p.end_offset)
		tk_cli_error(&cli, "%s: the trace is shorter than its index says", cli.trace);
	bool bad = rc < 0 || off < p.end_offset;
	tk_input_close(in);
	return bad ? TK_EXIT_FAIL : TK_EXIT_OK;
}

static int run(char **a, int n)
{
	uint64_t pos, v;
	const char *q = a[0];
	bool regq = !strcmp(q, "regs") || !strcmp(q, "reg");
	bool memq = !strcmp(q, "mem") || !strcmp(q, "changes");
	bool histq = !strcmp(q, "history") || !strcmp(q, "prev-write") || !strcmp(q, "next-write");
	if (regq && !(cli.tinfo.caps & TK_CAP_REGS))
		return no_data("register values");
	if (memq && !(cli.tinfo.caps & TK_CAP_MEM))
		return no_data("memory accesses");
	if (histq && !(cli.tinfo.caps & (TK_CAP_REGS | TK_CAP_MEM)))
		return no_data("register or memory values");
	if (!strcmp(q, "pos") && n == 2 && parse_at(a[1], &pos))
		return q_pos(pos);
	if (!strcmp(q, "regs") && n == 2 && parse_at(a[1], &pos))
		return q_regs(pos);
	if (!strcmp(q, "text") && n == 2 && parse_at(a[1], &pos))
		return q_text(pos);
	if (!strcmp(q, "reg") && n >= 3 && parse_at(a[1], &pos))
		return q_reg(pos, a + 2, n - 2);
	if (!strcmp(q, "mem") && n == 4 && parse_at(a[1], &pos)) {
		uint64_t addr, len;
		if (!parse_num(a[2], &addr) || !parse_num(a[3], &len))
			return fail("bad address or length%s", "");
		return q_mem(pos, addr, len);
	}
	if (!strcmp(q, "history"))
		return q_history(a + 1, n - 1);
	if (!strcmp(q, "prev-write") || !strcmp(q, "next-write"))
		return q_write(q[0] == 'p', a + 1, n - 1);
	if (!strcmp(q, "changes"))
		return q_changes(a + 1, n - 1);
	if (!strcmp(q, "find-time") && n == 2 && parse_num(a[1], &v)) {
		int found = tk_index_find_time(idx, v, &pos) == 0;
		if (json)
			return emit(json_pack("{s:o}", "position", found ? tkj_position(idx, pos) : json_null()));
		if (found)
			print_line_of(pos);
		else
			printf("none\n");
		return TK_EXIT_OK;
	}
	if (!strcmp(q, "find-pc") && (n == 3 || n == 4) && parse_at(a[1], &pos) &&
	    parse_num(a[2], &v)) {
		bool back = n == 4 && !strcmp(a[3], "back");
		uint64_t out;
		int found = tk_index_find_pc(idx, pos, v, !back, &out) == 0;
		if (json)
			return emit(json_pack("{s:o}", "position", found ? tkj_position(idx, out) : json_null()));
		if (found)
			print_line_of(out);
		else
			printf("none\n");
		return TK_EXIT_OK;
	}
	if (!strcmp(q, "calls") && n == 1)
		return q_calls();
	if (!strcmp(q, "call-at") && n == 2 && parse_at(a[1], &pos)) {
		uint32_t c;
		if (tk_index_call_at(idx, pos, &c))
			return TK_EXIT_FAIL;
		tk_index_call_pos cp;
		tk_index_get_call_pos(idx, c, &cp);
		if (json)
			return emit(json_pack("{s:i,s:I,s:I}", "call", (int)c, "entry", (json_int_t)cp.entry,
					      "exit", (json_int_t)cp.exit));
		printf("call %u entry pos %llu exit pos %llu\n", c, (unsigned long long)cp.entry,
		       (unsigned long long)cp.exit);
		return TK_EXIT_OK;
	}
	return fail("bad query or position: '%s' (try --help)", q);
}

static const struct option json_opt[] = {{"json", no_argument, NULL, 256}, {NULL, 0, NULL, 0}};

int tk_cmd_dump(int argc, char **argv)
{
	static const tk_cli_spec spec = {
		.usage = usage_text,
		.summary = "Print what the index knows: positions, register and memory state,\n"
			   "write history and calls.  Builds the index first if needed.",
		.options_help = "  --json                   print each answer as JSON (docs/API.md)\n",
		.flags = TK_CLI_TRACE | TK_CLI_INDEX,
		.min_args = 1,
		.max_args = -1,
		.extra = json_opt,
		.handle = json_flag,
	};
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	if (tk_cli_open_index(&cli, true, &idx))
		return TK_EXIT_FAIL;
	int rc = TK_EXIT_OK;
	if (!cli.only_index && !tk_index_count(idx) && strcmp(cli.args[0], "calls")) {
		tk_cli_error(&cli, "%s: no instructions in the trace", cli.trace);
		rc = TK_EXIT_FAIL;
	} else if (!cli.only_index) {
		rc = run(cli.args, cli.nargs);
	}
	tk_index_free(idx);
	return rc;
}
