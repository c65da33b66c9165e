#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Address expressions name the registers of the position's instruction set:
# x0 / w1 in AArch32 code and r0 in AArch64 code are refused as such (not
# "not known at this position"); lr is x30 in AArch64 code.
. "$(dirname "$0")/lib.sh" regisa

mem_expr() {
	keys m
	wait_for 'Memory address:'
	type_text "$1"
	keys Enter
}

start 120 40 "$TK_TRACES/calculator-aarch32-fastmodel.tarmac"
goto_line 91		# MOV r0,#0x100000
wait_for 'Line: 91  Time: 1  .*Pos: 1/5104'
mem_expr x0
wait_for 'x0 does not exist in AArch32 \(the instruction set here\): use r0-r12, sp, lr, pc'
expect_no 'not known at this position'
mem_expr 'w1+4'
wait_for 'w1 does not exist in AArch32'
# The AArch32 names work (and an unknown one still says so).
mem_expr 'r0+0x10'
wait_for ' Memory: r0\+0x10 .*0x00100010 *$'
mem_expr r5
wait_for 'r5 is not known at this position'
keys q
wait_for '\[exited\] 0'
new_server

start 120 40 "$TK_TRACES/quicksort.tarmac"
goto_line 175		# BL quicksort: x30 = 0x8024
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
mem_expr r0
wait_for 'r0 does not exist in AArch64 \(the instruction set here\): use x0-x30, w0-w30, sp, lr, pc'
mem_expr lr
wait_for ' Memory: lr .*0x00008024 *$'
mem_expr 'x0'
wait_for ' Memory: x0 .*0x000080fc *$'
keys q
wait_for '\[exited\] 0'
pass
