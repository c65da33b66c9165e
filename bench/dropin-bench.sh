#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit benchmark for the drop-in work (issue 15): truncate by Arm's
# rule (every line parsed), vcd with Arm's signals, and the folded flame
# graph of a 40,000-deep recursion (5.6 GB of text, written to /dev/null:
# memory must stay flat).  Best wall time of 3, peak RSS, from
# /usr/bin/time -v.  Usage: bench/dropin-bench.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
. bench/common.sh
echo "trace: $(wc -c < "$trace") bytes, $(wc -l < "$trace") lines"
echo
echo "| command | wall (s) | peak RSS (MB) |"
echo "|---|---|---|"

measure() { # label, then the command (a shell string); best wall of 3 runs
	local label=$1 cmd=$2 best="" rss=""
	for _ in 1 2 3; do
		/usr/bin/time -v -o "$work/time.txt" sh -c "$cmd" > /dev/null 2>&1 || true
		local w r
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
		r=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$work/time.txt")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; rss=$r; fi
	done
	echo "| \`$label\` | $best | $rss |"
}

measure "tracekit truncate -o /dev/null big.tarmac" "'$tk' truncate -o /dev/null '$trace'"
measure "cat big.tarmac | tracekit truncate > /dev/null" "cat '$trace' | '$tk' truncate > /dev/null"
measure "tracekit vcd --no-date -o /dev/null big.tarmac" "'$tk' vcd --no-date -q -o /dev/null '$trace'"
measure "tracekit vcd --no-date --image=calculator-aarch64.elf -o /dev/null big.tarmac" \
	"'$tk' vcd --no-date -q --image='$image' -o /dev/null '$trace'"

# A function calling itself 40,000 deep, time advancing at every level.
deep=$work/deep40k.tarmac
if [ ! -s "$deep" ]; then
	awk -v N=40000 'BEGIN { t = 0; sp = 268435456
		printf "0 clk R SP_EL1 %016x\n", sp
		printf "%d clk IT (%d) 0000000000001000 94000400 O EL1h_s : BL f\n", ++t, t
		printf "%d clk R X30 %016x\n", t, 4100
		for (d = 0; d < N; d++) {
			printf "%d clk IT (%d) 0000000000002000 a9bf7bfd O EL1h_s : STP x29,x30,[sp,#-16]!\n", ++t, t
			sp -= 16; printf "%d clk R SP_EL1 %016x\n", t, sp
			if (d < N - 1) {
				printf "%d clk IT (%d) 0000000000002004 94000000 O EL1h_s : BL f\n", ++t, t
				printf "%d clk R X30 %016x\n", t, 8200
			}
		}
		printf "%d clk IT (%d) 0000000000002004 d503201f O EL1h_s : NOP\n", ++t, t
		for (d = 0; d < N; d++) {
			printf "%d clk IT (%d) 0000000000002008 a8c17bfd O EL1h_s : LDP x29,x30,[sp],#16\n", ++t, t
			sp += 16; printf "%d clk R X30 %016x\n", t, d == N - 1 ? 4100 : 8200
			printf "%d clk R SP_EL1 %016x\n", t, sp
			printf "%d clk IT (%d) 000000000000200c d65f03c0 O EL1h_s : RET\n", ++t, t
		}
		printf "%d clk IT (%d) 0000000000001004 d503201f O EL1h_s : NOP\n", ++t, t
	}' > "$deep"
fi
echo "deep trace: $(wc -c < "$deep") bytes; folded output: $("$tk" flamegraph --no-index -q "$deep" | wc -c) bytes"
measure "tracekit flamegraph --no-index deep40k.tarmac > /dev/null" "'$tk' flamegraph --no-index -q '$deep' > /dev/null"
measure "tracekit flamegraph --svg --no-index deep40k.tarmac > /dev/null" "'$tk' flamegraph --svg --no-index -q '$deep' > /dev/null"
