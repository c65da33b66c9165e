#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# POWER trace sources: `tracekit profile` on a Qtrace file and an HTM dump
# (events, link-register calls, symbols) side by side with the qtdis
# listing of the same file, in the same run.
#
#   bench/power-source-bench.sh [BUILD_DIR] [REPEATS]
#
# The trace is the ppc64le test program of tests/power (7,499 instructions
# recorded under qemu-ppc64le) repeated REPEATS times (default 640: 4.8 M
# instructions).  Best of 3 runs; wall time and peak RSS from /usr/bin/time.
set -eu
build=${1:-build}
repeats=${2:-640}
tk=$PWD/$build/bin/tracekit
stream=$PWD/$build/tests/power/calls-power8.stream
elf=$PWD/$build/tests/power/calls-power8.elf
work=${TMPDIR:-/tmp}/tracekit-bench/power-source
[ -x "$tk" ] && [ -s "$stream" ] || { echo "bench: build $build with the POWER tests first" >&2; exit 1; }
mkdir -p "$work"
qt=$work/big-$repeats.qt
htm=$work/big-$repeats.htm
if [ ! -s "$qt" ] || [ ! -s "$htm" ]; then
	i=0
	while [ $i -lt "$repeats" ]; do cat "$stream"; i=$((i + 1)); done >"$work/big.stream"
	"$tk" qtwrite -o "$qt" "$work/big.stream"
	"$tk" qtwrite --htm -o "$htm" "$work/big.stream"
	rm -f "$work/big.stream"
fi

best() { # LABEL CMD...: best wall time of 3 and its peak RSS
	label=$1
	shift
	b=""
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
		set -- "$@"
		t=$(cut -d' ' -f1 "$work/t")
		r=$(cut -d' ' -f2 "$work/t")
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t rss=$r; fi
	done
	printf '%-58s %6s s  %7.1f MB\n' "$label" "$b" "$(echo "$rss / 1024" | bc -l)"
}
echo "Qtrace file: $(wc -c <"$qt") bytes; HTM dump: $(wc -c <"$htm") bytes; $((repeats * 7499)) instructions"
best "tracekit profile --image=ELF big.qt" "$tk" profile -q --image="$elf" "$qt"
best "tracekit profile --image=ELF big.htm" "$tk" profile -q --image="$elf" "$htm"
best "tracekit qtdis big.qt > /dev/null" "$tk" qtdis "$qt"
best "tracekit qtdis -v big.qt > /dev/null" "$tk" qtdis -v "$qt"
