/* SPDX-License-Identifier: GPL-3.0-or-later */
/* AArch64 start-up for the recorder's test programs: ask the debugger
 * (semihosting SYS_HEAPINFO) where the stack is, clear .bss, run the C
 * start-up.  Runs at whatever exception level the core starts in. */
	.section .text.start, "ax"
	.global _start
	.type _start, %function
_start:
	mov	x0, #0x16		/* SYS_HEAPINFO */
	adr	x1, heapinfo_ptr
	hlt	#0xf000
	adr	x1, heapinfo
	ldr	x2, [x1, #16]		/* stack base */
	cbz	x2, 1f
	mov	sp, x2
1:	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
2:	cmp	x0, x1
	b.hs	3f
	str	xzr, [x0], #8
	b	2b
3:	bl	tk_rt_start
	b	.
	.size _start, . - _start

	.data
	.balign 8
heapinfo_ptr:
	.quad	heapinfo
heapinfo:
	.quad	0, 0, 0, 0
