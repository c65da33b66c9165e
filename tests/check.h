/* tracekit tests: a CHECK that reports the failing condition with a
 * message and counts failures (the test returns failures != 0). */
#ifndef TRACEKIT_TESTS_CHECK_H
#define TRACEKIT_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			failures++; \
		} \
	} while (0)

#endif
