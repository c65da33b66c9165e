#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The trace linker's benchmark.
#
#   bench/tld-bench.sh [BUILD_DIR] [RUNS]     (defaults: build, 5)
#
# 1. Overhead: 1,000,000 calls of a small function in another object,
#    a) untraced, b) trace-linked with trace-buffer-generator (every call
#    recorded, the buffer saved at exit), c) the same program built with
#    -finstrument-functions and a minimal hook that stores a timestamp
#    (CLOCK_MONOTONIC, like the trace buffer), the function and the call
#    site per event in a static buffer and saves it at exit.  Target:
#    b <= 1.25 x c.
# 2. Decoding: a dump of 10,000,000 records (5,000,000 traced calls of the
#    same program) read by `tracekit tld-dump --count` (the reader alone),
#    and printed in full to /dev/null, and `tracekit profile` on it (the
#    dump as a trace source).  Target: >= 20 M records/s.
# Each figure is the best of RUNS runs, the programs run in turn
# (bench/tld_bench_runs.py): wall time, CPU time (user + system) and peak
# RSS.  On a loaded machine the CPU times are the steadier figure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
tk=$PWD/$build/bin/tracekit
work=${TMPDIR:-/tmp}/tracekit-tld-bench
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > lib.c <<'EOF'
int work(int x) { return x * 3 + 1; }
EOF
cat > main.c <<'EOF'
#include <stdlib.h>
int work(int x);
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, acc = 0;
	for (long i = 0; i < n; i++)
		acc += work((int)i);
	return acc == 42;
}
EOF
cat > hook.c <<'EOF'
/* The minimal -finstrument-functions hook: timestamp, function, call
 * site per event, in a static buffer saved at exit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define MAX_EVENTS 2100000
struct event { uint64_t time; void *fn, *site; };
static struct event events[MAX_EVENTS];
static size_t nevents;
__attribute__((no_instrument_function)) static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	if (nevents < MAX_EVENTS)
		events[nevents++] = (struct event){now(), fn, site};
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	if (nevents < MAX_EVENTS)	/* exits marked by the top bit of the time */
		events[nevents++] = (struct event){now() | 1ull << 63, fn, site};
}
__attribute__((no_instrument_function)) static void save(void)
{
	FILE *f = fopen("hook-trace.bin", "wb");
	if (f) {
		fwrite(events, sizeof events[0], nevents, f);
		fclose(f);
	}
}
__attribute__((no_instrument_function, constructor)) static void init(void)
{
	atexit(save);
}
EOF
cat > bench.ini <<'EOF'
[tracer]
name = tld benchmark
options = bench-options
generator = trace-buffer-generator
functions = bench-funcs
trace = work
include = rtld-base.ini, rtld-trace-buffer.ini
define = "#define RTLD_TRACE_BUFFER_SIZE (300 * 1024 * 1024)"

[bench-options]
gen-enables = global-on
gen-triggers = global-on

[bench-funcs]
signatures = bench-signatures

[bench-signatures]
work = int, int
EOF

gcc -O2 -c lib.c main.c
gcc -O2 -o plain main.o lib.o
"$tk" tld -C bench.ini -- -o traced main.o lib.o
gcc -O2 -finstrument-functions -c lib.c -o lib-inst.o
gcc -O2 -finstrument-functions -c main.c -o main-inst.o
gcc -O2 -c hook.c
gcc -O2 -o instrumented main-inst.o lib-inst.o hook.o

runs_py=$here/tld_bench_runs.py

echo "== overhead: 1,000,000 calls of work() in another object (best of $runs, runs interleaved)"
RTLD_TRACE_FILE=$work/traced.bin python3 "$runs_py" "$runs" "plain|./plain 1000000" \
	"traced|./traced 1000000" "instrumented|./instrumented 1000000" > times.txt
printf '%-56s %8s %8s %8s\n' "program" "wall s" "CPU s" "RSS MB"
while read -r label w c r; do
	case $label in
	plain) name="untraced" ;;
	traced) name="tracekit tld, trace-buffer-generator, saved at exit" ;;
	instrumented) name="-finstrument-functions + minimal hook, saved at exit" ;;
	esac
	printf '%-56s %8s %8s %8s\n' "$name" "$w" "$c" "$r"
done < times.txt
awk '{ w[$1] = $2; c[$1] = $3 } END {
	printf "ratio traced / instrumented: %.2fx wall, %.2fx CPU (target <= 1.25x)\n",
	       w["traced"] / w["instrumented"], c["traced"] / c["instrumented"]
	printf "per traced call (CPU, over the untraced loop): %.0f ns trace buffer, %.0f ns hook\n",
	       (c["traced"] - c["plain"]) * 1000, (c["instrumented"] - c["plain"]) * 1000 }' times.txt
echo "dump: $(stat -c %s traced.bin) bytes; hook file: $(stat -c %s hook-trace.bin) bytes"
"$tk" tld-dump --count traced.bin

echo
echo "== decoding: a dump of 10,000,000 records (best of $runs)"
RTLD_TRACE_FILE=$work/big.bin ./traced 5000000
size=$(stat -c %s big.bin)
"$tk" tld-dump --count big.bin
python3 "$runs_py" "$runs" "count|$tk tld-dump --count big.bin" "print|$tk tld-dump big.bin" \
	"profile|$tk profile --no-index big.bin" > dec.txt
printf '%-56s %8s %8s %8s\n' "command" "wall s" "CPU s" "RSS MB"
while read -r label w c r; do
	case $label in
	count) name="tracekit tld-dump --count big.bin ($size bytes)" ;;
	print) name="tracekit tld-dump big.bin > /dev/null" ;;
	profile) name="tracekit profile --no-index big.bin (the tld source)" ;;
	esac
	printf '%-56s %8s %8s %8s\n' "$name" "$w" "$c" "$r"
done < dec.txt
awk '{ w[$1] = $2 } END {
	printf "reader: %.1f M records/s (target >= 20); printing: %.1f M records/s; profile: %.1f M records/s\n",
	       10 / w["count"], 10 / w["print"], 10 / w["profile"] }' dec.txt
"$tk" profile --no-index big.bin | head -3
