#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `a` and Return on the LD/ST lines of an ES-style trace (16 bytes shown,
# only some of them accessed): the previous write of just the accessed
# bytes, and, when there is none, a message naming the memory plainly
# ("memory at 0x200167", not "0x200167..0x200167").
. "$(dirname "$0")/lib.sh" ldst
start 130 40 "$TK_TRACES/calculator-aarch64-es-ld-st-style.tarmac"
# Line 36: LDRB w8,[x0] reads the string byte at 0x200167 (the MSB of the
# third word of the LD line); nothing in the trace wrote it.
goto_line 36
wait_for 'Line: 36  Time: 0  .*Pos: 15/'
keys a
wait_attr 'LD 0000000000200160' '43m'
keys Enter
wait_for '^no earlier write to memory at 0x200167 in the trace'
# Line 34, ST of x0/x8 by STP at [sp,#8]: the first ST line's accessed
# bytes (0xffb70..0xffb77) were never written before; the second's
# (0xffb68..0xffb6f) neither.  Its x8 register line goes to MOV w8,w1.
goto_line 33
wait_for 'Line: 33  Time: 0  .*Pos: 14/'
keys a
wait_attr 'ST 00000000000ffb70' '43m'
keys Enter
wait_for '^no earlier write to memory 0xffb70..0xffb77 in the trace'
keys q
wait_for '\[exited\] 0'
pass
