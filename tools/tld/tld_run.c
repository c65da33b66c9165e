/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld: the trace linker's steps: toolchain and BSP, the
 * configuration, DWARF signatures, the wrapper C file, compile, link.
 * Every error stops before the link, so no output file appears. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tld/tld.h"
#include "tracekit/error.h"
#include "tracekit/tld.h"

struct run {
	tld_opts *o;
	tk_ini *ini;
	tk_tld_config *cfg;
	char *cc, *ld;
	char *exec_prefix;
	char *wrapper_c, *wrapper_o;
	bool dump_on_error;
	unsigned errors;
};

static void print_diag(void *ctx, const tk_diag *d)
{
	struct run *r = ctx;
	if (d->level == TK_DIAG_NOTE && r->o->verbose < 1)
		return;
	const char *level = d->level == TK_DIAG_ERROR	  ? "error"
			    : d->level == TK_DIAG_WARNING ? "warning"
							  : "note";
	if (d->level == TK_DIAG_ERROR)
		r->errors++;
	if (d->file && d->line)
		fprintf(stderr, "%s:%llu: %s: %s\n", d->file, (unsigned long long)d->line, level,
			d->msg);
	else if (d->file)
		fprintf(stderr, "%s: %s: %s\n", d->file, level, d->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", r->o->prog, level, d->msg);
}

static void error(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error(const struct run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", r->o->prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The directory of this executable ("" if unknown). */
static void exe_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		buf[0] = '\0';
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The configuration as loaded: every file, section and key. */
static void dump_config(const tk_ini *ini)
{
	printf("Configuration files:\n");
	for (size_t i = 0; i < tk_ini_nfiles(ini); i++)
		printf("  %s\n", tk_ini_file_at(ini, i));
	for (size_t i = 0; i < tk_ini_nsections(ini); i++) {
		const tk_ini_section *s = tk_ini_section_at(ini, i);
		tk_ini_loc loc = tk_ini_section_loc(s);
		printf("[%s] (%s:%u)\n", tk_ini_section_name(s), loc.file, loc.line);
		const tk_ini_entry *e;
		size_t n = tk_ini_section_entries(s, &e);
		for (size_t j = 0; j < n; j++) {
			const char *nl = strchr(e[j].value, '\n');
			if (nl)
				printf("  %s = <<<(%zu bytes)\n", e[j].key, strlen(e[j].value));
			else
				printf("  %s = %s\n", e[j].key, e[j].value);
		}
	}
}

/* An option's value straight from the INI ([tracer] options, first set
 * wins): for dump-on-error when the configuration could not be read. */
static const char *raw_option(const tk_ini *ini, const char *key)
{
	const tk_ini_section *tracer = tk_ini_find(ini, "tracer");
	const tk_ini_entry *e;
	for (size_t i = 0; tracer && (e = tk_ini_get(tracer, "options", i, NULL)) != NULL; i++) {
		char **items;
		const char *bad;
		int n = tk_ini_split_list(e->value, &items, &bad);
		for (int j = 0; j < n; j++) {
			const tk_ini_section *s = tk_ini_find(ini, items[j]);
			const tk_ini_entry *o = s ? tk_ini_get(s, key, 0, NULL) : NULL;
			if (o) {
				free(items);
				return o->value;
			}
		}
		free(items);
	}
	return NULL;
}

static bool truth(const char *v)
{
	return strcmp(v, "false") && strcmp(v, "no") && strcmp(v, "off") && strcmp(v, "0") &&
	       strcmp(v, "\"false\"");
}

static int fail(struct run *r)
{
	if (r->ini && (r->dump_on_error || (raw_option(r->ini, "dump-on-error") &&
					    truth(raw_option(r->ini, "dump-on-error")))))
		dump_config(r->ini);
	return TLD_EXIT_ERROR;
}

/* Options from the configuration: the command line wins where both set
 * the same thing; cflags add up. */
static int apply_options(struct run *r)
{
	tld_opts *o = r->o;
	const tk_tld_option *opt;
	if ((opt = tk_tld_option_get(r->cfg, "dump-on-error")))
		r->dump_on_error = truth(opt->value);
	if ((opt = tk_tld_option_get(r->cfg, "verbose"))) {
		char *end;
		unsigned long v = strtoul(opt->value, &end, 10);
		if (!strcmp(opt->value, "true") || (*end == '\0' && end != opt->value))
			o->verbose += v ? (int)(v > 9 ? 9 : v) : 1;
	}
	if ((opt = tk_tld_option_get(r->cfg, "prefix")) && !r->exec_prefix &&
	    !(r->exec_prefix = strdup(opt->value)))
		return -1;
	if ((opt = tk_tld_option_get(r->cfg, "cc")) && !o->cc)
		o->cc = opt->value;
	if ((opt = tk_tld_option_get(r->cfg, "ld")) && !o->ld)
		o->ld = opt->value;
	if ((opt = tk_tld_option_get(r->cfg, "cflags"))) {
		const char *err;
		if (tld_cflags_add(&o->cflags, opt->value, &err)) {
			fprintf(stderr, "%s:%u: error: cflags: %s\n", opt->loc.file, opt->loc.line, err);
			return -1;
		}
	}
	/* A BSP named in the configuration (one on the command line was
	 * loaded already). */
	const tk_tld_option *path = tk_tld_option_get(r->cfg, "rtems-path");
	const tk_tld_option *bsp = tk_tld_option_get(r->cfg, "rtems-bsp");
	const char *rtems = o->rtems_path ? o->rtems_path : path ? path->value : NULL;
	if (!o->rtems_bsp && bsp && rtems) {
		char *arch = NULL;
		if (tld_load_bsp(o->prog, rtems, bsp->value, &o->cflags, &arch))
			return -1;
		if (!r->exec_prefix)
			r->exec_prefix = arch;
		else
			free(arch);
	}
	return 0;
}

/* A warning worth giving: a generator that reads the enables table when
 * no traced function is enabled records nothing. */
static void check_enables(const struct run *r)
{
	const tk_tld_config *c = r->cfg;
	bool reads = false;
	for (size_t i = 0; i < c->gen.code.n; i++)
		reads |= strstr(c->gen.code.v[i], "__rtld_trace_enables") != NULL;
	bool any = c->gen_enables == TK_TLD_TABLE_GLOBAL_ON;
	for (size_t i = 0; i < c->ntraces; i++)
		any |= c->traces[i].enabled;
	if (reads && !any && c->gen_enables != TK_TLD_TABLE_DISABLE)
		fprintf(stderr,
			"%s: warning: generator %s records only enabled functions and none is "
			"enabled: set the option gen-enables = global-on, or list them with "
			"'enable =' (and likewise triggers)\n",
			r->o->prog, c->gen.name);
}

static int load_config(struct run *r)
{
	tld_opts *o = r->o;
	char dir[PATH_MAX], share[PATH_MAX + 64];
	exe_dir(dir, sizeof dir);
	snprintf(share, sizeof share, "%s/../share/tracekit/trace-linker", dir);
	char *real = realpath(share, NULL);
	if (real) {
		snprintf(share, sizeof share, "%s", real);
		free(real);
	}
	const char *system[1] = {share};
	tk_ini_opts io = {
		.size = sizeof io,
		.search = (const char *const *)o->path.v,
		.nsearch = o->path.n,
		.system = system,
		.nsystem = dir[0] && is_dir(share) ? 1 : 0,
		.builtins = tk_tld_builtin_ini,
		.nbuiltins = tk_tld_builtin_ini_count,
		.diag = print_diag,
		.diag_ctx = r,
		.verbose = o->verbose > 0,
	};
	if (o->verbose) {
		printf("search path:");
		for (size_t i = 0; i < o->path.n; i++)
			printf(" %s", o->path.v[i]);
		printf("%s%s (then the built-in files)\n", io.nsystem ? " " : "",
		       io.nsystem ? share : "");
	}
	if (tk_ini_new(&io, &r->ini))
		return -1;
	int rc = tk_tld_config_load(r->ini, o->config, &r->cfg);
	if (rc == TK_ERR_NOMEM)
		error(r, "out of memory");
	return rc ? -1 : 0;
}

static int write_wrapper(struct run *r)
{
	tld_opts *o = r->o;
	if (o->wrapper) {
		if (asprintf(&r->wrapper_c, "%s.c", o->wrapper) < 0 ||
		    asprintf(&r->wrapper_o, "%s.o", o->wrapper) < 0)
			return -1;
	} else {
		const char *tmp = getenv("TMPDIR");
		if (asprintf(&r->wrapper_c, "%s/tldXXXXXX.c", tmp && *tmp ? tmp : "/tmp") < 0)
			return -1;
		int fd = mkstemps(r->wrapper_c, 2);
		if (fd < 0) {
			error(r, "creating a temporary file %s: %s", r->wrapper_c, strerror(errno));
			return -1;
		}
		close(fd);
		r->wrapper_o = strdup(r->wrapper_c);
		if (!r->wrapper_o)
			return -1;
		r->wrapper_o[strlen(r->wrapper_o) - 1] = 'o';
		if (!o->keep && (tld_temp_register(r->wrapper_c) || tld_temp_register(r->wrapper_o)))
			return -1;
	}
	if (o->verbose)
		printf("wrapper C file: %s\nwrapper object: %s\n", r->wrapper_c, r->wrapper_o);
	FILE *fp = fopen(r->wrapper_c, "w");
	if (!fp) {
		error(r, "%s: %s", r->wrapper_c, strerror(errno));
		return -1;
	}
	int rc = tk_tld_generate(r->cfg, fp);
	if (fclose(fp) != 0 || rc) {
		error(r, "%s: write error", r->wrapper_c);
		return -1;
	}
	if (o->verbose >= 2) {
		fp = fopen(r->wrapper_c, "r");
		char *line = NULL;
		size_t cap = 0;
		unsigned n = 0;
		while (fp && getline(&line, &cap, fp) >= 0)
			printf("%5u: %s", ++n, line);
		free(line);
		if (fp)
			fclose(fp);
	}
	return 0;
}

/* Run a step; on failure print what the tool said and why. */
static int step(struct run *r, const char *what, tld_argv *argv, bool echo_on_success)
{
	if (r->o->verbose >= 3) {
		printf("execute:");
		for (size_t i = 0; i < argv->n; i++)
			printf(" %s", argv->v[i]);
		printf("\n");
	}
	fflush(stdout);
	char *out = NULL;
	int st = tld_run_child(argv->v, &out);
	if (r->o->verbose >= 3)
		printf("execute: exit status %d\n", st);
	if (out && *out && (st != 0 || echo_on_success))
		fputs(out, stderr);
	free(out);
	if (st < 0) {
		error(r, "%s: cannot run '%s': %s", what, argv->v[0], strerror(errno));
		return -1;
	}
	if (st > 255) {
		error(r, "%s: %s was killed by signal %d", what, argv->v[0], st - 256);
		return -1;
	}
	if (st) {
		error(r, "%s: %s failed (exit status %d)", what, argv->v[0], st);
		return -1;
	}
	return 0;
}

static int compile_and_link(struct run *r)
{
	tld_opts *o = r->o;
	tld_argv cc = {0}, ld = {0};
	int rc = -1;
	if (tld_argv_add(&cc, r->cc))
		goto out;
	for (size_t i = 0; i < o->cflags.n; i++)
		if (tld_argv_add(&cc, o->cflags.v[i]))
			goto out;
	if (tld_argv_add(&cc, "-O2") || tld_argv_add(&cc, "-g") || tld_argv_add(&cc, "-c") ||
	    tld_argv_add(&cc, "-o") || tld_argv_add(&cc, r->wrapper_o) ||
	    tld_argv_add(&cc, r->wrapper_c))
		goto out;
	if (step(r, "compiling wrapper", &cc, false))
		goto out;

	if (tld_argv_add(&ld, r->ld))
		goto out;
	for (size_t i = 0; i < r->cfg->ntraces; i++)
		if (tld_argv_addf(&ld, "-Wl,--wrap=%s", r->cfg->traces[i].name))
			goto out;
	if (tld_argv_add(&ld, r->wrapper_o))
		goto out;
	for (size_t i = 0; i < o->link.n; i++)
		if (tld_argv_add(&ld, o->link.v[i]))
			goto out;
	if (o->verbose)
		printf("linking\n");
	rc = step(r, "linking", &ld, true);
out:
	tld_argv_free(&cc);
	tld_argv_free(&ld);
	return rc;
}

static int dwarf(struct run *r)
{
	if (!tk_tld_needs_dwarf(r->cfg))
		return 0;
	tld_argv inputs = {0};
	if (tld_link_inputs(&r->o->link, &inputs))
		return -1;
	if (r->o->verbose) {
		printf("DWARF signatures from:");
		for (size_t i = 0; i < inputs.n; i++)
			printf(" %s", inputs.v[i]);
		printf("\n");
	}
	int rc = tk_tld_dwarf_signatures(r->ini, r->cfg, (const char *const *)inputs.v, inputs.n);
	if (rc == TK_ERR_NOMEM)
		error(r, "out of memory");
	tld_argv_free(&inputs);
	return rc ? -1 : 0;
}

static int run(struct run *r)
{
	tld_opts *o = r->o;
	if (o->exec_prefix && !(r->exec_prefix = strdup(o->exec_prefix)))
		return TLD_EXIT_ERROR;
	if (o->rtems_bsp) {
		char dir[PATH_MAX], prefix[PATH_MAX + 8];
		exe_dir(dir, sizeof dir);
		snprintf(prefix, sizeof prefix, "%s/..", dir);
		char *arch = NULL;
		if (tld_load_bsp(o->prog, o->rtems_path ? o->rtems_path : prefix, o->rtems_bsp,
				 &o->cflags, &arch))
			return TLD_EXIT_ERROR;
		if (!r->exec_prefix)
			r->exec_prefix = arch;
		else
			free(arch);
	}
	if (!o->config) {
		error(r, "no configuration: give the INI file with -C FILE");
		return TLD_EXIT_ERROR;
	}
	if (o->link.n == 0) {
		error(r, "no link command: give it after --, e.g. -- -o app main.o lib.o");
		return TLD_EXIT_ERROR;
	}
	if (o->verbose) {
		printf("tracekit trace linker (rtems-tld compatible) %s\n", TK_VERSION_STRING);
		printf("link command:");
		for (size_t i = 0; i < o->link.n; i++)
			printf(" %s", o->link.v[i]);
		printf("\n");
	}
	if (load_config(r) || apply_options(r))
		return fail(r);
	if (!(r->cc = tld_tool_name(o->cc, r->exec_prefix, "gcc")) ||
	    !(r->ld = tld_tool_name(o->ld, r->exec_prefix, "gcc")))
		return TLD_EXIT_ERROR;
	if (o->verbose)
		printf("compiler: %s\nlinker: %s\ngenerator: %s\ntraced functions: %zu\n", r->cc,
		       r->ld, r->cfg->gen.name, r->cfg->ntraces);
	check_enables(r);
	if (dwarf(r) || write_wrapper(r) || compile_and_link(r))
		return fail(r);
	if (o->verbose)
		dump_config(r->ini);
	return TLD_EXIT_OK;
}

int tld_run(tld_opts *o)
{
	tld_temp_install_handlers();
	struct run r = {.o = o};
	int rc = run(&r);
	fflush(stdout);
	tld_temp_cleanup();
	tk_tld_config_free(r.cfg);
	tk_ini_free(r.ini);
	free(r.cc);
	free(r.ld);
	free(r.exec_prefix);
	free(r.wrapper_c);
	free(r.wrapper_o);
	return rc;
}
