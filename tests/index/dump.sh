#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `tracekit index` and `tracekit dump`: each case runs
# commands on a trace and compares their output with the expected text
# written inline.  The hand-made traces (tests/index/*.tarmac) say in their
# instruction comments what each line does; the expected values follow from
# the lines above the queried position.
#
# usage: dump.sh CASE   (environment: TK_BIN TK_TRACES TK_TESTS TK_WORK)
set -u
: "${TK_BIN:?}" "${TK_TRACES:?}" "${TK_TESTS:?}" "${TK_WORK:?}"
rm -rf "$TK_WORK"
mkdir -p "$TK_WORK"
fail=0

# expect EXPECTED CMD...: run CMD and compare its standard output.
expect() {
	want=$1
	shift
	if ! got=$("$@" 2>"$TK_WORK/stderr"); then
		echo "FAILED (exit status): $*"
		cat "$TK_WORK/stderr"
		fail=1
		return
	fi
	if [ "$got" != "$want" ]; then
		echo "FAILED: $*"
		echo "--- expected"
		echo "$want"
		echo "--- got"
		echo "$got"
		fail=1
	fi
}

# expect_error MESSAGE CMD...: CMD must fail with exit status 2 (a usage
# error), print nothing and say MESSAGE on standard error.
expect_error() {
	want=$1
	shift
	got=$("$@" 2>"$TK_WORK/stderr")
	status=$?
	if [ $status != 2 ] || [ -n "$got" ] || ! grep -q "$want" "$TK_WORK/stderr"; then
		echo "FAILED (expected error '$want', status 2): $*"
		echo "status $status, stdout '$got', stderr: $(cat "$TK_WORK/stderr")"
		fail=1
	fi
}

# dump TRACE QUERY...: with the index in the work directory.
dump() {
	t=$1
	shift
	"$TK_BIN" dump -q --index="$TK_WORK/$(basename "$t").index" "$t" "$@"
}

T=$TK_TESTS
case $1 in
summary)
	# Build time and paths vary: compare the rest.
	summary() {
		"$TK_BIN" index --index="$TK_WORK/q.index" "$TK_TRACES/quicksort.tarmac" |
			grep -v -e '^build time' -e '^open time' -e '^trace:' -e '^index:'
	}
	expect "format:            tarmac (instructions,registers,memory,memory-values,contexts,text,seek)
lines:             4322
instructions:      2044
calls:             28
registers seen:    65
register updates:  1398
memory accesses:   788
memory bytes known: 275 of 275 touched
semihosting calls: 2
byte order:        little-endian (--li)" summary
	expect "" "$TK_BIN" index -q --index="$TK_WORK/q.index" "$TK_TRACES/quicksort.tarmac"
	# the alias behaves the same
	ln -sf "$TK_BIN" "$TK_WORK/tarmac-index"
	expect "instructions:      4" sh -c "'$TK_WORK/tarmac-index' --index='$TK_WORK/i.index' \
		'$TK_TRACES/indextest.tarmac' | grep '^instructions'"
	;;
dump)
	I=$TK_TRACES/indextest.tarmac
	expect "pos 2 line 5 offset 219 time 120 pc 0x8008 isa A64 width 4 executed encoding f9020909 lines 5-7 bytes 219-371" \
		dump "$I" pos 6
	expect "pos 0 line 1 offset 0 time 100 pc 0x8000 isa A64 width 4 executed encoding d2a00028 lines 1-2 bytes 0-97" \
		dump "$I" pos '#0'
	expect "pos 3 line 8 time 130 pc 0x800c" dump "$I" find-time 121
	expect "none" dump "$I" find-time 131
	expect "pos 1 line 3 time 110 pc 0x8004" dump "$I" find-pc '#0' 0x8004
	expect "none" dump "$I" find-pc '#1' 0x8004
	expect "pos 0 line 1 time 100 pc 0x8000" dump "$I" find-pc end 0x8000 back
	;;
regs)
	expect "x0 0000000000000001
x1 ????????89abcdef
v0 ????????????????3ff0000000000000
v1 00112233000000018899aabbccddeeff" dump "$T/regs-a64.tarmac" regs 10
	expect "x0 0000000000000001
x1 0000000000001234
x2 0000000000001234
xsp 0000000000100010
v0 ????????????????3ff0000000000000
v1 00112233000000018899aabbccddeeff
v2 ????????????????????????3f800000
psr 600003cd" dump "$T/regs-a64.tarmac" regs end
	expect "w1 89abcdef
d1 8899aabbccddeeff
s0 00000000
sp ????????????????" dump "$T/regs-a64.tarmac" reg 11 w1 d1 s0 sp
	expect "s1 3f800000
d0 3f800000????????
d1 4000000000000000
q0 40000000000000003f800000????????
sp 00000001" dump "$T/regs-a32.tarmac" reg 8 s1 d0 d1 q0 sp
	;;
mem)
	M=$T/mem-le.tarmac
	expect "2000: 88 77 66 55 44 33 22 11 ef be ?? ?? ?? ?? ?? ??" dump "$M" mem 1 0x2000 16
	expect "2000: 99 aa 66 55 44 33 22 11 ef be ?? ?? ?? ?? ?? ??" dump "$M" mem 16 0x2000 16
	expect "2030: ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ef be
2040: ad de ?? ??" dump "$M" mem 14 0x2030 20
	expect "2000: 00 00 00 00 11 22 33 44" dump "$M" mem 18 0x2000 8
	expect "3000: 11 22 33 44 aa bb" \
		"$TK_BIN" dump -q --bi --index="$TK_WORK/be.index" "$T/mem-be.tarmac" mem end 0x3000 6
	expect "3000: 44 33 22 11 bb aa" \
		"$TK_BIN" dump -q --li --index="$TK_WORK/be.index" "$T/mem-be.tarmac" mem end 0x3000 6
	;;
history)
	M=$T/mem-le.tarmac
	expect "pos 1 line 4 time 2 pc 0x1004
pos 5 line 14 time 6 pc 0x1014
pos 6 line 17 time 7 pc 0x1018" dump "$M" history mem 0x2000 2
	expect "pos 4 line 12 time 5 pc 0x1010" dump "$M" history mem 0x2040 1
	expect "" dump "$M" history mem 0x2008 2
	expect "none" dump "$M" prev-write mem 12 0x2000
	expect "pos 1 line 4 time 2 pc 0x1004" dump "$M" prev-write mem 12 0x2000 2
	expect "pos 5 line 14 time 6 pc 0x1014" dump "$M" prev-write mem 14 0x2000
	expect "pos 5 line 14 time 6 pc 0x1014" dump "$M" next-write mem 4 0x2000 8
	expect "2001-2001 (1 bytes)
203e-2041 (4 bytes)" dump "$M" changes '#0' '#4'
	expect "203e-203f (2 bytes)" dump "$M" changes '#0' '#4' 0x2002 0x203f
	R=$T/regs-a64.tarmac
	expect "pos 1 line 4 time 2 pc 0x1004
pos 5 line 12 time 6 pc 0x1014" dump "$R" history reg w1
	expect "pos 3 line 8 time 4 pc 0x100c" dump "$R" prev-write reg 11 d1
	expect "pos 4 line 10 time 5 pc 0x1010" dump "$R" prev-write reg 11 v1
	expect "pos 6 line 14 time 7 pc 0x1018" dump "$R" next-write reg 1 s2
	expect "pos 0 line 2 time 1 pc 0x1000" dump "$R" prev-write reg 1 x0
	;;
ranges)
	# Empty ranges and ranges past 2^64 are errors, not "never written"
	# (history used to print nothing and succeed) or a silent failure.
	M=$T/mem-le.tarmac
	expect_error "empty range" dump "$M" history mem 0x2000 0
	expect_error "past the top" dump "$M" history mem 0xffffffffffffffff 2
	expect_error "empty range" dump "$M" prev-write mem 12 0x2000 0
	expect_error "past the top" dump "$M" next-write mem 12 0xfffffffffffffff0 17
	expect_error "past the top" dump "$M" mem end 0xfffffffffffffff0 17
	# a range ending exactly at 2^64 is fine
	expect "fffffffffffffff0: ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??" \
		dump "$M" mem end 0xfffffffffffffff0 16
	expect "" dump "$M" history mem 0xffffffffffffffff 1
	expect "none" dump "$M" prev-write mem end 0xfffffffffffffff0 16
	;;
semihost)
	S=$T/semihost-a64.tarmac
	expect "4000: ?? ?? ?? ?? ?? ?? ?? ?? 00 00 00 00 00 00 00 00" dump "$S" mem '#4' 0x4000 16
	expect "4000: 61 62 63 64 65 66 67 68 69 ?? ?? ?? ?? ?? ?? ??" dump "$S" mem '#5' 0x4000 16
	expect "pos 5 line 12 time 6 pc 0x1014" dump "$S" prev-write mem end 0x400f
	S=$T/semihost-a32.tarmac
	expect "6000: 00 00 10 00 ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??" dump "$S" mem '#3' 0x6000 16
	expect "6000: ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??" dump "$S" mem '#2' 0x6000 16
	expect "7000: 34 12 00 00 ?? ?? ?? ??" dump "$S" mem '#7' 0x7000 8
	expect "semihosting calls: 2" sh -c "'$TK_BIN' index --index='$TK_WORK/s.index' '$S' | grep semihosting"
	;;
quicksort)
	Q=$TK_TRACES/quicksort.tarmac
	# "array" in quicksort.elf is at 0x80fc (tracekit symbols quicksort.elf array)
	expect "80fc: 74 68 65 71 75 69 63 6b 62 72 6f 77 6e 66 6f 78
810c: 6a 75 6d 70 73 6f 76 65 72 74 68 65 6c 61 7a 79
811c: 64 6f 67" dump "$Q" mem '#0' 0x80fc 35
	expect "80fc: 61 62 63 64 65 65 65 66 67 68 68 69 6a 6b 6c 6d
810c: 6e 6f 6f 6f 6f 70 71 72 72 73 74 74 75 75 76 77
811c: 78 79 7a" dump "$Q" mem end 0x80fc 35
	# the last write to the array: the STRB of line 4203 (instruction 1998)
	expect "pos 1997 line 4203 time 1998 pc 0x8074" dump "$Q" prev-write mem end 0x80fc 35
	;;
calls)
	Q=$TK_TRACES/quicksort.tarmac
	expect "0: entry pos 0 line 157 pc 0x8000 - exit pos 2043 line 4321
  1: entry pos 9 line 177 pc 0x8038 - exit pos 2026 line 4285; call pos 8, resume pos 2027
    2: entry pos 366 line 860 pc 0x8038 - exit pos 1767 line 3735; call pos 365, resume pos 1768" \
		sh -c "'$TK_BIN' dump -q --index='$TK_WORK/q.index' '$Q' calls | head -3"
	expect "call 5 entry pos 685 exit pos 691" dump "$Q" call-at '#688'
	expect "call 4 entry pos 655 exit pos 731" dump "$Q" call-at '#692'
	expect "call 0 entry pos 0 exit pos 2043" dump "$Q" call-at "#2035"
	expect "call 28 entry pos 2029 exit pos 2032" dump "$Q" call-at "#2030"
	;;
*)
	echo "unknown case $1"
	exit 2
	;;
esac
exit $fail
