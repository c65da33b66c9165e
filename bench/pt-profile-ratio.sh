#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Intel PT: `tracekit profile` against decoding alone (`tracekit ptxed
# --quiet --stat`), 1 and 2 threads, in alternation, N rounds (default
# 15), so that a slow spell of the machine hits both sides alike.  Reads
# the stream bench/pt-bench.sh made (run that first).  Prints the mean and
# the min of each and the ratios.
# Usage: bench/pt-profile-ratio.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-15}
tk=$PWD/$build/bin/tracekit
work=${TMPDIR:-/tmp}/tracekit-pt-bench
cd "$work"
[ -f work.pt ] && [ -f workload ] || { echo "run bench/pt-bench.sh first" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$rounds"); do
	for th in 1 2; do
		/usr/bin/time -f "ptxed$th %e" -a -o "$out" "$tk" ptxed --quiet --stat --threads=$th \
			--image=workload work.pt > /dev/null
		/usr/bin/time -f "profile$th %e" -a -o "$out" "$tk" profile --no-index --threads=$th \
			--image=workload work.pt > /dev/null
	done
done
awk '{ s[$1] += $2; n[$1]++; if (!($1 in m) || $2 < m[$1]) m[$1] = $2 }
     END {
	for (t = 1; t <= 2; t++) {
		p = "ptxed" t; q = "profile" t
		printf "%d thread(s): ptxed -q --stat mean %.3f min %.2f s; profile mean %.3f min %.2f s; ratio of means %.2f, of mins %.2f\n",
		       t, s[p] / n[p], m[p], s[q] / n[q], m[q], (s[q] / n[q]) / (s[p] / n[p]), m[q] / m[p]
	}
     }' "$out"
