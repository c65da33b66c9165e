#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Make the Intel PT test data: record the test programs under ptrace
# (ptrec), synthesise PT variants (ptsynth) and wrap them as perf.data
# (ptperf).  Usage: gen.sh TOOLDIR WORKDIR.  Exit 77 if ptrace is refused.
set -eu
tools=$1 work=$2
cd "$work"

# counts PROGRAM OUTPUT BASE > FILE: "ADDR COUNT NAME" for each "count NAME N"
counts() {
	grep '^count ' "$2" | while read -r _ name n; do
		a=$(nm "$1" | awk -v n="$name" '$3 == n { print $1 }')
		printf '%x %s %s\n' $((0x$a + $3)) "$n" "$name"
	done
}

# images RECORDING: the test_pt image arguments of a recording's mappings
images() {
	grep '^map ' "$1" | while read -r _ s e o p; do
		case $p in
		*.vdso) echo "raw:$p@0x$s" ;;
		*) printf 'elf:%s@0x%x\n' "$p" $((0x$s - 0x$o)) ;;
		esac
	done
}

rc=0
"$tools/ptrec" static.rec ./calls-static > static.out || rc=$?
[ $rc -eq 77 ] && { echo "ptrace refused: skipped"; exit 77; }
[ $rc -eq 0 ]
main=$(nm calls-pie | awk '$3 == "main" { print $1 }')
"$tools/ptrec" --from=$(printf '%x' $((0x555555554000 + 0x$main))) pie.rec ./calls-pie > pie.out
counts calls-static static.out 0 > static.counts
counts calls-pie pie.out $((0x555555554000)) > pie.counts
images static.rec > static.images
images pie.rec > pie.images

# The variants: name and ptsynth options.
while read -r name opts; do
	for prog in static pie; do
		"$tools/ptsynth" $opts $prog.rec $prog-$name.pt $prog-$name.lst 2> /dev/null
	done
done <<'VARIANTS'
base --psb=4096
psb64 --psb=64
psb16 --psb=16 --start=fup --timing
tnt64 --tnt64 --psb=512
noretcomp --no-retcomp --psb=256
interrupts --interrupt=97 --psb=1024
all --tnt64 --no-retcomp --interrupt=13 --psb=32 --start=fup
VARIANTS
cp static-base.pt static-base.copy.pt

# perf.data forms: several AUXTRACE records (cut mid-packet), MMAP2 images.
for prog in static pie; do
	"$tools/ptperf" --chunks=5 $prog-psb64.pt $prog.rec $prog-psb64.data
	"$tools/ptperf" --chunks=1 --cpuid=GenuineIntel,6,142,10 $prog-base.pt $prog.rec $prog-base.data
done
"$tools/ptperf" --chunks=4 --second-cpu static-base.pt static.rec static-2cpu.data
"$tools/ptperf" --chunks=4 --lose=1 static-psb64.pt static.rec static-lost.data
"$tools/ptperf" --pipe static-base.pt static.rec pipe.data
"$tools/ptperf" --compressed static-base.pt static.rec compressed.data
head -c 300 static-base.data > truncated.data
echo "generated"
