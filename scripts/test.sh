#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build tracekit and run every test: a normal build, an AddressSanitizer +
# UndefinedBehaviorSanitizer build, and (with clang) the libFuzzer targets.
# Installs missing Debian packages first.  Usage: scripts/test.sh [--quick]
#   --quick   only the normal build (no sanitizer or fuzzer build)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
fail=0
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_suite() { # name build-dir cmake-args...
	local name=$1 dir=$2; shift 2
	echo "=== $name: configure and build ($dir)"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j"$jobs"
	echo "=== $name: tests"
	if ! (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600) | tee "$log"; then
		fail=1
	fi
	# "100% tests passed, 0 tests failed out of 221"
	local line
	line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		local f n
		f=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
		n=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/' <<<"$line")
		passed=$((passed + n - f))
		failed=$((failed + f))
	else
		fail=1
	fi
}

run_suite "release" build
if [ $quick -eq 0 ]; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_suite "asan+ubsan" build-asan -DTK_SANITIZE=ON
	if command -v clang >/dev/null; then
		CC=clang run_suite "fuzz (clang, libFuzzer)" build-fuzz -DTK_FUZZ=ON -DTK_SANITIZE=ON
	fi
fi
echo
echo "total: $passed passed, $failed failed"
exit $fail
