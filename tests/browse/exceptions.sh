#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# e / E: the next / previous CPU exception line ("E ... CoreEvent_...",
# "EXC"), as in Arm's browser; the position goes to just after the
# instruction the line belongs to.  truncate/crash32.tarmac: its E lines
# are at lines 7-8 (after the LDM at line 3, position 2), 17-18 (after
# SVCGT at line 16, position 4), 25 (after line 24, position 6), 32, ...
. "$(dirname "$0")/lib.sh" exceptions
start 120 40 "$TK_TRACES/truncate/crash32.tarmac"
wait_for 'Time: 1000000  .*Pos: 1/16'
keys e
wait_for 'Line: 3  Time: 2000000  PC: 0x200b8  Pos: 2/16'
wait_for 'E 000200b8 00000005 CoreEvent_handleDataAbort'
keys e
wait_for 'Line: 16  Time: 4000000  PC: 0x14  Pos: 4/16'
keys e
wait_for 'Line: 24  Time: 6000000  PC: 0xc  Pos: 6/16'
keys E
wait_for 'Line: 16  Time: 4000000  PC: 0x14  Pos: 4/16'
keys E
wait_for 'Line: 3  Time: 2000000  PC: 0x200b8  Pos: 2/16'
keys E
wait_for 'no earlier exception'
wait_for 'Pos: 2/16'
keys End
keys e
wait_for 'no later exception'
keys q
wait_for '\[exited\] 0'

# The status line labels its fields and shows the pc as a symbol too;
# stepping down keeps context below the marker (it stops a third of the
# pane above the bottom instead of reaching the bottom row).
new_server
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"
wait_for '^ Trace: quicksort.tarmac +Line: 157  Time: 1  PC: 0x8000 _start  Pos: 1/2044 *$'
keys l
type_text 177
keys Enter
wait_for 'Line: 177  Time: 10  PC: 0x8038 quicksort  Pos: 10/2044'
keys Down
wait_for 'PC: 0x803c quicksort\+0x4  Pos: 11/2044'
keys r
wait_gone '^ Core registers'
for _ in $(seq 60); do keys Down; done
wait_for 'Pos: 71/2044'
row=$(marker_row)
# 40 rows: the trace pane's status line, 38 rows of trace, the prompt line;
# the marker stays on row 26 at most (38 - 38/3 = 26, counting the status
# line as row 0), with trace lines below it.
[ -n "$row" ] && [ "$row" -le 26 ] || fail "the marker is on row $row after stepping down"
below=$(capture; sed -n "$((row + 2)),\$p" "$SCREEN_FILE" | grep -c ' clk ')
[ "$below" -ge 10 ] || fail "only $below trace lines below the marker"
keys q
wait_for '\[exited\] 0'
pass
