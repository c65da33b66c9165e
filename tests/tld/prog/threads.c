/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Four threads each call add() (another object) CALLS times, at the same
 * time: the trace buffer's atomic allocation must keep every record. */
#include <pthread.h>
#include <stdlib.h>

#include "api.h"
#include "oracle.h"

#define THREADS 4
#define CALLS 2000

static void *worker(void *arg)
{
	long bad = 0;
	for (int i = 0; i < CALLS; i++)
		bad |= add(i, (int)(long)arg) != i + (int)(long)arg;
	return (void *)bad;
}

int main(void)
{
	pthread_t t[THREADS];
	oracle_off = 1;
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 2;
	long bad = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad |= (long)r;
	}
	return bad ? 1 : 0;
}
