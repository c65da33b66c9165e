/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit backtrace: the frame-pointer chain at positions of a trace.
 *
 *   Backtrace at #1390 (line 3064, time 1391):
 *   #0  0x000082a8 in bt_mark at /src/prog.c:24
 *   #1  0x00008418 in level7 at /src/prog.c:43
 *   #2  0x0000823a in _mainCRTStartup
 *   stopped: REASON            (only if something stopped the walk)
 *
 * Addresses have 8 hex digits on AArch32, 16 on AArch64.  Frame 0 is the
 * position's instruction; the others are return addresses, named (with
 * --image) by the function and source line of address - 1, as gdb does,
 * with the names and file names addr2line -f gives.
 * Blocks for several positions are separated by an empty line.
 *
 * Every frame is compared with the call tree's stack at the position; a
 * difference is a warning on stderr ("TRACE: warning: frame #K: frame chain
 * has 0x..., call stack has 0x..."), the output stays the walk.  --calls
 * prints that stack instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_index.h"
#include "cli/position.h"
#include "cli/srclines.h"
#include "tracekit/backtrace.h"

enum { OPT_FRAME = 256, OPT_CALLS, OPT_BASENAMES, OPT_POSITIONS };

struct options {
	tk_bt_layout layout;
	bool calls, basenames;
	const char *positions;
};

static const struct option extra[] = {
	{"frame", required_argument, NULL, OPT_FRAME},
	{"calls", no_argument, NULL, OPT_CALLS},
	{"basenames", no_argument, NULL, OPT_BASENAMES},
	{"positions", required_argument, NULL, OPT_POSITIONS},
	{NULL, 0, NULL, 0},
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct options *o = ctx;
	switch (val) {
	case OPT_FRAME:
		if (tk_bt_layout_parse(arg, &o->layout) != 0) {
			tk_cli_error(cli, "--frame: '%s' is not apcs, aapcs, a64, thumb or auto", arg);
			return -1;
		}
		return 0;
	case OPT_CALLS: o->calls = true; return 0;
	case OPT_BASENAMES: o->basenames = true; return 0;
	case OPT_POSITIONS: o->positions = arg; return 0;
	}
	return -1;
}

static const tk_cli_spec base_spec = {
	.usage = "[OPTIONS] TRACE [POSITION...]",
	.summary =
		"Walk the frame-pointer chain at each POSITION (default: end), from the\n"
		"registers and memory the index knows there, and print the frames; with\n"
		"--image, each with its function and FILE:LINE.  POSITION is a trace line\n"
		"number, #N (position N), end, t:TIME (the first instruction at or after\n"
		"TIME) or pc:ADDR[@N] (the N-th visit of ADDR: 0x hex, decimal or a\n"
		"symbol).  Frames that differ from the call tree's stack are warned about.\n"
		"Exit status: 0; 1 for a bad position (named) or an unreadable input.",
	.options_help =
		"  --frame=LAYOUT           frame records are apcs (-mapcs-frame), aapcs\n"
		"                           (GCC's Arm default), a64 or thumb; default: per\n"
		"                           function, from the image's CFI and code\n"
		"  --calls                  print the call tree's stack instead\n"
		"  -s, --basenames          file names without their directory\n"
		"  --positions=FILE         read more positions from FILE, one a line\n"
		"                           (- for standard input)\n",
	.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE,
	.min_args = 0,
	.max_args = -1,
	.extra = extra,
	.handle = handle,
};

/* The output: one buffered stream, frames formatted by hand (a recursion
 * can have thousands of frames per position). */
struct printer {
	FILE *fp;
	tk_cli *cli;
	tk_srclines *lines;
	char **names;		/* " in NAME at FILE:LINE" by address, cached */
	uint64_t *keys;
	size_t cap, used;
};

static const char *suffix_of(struct printer *pr, uint64_t addr)
{
	if (!pr->lines)
		return "";
	if (pr->used * 2 >= pr->cap) {
		size_t ncap = pr->cap ? 2 * pr->cap : 1024;
		char **nn = calloc(ncap, sizeof *nn);
		uint64_t *nk = calloc(ncap, sizeof *nk);
		if (!nn || !nk) {
			free(nn);
			free(nk);
			return "";
		}
		for (size_t i = 0; i < pr->cap; i++) {
			if (!pr->names[i])
				continue;
			size_t h = (size_t)(pr->keys[i] * 0x9e3779b97f4a7c15ull >> 24) & (ncap - 1);
			while (nn[h])
				h = (h + 1) & (ncap - 1);
			nn[h] = pr->names[i];
			nk[h] = pr->keys[i];
		}
		free(pr->names);
		free(pr->keys);
		pr->names = nn;
		pr->keys = nk;
		pr->cap = ncap;
	}
	size_t h = (size_t)(addr * 0x9e3779b97f4a7c15ull >> 24) & (pr->cap - 1);
	while (pr->names[h]) {
		if (pr->keys[h] == addr)
			return pr->names[h];
		h = (h + 1) & (pr->cap - 1);
	}
	/* Named as addr2line -f names it: DWARF, else the ELF symbols. */
	const char *name = NULL, *line = NULL;
	char *demangled = NULL;
	tk_dwarf_result r;
	tk_dwarf *d = tk_srclines_dwarf(pr->lines);
	if (tk_dwarf_addr2line(d, addr - pr->cli->load_offset, NULL, &r) == 0 && r.found) {
		name = r.locs[0].function;
		if (name && pr->cli->demangle && (demangled = tk_dwarf_demangle(name)))
			name = demangled;
		line = tk_srclines_get(pr->lines, addr);
	}
	size_t n = 16 + (name ? strlen(name) : 0) + (line ? strlen(line) : 0);
	char *t = malloc(n);
	if (!t) {
		free(demangled);
		return "";
	}
	snprintf(t, n, "%s%s%s%s", name ? " in " : "", name ? name : "", line ? " at " : "",
		 line ? line : "");
	free(demangled);
	pr->names[h] = t;
	pr->keys[h] = addr;
	pr->used++;
	return t;
}

static void put_frame(struct printer *pr, unsigned k, uint64_t addr, unsigned bytes)
{
	unsigned index = k;
	static const char hex[] = "0123456789abcdef";
	char buf[64], num[12];
	int n = 0, d = 0;
	buf[n++] = '#';
	do
		num[d++] = (char)('0' + k % 10);
	while (k /= 10);
	for (int i = d; i-- > 0;)
		buf[n++] = num[i];
	buf[n++] = ' ';
	if (d == 1)
		buf[n++] = ' ';		/* "#0  0x...", "#10 0x..." */
	buf[n++] = '0';
	buf[n++] = 'x';
	for (int i = (int)bytes * 2; i-- > 0;)
		buf[n++] = hex[(addr >> (4 * i)) & 15];
	fwrite_unlocked(buf, 1, (size_t)n, pr->fp);
	/* Names and lines of return addresses are those of the call. */
	fputs_unlocked(suffix_of(pr, index ? addr - 1 : addr), pr->fp);
	fputc_unlocked('\n', pr->fp);
}

static void print_bt(struct printer *pr, const tk_bt *bt, bool calls)
{
	fprintf(pr->fp, "%s at #%" PRIu64 " (line %" PRIu64 ", time %" PRIu64 "):\n",
		calls ? "Call stack" : "Backtrace", bt->pos, bt->line, bt->time);
	for (unsigned k = 0; k < bt->count; k++)
		put_frame(pr, k, bt->frames[k].addr, bt->addr_bytes);
	char why[160];
	if (tk_bt_stop_text(bt, why, sizeof why))
		fprintf(pr->fp, "stopped: %s%s\n", why,
			bt->stop == TK_BT_NO_LAYOUT && !pr->lines ? " (give --image)" : "");
}

/* The walk against the call tree's stack. */
static void check(const tk_cli *cli, const tk_bt *walk, const tk_bt *stack)
{
	int w = walk->addr_bytes * 2;
	unsigned n = walk->count < stack->count ? walk->count : stack->count;
	bool differ = walk->stop == TK_BT_END && walk->count != stack->count;
	for (unsigned k = 0; k < n && !differ; k++)
		differ = walk->frames[k].addr != stack->frames[k].addr;
	if (!differ)
		return;
	fflush(stdout);	/* keep the warnings next to their block */
	for (unsigned k = 0; k < n; k++)
		if (walk->frames[k].addr != stack->frames[k].addr)
			fprintf(stderr, "%s: warning: frame #%u: frame chain has 0x%0*" PRIx64
				", call stack has 0x%0*" PRIx64 "\n", cli->trace, k, w,
				walk->frames[k].addr, w, stack->frames[k].addr);
	if (walk->stop != TK_BT_END || walk->count == stack->count)
		return;
	if (walk->count < stack->count)
		fprintf(stderr, "%s: warning: frame #%u: frame chain has no frame, call stack has 0x%0*"
			PRIx64 "\n", cli->trace, n, w, stack->frames[n].addr);
	else
		fprintf(stderr, "%s: warning: frame #%u: frame chain has 0x%0*" PRIx64
			", call stack has no frame\n", cli->trace, n, w, walk->frames[n].addr);
}

/* Positions from the arguments and --positions. */
static int collect(tk_cli *cli, const tk_index *idx, const struct options *o, uint64_t **out,
		   size_t *n)
{
	size_t cap = 16, count = 0;
	uint64_t *pos = malloc(cap * sizeof *pos);
	char msg[300];
	FILE *in = NULL;
	if (!pos)
		goto nomem;
	if (o->positions) {
		in = strcmp(o->positions, "-") ? fopen(o->positions, "r") : stdin;
		if (!in) {
			tk_cli_error(cli, "%s: cannot open: %m", o->positions);
			free(pos);
			return -1;
		}
	}
	for (int i = 0;; i++) {
		char line[512];
		const char *text;
		if (i < cli->nargs) {
			text = cli->args[i];
		} else if (in && fgets(line, sizeof line, in)) {
			line[strcspn(line, "\r\n")] = 0;
			if (!line[0])
				continue;
			text = line;
		} else {
			break;
		}
		if (count == cap) {
			uint64_t *np = realloc(pos, 2 * cap * sizeof *np);
			if (!np)
				goto nomem;
			pos = np;
			cap *= 2;
		}
		if (tk_cli_position(cli, idx, text, &pos[count], msg, sizeof msg)) {
			tk_cli_error(cli, "bad position %s", msg);
			if (in && in != stdin)
				fclose(in);
			free(pos);
			return -1;
		}
		count++;
	}
	if (in && in != stdin)
		fclose(in);
	if (!count) {
		if (tk_cli_position(cli, idx, "end", &pos[0], msg, sizeof msg)) {
			tk_cli_error(cli, "%s: %s", cli->trace, msg);
			free(pos);
			return -1;
		}
		count = 1;
	}
	*out = pos;
	*n = count;
	return 0;
nomem:
	tk_cli_error(cli, "out of memory");
	if (in && in != stdin)
		fclose(in);
	free(pos);
	return -1;
}

int tk_cmd_backtrace(int argc, char **argv)
{
	struct options o = {0};
	tk_cli_spec spec = base_spec;
	spec.ctx = &o;
	/* -s (addr2line's spelling) is --basenames. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-s"))
			argv[i] = (char *)"--basenames";
		else if (!strcmp(argv[i], "--"))
			break;
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	tk_index *idx = NULL;
	tk_bt_ctx *ctx = NULL;
	tk_bt *walk = NULL, *stack = NULL;
	uint64_t *pos = NULL;
	size_t npos = 0;
	struct printer pr = {.fp = stdout, .cli = &cli};
	int status = TK_EXIT_FAIL;
	if (tk_cli_load_image(&cli) || tk_cli_open_index(&cli, true, &idx))
		goto out;
	if (cli.only_index) {
		status = TK_EXIT_OK;
		goto out;
	}
	if (cli.image && tk_srclines_open(&cli, &pr.lines))
		goto out;
	if (pr.lines)
		tk_srclines_basenames(pr.lines, o.basenames);
	if (collect(&cli, idx, &o, &pos, &npos))
		goto out;
	tk_bt_opts bo = {sizeof bo, o.layout, pr.lines ? tk_srclines_dwarf(pr.lines) : NULL,
			 cli.load_offset};
	walk = malloc(sizeof *walk);
	stack = malloc(sizeof *stack);
	if (!walk || !stack || tk_bt_new(idx, &bo, &ctx)) {
		tk_cli_error(&cli, "out of memory");
		goto out;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	for (size_t i = 0; i < npos; i++) {
		int rc = tk_bt_calls(ctx, pos[i], stack);
		if (rc == 0 && !o.calls)
			rc = tk_bt_walk(ctx, pos[i], walk);
		if (rc) {
			fflush(stdout);
			tk_cli_error(&cli, "#%" PRIu64 ": %s", pos[i],
				     rc == TK_ERR_UNSUPPORTED ? "not Arm code: no frame records to walk"
							      : tk_strerror(rc));
			goto out;
		}
		if (i)
			fputc('\n', stdout);
		if (o.calls) {
			print_bt(&pr, stack, true);
		} else {
			print_bt(&pr, walk, false);
			check(&cli, walk, stack);
		}
	}
	status = fflush(stdout) == 0 && !ferror(stdout) ? TK_EXIT_OK : TK_EXIT_FAIL;
	if (status)
		tk_cli_error(&cli, "cannot write the output: %m");
out:
	for (size_t i = 0; i < pr.cap; i++)
		free(pr.names[i]);
	free(pr.names);
	free(pr.keys);
	tk_bt_free(ctx);
	free(walk);
	free(stack);
	free(pos);
	tk_srclines_free(pr.lines);
	tk_index_free(idx);
	tk_cli_fini(&cli);
	return status;
}
