/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld: the trace linker's front end (command line, toolchain,
 * child processes), over the library's configuration and code generator
 * (tracekit/tld.h). */
#ifndef TRACEKIT_TOOLS_TLD_H
#define TRACEKIT_TOOLS_TLD_H

#include <stdbool.h>
#include <stddef.h>

#include "tracekit/tld_ini.h"

/* Exit codes of rtems-tld. */
enum {
	TLD_EXIT_OK = 0,
	TLD_EXIT_USAGE = 3,	/* a bad option */
	TLD_EXIT_ERROR = 10,	/* configuration, compile or link error */
};

/* The RTEMS version in default tool names (<arch>-rtems<VER>-gcc). */
#ifndef TK_TLD_RTEMS_VERSION
#define TK_TLD_RTEMS_VERSION 6
#endif

/* A growable argv. */
typedef struct tld_argv {
	char **v;		/* NULL-terminated */
	size_t n, cap;
} tld_argv;

int tld_argv_add(tld_argv *a, const char *s);
int tld_argv_addf(tld_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tld_argv_free(tld_argv *a);

typedef struct tld_opts {
	int verbose;
	bool warn, keep;
	const char *cc, *ld;		/* -c, -l */
	const char *exec_prefix;	/* -E */
	tld_argv cflags;		/* -f (split and filtered) */
	const char *rtems_path;		/* -r */
	const char *rtems_bsp;		/* -B */
	const char *wrapper;		/* -W */
	const char *config;		/* -C */
	tld_argv path;			/* -P, split at ':' */
	tld_argv link;			/* everything after -- (and non-options before it) */
	const char *prog;		/* for messages: "rtems-tld" or "tracekit tld" */
} tld_opts;

/* Run the trace linker: returns an exit code. */
int tld_run(tld_opts *o);

/* ---- cflags.c ---- */

/*
 * Split a CFLAGS string into words (blanks separate; '...' and "..."
 * group, a backslash escapes the next character outside single quotes)
 * and append them to out, dropping -O..., -g... (the wrapper is always
 * compiled with -O2 -g) and warning options -W... (not -Wa, -Wp, -Wl,).
 * Everything else is passed through, the argument of an option that takes
 * one (-I dir, -include file...) with it.  Returns 0, or -1 with *err
 * describing an unterminated quote.
 */
int tld_cflags_add(tld_argv *out, const char *flags, const char **err);

/* ---- toolchain.c ---- */

/* The program for a tool ("gcc"): given verbatim, or from the exec
 * prefix: "<prefix>gcc" when it ends in '-', else
 * "<prefix>-rtems<VER>-gcc"; plain "gcc" without one.  malloc'ed. */
char *tld_tool_name(const char *given, const char *exec_prefix, const char *tool);

/*
 * Read an RTEMS BSP's pkg-config file, <rtems>/lib/pkgconfig/
 * <arch>-rtems<VER>-<bsp>.pc, appending its CFLAGS to cflags and setting
 * *arch (malloc'ed) to the BSP's architecture.  Returns 0, or -1 after
 * printing "error: ..." .
 */
int tld_load_bsp(const char *prog, const char *rtems_path, const char *arch_bsp,
		 tld_argv *cflags, char **arch);

/* The link inputs for DWARF: words of the link command that name ELF
 * files or archives (not options, not option arguments like -o FILE). */
int tld_link_inputs(const tld_argv *link, tld_argv *inputs);

/* ---- run.c ---- */

/* Run argv (searching PATH), capturing its stdout and stderr together.
 * Returns the exit status (0-255), 256 + signal for a signal, or -1 if it
 * could not be started (errno set); *output gets what it printed
 * (malloc'ed, NUL-terminated). */
int tld_run_child(char *const *argv, char **output);

/* Temporary files removed at exit and on SIGINT/SIGHUP/SIGTERM/SIGPIPE
 * (unless kept). */
int tld_temp_register(const char *path);
void tld_temp_cleanup(void);
void tld_temp_install_handlers(void);

/* The built-in copies of the shipped configuration files (generated). */
extern const tk_ini_builtin tk_tld_builtin_ini[];
extern const size_t tk_tld_builtin_ini_count;

#endif
