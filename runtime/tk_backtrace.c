/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tk_backtrace: the frame-pointer walk (see tk_backtrace.h).
 *
 * Both entry points call the walk as a real function, so they have a
 * complete frame record of their own whatever the optimisation (a leaf
 * would keep lr in its register, and GCC's Arm leaves push only fp); the
 * walk starts from that record and skips it.  Build with
 * -fno-omit-frame-pointer.
 */
#include <stddef.h>
#include <stdint.h>

#include "tk_backtrace.h"

#if !(defined(__thumb__) && !defined(__aarch64__))

#if defined(__aarch64__)
/* {caller's x29, x30} at x29. */
#define TK_BT_ALIGN 8u
#define TK_BT_NEXT(fp) (((uintptr_t *)(fp))[0])
#define TK_BT_RA(fp) (((uintptr_t *)(fp))[1])
#elif defined(__x86_64__)
/* {caller's rbp, return address} at rbp. */
#define TK_BT_ALIGN 8u
#define TK_BT_NEXT(fp) (((uintptr_t *)(fp))[0])
#define TK_BT_RA(fp) (((uintptr_t *)(fp))[1])
#elif defined(__arm__) && defined(TK_BT_APCS)
/* APCS: {fp, ip, lr, pc} pushed, fp pointing at the saved pc. */
#define TK_BT_ALIGN 4u
#define TK_BT_NEXT(fp) (((uintptr_t *)(fp))[-3])
#define TK_BT_RA(fp) (((uintptr_t *)(fp))[-1])
#elif defined(__arm__)
/* GCC's default: {fp, lr} pushed, fp pointing at the saved lr. */
#define TK_BT_ALIGN 4u
#define TK_BT_NEXT(fp) (((uintptr_t *)(fp))[-1])
#define TK_BT_RA(fp) (((uintptr_t *)(fp))[0])
#else
#error "tk_backtrace: unsupported target (AArch64, Arm, x86-64)"
#endif

#if defined(__clang__)
#define TK_BT_NOINLINE __attribute__((noinline))
#else
#define TK_BT_NOINLINE __attribute__((noinline, noclone))
#endif

/* Store the return addresses of the frames above `fp`'s frame, skipping
 * `skip` of them, into buf; return how many. */
TK_BT_NOINLINE static int walk(uintptr_t fp, unsigned skip, void **buf,
						   int max)
{
	int n = 0;
	while (n < max) {
		if (fp == 0 || fp % TK_BT_ALIGN != 0)
			break;
		uintptr_t ra = TK_BT_RA(fp);
#if defined(__arm__)
		ra &= ~(uintptr_t)1;	/* the Thumb bit */
#endif
		uintptr_t next = TK_BT_NEXT(fp);
		if (ra == 0)
			break;
		if (skip)
			skip--;
		else
			buf[n++] = (void *)ra;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

void *tk_return_address(unsigned n)
{
	void *buf[1] = {NULL};
	int got = 0;
	/* Our own frame, then n frames, then the one wanted. */
	if (n < 0x7fffffffu)
		got = walk((uintptr_t)__builtin_frame_address(0), 1 + n, buf, 1);
	/* Keep the call a call (no tail call): our frame must stay. */
	__asm__ volatile("" ::: "memory");
	return got ? buf[0] : NULL;
}

int tk_backtrace(void **buf, int max)
{
	int n = max > 0 ? walk((uintptr_t)__builtin_frame_address(0), 1, buf, max) : 0;
	__asm__ volatile("" ::: "memory");
	return n;
}

#endif
