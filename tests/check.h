/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit tests: the one assertion helper of every unit test.
 *
 *   CHECK(cond)            a failing condition is printed with file and line
 *   CHECKF(cond, fmt, ...) the same, with a printf-style explanation
 *   CHECK_EQ(a, b)         two integers (as unsigned long long) are equal
 *   CHECK_STR(a, b)        two C strings are equal
 *   check_at(ok, file, line, fmt, ...)  a helper's check, at its caller's line
 *   check_report(name)     prints a summary; returns the exit status (0/1)
 *
 * Checks count and go on, so one run reports every failure. */
#ifndef TRACEKIT_TESTS_CHECK_H
#define TRACEKIT_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static unsigned long check_passes;

/* For helpers that check on their caller's behalf: the caller's file and
 * line are reported. */
static inline __attribute__((format(printf, 4, 5), unused)) void
check_at(int ok, const char *file, int line, const char *fmt, ...)
{
	if (ok) {
		check_passes++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%d: check failed: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	check_failures++;
}

#define CHECK(cond) CHECKF(cond, "%s", "")

#define CHECKF(cond, ...)                                                              \
	do {                                                                           \
		if (cond) {                                                            \
			check_passes++;                                                \
		} else {                                                               \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			check_failures++;                                              \
		}                                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                                 \
	do {                                                                           \
		unsigned long long check_a_ = (unsigned long long)(a);                 \
		unsigned long long check_b_ = (unsigned long long)(b);                 \
		CHECKF(check_a_ == check_b_, "%s = %llu (0x%llx), expected %llu (0x%llx)", \
		       #a, check_a_, check_a_, check_b_, check_b_);                    \
	} while (0)

#define CHECK_STR(a, b)                                                                \
	do {                                                                           \
		const char *check_a_ = (a), *check_b_ = (b);                           \
		CHECKF(check_a_ && check_b_ && !strcmp(check_a_, check_b_),            \
		       "got \"%s\", expected \"%s\"", check_a_ ? check_a_ : "(null)",  \
		       check_b_ ? check_b_ : "(null)");                               \
	} while (0)

static inline int check_report(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed, %lu passed\n", name, check_failures,
			check_passes);
	else
		printf("%s: all %lu checks passed\n", name, check_passes);
	return check_failures ? 1 : 0;
}

#endif
