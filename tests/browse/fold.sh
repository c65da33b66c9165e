#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Folding from the index's call tree: - + [ ] { } on quicksort.tarmac,
# where line 175 calls quicksort (0x8038), which calls itself from 0x8078.
. "$(dirname "$0")/lib.sh" fold
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"

# Just after the BL: the callee's first instruction is below the marker.
goto_line 175
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
m=$(marker_row)
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '00008038 a9be57fe' || fail "callee not below the marker"

# - folds the call: the next instruction shown is the one after the BL,
# and the state is the one after the whole call (the array is sorted).
keys -
wait_for 'Line: 175  Time: 9  .*Pos: 2027/2044'
m=$(marker_row)
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '^2028 clk IT (2028) 00008024' || fail "resume not below the marker"
expect_no '00008038 a9be57fe'
expect_no '^1[0-9] clk'			# nothing of the call's first lines
wait_for 'x30 +0000000000008024'	# restored by the call's epilogue
wait_for 'x20 +0000000000000000'
# Up steps back over the whole folded call.
keys Up
wait_for 'Line: 173  Time: 8  .*Pos: 8/2044'
keys Down Down
wait_for 'Line: 4286  Time: 2028  .*Pos: 2028/2044'

# + (just after the call instruction) unfolds it again.
keys Up
wait_for 'Line: 175  Time: 9  .*Pos: 2027/2044'
keys +
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
m=$(marker_row)
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '00008038 a9be57fe' || fail "+ did not unfold"

# [ folds the calls made inside the current function (the recursive
# quicksort call at line 858) but not the function itself.
goto_line 856
wait_for 'Line: 856  Time: 365  .*Pos: 365/2044'
keys [
keys Down
wait_for 'Line: 858  Time: 366  '
keys Down
p=$(wait_pos_change 366)
[ "$p" -gt 600 ] || fail "Down after [ did not step over the recursive call (position $p)"
m=$(marker_row)
sed -n "$((m - 1)),$((m))p" "$SCREEN_FILE" | grep -q '0000807c cb150273' ||
	sed -n "$((m - 3)),$((m))p" "$SCREEN_FILE" | grep -q '0000807c cb150273' ||
	fail "not just after the recursive call's return"
expect_no '^367 clk IT'

# ] unfolds everything inside the current function again.
goto_line 856
keys ]
keys Down Down
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'

# { folds the whole trace (as in Arm's browser): from the start, Down over
# the quicksort call.
goto_line 175
keys {
wait_for 'Line: 175  Time: 9  .*Pos: 2027/2044'
keys Home
wait_for 'Time: 1  .*Pos: 1/2044'
# } unfolds everything.
keys }
goto_line 175
keys Down
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
# - outside of any call says so.
keys Home
keys -
wait_for 'not inside a function call'
keys q
wait_for '\[exited\] 0'
pass
