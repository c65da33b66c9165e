/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Semihosting file access through newlib: write, reread, seek, measure
 * and remove a file (argv[1], in the working directory); then try a file
 * outside it (argv[2], an absolute path, and "../"), which the recorder
 * refuses unless --allow-fs.  The clocks count instructions (a 100 MHz
 * clock), so clock() first moves after a million instructions. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 3;
	fputs("hello file\n", f);
	fprintf(f, "%d\n", 1234);
	fclose(f);

	char buf[64] = "";
	f = fopen(argv[1], "r");
	if (!f)
		return 4;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 6, SEEK_SET);
	fgets(buf, sizeof buf, f);
	fclose(f);
	printf("length %ld, from offset 6: %s", n, buf);
	printf("removed: %s\n", remove(argv[1]) == 0 ? "yes" : "no");
	printf("reopened after remove: %s\n", fopen(argv[1], "r") ? "yes" : "no");

	FILE *g = fopen(argv[2], "r");
	printf("absolute path: %s\n", g ? "opened" : "refused");
	if (g)
		fclose(g);
	g = fopen("../tracekit-record-outside.txt", "r");
	printf("parent directory: %s\n", g ? "opened" : "refused");
	if (g)
		fclose(g);

	/* Run until the clock moves (one hundredth of a second: a million
	 * instructions). */
	volatile unsigned spin = 0;
	clock_t c;
	do {
		for (unsigned i = 0; i < 10000; i++)
			spin += i;
	} while ((c = clock()) == 0);
	printf("clock %ld, time %ld, stdout is a tty: %d\n", (long)c, (long)time(NULL), isatty(1));
	return 0;
}
