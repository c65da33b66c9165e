/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The backtrace tests' program: nested calls (9 deep), recursion, calls
 * through function pointers and leaves, each instrumented function keeping
 * a shadow stack of its return address.  At each call of bt_mark() the
 * program prints what a backtrace from bt_mark's entry must show:
 *
 *   mark ID: RA1 RA2 ... | tk: RA1 RA2 ...
 *
 * RA1 is bt_mark's own return address (frame #1), then the shadow stack
 * from the innermost function out (frames #2...); after "|" what the
 * runtime's tk_backtrace() found, where it can walk (not in Thumb code,
 * where it gives only RA1).  Then it damages its own frame chain in four
 * ways (a loop, a misaligned pointer, a pointer to memory never touched, a
 * pointer into code), marking each time (marks 10 to 13), and repairs it.
 * Built for A32 (GCC frames and -mapcs-frame), T32, M3, M4 and A64 with
 * -fno-omit-frame-pointer. */
#include <stdint.h>

#include "../record/rt.h"
#include "../../runtime/tk_backtrace.h"

#define NOIPA __attribute__((noipa))
#define MAXSHADOW 64

uintptr_t shadow[MAXSHADOW];
int sdepth;
volatile int sink;
/* Memory the program never reads or writes. */
uintptr_t untouched[64];

#define ENTER() (shadow[sdepth++] = (uintptr_t)__builtin_return_address(0))
#define LEAVE() (sdepth--)

static void put_hex(uintptr_t v)
{
	printf(" %lx", (unsigned long)(v & ~(uintptr_t)1));
}

NOIPA void bt_mark(int id)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	void *buf[MAXSHADOW];
	/* Not over a damaged chain: it may point to unmapped memory. */
	int n = id < 10 ? tk_backtrace(buf, MAXSHADOW) : 0;
	printf("mark %d:", id);
	put_hex(ra);
	for (int i = sdepth; i-- > 0;)
		put_hex(shadow[i]);
	printf(" | tk:");
	for (int i = 0; i < n && i <= sdepth; i++)
		put_hex((uintptr_t)buf[i]);
	printf("\n");
}

NOIPA int leaf_add(int a, int b)
{
	return a + b;
}

NOIPA int leaf_mul(int a, int b)
{
	return a * b + sink;
}

#define LEVEL(n, next)                                                           \
	NOIPA int level##n(int x)                                                \
	{                                                                        \
		ENTER();                                                         \
		int r = next(leaf_add(x, n));                                    \
		r = leaf_mul(r, 3);                                              \
		LEAVE();                                                         \
		return r;                                                        \
	}

NOIPA int level9(int x)
{
	ENTER();
	bt_mark(1);
	LEAVE();
	return x + 1;
}
LEVEL(8, level9)
LEVEL(7, level8)
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)

NOIPA int recurse(int n)
{
	ENTER();
	int r;
	if (n == 0) {
		bt_mark(2);
		r = 0;
	} else {
		r = recurse(n - 1) + leaf_add(n, 1);
	}
	LEAVE();
	return r;
}

typedef int (*fn)(int);
NOIPA int via_a(int x);
NOIPA int via_b(int x);
fn table[2] = {via_a, via_b};

NOIPA int via_b(int x)
{
	ENTER();
	bt_mark(3);
	LEAVE();
	return x * 2;
}
NOIPA int via_a(int x)
{
	ENTER();
	fn f = table[x > 0];
	int r = x > 0 ? f(x - 1) : 0;
	LEAVE();
	return r;
}

/* ---- damaged chains ---- */

/* Where this function's frame record keeps the caller's frame pointer
 * (fp: its frame register, ra: its own return address). */
static uintptr_t *saved_fp_slot(uintptr_t fp, uintptr_t ra)
{
#if defined(__aarch64__)
	(void)ra;
	return (uintptr_t *)fp;
#elif defined(__thumb__)
	/* r7 points below the locals: find the saved lr above it; the saved
	 * r7 is the word below (push {..., r7, lr}). */
	uintptr_t *p = (uintptr_t *)fp;
	for (int i = 0; i < 64; i++)
		if (p[i] == ra)
			return &p[i - 1];
	return (uintptr_t *)untouched;
#elif defined(TK_BT_APCS)
	(void)ra;
	return (uintptr_t *)fp - 3;
#else
	(void)ra;
	return (uintptr_t *)fp - 1;
#endif
}

/* In Thumb code the search above needs {r7, lr} next to each other: built
 * without optimisation, damage() pushes just those. */
#if defined(__thumb__) && !defined(__aarch64__)
#define DAMAGE_FN __attribute__((noipa, optimize("O0")))
#else
#define DAMAGE_FN NOIPA
#endif

DAMAGE_FN void damage(int kind)
{
	ENTER();
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t *slot = saved_fp_slot(fp, (uintptr_t)__builtin_return_address(0));
	uintptr_t keep = *slot;
	switch (kind) {
	case 0: *slot = fp; break;				/* a loop */
	case 1: *slot = keep + 2; break;			/* misaligned */
	case 2: *slot = (keep + 0x100000) & ~(uintptr_t)15; break; /* never touched */
	case 3: *slot = ((uintptr_t)&leaf_mul + 64) & ~(uintptr_t)15; break; /* code */
	}
	__asm__ volatile("" ::: "memory");
	bt_mark(10 + kind);
	*slot = keep;
	__asm__ volatile("" ::: "memory");
	LEAVE();
}

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
/* An M-profile exception: the handler is entered with an EXC_RETURN value
 * in lr, pushes it in its frame record, and the walk must stop there.
 * (The recorder takes no real exception: a branch with lr set by hand makes
 * the same frame, and longjmp leaves the handler.) */
#include <setjmp.h>
static jmp_buf exc_jb;

NOIPA void isr_body(void)
{
	bt_mark(20);
	if (sink != 12345)
		longjmp(exc_jb, 1);
}

__attribute__((naked)) void fake_exception(void)
{
	__asm__ volatile("ldr lr, =0xfffffff9\n\tb isr_body\n\t.ltorg");
}
#define EXCEPTION_TEST 1
#endif

int main(void)
{
#ifdef __aarch64__
	/* The outermost frame is main's, as on Arm where newlib's start-up
	 * clears fp before calling main: the start-up (tk_rt_start) never
	 * returns, so the call tree has no activation for it. */
	((uintptr_t *)__builtin_frame_address(0))[0] = 0;
#endif
	ENTER();
	int r = level1(1);
	r += recurse(12);
	r += table[0](3);
	r += leaf_add(r, 5);
	for (int k = 0; k < 4; k++)
		damage(k);
#ifdef EXCEPTION_TEST
	if (!setjmp(exc_jb))
		fake_exception();
#endif
	printf("done %d\n", r);
	LEAVE();
	return 0;
}
