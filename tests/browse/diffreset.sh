#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Memory pane `d`: the prompt says what it is for (it used to say "Go to
# line:", as did the l and t lock prompts of register and memory panes),
# and empty input drops the comparison line, back to highlighting what the
# last move changed (a pane could not get that back before).
. "$(dirname "$0")/lib.sh" diffreset
start 120 40 "$TK_TRACES/quicksort.tarmac"
goto_line 175
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
keys m
type_text sp
keys Enter
wait_for '^ Memory: sp'
keys Tab
keys l
wait_for '^Lock the pane to line: *$'
keys Escape
keys t
wait_for '^Lock the pane to time: *$'
keys Escape
keys Tab
keys d
wait_for '^Compare with line: *$'
type_text 157
keys Enter
wait_for '^ Memory: sp \[changes since line 157\]'
keys d
wait_for '^Compare with line \(empty: the last move\): *$'
keys Enter
wait_for '^highlighting the changes of the last move again'
wait_for '^ Memory: sp +0x'
expect_no 'changes since'
keys q
wait_for '\[exited\] 0'
pass
