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
*)
	bad "unknown case $case"
	;;
esac
rm -f "$W".*
exit $fail
