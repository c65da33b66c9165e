/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program that never ends: it waits for console input for ever (the
 * recorder test interrupts it with SIGINT or SIGTERM, and the trace so far
 * must be kept). */
#include <stdio.h>

int main(void)
{
	printf("waiting\n");
	fflush(stdout);
	for (;;)
		getchar();
}
