#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit on compressed traces: the standard trace
# (../shared/bench/make-big-trace REPEATS; 200 = 124 MB, 2000 = 1.26 GB)
# compressed by `tracekit compress` (seekable zstd), zstd (one frame), gzip
# and xz; for each: compression time and size, index build (beside
# `grep -c ' IT '` and the plain trace), streaming calltree and profile,
# and browser-style jumps (bench/jump_bench.c: p50 / p99 / max over random
# positions).  Wall times are the best of 5 (/usr/bin/time -v), with the
# peak RSS of that run; compression runs once.  Every file made is deleted at the end (the
# 1.26 GB trace too, when this script generated it).
# Usage: bench/compress-bench.sh [BUILD_DIR] [REPEATS] [JUMPS]
# Prints Markdown for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
jumps=${3:-300}
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
jb=$PWD/${1:-build}/jump_bench
[ -x "$jb" ] || { echo "bench: build $jb first (cmake --build ${1:-build} --target jump_bench)" >&2; exit 1; }
generated=0
[ -s "${TMPDIR:-/tmp}/tracekit-bench/big-${2:-200}.tarmac" ] || generated=1
. bench/common.sh
cw=$work/compress-$$
mkdir -p "$cw"
cleanup() {
	rm -rf "$cw"
	if [ "$generated" = 1 ] && [ "$repeats" -gt 200 ]; then rm -f "$trace"; fi
}
trap cleanup EXIT
big=0
[ "$repeats" -gt 200 ] && big=1

wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$1"; }
# best N CMD...: sets $bw (best wall, s) and $br (its peak RSS, MB)
best() {
	local n=$1
	shift
	bw="" br=""
	for _ in $(seq "$n"); do
		/usr/bin/time -v -o "$cw/time.txt" "$@" > "$cw/out.txt" 2>/dev/null
		local w
		w=$(wall "$cw/time.txt")
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then
			bw=$w
			br=$(rss "$cw/time.txt")
		fi
	done
}
size() { stat -c %s "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f%%", 100*a/b}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }

tsize=$(size "$trace")
echo "trace: $tsize bytes, $(wc -l < "$trace") lines; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "### Compression (one run each)"
echo
echo "| command | wall (s) | peak RSS (MB) | output (bytes) | of the trace |"
echo "|---|---|---|---|---|"
compress_row() { # LABEL OUT CMD...
	local label=$1 out=$2
	shift 2
	/usr/bin/time -v -o "$cw/time.txt" sh -c "$*" 2>/dev/null
	echo "| \`$label\` | $(wall "$cw/time.txt") | $(rss "$cw/time.txt") | $(size "$out") | $(pct "$(size "$out")" "$tsize") |"
}
compress_row "tracekit compress -o t.seek.zst big.tarmac" "$cw/t.seek.zst" "'$tk' compress -q -o '$cw/t.seek.zst' '$trace'"
compress_row "tracekit compress --threads=1" "$cw/t1.zst" "'$tk' compress -q --threads=1 -o '$cw/t1.zst' '$trace'"
rm -f "$cw/t1.zst"
compress_row "zstd -3 (one frame)" "$cw/t.zst" "zstd -q -3 -c '$trace' > '$cw/t.zst'"
compress_row "gzip -6" "$cw/t.gz" "gzip -6 -c '$trace' > '$cw/t.gz'"
if [ $big = 0 ]; then
	compress_row "zstd -19 -T2 (one frame)" "$cw/t19.zst" "zstd -q -19 -T2 -c '$trace' > '$cw/t19.zst'"
	rm -f "$cw/t19.zst"
	compress_row "xz -6 -T2 (blocks of 24 MiB)" "$cw/t.xz" "xz -6 -T2 -c '$trace' > '$cw/t.xz'"
fi
echo

variants="t.seek.zst t.zst t.gz"
[ $big = 0 ] && variants="$variants t.xz"
name() {
	case $1 in
	plain) echo "plain" ;;
	t.seek.zst) echo "seekable zstd (tracekit compress)" ;;
	t.zst) echo "zstd, one frame" ;;
	t.gz) echo "gzip" ;;
	t.xz) echo "xz" ;;
	esac
}
path() { [ "$1" = plain ] && echo "$trace" || echo "$cw/$1"; }

echo "### Index build and streaming reports (best of 5)"
echo
best 3 grep -c ' IT ' "$trace"
echo "\`grep -c ' IT ' big.tarmac\` (plain, page cache): $bw s, $br MB"
echo
echo "| trace | \`index\` wall (s) | vs plain | peak RSS (MB) | \`calltree --no-index\` (s) | RSS (MB) | \`profile --no-index\` (s) | RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|"
plain_index=""
for v in plain $variants; do
	p=$(path "$v")
	# (not TRACE.index: the streaming runs below must not find it)
	best 5 "$tk" index -q --force-index --index="$cw/idx-$v" "$p"
	iw=$bw ir=$br
	[ -z "$plain_index" ] && plain_index=$iw
	best 5 "$tk" calltree -q --no-index "$p"
	cw_=$bw cr=$br
	best 5 "$tk" profile -q --no-index "$p"
	echo "| $(name "$v") | $iw | $(ratio "$iw" "$plain_index") | $ir | $cw_ | $cr | $bw | $br |"
done
echo
echo "### Jumps (browser-style: the index's offset of a random position, 32 KiB read around it)"
echo
for v in $variants; do
	"$jb" "$cw/idx-$v" "$cw/$v" "$jumps" | sed "s|$cw/||"
	if [ -e "$cw/idx-$v.ckpt" ]; then echo "  (checkpoint table: $(size "$cw/idx-$v.ckpt") bytes)"; fi
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
