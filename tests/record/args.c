/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line as the program sees it: tracekit record quotes each
 * argument for the start-up code's splitter (newlib's: blanks separate, an
 * argument starting with " or ' runs to the same quote, no escapes), so
 * blanks, quotes, backslashes and empty arguments arrive intact.  argv[0]
 * (the ELF's path) is not printed: it depends on the build directory. */
#include "rt.h"

int main(int argc, char **argv)
{
	printf("argc %d\n", argc);
	for (int i = 1; i < argc; i++)
		printf("argv[%d] [%s] %d\n", i, argv[i], (int)strlen(argv[i]));
	return argc;
}
