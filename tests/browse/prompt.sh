#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Editing at the bottom-line prompt: Ctrl-W deletes a word, Ctrl-U the
# whole input, Backspace a character; Escape and Ctrl-G cancel.
. "$(dirname "$0")/lib.sh" prompt
start 100 30 "$TK_TRACES/quicksort.tarmac"
wait_for 'Time: 1  .*Pos: 1/2044'

keys l
wait_for '^Go to line: *$'
type_text '12 345'
wait_for '^Go to line: 12 345$'
keys C-w
wait_for '^Go to line: 12 ?$'
keys C-w
wait_for '^Go to line: *$'
type_text '999'
keys C-u
wait_for '^Go to line: *$'
type_text '1755'
keys BSpace
wait_for '^Go to line: 175$'
keys Enter
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'

# Escape cancels: the position stays.
keys t
wait_for '^Go to time:'
type_text 2000
keys Escape
wait_for '^cancelled'
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
# So does Ctrl-G, also for the memory prompt (no pane opens).
keys m
wait_for '^Memory address:'
type_text 'sp'
keys C-g
wait_for '^cancelled'
expect_no '^ Memory:'
# Not a number.
keys l
type_text abc
keys Enter
wait_for "not a number: 'abc'"
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
keys q
wait_for '\[exited\] 0'
pass
