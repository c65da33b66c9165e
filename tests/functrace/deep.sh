#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A function trace 1,000,000 calls deep (every call at time 1, every return
# at time 2): profile, flamegraph, callinfo, index and dump give the exact
# answers, streaming and indexed, without running out of stack.  calltree's
# text grows with the square of the depth (4 columns of indentation a
# level), so it is checked on a trace 3,000 deep.
#   deep.sh TRACEKIT WORKDIR [DEPTH]
set -u
bin=$1 work=$2 depth=${3:-1000000}
mkdir -p "$work"
gen() { # depth file
	awk -v n="$1" 'BEGIN {
		print "# tracekit function trace"
		for (i = 0; i < n; i++) print "1 0 enter 1000 rec"
		for (i = 0; i < n; i++) print "2 0 exit 1000 rec"
	}' >"$2"
	rm -f "$2.index"
}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
t="$work/tree.functext"
tdepth=$((depth < 3000 ? depth : 3000))
gen $tdepth "$t"
for mode in --no-index --force-index ""; do
	"$bin" calltree $mode "$t" >"$work/tree" || bad "calltree $mode failed"
	lines=$(wc -l <"$work/tree")
	[ "$lines" = $((2 * tdepth + 1)) ] || bad "calltree $mode: $lines lines"
	last=$(tail -n 1 "$work/tree")
	want=$(printf '%*so t:1 l:%d pc:0x1000 - t:2 l:%d pc:0x1000 : rec' $((4 * tdepth)) "" \
		$((tdepth + 1)) $((tdepth + 2)))
	[ "$last" = "$want" ] || bad "calltree $mode: innermost activation '${last:4*tdepth}'"
done
rm -f "$t" "$t.index" "$work/tree"
t="$work/deep.functext"
gen "$depth" "$t"
for mode in --no-index --force-index ""; do
	"$bin" profile $mode "$t" >"$work/profile" || bad "profile $mode failed"
	grep -qx "0x1000      $depth     $((2 * depth))     rec" "$work/profile" ||
		bad "profile $mode: $(cat "$work/profile")"
	"$bin" flamegraph $mode "$t" >"$work/folded" || bad "flamegraph $mode failed"
	[ "$(wc -l <"$work/folded")" = 1 ] || bad "flamegraph $mode: $(wc -l <"$work/folded") lines"
	frames=$(tr ';' '\n' <"$work/folded" | wc -l)
	# the stack starts at the outermost traced function: one frame a call
	[ "$frames" = "$depth" ] || bad "flamegraph $mode: $frames frames"
	head -c 4 "$work/folded" | grep -qx 'rec;' || bad "flamegraph $mode: the stack starts at $(head -c 20 "$work/folded")"
	grep -q ';rec 1$' "$work/folded" || bad "flamegraph $mode: count"
	calls=$("$bin" callinfo $mode "$t" 0x1000 | grep -c '^ - time: 1 ')
	[ "$calls" = "$depth" ] || bad "callinfo $mode: $calls calls"
done
calls=$("$bin" index "$t" | sed -n 's/^calls: *//p')
[ "$calls" = "$depth" ] || bad "index: $calls calls"
"$bin" dump "$t" call-at "#$((depth - 1))" | grep -qx "call $depth entry pos $((depth - 1)) exit pos $depth" ||
	bad "dump call-at: $("$bin" dump "$t" call-at "#$((depth - 1))")"
rm -f "$t" "$t.index"
exit $fail
