#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The index life cycle (the seed's "Options to control indexing"): reuse,
# rebuild when stale, corrupt, truncated, of another version or built with
# other options; --no-index, --only-index, --force-index, --index=PATH;
# atomic replacement (an interrupted build leaves nothing a later run
# trusts) and concurrent builders.  -v explains every decision: the tests
# check those explanations and the resulting files.
#
# usage: lifecycle.sh CASE   (environment: TK_BIN TK_TRACES TK_SHARED_DIR TK_WORK)
set -u
: "${TK_BIN:?}" "${TK_TRACES:?}" "${TK_SHARED_DIR:?}" "${TK_WORK:?}"
rm -rf "$TK_WORK"
mkdir -p "$TK_WORK"
cd "$TK_WORK" || exit 1
fail=0

cp "$TK_TRACES/quicksort.tarmac" trace.tarmac
chmod u+w trace.tarmac
IDX=trace.tarmac.index

bad() {
	echo "FAILED: $*"
	fail=1
}

# run_v: `tracekit index -v ARGS trace.tarmac`, stderr (the decisions) in $log.
run_v() {
	log=$("$TK_BIN" index -v -q "$@" trace.tarmac 2>&1 >/dev/null)
	status=$?
}

# The index answers correctly: the sorted array at the end.
answers() {
	got=$("$TK_BIN" dump -q --no-index "$@" trace.tarmac mem end 0x80fc 4 2>&1)
	[ "$got" = "80fc: 61 62 63 64" ] || bad "index answers '$got'"
}

has() {
	case $log in
	*"$1"*) ;;
	*) bad "expected '$1' in: $log" ;;
	esac
}

mtime() { stat -c %Y.%i "$1"; }

# flip FILE OFFSET: complement one byte in place.
flip() {
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %o $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

no_temporaries() {
	left=$(ls -a | grep '\.tmp\.' || true)
	[ -z "$left" ] || bad "temporary files left: $left"
}

case $1 in
reuse)
	run_v
	has "building index trace.tarmac.index: it does not exist"
	[ -f "$IDX" ] || bad "no index written"
	before=$(mtime $IDX)
	run_v
	has "reusing index trace.tarmac.index: it is up to date"
	[ "$(mtime $IDX)" = "$before" ] || bad "index rewritten on reuse"
	answers
	no_temporaries
	;;
stale)
	run_v
	# the trace rewritten after indexing (a later modification time)
	touch -d "@$(($(date +%s) + 5))" trace.tarmac
	run_v
	has "rebuilding index trace.tarmac.index: the trace was modified since it was indexed"
	run_v
	has "reusing"
	# an older modification time is a change too
	touch -d "@$(($(date +%s) - 100))" trace.tarmac
	run_v
	has "rebuilding index trace.tarmac.index: the trace was modified since it was indexed"
	# as is another size with the same time
	echo "1 clk R X0 0000000000000000" >> trace.tarmac
	touch -d "@$(($(date +%s) - 100))" trace.tarmac
	run_v
	has "rebuilding index trace.tarmac.index: the trace's size differs from when it was indexed"
	answers
	;;
replaced)
	# Another trace of the same size put in place, its modification time
	# set back to the old one (to the nanosecond): the first read of 0x80fc
	# (line 193) shows 0x99 instead of 0x74.  Size and mtime agree; only
	# the status change time shows the replacement.
	run_v
	got=$("$TK_BIN" dump -q trace.tarmac mem '#0' 0x80fc 1)
	[ "$got" = "80fc: 74" ] || bad "before: '$got'"
	old=$(stat -c %y trace.tarmac)
	sed '193s/MR1 000080fc:0000000080fc 74$/MR1 000080fc:0000000080fc 99/' trace.tarmac > new.tarmac
	cmp -s trace.tarmac new.tarmac && bad "the replacement is identical"
	mv new.tarmac trace.tarmac
	touch -d "$old" trace.tarmac
	[ "$(stat -c %y trace.tarmac)" = "$old" ] || bad "mtime not restored"
	run_v
	has "rebuilding index trace.tarmac.index: the trace was replaced or its status changed since it was indexed"
	got=$("$TK_BIN" dump -q --no-index trace.tarmac mem '#0' 0x80fc 1)
	[ "$got" = "80fc: 99" ] || bad "after: '$got'"
	run_v
	has "reusing"
	;;
corrupt)
	run_v
	size=$(stat -c %s $IDX)
	# one byte in the middle of the file (a section's data)
	flip $IDX $((size / 2))
	run_v
	has "building index trace.tarmac.index: it is corrupt or incomplete"
	answers
	# a byte of the header (the instruction count)
	flip $IDX 64
	run_v
	has "corrupt or incomplete"
	answers
	# not an index at all
	echo "hello" > $IDX
	run_v
	has "corrupt or incomplete"
	answers
	;;
truncated)
	run_v
	size=$(stat -c %s $IDX)
	truncate -s $((size - 1)) $IDX
	run_v
	has "building index trace.tarmac.index: it is corrupt or incomplete"
	answers
	truncate -s 1000 $IDX
	run_v
	has "corrupt or incomplete"
	: > $IDX
	run_v
	has "corrupt or incomplete"
	answers
	;;
version)
	run_v
	# format version 99 at offset 8
	printf '\143' | dd of=$IDX bs=1 seek=8 conv=notrunc 2>/dev/null
	run_v
	has "building index trace.tarmac.index: it is of another format version"
	answers
	;;
options)
	run_v
	run_v --bi
	has "rebuilding index trace.tarmac.index: the index was built with no options, not --bi"
	run_v --bi
	has "reusing"
	run_v --li
	has "the index was built with --bi, not no options"
	run_v --implicit-thumb --bi
	has "the index was built with no options, not --bi --implicit-thumb"
	;;
no-index)
	# no index: a command that needs one fails, and says why
	"$TK_BIN" dump -v --no-index trace.tarmac pos 1 >/dev/null 2>err.txt && bad "dump without index succeeded"
	grep -q "no index for trace.tarmac (trace.tarmac.index)" err.txt || bad "message: $(cat err.txt)"
	[ -f "$IDX" ] && bad "--no-index built an index"
	run_v
	touch -d "@$(($(date +%s) + 5))" trace.tarmac
	before=$(mtime $IDX)
	# a stale index is never trusted: the index command fails, a report
	# command warns and reads the trace instead
	run_v --no-index
	[ $status = 1 ] || bad "--no-index with a stale index succeeded"
	has "not using index trace.tarmac.index: the trace was modified since it was indexed"
	[ "$(mtime $IDX)" = "$before" ] || bad "--no-index rebuilt the index"
	"$TK_BIN" calltree --no-index trace.tarmac >calltree.out 2>err.txt || bad "calltree --no-index failed"
	grep -q "warning: not using index trace.tarmac.index: the trace was modified since it was indexed.*reading the trace instead" err.txt || bad "calltree message: $(cat err.txt)"
	"$TK_BIN" calltree --no-index --force-index trace.tarmac >/dev/null 2>&1 && bad "--force-index --no-index accepted"
	"$TK_BIN" calltree trace.tarmac | cmp -s - calltree.out || bad "calltree --no-index gave another tree"
	echo junk > $IDX
	run_v --no-index
	[ $status = 1 ] || bad "--no-index with a corrupt index succeeded"
	;;
only-index)
	out=$("$TK_BIN" index --only-index trace.tarmac)
	[ -z "$out" ] || bad "--only-index printed '$out'"
	[ -f "$IDX" ] || bad "--only-index wrote no index"
	out=$("$TK_BIN" dump --only-index trace.tarmac pos 1)
	[ -z "$out" ] || bad "dump --only-index printed '$out'"
	answers
	;;
force)
	run_v
	before=$(mtime $IDX)
	sleep 1
	run_v --force-index
	has "building index trace.tarmac.index: --force-index given"
	[ "$(mtime $IDX)" != "$before" ] || bad "--force-index did not rewrite the index"
	answers
	;;
index-path)
	mkdir sub
	run_v --index=sub/other.index
	has "building index sub/other.index"
	[ -f sub/other.index ] || bad "no sub/other.index"
	[ -f "$IDX" ] && bad "default index written too"
	run_v --index=sub/other.index
	has "reusing index sub/other.index"
	answers --index=sub/other.index
	;;
atomic)
	# A build killed half way leaves the previous index intact and no
	# temporary file behind.
	"$TK_SHARED_DIR/bench/make-big-trace" 40 > trace.tarmac
	run_v
	has "building"
	before=$(mtime $IDX)
	"$TK_BIN" index -q --force-index trace.tarmac &
	pid=$!
	sleep 0.05
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ "$(mtime $IDX)" = "$before" ] || echo "note: the build finished before it was killed"
	run_v
	has "reusing"
	no_temporaries
	# and a build into a missing index, killed: no index at all
	rm -f $IDX
	"$TK_BIN" index -q trace.tarmac &
	pid=$!
	sleep 0.05
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	no_temporaries
	run_v
	case $log in
	*reusing*) ;;	# it had finished
	*) has "building index trace.tarmac.index: it does not exist" ;;
	esac
	;;
concurrent)
	"$TK_SHARED_DIR/bench/make-big-trace" 20 > trace.tarmac
	for i in 1 2 3; do
		"$TK_BIN" index -q --force-index trace.tarmac &
	done
	# and readers while they write
	for i in 1 2 3; do
		"$TK_BIN" dump -q trace.tarmac pos 5 >/dev/null || bad "reader $i failed"
	done
	wait
	run_v
	has "reusing"
	no_temporaries
	got=$("$TK_BIN" dump -q --no-index trace.tarmac pos '#95659')
	case $got in
	"pos 95659 "*) ;;
	*) bad "last position: $got" ;;
	esac
	;;
*)
	echo "unknown case $1"
	exit 2
	;;
esac
exit $fail
