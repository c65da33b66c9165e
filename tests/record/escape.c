/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program trying to reach files outside its working directory through
 * semihosting, as a hostile one would (the test sets up the links; see
 * tests/record/check.sh, step "escape"): through a dangling link, "..",
 * a link to a directory outside, a rename out, and a name with a NUL byte
 * inside its length (which must be refused, not cut short).  Files inside
 * work as usual, and removing a link removes the link, not its target. */
#include <stdio.h>
#include <string.h>

/* A raw semihosting call (newlib always passes NUL-terminated names). */
static int semihost(int op, void *arg)
{
	register int r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;
#if defined(__thumb__)
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
	__asm__ volatile("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
#endif
	return r0;
}

static const char *try_write(const char *name)
{
	FILE *f = fopen(name, "w");
	if (!f)
		return "refused";
	fputs("written by the traced program\n", f);
	fclose(f);
	return "written";
}

/* SYS_RENAME (newlib's rename() does not make it: it links and unlinks,
 * which rdimon cannot). */
static const char *try_rename(const char *from, const char *to)
{
	unsigned block[4] = {(unsigned)from, strlen(from), (unsigned)to, strlen(to)};
	return semihost(0x0F, block) ? "refused" : "done";
}

int main(void)
{
	printf("dangling link out: %s\n", try_write("escape-link"));
	printf("dot-dot: %s\n", try_write("sub/../../outside/dotdot.txt"));
	printf("link to a directory outside: %s\n", try_write("dirlink/through-dir.txt"));
	printf("inside: %s\n", try_write("sub/inner.txt"));
	printf("rename out: %s\n", try_rename("sub/inner.txt", "../outside/moved.txt"));
	printf("rename inside: %s\n", try_rename("sub/inner.txt", "renamed.txt"));
	printf("remove a link: %s\n", remove("victim-link") ? "refused" : "done");

	/* SYS_OPEN with the length covering a NUL: "nul.txt\0../x". */
	static char name[] = "nul.txt\0../nul-escape.txt";
	unsigned block[3] = {(unsigned)name, 4 /* "w" */, sizeof name - 1};
	int h = semihost(0x01, block);
	int err = semihost(0x13, NULL);		/* SYS_ERRNO */
	printf("name with a NUL inside: %s, errno %d\n", h == -1 ? "refused" : "opened", err);
	return 0;
}
