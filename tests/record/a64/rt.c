/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A tiny freestanding C runtime for the AArch64 test programs, over Arm
 * semihosting (HLT #0xF000): the command line, console output through a
 * ":tt" handle, exit status via SYS_EXIT. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../rt.h"

enum { SYS_OPEN = 0x01, SYS_WRITE = 0x05, SYS_GET_CMDLINE = 0x15, SYS_EXIT = 0x18 };

static long semihost(long op, void *arg)
{
	register long x0 __asm__("x0") = op;
	register void *x1 __asm__("x1") = arg;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	return x0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int atoi(const char *s)
{
	int neg = *s == '-', v = 0;
	if (*s == '-' || *s == '+')
		s++;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return neg ? -v : v;
}

/* ---- console ---- */

static long console = -1;
static char obuf[256];
static size_t olen;

static void flush(void)
{
	if (!olen)
		return;
	if (console < 0) {
		long open_args[3] = {(long)":tt", 4, 3};	/* mode 4: "w" */
		console = semihost(SYS_OPEN, open_args);
	}
	long write_args[3] = {console, (long)obuf, (long)olen};
	semihost(SYS_WRITE, write_args);
	olen = 0;
}

int putchar(int c)
{
	obuf[olen++] = (char)c;
	if (c == '\n' || olen == sizeof obuf)
		flush();
	return (unsigned char)c;
}

int puts(const char *s)
{
	while (*s)
		putchar(*s++);
	putchar('\n');
	return 0;
}

static void put_field(const char *s, size_t n, int width, int left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;
	if (!left)
		while (fill-- > 0)
			putchar(pad);
	for (size_t i = 0; i < n; i++)
		putchar(s[i]);
	if (left)
		while (fill-- > 0)
			putchar(' ');
}

/* %d %i %u %x %X %c %s %p %%, with l/ll, width, '-' and '0'. */
int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			putchar(*fmt);
			continue;
		}
		fmt++;
		int left = 0, width = 0, lng = 0;
		char pad = ' ';
		for (; *fmt == '-' || *fmt == '0'; fmt++)
			if (*fmt == '-')
				left = 1;
			else
				pad = '0';
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		for (; *fmt == 'l'; fmt++)
			lng++;
		char tmp[24], *end = tmp + sizeof tmp, *p = end;
		unsigned long long u;
		int neg = 0;
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			neg = v < 0;
			u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
			do
				*--p = (char)('0' + u % 10);
			while (u /= 10);
			if (neg) {
				if (pad == '0' && width > 0) {
					putchar('-');
					width--;
				} else {
					*--p = '-';
				}
			}
			put_field(p, (size_t)(end - p), width, left, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'p': {
			if (*fmt == 'p')
				u = (uintptr_t)va_arg(ap, void *);
			else
				u = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned);
			unsigned base = *fmt == 'u' ? 10 : 16;
			const char *digits = *fmt == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
			do
				*--p = digits[u % base];
			while (u /= base);
			if (*fmt == 'p') {
				*--p = 'x';
				*--p = '0';
			}
			put_field(p, (size_t)(end - p), width, left, pad);
			break;
		}
		case 'c':
			tmp[0] = (char)va_arg(ap, int);
			put_field(tmp, 1, width, left, ' ');
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			put_field(s, strlen(s), width, left, ' ');
			break;
		}
		case '%':
			putchar('%');
			break;
		default:
			putchar('%');
			if (!*fmt)
				fmt--;
			else
				putchar(*fmt);
		}
	}
	va_end(ap);
	return 0;
}

/* ---- start-up and exit ---- */

int main(int argc, char **argv);

static void exit_program(int status)
{
	flush();
	long block[2] = {0x20026, status};	/* ADP_Stopped_ApplicationExit */
	semihost(SYS_EXIT, block);
	for (;;)
		;
}

/* Split the command line as newlib's start-up code does, so the programs
 * see the same argv on every architecture: at blanks; an argument that
 * starts with " or ' runs to the next same quote; no escapes. */
static int split(char *s, char **argv, int max)
{
	int argc = 0;
	while (*s && argc < max) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		char end = ' ';
		if (*s == '"' || *s == '\'')
			end = *s++;
		argv[argc++] = s;
		while (*s && *s != end)
			s++;
		if (*s)
			*s++ = 0;
	}
	argv[argc] = NULL;
	return argc;
}

void tk_rt_start(void)
{
	static char cmdline[1024];
	static char *argv[33];
	long block[2] = {(long)cmdline, sizeof cmdline};
	int argc = 0;
	if (semihost(SYS_GET_CMDLINE, block) == 0)
		argc = split(cmdline, argv, 32);
	exit_program(main(argc, argv));
}
