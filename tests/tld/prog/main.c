/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The call sequence of the trace linker tests.  Exits 0 when every result
 * is right (the wrappers must not change them).  With -DRTRACE_SAVE it
 * also writes rtrace.bin the way RTEMS's `rtrace save` does. */
#include "api.h"
#include "oracle.h"

#ifdef RTRACE_SAVE
int rtrace_save(const char *path);
#endif

static int calls;

static void count(int i)
{
	calls += i + 1;
}

static struct big big_arg;
#ifndef NO_HUGE
static struct huge huge_arg;
#endif

int main(void)
{
	int bad = 0;
	bad |= add(2, 3) != 5;
	bad |= mul64(-40000000000LL, 3) != -120000000000LL;
	bad |= scale(1.5, 2.0f) != 3.0;
	struct vec3 a = {1, 2, 3}, b = {0.5f, -1, 4};
	bad |= vlen2(&a) != 14.0f;
	struct vec3 c = vadd(a, b);
	bad |= c.x != 1.5f || c.y != 1 || c.z != 7;
	unsigned want = 0;
	for (unsigned i = 0; i < sizeof big_arg.b; i++)
		want += big_arg.b[i] = (unsigned char)(i * 3 + 1);
	bad |= sum_big(big_arg) != want;
#ifndef NO_HUGE
	want = 0;
	for (unsigned i = 0; i < sizeof huge_arg.b; i++)
		want += huge_arg.b[i] = (unsigned char)(i * 7 + 5);
	bad |= sum_huge(huge_arg) != want;
#endif
	note("hello");
	tick();
	char name[16];
	bad |= copy_name(name, "tracekit", sizeof name) != name;
	bad |= name[0] != 't';
	bad |= each(count, 3) != 3 || calls != 6;
	bad |= is_even(7) != 0;
	oracle_flush();
#ifdef RTRACE_SAVE
	bad |= rtrace_save("rtrace.bin") != 0;
#endif
	return bad;
}
