# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the addr2line and backtrace benchmarks (sourced): builds
# bench/bt-recursion.c as a newlib A32 image with frame pointers, into
# $work/bt-recursion-a32.elf ($image); defines wall/rss/best helpers.
build=${1:-build}
tk=$PWD/$build/bin/tracekit
work=${TMPDIR:-/tmp}/tracekit-bench
mkdir -p "$work"
image=$work/bt-recursion-a32.elf
command -v arm-none-eabi-gcc >/dev/null || { echo "bench: arm-none-eabi-gcc missing" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
if [ ! -s "$image" ] || [ bench/bt-recursion.c -nt "$image" ]; then
	arm-none-eabi-gcc -O2 -g -marm -march=armv5te+fp -mfloat-abi=hard -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls --specs=rdimon.specs -o "$image" bench/bt-recursion.c
fi
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1"; }
cpu() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$1"; }
# best OUT.time IN OUT ERR CMD...: run CMD 3 times under /usr/bin/time -v,
# reading IN and writing OUT and ERR afresh each time; the fastest wall
# time's report goes to OUT.time.
best() {
	local tf=$1 in=$2 out=$3 err=$4 b=""
	shift 4
	for _ in 1 2 3; do
		/usr/bin/time -v -o "$tf.try" "$@" < "$in" > "$out" 2> "$err"
		local w
		w=$(wall "$tf.try")
		if [ -z "$b" ] || awk -v a="$w" -v b="$b" 'BEGIN{exit !(a<b)}'; then
			b=$w
			cp "$tf.try" "$tf"
		fi
	done
}
