#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The browser's call-stack pane (frame walk with FILE:LINE, '!' where the
# call tree's stack differs, C to switch) and source pane (s: the current
# line highlighted, --source-dir, "source not found"), on the A32 recording
# of btprog.c (tests/backtrace.cmake runs it in the build's
# tests/backtrace directory, after the recording).
#   browse_panes.sh SRCDIR
src=$1
. "$src/../browse/lib.sh" btpanes
trace=$PWD/bt-a32.tarmac
elf=$PWD/btprog-a32.elf
[ -s "$trace" ] || fail "$trace missing (the record step failed?)"
line_of() { "$TK_BIN" backtrace "$trace" "$@" | sed -n '1s/.*(line \([0-9]*\),.*/\1/p'; }

# The entry of bt_mark, 9 calls deep: walk = call stack.
mark=$(line_of --image="$elf" pc:bt_mark@1)
[ -n "$mark" ] || fail "no position for pc:bt_mark@1"
# A position where the walk and the call stack differ (code without frame
# pointers, in newlib's printf): the first one tracekit backtrace warns about.
pos=$("$TK_BIN" dump "$trace" find-pc '#0' 0x"$(arm-none-eabi-nm "$elf" | awk '$3=="_vfprintf_r"{print $1}')" |
	awk '{print $2}')
first=
if [ -n "$pos" ]; then
	seq "$pos" 7 $((pos + 3000)) | sed 's/^/#/' > "$WORK/pos.txt"
	first=$("$TK_BIN" backtrace --image="$elf" "$trace" --positions="$WORK/pos.txt" 2>&1 |
		awk '/^Backtrace at/ {h=$0} /warning/ {print h; exit}' | sed 's/.*(line \([0-9]*\),.*/\1/')
fi

mkdir -p "$WORK/srcdir"
echo "/* crt0 stand-in for the source pane test */" > "$WORK/srcdir/crt0.S"
start 150 50 --image="$elf" --source-dir="$WORK/srcdir" "$trace"

keys l
type_text "$mark"
keys Enter
keys Down c s
wait_for '^ Call stack: frame chain \(1[0-9] frames\)'
wait_for '^ #1  0x[0-9a-f]{8} in level9 at .*btprog.c:[0-9]+'
wait_for '^ #6  0x[0-9a-f]{8} in level4 at .*btprog.c:[0-9]+'
expect_no '^ ?!#'
# The source pane: btprog.c, the current line of bt_mark highlighted.
wait_for '^ Source: .*/btprog.c:[0-9]+'
wait_for '^ +[0-9]+ > .*tk_backtrace|^ +[0-9]+ > '
# C in the call-stack pane: the call tree's stack, and back.
keys Tab Tab C
wait_for '^ Call stack \([0-9]+ active\)'
wait_for '^#0 +bt_mark  called from line'
keys C
wait_for '^ Call stack: frame chain'
# F1 in that pane documents C.
keys F1
wait_for 'C +switch between the frame walk and the call tree'
keys q
keys Tab Tab

# Frame 0 in the start-up code: its source is not there, but --source-dir
# has a file of that name.
keys Home Down
wait_for "^ Source: $WORK/srcdir/crt0.S:[0-9]+"
wait_for 'crt0 stand-in for the source pane test'

if [ -n "$first" ]; then
	keys l
	type_text "$first"
	keys Enter
	wait_for '^ Call stack: frame chain \([0-9]+ frames, ! differs from the call stack\)'
	wait_for '^!#[0-9]'
	wait_for '^ source not found: .*\.c$|^ Source: '
fi
keys q
wait_for '\[exited\] 0'

# Without --image: the call tree's stack, and the source pane says why not.
new_server
start 150 40 "$trace"
keys c s
wait_for '^ Call stack'
wait_for 'frame walks and source lines need --image=ELF'
keys q
wait_for '\[exited\] 0'
pass
