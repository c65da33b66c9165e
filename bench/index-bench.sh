#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit index benchmark, on the standard 124 MB trace
# (../shared/bench/make-big-trace 200): index build wall time and peak RSS
# (best of 3, /usr/bin/time -v), index file size, the time to reopen a
# valid index, and query latencies at random positions (bench/index_bench.c).
# Usage: bench/index-bench.sh [BUILD_DIR] [REPEATS] [QUERIES]
# Prints Markdown for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${3:-20000}
qbench=$PWD/${1:-build}/index_bench
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
[ -x "$qbench" ] || { echo "bench: build $qbench first (cmake --build ${1:-build} --target index_bench)" >&2; exit 1; }
. bench/common.sh
index=$work/big-$repeats.bench.index
echo "trace: $(wc -c < "$trace") bytes, $(wc -l < "$trace") lines; $(nproc) CPUs"
echo

wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$1"; }

echo "| step | wall (s) | peak RSS (MB) |"
echo "|---|---|---|"
best="" brss=""
for _ in 1 2 3; do
	/usr/bin/time -v -o "$work/time.txt" "$tk" index -q --force-index --index="$index" "$trace"
	w=$(wall "$work/time.txt")
	if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; brss=$(rss "$work/time.txt"); fi
done
echo "| \`tracekit index --force-index\` (build) | $best | $brss |"
/usr/bin/time -v -o "$work/time.txt" "$tk" index -q --index="$index" "$trace"
echo "| \`tracekit index\` (reuse: open and verify) | $(wall "$work/time.txt") | $(rss "$work/time.txt") |"
/usr/bin/time -v -o "$work/time.txt" "$tk" dump -q --index="$index" "$trace" mem end 0xffb00 256 > /dev/null
echo "| \`tracekit dump ... mem end ADDR 256\` (open + one query) | $(wall "$work/time.txt") | $(rss "$work/time.txt") |"
echo
echo "index file: $(wc -c < "$index") bytes ($(awk -v i="$(wc -c < "$index")" -v t="$(wc -c < "$trace")" 'BEGIN{printf "%.1f%%", 100*i/t}') of the trace)"
echo
echo '```'
"$qbench" "$index" "$queries"
echo '```'
