#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A folded call's line in the trace pane ends in
# "[+ N instructions folded: NAME]"; unfolding removes it.  quicksort.tarmac:
# line 175 (0x8020) calls quicksort; the call hides positions 9..2026.
. "$(dirname "$0")/lib.sh" foldmark
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"

goto_line 175
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
expect_no 'instructions folded'
keys -
wait_for 'Line: 175  Time: 9  .*Pos: 2027/2044'
wait_for '^9 clk IT \(9\) 00008020 94000006 .*BL .*  \[\+ 2018 instructions folded: quicksort\]$'
# It is on the call line: the line before the marker's X30 update.
m=$(marker_row)
sed -n "$((m - 1))p" "$SCREEN_FILE" | grep -q 'folded: quicksort\]$' ||
	fail "the mark is not on the call line just above the marker"
# + unfolds: the mark goes.
keys +
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
wait_gone 'instructions folded'

# Nested folds: { folds everything; only the outermost call shows a mark
# (its inner calls are hidden with it).
keys {
wait_for 'Line: 175  Time: 9  .*Pos: 2027/2044'
wait_for 'folded: quicksort\]$'
[ "$(grep -c 'instructions folded' "$SCREEN_FILE")" -ge 1 ] || fail "no fold mark"
keys }
wait_gone 'instructions folded'

# [ folds the calls made from the current function: the recursive call
# at line 858 gets a mark once it is on screen.
goto_line 856
wait_for 'Line: 856  Time: 365  .*Pos: 365/2044'
keys [
wait_for '^366 clk IT \(366\) 00008078 .*\[\+ [0-9]+ instructions folded: quicksort\]$'
keys ]
wait_gone 'instructions folded'
keys q
wait_for '\[exited\] 0'
new_server

# Without --image the callee is its address; on a narrow terminal the
# mark overwrites the end of a long line rather than disappearing.
start 60 30 "$TK_TRACES/quicksort.tarmac"
goto_line 175
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
keys -
wait_for '2027/2044'
wait_for '^9 clk IT.* \[\+ 2018 instructions folded: 0x8038\]$'
keys +
wait_gone 'instructions folded'
keys q
wait_for '\[exited\] 0'
pass
