#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Qtrace files and HTM dumps in the web browser's API: one line per record,
# rendered from the index (record, context, effective address, word,
# libopcodes disassembly).  Each line must agree with qtdis's listing of
# the same file: the address and the mnemonic.  Usage: browse.sh TK_BIN
# SEEDS_DIR (the test program's first 400 instructions, made by qtwrite).
set -u
bin=$1
seeds=$2
[ -f "$seeds/calls.qt" ] || { echo "no POWER seeds (qemu missing?): skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tk-power-browse.XXXXXX")
trap 'kill $pid 2> /dev/null; rm -rf "$work"' EXIT
cp "$seeds/calls.qt" "$seeds/calls-p10.htm" "$work/"
"$bin" qtdis "$work/calls.qt" > "$work/qtdis.txt" || { echo "FAIL: qtdis"; exit 1; }
"$bin" serve -q --port 0 "$work/calls.qt" "$work/calls-p10.htm" > "$work/serve.out" 2> "$work/serve.err" &
pid=$!
for _ in $(seq 100); do grep -q 'serving http' "$work/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/serve.out")
[ -n "$url" ] || { echo "FAIL: serve did not start: $(cat "$work/serve.err")"; exit 1; }
base=${url%%/\?*}
token=${url##*token=}
for t in 0 1; do
	curl -s "$base/api/v1/lines?token=$token&trace=$t&from=1&count=1000" > "$work/lines$t.json"
done
curl -s "$base/api/v1/traces?token=$token" > "$work/traces.json"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
listing = []
for l in open(work + "/qtdis.txt"):
    ea, _, text = l.rstrip("\n").partition("\t")
    listing.append((int(ea.strip(), 16), text.split()[0] if text.split() else ""))
traces = json.load(open(work + "/traces.json"))["traces"]
bad = 0
for t, fmt in ((0, "qtrace"), (1, "htm")):
    info = traces[t]
    assert info["format"] == fmt and not info["caps"]["registers"], info
    lines = json.load(open(work + "/lines%d.json" % t))["lines"]
    steps = [l for l in lines if not l["text"].startswith("(record")]
    if len(steps) != len(listing):
        print("FAIL: %s: %d lines rendered, qtdis lists %d" % (fmt, len(steps), len(listing)))
        bad += 1
        continue
    for l, (ea, mnem) in zip(steps, listing):
        f = l["text"].split()
        if int(f[2], 16) != ea or f[4] != mnem:
            print("FAIL: %s line %d: %r, qtdis: %x %s" % (fmt, l["n"], l["text"], ea, mnem))
            bad += 1
            break
print("%d passed, %d failed" % (2 - bad, bad))
sys.exit(1 if bad else 0)
PY
