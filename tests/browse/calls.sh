#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The call-stack pane (c): the chain of active calls with symbols, each
# selectable to go to its call site.
. "$(dirname "$0")/lib.sh" calls
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"

keys c
# With --image the pane shows the frame walk first: C (in the pane) switches
# to the call tree's stack.
keys Tab Tab C Tab
wait_for '^ Call stack \(0 active\)'
wait_for '^#0 +_start \(top level of the trace, from line 157\)'

# Line 1490 (time 691) is four recursive calls deep inside quicksort.
keys l
type_text 1490
keys Enter
wait_for 'Time: 691  .*Pos: 691/2044'
wait_for '^ Call stack \(5 active\)'
wait_for '^#0 +quicksort  called from line 1470 \(pc 0x8078, time 685\)'
wait_for '^#3 +quicksort  called from line 858 \(pc 0x8078, time 366\)'
wait_for '^#4 +quicksort  called from line 175 \(pc 0x8020, time 9\)'
wait_for '^#5 +_start'

# Select #1 and go to its call site: just before the BL of line 1409.
keys Tab Tab
keys Down Enter
wait_for 'Line: 1407  Time: 654  .*Pos: 654/2044'
wait_for '^ Call stack \(3 active\)'
m=$(marker_row)
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '^655 clk IT (655) 00008078 97fffff0' ||
	fail "the call instruction is not just below the marker"
# The top level has no call site.
keys Down Down Down Enter
wait_for 'the top level has no call site'
keys q
wait_for '\[exited\] 0'
pass
