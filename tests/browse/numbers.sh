#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Numbers at the line and time prompts: clear messages for line 0,
# negative numbers, numbers too large for 64 bits (they used to be looked
# up as 2^64-1), lines and times past the end (with where the trace
# ends), empty input; a leading zero is decimal, not octal.
. "$(dirname "$0")/lib.sh" numbers
start 120 30 "$TK_TRACES/quicksort.tarmac"
wait_for 'Time: 1  .*Pos: 1/2044'
ask() {	# ask KEY TEXT MESSAGE-REGEX
	keys "$1"
	wait_for '^Go to (line|time):'
	[ -n "$2" ] && tmux -L "$SOCK" send-keys -t main -l -- "$2"
	keys Enter
	wait_for "$3"
}
ask l 99999 '^line 99999 is past the end of the trace \(last line 4322\)'
ask l 0 '^line numbers start at 1'
ask l -5 "^line numbers cannot be negative: '-5'"
ask l 99999999999999999999999 "^number too large: '99999999999999999999999'"
ask l '' '^no line number given'
ask t 99999 '^no instruction at or after time 99999 \(the trace ends at time 2044\)'
ask t -1 "^time numbers cannot be negative"
wait_for 'Time: 1  .*Pos: 1/2044'
# 0175 is line 175 (octal would be line 125).
ask l 0175 'Line: 175  Time: 9  .*Pos: 9/2044'
ask l 0xaf 'Line: 175  Time: 9  .*Pos: 9/2044'
keys q
wait_for '\[exited\] 0'
pass
