#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Intel PT decoding speed.  Records one call of work() in
# bench/pt-workload.c (ptrace single-stepping), synthesises a stream of that
# call repeated R times (default 20000: about 57 M instructions), and times
# side by side, best of N runs (default 5):
#   tracekit ptxed --quiet --stat, 1 and 2 threads (block decoder),
#   tracekit ptxed --quiet --stat --insn-decoder, 1 and 2 threads,
#   tracekit profile --no-index (the call detector over the decoded flow),
#   1 and 2 threads, and tracekit parse --runs --count (the decoded flow
#   as the report tools read it, without the detector), 1 and 2 threads,
#   a plain libipt pt_insn loop and pt_blk loop (bench/pt_loop.c),
#   perf script --itrace=i0ns on the perf.data form (once), if perf works.
# Usage: bench/pt-bench.sh [BUILD_DIR] [REPEATS] [RUNS]
set -euo pipefail
build=${1:-build}
repeats=${2:-20000}
runs=${3:-5}
tk=$PWD/$build/bin/tracekit
tools=$PWD/$build/tests/pt/tools
work=${TMPDIR:-/tmp}/tracekit-pt-bench
mkdir -p "$work"
cd "$work"

gcc -O1 -fno-optimize-sibling-calls -static -fno-pie -no-pie -o workload "$OLDPWD/bench/pt-workload.c"
gcc -O2 -o pt_loop "$OLDPWD/bench/pt_loop.c" -lipt -lelf
from=$(nm workload | awk '$3 == "work" { print $1 }')
to=$(objdump -d --no-show-raw-insn workload > dis.txt; awk '/<main>:/ { m = 1 } m && /call.*<work>/ { c = 1; next } c { sub(":", "", $1); print $1; exit }' dis.txt)
"$tools/ptrec" --from="$from" --to="$to" work.rec ./workload
"$tools/ptsynth" --psb=4096 --repeat="$repeats" work.rec work.pt work.lst 2> synth.log
rm -f work.lst
"$tools/ptperf" --chunks=1 work.pt work.rec work.data
cat synth.log
ls -l work.pt

best() { # best-of-$runs wall seconds, then the peak RSS and CPU seconds (user + sys) of the best run, of CMD...
	local b=999999 rss=0 cpu=0
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M %U %S' -o t.out "$@" > out.txt
		read -r s m u k < t.out
		if awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then
			b=$s
			rss=$m
			cpu=$(awk -v u="$u" -v k="$k" 'BEGIN { printf "%.2f", u + k }')
		fi
	done
	echo "$b $rss $cpu $(head -1 out.txt)"
}

printf '%-44s %8s %8s %8s  %s\n' "command" "wall s" "CPU s" "RSS MB" "output"
row() {
	local name=$1
	shift
	read -r s m c o < <(best "$@")
	printf '%-44s %8s %8s %8d  %s\n' "$name" "$s" "$c" $((m / 1024)) "$o"
}
row "libipt pt_insn loop" ./pt_loop insn work.pt workload
row "libipt pt_blk loop" ./pt_loop blk work.pt workload
row "tracekit ptxed -q --stat (1 thread)" "$tk" ptxed --quiet --stat --threads=1 --image=workload work.pt
row "tracekit ptxed -q --stat (2 threads)" "$tk" ptxed --quiet --stat --threads=2 --image=workload work.pt
row "tracekit ptxed -q --stat --insn-decoder (1)" "$tk" ptxed --quiet --stat --insn-decoder --threads=1 --image=workload work.pt
row "tracekit ptxed -q --stat --insn-decoder (2)" "$tk" ptxed --quiet --stat --insn-decoder --threads=2 --image=workload work.pt
row "tracekit profile --no-index (1 thread)" "$tk" profile --no-index --threads=1 --image=workload work.pt
row "tracekit profile --no-index (2 threads)" "$tk" profile --no-index --threads=2 --image=workload work.pt
row "tracekit parse --runs --count (1 thread)" "$tk" parse --runs --count --threads=1 --image=workload work.pt
row "tracekit parse --runs --count (2 threads)" "$tk" parse --runs --count --threads=2 --image=workload work.pt
row "tracekit ptxed --no-inst > /dev/null (2)" sh -c "'$tk' ptxed --no-inst --threads=2 --image=workload work.pt > /dev/null && echo listed"
if command -v perf > /dev/null && { perf script -i work.data --itrace=i0ns -F ip 2> /dev/null || true; } | head -1 | grep -q .; then
	runs=1 row "perf script --itrace=i0ns -F ip | wc -l (once)" sh -c "perf script -i work.data --itrace=i0ns -F ip 2>/dev/null | wc -l"
fi
