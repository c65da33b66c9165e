/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tk_backtrace: return addresses of the running program from its frame
 * pointers, for bare-metal programs and hosts alike.  Freestanding C: no
 * C library, no heap, no DWARF; copy tk_backtrace.c and this file into a
 * program and build them (and the code to walk) with frame pointers
 * (-fno-omit-frame-pointer).
 *
 * tk_return_address(0) is the address the calling function will return
 * to (what __builtin_return_address(0) gives inside it), 1 that of its
 * caller, and so on; NULL past the outermost frame or where the chain is
 * broken.  tk_backtrace(buf, max) stores tk_return_address(0), (1), ...
 * into buf (at most max) and returns how many it stored.  Addresses have
 * no Thumb bit.  `tracekit addr2line -e PROGRAM.elf` names them (ask for
 * address - 1: the line of the call, as a debugger does).
 *
 * Frame records, by target:
 *   AArch64       {x29, x30} at x29 (the AAPCS64 frame record)
 *   Arm (A32)     GCC's default: lr at fp, the caller's fp at fp - 4;
 *                 with -DTK_BT_APCS, APCS frames (-mapcs-frame): lr at
 *                 fp - 4, the caller's fp at fp - 12
 *   x86-64 host   {rbp, return address} at rbp
 * The walk stops at a zero, misaligned or non-increasing frame pointer, or
 * a zero return address.
 *
 * Thumb (AArch32 Thumb, and every M-profile core): GCC's Thumb frame
 * pointer r7 points below a function's locals, at a distance only the
 * function's own code knows, so the chain cannot be walked without debug
 * information.  Only n = 0 is supported there (tk_return_address(n > 0) is
 * NULL and tk_backtrace stores one address); both are then macros that
 * read the calling function's own return address.
 */
#ifndef TK_BACKTRACE_H
#define TK_BACKTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__thumb__) && !defined(__aarch64__)
#define tk_return_address(n)                                                     \
	((n) == 0 ? (void *)((unsigned long)__builtin_return_address(0) & ~1ul) : (void *)0)
#define tk_backtrace(buf, max)                                                   \
	((max) > 0 ? ((buf)[0] = tk_return_address(0), 1) : 0)
#else
void *tk_return_address(unsigned n);
int tk_backtrace(void **buf, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
