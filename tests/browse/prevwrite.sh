#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Jumps to the previous write: `a` highlights an update line of the
# instruction above the marker and Return goes to the previous write of it;
# Return in the register pane does the same for the selected register.
. "$(dirname "$0")/lib.sh" prevwrite
start 120 40 "$TK_TRACES/quicksort.tarmac"

# Line 4315: STP x8,x9,[sp],#0x10 at time 2042 writes 0xffff0 and 0xffff8
# and sp.  The previous write of 0xffff0 is the STP at time 4 (line 163;
# the MR8 of time 2035 only reads it).
goto_line 4315
wait_for "Line: 4315  "
keys a
wait_attr 'MW8 000ffff0' '43m'
keys Enter
wait_for 'Line: 163  Time: 4  .*Pos: 4/2044'
m=$(marker_row)
sed -n "$((m - 3)),$((m))p" "$SCREEN_FILE" | grep -q 'MW8 000ffff0:0000000ffff0 00000000_0000800c' ||
	fail "the write is not just above the marker"

# The third update line of time 2042 is sp: its previous write is the
# SUB sp,sp,#0x10 of time 2037 (line 4305).
goto_line 4315
wait_for "Line: 4315  "
keys a a a
keys Enter
wait_for 'Line: 4305  Time: 2037  .*Pos: 2037/2044'
# a cycles back to no highlight: Return then says so.
keys a a
keys Enter
wait_for 'press a to highlight'
# An instruction without updates (B.CS at line 186).
goto_line 186
wait_for "Line: 186  "
keys a
wait_for 'updates no register or memory'

# Register pane: x19 at line 175 was written at times 6 and 5 and in the
# initial register dump.
goto_line 175
wait_for "Line: 175  "
keys Tab
wait_for 'Core registers'
keys Down Down Down Right Right Right Right
keys Enter
wait_for 'Line: 169  Time: 6  .*Pos: 6/2044'
keys Enter
wait_for 'Line: 167  Time: 5  .*Pos: 5/2044'
keys Enter
wait_for 'Line: 157  Time: 1  .*Pos: 1/2044'
keys Enter
wait_for 'no earlier write to x19'
keys q
wait_for '\[exited\] 0'
pass
