/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the command dispatcher.
 *
 * `tracekit SUBCOMMAND ARGS...`, or a classic alias such as `tarmac-calltree
 * ARGS...` (a symlink to this binary): both run the same function with the
 * same options.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/modules.h"

/* Weak: the commands that live in a module are not in the binary. */
#define TK_COMMAND(fn, name, alias, summary) \
	int tk_cmd_##fn(int argc, char **argv) __attribute__((weak));
#include "commands.def"
#undef TK_COMMAND

struct command {
	const char *name;
	const char *alias;
	const char *summary;
	int (*run)(int argc, char **argv);
	const char *symbol;
};

static const struct command commands[] = {
#define TK_COMMAND(fn, name, alias, summary) {name, alias, summary, tk_cmd_##fn, "tk_cmd_" #fn},
#include "commands.def"
#undef TK_COMMAND
};

/* The module of each command that is not in the binary. */
static const char *const modules[][2] = {
	{"browse", "browse"}, {"serve", "serve"}, {"record", "record"},
	{"export", "json"}, {"dump", "json"},
};

static int run(const struct command *c, int argc, char **argv)
{
	if (c->run)
		return c->run(argc, argv);
	const char *module = NULL;
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		if (!strcmp(modules[i][0], c->name))
			module = modules[i][1];
	void *h = module ? tk_cli_module(module) : NULL;
	int (*fn)(int, char **) = NULL;
	if (h)
		*(void **)&fn = dlsym(h, c->symbol);
	if (!fn) {
		fprintf(stderr, "%s: cannot load module tk-%s.so: %s\n", argv[0],
			module ? module : c->name, tk_cli_module_error());
		return TK_EXIT_FAIL;
	}
	return fn(argc, argv);
}
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	fprintf(fp, "usage: tracekit COMMAND [OPTIONS] TRACE [ARGS...]\n"
		    "       tracekit COMMAND --help\n\n"
		    "tracekit reads a program execution trace (Arm Tarmac and others),\n"
		    "indexes it, and answers questions about it.\n\n"
		    "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-12s %s%s%s%s\n", commands[i].name, commands[i].summary,
			commands[i].alias ? " (" : "",
			commands[i].alias ? commands[i].alias : "",
			commands[i].alias ? ")" : "");
	fprintf(fp, "\nRun 'tracekit COMMAND --help' for the options of a command.\n");
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
	const char *self = base_name(argv[0]);

	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].alias && strcmp(self, commands[i].alias) == 0) {
			argv[0] = (char *)commands[i].alias;
			return run(&commands[i], argc, argv);
		}

	if (argc < 2) {
		usage(stderr);
		return TK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tracekit %s\n", TK_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			static char display[64];
			snprintf(display, sizeof display, "tracekit %s", commands[i].name);
			argv[1] = display;
			return run(&commands[i], argc - 1, argv + 1);
		}
	fprintf(stderr, "tracekit: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return TK_EXIT_USAGE;
}
