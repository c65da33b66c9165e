/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tld (alias rtems-tld): the trace linker's command line, as
 * rtems-tld has it: GNU getopt with its permutation (non-options before
 * `--` join the link command), `--` then the link command, exit codes 0,
 * 3 (bad option) and 10 (any other error).  The work is in tools/tld/. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tld/tld.h"

static void usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"usage: %s [options] -- LINK-COMMAND...\n"
		"\n"
		"Re-link an application with chosen functions wrapped by generated trace\n"
		"code (GNU ld --wrap), as the RTEMS Trace Linker does, for any GCC target.\n"
		"The INI configuration (-C) names the functions, their signatures (or\n"
		"'name =' to take them from the DWARF of the link inputs) and the\n"
		"generator (printf, printk, trace buffer).  LINK-COMMAND is the normal\n"
		"link command without the driver name, e.g. -- -o app main.o lib.o.\n"
		"\n"
		"Options and arguments:\n"
		" -h          : help (also --help)\n"
		" -V          : print the version number and exit (also --version)\n"
		" -v          : verbose; repeat for more: -vv shows the wrapper C file,\n"
		"               -vvv every command run (also --verbose)\n"
		" -w          : generate warnings (accepted; warnings are always shown)\n"
		"               (also --warn)\n"
		" -k          : keep the temporary files (also --keep)\n"
		" -c compiler : the C compiler for the wrapper (also --compiler)\n"
		" -l linker   : the link driver, e.g. g++ for C++ applications (also --linker)\n"
		" -E prefix   : tool prefix: -E arm-none-eabi- runs arm-none-eabi-gcc;\n"
		"               -E sparc runs sparc-rtems%d-gcc (also --exec-prefix)\n"
		" -f cflags   : C compiler flags for the wrapper (also --cflags)\n"
		" -r path     : RTEMS install path (also --rtems)\n"
		" -B bsp      : RTEMS arch/bsp: compiler and flags from its pkg-config file\n"
		"               (also --rtems-bsp)\n"
		" -W wrapper  : wrapper file name without extension, kept (also --wrapper)\n"
		" -C ini      : the user configuration INI file (also --config)\n"
		" -P path     : INI search path, directories separated by ':' (also --path)\n"
		"\n"
		"INI files are found as given, then in the -P directories, then beside the\n"
		"including file, then in <install>/share/tracekit/trace-linker, then among\n"
		"the built-in copies of the shipped files (rtld-base.ini, rtld-print.ini,\n"
		"rtld-trace-buffer.ini, libc*.ini, rtems*.ini).  See docs/TLD.md.\n"
		"\n"
		"Exit status: 0 linked, 3 bad option, 10 error (nothing is linked).\n",
		prog, TK_TLD_RTEMS_VERSION);
}

static int split_path(tld_argv *path, const char *arg)
{
	const char *s = arg;
	while (*s) {
		size_t n = strcspn(s, ":");
		if (n) {
			char *d = strndup(s, n);
			int rc = d ? tld_argv_add(path, d) : -1;
			free(d);
			if (rc)
				return -1;
		}
		s += n;
		if (*s == ':')
			s++;
	}
	return 0;
}

int tk_cmd_tld(int argc, char **argv)
{
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 1},
		{"verbose", no_argument, NULL, 'v'},
		{"warn", no_argument, NULL, 'w'},
		{"keep", no_argument, NULL, 'k'},
		{"compiler", required_argument, NULL, 'c'},
		{"linker", required_argument, NULL, 'l'},
		{"exec-prefix", required_argument, NULL, 'E'},
		{"cflags", required_argument, NULL, 'f'},
		{"rtems", required_argument, NULL, 'r'},
		{"rtems-bsp", required_argument, NULL, 'B'},
		{"wrapper", required_argument, NULL, 'W'},
		{"config", required_argument, NULL, 'C'},
		{"path", required_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	tld_opts o = {0};
	o.prog = argv[0];
	int rc = TLD_EXIT_OK;
	opterr = 0;
	optind = 1;
	int c;
	while (rc == TLD_EXIT_OK &&
	       (c = getopt_long(argc, argv, "hvwkVc:l:E:f:C:P:r:B:W:", longs, NULL)) != -1) {
		const char *err = NULL;
		switch (c) {
		case 'h':
			usage(stdout, o.prog);
			goto done;
		case 'V':
		case 1:
			/*
			 * -V, and --version of the alias, answer as rtems-tld does
			 * (scripts parse it); `tracekit tld --version` answers as
			 * every tracekit command.
			 */
			if (c == 'V' || !strcmp(argv[0], "rtems-tld"))
				printf("rtems-trace-ld (tracekit trace linker) %s, RTEMS revision %d\n",
				       TK_VERSION_STRING, TK_TLD_RTEMS_VERSION);
			else
				tk_cli_print_version(argv[0]);
			goto done;
		case 'v':
			o.verbose++;
			break;
		case 'w':
			o.warn = true;
			break;
		case 'k':
			o.keep = true;
			break;
		case 'c':
			o.cc = optarg;
			break;
		case 'l':
			o.ld = optarg;
			break;
		case 'E':
			o.exec_prefix = optarg;
			break;
		case 'f':
			if (tld_cflags_add(&o.cflags, optarg, &err)) {
				fprintf(stderr, "%s: error: -f %s: %s\n", o.prog, optarg, err);
				rc = TLD_EXIT_USAGE;
			}
			break;
		case 'r':
			o.rtems_path = optarg;
			break;
		case 'B':
			o.rtems_bsp = optarg;
			break;
		case 'W':
			o.wrapper = optarg;
			break;
		case 'C':
			o.config = optarg;
			break;
		case 'P':
			if (split_path(&o.path, optarg))
				rc = TLD_EXIT_ERROR;
			break;
		default:
			if (optopt && strchr("clEfrBWCP", optopt))
				fprintf(stderr, "%s: error: option -%c needs an argument\n", o.prog, optopt);
			else if (optopt)
				fprintf(stderr, "%s: error: invalid option -%c\n", o.prog, optopt);
			else
				fprintf(stderr, "%s: error: invalid option %s\n", o.prog, argv[optind - 1]);
			fprintf(stderr, "%s: the link command goes after --: %s [options] -- -o app "
					"main.o ...  (--help for the options)\n", o.prog, o.prog);
			rc = TLD_EXIT_USAGE;
		}
	}
	/* What getopt left (non-options it moved forward, then everything
	 * after --) is the link command, word for word. */
	for (int i = optind; rc == TLD_EXIT_OK && i < argc; i++)
		if (tld_argv_add(&o.link, argv[i]))
			rc = TLD_EXIT_ERROR;
	if (rc == TLD_EXIT_OK)
		rc = tld_run(&o);
done:
	tld_argv_free(&o.cflags);
	tld_argv_free(&o.path);
	tld_argv_free(&o.link);
	return rc;
}
