/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program that crashes: the recorder must end the trace at the faulting
 * instruction, say what happened, and exit 1.  With the argument "udf" it
 * executes an undefined instruction instead of a bad store. */
#include "rt.h"

int main(int argc, char **argv)
{
	printf("about to fault\n");
	if (argc > 1 && !strcmp(argv[1], "udf"))
		__builtin_trap();
	*(volatile int *)0x7ffffff0 = 42;
	printf("not reached\n");
	return 0;
}
