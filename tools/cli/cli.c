/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the common command-line layer shared by every front end:
 * options, the ELF image, opening and reading the trace, output files. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

enum {
	OPT_IMAGE = 1000, OPT_LOAD_OFFSET, OPT_PROGRESS, OPT_INDEX, OPT_FORCE_INDEX,
	OPT_NO_INDEX, OPT_ONLY_INDEX, OPT_DEBUG, OPT_HELP, OPT_DEMANGLE, OPT_FORMAT,
	OPT_CONTEXT, OPT_VERSION, OPT_NO_OFFSETS, OPT_MEMORY_INDEX, OPT_SOURCE_LINES,
	OPT_THREADS,
	OPT_SOURCE = 2000,	/* + the index of a format option */
};

static const struct option common_opts[] = {
	{"image", required_argument, NULL, OPT_IMAGE},
	{"load-offset", required_argument, NULL, OPT_LOAD_OFFSET},
	{"demangle", no_argument, NULL, OPT_DEMANGLE},
	{"source-lines", no_argument, NULL, OPT_SOURCE_LINES},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"context", required_argument, NULL, OPT_CONTEXT},
	{"threads", required_argument, NULL, OPT_THREADS},
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
	{"version", no_argument, NULL, OPT_VERSION},
	{"no-offsets", no_argument, NULL, OPT_NO_OFFSETS},
	{"memory-index", no_argument, NULL, OPT_MEMORY_INDEX},
};
#define NCOMMON (sizeof(common_opts) / sizeof(common_opts[0]))

/* The formats' options, each name once (formats may share one). */
#define MAX_FORMAT_OPTS 64
static const tk_source_option *format_opts[MAX_FORMAT_OPTS];
static size_t nformat_opts;

static void collect_format_options(void)
{
	const tk_source_format *const *fmts;
	size_t n = tk_source_formats(&fmts);
	nformat_opts = 0;
	for (size_t i = 0; i < n; i++)
		for (const tk_source_option *o = fmts[i]->options; o && o->name; o++) {
			size_t k = 0;
			while (k < nformat_opts && strcmp(format_opts[k]->name, o->name))
				k++;
			if (k == nformat_opts && nformat_opts < MAX_FORMAT_OPTS)
				format_opts[nformat_opts++] = o;
		}
}

static void vmessage(const tk_cli *cli, const char *kind, const char *fmt, va_list ap)
{
	tk_cli_progress_clear();
	fprintf(stderr, "%s: %s", cli->prog, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void tk_cli_error(const tk_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(cli, "", fmt, ap);
	va_end(ap);
}

void tk_cli_warning(const tk_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(cli, "warning: ", fmt, ap);
	va_end(ap);
}

static void print_format_options(void)
{
	const tk_source_format *const *fmts;
	size_t n = tk_source_formats(&fmts);
	for (size_t i = 0; i < n; i++) {
		if (!fmts[i]->options || !fmts[i]->options[0].name)
			continue;
		printf("Options of %s traces:\n", fmts[i]->name);
		for (const tk_source_option *o = fmts[i]->options; o->name; o++) {
			char left[64];
			snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
			printf("  %-24s %s\n", left, o->help);
		}
	}
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
		       "  --demangle               show C++ symbol names demangled\n"
		       "  --no-offsets             name a function entered past its symbol's\n"
		       "                           start NAME, not NAME + 0xOFFSET\n");
	if (spec->flags & TK_CLI_SOURCE_LINES)
		printf("  --source-lines           add FILE:LINE from the image's DWARF\n");
	if (spec->flags & TK_CLI_TRACE)
		printf("  --format=NAME            read the trace as NAME (default: detected from\n"
		       "                           its content; see 'tracekit formats')\n");
	if (spec->flags & TK_CLI_CONTEXT)
		printf("  --context=N              only context N (a CPU or thread; default: all)\n");
	if (spec->flags & TK_CLI_TRACE)
		printf("  --threads=N              threads to read the trace with (default: every\n"
		       "                           core; the results do not depend on it)\n");
	if (spec->flags & TK_CLI_INDEX)
		printf("  --index=PATH             index file (default: TRACE.index)\n"
		       "  --force-index            rebuild the index even if it looks up to date\n"
		       "  --no-index               never build the index; use one only if it is\n"
		       "                           valid for the trace as it is now\n"
		       "  --only-index             build the index, then stop\n"
		       "  --memory-index           keep the index in memory for this run: no index\n"
		       "                           file is read or written\n");
	printf("  -v, --verbose            say more about what is being decided and why\n"
	       "  -q, --quiet              no progress meter, fewer messages\n"
	       "  --show-progress-meter    show the progress meter even when not on a terminal\n"
	       "  --debug=TYPE[,...]       explain internal decisions (--debug=list lists the\n"
	       "                           types)\n"
	       "  --help                   show this help\n"
	       "  --version                show the version\n");
	if (spec->flags & TK_CLI_TRACE)
		print_format_options();
	printf("\nExit status: 0 success, 1 error in the input, 2 usage error.\n");
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

/* Build the getopt table; NULL if out of memory. */
static struct option *option_table(const tk_cli_spec *spec)
{
	size_t nextra = 0;
	while (spec->extra && spec->extra[nextra].name)
		nextra++;
	collect_format_options();
	struct option *opts = calloc(NCOMMON + nextra + nformat_opts + 1, sizeof *opts);
	if (!opts)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < NCOMMON; i++) {
		int v = common_opts[i].val;
		if (!(spec->flags & TK_CLI_OUTPUT) && v == 'o')
			continue;
		if (!(spec->flags & TK_CLI_IMAGE) &&
		    (v == OPT_IMAGE || v == OPT_LOAD_OFFSET || v == OPT_DEMANGLE ||
		     v == OPT_NO_OFFSETS))
			continue;
		if (!(spec->flags & TK_CLI_INDEX) &&
		    ((v >= OPT_INDEX && v <= OPT_ONLY_INDEX) || v == OPT_MEMORY_INDEX))
			continue;
		if (!(spec->flags & TK_CLI_TRACE) && (v == OPT_FORMAT || v == OPT_THREADS))
			continue;
		if (!(spec->flags & TK_CLI_CONTEXT) && v == OPT_CONTEXT)
			continue;
		if (!(spec->flags & TK_CLI_SOURCE_LINES) && v == OPT_SOURCE_LINES)
			continue;
		opts[n++] = common_opts[i];
	}
	for (size_t i = 0; i < nextra; i++)
		opts[n++] = spec->extra[i];
	if (spec->flags & TK_CLI_TRACE)
		for (size_t i = 0; i < nformat_opts; i++)
			opts[n++] = (struct option){format_opts[i]->name,
						    format_opts[i]->arg ? required_argument
									: no_argument,
						    NULL, OPT_SOURCE + (int)i};
	return opts;
}

static tk_status add_source_opt(tk_cli *cli, const char *name, const char *value)
{
	if (cli->nsopts == TK_CLI_MAX_SOURCE_OPTS) {
		tk_cli_error(cli, "too many format options");
		return TK_ST_USAGE;
	}
	cli->sopts[cli->nsopts++] = (tk_source_opt){name, value ? value : ""};
	return TK_ST_OK;
}

/* One option; TK_ST_OK to go on. */
static tk_status handle_option(tk_cli *cli, int c, const tk_cli_spec *spec, char **argv,
			       bool *progress_forced)
{
	switch (c) {
	case OPT_IMAGE:
		if (cli->nimages == TK_CLI_MAX_IMAGES) {
			tk_cli_error(cli, "at most %d --image options", TK_CLI_MAX_IMAGES);
			return TK_ST_USAGE;
		}
		cli->images[cli->nimages++] = optarg;
		if (!cli->image)
			cli->image = optarg;
		return TK_ST_OK;
	case OPT_LOAD_OFFSET:
		if (parse_u64(optarg, &cli->load_offset)) {
			tk_cli_error(cli, "--load-offset: '%s' is not a number", optarg);
			return TK_ST_USAGE;
		}
		return TK_ST_OK;
	case OPT_CONTEXT: {
		uint64_t v;
		if (parse_u64(optarg, &v) || v > UINT32_MAX) {
			tk_cli_error(cli, "--context: '%s' is not a context number", optarg);
			return TK_ST_USAGE;
		}
		cli->context = (int64_t)v;
		return TK_ST_OK;
	}
	case OPT_THREADS: {
		uint64_t v;
		if (parse_u64(optarg, &v) || v < 1 || v > 1024) {
			tk_cli_error(cli, "--threads: '%s' is not a number of threads (1 to 1024)",
				     optarg);
			return TK_ST_USAGE;
		}
		cli->threads = (unsigned)v;
		return TK_ST_OK;
	}
	case OPT_FORMAT:
		if (!tk_source_format_find(optarg)) {
			tk_cli_error(cli, "--format: unknown format '%s' (see 'tracekit formats')",
				     optarg);
			return TK_ST_USAGE;
		}
		cli->format = optarg;
		return TK_ST_OK;
	case OPT_DEMANGLE: cli->demangle = true; return TK_ST_OK;
	case OPT_SOURCE_LINES: cli->source_lines = true; return TK_ST_OK;
	case 'v': cli->verbose++; return TK_ST_OK;
	case 'q': cli->quiet = true; return TK_ST_OK;
	case OPT_PROGRESS: *progress_forced = true; return TK_ST_OK;
	case OPT_INDEX: cli->index = optarg; return TK_ST_OK;
	case OPT_FORCE_INDEX: cli->force_index = true; return TK_ST_OK;
	case OPT_NO_INDEX: cli->no_index = true; return TK_ST_OK;
	case OPT_ONLY_INDEX: cli->only_index = true; return TK_ST_OK;
	case OPT_DEBUG: {
		tk_status st = tk_cli_check_debug(cli, optarg);
		cli->debug = optarg;
		return st;
	}
	case OPT_VERSION:
		tk_cli_print_version(cli->prog);
		return TK_ST_DONE;
	case OPT_NO_OFFSETS: cli->no_offsets = true; return TK_ST_OK;
	case OPT_MEMORY_INDEX: cli->memory_index = true; return TK_ST_OK;
	case 'o': cli->output = optarg; return TK_ST_OK;
	case 'h':
	case OPT_HELP:
		print_help(cli, spec);
		return TK_ST_DONE;
	case '?':
		if (optopt)
			tk_cli_error(cli, "unknown option '-%c' (try --help)", optopt);
		else
			tk_cli_error(cli, "unknown option '%s' (try --help)", argv[optind - 1]);
		return TK_ST_USAGE;
	case ':':
		tk_cli_error(cli, "option '%s' needs an argument", argv[optind - 1]);
		return TK_ST_USAGE;
	default:
		if (c >= OPT_SOURCE && (size_t)(c - OPT_SOURCE) < nformat_opts)
			return add_source_opt(cli, format_opts[c - OPT_SOURCE]->name, optarg);
		if (!spec->handle || spec->handle(cli, c, optarg, spec->ctx))
			return TK_ST_USAGE;
		return TK_ST_OK;
	}
}

tk_status tk_cli_parse(tk_cli *cli, int argc, char **argv, const tk_cli_spec *spec)
{
	memset(cli, 0, sizeof *cli);
	cli->prog = argv[0];
	cli->context = -1;
	bool progress_forced = false;

	struct option *opts = option_table(spec);
	if (!opts) {
		tk_cli_error(cli, "out of memory");
		return TK_ST_FAIL;
	}
	const char *shortopts = (spec->flags & TK_CLI_OUTPUT) ? "+:vqo:h" : "+:vqh";
	if (!(spec->flags & TK_CLI_IN_ORDER))
		shortopts++;	/* GNU order: options may come after TRACE */
	int c;
	tk_status st = TK_ST_OK;
	opterr = 0;
	optind = 1;
	while (st == TK_ST_OK && (c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1)
		st = handle_option(cli, c, spec, argv, &progress_forced);
	free(opts);
	if (st != TK_ST_OK)
		return st;

	if (cli->source_lines && !cli->image) {
		tk_cli_error(cli, "--source-lines needs --image=ELF");
		return TK_ST_USAGE;
	}
	if (cli->force_index + cli->no_index > 1) {
		tk_cli_error(cli, "--force-index and --no-index contradict each other");
		return TK_ST_USAGE;
	}
	if (spec->flags & TK_CLI_TRACE) {
		if (optind < argc) {
			cli->trace = argv[optind++];
		} else if (spec->flags & TK_CLI_STDIN) {
			cli->trace = "-";
		} else {
			tk_cli_error(cli, "no trace file given (usage: %s %s)", cli->prog, spec->usage);
			return TK_ST_USAGE;
		}
	}
	cli->args = argv + optind;
	cli->nargs = argc - optind;
	if (cli->nargs < spec->min_args) {
		tk_cli_error(cli, "missing arguments (usage: %s %s)", cli->prog, spec->usage);
		return TK_ST_USAGE;
	}
	if (spec->max_args >= 0 && cli->nargs > spec->max_args) {
		tk_cli_error(cli, "unexpected argument '%s' (usage: %s %s)",
			     cli->args[spec->max_args], cli->prog, spec->usage);
		return TK_ST_USAGE;
	}
	cli->progress = !cli->quiet && (progress_forced || isatty(STDERR_FILENO));
	/* An explicit --show-progress-meter wins over -q. */
	if (progress_forced)
		cli->progress = true;

	tk_source_spec_init(&cli->spec);
	cli->spec.format = cli->format;
	cli->spec.opts = cli->sopts;
	cli->spec.nopts = cli->nsopts;
	cli->spec.images = cli->images;
	cli->spec.nimages = (size_t)cli->nimages;
	cli->spec.diag = tk_cli_print_diag;
	cli->spec.diag_ctx = cli;
	cli->spec.threads = cli->threads;
	return TK_ST_OK;
}

void tk_cli_fini(tk_cli *cli)
{
	tk_symtab_free(cli->symtab);
	cli->symtab = NULL;
	tk_namemap_fini(&cli->names);
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

tk_status tk_cli_load_image(tk_cli *cli)
{
	if (cli->symtab)
		return TK_ST_OK;
	if (!cli->image || !tk_cli_image_is_plain(cli->image)) {
		/* No symbol file of its own: the images the trace names. */
		tk_status st = tk_cli_load_trace_images(cli);
		if (st != TK_ST_OK || cli->symtab || !cli->image)
			return st;
	}
	int rc = tk_symtab_load(cli->image, cli->load_offset, &cli->symtab);
	if (rc < 0) {
		if (rc == TK_ERR_OPEN)
			tk_cli_error(cli, "%s: cannot open image: %s", cli->image, strerror(errno));
		else
			tk_cli_error(cli, "%s: %s", cli->image, tk_strerror(rc));
		return TK_ST_FAIL;
	}
	if (cli->demangle) {
		rc = tk_symtab_demangle(cli->symtab);
		if (rc < 0)
			tk_cli_warning(cli, "--demangle: %s", tk_strerror(rc));
	}
	bool image_be = tk_symtab_big_endian(cli->symtab);
	int endian = tk_cli_endian_option(cli);
	if (endian == 'l' && image_be) {
		tk_cli_warning(cli, "%s is big-endian but --li was given", cli->image);
	} else if (endian == 'b' && !image_be) {
		tk_cli_warning(cli, "%s is little-endian but --bi was given", cli->image);
	} else if (!endian && image_be) {
		/* No option given: the image decides. */
		if (add_source_opt(cli, "bi", "") != TK_ST_OK)
			return TK_ST_FAIL;
		cli->spec.nopts = cli->nsopts;
		if (cli->verbose)
			fprintf(stderr, "%s: %s is big-endian: reading the trace as --bi\n",
				cli->prog, cli->image);
	}
	return TK_ST_OK;
}


/* ---- the trace ------------------------------------------------------------ */

static void set_trace_info(tk_cli *cli, const tk_source_info *si)
{
	snprintf(cli->tinfo.format, sizeof cli->tinfo.format, "%s", si->format);
	snprintf(cli->tinfo.context_name, sizeof cli->tinfo.context_name, "%s", si->context_name);
	cli->tinfo.caps = si->caps;
	cli->tinfo.time_unit = si->time_unit;
}

tk_status tk_cli_open_trace(tk_cli *cli, tk_source **out)
{
	*out = NULL;
	if (strcmp(cli->trace, "-") != 0) {
		struct stat sb;
		if (stat(cli->trace, &sb) != 0) {
			tk_cli_error(cli, "%s: %s", cli->trace, strerror(errno));
			return TK_ST_FAIL;
		}
		if (S_ISDIR(sb.st_mode)) {
			tk_cli_error(cli, "%s: is a directory, not a trace file", cli->trace);
			return TK_ST_FAIL;
		}
	}
	uint64_t errors = cli->errors;
	int rc = tk_source_open(cli->trace, &cli->spec, out);
	if (rc < 0) {
		if (cli->errors != errors)
			;	/* a diagnostic said why */
		else if (rc == TK_ERR_OPEN)
			tk_cli_error(cli, "%s: %s", cli->trace, strerror(errno));
		else if (rc != TK_ERR_FORMAT && rc != TK_ERR_NOTFOUND && rc != TK_ERR_UNSUPPORTED &&
			 rc != TK_ERR_INVAL)
			tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(rc));
		/* else the source's diagnostic said why */
		return TK_ST_FAIL;
	}
	tk_source_info si = {.size = sizeof si};
	tk_source_get_info(*out, &si);
	set_trace_info(cli, &si);
	return TK_ST_OK;
}

int tk_cli_next(tk_cli *cli, tk_source *src, tk_event *ev)
{
	return tk_cli_next_many(cli, src, ev, 1);
}

int tk_cli_next_many(tk_cli *cli, tk_source *src, tk_event *evs, size_t cap)
{
	static unsigned counter;	/* events read: the meter moves every 65536 */
	int n = tk_source_next_many(src, evs, cap);
	if (n < 0) {
		tk_cli_error(cli, "%s: %s", cli->trace, tk_strerror(n));
		return n;
	}
	for (int i = 0; i < n; i++) {
		const tk_event *ev = &evs[i];
		if ((ev->kind == TK_EV_CALL || ev->kind == TK_EV_RETURN) && ev->u.func.name &&
		    tk_namemap_add(&cli->names, ev->u.func.addr, ev->u.func.name,
				   ev->u.func.name_len) < 0) {
			tk_cli_error(cli, "out of memory");
			return TK_ERR_NOMEM;
		}
	}
	unsigned before = counter;
	counter += (unsigned)n;
	if (cli->progress && (before >> 16) != (counter >> 16))
		tk_cli_progress(cli, "reading", tk_source_pos(src), tk_source_size(src));
	return n;
}

void tk_cli_close_trace(tk_cli *cli, tk_source *src)
{
	tk_cli_progress_clear();
	tk_cli_warning_summary(cli);
	tk_source_free(src);
}

/* ---- output files (output.c does the work) ------------------------------ */

static tk_out cli_out;

FILE *tk_cli_open_output(tk_cli *cli)
{
	tk_out_protect(cli->trace);
	tk_out_protect(cli->image);
	if (tk_out_open(&cli_out, cli->prog, cli->output))
		return NULL;
	return cli_out.fp;
}

int tk_cli_close_output(tk_cli *cli, FILE *fp)
{
	if (!fp || fp != cli_out.fp)
		return -1;
	return tk_out_commit(&cli_out, cli->prog);
}

void tk_cli_discard_output(tk_cli *cli, FILE *fp)
{
	(void)cli;
	if (fp && fp == cli_out.fp)
		tk_out_abort(&cli_out);
}

