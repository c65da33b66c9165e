/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The C library the recorder's test programs use: newlib with semihosting
 * (rdimon) on AArch32, the tiny runtime in a64/ on AArch64.  Only what
 * both provide. */
#ifndef TK_RECORD_TEST_RT_H
#define TK_RECORD_TEST_RT_H

#ifdef __aarch64__
#include <stddef.h>
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int puts(const char *s);
int putchar(int c);
size_t strlen(const char *s);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int strcmp(const char *a, const char *b);
int atoi(const char *s);
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

/* Keep a function as its own symbol with its own calls, whatever the
 * optimisation level, so the call tree can be checked. */
#define TK_FUNC __attribute__((noipa))

#endif
