#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Terminal sizes and kinds: a tiny 40x12 terminal, resizing to a large one
# and to a huge one, and a monochrome terminal (vt100).
. "$(dirname "$0")/lib.sh" screen
start 40 12 "$TK_TRACES/quicksort.tarmac"
wait_for '^ Trace: quicks.* 1/2044'
wait_for '^ Core registers'
wait_for '^x0 +0000000000100000'
[ -n "$(marker_row)" ] || fail "no marker on a 40x12 screen"
# More panes than fit: they shrink or wait for room, nothing breaks.
keys Down Down
keys m
type_text sp
keys Enter
keys S V c
wait_for '^ Trace: '
keys Tab F1
wait_for 'help \(1/'
keys Escape
wait_for '^ Trace: '

# Grow: every pane fits again.
tmux -L "$SOCK" resize-window -t main -x 200 -y 60
wait_for 'Line: 161  Time: 3  .*Pos: 3/2044'
wait_for '^ Memory: sp'
wait_for '^ Single-precision FP registers'
wait_for '^ NEON vector registers'
wait_for '^ Call stack'
wait_for 'cpsr 000003cd'
# Huge.
tmux -L "$SOCK" resize-window -t main -x 400 -y 150
wait_for '^ Memory: sp'
wait_for '^00100000  (\?\? ){16} \?{16}$'
# And back to tiny.
tmux -L "$SOCK" resize-window -t main -x 40 -y 12
wait_gone '^ Memory: sp'
wait_for '^ Trace: '
keys q
wait_for '\[exited\] 0'
tmux -L "$SOCK" kill-server >/dev/null 2>&1
sleep 0.3

# Monochrome: no colours, attributes only (reverse status lines).
TKB_TERM=vt100 start 100 30 "$TK_TRACES/quicksort.tarmac"
wait_for '^ Core registers'
tmux -L "$SOCK" capture-pane -e -p -t main > "$WORK/esc.txt"
grep -aq $'\e\\[[0-9;]*3[0-7]m' "$WORK/esc.txt" && fail "colours on a monochrome terminal"
grep -a ' Trace: ' "$WORK/esc.txt" | grep -aq $'\e\\[[0-9;]*7m' || fail "no reverse-video status line"
keys Down
wait_for 'Time: 2  .*Pos: 2/2044'
keys q
wait_for '\[exited\] 0'
pass
