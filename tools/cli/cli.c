/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the common command-line layer shared by every front end. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_index.h"
#include "tracekit/tarmac.h"

enum {
	OPT_IMAGE = 1000, OPT_LOAD_OFFSET, OPT_LI, OPT_BI, OPT_IMPLICIT_THUMB,
	OPT_PROGRESS, OPT_INDEX, OPT_FORCE_INDEX, OPT_NO_INDEX, OPT_ONLY_INDEX,
	OPT_DEBUG, OPT_HELP, OPT_DEMANGLE,
};

static const struct option common_opts[] = {
	{"image", required_argument, NULL, OPT_IMAGE},
	{"load-offset", required_argument, NULL, OPT_LOAD_OFFSET},
	{"demangle", no_argument, NULL, OPT_DEMANGLE},
	{"li", no_argument, NULL, OPT_LI},
	{"bi", no_argument, NULL, OPT_BI},
	{"implicit-thumb", no_argument, NULL, OPT_IMPLICIT_THUMB},
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"show-progress-meter", no_argument, NULL, OPT_PROGRESS},
	{"index", required_argument, NULL, OPT_INDEX},
	{"force-index", no_argument, NULL, OPT_FORCE_INDEX},
	{"no-index", no_argument, NULL, OPT_NO_INDEX},
	{"only-index", no_argument, NULL, OPT_ONLY_INDEX},
	{"debug", required_argument, NULL, OPT_DEBUG},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, OPT_HELP},
};
#define NCOMMON (sizeof(common_opts) / sizeof(common_opts[0]))

void tk_cli_error(const tk_cli *cli, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void print_help(const tk_cli *cli, const tk_cli_spec *spec)
{
	printf("usage: %s %s\n\n%s\n\n", cli->prog, spec->usage, spec->summary);
	printf("Options:\n");
	if (spec->options_help)
		fputs(spec->options_help, stdout);
	if (spec->flags & TK_CLI_OUTPUT)
		printf("  -o, --output=FILE        write the output to FILE instead of standard output\n");
	if (spec->flags & TK_CLI_IMAGE)
		printf("  --image=ELF              ELF image of the traced program, for symbols\n"
		       "  --load-offset=N          add N to the image's symbol addresses\n"
		       "  --demangle               show C++ symbol names demangled\n");
	if (spec->flags & TK_CLI_TRACE)
		printf("  --li, --bi               the traced CPU is little-endian (default) / big-endian\n"
		       "  --implicit-thumb         instruction lines without a state letter are Thumb\n");
	if (spec->flags & TK_CLI_INDEX)
		printf("  --index=PATH             index file (default: TRACE.index)\n"
		       "  --force-index            rebuild the index even if it looks up to date\n"
		       "  --no-index               never build the index; use one only if it exists\n"
		       "  --only-index             build the index, then stop\n");
	printf("  -v, --verbose            say more about what is being decided and why\n"
	       "  -q, --quiet              no progress meter, fewer messages\n"
	       "  --show-progress-meter    show the progress meter even when not on a terminal\n"
	       "  --debug=DOMAIN[,...]     explain internal decisions (call_heuristics)\n"
	       "  --help                   show this help\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	int neg = (*s == '-');
	unsigned long long v = strtoull(neg ? s + 1 : s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = neg ? (uint64_t)0 - v : v;
	return 0;
}

void tk_cli_parse(tk_cli *cli, int argc, char **argv, const tk_cli_spec *spec)
{
	memset(cli, 0, sizeof *cli);
	cli->prog = argv[0];
	bool progress_forced = false;

	size_t nextra = 0;
	while (spec->extra && spec->extra[nextra].name)
		nextra++;
	struct option *opts = calloc(NCOMMON + nextra + 1, sizeof *opts);
	if (!opts) {
		tk_cli_error(cli, "out of memory");
		exit(TK_EXIT_FAIL);
	}
	size_t n = 0;
	for (size_t i = 0; i < NCOMMON; i++) {
		int v = common_opts[i].val;
		if (!(spec->flags & TK_CLI_OUTPUT) && v == 'o')
			continue;
		if (!(spec->flags & TK_CLI_IMAGE) &&
		    (v == OPT_IMAGE || v == OPT_LOAD_OFFSET || v == OPT_DEMANGLE))
			continue;
		if (!(spec->flags & TK_CLI_INDEX) && v >= OPT_INDEX && v <= OPT_ONLY_INDEX)
			continue;
		opts[n++] = common_opts[i];
	}
	for (size_t i = 0; i < nextra; i++)
		opts[n++] = spec->extra[i];

	const char *shortopts = (spec->flags & TK_CLI_OUTPUT) ? "+:vqo:h" : "+:vqh";
	if (!(spec->flags & TK_CLI_IN_ORDER))
		shortopts++;	/* GNU order: options may come after TRACE */
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (c) {
		case OPT_IMAGE: cli->image = optarg; break;
		case OPT_LOAD_OFFSET:
			if (parse_u64(optarg, &cli->load_offset)) {
				tk_cli_error(cli, "--load-offset: '%s' is not a number", optarg);
				exit(TK_EXIT_USAGE);
			}
			break;
		case OPT_DEMANGLE: cli->demangle = true; break;
		case OPT_LI: cli->endian = 'l'; break;
		case OPT_BI: cli->endian = 'b'; break;
		case OPT_IMPLICIT_THUMB: cli->implicit_thumb = true; break;
		case 'v': cli->verbose++; break;
		case 'q': cli->quiet = true; break;
		case OPT_PROGRESS: progress_forced = true; break;
		case OPT_INDEX: cli->index = optarg; break;
		case OPT_FORCE_INDEX: cli->force_index = true; break;
		case OPT_NO_INDEX: cli->no_index = true; break;
		case OPT_ONLY_INDEX: cli->only_index = true; break;
		case OPT_DEBUG: cli->debug = optarg; break;
		case 'o': cli->output = optarg; break;
		case 'h':
		case OPT_HELP:
			print_help(cli, spec);
			free(opts);
			exit(TK_EXIT_OK);
		case '?':
			if (optopt)
				tk_cli_error(cli, "unknown option '-%c' (try --help)", optopt);
			else
				tk_cli_error(cli, "unknown option '%s' (try --help)", argv[optind - 1]);
			free(opts);
			exit(TK_EXIT_USAGE);
		case ':':
			tk_cli_error(cli, "option '%s' needs an argument", argv[optind - 1]);
			free(opts);
			exit(TK_EXIT_USAGE);
		default:
			if (!spec->handle || spec->handle(cli, c, optarg, spec->ctx)) {
				free(opts);
				exit(TK_EXIT_USAGE);
			}
		}
	}
	free(opts);

	if (cli->force_index + cli->no_index > 1) {
		tk_cli_error(cli, "--force-index and --no-index contradict each other");
		exit(TK_EXIT_USAGE);
	}
	if (spec->flags & TK_CLI_TRACE) {
		if (optind < argc) {
			cli->trace = argv[optind++];
		} else if (spec->flags & TK_CLI_STDIN) {
			cli->trace = "-";
		} else {
			tk_cli_error(cli, "no trace file given (usage: %s %s)", cli->prog, spec->usage);
			exit(TK_EXIT_USAGE);
		}
	}
	cli->args = argv + optind;
	cli->nargs = argc - optind;
	if (cli->nargs < spec->min_args) {
		tk_cli_error(cli, "missing arguments (usage: %s %s)", cli->prog, spec->usage);
		exit(TK_EXIT_USAGE);
	}
	if (spec->max_args >= 0 && cli->nargs > spec->max_args) {
		tk_cli_error(cli, "unexpected argument '%s' (usage: %s %s)",
			     cli->args[spec->max_args], cli->prog, spec->usage);
		exit(TK_EXIT_USAGE);
	}
	cli->progress = !cli->quiet && (progress_forced || isatty(STDERR_FILENO));
	/* An explicit --show-progress-meter wins over -q. */
	if (progress_forced)
		cli->progress = true;
}

bool tk_cli_debug(const tk_cli *cli, const char *domain)
{
	if (!cli->debug)
		return false;
	size_t n = strlen(domain);
	for (const char *p = cli->debug; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == n && !strncmp(p, domain, n)) || (len == 3 && !strncmp(p, "all", 3)))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

int tk_cli_load_image(tk_cli *cli)
{
	if (!cli->image || cli->symtab)
		return 0;
	int rc = tk_symtab_load(cli->image, cli->load_offset, &cli->symtab);
	if (rc < 0) {
		if (rc == TK_ERR_OPEN)
			tk_cli_error(cli, "%s: cannot open image: %s", cli->image, strerror(errno));
		else
			tk_cli_error(cli, "%s: %s", cli->image, tk_strerror(rc));
		return -1;
	}
	if (cli->demangle) {
		rc = tk_symtab_demangle(cli->symtab);
		if (rc < 0)
			fprintf(stderr, "%s: warning: --demangle: %s\n", cli->prog, tk_strerror(rc));
	}
	bool image_be = tk_symtab_big_endian(cli->symtab);
	if (cli->endian == 'l' && image_be)
		fprintf(stderr, "%s: warning: %s is big-endian but --li was given\n",
			cli->prog, cli->image);
	else if (cli->endian == 'b' && !image_be)
		fprintf(stderr, "%s: warning: %s is little-endian but --bi was given\n",
			cli->prog, cli->image);
	else if (!cli->endian && image_be) {
		/* No option given: the image decides. */
		cli->endian = 'b';
		if (cli->verbose)
			fprintf(stderr, "%s: %s is big-endian: reading the trace as --bi\n",
				cli->prog, cli->image);
	}
	return 0;
}

const char *tk_cli_symbol_name(const tk_cli *cli, uint64_t addr)
{
	const tk_symbol *s = tk_symtab_at(cli->symtab, addr);
	return s ? s->name : NULL;
}

/* ---- diagnostics and progress ------------------------------------------ */

#define MAX_SHOWN_WARNINGS 20

static struct {
	double last;		/* seconds of the last redraw */
	bool drawn;
	unsigned counter;
} progress;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress_clear(void)
{
	if (progress.drawn) {
		fputs("\r\033[K", stderr);
		progress.drawn = false;
	}
}

static void print_diag(void *ctx, const tk_diag *d)
{
	tk_cli *cli = ctx;
	if (d->level != TK_DIAG_ERROR) {
		cli->warnings++;
		if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
			return;
	}
	progress_clear();
	const char *lvl = d->level == TK_DIAG_ERROR ? "error" :
			  d->level == TK_DIAG_WARNING ? "warning" : "note";
	if (d->file && d->line)
		fprintf(stderr, "%s:%llu: %s: %s\n", d->file, (unsigned long long)d->line, lvl, d->msg);
	else if (d->file)
		fprintf(stderr, "%s: %s: %s\n", d->file, lvl, d->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", cli->prog, lvl, d->msg);
}

int tk_cli_open_trace(tk_cli *cli, tk_source **out)
{
	*out = NULL;
	if (strcmp(cli->trace, "-") != 0) {
		struct stat sb;
		if (stat(cli->trace, &sb) != 0) {
			tk_cli_error(cli, "%s: %s", cli->trace, strerror(errno));
			return -1;
		}
		if (S_ISDIR(sb.st_mode)) {
			tk_cli_error(cli, "%s: is a directory, not a trace file", cli->trace);
			return -1;
		}
	}
	tk_tarmac_opts o;
	tk_tarmac_opts_init(&o);
	o.implicit_thumb = cli->implicit_thumb;
	o.big_endian = cli->endian == 'b';
	o.diag = print_diag;
	o.diag_ctx = cli;
	int rc = tk_tarmac_open(cli->trace, &o, out);
	if (rc < 0) {
		if (rc == TK_ERR_OPEN)
			tk_cli_error(cli, "%s: %s", cli->trace, strerror(errno));
		else
			tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(rc));
		return -1;
	}
	progress.last = now_seconds();
	progress.drawn = false;
	progress.counter = 0;
	return 0;
}

static void progress_draw(const tk_cli *cli, const tk_source *src)
{
	uint64_t pos = tk_source_pos(src), size = tk_source_size(src);
	char bar[41];
	if (size) {
		unsigned filled = (unsigned)(pos * 40 / (size ? size : 1));
		if (filled > 40)
			filled = 40;
		memset(bar, '#', filled);
		memset(bar + filled, '.', 40 - filled);
		bar[40] = 0;
		fprintf(stderr, "\rreading %s [%s] %3u%% %.0f/%.0f MB", cli->trace, bar,
			(unsigned)(pos * 100 / size), pos / 1e6, size / 1e6);
	} else {
		fprintf(stderr, "\rreading %s: %.0f MB", cli->trace, pos / 1e6);
	}
	progress.drawn = true;
}

int tk_cli_next(tk_cli *cli, tk_source *src, tk_event *ev)
{
	int rc = tk_source_next(src, ev);
	if (rc < 0) {
		progress_clear();
		tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(rc));
		return rc;
	}
	if (cli->progress && ++progress.counter >= 65536) {
		progress.counter = 0;
		double t = now_seconds();
		if (t - progress.last >= 0.1) {
			progress.last = t;
			progress_draw(cli, src);
		}
	}
	return rc;
}

void tk_cli_progress(tk_cli *cli, uint64_t pos, uint64_t size)
{
	if (!cli->progress || ++progress.counter < 65536)
		return;
	progress.counter = 0;
	double t = now_seconds();
	if (t - progress.last < 0.1)
		return;
	progress.last = t;
	if (size) {
		unsigned pct = (unsigned)(pos * 100 / size);
		fprintf(stderr, "\rreading %s %3u%% %.0f/%.0f MB", cli->trace, pct > 100 ? 100 : pct,
			pos / 1e6, size / 1e6);
	} else {
		fprintf(stderr, "\rreading %s: %.0f MB", cli->trace, pos / 1e6);
	}
	progress.drawn = true;
}

void tk_cli_progress_clear(void)
{
	progress_clear();
}

void tk_cli_close_trace(tk_cli *cli, tk_source *src)
{
	progress_clear();
	if (cli->warnings > MAX_SHOWN_WARNINGS && !cli->verbose)
		fprintf(stderr, "%s: %llu warnings in %s (%llu not shown; -v shows all)\n",
			cli->prog, (unsigned long long)cli->warnings, cli->trace,
			(unsigned long long)(cli->warnings - MAX_SHOWN_WARNINGS));
	tk_source_free(src);
}

/* ---- output files -------------------------------------------------------- */

static char *tmp_output_name;

FILE *tk_cli_open_output(tk_cli *cli)
{
	if (!cli->output || !strcmp(cli->output, "-"))
		return stdout;
	size_t n = strlen(cli->output) + 32;
	tmp_output_name = malloc(n);
	if (!tmp_output_name)
		return NULL;
	snprintf(tmp_output_name, n, "%s.tmp.%ld", cli->output, (long)getpid());
	FILE *fp = fopen(tmp_output_name, "w");
	if (!fp) {
		tk_cli_error(cli, "%s: %s", cli->output, strerror(errno));
		free(tmp_output_name);
		tmp_output_name = NULL;
	}
	return fp;
}

int tk_cli_close_output(tk_cli *cli, FILE *fp)
{
	if (fp == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			tk_cli_error(cli, "error writing standard output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	int bad = ferror(fp);
	if (fclose(fp) != 0)
		bad = 1;
	int rc = 0;
	if (bad) {
		tk_cli_error(cli, "%s: write error: %s", cli->output, strerror(errno));
		unlink(tmp_output_name);
		rc = -1;
	} else if (rename(tmp_output_name, cli->output) != 0) {
		tk_cli_error(cli, "%s: %s", cli->output, strerror(errno));
		unlink(tmp_output_name);
		rc = -1;
	}
	free(tmp_output_name);
	tmp_output_name = NULL;
	return rc;
}

void tk_cli_discard_output(tk_cli *cli, FILE *fp)
{
	if (fp == stdout || !fp)
		return;
	fclose(fp);
	if (tmp_output_name)
		unlink(tmp_output_name);
	free(tmp_output_name);
	tmp_output_name = NULL;
}

/* ---- call tree ------------------------------------------------------------ */

static void print_call_debug(void *ctx, const char *msg)
{
	(void)ctx;
	progress_clear();
	fprintf(stderr, "call_heuristics: %s\n", msg);
}

int tk_cli_build_calltree(tk_cli *cli, tk_calltree **out)
{
	return tk_cli_run_calls(cli, NULL, out);
}

/* The call tree from a valid index, if there is one (see cli_index.h for
 * the policy).  Returns 0 and sets *out, 1 to stream the trace instead,
 * -1 after an error; exits after --only-index. */
static int calls_from_index(tk_cli *cli, tk_calltree **out)
{
	/* The heuristic's explanations come from running it: stream. */
	if (tk_cli_debug(cli, "call_heuristics") && !cli->force_index && !cli->only_index)
		return 1;
	int rc = tk_cli_index_calltree(cli, out);
	if (rc == 2)
		exit(TK_EXIT_OK);	/* --only-index: the index is built */
	return rc;
}

int tk_cli_run_calls(tk_cli *cli, const tk_calls_sink *sink, tk_calltree **out)
{
	*out = NULL;
	int irc = calls_from_index(cli, out);
	if (irc < 0)
		return -1;
	if (irc == 0) {
		if (!sink)
			return 0;
		int rc = tk_calltree_replay(*out, sink);
		tk_calltree_free(*out);
		*out = NULL;
		if (rc < 0) {
			tk_cli_error(cli, "%s", tk_strerror(rc));
			return -1;
		}
		return 0;
	}
	tk_source *src;
	if (tk_cli_open_trace(cli, &src))
		return -1;
	tk_calls_opts co;
	tk_calls_opts_init(&co);
	if (tk_cli_debug(cli, "call_heuristics"))
		co.debug = print_call_debug;
	co.sink = sink;
	tk_calls *calls;
	int rc = tk_calls_new(&co, &calls);
	if (rc < 0) {
		tk_cli_error(cli, "%s", tk_strerror(rc));
		tk_source_free(src);
		return -1;
	}
	tk_event ev;
	int read_rc;		/* tk_cli_next prints its own errors */
	rc = 0;
	while ((read_rc = tk_cli_next(cli, src, &ev)) > 0)
		if ((rc = tk_calls_feed(calls, &ev)) < 0)
			break;
	bool reported = read_rc < 0;
	if (reported)
		rc = read_rc;
	tk_cli_close_trace(cli, src);
	if (rc == 0)
		rc = tk_calls_finish(calls, out);
	tk_calls_free(calls);
	if (rc < 0) {
		if (!reported)
			tk_cli_error(cli, "%s", tk_strerror(rc));
		return -1;
	}
	if (sink)
		return 0;
	if ((*out)->count == 0) {
		tk_cli_error(cli, "%s: no instructions found in the trace", cli->trace);
		tk_calltree_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
