#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A binary trace in the browsers: perf.data with Intel PT (made by gen.sh
# from a recorded run) has no text lines; browse and serve show one line
# per instruction rendered from the index (number, CPU, pc, bytes,
# disassembly), with the call stack, and no register panes.  The lines
# must agree with ptxed's listing of the same trace, address for address.
# (environment: TK_BIN, TK_TRACES, TK_PT_WORK = gen.sh's directory)
. "$(dirname "$0")/../browse/lib.sh" pt-binary
: "${TK_PT_WORK:?}"
[ -f "$TK_PT_WORK/static-psb64.data" ] || { echo "no PT data (ptrace refused?): skipped"; exit 77; }
cp "$TK_PT_WORK/static-psb64.data" "$WORK/t.data"
"$TK_BIN" ptxed --no-inst "$WORK/t.data" 2> /dev/null | grep -E '^[0-9a-f]{16}$' > "$WORK/ptxed.txt"
n=$(wc -l < "$WORK/ptxed.txt")
[ "$n" -gt 1000 ] || fail "ptxed listed $n instructions"

start 120 30 "$WORK/t.data"
wait_for "Pos: 1/$n"
# Line 1: instruction 1, at ptxed's first address, disassembled.
first=$(head -n 1 "$WORK/ptxed.txt")
wait_for "^ +1 +cpu0 +$first +[0-9a-f]+ +[a-z]"
# The end: the last instruction; the call stack pane names functions.
keys End
wait_for "Pos: $n/$n"
last=$(tail -n 1 "$WORK/ptxed.txt")
wait_for "^ +$n +cpu0 +$last "
keys c
wait_for '^#0 '
# No register panes in a trace without register values.
keys r
wait_for 'no register values'
# A line far inside: its address is ptxed's for that instruction.
goto_line 777
wait_for "Pos: 777/$n"
want=$(sed -n 777p "$WORK/ptxed.txt")
wait_for "^ +777 +cpu0 +$want "
keys q
new_server

# serve: the same lines through the API, a search, the capabilities.
"$TK_BIN" serve --port 0 --index="$WORK/s.index" "$WORK/t.data" > "$WORK/serve.out" 2> "$WORK/serve.err" &
pid=$!
for _ in $(seq 100); do grep -q 'serving http' "$WORK/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$WORK/serve.out")
[ -n "$url" ] || { kill $pid; fail "serve did not start: $(cat "$WORK/serve.err")"; }
base=${url%%/\?*}
token=${url##*token=}
api() { curl -s "$base/api/v1/$1?token=$token&$2"; }
api traces "" > "$WORK/traces.json"
api lines "from=776&count=3" > "$WORK/lines.json"
api search "re=syscall&dir=prev" > "$WORK/search.json"
kill $pid
wait $pid 2> /dev/null
python3 - "$WORK" "$n" <<'PY' || fail "serve API on a binary trace"
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
ptxed = open(work + "/ptxed.txt").read().split()
t = json.load(open(work + "/traces.json"))["traces"][0]
assert t["format"] == "perf" and not t["caps"]["registers"] and t["caps"]["instructions"], t
assert t["instructions"] == n, (t["instructions"], n)
lines = json.load(open(work + "/lines.json"))["lines"]
assert [l["n"] for l in lines] == [776, 777, 778], lines
for l in lines:
    assert l["text"].split()[2] == ptxed[l["n"] - 1], (l, ptxed[l["n"] - 1])
s = json.load(open(work + "/search.json"))
assert s["found"] and s["line"] <= n, s
PY
pass
