#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Run a report command on a trace through both paths, streaming (no index)
# and indexed (index built, then read back), and compare each output with
# the expected file: both paths must give the same, expected answer.
#   both-paths.sh TRACEKIT WORKDIR TRACE EXPECTED COMMAND [OPTIONS...] [-- ARGS...]
# (ARGS follow the trace on the command line)
set -u
bin=$1 work=$2 trace=$3 expected=$4 cmd=$5
shift 5
opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	opts+=("$1")
	shift
done
[ $# -gt 0 ] && shift
args=("$@")
mkdir -p "$work"
name=$(basename "$trace")
copy="$work/$name"
cp "$trace" "$copy"
rm -f "$copy.index"
fail=0
check() { # label output-file
	if ! cmp -s "$2" "$expected"; then
		echo "FAIL ($1): $cmd differs from $expected:"
		diff "$expected" "$2" | head -20
		fail=1
	fi
}
"$bin" "$cmd" "${opts[@]}" --no-index "$copy" "${args[@]}" >"$work/stream.out" 2>"$work/stream.err"
[ -f "$copy.index" ] && { echo "FAIL: --no-index wrote an index"; fail=1; }
check streaming "$work/stream.out"
"$bin" "$cmd" "${opts[@]}" --force-index "$copy" "${args[@]}" >"$work/build.out" 2>"$work/build.err"
[ -f "$copy.index" ] || { echo "FAIL: no index was built"; fail=1; }
check "while indexing" "$work/build.out"
"$bin" "$cmd" "${opts[@]}" -v "$copy" "${args[@]}" >"$work/index.out" 2>"$work/index.err"
grep -q "reusing index" "$work/index.err" || { echo "FAIL: the index was not reused:"; cat "$work/index.err"; fail=1; }
check indexed "$work/index.out"
exit $fail
