#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit addr2line against binutils' arm-none-eabi-addr2line: 1,000,000
# random code addresses of a newlib A32 image (bench/bt-recursion.c with
# newlib's printf) on standard input, -a -f -i, each tool best of 3
# (/usr/bin/time -v); the outputs must be identical.
# Usage: bench/addr2line-bench.sh [BUILD_DIR] [ADDRESSES]
# Prints Markdown for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${2:-1000000}
. bench/bt-common.sh
ref=arm-none-eabi-addr2line
command -v $ref >/dev/null || { echo "bench: $ref missing" >&2; exit 1; }
addrs=$work/a2l-$n.txt
python3 - "$image" "$n" > "$addrs" <<'PY'
import random, subprocess, sys
image, n = sys.argv[1], int(sys.argv[2])
code = []
for line in subprocess.run(["arm-none-eabi-readelf", "-SW", image], capture_output=True,
                           text=True).stdout.splitlines():
    p = line.replace("[ ", "[").split()
    if len(p) > 7 and p[0].startswith("[") and "X" in p[7]:
        code.append((int(p[3], 16), int(p[5], 16)))
total = sum(s for a, s in code)
rng = random.Random(2023)
out = []
for _ in range(n):
    r = rng.randrange(total)
    for a, s in code:
        if r < s:
            out.append("0x%x" % (a + r))
            break
        r -= s
print("\n".join(out))
PY
echo "image: $(basename "$image"), $(wc -c < "$image") bytes; code: $(arm-none-eabi-size -A "$image" | awk '$1==".text"{print $2}') bytes of .text; $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start"
echo
best "$work/a2l-ref.time" "$addrs" "$work/a2l-ref.out" "$work/a2l-ref.err" $ref -a -f -i -e "$image"
best "$work/a2l-tk.time" "$addrs" "$work/a2l-tk.out" "$work/a2l-tk.err" "$tk" addr2line -a -f -i -e "$image"
if cmp -s "$work/a2l-ref.out" "$work/a2l-tk.out"; then same=identical; else same=DIFFERENT; fi
rw=$(wall "$work/a2l-ref.time") tw=$(wall "$work/a2l-tk.time")
echo "| tool | wall (s) | user+sys (s) | peak RSS (MB) | addresses/s (wall) |"
echo "|---|---|---|---|---|"
echo "| \`$ref -a -f -i\` (binutils 2.40) | $rw | $(cpu "$work/a2l-ref.time") | $(rss "$work/a2l-ref.time") | $(awk -v n="$n" -v w="$rw" 'BEGIN{printf "%.0f", n/w}') |"
echo "| \`tracekit addr2line -a -f -i\` | $tw | $(cpu "$work/a2l-tk.time") | $(rss "$work/a2l-tk.time") | $(awk -v n="$n" -v w="$tw" 'BEGIN{printf "%.0f", n/w}') |"
echo
echo "$n addresses, $(wc -l < "$work/a2l-ref.out") output lines ($(wc -c < "$work/a2l-ref.out") bytes): $same; tracekit is $(awk -v a="$rw" -v b="$tw" 'BEGIN{printf "%.1f", a/b}')x faster (wall, best of 3 each), $(awk -v a="$(cpu "$work/a2l-ref.time")" -v b="$(cpu "$work/a2l-tk.time")" 'BEGIN{printf "%.1f", a/b}')x in CPU time."
[ "$same" = identical ]
