#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The options every command shares with Arm's tools (issue 15): --version on
# every subcommand and alias, --debug=list and unknown debug types,
# --memory-index (no index file written), the browser's colour options,
# --no-offsets where Arm's tools have it.
# Usage: options.sh CASE (environment: TK_BIN, TK_TRACES, TK_WORK).
set -u
bin=${TK_BIN:?}
traces=${TK_TRACES:?}
work=${TK_WORK:?}/$1
bindir=$(dirname "$bin")
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
same() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
version=$("$bin" --version)
case $version in "tracekit "[0-9]*) ;; *) fail "tracekit --version: '$version'" ;; esac
v=${version#tracekit }

case $1 in
version)
	# Every subcommand, and every alias installed in the build's bin/.
	for c in $("$bin" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
		out=$("$bin" $c --version 2>&1); rc=$?
		same "$c --version" "$rc $out" "0 tracekit $v"
	done
	n=0
	for a in "$bindir"/*; do
		name=$(basename "$a")
		[ "$name" = tracekit ] && continue
		[ -d "$a" ] && continue		# tracekit-modules/: the modules, not aliases
		out=$("$a" --version 2>&1); rc=$?
		want="0 $name (tracekit) $v"
		# rtems-tld answers in rtems-tld's own form
		[ "$name" = rtems-tld ] && want="0 rtems-trace-ld (tracekit trace linker) $v, RTEMS revision 6"
		same "$name --version" "$rc $out" "$want"
		case $name in tarmac-*) n=$((n + 1)) ;; esac
	done
	[ $n -ge 9 ] || fail "only $n tarmac-* aliases in $bindir"
	;;
debug)
	# --debug=list lists the types (and exits 0); an unknown one is a
	# usage error (exit 2), also inside a list; a known one works.
	for c in calltree profile index; do
		out=$("$bin" $c --debug=list); rc=$?
		same "$c --debug=list status" $rc 0
		echo "$out" | grep -q '^--debug=call_heuristics: ' || fail "$c --debug=list: '$out'"
		"$bin" $c --debug=nonsense "$traces/quicksort.tarmac" > /dev/null 2> err; rc=$?
		same "$c --debug=nonsense status" $rc 2
		grep -q "unknown diagnostic type 'nonsense'" err || fail "$c --debug=nonsense: $(cat err)"
		"$bin" $c --debug=call_heuristics,bogus "$traces/quicksort.tarmac" > /dev/null 2> err
		same "$c --debug=call_heuristics,bogus status" $? 2
	done
	"$bindir/tarmac-calltree" --debug=list | grep -q call_heuristics || fail "tarmac-calltree --debug=list"
	"$bin" calltree --debug=call_heuristics "$traces/quicksort.tarmac" 2> err > /dev/null
	grep -q '^call_heuristics: ' err || fail "--debug=call_heuristics gives no explanation"
	;;
memory-index)
	# --memory-index: the index is built for the run and no file is
	# written (index, dump, browse, the report tools); --no-index and
	# --index give way with a warning, as in Arm's tools.
	cp "$traces/quicksort.tarmac" q.tarmac
	out=$("$bin" index --memory-index q.tarmac); rc=$?
	same "index --memory-index status" $rc 0
	echo "$out" | grep -q '^instructions: *2044$' || fail "index --memory-index summary: $out"
	echo "$out" | grep -q '^index: *in memory' || fail "index --memory-index: $out"
	out=$("$bin" dump --memory-index q.tarmac reg 100 x0)
	same "dump --memory-index" "$out" "x0 0000000000100000"
	"$bin" browse --memory-index --only-index q.tarmac || fail "browse --memory-index --only-index"
	"$bindir/tarmac-browser" --memory-index --only-index q.tarmac || fail "tarmac-browser --memory-index"
	"$bin" calltree --memory-index q.tarmac > tree.mem || fail "calltree --memory-index"
	"$bin" calltree --no-index q.tarmac > tree.stream
	cmp -s tree.mem tree.stream || fail "calltree --memory-index: another tree"
	"$bin" index --memory-index --no-index --index=elsewhere.index q.tarmac > /dev/null 2> err
	grep -q 'ignoring --no-index' err && grep -q 'ignoring --index' err ||
		fail "--memory-index with --no-index/--index: $(cat err)"
	left=$(ls | grep -c index)
	same "files left by --memory-index" "$left" 0
	;;
colour)
	# The browser's colour options, in both spellings (the index is built
	# and the browser stops: no terminal needed).
	for o in --colour --color --no-colour --no-color; do
		"$bin" browse $o --only-index "$traces/quicksort.tarmac" --index=q.index || fail "browse $o"
		"$bindir/tarmac-browser" $o --only-index "$traces/quicksort.tarmac" --index=q.index ||
			fail "tarmac-browser $o"
	done
	"$bin" browse --colours --only-index "$traces/quicksort.tarmac" 2> /dev/null
	same "browse --colours (a typo) status" $? 2
	;;
no-offsets)
	# Accepted wherever Arm's tools have it (calltree, profile, flamegraph,
	# vcd) and by their aliases.  (A copy of the trace: vcd writes
	# TRACE.vcd beside it.)
	cp "$traces/quicksort.tarmac" no-offsets.tarmac
	for c in calltree profile flamegraph vcd; do
		"$bin" $c --no-offsets no-offsets.tarmac > /dev/null || fail "$c --no-offsets"
		"$bindir/tarmac-$c" --no-offsets no-offsets.tarmac -o /dev/stdout > /dev/null 2>&1 ||
			"$bindir/tarmac-$c" --no-offsets no-offsets.tarmac > /dev/null ||
			fail "tarmac-$c --no-offsets"
	done
	;;
indextool)
	# tarmac-indextool: Arm's options, answered from tracekit's index.
	it=$bindir/tarmac-indextool
	cp "$traces/quicksort.tarmac" q.tarmac
	out=$("$it" --header q.tarmac)
	echo "$out" | head -2 > head2
	printf 'Endianness: little\nArchitecture: AArch64\n' | cmp -s - head2 || fail "--header: $out"
	echo "$out" | grep -q '^Instructions (nodes of --seq): 2044$' || fail "--header counts: $out"
	[ -e q.tarmac.index ] || fail "indextool built no index"
	# --seq: one node per instruction; the first is "1 clk IT (1) 00008000"
	# at line 157; its group is lines 1-158 (the reset values before it,
	# R X0 after it): 5397 = 0x1515 bytes (head -158 | wc -c).
	n=$("$it" --seq q.tarmac | grep -c '^Node (position')
	same "--seq nodes" "$n" 2044
	out=$("$it" --seq q.tarmac | sed -n 2,6p | tr '\n' '|')
	same "--seq first node" "$out" "    Line range: start 1, extent 158|    Byte range: start 0x0, extent 0x1515|    Modification time: 1|    PC: 0x8000|    Call depth: 0|"
	same "--bypc nodes" "$("$it" --bypc q.tarmac | grep -c '^Node:')" 2044
	# At line 4000, x0 is 0x811a (as tracekit dump says), low byte first.
	"$bin" dump q.tarmac reg 4000 x0 > dump.out
	same "dump x0" "$(cat dump.out)" "x0 000000000000811a"
	"$it" --full-mem-at-line=4000 q.tarmac | grep '^x0, last modified at line [0-9]*: 1a 81 00 00 00 00 00 00$' > /dev/null ||
		fail "--full-mem-at-line x0"
	"$it" --seq-with-mem q.tarmac | grep -q 'Memory written anywhere' || fail "--seq-with-mem"
	"$it" --regmap | grep -q '^x0 size=0x8$' || fail "--regmap (no trace needed)"
	for q in --seqtree --mem=0x10 --memtree=0 --memsub=0 --memsubtree=0 --bypctree; do
		"$it" $q q.tarmac > /dev/null 2> err; rc=$?
		same "$q status" $rc 2
		grep -q 'not supported' err || fail "$q: $(cat err)"
	done
	"$it" q.tarmac > /dev/null 2>&1; same "no query status" $? 2
	rm -f q.tarmac.index
	"$it" --only-index q.tarmac && [ -s q.tarmac.index ] || fail "--only-index"
	rm -f q.tarmac.index
	"$it" --header --memory-index q.tarmac | grep -q 'Index file: in memory' || fail "--memory-index"
	[ ! -e q.tarmac.index ] || fail "--memory-index wrote an index"
	"$it" --header --index=other.idx q.tarmac > /dev/null && [ -s other.idx ] || fail "--index"
	"$it" --header --no-index --index=other.idx q.tarmac > /dev/null || fail "--no-index"
	"$it" --header --force-index --index=other.idx q.tarmac > /dev/null || fail "--force-index"
	;;
*)
	echo "unknown case $1"; exit 2 ;;
esac
[ $failures -eq 0 ] && echo "all ok"
exit $failures
