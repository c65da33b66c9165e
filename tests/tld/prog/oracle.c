/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The expected trace (oracle.h): formatted by hand, without printf, so
 * that it costs few instructions on a simulated Arm. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "oracle.h"

static char text[1 << 20];
static size_t used;
int oracle_off;

static void put(const char *s, size_t n)
{
	if (oracle_off)
		return;
	if (used + n > sizeof text)
		n = sizeof text - used;
	memcpy(text + used, s, n);
	used += n;
}

static void puts_(const char *s)
{
	put(s, strlen(s));
}

static void put_hex(uintptr_t v)
{
	char buf[2 * sizeof v + 1];
	int n = 0;
	do {
		buf[sizeof buf - 1 - ++n] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	put(buf + sizeof buf - 1 - n, (size_t)n);
}

static void put_dec(unsigned long v, int width)
{
	char buf[24];
	int n = 0;
	do {
		buf[sizeof buf - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		buf[sizeof buf - 1 - n++] = ' ';
	put(buf + sizeof buf - n, (size_t)n);
}

static void put_bytes(const void *value, size_t size)
{
	const unsigned char *b = value;
	for (size_t i = 0; i < size; i++) {
		char h[2] = {"0123456789abcdef"[b[i] >> 4], "0123456789abcdef"[b[i] & 15]};
		put(h, 2);
	}
	put("\n", 1);
}

static void func_line(const char *mark, const char *name, const void *addr)
{
	puts_(mark);
	puts_(name);
	puts_(" (0x");
#if defined(__arm__)
	put_hex((uintptr_t)addr & ~(uintptr_t)1);
#else
	put_hex((uintptr_t)addr);
#endif
	puts_(")\n");
}

void oracle_enter(const char *name, const void *addr)
{
	func_line(">>> ", name, addr);
}

void oracle_exit(const char *name, const void *addr)
{
	func_line("<<< ", name, addr);
}

void oracle_arg(int num, const char *type, const void *value, size_t size)
{
	puts_(" ");
	put_dec((unsigned long)num, 2);
	puts_("] ");
	puts_(type);
	puts_("(");
	put_dec(size, 0);
	puts_(") = ");
	put_bytes(value, size);
}

void oracle_ret(const char *type, const void *value, size_t size)
{
	puts_(" rt] ");
	puts_(type);
	puts_("(");
	put_dec(size, 0);
	puts_(") = ");
	put_bytes(value, size);
}

void oracle_flush(void)
{
	if (oracle_off)
		return;
	FILE *fp = fopen("oracle.txt", "wb");
	if (fp) {
		fwrite(text, 1, used, fp);
		fclose(fp);
	}
}
