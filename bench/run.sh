#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit benchmark: the standard 124 MB trace (../shared/bench/make-big-trace
# 200) through each report tool, with wall time, peak RSS and output size from
# /usr/bin/time -v.  Usage: bench/run.sh [BUILD_DIR] [REPEATS]
# Prints a Markdown table for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
. bench/common.sh
echo "trace: $(wc -c < "$trace") bytes, $(wc -l < "$trace") lines"
echo
echo "| command | wall (s) | peak RSS (MB) | output (bytes) |"
echo "|---|---|---|---|"

measure() { # label, then the command; best wall of 3 runs
	local label=$1; shift
	local best="" rss="" out=$work/out.txt
	for _ in 1 2 3; do
		/usr/bin/time -v -o "$work/time.txt" "$@" > "$out" 2>/dev/null || true
		local w r
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
		r=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$work/time.txt")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; rss=$r; fi
	done
	echo "| \`$label\` | $best | $rss | $(wc -c < "$out") |"
}

# Streaming: no index beside the trace (--no-index would use one if present).
rm -f "$trace.index"
for cmd in ${TK_BENCH_COMMANDS:-calltree profile flamegraph}; do
	measure "tracekit $cmd --no-index big.tarmac" "$tk" "$cmd" --no-index -q "$trace"
	measure "tracekit $cmd --no-index --image=calculator-aarch64.elf big.tarmac" \
		"$tk" "$cmd" --no-index -q --image="$image" "$trace"
done

# With the index built first, the tools read the call tree from it.
"$tk" index -q "$trace" > /dev/null
for cmd in ${TK_BENCH_COMMANDS:-calltree profile flamegraph}; do
	measure "tracekit $cmd big.tarmac (index present)" "$tk" "$cmd" -q "$trace"
done
rm -f "$trace.index"
