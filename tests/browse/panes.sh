#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pane toggles (r S D V M c), Tab focus, < > resizing, locking a register
# pane to a line or time (l, t, Ctrl-L), and `a` in a register pane.
. "$(dirname "$0")/lib.sh" panes
start 120 50 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"
wait_for '^ Core registers \(AArch64\)'

keys r
wait_gone 'Core registers'
keys r
wait_for '^ Core registers \(AArch64\)'
keys S
wait_for '^ Single-precision FP registers'
wait_for 's31 +00000000 0( |$)'
keys S D
wait_gone 'Single-precision'
wait_for '^ Double-precision FP registers'
wait_for 'd17 +0000000000000000 0( |$)'
keys D V
wait_gone 'Double-precision'
wait_for '^ NEON vector registers'
wait_for 'v31 +00000000000000000000000000000000'
keys V M
wait_gone 'NEON'
wait_for '^ MVE vector registers'
wait_for 'q7 +[0-9a-f?]{32}'
wait_for 'vpr +[0-9a-f?]{8}'
keys M
wait_gone 'MVE'

# < and > resize the focused register pane; the trace takes the rest.
keys Tab
row=$(row_of '^ Core registers')
keys '<'
for i in $(seq 100); do [ "$(row_of '^ Core registers')" = $((row + 1)) ] && break; sleep 0.05; done
[ "$(row_of '^ Core registers')" = $((row + 1)) ] || fail "< did not shrink the pane"
keys '>' '>'
for i in $(seq 100); do [ "$(row_of '^ Core registers')" = $((row - 1)) ] && break; sleep 0.05; done
[ "$(row_of '^ Core registers')" = $((row - 1)) ] || fail "> did not grow the pane"

# l locks the register pane to a line; the trace moves on, the pane stays.
keys l
wait_for 'Lock the pane to line:'
type_text 175
keys Enter
wait_for 'locked: line 175, time 9\]'
wait_for 'x30 +0000000000008024'
keys Tab
keys Home
wait_for 'Time: 1  .*Pos: 1/2044'
wait_for 'x30 +0000000000008024'
# Ctrl-L unlocks: the pane follows the position again.
keys Tab C-l
wait_gone '\[locked:'
wait_for 'x30 +0000000000000000'
# Ctrl-L locks where it is; t locks to a time.
keys C-l
wait_for 'locked: line 157, time 1\]'
keys t
wait_for 'Lock the pane to time:'
type_text 2044
keys Enter
wait_for 'locked: line 4321, time 2044\]'
wait_for 'x0 +0000000000000018'
keys C-l
wait_gone '\[locked:'

# a: the symbol a register points to (x19 = array at line 175).
keys Tab
goto_line 175
keys Tab
keys Down Down Down Right Right Right Right a
wait_for 'x19 = 0x80fc = array *$'
keys Right Right Right Right Right Right Right Right Right Right Right
wait_for 'x30 = 0x8024 = c_entry\+0x18 *$'
keys a
wait_gone '= c_entry\+0x18'

# Tab cycles through the visible panes (the focused status line is
# highlighted), back to the trace.
keys Tab
keys m
wait_for 'Memory address:'
type_text sp
keys Enter
wait_for '^ Memory: sp'
keys c
wait_for '^ Call stack'
keys Tab
keys Tab
keys Tab
wait_attr 'Call stack' '44m'
keys Tab
wait_attr ' Trace: ' '44m'
keys q
wait_for '\[exited\] 0'
pass
