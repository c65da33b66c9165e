#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit serve benchmark on the standard 124 MB trace
# (../shared/bench/make-big-trace 200), index already built:
#  - per-request latency p50/p99 (ms, measured by a keep-alive client on
#    127.0.0.1, so HTTP and JSON included) for lines, regs, mem, callstack,
#    search and position, at random lines; best of 3 runs of each figure;
#  - server memory (VmHWM) after 10 concurrent clients for 10 s;
#  - first paint in Chromium: from navigation start to the page's mark
#    after the first lines are drawn (playwright-core, as the browser tests);
#  - the anchor measured in the same run: the terminal browser's redraw per
#    key (bench/browse-bench.sh's --bench-keys mode, same trace and index).
# Usage: bench/serve-bench.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
index=$work/big-$repeats.serve.index
"$tk" index -q --index="$index" "$trace" >/dev/null
echo "trace: $(wc -c < "$trace") bytes; index: $(wc -c < "$index") bytes"
tok=$work/serve-bench.token
echo "bench-token-0123456789abcdef" > "$tok"
"$tk" serve -q --index="$index" --token-file="$tok" --image="$image" "$trace" > "$work/serve.out" &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for i in $(seq 100); do grep -q serving "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^tracekit: serving //p' "$work/serve.out")
echo "server: $url (pid $pid)"
python3 - "$url" "$pid" <<'PY'
import http.client, json, random, statistics, sys, threading, time, urllib.parse
url, pid = sys.argv[1], int(sys.argv[2])
u = urllib.parse.urlparse(url)
tok = urllib.parse.parse_qs(u.query)["token"][0]
def conn(): return http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c = conn()
def get(route, **q):
    q["token"] = tok
    c.request("GET", "/api/v1/%s?%s" % (route, urllib.parse.urlencode(q)))
    r = c.getresponse(); body = r.read()
    assert r.status == 200, (route, q, r.status, body[:200])
    return body
t = json.loads(get("traces"))["traces"][0]
lines = t["lines"]
random.seed(14)
def lat(name, fn, n=400):
    best = None
    for run in range(3):
        ts = []
        for i in range(n):
            L = random.randint(1, lines)
            t0 = time.perf_counter(); fn(L); ts.append((time.perf_counter() - t0) * 1e3)
        ts.sort()
        p50, p99 = ts[len(ts) // 2], ts[int(len(ts) * 0.99)]
        if best is None or p99 < best[1]: best = (p50, p99, max(ts))
    print("%-34s p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms" % (name, *best))
lat("lines (60 lines, display)", lambda L: get("lines", **{"from": L, "count": 60, "events": 0, "classes": 1, "symbolic": 1}))
lat("lines (1000 lines, with events)", lambda L: get("lines", **{"from": L, "count": 1000}), n=100)
lat("position (line)", lambda L: get("position", line=L))
lat("regs (core)", lambda L: get("regs", line=L, sets="core"))
lat("regs (all sets)", lambda L: get("regs", line=L))
lat("mem (256 bytes at sp)", lambda L: get("mem", line=L, addr="sp", len=256))
lat("history (previous write of x0)", lambda L: get("history", line=L, reg="x0"))
lat("callstack", lambda L: get("callstack", line=L))
lat("search (next BL, from the line)", lambda L: get("search", re="BL[[:space:]]", **{"from": L}))
lat("search (regex, rare: one request)", lambda L: get("search", re="R X19 0+80[Ff][Cc]", **{"from": L}), n=40)
t0 = time.perf_counter(); get("flamegraph"); print("flamegraph (first, builds the table)  %.1f ms" % ((time.perf_counter() - t0) * 1e3))
t0 = time.perf_counter(); get("profile"); print("profile (first, builds the table)     %.1f ms" % ((time.perf_counter() - t0) * 1e3))
# 10 concurrent clients for 10 s.
stop = time.time() + 10; count = [0] * 10; errs = []
def client(k):
    cc = conn()
    rnd = random.Random(k)
    while time.time() < stop:
        L = rnd.randint(1, lines)
        route = ("lines", "regs", "mem", "callstack", "position")[count[k] % 5]
        q = {"line": L, "token": tok}
        if route == "lines": q = {"from": L, "count": 60, "token": tok}
        if route == "mem": q.update(addr="sp", len=256)
        cc.request("GET", "/api/v1/%s?%s" % (route, urllib.parse.urlencode(q)))
        r = cc.getresponse(); r.read()
        if r.status != 200: errs.append(r.status)
        count[k] += 1
ths = [threading.Thread(target=client, args=(k,)) for k in range(10)]
[x.start() for x in ths]; [x.join() for x in ths]
st = dict(l.split(":", 1) for l in open("/proc/%d/status" % pid) if ":" in l)
print("10 concurrent clients, 10 s: %d requests (%d/s), %d errors; server VmHWM %s, VmRSS %s, threads %s" % (
    sum(count), sum(count) / 10, len(errs), st["VmHWM"].strip(), st["VmRSS"].strip(), st["Threads"].strip()))
PY
# First paint in Chromium.
nm=$work/npm
if [ -x /usr/bin/chromium ] && command -v node >/dev/null; then
	mkdir -p "$nm"; cp tests/serve/package.json tests/serve/package-lock.json "$nm/"
	[ -f "$nm/node_modules/playwright-core/package.json" ] || (cd "$nm" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
	NODE_PATH=$nm/node_modules node - "$url" <<'JS'
const {chromium} = require('playwright-core');
(async () => {
  const b = await chromium.launch({executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']});
  const ts = [];
  for (let i = 0; i < 6; i++) {
    const p = await b.newPage({viewport: {width: 1280, height: 800}});
    await p.goto(process.argv[2] + (i % 2 ? '#trace=0&line=1200000' : ''));
    await p.waitForSelector('body[data-ready="1"]');
    const r = await p.evaluate(() => {
      const m = performance.getEntriesByName('tk-first-paint')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return [m.startTime, fcp ? fcp.startTime : NaN];
    });
    ts.push(r);
    await p.close();
  }
  for (const [m, f] of ts) console.log('first paint (trace text drawn, from navigation start): %s ms; first-contentful-paint %s ms', m.toFixed(1), f.toFixed(1));
  const s = ts.map((x) => x[0]).sort((a, b) => a - b);
  console.log('first paint: best %s ms, median %s ms, worst %s ms (6 loads; odd ones open #line=1200000)', s[0].toFixed(1), s[3].toFixed(1), s[5].toFixed(1));
  await b.close();
})();
JS
fi
echo
echo "anchor: the terminal browser on the same trace and index (keys: Down PgDn l1200000 msp c):"
COLUMNS=120 LINES=40 TERM=xterm-256color "$tk" browse -q --index="$index" --image="$image" \
	--bench-keys="Down Down PgDn l1200000+Enter msp+Enter c Down Up" "$trace" </dev/null | tail -9
