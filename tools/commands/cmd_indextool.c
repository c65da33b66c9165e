/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit indextool (tarmac-indextool): look inside the index, with the
 * options of Arm's tarmac-indextool.
 *
 * Arm's tool dumps its index's AVL trees.  tracekit's index is built
 * otherwise (docs/INDEX-FORMAT.md), so each option prints what tracekit
 * has that answers the same question, in the same layout where there is
 * one, or says plainly that it has no such thing:
 *
 *   --header             endianness and architecture, as Arm's tool, then
 *                        tracekit's summary (sizes, counts, format version)
 *   --seq                one node per instruction position: line and byte
 *                        ranges, time, pc, call depth
 *   --seq-with-mem       the same, each with the registers and memory known
 *                        there
 *   --full-mem-at-line=L the registers and memory known at line L
 *   --bypc               every pc, with the lines it was executed at
 *   --regmap             tracekit's registers and their sizes (no index
 *                        needed; --iflags is accepted and ignored: the
 *                        sizes do not depend on it)
 *   --seqtree, --mem, --memtree, --memsub, --memsubtree, --bypctree
 *                        not supported: tracekit's index has no such trees
 *   --omit-index-offsets accepted: no index-file offsets are printed anyway
 *
 * The index options (--index, --force-index, --no-index, --only-index,
 * --memory-index) work as for every command.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_index.h"

enum {
	OPT_HEADER = 256, OPT_SEQ, OPT_SEQ_MEM, OPT_SEQTREE, OPT_MEM, OPT_MEMTREE, OPT_MEMSUB,
	OPT_MEMSUBTREE, OPT_BYPC, OPT_BYPCTREE, OPT_REGMAP, OPT_IFLAGS, OPT_OMIT, OPT_FULLMEM,
};

static const struct option extra[] = {
	{"header", no_argument, NULL, OPT_HEADER},
	{"seq", no_argument, NULL, OPT_SEQ},
	{"seq-with-mem", no_argument, NULL, OPT_SEQ_MEM},
	{"seqtree", no_argument, NULL, OPT_SEQTREE},
	{"mem", required_argument, NULL, OPT_MEM},
	{"memtree", required_argument, NULL, OPT_MEMTREE},
	{"memsub", required_argument, NULL, OPT_MEMSUB},
	{"memsubtree", required_argument, NULL, OPT_MEMSUBTREE},
	{"bypc", no_argument, NULL, OPT_BYPC},
	{"bypctree", no_argument, NULL, OPT_BYPCTREE},
	{"regmap", no_argument, NULL, OPT_REGMAP},
	{"iflags", required_argument, NULL, OPT_IFLAGS},
	{"omit-index-offsets", no_argument, NULL, OPT_OMIT},
	{"full-mem-at-line", required_argument, NULL, OPT_FULLMEM},
	{NULL, 0, NULL, 0},
};

struct opts {
	int mode;		/* OPT_HEADER...; 0: none */
	const char *mode_name;
	uint64_t line;		/* --full-mem-at-line */
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct opts *o = ctx;
	if (val == OPT_OMIT || val == OPT_IFLAGS)
		return 0;
	for (const struct option *e = extra; e->name; e++)
		if (e->val == val)
			o->mode_name = e->name;
	o->mode = val;
	if (val == OPT_FULLMEM) {
		char *end;
		o->line = strtoull(arg, &end, 0);
		if (!*arg || *end || !o->line) {
			tk_cli_error(cli, "--full-mem-at-line: '%s' is not a line number", arg);
			return -1;
		}
	}
	return 0;
}

/* Registers known at pos: "NAME: xx xx .." (low byte first, ".." unknown,
 * as Arm's tool prints them), then memory known, as a hex dump. */
static int dump_state(const tk_index *idx, uint64_t pos, const char *prefix)
{
	tk_index_regset *rs;
	if (tk_index_regset_alloc(&rs) || tk_index_regset_at(idx, pos, rs))
		return -1;
	for (tk_reg r = 0; r < TK_REG_COUNT; r++) {
		uint8_t v[TK_REG_MAX_BYTES], k[TK_REG_MAX_BYTES];
		tk_reg_view view = {r, 0, (uint16_t)tk_reg_size(r)};
		tk_index_regset_get(rs, view, v, k);
		bool any = false;
		for (unsigned i = 0; i < view.len; i++)
			any |= k[i];
		if (!any)
			continue;
		uint64_t q;
		printf("%s%s", prefix, tk_reg_name(r));
		if (tk_index_reg_prev_write(idx, pos, view, &q) == 0) {
			tk_index_pos p;
			if (tk_index_get_pos(idx, q, &p) == 0)
				printf(", last modified at line %" PRIu64, p.line);
		}
		printf(": ");
		for (unsigned i = 0; i < view.len; i++) {
			if (k[i])
				printf(i ? " %02x" : "%02x", v[i]);
			else
				printf(i ? " .." : "..");
		}
		printf("\n");
	}
	tk_index_regset_free(rs);
	return 0;
}

struct memdump {
	const tk_index *idx;
	uint64_t pos;
	const char *prefix;
};

/* One range of memory written somewhere in the trace, as it is at pos:
 * 16 bytes a line, address, hex and ASCII ("??" unknown). */
static int dump_range(void *ctx, uint64_t addr, uint64_t len)
{
	struct memdump *m = ctx;
	uint64_t end = addr + len;
	for (uint64_t line = addr & ~15ull; line < end; line += 16) {
		uint8_t v[16], k[16];
		memset(k, 0, sizeof k);
		tk_index_mem(m->idx, m->pos, line, 16, v, k);
		printf("%s%016" PRIx64 " ", m->prefix, line);
		for (int i = 0; i < 16; i++) {
			uint64_t a = line + (uint64_t)i;
			if (a < addr || a >= end)
				printf("   ");
			else if (k[i])
				printf(" %02x", v[i]);
			else
				printf(" ??");
		}
		printf("  ");
		for (int i = 0; i < 16; i++) {
			uint64_t a = line + (uint64_t)i;
			putchar(a < addr || a >= end ? ' ' : !k[i] ? '?' :
				v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '.');
		}
		printf("\n");
	}
	return 0;
}

static void dump_memory(const tk_index *idx, uint64_t pos, const char *prefix)
{
	uint64_t n = tk_index_count(idx);
	struct memdump m = {idx, pos, prefix};
	printf("%sMemory written anywhere in the trace, as it is here:\n", prefix);
	if (n > 1)
		tk_index_mem_changes(idx, 0, n - 1, 0, UINT64_MAX, true, dump_range, &m);
}

static int call_depth(const tk_index *idx, uint64_t pos, uint32_t *depth)
{
	uint32_t c;
	tk_call node;
	if (tk_index_call_at(idx, pos, &c) || tk_index_get_call(idx, c, &node))
		return -1;
	*depth = node.depth;
	return 0;
}

static int dump_seq(const tk_index *idx, bool with_mem)
{
	uint64_t n = tk_index_count(idx);
	for (uint64_t i = 0; i < n; i++) {
		tk_index_pos p;
		uint32_t depth = 0;
		if (tk_index_get_pos(idx, i, &p))
			return -1;
		call_depth(idx, i, &depth);
		printf("Node (position %" PRIu64 "):\n", i);
		printf("    Line range: start %" PRIu64 ", extent %" PRIu64 "\n", p.first_line,
		       p.end_line - p.first_line);
		printf("    Byte range: start 0x%" PRIx64 ", extent 0x%" PRIx64 "\n", p.first_offset,
		       p.end_offset - p.first_offset);
		printf("    Modification time: %" PRIu64 "\n", p.time);
		printf("    PC: 0x%" PRIx64 "\n", p.pc);
		printf("    Call depth: %u\n", depth);
		if (with_mem) {
			dump_state(idx, i, "      ");
			dump_memory(idx, i, "      ");
		}
	}
	return 0;
}

struct pcline {
	uint64_t pc, line;
};

static int cmp_pcline(const void *a, const void *b)
{
	const struct pcline *x = a, *y = b;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int dump_bypc(const tk_index *idx)
{
	uint64_t n = tk_index_count(idx);
	struct pcline *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		tk_index_pos p;
		if (tk_index_get_pos(idx, i, &p)) {
			free(v);
			return -1;
		}
		v[i] = (struct pcline){p.pc, p.line};
	}
	qsort(v, n, sizeof *v, cmp_pcline);
	for (uint64_t i = 0; i < n; i++)
		printf("Node:\n    PC: 0x%" PRIx64 "\n    Line: %" PRIu64 "\n", v[i].pc, v[i].line);
	free(v);
	return 0;
}

static void dump_header(const tk_cli *cli, const tk_index *idx)
{
	tk_index_info in = {.size = sizeof in};
	tk_index_get_info(idx, &in);
	bool a64 = false;
	for (uint64_t i = 0, n = tk_index_count(idx); i < n && !a64; i++) {
		tk_index_pos p;
		a64 = tk_index_get_pos(idx, i, &p) == 0 && p.isa == TK_ISA_A64;
	}
	printf("Endianness: %s\n", in.big_endian ? "big" : "little");
	printf("Architecture: %s\n", a64 ? "AArch64" : "AArch32");
	printf("Index format: tracekit version %u\n", in.version);
	printf("Index file: %s (%" PRIu64 " bytes)\n",
	       cli->memory_index ? "in memory" : tk_index_path(idx), in.file_size);
	printf("Trace file: %s (%" PRIu64 " bytes)\n", cli->trace, in.trace_size);
	printf("Lines: %" PRIu64 "\n", in.lines);
	printf("Instructions (nodes of --seq): %" PRIu64 "\n", in.instructions);
	printf("Calls: %" PRIu64 "\n", in.calls);
	printf("Register updates: %" PRIu64 "\n", in.reg_updates);
	printf("Memory accesses: %" PRIu64 "\n", in.mem_accesses);
}

int tk_cmd_indextool(int argc, char **argv)
{
	struct opts o = {0};
	const tk_cli_spec spec = {
		.usage = "[OPTIONS] QUERY [TRACE]",
		.summary =
		"Look inside the index of TRACE, with the options of Arm's tarmac-indextool.\n"
		"tracekit's index is not Arm's (docs/INDEX-FORMAT.md): each query prints\n"
		"what tracekit has that answers it, or says that it has no such thing.\n"
		"For everyday queries see `tracekit dump`.",
		.options_help =
		"  --header                 byte order, architecture and the index's summary\n"
		"  --seq                    one node per instruction: lines, bytes, time, pc,\n"
		"                           call depth\n"
		"  --seq-with-mem           the same, with the registers and memory known there\n"
		"  --full-mem-at-line=LINE  the registers and memory known at LINE\n"
		"  --bypc                   every pc with the lines it was executed at\n"
		"  --regmap                 tracekit's registers and their sizes (no TRACE)\n"
		"  --iflags=FLAGS           accepted with --regmap (the sizes do not depend on it)\n"
		"  --omit-index-offsets     accepted (no index offsets are printed)\n"
		"  --seqtree, --mem=OFFSET, --memtree=OFFSET, --memsub=OFFSET,\n"
		"  --memsubtree=OFFSET, --bypctree\n"
		"                           not supported: Arm's index trees, which tracekit's\n"
		"                           index does not have\n",
		.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_STDIN,
		.min_args = 0,
		.max_args = 0,
		.extra = extra,
		.handle = handle,
		.ctx = &o,
	};
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	switch (o.mode) {
	case OPT_SEQTREE: case OPT_MEM: case OPT_MEMTREE: case OPT_MEMSUB: case OPT_MEMSUBTREE:
	case OPT_BYPCTREE:
		tk_cli_error(&cli, "--%s is not supported: it dumps a tree of Arm's index, which "
			     "tracekit's index does not have (try --seq, --bypc, --full-mem-at-line, "
			     "or tracekit dump)", o.mode_name);
		return TK_EXIT_USAGE;
	case OPT_REGMAP:
		for (tk_reg r = 0; r < TK_REG_COUNT; r++)
			printf("%s size=0x%x\n", tk_reg_name(r), tk_reg_size(r));
		return TK_EXIT_OK;
	case 0:
		if (!cli.only_index) {
			tk_cli_error(&cli, "expected an option describing a query (--header, --seq, "
				     "--bypc, --regmap...; see --help)");
			return TK_EXIT_USAGE;
		}
		break;
	}
	if (!strcmp(cli.trace, "-")) {
		tk_cli_error(&cli, "expected a trace file name");
		return TK_EXIT_USAGE;
	}
	tk_index *idx;
	if (tk_cli_open_index(&cli, true, &idx))
		return TK_EXIT_FAIL;
	int rc = 0;
	switch (o.mode) {
	case 0:
		break;	/* --only-index: built */
	case OPT_HEADER:
		dump_header(&cli, idx);
		break;
	case OPT_SEQ:
	case OPT_SEQ_MEM:
		rc = dump_seq(idx, o.mode == OPT_SEQ_MEM);
		break;
	case OPT_BYPC:
		rc = dump_bypc(idx);
		break;
	case OPT_FULLMEM: {
		uint64_t pos;
		if (tk_index_find_line(idx, o.line, &pos)) {
			tk_cli_error(&cli, "unable to find a node at line %" PRIu64, o.line);
			tk_index_free(idx);
			return TK_EXIT_FAIL;
		}
		rc = dump_state(idx, pos, "");
		dump_memory(idx, pos, "");
		break;
	}
	}
	tk_index_free(idx);
	if (rc) {
		tk_cli_error(&cli, "%s: the index could not be read", cli.trace);
		return TK_EXIT_FAIL;
	}
	return fflush(stdout) == 0 ? TK_EXIT_OK : TK_EXIT_FAIL;
}
