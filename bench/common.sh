# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the benchmark scripts (sourced): BUILD_DIR and REPEATS
# in $1 and $2; sets tk, shared, work, trace, image, and writes the standard
# benchmark trace (../shared/bench/make-big-trace REPEATS) once into $work.
build=${1:-build}
repeats=${2:-200}
tk=$PWD/$build/bin/tracekit
shared=${TK_SHARED_DIR:-$PWD/../shared}
work=${TMPDIR:-/tmp}/tracekit-bench
mkdir -p "$work"
trace=$work/big-$repeats.tarmac
image=$shared/traces/tarmac/calculator-aarch64.elf
if [ ! -s "$trace" ]; then
	echo "bench: generating $trace" >&2
	"$shared/bench/make-big-trace" "$repeats" > "$trace.tmp" && mv "$trace.tmp" "$trace"
fi
