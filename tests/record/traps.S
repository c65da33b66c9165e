/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The semihosting traps newlib does not use: A32 HLT #0xF000, and Thumb
 * HLT #0x3C (the specification's) and HLT #0x3F.  Prints three lines via
 * SYS_WRITE0 and exits via SYS_EXIT. */
	.syntax unified
	.arm
	.global _start
_start:
	mov r0, #4
	adr r1, msg
	.inst 0xe10f0070   @ HLT #0xF000 (older assemblers lack HLT)
	blx tcode
	mov r0, #0x18
	ldr r1, =0x20026
	.inst 0xe10f0070
msg: .asciz "hello from A32 HLT\n"
	.align 2
	.thumb
	.thumb_func
tcode:
	movs r0, #4
	adr r1, tmsg
	.short 0xbabc      @ HLT #0x3C
	movs r0, #4
	adr r1, tmsg2
	.short 0xbabf      @ HLT #0x3F
	bx lr
	.align 2
tmsg: .asciz "hello from T32 HLT 3C\n"
	.align 2
tmsg2: .asciz "hello from T32 HLT 3F\n"
