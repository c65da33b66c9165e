#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Recorded benchmark traces: bench/record-workload.c (sorting, recursion,
# string hashing, memcpy/memset, printf and a double-precision n-body step)
# built for Thumb-2 and A32 (newlib, VFP hard-float) and for A64 (the
# tests' runtime), each run under `tracekit record`.  Prints the recording
# speed measured with /usr/bin/time, as a Markdown table for
# bench/RESULTS.md.
#
# Usage: bench/make-recorded-trace.sh [BUILD_DIR] [SCALE] [OUT_DIR]
#   SCALE    rounds of the workload (default 4: about 3 million
#            instructions and 300 MB of trace per state)
#   OUT_DIR  where the programs and traces go (default $TMPDIR/tracekit-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scale=${2:-4}
out=${3:-${TMPDIR:-/tmp}/tracekit-bench}
tk=$PWD/$build/bin/tracekit
src=$PWD/bench/record-workload.c
rt=$PWD/tests/record
mkdir -p "$out"

[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
[ -x "$tk" ] || { echo "bench: $tk not built" >&2; exit 1; }
"$tk" record --help >/dev/null 2>&1 || { echo "bench: tracekit built without the recorder" >&2; exit 1; }

cflags=(-O2 -g -ffp-contract=off -fno-math-errno)
build_variant() { # variant -> $out/workload-VARIANT.elf
	local v=$1 elf=$out/workload-$1.elf
	case $v in
	t32) arm-none-eabi-gcc "${cflags[@]}" -mthumb -march=armv7-a+fp -mfloat-abi=hard \
		--specs=rdimon.specs -o "$elf" "$src" ;;
	a32) arm-none-eabi-gcc "${cflags[@]}" -marm -march=armv7-a+fp -mfloat-abi=hard \
		--specs=rdimon.specs -o "$elf" "$src" ;;
	a64) aarch64-linux-gnu-gcc "${cflags[@]}" -ffreestanding -nostdlib -static -fno-pie -no-pie \
		-Wl,--build-id=none -Wl,--no-warn-rwx-segments -T "$rt/a64/link.ld" -o "$elf" \
		"$rt/a64/start.S" "$rt/a64/rt.c" "$src" ;;
	esac
}

echo "| state | instructions | trace (MB) | wall (s) | user+sys (s) | peak RSS (MB) | million instructions/s (wall) |"
echo "|---|---|---|---|---|---|---|"
total_insns=0 total_wall=0
for v in t32 a32 a64; do
	build_variant "$v"
	trace=$out/recorded-$v.tarmac
	/usr/bin/time -f '%e %U %S %M' -o "$out/time-$v.txt" \
		"$tk" record -v "$out/workload-$v.elf" "$scale" -o "$trace" \
		> "$out/workload-$v.out" 2> "$out/record-$v.err"
	insns=$(sed -n 's/.*: \([0-9]*\) instructions on.*/\1/p' "$out/record-$v.err")
	read -r wall user sys rss < "$out/time-$v.txt"
	mb=$(awk -v b="$(stat -c %s "$trace")" 'BEGIN { printf "%.0f", b / 1e6 }')
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rate=$(awk -v n="$insns" -v w="$wall" 'BEGIN { printf "%.2f", n / w / 1e6 }')
	echo "| $v | $insns | $mb | $wall | $cpu | $(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }') | $rate |"
	total_insns=$((total_insns + insns))
	total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN { print a + b }')
done
echo
echo "overall: $total_insns instructions in $total_wall s wall:" \
	"$(awk -v n="$total_insns" -v w="$total_wall" 'BEGIN { printf "%.2f", n / w / 1e6 }')" \
	"million instructions/s; traces in $out/recorded-{t32,a32,a64}.tarmac"
