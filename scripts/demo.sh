#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit demo: installs what is missing, builds tracekit, compiles the
# bundled example program (examples/primes.c) for Arm, records its Tarmac
# trace with `tracekit record`, and runs the report tools on it.
# Everything it writes goes to build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
tk=$PWD/build/bin/tracekit
out=build/demo
mkdir -p "$out"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

arm-none-eabi-gcc -O1 -g -fno-inline -mcpu=cortex-a9 -marm --specs=rdimon.specs \
	-o "$out/primes.elf" examples/primes.c
step "$tk" record -o "$out/primes.tarmac" "$out/primes.elf"
echo "($(wc -l < "$out/primes.tarmac") trace lines in $out/primes.tarmac)"
step "$tk" index "$out/primes.tarmac"
step "$tk" profile --image="$out/primes.elf" "$out/primes.tarmac"
"$tk" calltree --image="$out/primes.elf" "$out/primes.tarmac" > "$out/calltree.txt"
printf '\n\033[1m$ %s\033[0m\n' "tracekit calltree --image=$out/primes.elf $out/primes.tarmac   (main's part, without fib)"
awk '/ : main$/ {on = 1} on && !/ : fib$/ && !/- t:.*pc:0x82(d|e|f)/ {print; if (++n == 16) exit}' "$out/calltree.txt"
echo "... (full tree: $(wc -l < "$out/calltree.txt") lines in $out/calltree.txt)"
step "$tk" callinfo --image="$out/primes.elf" "$out/primes.tarmac" bubble_sort
addr=$("$tk" symbols "$out/primes.elf" primes | awk '{print $1}')
step "$tk" dump "$out/primes.tarmac" mem end "$addr" 64
step "$tk" flamegraph --image="$out/primes.elf" --svg -o "$out/flamegraph.svg" "$out/primes.tarmac"
echo "(flame graph written to $out/flamegraph.svg: open it in a web browser)"
echo
echo "Next: browse the trace interactively with"
echo "  $tk browse --image=$out/primes.elf $out/primes.tarmac"
