#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of ptxed and ptdump on the data gen.sh made.
# Usage: cli.sh CASE (environment: TK_BIN, TK_WORK = gen.sh's directory).
set -u
bin=${TK_BIN:?}
work=${TK_WORK:?}
cd "$work" || exit 1
[ -f static.rec ] || { echo "no recordings (ptrace refused?): skipped"; exit 77; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# imgs PROG: ptxed's --image/--raw options for a recording's mappings
imgs() {
	grep '^map ' "$1.rec" | while read -r _ s e o p; do
		case $p in
		*.vdso) echo "--raw=$p@0x$s" ;;
		*) printf -- '--image=%s@0x%x\n' "$p" $((0x$s - 0x$o)) ;;
		esac
	done
}

# listing NAME LST CMD...: the addresses ptxed prints equal LST, no error
listing() {
	name=$1 lst=$2
	shift 2
	"$@" --no-inst > out.$$ 2> err.$$ || fail "$name: exit status $? ($(head -3 err.$$))"
	grep -v '^\[' out.$$ > addr.$$
	cmp -s addr.$$ "$lst" || fail "$name: listing differs from the recording ($(wc -l < addr.$$) vs $(wc -l < "$lst") lines; $(grep -m2 error out.$$))"
	rm -f out.$$ err.$$ addr.$$
}

# The instructions of parse --runs output on stdin: its runs' counts summed.
run_insns() {
	sed -n 's/.* RUN n=\([0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s }'
}

case_variants() {
	# Every variant, both decoders, 1 and 2 threads, whole and in pieces.
	for prog in static pie; do
		set -- $(imgs $prog)
		for v in base psb64 psb16 tnt64 noretcomp interrupts all; do
			for dec in --block-decoder --insn-decoder; do
				listing "$prog-$v $dec 1" $prog-$v.lst "$bin" ptxed $dec --threads=1 "$@" $prog-$v.pt
				listing "$prog-$v $dec 2" $prog-$v.lst "$bin" ptxed $dec --threads=2 --piece-size=64 "$@" $prog-$v.pt
			done
		done
	done
}

case_identical() {
	# The whole output (events, offsets, classes) is the same for any
	# thread count, and the alias and libipt's spellings give it too.
	set -- $(imgs static)
	"$bin" ptxed --offset --iclass --piece-size=100 --threads=1 "$@" static-all.pt > one.out
	# 2 threads: a worker and the reader, which decodes pieces too when
	# it would wait; 4: three workers beside it.
	for th in 2 4; do
		"$bin" ptxed --offset --iclass --piece-size=100 --threads=$th "$@" static-all.pt > two.out
		cmp -s one.out two.out || fail "1 and $th threads differ"
	done
	grep -q '^\[[0-9a-f]*  disabled\]$' one.out || fail "no [disabled] event"
	grep -q '^\[[0-9a-f]*  resumed\]$' one.out || fail "no [resumed] event"
	elf=$(grep '^map ' static.rec | head -1 | awk '{print $5}')
	"$(dirname "$bin")/ptxed" --pt static-base.pt --elf "$elf" --cpu 6/142/10 > alias.out
	"$bin" ptxed --image="$elf" static-base.pt > plain.out
	cmp -s alias.out plain.out || fail "ptxed alias with --pt/--elf/--cpu differs"
	head -3 plain.out | grep -q '^0000000000[0-9a-f]\{6\}  [a-z]' || fail "no disassembly: $(head -3 plain.out)"
	"$bin" ptxed --att --image="$elf" static-base.pt | sed -n 3p | grep -q '%' || fail "--att is not AT&T"
	rm -f one.out two.out alias.out plain.out
}

case_stat() {
	set -- $(imgs static)
	n=$(wc -l < static-base.lst)
	"$bin" ptxed --quiet --stat "$@" static-base.pt > stat.out
	grep -qx "insn: $n." stat.out || fail "--stat: $(cat stat.out), want insn: $n."
	grep -q '^blocks:	[1-9][0-9]*\.$' stat.out || fail "--stat: no block count"
	[ "$(wc -l < stat.out)" = 2 ] || fail "--quiet printed more than the statistics"
	"$bin" ptxed -q --stat --insn-decoder --threads=2 --piece-size=64 "$@" static-psb64.pt > stat.out
	grep -qx "insn: $n." stat.out || fail "--insn-decoder --stat: $(cat stat.out)"
	"$bin" ptxed --block:show-blocks --stat "$@" static-base.pt | grep -q '^\[block 1\]$' || fail "no [block 1]"
	rm -f stat.out
}

case_perf() {
	# perf.data: the same listing with no --image (MMAP2 records).
	for prog in static pie; do
		for v in psb64 base; do
			listing "$prog-$v.data" $prog-$v.lst "$bin" ptxed --threads=2 $prog-$v.data
		done
	done
	"$bin" ptxed --no-inst static-2cpu.data > two.out
	[ "$(grep -c '^\[buffer' two.out)" = 2 ] || fail "two buffers: $(grep '^\[buffer' two.out)"
	grep -q '^\[buffer 1, cpu 1\]$' two.out || fail "no [buffer 1, cpu 1]"
	"$bin" ptdump static-psb64.data | head -2 > dump.out
	printf '[buffer 0, cpu 0]\n0000000000000000  psb\n' | cmp -s - dump.out || fail "ptdump perf.data: $(cat dump.out)"
	rm -f two.out dump.out
}

case_perf_script() {
	# An independent decoder: perf's own, where perf works.
	command -v perf > /dev/null || { echo "no perf: skipped"; return; }
	for prog in static pie; do
		perf script -i $prog-base.data --itrace=i0ns -F ip > perf.out 2> /dev/null ||
			{ echo "perf script does not work here: skipped"; return; }
		awk '{ printf "%016s\n", $1 }' perf.out | tr ' ' 0 > perf.lst
		cmp -s perf.lst $prog-base.lst || fail "$prog: perf script disagrees ($(wc -l < perf.lst) vs $(wc -l < $prog-base.lst))"
	done
	rm -f perf.out perf.lst
}

case_damage() {
	# A lost AUX chunk: a gap, decoding resumes, non-zero status.
	"$bin" ptxed --no-inst static-lost.data > lost.out 2> lost.err && fail "lost data: exit status 0"
	grep -q 'gap: perf lost AUX data' lost.out || fail "lost data: no gap: $(grep '^\[' lost.out | head -3)"
	[ "$(grep -vc '^\[' lost.out)" -gt 1000 ] || fail "lost data: decoding did not resume"
	"$bin" ptxed pipe.data 2> err.out && fail "pipe mode: exit status 0"
	grep -q 'pipe-mode perf.data is not supported' err.out || fail "pipe mode: $(cat err.out)"
	"$bin" ptxed compressed.data 2> err.out && fail "compressed: exit status 0"
	grep -q 'compressed perf.data' err.out || fail "compressed: $(cat err.out)"
	"$bin" ptxed truncated.data 2> err.out && fail "truncated: exit status 0"
	grep -q 'truncated.data: .*offset' err.out || fail "truncated: $(cat err.out)"
	# An attribute section too short for the fields read from it (found by
	# fuzz_perf: a read past the end of the file).
	short=$(dirname "$0")/../../fuzz/seeds/perf/short-attr-section.data
	"$bin" ptxed --format=perf "$short" 2> err.out && fail "short attrs: exit status 0"
	grep -q 'short-attr-section.data: error: offset 0x3ea: the attribute section is too short' err.out ||
		fail "short attrs: $(cat err.out)"
	"$bin" ptxed static-base.pt 2> err.out && fail "no image: exit status 0"
	grep -q 'needs the traced code' err.out || fail "no image: $(cat err.out)"
	"$bin" ptxed --image=/nonexistent static-base.pt 2> err.out && fail "missing image: exit status 0"
	grep -q '/nonexistent: cannot open' err.out || fail "missing image: $(cat err.out)"
	head -c 5000 /dev/zero | tr '\0' 'x' > garbage.bin
	"$bin" ptdump garbage.bin 2> err.out && fail "garbage: exit status 0"
	grep -q 'neither Intel PT' err.out || fail "garbage: $(cat err.out)"
	# A flipped bit: [OFFSET, IP: error: MESSAGE], then more instructions.
	set -- $(imgs static)
	cp static-psb64.pt flip.pt
	printf '\377' | dd of=flip.pt bs=1 seek=700 conv=notrunc 2> /dev/null
	"$bin" ptxed --no-inst "$@" flip.pt > flip.out 2> /dev/null && fail "bit flip: exit status 0"
	grep -q '^\[[0-9a-f]*, [0-9a-f]*: error: ' flip.out || fail "bit flip: no error line"
	[ "$(grep -vc '^\[' flip.out)" -gt 20000 ] || fail "bit flip: decoding did not resume"
	# Bytes libipt takes for instructions and capstone does not (fe e8 at
	# 0x1012, mid-block; ff ff at 0x1015, a block's last): listed as
	# (bad), the size of the one mid-block inferred from the block's end,
	# the same instructions one by one as in runs.
	seeds=$(dirname "$0")/../../fuzz/seeds/pt
	printf '\061\300\377\300\203\370\005\165\371\350\002\000\000\000\377\343\303\353\376\350\373\377\377\377' > odd.code
	for dec in --block-decoder --insn-decoder; do
		"$bin" ptxed $dec --raw=odd.code@0x1000 "$seeds/unknown-insn-mid.pt" > odd.out 2> /dev/null
		tail -4 odd.out | head -3 | tr -s ' ' > odd.tail
		printf '0000000000001012 (bad)\n0000000000001014 sti\n0000000000001015 (bad)\n' |
			cmp -s - odd.tail || fail "unknown instructions, $dec: $(cat odd.tail)"
	done
	"$bin" parse --raw=odd.code@0x1000 "$seeds/unknown-insn-mid.pt" > odd.out 2> /dev/null
	grep -q ' INSN pc=0x1012 x86-64 w=2 enc=none' odd.out || fail "unknown mid-block: $(grep -m1 0x1012 odd.out)"
	n1=$(grep -c ' INSN ' odd.out)
	n2=$("$bin" parse --runs --raw=odd.code@0x1000 "$seeds/unknown-insn-mid.pt" 2> /dev/null | run_insns)
	[ "$n1" = 22 ] && [ "$n2" = 22 ] || fail "unknown instructions: $n1 one by one, $n2 in runs (22)"
	# A TIP into an endless loop that needs no trace: --max-linear bounds
	# it, the guard's error names the loop, the root ends there, and both
	# readings count the same instructions: the 41 before it and 4096 of it.
	loop=$seeds/endless-loop-after-tip.pt
	"$bin" calltree --max-linear=4096 --raw=odd.code@0x1000 "$loop" > odd.out 2> lost.err ||
		fail "calltree --max-linear: exit status $?"
	grep -q 'offset 0x70: warning: error: endless loop that needs no trace' lost.err ||
		fail "endless loop not reported: $(cat lost.err)"
	head -1 odd.out | grep -q '^o t:1 l:1 pc:0x1000 - t:4137 l:4137 pc:0x1011 :$' ||
		fail "endless loop, root: $(head -1 odd.out)"
	n1=$("$bin" parse --max-linear=4096 --raw=odd.code@0x1000 "$loop" 2> /dev/null | grep -c ' INSN ')
	n2=$("$bin" parse --runs --max-linear=4096 --raw=odd.code@0x1000 "$loop" 2> /dev/null | run_insns)
	[ "$n1" = 4137 ] && [ "$n2" = 4137 ] || fail "endless loop: $n1 one by one, $n2 in runs (41 + 4096)"
	for dec in --block-decoder --insn-decoder; do
		for th in 1 2; do
			n1=$("$bin" ptxed $dec --threads=$th --max-linear=4096 --raw=odd.code@0x1000 "$loop" 2> /dev/null |
				grep -c '^0000')
			n2=$("$bin" ptxed $dec --threads=$th --max-linear=4096 -q --stat --raw=odd.code@0x1000 "$loop" 2> /dev/null |
				sed -n 's/^insn: \([0-9]*\)\.$/\1/p')
			[ "$n1" = 4137 ] && [ "$n2" = 4137 ] ||
				fail "ptxed $dec --threads=$th --max-linear: $n1 listed, $n2 counted (4137)"
		done
	done
	"$bin" ptxed --max-linear=-1 --raw=odd.code@0x1000 "$loop" > /dev/null 2> lost.err &&
		fail "ptxed --max-linear=-1 accepted"
	grep -q 'max-linear=-1: expected a positive instruction count' lost.err ||
		fail "ptxed --max-linear=-1: $(cat lost.err)"
	"$bin" calltree --max-linear=0 --raw=odd.code@0x1000 "$loop" > /dev/null 2> lost.err &&
		fail "--max-linear=0 accepted"
	grep -q 'max-linear=0: expected a positive instruction count' lost.err ||
		fail "--max-linear=0: $(cat lost.err)"
	# strtoull would skip the blank and wrap the sign around to 2^64-1.
	"$bin" calltree --max-linear=' -1' --raw=odd.code@0x1000 "$loop" > /dev/null 2> lost.err &&
		fail "--max-linear=' -1' accepted"
	grep -q 'max-linear= -1: expected a positive instruction count' lost.err ||
		fail "--max-linear=' -1': $(cat lost.err)"
	rm -f lost.out lost.err err.out garbage.bin flip.pt flip.out odd.code odd.out odd.tail
}

case_ptdump() {
	"$bin" ptdump static-psb16.pt > d.out || fail "ptdump: exit status $?"
	sed -n 1,3p d.out > head.out
	printf '0000000000000000  psb\n0000000000000010  tsc        1000\n0000000000000018  cbr        20\n' |
		cmp -s - head.out || fail "ptdump head: $(cat head.out)"
	"$bin" ptdump --no-offset --no-timing --no-pad static-psb16.pt | sed -n 1,2p > head.out
	printf 'psb\nmode.exec  cs.l\n' | cmp -s - head.out || fail "ptdump --no-*: $(cat head.out)"
	"$(dirname "$bin")/ptdump" static-psb16.pt | cmp -s - d.out || fail "ptdump alias differs"
	rm -f d.out head.out
}

"case_$1"
[ $failures -eq 0 ] && echo "PASS: $1" || echo "$failures failure(s) in $1"
[ $failures -eq 0 ]
