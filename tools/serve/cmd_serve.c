/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit serve (tarmac-gui-browser): the trace browser in a web browser.
 *
 * Opens every TRACE (building its index first, with the progress meter),
 * starts the HTTP server (http.h) on a loopback address, prints one line
 *   tracekit: serving http://127.0.0.1:PORT/?token=T
 * and serves until SIGINT or SIGTERM, then stops cleanly: requests being
 * answered finish, nothing is left half-written (the server writes no file;
 * indexes are written atomically before it starts).
 *
 * Several traces: the options before a TRACE apply to it, and --image,
 * --load-offset, --li/--bi and --implicit-thumb stay for the traces after it
 * until given again; --index applies to the next TRACE only:
 *   tracekit serve --image=a.elf a.tarmac --image=b.elf b.tarmac
 * Each TRACE is parsed by the common command-line layer on its own, with
 * the options that apply to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_index.h"

#ifndef TK_HAVE_MICROHTTPD
int tk_cmd_serve(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: this tracekit was built without libmicrohttpd; install "
			"libmicrohttpd-dev and rebuild\n", argv[0]);
	return TK_EXIT_FAIL;
}
#else
#include "serve/http.h"
#include "serve/serve.h"

enum { OPT_PORT = 256, OPT_BIND, OPT_TOKEN_FILE, OPT_OPEN, OPT_NO_OPEN };

static const struct option serve_opts[] = {
	{"port", required_argument, NULL, OPT_PORT},
	{"bind", required_argument, NULL, OPT_BIND},
	{"token-file", required_argument, NULL, OPT_TOKEN_FILE},
	{"open", no_argument, NULL, OPT_OPEN},
	{"no-open", no_argument, NULL, OPT_NO_OPEN},
	{NULL, 0, NULL, 0},
};

/* Options that take their argument as the next word. */
static const char *const arg_opts[] = {
	"--image", "--load-offset", "--index", "--debug", "--port", "--bind", "--token-file",
};

struct settings {
	long port;		/* -1: not given */
	const char *bind;
	const char *token_file;
	int open;		/* -1 default, 0 no, 1 yes */
};

static int handle(tk_cli *cli, int val, const char *arg, void *ctx)
{
	struct settings *st = ctx;
	char *end;
	switch (val) {
	case OPT_PORT:
		errno = 0;
		st->port = strtol(arg, &end, 10);
		if (errno || *end || end == arg || st->port < 0 || st->port > 65535) {
			tk_cli_error(cli, "--port: '%s' is not a port number (0 to 65535; 0 = any free one)", arg);
			return -1;
		}
		return 0;
	case OPT_BIND:
		st->bind = arg;
		return 0;
	case OPT_TOKEN_FILE:
		st->token_file = arg;
		return 0;
	case OPT_OPEN:
		st->open = 1;
		return 0;
	case OPT_NO_OPEN:
		st->open = 0;
		return 0;
	}
	return -1;
}

static const char usage[] = "[OPTIONS] [--image=ELF] TRACE [[--image=ELF] TRACE...]";
static const char summary[] =
	"Browse traces in a web browser: start a local web server for the traces\n"
	"and print the link to open.  The page shows the trace with registers,\n"
	"memory, call stack, call tree, flame graph and search, like the terminal\n"
	"browser; several traces open in tabs or side by side.  The server listens\n"
	"on 127.0.0.1 only, needs the printed token on every request, and stops on\n"
	"Ctrl-C.  The options before a TRACE apply to it (--image and the trace\n"
	"options also to the traces after it, until given again).  The JSON API\n"
	"it answers is documented in docs/API.md.";
static const char options_help[] =
	"  --port=N                 listen on port N (default: any free port)\n"
	"  --bind=ADDR              listen on ADDR instead of 127.0.0.1 (anything but\n"
	"                           loopback is reachable by others: a warning says so)\n"
	"  --token-file=FILE        use the token in FILE instead of a random one\n"
	"  --open, --no-open        open the page with xdg-open (default: only as\n"
	"                           tarmac-gui-browser, when there is a display)\n";

static bool is_arg_opt(const char *a)
{
	for (size_t i = 0; i < sizeof arg_opts / sizeof arg_opts[0]; i++)
		if (!strcmp(a, arg_opts[i]))
			return true;
	return false;
}

static bool is_index_opt(const char *a)
{
	return !strcmp(a, "--index") || !strncmp(a, "--index=", 8);
}

/* Split argv into the traces and the options that apply to each.  Fills
 * argvs[i] (NULL-terminated, argv[0] first) for each trace i. */
static int split_args(int argc, char **argv, char ***argvs, int *ntraces)
{
	char **opts = calloc((size_t)argc + 1, sizeof *opts);	/* sticky so far */
	int nopts = 0, n = 0;
	char **seg = calloc((size_t)argc + 1, sizeof *seg);	/* this trace's */
	int nseg = 0;
	bool only_opts = false;
	if (!opts || !seg)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool opt = !only_opts && a[0] == '-' && a[1];
		if (!only_opts && !strcmp(a, "--")) {
			only_opts = true;
			continue;
		}
		if (opt) {
			seg[nseg++] = argv[i];
			if (is_arg_opt(a) && i + 1 < argc)
				seg[nseg++] = argv[++i];
			continue;
		}
		/* A trace: its argv is the sticky options, its own, and it. */
		char **v = calloc((size_t)(nopts + nseg + 3), sizeof *v);
		if (!v)
			return -1;
		int k = 0;
		v[k++] = argv[0];
		for (int j = 0; j < nopts; j++)
			v[k++] = opts[j];
		for (int j = 0; j < nseg; j++)
			v[k++] = seg[j];
		v[k++] = argv[i];
		argvs[n++] = v;
		/* Keep this trace's options for the next, except --index. */
		for (int j = 0; j < nseg; j++) {
			if (is_index_opt(seg[j])) {
				if (!strcmp(seg[j], "--index"))
					j++;
				continue;
			}
			opts[nopts++] = seg[j];
		}
		nseg = 0;
	}
	/* Options after the last trace: for the last trace (or, with none,
	 * for the usage error and --help). */
	if (nseg || !n) {
		char **last = n ? argvs[n - 1] : NULL;
		int k = 0;
		while (last && last[k])
			k++;
		char **v = calloc((size_t)(k + nseg + 2), sizeof *v);
		if (!v)
			return -1;
		int m = 0;
		if (last) {
			for (int j = 0; j < k - 1; j++)
				v[m++] = last[j];
		} else {
			v[m++] = argv[0];
		}
		for (int j = 0; j < nseg; j++)
			v[m++] = seg[j];
		if (last)
			v[m++] = last[k - 1];
		if (last) {
			free(last);
			argvs[n - 1] = v;
		} else {
			argvs[n++] = v;
		}
	}
	free(opts);
	free(seg);
	*ntraces = n;
	return 0;
}

static int read_token(const char *path, char *tok, size_t size, tk_cli *cli)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		tk_cli_error(cli, "--token-file: %s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(tok, 1, size - 1, fp);
	fclose(fp);
	tok[n] = '\0';
	while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
		tok[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!((tok[i] >= 'a' && tok[i] <= 'z') || (tok[i] >= 'A' && tok[i] <= 'Z') ||
		      (tok[i] >= '0' && tok[i] <= '9') || tok[i] == '-' || tok[i] == '_'))
			n = 0;
	if (n < 16 || n > 128) {
		tk_cli_error(cli, "--token-file: %s: a token is 16 to 128 letters, digits, '-' or '_'",
			     path);
		return -1;
	}
	return 0;
}

static int random_token(char *tok, tk_cli *cli)
{
	unsigned char r[16];
	size_t got = 0;
	while (got < sizeof r) {
		ssize_t k = getrandom(r + got, sizeof r - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			tk_cli_error(cli, "cannot get random bytes for the token: %s", strerror(errno));
			return -1;
		}
		got += (size_t)k;
	}
	for (int i = 0; i < 16; i++)
		snprintf(tok + 2 * i, 3, "%02x", r[i]);
	return 0;
}

static void open_page(const char *url, tk_cli *cli)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("xdg-open", "xdg-open", url, (char *)NULL);
		_exit(127);
	}
	if (p < 0)
		tk_cli_error(cli, "cannot start xdg-open: %s", strerror(errno));
}

/* open_trace: --help or --version was answered: stop, exit 0. */
#define OPEN_DONE (-1)

static int open_trace(tks_trace *t, char **argv, const tk_cli_spec *spec, uint32_t id)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	tk_status st = tk_cli_parse(&t->cli, argc, argv, spec);
	if (st == TK_ST_DONE)
		return OPEN_DONE;
	if (st != TK_ST_OK)
		return tk_cli_exit(st);
	t->id = id;
	const char *slash = strrchr(t->cli.trace, '/');
	t->name = slash ? slash + 1 : t->cli.trace;
	pthread_mutex_init(&t->lock, NULL);
	if (!strcmp(t->cli.trace, "-")) {
		tk_cli_error(&t->cli, "the browser needs trace files, not standard input");
		return TK_EXIT_USAGE;
	}
	if (tk_cli_load_image(&t->cli) || tk_cli_open_index(&t->cli, true, &t->idx))
		return TK_EXIT_FAIL;
	t->info.size = sizeof t->info;
	tk_index_get_info(t->idx, &t->info);
	t->ninsns = tk_index_count(t->idx);
	const char *why = NULL;
	int r = tkv_file_open(&t->text, t->cli.trace, t->idx, &why);
	if (r) {
		tk_cli_error(&t->cli, "%s: %s", t->cli.trace, why ? why : tk_strerror(r));
		return TK_EXIT_FAIL;
	}
	return 0;
}

static void close_trace(tks_trace *t)
{
	tkv_file_close(&t->text);
	tk_index_free(t->idx);
	tk_cli_fini(&t->cli);
	free(t->profile);
	free(t->flame[0]);
	free(t->flame[1]);
	pthread_mutex_destroy(&t->lock);
}

int tk_cmd_serve(int argc, char **argv)
{
	struct settings st = {.port = -1, .bind = NULL, .open = -1};
	tk_cli_spec spec = {
		.usage = usage, .summary = summary, .options_help = options_help,
		.flags = TK_CLI_TRACE | TK_CLI_INDEX | TK_CLI_IMAGE,
		.min_args = 0, .max_args = 0,
		.extra = serve_opts, .handle = handle, .ctx = &st,
	};
	bool gui_alias = strstr(argv[0], "tarmac-gui-browser") != NULL;
	char ***argvs = calloc((size_t)argc + 1, sizeof *argvs);
	int ntraces = 0;
	if (!argvs || split_args(argc, argv, argvs, &ntraces)) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return TK_EXIT_FAIL;
	}
	tks_server server = {calloc((size_t)ntraces, sizeof(tks_trace)), 0};
	int rc = TK_EXIT_OK;
	if (!server.traces) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return TK_EXIT_FAIL;
	}
	/* Block the stop signals before any thread starts: the main thread
	 * waits for them with sigwait, the server's threads never see them. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (int i = 0; i < ntraces && rc == TK_EXIT_OK; i++) {
		rc = open_trace(&server.traces[i], argvs[i], &spec, (uint32_t)i);
		server.ntraces = (uint32_t)i + 1;
	}
	tk_cli *cli = &server.traces[0].cli;
	if (rc == OPEN_DONE) {
		rc = TK_EXIT_OK;
		goto out;
	}
	if (rc != TK_EXIT_OK || cli->only_index)
		goto out;
	for (tk_reg r = 0; r < TK_REG_COUNT; r++)
		tk_reg_name(r);	/* its names are made on first use: now, not in threads */

	const char *bind = st.bind ? st.bind : "127.0.0.1";
	bool loopback = !strncmp(bind, "127.", 4) || !strcmp(bind, "::1");
	if (!loopback)
		fprintf(stderr, "%s: warning: listening on %s: anyone who can reach this address "
			"and learns the token can read these traces\n", cli->prog, bind);
	char token[160];
	if (st.token_file ? read_token(st.token_file, token, sizeof token, cli)
			  : random_token(token, cli)) {
		rc = TK_EXIT_FAIL;
		goto out;
	}
	tks_http_opts ho = {
		.bind = bind, .port = st.port < 0 ? 0 : (uint16_t)st.port, .token = token,
		.verbose = cli->verbose > 0,
	};
	tks_http *http;
	char err[256];
	if (tks_http_start(&server, &ho, &http, err, sizeof err)) {
		tk_cli_error(cli, "%s", err);
		rc = TK_EXIT_FAIL;
		goto out;
	}
	char url[512];
	bool v6 = strchr(bind, ':') != NULL;
	snprintf(url, sizeof url, "http://%s%s%s:%u/?token=%s", v6 ? "[" : "", bind, v6 ? "]" : "",
		 tks_http_port(http), token);
	printf("tracekit: serving %s\n", url);
	fflush(stdout);
	if (st.open == 1 || (st.open < 0 && gui_alias && (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY"))))
		open_page(url, cli);
	int sig = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	if (!cli->quiet)
		fprintf(stderr, "%s: stopping (signal %d)\n", cli->prog, sig);
	tks_http_stop(http);
out:
	for (uint32_t i = 0; i < server.ntraces; i++)
		close_trace(&server.traces[i]);
	free(server.traces);
	for (int i = 0; i < ntraces; i++)
		free(argvs[i]);
	free(argvs);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return rc;
}
#endif
