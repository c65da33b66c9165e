#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# F6 syntax highlighting and F7 symbolic branch targets (--image).
. "$(dirname "$0")/lib.sh" syntax
start 140 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"

# F7 is on with --image: branch targets are symbols.
wait_for 'BL +\{pc\}\+4 ; c_entry$'
keys l
type_text 175
keys Enter
wait_for 'Line: 175  Time: 9  .*Pos: 9/2044'
wait_for 'BL +\{pc\}\+0x18 ; quicksort$'
wait_for 'B\.CS +\{pc\}\+0x10 ; quicksort\+0x1c$'
wait_for 'ADRP +x19,\{pc\} ; 0x8010$'		# not a branch: unchanged
keys F7
wait_for 'symbolic branch targets off'
wait_for 'BL +\{pc\}\+0x18 ; 0x8038$'
expect_no '; quicksort'
keys F7
wait_for 'BL +\{pc\}\+0x18 ; quicksort$'

# F6: instruction lines are coloured (the mnemonic in bold yellow), then
# plain.
colour_of_insn() {
	tmux -L "$SOCK" capture-pane -e -p -t main | grep -a 'x0,x19' | head -1
}
colour_of_insn | grep -aq $'\e\\[[0-9;]*33m' || fail "no syntax colours"
keys F6
wait_for 'syntax highlighting off'
colour_of_insn | grep -aq $'\e\\[[0-9;]*33m' && fail "still coloured after F6"
keys F6
wait_for 'syntax highlighting on'
colour_of_insn | grep -aq $'\e\\[[0-9;]*33m' || fail "F6 did not turn colours back on"
keys q
wait_for '\[exited\] 0'
tmux -L "$SOCK" kill-server >/dev/null 2>&1
sleep 0.3

# Without an image F7 explains itself.
start 140 40 "$TK_TRACES/quicksort.tarmac"
keys F7
wait_for 'symbolic branch targets need an ELF image \(--image\)'
wait_for 'BL +\{pc\}\+4 ; 0x800c$'
keys q
wait_for '\[exited\] 0'
pass
