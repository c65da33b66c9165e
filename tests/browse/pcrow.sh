#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The core register pane's pc row: the address of the last instruction
# executed (the one just above the marker), in the AArch32 and AArch64
# layouts; highlighted only when that instruction was reached by a jump;
# Return on it goes to the previous visit of that address.
. "$(dirname "$0")/lib.sh" pcrow

# wait_pc_attr VALUE yes|no: poll until the pc value is (or is not)
# drawn highlighted (white on blue).
wait_pc_attr() {
	local val=$1 want=$2 i=0
	while [ $i -lt 200 ]; do
		tmux -L "$SOCK" capture-pane -e -p -t main >"$WORK/esc.txt" 2>/dev/null
		if grep -aq "pc   .*$val" "$WORK/esc.txt"; then
			if grep -aq $'pc   \e\\[[0-9;m\e[]*44m'"$val" "$WORK/esc.txt"; then
				[ "$want" = yes ] && return 0
			else
				[ "$want" = no ] && return 0
			fi
		fi
		sleep 0.05
		i=$((i + 1))
	done
	capture
	fail "pc $val: highlighted should be $want"
}

# AArch32: line 95 is the BL at 0x20158 (sequential after 0x20154).
start 120 40 "$TK_TRACES/calculator-aarch32-fastmodel.tarmac"
goto_line 95
wait_for 'Line: 95  Time: 3  .*Pos: 3/5104'
wait_for 'sp   00100000  lr   0002015c  pc   00020158'
wait_pc_attr 00020158 no
# Down: the PUSH at 0x204f0, reached by the BL: highlighted.
keys Down
wait_for 'pc   000204f0'
wait_pc_attr 000204f0 yes
# Down: the ADD at 0x204f4 falls through: not highlighted.
keys Down
wait_for 'pc   000204f4'
wait_pc_attr 000204f4 no
# Up comes back over the jump: highlighted again.
keys Up
wait_for 'pc   000204f0'
wait_pc_attr 000204f0 yes
# Return on pc (the 16th cell) at the only visit of 0x204f0 says so.
keys Tab
for _ in $(seq 15); do keys Right; done
keys Enter
wait_for 'pc 0x204f0: no earlier visit of this address in the trace'
keys q
wait_for '\[exited\] 0'
new_server

# AArch64: quicksort (0x8038) is entered from line 175 (time 10, line
# 177) and again recursively from 0x8078 at line 858 (line 860).
start 120 40 --image="$TK_TRACES/quicksort.elf" "$TK_TRACES/quicksort.tarmac"
goto_line 860
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'
wait_for 'sp   [0-9a-f]{16}  pc   0000000000008038  cpsr '
wait_pc_attr 0000000000008038 yes
# The pc row is cell 32 (x0-x30, sp, pc): 6 rows down, 2 right.
keys Tab
for _ in $(seq 6); do keys Down; done
keys Right Right
keys a
wait_for 'pc = 0x8038 = quicksort$'
keys Enter
wait_for 'Line: 177  Time: 10  .*Pos: 10/2044'
wait_for 'pc 0x8038: previous visit'
wait_for 'pc   0000000000008038'
keys Enter
wait_for 'pc 0x8038: no earlier visit of this address'
# n in the trace pane goes to the next visit of the pc above the marker
# (0x8038): back to line 860.
keys Tab
keys n
wait_for 'Line: 860  Time: 367  .*Pos: 367/2044'
# The help of the register pane explains the row.
keys Tab F1
wait_for "The core pane's pc is the address of the last instruction executed"
keys Escape
keys q
wait_for '\[exited\] 0'
pass
