#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Trace pane movement (Up/Down, PgUp/PgDn, Home/End, Ctrl-L, l, t) and the
# core registers following the position, on quicksort.tarmac (AArch64).
. "$(dirname "$0")/lib.sh" step
start 120 40 "$TK_TRACES/quicksort.tarmac"
wait_for 'Core registers \(AArch64\)'
wait_for 'Line: 157  Time: 1  .*Pos: 1/2044'	# after the first instruction

# l: line 175 is "BL {pc}+0x18" at time 9; x0, x1 and x30 are known.
keys l
wait_for 'Go to line:'
type_text 175
keys Enter
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
wait_for 'x0 +00000000000080fc'
wait_for 'x1 +0000000000000023'
wait_for 'x30 +0000000000008024'
wait_for 'sp +00000000000ffff0'
# The instruction above the marker is the BL, the one below the callee's.
m=$(marker_row)
sed -n "$((m - 1))p" "$SCREEN_FILE" | grep -q "00008020 94000006" || fail "BL not just above the marker"
sed -n "$((m + 2))p" "$SCREEN_FILE" | grep -q '00008038 a9be57fe' || fail "callee not just below the marker"

# Down steps over one instruction and its updates: STP x30,x21,[sp,#-0x20]!
keys Down
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
wait_for 'sp +00000000000fffd0'
# ... and the changed sp is highlighted (blue), unchanged x0 is not.
wait_attr 'sp ' '44m00000000000fffd0'
grep -a 'x0 ' "$WORK/esc.txt" | grep -aq $'\e\\[[0-9;]*44m00000000000080fc' && fail "x0 highlighted"
m2=$(marker_row)
[ "$m2" -gt "$m" ] || fail "marker did not move down ($m -> $m2)"

keys Up Up
wait_for 'Line: 173  Time: 8  .*Pos: 8/2044'
wait_for 'x0 +00000000000080fc'
wait_for 'x30 +000000000000800c'

# t: time 2036, the branch to sys_exit.
keys t
wait_for 'Go to time:'
type_text 2036
keys Enter
wait_for 'Line: 4304  Time: 2036  .*Pos: 2036/2044'

# End / Home.
keys End
wait_for 'Time: 2044  .*Pos: 2044/2044'
wait_for 'x0 +0000000000000018'
wait_for 'HLT'
keys Home
wait_for 'Line: 157  Time: 1  .*Pos: 1/2044'

# PgDn moves about a screenful of lines forwards; PgUp comes back.
keys l
type_text 1000
keys Enter
wait_for 'Line: 1000  Time: [0-9]+  '
p0=$(status_pos)
keys NPage
p1=$(wait_pos_change "$p0")
[ $((p1 - p0)) -ge 10 ] && [ $((p1 - p0)) -le 40 ] || fail "PgDn moved from $p0 to $p1"
keys PPage
p2=$(wait_pos_change "$p1")
[ "$p2" = "$p0" ] || fail "PgUp went to $p2, want $p0"

# Ctrl-L: marker in the middle, then at the top, then at the bottom of the
# trace pane (rows 1..N under its status line).
keys C-l
wait_marker_row 15
keys C-l
wait_marker_row 1
keys C-l
wait_for '^ Core registers'
bottom=$(( $(row_of '^ Core registers') - 1 ))
wait_marker_row "$bottom"
keys q
wait_for '\[exited\] 0'
pass
