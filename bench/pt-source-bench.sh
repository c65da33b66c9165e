#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Intel PT as a trace source: `tracekit calltree` and `profile` (the event
# model, the call detector) against `tracekit ptxed` listing the same
# instructions, on one synthetic stream: one call of work() in
# bench/pt-workload.c (ptrace single-stepping) repeated R times (default
# 2000: about 9 M instructions).  Best of N runs (default 3), peak RSS.
# Usage: bench/pt-source-bench.sh [BUILD_DIR] [REPEATS] [RUNS]
set -euo pipefail
build=${1:-build}
repeats=${2:-2000}
runs=${3:-3}
tk=$PWD/$build/bin/tracekit
tools=$PWD/$build/tests/pt/tools
work=${TMPDIR:-/tmp}/tracekit-pt-source-bench
mkdir -p "$work"
cd "$work"

gcc -O1 -fno-optimize-sibling-calls -static -fno-pie -no-pie -o workload "$OLDPWD/bench/pt-workload.c"
from=$(nm workload | awk '$3 == "work" { print $1 }')
to=$(objdump -d --no-show-raw-insn workload > dis.txt; awk '/<main>:/ { m = 1 } m && /call.*<work>/ { c = 1; next } c { sub(":", "", $1); print $1; exit }' dis.txt)
"$tools/ptrec" --from="$from" --to="$to" work.rec ./workload
"$tools/ptsynth" --psb=4096 --repeat="$repeats" work.rec work.pt work.lst 2> synth.log
rm -f work.lst
cat synth.log
ls -l work.pt

best() { # best-of-$runs wall seconds and the peak RSS of the best run, of CMD...
	local b=999999 rss=0
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o t.out "$@" > out.txt
		read -r s m < t.out
		if awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then b=$s; rss=$m; fi
	done
	echo "$b s, $rss KiB, $(wc -l < out.txt) lines of output"
}

echo "ptxed --quiet --stat:        $(best "$tk" ptxed --quiet --stat --image=workload work.pt)"
echo "ptxed --no-inst (listing):   $(best "$tk" ptxed --no-inst --image=workload work.pt)"
echo "ptxed (listing, disasm):     $(best "$tk" ptxed --image=workload work.pt)"
echo "calltree --no-index:         $(best "$tk" calltree --no-index --image=workload work.pt)"
echo "profile --no-index:          $(best "$tk" profile --no-index --image=workload work.pt)"
