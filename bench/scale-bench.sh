#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit at scale (issue 9): index build on one and two threads beside
# `grep -c ' IT '` on the same file in the same run; the streaming report
# tools on one and two threads; peak RSS of every command on the standard
# 124 MB trace (make-big-trace 200) and on a 10x trace (make-big-trace
# 2000, 1.26 GB, deleted at the end); the start of a small command.
# Every time is the best of RUNS runs (the machine is shared: best-of
# is what the code costs, not what the neighbours cost); RSS is
# /usr/bin/time's "Maximum resident set size".
# Usage: [REF_TK=old/tracekit] bench/scale-bench.sh [BUILD_DIR] [RUNS] [BIG]
#   RUNS: best of how many (default 5); BIG: the 10x trace's make-big-trace argument (default 2000;
#   0 skips the 10x part)
# Prints Markdown for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${2:-5}
big=${3:-2000}
set -- "${1:-build}" 200
. bench/common.sh
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
idx=$work/scale.index
out=$work/scale.out
tm=$work/scale.time

rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$tm"; }

# best CMD...: the best wall time of $runs runs (bash's clock around
# /usr/bin/time, whose own figure is in hundredths; the index removed
# before each, so every build starts from nothing), and that run's RSS.
best_w="" best_r=""
best() {
	best_w="" best_r=""
	for _ in $(seq "$runs"); do
		rm -f "$idx"
		local s e w r
		s=$EPOCHREALTIME
		/usr/bin/time -v -o "$tm" "$@" > "$out" 2>/dev/null || true
		e=$EPOCHREALTIME
		w=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}') r=$(rss)
		if [ -z "$best_w" ] || awk -v a="$w" -v b="$best_w" 'BEGIN{exit !(a<b)}'; then
			best_w=$w best_r=$r
		fi
	done
}

echo "trace: $(wc -c < "$trace") bytes, $(wc -l < "$trace") lines; $(nproc) CPUs" \
     "($(grep -q avx2 /proc/cpuinfo && echo AVX2 || echo no AVX2)); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "### Index build beside grep (best of $runs, the same file from the page cache)"
echo
echo "| command | wall (s) | x grep | peak RSS (MB) |"
echo "|---|---|---|---|"
cat "$trace" > /dev/null
best grep -c ' IT ' "$trace"
g=$best_w
echo "| \`grep -c ' IT ' big.tarmac\` (output to a file: grep stops at the first match when it writes to /dev/null) | $g | 1.0 | $best_r |"
for t in 1 2; do
	best "$tk" index -q --threads=$t --index="$idx" "$trace"
	echo "| \`tracekit index --threads=$t\` (no index before) | $best_w | $(awk -v a="$best_w" -v b="$g" 'BEGIN{printf "%.1f", a/b}') | $best_r |"
done
best "$tk" index -q --index="$idx" "$trace"
echo "| \`tracekit index\` (default: every core) | $best_w | $(awk -v a="$best_w" -v b="$g" 'BEGIN{printf "%.1f", a/b}') | $best_r |"
echo
"$tk" index -q --index="$idx" "$trace" > /dev/null
echo "index: $(wc -c < "$idx") bytes"

echo
echo "### Report tools reading the trace (no index; best of $runs)"
echo
echo "| command | 1 thread (s) | 2 threads (s) | peak RSS 2 threads (MB) |"
echo "|---|---|---|---|"
for c in calltree profile flamegraph; do
	best "$tk" $c --threads=1 --no-index -q --index="$idx.none" "$trace"
	one=$best_w
	best "$tk" $c --threads=2 --no-index -q --index="$idx.none" "$trace"
	echo "| \`tracekit $c --no-index\` | $one | $best_w | $best_r |"
done

echo
echo "### Start of a small command (\`tracekit profile --help\`, best of 50)"
echo
# start BINARY: the best wall time in ms of 50 runs (bash's clock before
# and after: fork and exec included) and the peak RSS in MB.
start() {
	local b="" s e ms
	for _ in $(seq 50); do
		s=$EPOCHREALTIME; "$1" profile --help > /dev/null; e=$EPOCHREALTIME
		ms=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", (b-a)*1000}')
		if [ -z "$b" ] || awk -v x="$ms" -v y="$b" 'BEGIN{exit !(x<y)}'; then b=$ms; fi
	done
	/usr/bin/time -f "%M" -o "$tm" "$1" profile --help > /dev/null
	echo "wall $b ms, peak RSS $(awk '{printf "%.1f", $1/1024}' "$tm") MB;" \
	     "libraries loaded: $(ldd "$1" | awk '{print $1}' | grep -v vdso | sed 's/\.so.*//' | tr '\n' ' ')"
}
# REF_TK: a tracekit built before the modules, for the "before" figure
if [ -n "${REF_TK:-}" ]; then
	echo "- before (\`$REF_TK\`): $(start "$REF_TK")"
fi
echo "- now: $(start "$tk")"

# rss_all TRACE LABEL: peak RSS and wall of every command on TRACE.
rss_all() {
	local t=$1 label=$2 ti=$work/scale-rss.index
	rm -f "$ti"
	row() { # name, command...
		local name=$1 s e; shift
		s=$EPOCHREALTIME
		/usr/bin/time -v -o "$tm" "$@" > "$out" 2>/dev/null || true
		e=$EPOCHREALTIME
		echo "| $label | \`$name\` | $(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}') | $(rss) |"
	}
	row "index (build)" "$tk" index -q --index="$ti" "$t"
	row "index (open an up-to-date index)" "$tk" index -q --index="$ti" "$t"
	row "dump regs (line 100000)" "$tk" dump -q --index="$ti" "$t" regs 100000
	row "dump mem (end)" "$tk" dump -q --index="$ti" "$t" mem end 0xffb00 256
	row "dump calls" "$tk" dump -q --index="$ti" "$t" calls
	for c in calltree profile flamegraph; do
		row "$c (index)" "$tk" $c -q --index="$ti" "$t"
		row "$c --no-index" "$tk" $c --no-index -q --index="$ti.none" "$t"
	done
	row "calltree --json (index)" "$tk" calltree --json -q --index="$ti" "$t"
	row "callinfo (index)" "$tk" callinfo -q --index="$ti" "$t" 0x2109bc
	row "export --to=chrome (index)" "$tk" export --to=chrome -q --index="$ti" -o "$work/scale-x.json" "$t"
	row "export --to=speedscope (index)" "$tk" export --to=speedscope -q --index="$ti" -o "$work/scale-x.json" "$t"
	row "parse --count" "$tk" parse --count -q "$t"
	row "vcd" "$tk" vcd --no-date -q -o "$work/scale-x.vcd" "$t"
	row "truncate" "$tk" truncate -q -o "$work/scale-x.trunc" "$t"
	local keys="Down PgDn PgUp End Home } End Home { l1200000+Enter t500000+Enter - Up + [ ] a Enter"
	row "browse (--bench-keys)" env COLUMNS=120 LINES=40 TERM=xterm-256color \
		"$tk" browse -q --index="$ti" --bench-keys="$keys" "$t"
	# serve: a few requests of each kind, then the server's VmHWM
	echo "bench-token-0123456789abcdef" > "$work/scale-tok"
	"$tk" serve -q --index="$ti" --token-file="$work/scale-tok" "$t" > "$work/scale-serve.out" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do grep -q serving "$work/scale-serve.out" 2>/dev/null && break; sleep 0.1; done
	local url
	url=$(sed -n 's/^tracekit: serving //p' "$work/scale-serve.out")
	if [ -n "$url" ]; then
		python3 - "$url" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
tok = urllib.parse.parse_qs(u.query)["token"][0]
c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
def get(route, **q):
    q["token"] = tok
    c.request("GET", "/api/v1/%s?%s" % (route, urllib.parse.urlencode(q)))
    r = c.getresponse(); r.read()
lines = json.loads((lambda: (c.request("GET", "/api/v1/traces?token=" + tok), c.getresponse().read())[1])())["traces"][0]["lines"]
for L in (1, lines // 2, lines - 10):
    get("lines", **{"from": L, "count": 60})
    get("regs", line=L)
    get("callstack", line=L)
    get("mem", line=L, addr="sp", len=256)
get("calltree"); get("profile"); get("flamegraph")
get("search", **{"from": 1, "re": "HLT"})
PY
		echo "| $label | \`serve\` (start, 16 requests) | - | $(awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$pid/status) |"
	fi
	kill -INT $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	rm -f "$ti" "$work/scale-x.json" "$work/scale-x.vcd" "$work/scale-x.trunc"
}

echo
echo "### Peak RSS of every command at 1x and 10x"
echo
echo "| trace | command | wall (s) | peak RSS (MB) |"
echo "|---|---|---|---|"
rss_all "$trace" "1x (124 MB)"
if [ "$big" != 0 ]; then
	t10=$work/scale-big-$big.tarmac
	"$shared/bench/make-big-trace" "$big" > "$t10"
	rss_all "$t10" "10x ($(($(wc -c < "$t10") / 1000000)) MB)"
	rm -f "$t10"	# the disk is shared
fi
rm -f "$idx" "$out" "$tm" "$work/scale-serve.out" "$work/scale-tok"
