#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Two builds of tracekit side by side on the standard 124 MB trace
# (../shared/bench/make-big-trace 200): index build and the streaming report
# tools, interleaved (old, new, old, new...), best of 3 by CPU time, with
# wall time and peak RSS from /usr/bin/time.  For "stays within 5% of
# before" checks across a change.
# Usage: bench/before-after.sh OLD_BUILD_DIR NEW_BUILD_DIR
# (build directories relative to the source tree, e.g. a symlink build-old).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bench/before-after.sh OLD_BUILD_DIR NEW_BUILD_DIR" >&2; exit 2; }
old=$PWD/$1/bin/tracekit
new=$PWD/$2/bin/tracekit
. bench/common.sh "$2" 200
one() {
	/usr/bin/time -f '%e %U %S %M' -o "$work/ba.time" "$@" > /dev/null 2>&1 || true
	awk '{printf "%.2f %.2f %.1f\n", $1, $2 + $3, $4 / 1024}' "$work/ba.time"
}
run() { # label, then the command's arguments
	local label=$1; shift
	local v bin best r
	for v in old new; do
		bin=$old; [ $v = new ] && bin=$new
		best=""
		for _ in 1 2 3; do
			r=$(one "$bin" "$@")
			if [ -z "$best" ] || awk -v a="$(echo "$r" | cut -d' ' -f2)" \
				-v b="$(echo "$best" | cut -d' ' -f2)" 'BEGIN{exit !(a<b)}'; then
				best=$r
			fi
		done
		echo "| \`$label\` | $v | $(echo "$best" | awk '{print $1 " | " $2 " | " $3}') |"
	done
}
echo "trace: $(wc -c < "$trace") bytes"
echo
echo "| command | build | wall (s) | CPU user+sys (s) | peak RSS (MB) |"
echo "|---|---|---|---|---|"
run "index --force-index" index -q --force-index --index="$work/ba.index" "$trace"
rm -f "$work/ba.index"
for cmd in calltree profile flamegraph; do
	run "$cmd --no-index" "$cmd" -q --no-index "$trace"
	run "$cmd --no-index --image" "$cmd" -q --no-index --image="$image" "$trace"
done
