#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# < and > work from the height a pane has, not the one asked for: after
# pressing > past the room there is, the first < shrinks the pane at once
# (it used to take as many presses as there had been useless >), and the
# bottom line says when a pane cannot grow or shrink any more.
. "$(dirname "$0")/lib.sh" resizekeys
start 120 30 "$TK_TRACES/quicksort.tarmac"
wait_for '^ Core registers \(AArch64\)'
keys Tab
for i in $(seq 30); do keys '>'; done
wait_for '^no room to make the pane taller'
top=$(row_of '^ Core registers')
keys '<'
for i in $(seq 100); do [ "$(row_of '^ Core registers')" = $((top + 1)) ] && break; sleep 0.05; done
[ "$(row_of '^ Core registers')" = $((top + 1)) ] || fail "< after many > did not shrink the pane at once"
for i in $(seq 40); do keys '<'; done
wait_for '^the pane is as short as it can be'
bottom=$(row_of '^ Core registers')
keys '>'
for i in $(seq 100); do [ "$(row_of '^ Core registers')" = $((bottom - 1)) ] && break; sleep 0.05; done
[ "$(row_of '^ Core registers')" = $((bottom - 1)) ] || fail "> after many < did not grow the pane at once"
keys q
wait_for '\[exited\] 0'
pass
