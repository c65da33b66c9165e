/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nest_main [REPEAT [THREADS]]: each of THREADS threads (the main thread
 * when THREADS is 1) calls outer(3) REPEAT times; then main calls leaf()
 * 5 times.  Per thread: REPEAT outer, 3 x REPEAT inner, 6 x REPEAT leaf. */
#include <pthread.h>
#include <stdlib.h>

#include "nest.h"

static long repeat = 10;

static void *worker(void *arg)
{
	(void)arg;
	long bad = 0;
	for (long r = 0; r < repeat; r++)
		bad |= outer(3) != 18;	/* (0+2) + (2+4) + (4+6) */
	return (void *)bad;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		repeat = atol(argv[1]);
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	long bad = 0;
	if (threads <= 1) {
		bad = (long)worker(NULL);
	} else {
		pthread_t t[16];
		if (threads > 16)
			threads = 16;
		for (int i = 0; i < threads; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				return 2;
		for (int i = 0; i < threads; i++) {
			void *r;
			pthread_join(t[i], &r);
			bad |= (long)r;
		}
	}
	for (int i = 0; i < 5; i++)
		bad |= leaf(i) != 2 * i;
	return bad != 0;
}
