/* tracekit tests: a minimal assertion helper shared by the parser tests. */
#ifndef TRACEKIT_TESTS_CHECK_H
#define TRACEKIT_TESTS_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                        \
		}                                                                \
	} while (0)

/* Same, with a printf-style explanation. */
#define CHECKF(cond, ...)                                                        \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                            \
			fputc('\n', stderr);                                     \
			check_failures++;                                        \
		}                                                                \
	} while (0)

static inline int check_report(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
	else
		printf("%s: all checks passed\n", name);
	return check_failures ? 1 : 0;
}

#endif
