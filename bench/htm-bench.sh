#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# POWER benchmark: htm2qt, qtdis -v and the instruction stream a trace
# source reads, on POWER10 Core HTM dumps of >= 100 MB made by
# `tracekit qtwrite --htm` from a real program recorded under qemu.
#
#   bench/htm-bench.sh [BUILD_DIR] [REPEATS]
#
# The dump is the ppc64le test program of tests/power (recursion, calls
# through a function pointer, loads and stores: 7,499 instructions recorded
# under qemu-ppc64le) repeated REPEATS times (default 640: a 110 MB dump of
# 4.8 M instructions); a quarter-size dump shows that memory does not grow
# with the dump.  Each figure is the best of 5 runs (the machine is
# shared); wall time and peak RSS from /usr/bin/time.
#
# IBM's htmdecoder and qtdis are not available offline, so they are not run
# here; `power_bench disasm` measures what one libopcodes call costs, which
# the public qtdis pays for every record.
set -eu
build=${1:-build}
repeats=${2:-640}
tk=$PWD/$build/bin/tracekit
pb=$PWD/$build/power_bench
stream=$PWD/$build/tests/power/calls-power8.stream
work=${TMPDIR:-/tmp}/tracekit-bench/htm
[ -x "$tk" ] && [ -x "$pb" ] || { echo "bench: build $build first (tracekit, power_bench)" >&2; exit 1; }
[ -s "$stream" ] || { echo "bench: $stream missing (built with the tests: needs powerpc64le-linux-gnu-gcc and qemu-ppc64le)" >&2; exit 1; }
mkdir -p "$work"

make_dump() { # REPEATS OUT
	if [ ! -s "$2" ]; then
		i=0
		while [ $i -lt "$1" ]; do cat "$stream"; i=$((i + 1)); done | "$tk" qtwrite --htm -o "$2" -
	fi
}
big=$work/big-$repeats.htm
small=$work/small-$((repeats / 4)).htm
make_dump "$repeats" "$big"
make_dump $((repeats / 4)) "$small"

# best WALL_SECONDS and PEAK_RSS_KB of 5 runs of a command (output to /dev/null)
best() {
	bw=999999 brss=0
	for _ in 1 2 3 4 5; do
		/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
		read -r w rss <"$work/time"
		bw=$(awk -v a="$w" -v b="$bw" 'BEGIN { print (a < b) ? a : b }')
		[ "$rss" -gt "$brss" ] && brss=$rss
	done
	echo "$bw $brss"
}
mb() { awk -v b="$(wc -c <"$1")" 'BEGIN { printf "%.1f", b / 1e6 }'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", n / t }'; }

insns=$(wc -l <"$stream")
insns=$((insns * repeats))
echo "dump: $big ($(mb "$big") MB, $insns instructions); small: $small ($(mb "$small") MB)"

set -- $(best "$tk" htm2qt "$big" -o "$work/big.qt")
echo "htm2qt big:    $1 s, $(rate "$(mb "$big")" "$1") MB/s, peak RSS $2 KB -> $work/big.qt ($(mb "$work/big.qt") MB)"
set -- $(best "$tk" htm2qt "$small" -o "$work/small.qt")
echo "htm2qt small:  $1 s, $(rate "$(mb "$small")" "$1") MB/s, peak RSS $2 KB"
set -- $(best "$tk" htm2qt -s "$big")
echo "htm2qt -s big: $1 s, $(rate "$(mb "$big")" "$1") MB/s (decoding only), peak RSS $2 KB"
set -- $(best "$tk" qtdis -v "$work/big.qt")
echo "qtdis -v big:  $1 s, $(rate "$insns" "$1") lines/s, peak RSS $2 KB"
set -- $(best "$tk" qtdis -v "$work/small.qt")
echo "qtdis -v small: $1 s, peak RSS $2 KB"
set -- $(best "$pb" read "$work/big.qt")
echo "read .qt (source stream + call counting): $1 s, $(rate "$insns" "$1") instructions/s, peak RSS $2 KB"
set -- $(best "$pb" read "$big")
echo "read .htm (source stream + call counting): $1 s, $(rate "$insns" "$1") instructions/s, peak RSS $2 KB"
"$pb" disasm 1000000
