/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The test programs' start-up under qemu-ppc64le (Linux user mode, ELFv2):
 * set the TOC pointer, end the stack's back chain, call main, exit with
 * its return value. */
	.abiversion 2
	.text
	.globl	_start
	.type	_start, @function
_start:
	lis	2, .TOC.@ha
	addi	2, 2, .TOC.@l
	li	0, 0
	stdu	0, -32(1)
	bl	main
	nop
	li	0, 1		/* exit(r3) */
	sc
	b	.
	.size	_start, .-_start
	.section .note.GNU-stack, "", @progbits
