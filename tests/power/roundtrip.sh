#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Round trips on a ppc64le program recorded under qemu-ppc64le.
#
#   roundtrip.sh CASE PREFIX      (PREFIX.elf, PREFIX.stream exist;
#                                  TK_BIN, TK_POWER_TEST in the environment)
#
#   qtwrite          stream -> qtwrite -> qtdis -r: every EA and word back
#   htm-power10      stream -> qtwrite --htm -> htm2qt -> qtdis -r: the same,
#   htm-power8       and the same listing as the Qtrace file's (RA and page
#   htm-power8-full  annotations aside); POWER8 with IEA/IRA words only
#                    after jumps, and on every record
#   calls            the calls by link-register semantics, on the Qtrace
#                    file and on the dump: fib(12) is 465 activations
#                    (2 * fib(13) - 1), apply 8, square 4 and twice 4
#                    (through a function pointer), sum 1 (see prog/calls.c)
#   sources         the same counts through the report tools, the Qtrace file
#                    and the dump read as trace sources (detected by content):
#                    profile --image, calltree, index + dump calls, callinfo;
#                    a zstd dump; damaged files give FILE: offset N errors
set -u
case=$1
P=$2
T=$TK_BIN
W=$P.$case
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
run() { "$@" || bad "$* (exit $?)"; }

# "EA WORD" per line from a stream, and from a qtdis -r listing
stream_words() { awk '{ print $1, $2 }' "$1"; }
listing_words() { awk -F '\t' '{ ea = $1; b = $2; gsub(/ /, "", ea); gsub(/ /, "", b); print ea, b }' "$1"; }

stream_words "$P.stream" >"$W.want"
case $case in
qtwrite)
	run "$T" qtwrite -o "$W.qt" "$P.stream"
	run "$T" qtdis -r "$W.qt" >"$W.dis"
	listing_words "$W.dis" | cmp -s - "$W.want" || bad "qtdis -r of the Qtrace file differs from the stream"
	run "$TK_POWER_TEST" "$P.stream" "$W.qt"
	# symbols from the ELF: addresses and branch targets as <sym+0xoff>
	"$T" qtdis -e "$P.elf" "$W.qt" >"$W.sym" || bad "qtdis -e"
	grep -Eq '^[0-9a-f]{16} <fib\+0x[0-9a-f]+> 	' "$W.sym" || bad "qtdis -e: no address in fib"
	grep -Eq 'bl +[0-9a-f]{16} <fib\+0x[08]> $' "$W.sym" || bad "qtdis -e: no call to fib"
	# reading from standard input
	"$T" qtwrite -o "$W.stdin.qt" - <"$P.stream" || bad "qtwrite from stdin"
	cmp -s "$W.qt" "$W.stdin.qt" || bad "qtwrite from stdin differs"
	;;
htm-power10 | htm-power8 | htm-power8-full)
	enc=${case#htm-}
	run "$T" qtwrite --htm="$enc" -o "$W.htm" "$P.stream"
	run "$T" htm2qt "$W.htm" -o "$W.qt"
	run "$T" qtdis -r "$W.qt" >"$W.dis"
	listing_words "$W.dis" | cmp -s - "$W.want" || bad "qtdis -r after the $enc dump differs from the stream"
	run "$TK_POWER_TEST" "$P.stream" "$W.htm"
	run "$TK_POWER_TEST" "$P.stream" "$W.qt"
	# the same listing as the Qtrace file written directly
	run "$T" qtwrite -o "$W.direct.qt" "$P.stream"
	"$T" qtdis "$W.direct.qt" >"$W.direct.dis" || bad "qtdis"
	"$T" qtdis "$W.qt" | cmp -s - "$W.direct.dis" || bad "listings of the direct and the $enc Qtrace files differ"
	# a compressed dump decodes the same
	command -v zstd >/dev/null && zstd -q -c <"$W.htm" >"$W.htm.zst" && run "$T" htm2qt "$W.htm.zst" -o "$W.zst.qt" &&
		{ cmp -s "$W.qt" "$W.zst.qt" || bad "zstd dump decodes differently"; }
	;;
calls)
	expect="fib=465 apply=8 square=4 twice=4 sum=1"
	case $P in *power8*) expect="$expect main=1" ;; esac
	run "$T" qtwrite -o "$W.qt" "$P.stream"
	run "$T" qtwrite --htm -o "$W.htm" "$P.stream"
	# shellcheck disable=SC2086
	run "$TK_POWER_TEST" "$P.stream" "$W.qt" "$P.elf" $expect
	# shellcheck disable=SC2086
	run "$TK_POWER_TEST" "$P.stream" "$W.htm" "$P.elf" $expect
	;;
sources)
	expect="fib=465 apply=8 square=4 twice=4 sum=1"
	case $P in *power8*) expect="$expect main=1" ;; esac
	run "$T" qtwrite -o "$W.qt" "$P.stream"
	run "$T" qtwrite --htm -o "$W.htm" "$P.stream"
	# events, positions and seeking, through the library
	run "$TK_POWER_SOURCE_TEST" "$TK_DUMPS" "$W.qt" "$W.htm"
	# every instruction of the stream is one INSN event
	ninsn=$(grep -c '^[0-9a-fA-F]' "$P.stream")
	for f in "$W.qt" "$W.htm"; do
		fmt=qtrace
		case $f in *.htm) fmt=htm ;; esac
		"$T" index "$f" >"$W.idx" 2>&1 || bad "index $f"
		grep -q "^format: *$fmt " "$W.idx" || bad "$f not detected as $fmt"
		grep -q "^instructions: *$ninsn\$" "$W.idx" || bad "$f: not $ninsn instructions"
		"$T" profile --image="$P.elf" "$f" >"$W.prof" || bad "profile $f"
		"$T" calltree --image="$P.elf" "$f" >"$W.tree" || bad "calltree $f"
		"$T" dump "$f" calls >"$W.calls" || bad "dump calls $f"
		for e in $expect; do
			name=${e%=*} want=${e#*=}
			got=$(awk -v n="$name" '$4 == n { c += $2 } END { print c + 0 }' "$W.prof")
			[ "$got" = "$want" ] || bad "profile $f: $name called $got times, not $want"
			got=$(grep -c ": $name\$" "$W.tree")
			[ "$got" = "$want" ] || bad "calltree $f: $name $got times, not $want"
		done
		# the index's call tree: one activation per call of the program
		total=0
		for e in $expect; do total=$((total + ${e#*=})); done
		got=$(grep -c 'call pos' "$W.calls")
		[ "$got" -ge "$total" ] || bad "dump calls $f: $got calls, fewer than $total"
		"$T" callinfo --image="$P.elf" "$f" sum >"$W.ci" || bad "callinfo $f"
		grep -q "^Symbol 'sum' at 0x[0-9a-f]* ([0-9]* bytes) called from" "$W.ci" || bad "callinfo $f: sum"
		# a position read back through the index (seek): the record's instruction
		"$T" dump "$f" pos 5 >"$W.pos" || bad "dump pos $f"
		grep -q ' isa ppc64 width 4 ' "$W.pos" || bad "dump pos $f: $(cat "$W.pos")"
	done
	# a compressed dump is detected and read the same
	if command -v zstd >/dev/null; then
		zstd -q -c <"$W.htm" >"$W.zst"
		"$T" profile --image="$P.elf" "$W.zst" >"$W.zprof" || bad "profile of the zstd dump"
		"$T" profile --image="$P.elf" "$W.htm" | cmp -s - "$W.zprof" || bad "zstd dump profiles differently"
	fi
	# damage: a Qtrace file cut inside a record, a dump cut mid-word:
	# an error naming the file and byte offset, exit 1, no crash
	size=$(wc -c <"$W.qt")
	head -c $((size / 2 + 3)) "$W.qt" >"$W.cut.qt"
	"$T" profile "$W.cut.qt" >/dev/null 2>"$W.err"; rc=$?
	[ $rc = 1 ] || bad "cut Qtrace file: exit $rc, not 1"
	grep -q "^$W.cut.qt: offset 0x[0-9a-f]*: error: " "$W.err" || bad "cut Qtrace file: $(cat "$W.err")"
	size=$(wc -c <"$W.htm")
	head -c $((size / 2 + 5)) "$W.htm" >"$W.cut.htm"
	"$T" profile "$W.cut.htm" >/dev/null 2>"$W.err"; rc=$?
	[ $rc -le 1 ] || bad "cut dump: exit $rc"
	grep -q "offset 0x[0-9a-f]*" "$W.err" || bad "cut dump: no offset in $(cat "$W.err")"
	# 800 bytes of a dump overwritten: a warning at the record after them
	cp "$W.htm" "$W.bad.htm"
	awk 'BEGIN { for (i = 0; i < 800; i++) printf "Z" }' |
		dd of="$W.bad.htm" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	"$T" profile "$W.bad.htm" >/dev/null 2>"$W.err"; rc=$?
	[ $rc -le 1 ] || bad "damaged dump: exit $rc"
	grep -q "^$W.bad.htm: offset 0x[0-9a-f]*: warning: .*instructions may be missing" "$W.err" ||
		bad "damaged dump: $(cat "$W.err")"
	;;
*)
	bad "unknown case $case"
	;;
esac
rm -f "$W".*
exit $fail
