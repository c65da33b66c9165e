/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browse (tarmac-browser): the interactive terminal trace browser.
 *
 * Opens (or builds) the trace's index, maps the trace file, and runs the
 * ncurses key loop of browse.h.  The hidden --bench-keys option replays a
 * key script against an off-screen terminal and prints how long each
 * command took to redraw (bench/browse-bench.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#ifndef TK_HAVE_CURSES
int tk_cmd_browse(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: this tracekit was built without ncurses; install "
			"libncurses-dev and rebuild\n", argv[0]);
	return TK_EXIT_FAIL;
}
#else
#include <curses.h>
#include <time.h>

#include "browse.h"
#include "dbginfo.h"

enum { OPT_BENCH_KEYS = 256, OPT_COLOUR, OPT_NO_COLOUR, OPT_SOURCE_DIR };

static const struct option browse_opts[] = {
	{"bench-keys", required_argument, NULL, OPT_BENCH_KEYS},
	{"colour", no_argument, NULL, OPT_COLOUR},
	{"color", no_argument, NULL, OPT_COLOUR},
	{"no-colour", no_argument, NULL, OPT_NO_COLOUR},
	{"no-color", no_argument, NULL, OPT_NO_COLOUR},
	{"source-dir", required_argument, NULL, OPT_SOURCE_DIR},
	{NULL, 0, NULL, 0},
};

struct browse_opts {
	const char *bench_keys;
	const char *source_dir;	/* --source-dir: where source files are looked for */
	int colour;		/* 1 --colour, -1 --no-colour, 0 automatic */
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	(void)cli;
	struct browse_opts *o = ctx;
	switch (val) {
	case OPT_BENCH_KEYS: o->bench_keys = arg; return 0;
	case OPT_COLOUR: o->colour = 1; return 0;
	case OPT_NO_COLOUR: o->colour = -1; return 0;
	case OPT_SOURCE_DIR: o->source_dir = arg; return 0;
	}
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int setup(tkb *b)
{
	const char *why;
	int r = tkv_file_open(&b->file, b->cli->trace, tkb_model_index(b->model), &why);
	if (r) {
		tk_cli_error(b->cli, "%s: %s", b->cli->trace, why ? why : tk_strerror(r));
		return -1;
	}
	tk_tarmac_opts to;
	tk_tarmac_opts_init(&to);
	to.implicit_thumb = tk_cli_has_source_opt(b->cli, "implicit-thumb");
	to.big_endian = tk_cli_big_endian(b->cli);
	if (tk_tarmac_parser_new(&to, &b->parser)) {
		tk_cli_error(b->cli, "out of memory");
		return -1;
	}
	b->ninsns = tkb_model_ninsns(b->model);
	b->nfolded = tkb_model_ncalls(b->model);
	b->folded = calloc((b->nfolded + 7) / 8 + 1, 1);
	if (!b->folded) {
		tk_cli_error(b->cli, "out of memory");
		return -1;
	}
	b->trace_name = base_name(b->cli->trace);
	b->syntax = true;
	b->symbolic = b->cli->symtab != NULL;
	b->a64 = b->ninsns && tkb_model_isa(b->model, 0) == TK_ISA_A64;
	b->pos = b->last_pos = tkb_normalise(b, 0);
	b->recentre = -1;
	b->npanes = 0;
	tk_index_info info = {.size = sizeof info};
	bool unknown = tk_index_get_info(tkb_model_index(b->model), &info) != 0;
	b->has_regs = unknown || (info.caps & TK_CAP_REGS);
	b->has_mem = unknown || (info.caps & TK_CAP_MEM_VALUES);
	tkb_pane_add(b, TKB_PANE_TRACE);
	if (b->has_regs)
		tkb_pane_add(b, TKB_PANE_CORE);
	b->focus = 0;
	return 0;
}

static void start_curses(tkb *b)
{
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	tkb_screen_init(b);
	tkb_layout(b);
}

/* Bench key names: Down Up PgDn PgUp Home End Tab Enter Esc F1-F12 C-x,
 * or literal characters; "+" joins keys into one timed command. */
static int key_code(const char *s, size_t n)
{
	static const struct { const char *name; int key; } names[] = {
		{"Down", KEY_DOWN}, {"Up", KEY_UP}, {"Left", KEY_LEFT}, {"Right", KEY_RIGHT},
		{"PgDn", KEY_NPAGE}, {"PgUp", KEY_PPAGE}, {"Home", KEY_HOME}, {"End", KEY_END},
		{"Tab", '\t'}, {"Enter", '\r'}, {"Esc", 27}, {"Plus", '+'}, {"Space", ' '},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && !strncmp(names[i].name, s, n))
			return names[i].key;
	if (n >= 2 && s[0] == 'F' && atoi(s + 1) > 0)
		return KEY_F(atoi(s + 1));
	if (n == 3 && s[0] == 'C' && s[1] == '-')
		return TKB_CTRL(s[2]);
	return -1;
}

static int bench(tkb *b, const char *script, double t_start, double t_index)
{
	FILE *null = fopen("/dev/null", "w");
	if (!null || !newterm(getenv("TERM") ? NULL : "xterm", null, stdin)) {
		tk_cli_error(b->cli, "cannot open an off-screen terminal for the benchmark");
		return TK_EXIT_FAIL;
	}
	start_curses(b);
	nodelay(stdscr, TRUE);
	b->bench = true;
	tkb_redraw(b);
	double t_first = now_ms();
	char report[32768];
	int rl = snprintf(report, sizeof report,
			  "screen %dx%d, %llu instructions\nindex open: %.1f ms\nfirst screen: %.1f ms (from start)\n",
			  COLS, LINES, (unsigned long long)b->ninsns, t_index - t_start, t_first - t_start);
	double worst = 0;
	for (const char *p = script; *p;) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int keys[64], nk = 0;
		/* One command: keys joined by '+'. */
		for (size_t i = 0; i < n && nk < 64;) {
			size_t j = i;
			while (j < n && !(p[j] == '+' && j > i))
				j++;
			int k = key_code(p + i, j - i);
			if (k >= 0)
				keys[nk++] = k;
			else
				for (size_t c = i; c < j && nk < 64; c++)
					keys[nk++] = (unsigned char)p[c];
			i = j + 1;
		}
		for (int k = nk - 1; k >= 1; k--)
			ungetch(keys[k]);
		double t0 = now_ms();
		if (nk)
			tkb_key(b, keys[0]);
		/* The rest of the command's keys (those a prompt did not take). */
		for (int c; (c = getch()) != ERR;)
			tkb_key(b, c);
		tkb_redraw(b);
		double dt = now_ms() - t0;
		if (dt > worst)
			worst = dt;
		if (rl < (int)sizeof report - 200)
			rl += snprintf(report + rl, sizeof report - (size_t)rl, "%-24.*s %8.3f ms  position %llu%s%.60s\n",
				       (int)n, p, dt, (unsigned long long)b->pos,
				       b->message[0] ? "  -- " : "", b->message);
		p = e ? e + 1 : p + n;
	}
	endwin();
	fclose(null);
	printf("%sslowest key: %.3f ms\n", report, worst);
	return TK_EXIT_OK;
}

int tk_cmd_browse(int argc, char **argv)
{
	double t_start = now_ms();
	struct browse_opts bo = {0};
	tk_cli_spec spec = {
		.usage = "[OPTIONS] TRACE",
		.summary = "Browse a trace interactively in the terminal: the trace with the\n"
			   "current position, registers and memory at that position, folding\n"
			   "of function calls, jumps to where values were written.  Press F1\n"
			   "inside for the keys of each pane.",
		.options_help =
			"  --colour, --color        use colours (default: when the terminal has them\n"
			"                           and NO_COLOR is not set)\n"
			"  --no-colour, --no-color  no colours: bold, underline and reverse video\n"
			"  --source-dir=DIR         look for source files under DIR too (the s pane)\n",
		.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE,
		.min_args = 0,
		.max_args = 0,
		.extra = browse_opts,
		.handle = handle,
		.ctx = &bo,
	};
	tk_cli cli;
	tkb b;
	memset(&b, 0, sizeof b);
	b.cli = &cli;
	TK_CLI_PARSE(&cli, argc, argv, &spec);
	const char *bench_keys = bo.bench_keys;
	b.colour_opt = bo.colour;
	b.source_dir = bo.source_dir;

	if (!strcmp(cli.trace, "-")) {
		tk_cli_error(&cli, "the browser needs a trace file, not standard input");
		return TK_EXIT_USAGE;
	}
	if (!cli.only_index && !bench_keys && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))) {
		tk_cli_error(&cli, "standard %s is not a terminal: the browser is interactive "
			     "and needs one (run it in a terminal; --only-index builds the index)",
			     !isatty(STDOUT_FILENO) ? "output" : "input");
		return TK_EXIT_FAIL;
	}
	if (tk_cli_load_image(&cli))
		return TK_EXIT_FAIL;
	if (tkb_model_open(&cli, &b.model))
		return TK_EXIT_FAIL;
	double t_index = now_ms();
	if (cli.only_index) {
		tkb_model_free(b.model);
		return TK_EXIT_OK;
	}
	int rc = TK_EXIT_FAIL;
	if (setup(&b))
		goto out;
	if (bench_keys) {
		rc = bench(&b, bench_keys, t_start, t_index);
		goto out;
	}
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		const char *term = getenv("TERM");
		if (term && *term)
			tk_cli_error(&cli, "cannot use the terminal: TERM=%s is not a known terminal type", term);
		else
			tk_cli_error(&cli, "cannot use the terminal: TERM is not set");
		goto out;
	}
	/* ncurses accepts terminals that cannot move the cursor (TERM=dumb,
	 * e.g. in an editor's shell buffer) and then prints every screen as
	 * one long line: refuse them plainly instead. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(scr);
		const char *term = getenv("TERM");
		tk_cli_error(&cli, "cannot use the terminal: TERM=%s cannot move the cursor; the browser "
			     "needs a screen terminal (xterm, screen, tmux, vt100...)", term ? term : "");
		goto out;
	}
	start_curses(&b);
	/* In blocking mode getch() fails only when interrupted or when the
	 * terminal is gone: give up after many failures in a row. */
	for (int errors = 0; !b.quit && errors < 100;) {
		tkb_redraw(&b);
		int key = getch();
		errors = key == ERR ? errors + 1 : 0;
		tkb_key(&b, key);
	}
	endwin();
	rc = TK_EXIT_OK;
out:
	tkb_dbg_free(&b);
	if (b.parser)
		tk_tarmac_parser_free(b.parser);
	free(b.folded);
	tkv_file_close(&b.file);
	tkb_model_free(b.model);
	tk_cli_fini(&cli);
	return rc;
}
#endif
