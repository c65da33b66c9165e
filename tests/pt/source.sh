#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Intel PT as a trace source: the report tools on the streams gen.sh made
# from recorded runs of tests/pt/progs/calls.c.  The call counts must be
# what the program counted itself (NAME.counts: "ADDR COUNT NAME"), and
# fib(11) makes exactly 287 calls (C(n) = C(n-1) + C(n-2) + 1).
# Usage: source.sh CASE (environment: TK_BIN, TK_WORK = gen.sh's directory).
set -u
bin=${TK_BIN:?}
work=${TK_WORK:?}
cd "$work" || exit 1
[ -f static.rec ] || { echo "no recordings (ptrace refused?): skipped"; exit 77; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
tmp=src.$$
trap 'rm -f $tmp.*' EXIT

# imgs PROG: --image/--raw options for a recording's mappings (ELF@ADDR)
imgs() {
	sed 's/^elf:/--image=/; s/^raw:/--raw=/' "$1.images"
}

# check_counts WHAT COUNTS FILE: each function of COUNTS appears COUNT
# times as " : NAME" activations in the call tree FILE
check_counts() {
	while read -r _ n name; do
		c=$(grep -c ": $name\$" "$3")
		[ "$c" = "$n" ] || fail "$1: $name called $c times, the program counted $n"
	done < "$2"
	c=$(grep -c ': fib$' "$3")
	[ "$c" = 287 ] || fail "$1: fib(11) made $c calls, not 287"
}

case_calltree() {
	# Raw PT with --image (static at its own addresses, and relocated
	# ELF@ADDR; the PIE with libc and ld.so), every variant.
	for v in base psb16 tnt64 noretcomp interrupts all; do
		"$bin" calltree --no-index --image="$PWD/calls-static" static-$v.pt > $tmp.ct 2> $tmp.err ||
			fail "static-$v: status $? ($(head -2 $tmp.err))"
		check_counts "static-$v" static.counts $tmp.ct
		"$bin" calltree --no-index $(imgs pie) pie-$v.pt > $tmp.ct 2> $tmp.err ||
			fail "pie-$v: status $? ($(head -2 $tmp.err))"
		check_counts "pie-$v" pie.counts $tmp.ct
		[ -s $tmp.err ] && fail "pie-$v: unexpected diagnostics: $(head -2 $tmp.err)"
	done
	# Calls through the PLT: the activation starts at the PLT stub.
	grep -q 'pc:0x5555555550[0-9a-f]* .* : _init + 0x[0-9a-f]*$' $tmp.ct ||
		fail "pie: no activation of a PLT stub"
	# perf.data: no --image, the MMAP2 records give the code and symbols.
	for prog in static pie; do
		"$bin" calltree --no-index $prog-psb64.data > $tmp.ct 2> $tmp.err ||
			fail "$prog perf: status $?"
		check_counts "$prog perf" $prog.counts $tmp.ct
		"$bin" calltree --no-index $(imgs $prog) $prog-psb64.pt > $tmp.raw 2> /dev/null
		cmp -s $tmp.ct $tmp.raw || fail "$prog: perf.data and raw PT give different trees"
	done
	# Two CPUs: one tree each, each with the program's counts.
	"$bin" calltree --no-index static-2cpu.data > $tmp.ct 2> /dev/null
	[ "$(grep -c '^cpu[01]:$' $tmp.ct)" = 2 ] || fail "2 CPUs: not one tree per CPU"
	"$bin" calltree --no-index --context=1 static-2cpu.data > $tmp.c1 2> /dev/null
	check_counts "cpu 1" static.counts $tmp.c1
}

case_reports() {
	"$bin" profile --no-index static-psb64.data > $tmp.prof 2> /dev/null || fail "profile: status $?"
	while read -r a n name; do
		row=$(awk -v a="0x$a" '$1 == a' $tmp.prof)
		set -- $row
		[ "${2:-}" = "$n" ] && [ "${4:-}" = "$name" ] ||
			fail "profile: '$row' for $name, want count $n"
	done < static.counts
	"$bin" profile --no-index --image=calls-static static-base.pt > $tmp.raw 2> /dev/null
	cmp -s $tmp.prof $tmp.raw || fail "profile: perf.data and raw PT differ"
	c=$("$bin" callinfo --no-index static-psb64.data fib 2> /dev/null | grep -c '^ - time:')
	[ "$c" = 287 ] || fail "callinfo fib: $c calls listed, not 287"
	c=$("$bin" callinfo --no-index static-psb64.data leaf 2> /dev/null | grep -c '^ - time:')
	[ "$c" = 5 ] || fail "callinfo leaf: $c calls listed, not 5"
	"$bin" flamegraph --no-index static-psb64.data > $tmp.fg 2> /dev/null || fail "flamegraph: status $?"
	# fib(11) recurses down to fib(1): 11 fib frames at most.
	deepest=$(awk '{ n = gsub(/;fib/, ""); if (n > m) m = n } END { print m + 0 }' $tmp.fg)
	[ "$deepest" = 11 ] || fail "flamegraph: deepest fib recursion $deepest, not 11"
	grep -q '^_start;__libc_start_main;__libc_start_call_main;main;qsort' $tmp.fg ||
		fail "flamegraph: no main;qsort stack"
	grep -q ';deep;deep;deep;deep;deep;deep ' $tmp.fg || fail "flamegraph: deep(6) chain missing"
}

case_formats() {
	"$bin" formats > $tmp.f || fail "formats: status $?"
	grep -q '^pt$' $tmp.f && grep -q '^perf$' $tmp.f || fail "formats: pt and perf not listed"
	grep -A3 '^pt$' $tmp.f | grep -q 'instructions,calls' || fail "formats: pt capabilities"
	# Detection by content, whatever the name.
	cp static-base.pt $tmp.bin
	cp static-psb64.data $tmp.trace
	"$bin" calltree --no-index --image=calls-static $tmp.bin > $tmp.ct 2> $tmp.err ||
		fail "raw PT named .bin not detected: $(head -1 $tmp.err)"
	check_counts "raw PT .bin" static.counts $tmp.ct
	"$bin" calltree --no-index $tmp.trace > $tmp.ct 2> /dev/null || fail "perf.data named .trace not detected"
	check_counts "perf .trace" static.counts $tmp.ct
	# PAD bytes before the first PSB.
	{ head -c 100 /dev/zero; cat static-base.pt; } > $tmp.pad
	"$bin" calltree --no-index --image=calls-static $tmp.pad > $tmp.ct 2> $tmp.err ||
		fail "PAD before the PSB: $(head -1 $tmp.err)"
	# Raw PT without code: a clear error.
	"$bin" calltree --no-index static-base.pt > /dev/null 2> $tmp.err
	[ $? = 1 ] && grep -q 'needs the traced code' $tmp.err || fail "raw PT without --image: $(cat $tmp.err)"
}

case_gap() {
	# perf lost data: reported with its offset, the tree goes on.
	"$bin" calltree --no-index static-lost.data > $tmp.ct 2> $tmp.err || fail "lost: status $?"
	grep -q 'static-lost.data: offset 0x[0-9a-f]*: warning: .*TRUNCATED' $tmp.err ||
		fail "lost: no warning with the offset: $(cat $tmp.err)"
	[ "$(grep -c ': fib$' $tmp.ct)" = 287 ] || fail "lost: fib (before the gap) not 287"
	[ "$(grep -c ': leaf$' $tmp.ct)" = 5 ] || fail "lost: leaf (after the gap) not 5"
	# A damaged stream: garbage in the middle of a PSB segment.
	size=$(wc -c < static-psb64.pt)
	half=$((size / 2))
	{ head -c $half static-psb64.pt; printf '\377\377\377\377\377\377\377\377';
	  tail -c +$((half + 9)) static-psb64.pt; } > $tmp.pt
	"$bin" calltree --no-index --image=calls-static $tmp.pt > $tmp.ct 2> $tmp.err ||
		fail "damaged: status $?"
	grep -q "$tmp.pt: offset 0x[0-9a-f]*: warning: .*error.*, resumed at 0x[0-9a-f]*" $tmp.err ||
		fail "damaged: no warning with offset and resume point: $(head -3 $tmp.err)"
	[ "$(grep -c ': leaf$' $tmp.ct)" = 5 ] || fail "damaged: the tree did not go on (leaf)"
	grep -q ': main$' $tmp.ct || fail "damaged: main lost"
}

case_index() {
	cp static-base.pt $tmp.pt
	"$bin" index --image=calls-static $tmp.pt > $tmp.sum 2> $tmp.err || fail "index: status $? $(cat $tmp.err)"
	grep -q '^format: *pt, --image=calls-static' $tmp.sum || fail "index summary: $(grep format $tmp.sum)"
	"$bin" calltree -v --image=calls-static $tmp.pt > $tmp.ct 2> $tmp.err
	grep -q 'reusing index' $tmp.err || fail "index not reused: $(cat $tmp.err)"
	check_counts "indexed" static.counts $tmp.ct
	"$bin" calltree --no-index --image=calls-static $tmp.pt > $tmp.ct2 2> /dev/null
	cmp -s $tmp.ct $tmp.ct2 || fail "indexed and streamed trees differ"
	"$bin" profile --image=calls-static $tmp.pt > $tmp.p1 2> /dev/null
	"$bin" profile --no-index --image=calls-static $tmp.pt > $tmp.p2 2> /dev/null
	cmp -s $tmp.p1 $tmp.p2 || fail "indexed and streamed profiles differ"
	# Another --image, another --cpu: the index is stale and rebuilt.
	"$bin" index -v --image=calls-static@0x400000 $tmp.pt > /dev/null 2> $tmp.err
	grep -q 'built with --image=calls-static, not --image=calls-static@0x400000' $tmp.err ||
		fail "--image change not seen: $(cat $tmp.err)"
	"$bin" index -v --cpu=6/142/10 --image=calls-static@0x400000 $tmp.pt > /dev/null 2> $tmp.err
	grep -q 'not --cpu=6/142/10' $tmp.err || fail "--cpu change not seen: $(cat $tmp.err)"
	"$bin" calltree -v --cpu=6/142/10 --image=calls-static@0x400000 $tmp.pt > $tmp.ct 2> $tmp.err
	grep -q 'reusing index' $tmp.err || fail "rebuilt index not reused: $(cat $tmp.err)"
	check_counts "rebuilt index" static.counts $tmp.ct
	# Every --raw counts: an index built with two is stale for one.
	vdso=$(sed -n 's/^raw://p' static.images)
	"$bin" index --image=calls-static --raw=$vdso --raw=${vdso%@*}@0x7fff00000000 $tmp.pt \
		> /dev/null 2>&1 || fail "index with two --raw: status $?"
	"$bin" calltree -v --image=calls-static --raw=${vdso%@*}@0x7fff00000000 $tmp.pt \
		> /dev/null 2> $tmp.err
	grep -q 'reusing index' $tmp.err && fail "an index built with two --raw reused for one"
	grep -q "built with .*raw=$vdso.*, not " $tmp.err ||
		fail "two --raw: the stale index not explained: $(cat $tmp.err)"
	rm -f $tmp.pt.index
}

case_bad() {
	# Truncated, corrupted, garbage: a message, a status, no crash.
	head -c 40 static-base.pt > $tmp.pt
	"$bin" calltree --no-index --image=calls-static $tmp.pt > /dev/null 2> $tmp.err
	st=$?
	[ $st -lt 2 ] || fail "truncated raw PT: status $st"
	head -c 3000 /dev/urandom > $tmp.pt
	"$bin" calltree --no-index --image=calls-static $tmp.pt > /dev/null 2> $tmp.err
	st=$?
	[ $st -lt 2 ] || fail "garbage .pt: status $st ($(head -2 $tmp.err))"
	for f in truncated.data pipe.data compressed.data; do
		"$bin" calltree --no-index $f > /dev/null 2> $tmp.err
		st=$?
		[ $st = 1 ] || fail "$f: status $st, want 1"
		grep -q "^$f\|$f:" $tmp.err || fail "$f: the message does not name the file: $(cat $tmp.err)"
	done
	grep -q 'not supported' $tmp.err || fail "compressed.data: $(cat $tmp.err)"
	# A perf.data cut in the middle of its AUX data.
	size=$(wc -c < static-psb64.data)
	head -c $((size * 2 / 3)) static-psb64.data > $tmp.data
	"$bin" calltree --no-index $tmp.data > /dev/null 2> $tmp.err
	st=$?
	[ $st -lt 2 ] || fail "cut perf.data: status $st"
	[ -s $tmp.err ] || fail "cut perf.data: no message"
}

case_runs() {
	# The streaming report tools read runs of instructions; the index is
	# built from one event per instruction.  Both must give the same
	# activations at the same positions, on every variant and with 1 and
	# 2 threads; and parse --runs must cover the instruction flow exactly.
	for prog in static pie; do
		if [ $prog = static ]; then o="--image=$PWD/calls-static"; else o=$(imgs pie); fi
		for v in base psb16 tnt64 noretcomp interrupts all; do
			f=$prog-$v.pt
			cp $f $tmp.pt
			"$bin" index $o $tmp.pt > /dev/null 2>&1 || fail "$f: index: status $?"
			"$bin" calltree -v $o $tmp.pt > $tmp.ix 2> $tmp.err
			grep -q 'reusing index' $tmp.err || fail "$f: index not used"
			"$bin" profile $o $tmp.pt > $tmp.pix 2> /dev/null
			for th in 1 2; do
				"$bin" calltree -v --no-index --threads=$th $o $f > $tmp.st 2> /dev/null ||
					fail "$f: calltree --threads=$th: status $?"
				cmp -s $tmp.ix $tmp.st ||
					fail "$f: streamed ($th threads) and indexed trees differ"
				"$bin" profile --no-index --threads=$th $o $f > $tmp.pst 2> /dev/null
				cmp -s $tmp.pix $tmp.pst ||
					fail "$f: streamed ($th threads) and indexed profiles differ"
			done
			"$bin" parse $o $f > $tmp.insn 2> /dev/null
			"$bin" parse --runs $o $f > $tmp.runs 2> /dev/null
			r=$(awk '
				FNR == NR {
					if ($3 == "INSN") {
						l = substr($1, 2); pc[l] = substr($4, 4); w[l] = substr($6, 3)
						insns++
					}
					next
				}
				$3 == "INSN" { bad++ }
				$3 == "RUN" {
					l = substr($1, 2); n = substr($4, 3); runs++; total += n
					# the last width: exact for a call, else that
					# of the instruction or 0 (not looked up)
					ww = substr($7, 3)
					if (pc[l] != substr($5, 7) || pc[l + n - 1] != substr($6, 6) ||
					    (w[l + n - 1] != ww && (ww != 0 || $8 == "branch=call")))
						bad++
					for (i = l; i < l + n; i++)
						if (!(i in pc))
							bad++
				}
				END { print bad + 0, runs + 0, total + 0, insns + 0 }' $tmp.insn $tmp.runs)
			set -- $r
			[ "$1" = 0 ] && [ "$3" = "$4" ] && [ "$2" -gt 0 ] && [ "$2" -lt "$4" ] ||
				fail "$f: parse --runs: $1 bad runs, $3 instructions in $2 runs, not $4"
		done
	done
	rm -f $tmp.pt.index
}

"case_$1"
[ $failures -eq 0 ] || exit 1
echo "ok"
