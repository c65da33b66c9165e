# SPDX-License-Identifier: GPL-3.0-or-later
# addr2line corner cases (x86-64, no DWARF): several function-like symbols
# starting at one address.  binutils takes the largest of them, the first
# of equal ones in the symbol table, whatever their types; a query inside a
# symbol is answered from the last one found.
	.text
	.globl small1, big2, main, big3, small4, nt5, fn6, aa, bb
	.type small1,@function
	.type big2,@function
	.type main,@function
	.type big3,@function
	.type small4,@function
	.type fn6,@function
	.type aa,@function
	.type bb,@function
small1:
big2:
	.fill 8, 1, 0x90
	ret
	.size small1, 4
	.size big2, 9
main:
	ret
	.size main, 1
big3:
small4:
	.fill 5, 1, 0x90
	ret
	.size big3, 6
	.size small4, 2
nt5:
fn6:
	.fill 8, 1, 0x90
	ret
	.size nt5, 9
	.size fn6, 4
aa:
bb:
	.fill 2, 1, 0x90
	ret
	.size aa, 3
	.size bb, 3
