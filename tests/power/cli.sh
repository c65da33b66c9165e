#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of htm2qt, qtdis and qtwrite on the 11 public POWER10
# dumps (../shared/traces/htm).
#
# The expected listings (expected/NN.dis) and record lines (expected/NN.insn)
# were written from the format description: the records of its table of
# decoded test dumps, the Qtrace writer's rules for the flags of each
# record, and its qtdis line format (the description quotes whole lines of
# the upstream listings for dumps 03 and 04, which they match).  The
# disassembly column is libopcodes 2.40's: the upstream listing of dump 04
# has `rldicr  r3,r3,32,31` where 2.40 prints `sldi    r3,r3,32`.
#
#   cli.sh CASE      (TK_BIN, TK_DUMPS, TK_EXPECTED, TK_WORK in the environment)
set -u
case=$1
W=$TK_WORK/cli-$case
rm -rf "$W"
mkdir -p "$W"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
T=$TK_BIN
DUMPS="01 02 03 04 05 06 07 08 09 10 11"

# expect_exit CODE CMD...: run, keep stdout/stderr in $W/out, $W/err
expect_exit() {
	want=$1; shift
	"$@" >"$W/out" 2>"$W/err"
	got=$?
	[ "$got" = "$want" ] || bad "$*: exit $got, expected $want ($(head -c 300 "$W/err"))"
}

case $case in
listings)
	# htm2qt then qtdis -v, as the upstream test harness runs them (the
	# output option after the dump name)
	for n in $DUMPS; do
		expect_exit 0 "$T" htm2qt "$TK_DUMPS/$n.htm" -o "$W/$n.qt"
		expect_exit 0 "$T" qtdis -v "$W/$n.qt"
		cmp -s "$W/out" "$TK_EXPECTED/$n.dis" || { bad "listing $n differs"; diff "$W/out" "$TK_EXPECTED/$n.dis" | head -5 >&2; }
	done
	# the classic names are the same commands
	ln -sf "$T" "$W/htmdecoder"
	ln -sf "$T" "$W/qtdis"
	expect_exit 0 "$W/htmdecoder" -o "$W/a.qt" "$TK_DUMPS/03.htm"
	expect_exit 0 "$W/qtdis" -v "$W/a.qt"
	cmp -s "$W/out" "$TK_EXPECTED/03.dis" || bad "aliases: listing 03 differs"
	;;
insn_lines)
	for n in $DUMPS; do
		expect_exit 0 "$T" htm2qt -d "$TK_DUMPS/$n.htm" -o "$W/$n.qt"
		grep '^INSN' "$W/out" | cmp -s - "$TK_EXPECTED/$n.insn" || bad "-d lines of $n differ"
		grep -q '^                                    RAW Checksum : 0x' "$W/out" || bad "-d $n: no statistics block"
		grep -q 'Total Instructions Processed : ' "$W/out" || bad "-d $n: no instruction count"
	done
	# -D: also the stamps (a dump made by the encoder has a TIME stamp
	# every 256 instructions)
	awk 'BEGIN { for (i = 0; i < 600; i++) printf "%016x 60000000\n", 0x10000000 + 4 * i }' >"$W/nops.stream"
	expect_exit 0 "$T" qtwrite --htm -o "$W/nops.htm" "$W/nops.stream"
	expect_exit 0 "$T" htm2qt -D "$W/nops.htm" -o "$W/nops.qt"
	[ "$(grep -c '^TIME cycles = 256$' "$W/out")" = 3 ] || bad "-D: expected 3 TIME lines"
	[ "$(grep -c '^INSN ' "$W/out")" = 600 ] || bad "-D: expected 600 INSN lines"
	grep -q 'Total TimeStamps Processed : 3$' "$W/out" || bad "-D: stamp count"
	expect_exit 0 "$T" htm2qt -d "$W/nops.htm" -o "$W/nops.qt"
	grep -q '^TIME' "$W/out" && bad "-d prints stamps"
	;;
qt_bytes)
	# sizes of the Qtrace files, and the worked bytes of dumps 02 and 03
	set -- 35 48 59 494 38 38 48 43 51 30 30
	for n in $DUMPS; do
		expect_exit 0 "$T" htm2qt "$TK_DUMPS/$n.htm" -o "$W/$n.qt"
		size=$(wc -c <"$W/$n.qt")
		[ "$size" = "$1" ] || bad "$n.qt: $size bytes, expected $1"
		shift
	done
	# (the format description's worked bytes, spaces removed)
	[ "$(od -An -tx1 -v "$W/03.qt" | tr -d ' \n')" = \
	  "0000000000010002684007010000c000000000ea080c000000001e4bffffe4e05102000000""08c000000000ea07f0000000001e3929000100010000" ] ||
	  bad "03.qt bytes"
	[ "$(od -An -tx1 -v "$W/02.qt" | tr -d ' \n')" = \
	  "0000000000010002684007010000c000000000ea2e4c000000001eebed00300a010100c000007ffffef2b0000001ff1e" ] || bad "02.qt bytes"
	[ "$(od -An -tx1 -v -j8 -N2 "$W/10.qt" | tr -d ' \n')" = "6000" ] || bad "10.qt header flags"
	# a Qtrace file written twice is the same
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/04.htm" -o "$W/04b.qt"
	cmp -s "$W/04.qt" "$W/04b.qt" || bad "not deterministic"
	;;
htm2qt_options)
	expect_exit 2 "$T" htm2qt
	grep -q 'Expected arguments after options' "$W/err" || bad "no-dump message"
	grep -q 'Usage: ' "$W/err" || bad "no usage"
	expect_exit 2 "$T" htm2qt -s -o "$W/x.qt" "$TK_DUMPS/01.htm"
	grep -q 'ERROR: -s/-i/-b and -o options incompatible' "$W/err" || bad "-s -o message"
	expect_exit 2 "$T" htm2qt -x "$TK_DUMPS/01.htm"
	expect_exit 0 "$T" htm2qt --help
	grep -q '^Usage: ' "$W/out" || bad "--help"
	expect_exit 1 "$T" htm2qt "$W/missing.htm"
	grep -q 'missing.htm' "$W/err" || bad "missing file not named"
	expect_exit 1 "$T" htm2qt "$W"
	# default output: DUMP.qt
	cp "$TK_DUMPS/03.htm" "$W/d.htm"
	expect_exit 0 "$T" htm2qt "$W/d.htm"
	[ -s "$W/d.htm.qt" ] || bad "no default output"
	# -s: the statistics block and no Qtrace file
	rm -f "$W/d.htm.qt"
	expect_exit 0 "$T" htm2qt -s "$W/d.htm"
	[ -e "$W/d.htm.qt" ] && bad "-s wrote a Qtrace file"
	grep -q '    Total Instructions Processed : 2$' "$W/out" || bad "-s instruction count"
	grep -q '             64K instruction pages : 0$' "$W/out" || bad "-s pages"
	# an output that cannot be created
	expect_exit 1 "$T" htm2qt "$TK_DUMPS/01.htm" -o "$W/no/such/dir/x.qt"
	;;
qtdis_options)
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/03.htm" -o "$W/03.qt"
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/09.htm" -o "$W/09.qt"
	expect_exit 0 "$T" qtdis -r "$W/03.qt"
	printf 'c000000000ea080c \t4b ff ff e4 \tb       c000000000ea07f0 \nc000000000ea07f0 \t39 29 00 01 \taddi    r9,r9,1\n' |
		cmp -s - "$W/out" || bad "-r"
	expect_exit 0 "$T" qtdis -r --host-order "$W/03.qt"
	head -1 "$W/out" | grep -q '	e4 ff ff 4b 	b ' || bad "--host-order"
	expect_exit 0 "$T" qtdis -r -v "$W/09.qt"
	head -1 "$W/out" | grep -q '^000000012fd507dc 	07 00 00 00 00 00 00 00 	pnop$' || bad "-r prefixed"
	expect_exit 0 "$T" qtdis -d 1 "$W/03.qt"
	printf 'IFTCH EA:0xc000000000ea080c RA:0x0000000000000000 PAGE_SIZE:0x40000000\nIFTCH EA:0xc000000000ea07f0\n' |
		cmp -s - "$W/out" || bad "-d 1"
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/02.htm" -o "$W/02.qt"
	expect_exit 0 "$T" qtdis -d 1 "$W/02.qt"
	grep -q '^LDST EA:0xc000007ffffef2b0 RA:0x00000000001ff000 PAGE_SIZE:0x40000000$' "$W/out" || bad "-d 1 LDST"
	expect_exit 2 "$T" qtdis -d 2 "$W/03.qt"
	grep -q 'Unknown dump strategy 2' "$W/err" || bad "-d 2 message"
	expect_exit 0 "$T" qtdis -b "$W/03.qt"
	printf '#include "qtb.h"\nstart_trace\t0xc000000000ea080c\n# instruction number 0\nb       _dummy_c000000000ea07f0 \nbranch_to_abs\t0xc000000000ea07f0\naddi    r9,r9,1\n' |
		cmp -s - "$W/out" || { bad "-b"; cat "$W/out" >&2; }
	expect_exit 2 "$T" qtdis -s -v "$W/03.qt"
	grep -q 'Dumping stats (-s/-i/-c) can only be used alone' "$W/err" || bad "-s -v message"
	expect_exit 2 "$T" qtdis
	expect_exit 2 "$T" qtdis -z "$W/03.qt"
	expect_exit 0 "$T" qtdis --help
	expect_exit 1 "$T" qtdis "$W/missing.qt"
	expect_exit 1 "$T" qtdis "$TK_DUMPS/01.htm"
	grep -q '01.htm: offset 0' "$W/err" || bad "not-Qtrace message"
	;;
reports)
	expect_exit 0 "$T" htm2qt -i "$TK_DUMPS/04.htm"
	head -1 "$W/out" | grep -Eq '^nop +8 +16\.327%$' || bad "-i first line: $(head -1 "$W/out")"
	[ "$(wc -l <"$W/out")" -ge 20 ] || bad "-i: too few mnemonics"
	cp "$W/out" "$W/mix-htm"
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/04.htm" -o "$W/04.qt"
	expect_exit 0 "$T" qtdis -i "$W/04.qt"
	cmp -s "$W/out" "$W/mix-htm" || bad "qtdis -i and htm2qt -i differ"
	expect_exit 0 "$T" htm2qt -b "$TK_DUMPS/04.htm"
	# each of the 25 branches ends a block (the last instruction is one)
	grep -q '^basic blocks executed:  25$' "$W/out" || { bad "-b block count"; cat "$W/out" >&2; }
	grep -q '^  0000000010000670              1        1$' "$W/out" || bad "-b hottest list"
	expect_exit 0 "$T" qtdis -c "$W/04.qt"
	grep -q '^basic blocks executed:  25$' "$W/out" || bad "qtdis -c"
	expect_exit 0 "$T" qtdis -s "$W/04.qt"
	grep -Eq '^instructions +49$' "$W/out" || bad "qtdis -s instructions"
	grep -Eq '^branches +25$' "$W/out" || bad "qtdis -s branches"
	grep -Eq '^64K +49$' "$W/out" || bad "qtdis -s pages"
	;;
damaged)
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/04.htm" -o "$W/04.qt"
	# cut inside the 20th record: 19 lines, then an error naming the offset
	head -c 200 "$W/04.qt" >"$W/cut.qt"
	expect_exit 1 "$T" qtdis -v "$W/cut.qt"
	[ "$(wc -l <"$W/out")" -ge 15 ] || bad "records before the damage not printed"
	head -n "$(wc -l <"$W/out")" "$TK_EXPECTED/04.dis" | cmp -s - "$W/out" || bad "damaged listing differs"
	grep -q 'cut.qt: offset [0-9]*: the file ends inside a record' "$W/err" || bad "damage message: $(cat "$W/err")"
	# a cut dump: the instructions before the cut, exit 0, a warning
	head -c 500 "$TK_DUMPS/04.htm" >"$W/cut.htm"
	expect_exit 0 "$T" htm2qt "$W/cut.htm" -o "$W/cut.htm.qt"
	expect_exit 0 "$T" qtdis -v "$W/cut.htm.qt"
	[ "$(wc -l <"$W/out")" -ge 20 ] || bad "cut dump: too few records"
	# empty files, random bytes
	: >"$W/empty"
	expect_exit 1 "$T" qtdis "$W/empty"
	grep -q 'empty' "$W/err" || bad "empty Qtrace message"
	expect_exit 0 "$T" htm2qt "$W/empty" -o "$W/empty.qt"
	grep -q 'no instructions' "$W/err" || bad "empty dump message"
	head -c 4096 /dev/urandom >"$W/random"
	"$T" qtdis -v "$W/random" >/dev/null 2>&1
	[ $? -le 1 ] || bad "qtdis on random bytes"
	"$T" htm2qt "$W/random" -o "$W/random.qt" >/dev/null 2>&1
	[ $? -le 1 ] || bad "htm2qt on random bytes"
	;;
compressed)
	expect_exit 0 "$T" htm2qt "$TK_DUMPS/04.htm" -o "$W/plain.qt"
	for z in gzip zstd xz; do
		command -v $z >/dev/null || continue
		$z -c <"$TK_DUMPS/04.htm" >"$W/04.htm.$z" 2>/dev/null
		expect_exit 0 "$T" htm2qt "$W/04.htm.$z" -o "$W/$z.qt"
		cmp -s "$W/plain.qt" "$W/$z.qt" || bad "$z dump decodes differently"
	done
	gzip -c <"$W/plain.qt" >"$W/plain.qt.gz"
	expect_exit 0 "$T" qtdis -v "$W/plain.qt.gz"
	cmp -s "$W/out" "$TK_EXPECTED/04.dis" || bad "gzip Qtrace file"
	;;
*)
	bad "unknown case $case"
	;;
esac
exit $fail
