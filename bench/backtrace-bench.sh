#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit backtrace on a recorded deep recursion: bench/bt-recursion.c
# (newlib A32, frame pointers, a recursion 257 deep, 24 times) recorded
# with `tracekit record` and indexed; then 100,000 random positions inside
# the recursion walked in one run (--positions=FILE, --image for CFI,
# names and lines), best of 3 (/usr/bin/time -v).  Frames per second =
# frames printed / wall time.
# Usage: bench/backtrace-bench.sh [BUILD_DIR] [POSITIONS]
# Prints Markdown for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${2:-100000}
. bench/bt-common.sh
trace=$work/bt-recursion-a32.tarmac
if [ ! -s "$trace" ] || [ "$image" -nt "$trace" ]; then
	"$tk" record "$image" -o "$trace" > /dev/null
fi
"$tk" index -q "$trace"
positions=$work/bt-positions-$n.txt
fn=$(arm-none-eabi-nm "$image" | awk '$3 == "descend" {print $1}')
"$tk" dump "$trace" calls | python3 -c '
import random, re, sys
fn, n = int(sys.argv[1], 16), int(sys.argv[2])
tops = []
for line in sys.stdin:
    m = re.match(r"( *)\d+: entry pos (\d+) line \d+ pc 0x([0-9a-f]+) - exit pos (\d+)", line)
    if m and int(m.group(3), 16) == fn and len(m.group(1)) == 4:
        tops.append((int(m.group(2)), int(m.group(4))))
rng = random.Random(2023)
print("\n".join("#%d" % rng.randint(*rng.choice(tops)) for _ in range(n)))
' "$fn" "$n" > "$positions"
echo "trace: $(wc -c < "$trace") bytes, $("$tk" dump "$trace" pos end | awk '{print $2+1}') instructions; index $(wc -c < "$trace.index") bytes; $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start"
echo
best "$work/bt.time" /dev/null "$work/bt.out" "$work/bt.err" "$tk" backtrace --image="$image" "$trace" --positions="$positions"
frames=$(grep -c '^#' "$work/bt.out")
w=$(wall "$work/bt.time")
echo "| command | positions | frames | wall (s) | user+sys (s) | peak RSS (MB) | frames/s (wall) |"
echo "|---|---|---|---|---|---|---|"
echo "| \`tracekit backtrace --image --positions=FILE\` | $n | $frames | $w | $(cpu "$work/bt.time") | $(rss "$work/bt.time") | $(awk -v f="$frames" -v w="$w" 'BEGIN{printf "%.0f", f/w}') |"
echo
echo "warnings (frame chain vs call stack): $(wc -l < "$work/bt.err"); stopped walks: $(grep -c '^stopped' "$work/bt.out" || true)"
