#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit browse benchmark: with the index already built, how long the
# browser takes to show its first screen and to redraw after each key, on
# the standard 124 MB trace (../shared/bench/make-big-trace 200).
# The keys are replayed by the hidden --bench-keys mode against an
# off-screen terminal of COLUMNS x LINES, timing each command from the key
# to the end of the screen update.
# Usage: bench/browse-bench.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
index=$work/big-$repeats.browse.index
"$tk" browse -q --only-index --index="$index" "$trace"

# Trace pane moves, whole-trace fold and unfold, jumps by line, time and pc,
# folding around the position, the previous write of a highlighted update
# line, of a register and of a memory word, memory and call-stack panes.
keys="Down Down Up PgDn PgUp End Home } End Home {
l1200000+Enter t500000+Enter p_ZN5Lexer6nextchEv+Enter n n N
- Up Down + [ ] a Enter a+Enter } Down Down PgDn Up {
msp+Enter c S D V M Tab Enter Enter Tab Right+Right 4 ] [ 8 Tab Down+Enter
Tab Tab Tab Tab Tab End Home C-l C-l"
keys=$(echo $keys)
echo "trace: $(wc -c < "$trace") bytes; index: $(wc -c < "$index") bytes"
# The whole process: start, open the index, first screen, exit.
for i in 1 2 3; do
	COLUMNS=120 LINES=40 TERM=xterm-256color /usr/bin/time -f "start to first screen and exit: %e s wall, %M KB peak RSS" \
		"$tk" browse -q --index="$index" --bench-keys="" "$trace" </dev/null 2>&1 >/dev/null
done
for size in 120x40 300x100; do
	echo
	echo "terminal $size:"
	COLUMNS=${size%x*} LINES=${size#*x} TERM=xterm-256color \
		"$tk" browse -q --index="$index" --image="$image" --bench-keys="$keys" "$trace" </dev/null
done
