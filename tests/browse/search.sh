#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pc search: p / P prompt for an address expression, n / N repeat.
# quicksort (0x8038) starts at times 10, 367, 581... in quicksort.tarmac.
. "$(dirname "$0")/lib.sh" search
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"
wait_for 'time 1  1/2044'

keys n
wait_for 'no pc search yet'

keys p
wait_for 'Next visit of pc:'
type_text '0x8038'
keys Enter
wait_for 'line 177  time 10  10/2044'
keys n
wait_for 'line 860  time 367  367/2044'
keys n
wait_for 'time 581  581/2044'
keys N
wait_for 'line 860  time 367  367/2044'
# pc is the next instruction to run (0x803c at time 368).
keys p
type_text pc
keys Enter
wait_for 'line 864  time 368  368/2044'
keys n
wait_for 'time 582  582/2044'
keys l
type_text 860
keys Enter
wait_for 'line 860  time 367  367/2044'

# P: backwards, with a symbol and arithmetic: quicksort+0x40 = 0x8078.
keys P
wait_for 'Previous visit of pc:'
type_text 'quicksort + 0x10*4'
keys Enter
wait_for 'line 858  time 366  366/2044'
keys N
wait_for 'no earlier|not found earlier'
wait_for 'time 366  366/2044'

# A bad expression is reported, and the position does not move.
keys p
type_text '(0x8038'
keys Enter
wait_for "expected '\)' at end of expression"
wait_for 'time 366  366/2044'
keys p
type_text 'nosuchsym'
keys Enter
wait_for "no register or symbol 'nosuchsym'"
keys q
wait_for '\[exited\] 0'
pass
