#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a narrow terminal the status lines keep their right part (the trace
# position; the address under a memory pane's cursor) and cut the title
# short; it used to drop the position, so a 40-column user could not see
# where they were.  The trace pane's right part gives up its fields (pc,
# time, line) as the width needs, the position last.  Resizing the terminal centres the marker again rather
# than leaving it on the last row of a shrunk pane.
. "$(dirname "$0")/lib.sh" narrow
start 40 12 "$TK_TRACES/quicksort.tarmac"
wait_for '^ Trace.* 1/2044'
keys End
wait_for 'Pos: 2044/2044'
goto_line 175
wait_for 'Line: 175  Pos: 9/2044'
keys m
type_text sp
keys Enter
keys Tab Tab
wait_for '^ Mem.* 0x000ffff0'

# Resize: start from a marker at the top of a tall pane, then shrink.
keys Tab
tmux -L "$SOCK" resize-window -t main -x 100 -y 40
wait_for '^ Trace: quicksort.tarmac +Line: 175'
keys C-l C-l
wait_marker_row 1
tmux -L "$SOCK" resize-window -t main -x 100 -y 16
wait_for '^ Trace: quicksort.tarmac +Line: 175'
# Trace pane: rows 1..5 here; centred, the marker is not on its last row
# and the next instruction shows below it.
for i in $(seq 100); do m=$(marker_row); [ -n "$m" ] && [ "$m" -lt 5 ] && [ "$m" -gt 1 ] && break; sleep 0.05; done
[ -n "$m" ] && [ "$m" -lt 5 ] && [ "$m" -gt 1 ] || fail "marker on row $m after the resize, want it centred"
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '^10 clk IT (10) 00008038' || fail "the next instruction is not below the marker"
keys q
wait_for '\[exited\] 0'
pass
