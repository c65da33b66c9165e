#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pc search: p / P prompt for an address expression, ; and , repeat it;
# n / N go to the next / previous visit of the pc above the marker, as in
# Arm's browser.  quicksort (0x8038) starts at times 10, 367, 581... in
# quicksort.tarmac.
. "$(dirname "$0")/lib.sh" search
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"
wait_for 'Time: 1  .*Pos: 1/2044'

keys '\;'
wait_for 'no pc search yet'

keys p
wait_for 'Next visit of pc:'
type_text '0x8038'
keys Enter
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
keys '\;'
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'
keys '\;'
wait_for 'Time: 581  .*Pos: 581/2044'
type_text ','
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'
# pc is the next instruction to run (0x803c at time 368).
keys p
type_text pc
keys Enter
wait_for 'Line: 864  Time: 368  .*Pos: 368/2044'
keys '\;'
wait_for 'Time: 582  .*Pos: 582/2044'
keys l
type_text 860
keys Enter
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'

# n / N: the instruction above the marker is quicksort's first (0x8038,
# time 367): its next visit is at 581, then back to 367 and 10, and no
# earlier one.
keys n
wait_for 'Time: 581  .*Pos: 581/2044'
keys N
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'
keys N
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
keys N
wait_for 'no earlier|not found earlier'
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
# Next to a BL (0x8020, time 9, line 175): its only visit.
keys l
type_text 175
keys Enter
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
keys n
wait_for 'not found further on'
keys l
type_text 860
keys Enter
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'

# P: backwards, with a symbol and arithmetic: quicksort+0x40 = 0x8078.
keys P
wait_for 'Previous visit of pc:'
type_text 'quicksort + 0x10*4'
keys Enter
wait_for 'Line: 858  Time: 366  .*Pos: 366/2044'
type_text ','
wait_for 'no earlier|not found earlier'
wait_for 'Time: 366  .*Pos: 366/2044'

# A bad expression is reported, and the position does not move.
keys p
type_text '(0x8038'
keys Enter
wait_for "expected '\)' at end of expression"
wait_for 'Time: 366  .*Pos: 366/2044'
keys p
type_text 'nosuchsym'
keys Enter
wait_for "no register or symbol 'nosuchsym'"
keys q
wait_for '\[exited\] 0'
pass
