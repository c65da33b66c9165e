#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Memory panes: m with an address expression, known bytes in hex and ASCII,
# unknown bytes as ??, changed bytes highlighted, [ ] to changed addresses,
# 1 2 4 8 to the previous write of an aligned region, d to compare.
# quicksort.tarmac sorts the 35-byte array at 0x80fc (symbol "array").
. "$(dirname "$0")/lib.sh" memory
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"

# At the end, the array is sorted.
keys End
wait_for '2044/2044'
keys m
wait_for 'Memory address:'
type_text 'array'
keys Enter
wait_for ' Memory: array'
wait_for '^000080f0  (\?\? ){12}61 62 63 64  \?{12}abcd$'
wait_for '^00008100  65 65 65 66 67 68 68 69 6a 6b 6c 6d 6e 6f 6f 6f  eeefghhijklmnooo$'
wait_for '^00008110  6f 70 71 72 72 73 74 74 75 75 76 77 78 79 7a \?\?  opqrrsttuuvwxyz\?$'

# Registers in expressions: at line 175, x19 = 0x80fc.  Before sorting,
# the array holds its initial contents (revealed by the reads).
goto_line 175
wait_for "Line: 175  "
keys m
type_text '(x19 + 4) - 0x10 + 4*4'
keys Enter
wait_for ' Memory: \(x19 \+ 4\) - 0x10 \+ 4\*4 .*0x00008100 *$'
wait_for '^00008100  75 69 63 6b 62 72 6f 77 6e 66 6f 78 6a 75 6d 70  uickbrownfoxjump$'
wait_for '^00008110  73 6f 76 65 72 74 68 65 6c 61 7a 79 64 6f 67 \?\?  soverthelazydog\?$'

# Fold the quicksort call: stepping over it changes the array, which is
# highlighted (blue) in the memory view.
keys -
wait_for '2027/2044'
wait_for '^00008100  65 65 65 66 67 68 68 69'
wait_attr '00008100' '44m65'

# Focus the last memory pane (trace -> registers -> array -> x19 view).
keys Tab Tab Tab
wait_for '0x00008100 *$'
# ] and [ walk the changed runs: the array from 0x80fc, then the stack.
keys Up
wait_for '0x000080f0 *$'
keys ]
wait_for '0x000080fc *$'
keys ]
wait_for '0x000fff[0-9a-f]{2} *$'
keys [
wait_for '0x000080fc *$'
keys [
wait_for 'no changed address before the cursor'

# 4: the previous write to the aligned word 0x80fc..0x80ff, before the
# position (time 2027) - the last swap touching it.
keys 4
wait_for 'Time: [0-9]+  .*Pos: [0-9]+/2044'
p=$(status_pos)
[ "$p" -lt 2027 ] && [ "$p" -gt 9 ] || fail "4 went to position $p"
m=$(marker_row)
sed -n "1,$((m))p" "$SCREEN_FILE" | tail -6 | grep -Eq 'MW1 000080f[c-f]' || fail "no write to 0x80fc..f just above"

# 1 (same as Return): the byte 0x80fc only; 8: the aligned 0x80f8..0x80ff.
keys 1
wait_for 'Time: [0-9]+  .*Pos: [0-9]+/2044'
keys d
wait_for 'Compare with line:'
type_text 175
keys Enter
wait_for '\[changes since line 175\]'
# x closes the view.
keys x
wait_gone '^ Memory: \(x19'
wait_for '^ Memory: array'
keys q
wait_for '\[exited\] 0'
pass
