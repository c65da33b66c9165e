/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit callinfo (tarmac-callinfo): the calls to given functions.
 *
 * For each ADDRESS (or SYMBOL, with --image), in the order given, Arm's
 * tarmac-callinfo format:
 *   Symbol 'quicksort' at 0x8038 (144 bytes) called from :
 *    - time: 123 (line:234, pos:34567)
 *    - time: 456 (line:789, pos:98765)
 * the header line only for a symbol (an address gets none), then one
 * " - time:" line per call, in trace order, giving the timestamp, line
 * number and byte offset of the line of the function's first instruction
 * (the call's entry).  The activation that covers the whole trace counts
 * as a call when it starts at that address (so _start is called once).
 * Only matching calls are kept while the trace streams.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/srclines.h"
#include "json/json_api.h"

static bool json;
static const struct option json_opt[] = {{"json", no_argument, NULL, 256}, {NULL, 0, NULL, 0}};

static int json_flag(tk_cli *cli, int val, const char *arg, void *ctx)
{
	json = true;	/* --json: the only extra option */
	return 0;
}

static const tk_cli_spec spec = {
	.usage = "[OPTIONS] TRACE ADDRESS|SYMBOL...",
	.summary =
		"Report the calls to each given function: one ' - time: T (line:L, pos:P)'\n"
		"line per call, giving where the function's first instruction is in the\n"
		"trace, after a line \"Symbol 'NAME' at 0xADDR (SIZE bytes) called from :\"\n"
		"for a symbol.  The whole trace counts as one call to its first\n"
		"instruction's address.  Addresses are hex (0x...) or decimal; symbol\n"
		"names need --image.",
	.options_help = "  --json                   print the calls as JSON (docs/API.md)\n",
	.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE | TK_CLI_CONTEXT | TK_CLI_SOURCE_LINES,
	.min_args = 1,
	.max_args = -1,
	.extra = json_opt,
	.handle = json_flag,
};

struct hit {
	uint32_t target;	/* index in the targets */
	tk_tpos entry;
	uint64_t site;		/* the call instruction's address */
};

struct callinfo {
	uint64_t *addr;		/* one per argument */
	const tk_symbol **sym;	/* the symbol a name argument named, or NULL */
	int ntargets;
	struct hit *hits;
	size_t nhits, cap;
	bool finished;
};

static int add_hits(struct callinfo *ci, const tk_call *call)
{
	for (int i = 0; i < ci->ntargets; i++) {
		if (ci->addr[i] != call->entry.pc)
			continue;
		if (ci->nhits == ci->cap) {
			size_t cap = ci->cap ? 2 * ci->cap : 64;
			struct hit *h = realloc(ci->hits, cap * sizeof *h);
			if (!h)
				return TK_ERR_NOMEM;
			ci->hits = h;
			ci->cap = cap;
		}
		ci->hits[ci->nhits++] = (struct hit){(uint32_t)i, call->entry, call->call.pc};
	}
	return 0;
}

static int confirm(void *ctx, const tk_call *call, uint32_t children, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return add_hits(ctx, call);
}

static int join(void *ctx, uint32_t a, uint32_t b, uint32_t *out)
{
	*out = TK_CALL_NONE;
	return 0;
}

static int finish(void *ctx, const tk_call *root, uint32_t children)
{
	struct callinfo *ci = ctx;
	ci->finished = true;
	/* The whole trace is an activation of its first instruction. */
	return add_hits(ci, root);
}

/* Calls are confirmed when they return: put them back in call order. */
static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->entry.pos < y->entry.pos ? -1 : x->entry.pos > y->entry.pos;
}

/* Without an image, a function-level trace (trace-linker dumps, ...)
 * names its functions itself: the address of the first call of `name`
 * (read without diagnostics: the real pass reports them).  0 or -1. */
static int name_from_trace(tk_cli *cli, const char *name, uint64_t *addr)
{
	if (!cli->trace)
		return -1;
	tk_source_spec spec = cli->spec;
	spec.diag = NULL;
	tk_source *src;
	if (tk_source_open(cli->trace, &spec, &src) < 0)
		return -1;
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(src, &si);
	int found = -1;
	tk_event ev;
	size_t n = strlen(name);
	while ((si.caps & TK_CAP_FUNCS) && tk_source_next(src, &ev) > 0)
		if (ev.kind == TK_EV_CALL && ev.u.func.name && ev.u.func.name_len == n &&
		    !memcmp(ev.u.func.name, name, n)) {
			*addr = ev.u.func.addr;
			found = 0;
			break;
		}
	tk_source_free(src);
	return found;
}

/* An address argument: hex (0x...) or decimal, or a symbol name (*sym
 * set).  The Thumb bit of an address is cleared. */
static int resolve(tk_cli *cli, const char *arg, uint64_t *addr, const tk_symbol **sym)
{
	*sym = NULL;
	char *end;
	errno = 0;
	bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') && isxdigit((unsigned char)arg[2]);
	unsigned long long v = strtoull(hex ? arg + 2 : arg, &end, hex ? 16 : 10);
	if (isdigit((unsigned char)*arg) && !errno && *end == 0) {
		*addr = v & ~(uint64_t)1;
		return 0;
	}
	if (!cli->symtab) {
		if (name_from_trace(cli, arg, addr) == 0)
			return 0;
		tk_cli_error(cli, "'%s' is not an address, nor a function the trace names "
			     "(symbol names need --image)", arg);
		return -1;
	}
	const tk_symbol *s = tk_symtab_find(cli->symtab, arg);
	if (!s) {
		tk_cli_error(cli, "no symbol '%s' in %s", arg, cli->image);
		return -1;
	}
	*addr = s->addr;
	*sym = s;
	return 0;
}

int tk_cmd_callinfo(int argc, char **argv)
{
	tk_cli cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	struct callinfo ci = {.ntargets = cli.nargs};
	tk_calls_sink sink = {&ci, confirm, join, finish};
	int status = TK_EXIT_FAIL;
	FILE *fp = NULL;
	tk_srclines *lines = NULL;	/* --source-lines: " from FILE:LINE" */
	if (tk_cli_load_image(&cli) || (cli.source_lines && tk_srclines_open(&cli, &lines)))
		goto out;
	ci.addr = calloc((size_t)cli.nargs, sizeof *ci.addr);
	ci.sym = calloc((size_t)cli.nargs, sizeof *ci.sym);
	if (!ci.addr || !ci.sym) {
		tk_cli_error(&cli, "out of memory");
		goto out;
	}
	for (int i = 0; i < cli.nargs; i++)
		if (resolve(&cli, cli.args[i], &ci.addr[i], &ci.sym[i])) {
			status = TK_EXIT_USAGE;
			goto out;
		}
	tk_status st = tk_cli_run_calls(&cli, &sink, NULL);
	if (st != TK_ST_OK) {
		status = tk_cli_exit(st);
		goto out;
	}
	if (!ci.finished) {
		tk_cli_error(&cli, "%s: no instructions found in the trace", cli.trace);
		goto out;
	}
	if (ci.nhits)	/* qsort(NULL, 0, ...) is undefined */
		qsort(ci.hits, ci.nhits, sizeof *ci.hits, cmp_hit);
	if (!(fp = tk_cli_open_output(&cli)))
		goto out;
	size_t h = 0;
	if (json) {
		tkj_stream js;
		const tkj_api *jw = tkj_load(&cli);
		const tk_tpos **hits = malloc((ci.nhits + 1) * sizeof *hits);
		int rc = hits && jw ? jw->callinfo_begin(&js, fp, &cli) : -1;
		for (int i = 0; rc == 0 && i < ci.ntargets; i++) {
			size_t n = 0;
			while (h < ci.nhits && ci.hits[h].target == (uint32_t)i)
				hits[n++] = &ci.hits[h++].entry;
			rc = jw->callinfo_function(&js, &cli, ci.addr[i], hits, n);
		}
		free(hits);
		if (rc || jw->stream_end(&js))
			tk_cli_discard_output(&cli, fp);
		else if (tk_cli_close_output(&cli, fp) == 0)
			status = TK_EXIT_OK;
		goto out;
	}
	for (int i = 0; i < ci.ntargets; i++) {
		size_t n = 0;
		while (h + n < ci.nhits && ci.hits[h + n].target == (uint32_t)i)
			n++;
		if (ci.sym[i])
			fprintf(fp, "Symbol '%s' at 0x%" PRIx64 " (%" PRIu64 " bytes) called from :\n",
				cli.args[i], ci.addr[i], ci.sym[i]->size);
		for (; n; n--, h++) {
			const tk_tpos *e = &ci.hits[h].entry;
			fprintf(fp, " - time: %" PRIu64 " (line:%" PRIu64 ", pos:%" PRIu64 ")",
				e->time, e->line, e->offset);
			tk_srclines_put(fp, lines, " from ", ci.hits[h].site);
			fputc('\n', fp);
		}
	}
	status = tk_cli_close_output(&cli, fp) ? TK_EXIT_FAIL : TK_EXIT_OK;
out:
	tk_srclines_free(lines);
	free(ci.hits);
	free(ci.addr);
	free(ci.sym);
	tk_cli_fini(&cli);
	return status;
}
