#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""API tests of tracekit serve against a running server on the shared traces.

Values are checked against `tracekit dump` on the same trace; then bad
parameters, a wrong or missing token, hostile and oversized requests and
many concurrent clients, and finally a clean Ctrl-C.  Every loop is bounded
and every connection goes to 127.0.0.1.
Usage: api_test.py TRACEKIT TRACES_DIR WORK_DIR
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

TK, TRACES, WORK = sys.argv[1:4]
QS = os.path.join(TRACES, "quicksort.tarmac")
QS_ELF = os.path.join(TRACES, "quicksort.elf")
CALC = os.path.join(TRACES, "calculator-aarch32-fastmodel.tarmac")
CALC_ELF = os.path.join(TRACES, "calculator-aarch32.elf")
TOKEN = "test-token-0123456789abcdef"
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)


def dump(trace, *args, image=None):
    cmd = [TK, "dump", "-q", "--index=" + os.path.join(WORK, os.path.basename(trace) + ".index"), trace, *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


os.makedirs(WORK, exist_ok=True)
tokfile = os.path.join(WORK, "token")
with open(tokfile, "w") as f:
    f.write(TOKEN + "\n")
srv = subprocess.Popen([TK, "serve", "-q", "--token-file=" + tokfile,
                        "--index=" + os.path.join(WORK, "quicksort.tarmac.index"), "--image=" + QS_ELF, QS,
                        "--index=" + os.path.join(WORK, "calculator-aarch32-fastmodel.tarmac.index"),
                        "--image=" + CALC_ELF, CALC],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = srv.stdout.readline()
m = re.match(r"tracekit: serving http://127\.0\.0\.1:(\d+)/\?token=(\S+)$", line.strip())
check(m is not None, "the one line with the link: %r" % line)
if not m:
    srv.kill()
    print(srv.stderr.read())
    sys.exit(1)
PORT = int(m.group(1))
check(m.group(2) == TOKEN, "the token of --token-file")


def get(path, params=None, token=TOKEN, method="GET", headers=None, body=None):
    p = dict(params or {})
    if token is not None:
        p["token"] = token
    url = path + ("?" + urllib.parse.urlencode(p) if p else "")
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    c.request(method, url, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data, r


def api(route, **params):
    st, data, _ = get("/api/v1/" + route, params)
    return st, json.loads(data)


# ---- traces ---------------------------------------------------------------
st, j = api("traces")
check(st == 200 and j["version"] == 1 and len(j["traces"]) == 2, "traces")
idx = dump(QS, "pos", "end")
t0 = j["traces"][0]
check(t0["name"] == "quicksort.tarmac" and t0["image"] == QS_ELF, "trace 0 file and image")
check(t0["instructions"] == int(re.search(r"pos (\d+)", idx).group(1)) + 1, "instructions = dump's last position + 1")
with open(QS, "rb") as f:
    qs_lines = f.read().split(b"\n")
check(t0["lines"] == len(qs_lines) - (1 if qs_lines[-1] == b"" else 0), "lines of the trace")
check(t0["isa"] == "A64" and t0["time"]["first"] == 1, "isa and first time")
check(t0["format"] == "tarmac" and t0["caps"]["registers"] and t0["caps"]["memory_values"]
      and t0["caps"]["instructions"] and not t0["caps"]["functions"], "format and capabilities")
check(t0["contexts"] == 1 and t0["context_name"] in ("cpu", "thread"), "contexts")

# ---- positions vs dump ------------------------------------------------------
for L in (1, 157, 158, 300, 1000, 2500, 4322):
    st, p = api("position", trace=0, line=L)
    d = dump(QS, "pos", str(L))
    mm = re.match(r"pos (\d+) line (\d+) offset \d+ time (\d+) pc (0x[0-9a-f]+) isa (\S+) width (\d+) (\S+).* lines (\d+)-(\d+)", d)
    check(st == 200 and mm and p["insn"] == int(mm.group(1)) and p["line"] == int(mm.group(2)) and
          p["time"] == int(mm.group(3)) and p["pc"] == mm.group(4) and p["isa"] == mm.group(5) and
          p["first_line"] == int(mm.group(8)) and p["end_line"] == int(mm.group(9)) + 1,
          "position at line %d = dump pos (%s / %s)" % (L, p, d.strip()))
st, p = api("position", trace=0, time=500)
check(st == 200 and "line %d " % p["line"] in dump(QS, "find-time", "500"), "position by time = dump find-time")
st, p = api("position", trace=0, pc="quicksort")
check(st == 200 and p["pc"] == "0x8038", "position by pc symbol")
st, p2 = api("position", trace=0, pc="0x8038", **{"from": p["line"], "dir": "next"})
d = dump(QS, "find-pc", str(p["line"]), "0x8038")
check(st == 200 and "line %d " % p2["line"] in d, "next visit = dump find-pc")
st, p3 = api("position", trace=0, pc="0x8038", visit=2)
check(st == 200 and p3["line"] == p2["line"], "visit=2 is the second visit")

# ---- registers vs dump --------------------------------------------------------
for L in (158, 300, 1000, 3000):
    st, r = api("regs", trace=0, line=L, sets="core,system")
    regs = {x["name"]: x for g in r["groups"] for x in g["regs"]}
    ref = dict(l.split() for l in dump(QS, "regs", str(L)).splitlines())
    for i in (0, 1, 2, 19, 29, 30):
        name = "x%d" % i
        want = ref.get(name, "?" * 16)
        check(regs[name]["value"] == want, "x%d at line %d: %s vs dump %s" % (i, L, regs[name]["value"], want))
        check(regs[name]["known"] == "".join("0" if want[k:k + 2] == "??" else "1" for k in range(0, 16, 2)),
              "known mask of x%d at line %d" % (i, L))
    check(regs["sp"]["value"] == ref.get("xsp", "?" * 16), "sp at line %d" % L)
st, r = api("regs", trace=0, line=177)
core = {x["name"]: x for x in r["groups"][0]["regs"]}
check(core["x30"]["changed"] is False and core["sp"]["changed"] and core["sp"]["written"], "changed and written flags (STP x30,x21,[sp,#-0x20]!)")
check(core["pc"]["value"] == "0000000000008038" and core["pc"]["changed"], "pc row: reached by a call")

# ---- memory vs dump -----------------------------------------------------------
for L, addr in ((300, 0xfffd0), (1000, 0xfff80), (4000, 0x80fc)):
    st, mj = api("mem", trace=0, line=L, addr=hex(addr), len=64)
    ref = "".join(l.split(":")[1].replace(" ", "") for l in dump(QS, "mem", str(L), hex(addr), "64").splitlines())
    check(st == 200 and mj["bytes"] == ref, "memory at line %d %x" % (L, addr))
    check(mj["known"] == "".join("0" if ref[k:k + 2] == "??" else "1" for k in range(0, 128, 2)), "memory known mask")
st, mj = api("mem", trace=0, line=300, addr="sp+8", len=8)
check(st == 200 and mj["addr"] == "0xfffd8", "address expression sp+8")
st, mj = api("mem", trace=0, line=180, addr="sp", len=32)
check(st == 200 and len(mj["changed"]) >= 1, "memory changed by the STP at line 177-180: %s" % mj.get("changed"))

# ---- history vs dump ------------------------------------------------------------
for L in (300, 2000):
    st, h = api("history", trace=0, line=L, reg="x0", dir="prev")
    d = dump(QS, "prev-write", "reg", str(L), "x0")
    check(st == 200 and h["found"] and "line %d " % h["position"]["line"] in d, "previous write of x0 before line %d" % L)
    st, h = api("history", trace=0, line=L, reg="x0", dir="next")
    d = dump(QS, "next-write", "reg", str(L), "x0")
    check(st == 200 and (("line %d " % h["position"]["line"]) in d if h["found"] else d.strip() == "none"), "next write of x0 after %d" % L)
    st, h = api("history", trace=0, line=L, addr="0xfffd0", len=8, dir="prev")
    d = dump(QS, "prev-write", "mem", str(L), "0xfffd0", "8")
    check(st == 200 and (("line %d " % h["position"]["line"]) in d if h["found"] else d.strip() == "none"), "previous memory write before %d" % L)

# ---- calls ------------------------------------------------------------------------
calls = dump(QS, "calls").splitlines()
st, ct = api("calltree", trace=0, depth=8, limit=1000)
check(st == 200 and len(ct["nodes"]) == len(calls), "the whole call tree (%d nodes vs %d)" % (len(ct["nodes"]), len(calls)))
st, cs = api("callstack", trace=0, line=1000)
d = dump(QS, "call-at", "1000")
check(st == 200 and "call %d " % cs["frames"][0]["id"] in d and cs["frames"][-1]["id"] == 0, "call stack = dump call-at")
check([f["name"] for f in cs["frames"]][-1] == "_start", "names from the image")
st, fo = api("folds", trace=0, calls="1")
n1 = ct["nodes"][1]
check(st == 200 and fo["hidden"] == [[n1["first_line"], n1["end_line"], 1, n1["exit"]["line"]]], "folds of call 1")
st, fo = api("folds", trace=0, calls="1-%d" % (len(calls) - 1))
check(st == 200 and len(fo["hidden"]) == ct["nodes"][0]["children"], "fold all: one stretch per top-level call")
st, pr = api("profile", trace=0)
prof = {f["addr"]: f for f in pr["functions"]}
ref = [l.split() for l in subprocess.run([TK, "profile", "-q", "--no-index", QS], capture_output=True, text=True).stdout.splitlines()[1:]]
check(st == 200 and all(prof[a]["count"] == int(c) and prof[a]["time"] == int(t) for a, c, t in ref), "profile = tracekit profile")
st, fl = api("flamegraph", trace=0)
check(st == 200 and fl["frames"][0]["parent"] == -1 and sum(f["count"] for f in fl["frames"]) == len(calls), "flame graph frames cover every call")

# ---- lines and search -------------------------------------------------------------
st, lj = api("lines", trace=0, **{"from": 155, "count": 10})
check(st == 200 and [l["text"].encode() for l in lj["lines"]] == qs_lines[154:164], "lines = the file's lines")
check(lj["lines"][2]["is_insn"] and lj["lines"][2]["events"][0]["kind"] == "insn" and lj["lines"][2]["events"][0]["pc"] == "0x8000", "parsed events")
st, lj = api("lines", trace=0, **{"from": 4320, "count": 1000})
check(st == 200 and len(lj["lines"]) == t0["lines"] - 4319, "lines clipped at the end")
grep = [i + 1 for i, l in enumerate(qs_lines) if re.search(rb"BL\s", l)]
st, s1 = api("search", trace=0, re=r"BL[[:space:]]", **{"from": 200})
check(st == 200 and s1["found"] and s1["line"] == next(g for g in grep if g > 200), "search next = grep")
st, s2 = api("search", trace=0, re=r"BL[[:space:]]", **{"from": 4000}, dir="prev")
check(st == 200 and s2["line"] == max(g for g in grep if g < 4000), "search prev = grep")
st, s3 = api("search", trace=0, re="no such text anywhere")
check(st == 200 and not s3["found"] and s3["done"], "search without a match")
st, sy = api("symbols", trace=0, q="quick")
check(st == 200 and sy["symbols"][0]["name"] == "quicksort" and sy["symbols"][0]["addr"] == "0x8038", "symbols by prefix")
st, sy = api("regs", trace=1, line=2000)
check(st == 200 and sy["groups"][0]["title"].endswith("(AArch32)"), "second trace: AArch32 names")

# ---- errors ---------------------------------------------------------------------------
bad = [
    ("position", {"trace": 0}, 400), ("position", {"trace": 0, "line": "x"}, 400),
    ("position", {"trace": 0, "line": "0"}, 400), ("position", {"trace": 0, "line": "99999999"}, 400),
    ("position", {"trace": 0, "line": "-1"}, 400), ("position", {"trace": 0, "line": "18446744073709551616"}, 400),
    ("position", {"trace": 9, "line": 1}, 404), ("position", {"line": 1}, 400),
    ("lines", {"trace": 0, "from": 1, "count": 5000}, 400), ("mem", {"trace": 0, "line": 300, "addr": "x99"}, 400),
    ("mem", {"trace": 0, "line": 300, "addr": "sp", "len": 10 ** 6}, 400), ("mem", {"trace": 0, "line": 300, "addr": "(", "len": 4}, 400),
    ("mem", {"trace": 0, "line": 300, "addr": "a" * 300}, 400), ("history", {"trace": 0, "line": 300}, 400),
    ("history", {"trace": 0, "line": 300, "reg": "nosuch"}, 400), ("search", {"trace": 0, "re": "(a"}, 400),
    ("search", {"trace": 0, "re": r"(a)\1"}, 400), ("search", {"trace": 0, "re": "a" * 600}, 400),
    ("calltree", {"trace": 0, "call": 99999}, 404), ("calltree", {"trace": 0, "depth": 99}, 400),
    ("folds", {"trace": 0, "calls": "5-1"}, 400), ("folds", {"trace": 0, "calls": "1,,2"}, 400),
    ("folds", {"trace": 0, "calls": "x"}, 400), ("nosuch", {}, 404), ("", {}, 404),
]
for route, params, want in bad:
    st, data, r = get("/api/v1/" + route, params)
    try:
        j = json.loads(data)
    except ValueError:
        j = {}
    check(st == want and j.get("status") == want and j.get("error"), "%s %s -> %d %s" % (route, params, st, data[:120]))
    check(r.getheader("Content-Type") == "application/json", "errors are JSON")
st, data, _ = get("/api/v1/traces", token="wrong-token-0123456789")
check(st == 403 and json.loads(data)["status"] == 403, "wrong token: 403")
st, data, _ = get("/api/v1/traces", token=None)
check(st == 403, "no token: 403")
st, data, _ = get("/", token=None)
check(st == 403, "the page needs the token too")
st, data, r = get("/", {})
check(st == 200 and b"<!DOCTYPE html>" in data and TOKEN.encode() in data and "default-src 'none'" in r.getheader("Content-Security-Policy"), "the page, with its token and a CSP")
st, data, _ = get("/assets/app.js", {})
check(st == 200 and b"TK.app" in data, "an embedded asset")
for path in ("/assets/../../etc/passwd", "/assets/%2e%2e/x", "/../etc/passwd", "/etc/passwd", "/assets/"):
    st, data, _ = get(path, {})
    check(st == 404 and b"root:" not in data, "no file paths from requests: %s -> %d" % (path, st))
st, data, _ = get("/api/v1/traces", {}, headers={"X-Tracekit-Token": TOKEN}, token=None)
check(st == 200, "token in the X-Tracekit-Token header")
st, data, _ = get("/api/v1/traces", {}, method="POST", body=b"x" * 10)
check(st in (405, 413), "POST refused (%d)" % st)
st, data, _ = get("/api/v1/traces", {}, method="DELETE")
check(st == 405, "DELETE refused")
st, data, _ = get("/api/v1/traces", {}, headers={"Host": "evil.example:80"})
check(st == 403, "a foreign Host header (DNS rebinding) refused")


def raw(data, read=True):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    try:
        s.sendall(data)
        if read:
            return s.recv(200)
    except OSError:
        return b""
    finally:
        s.close()


out = raw(b"GET /api/v1/traces?token=" + TOKEN.encode() + b"&x=" + b"A" * 300000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
check(out == b"" or re.match(rb"HTTP/1\.[01] (4\d\d)", out) is not None, "oversized request refused: %r" % out[:40])
for junk in (b"\x00\xff" * 100 + b"\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"G" * 70000, b"GET /?token=" + b"%" * 1000 + b" HTTP/1.1\r\n\r\n"):
    raw(junk)
# A client that sends half a request and stops, and one that disconnects.
half = socket.create_connection(("127.0.0.1", PORT), timeout=5)
half.sendall(b"GET /api/v1/traces HTTP/1.1\r\nHost: 127.")
raw(b"GET /api/v1/lines?from=1&count=1000&trace=0&token=" + TOKEN.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", read=False)

# ---- concurrency: 24 clients, 40 requests each, bounded in time ------------------------
errors = []


def client(k):
    try:
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=20)
        for i in range(40):
            L = 160 + (k * 97 + i * 131) % 4000
            route = ("regs", "mem", "lines", "callstack", "position")[i % 5]
            q = {"trace": k % 2, "line": L, "token": TOKEN}
            if route == "mem":
                q.update(addr="0x8000", len=256)
            if route == "lines":
                q = {"trace": k % 2, "from": L, "count": 200, "token": TOKEN}
            c.request("GET", "/api/v1/%s?%s" % (route, urllib.parse.urlencode(q)))
            r = c.getresponse()
            body = r.read()
            if r.status != 200:
                errors.append((route, r.status, body[:80]))
        c.close()
    except Exception as e:  # noqa: BLE001 - any failure is a test failure
        errors.append(repr(e))


t_start = time.time()
threads = [threading.Thread(target=client, args=(k,)) for k in range(24)]
for t in threads:
    t.start()
for t in threads:
    t.join(60)
check(not errors and all(not t.is_alive() for t in threads), "concurrent clients: %s" % errors[:3])
print("concurrency: 960 requests in %.2f s" % (time.time() - t_start))
half.close()
st, j = api("traces")
check(st == 200, "the server still answers after all that")

# ---- clean shutdown ---------------------------------------------------------------------
srv.send_signal(signal.SIGINT)
try:
    rc = srv.wait(10)
except subprocess.TimeoutExpired:
    srv.kill()
    rc = None
check(rc == 0, "Ctrl-C: a clean exit (%s)" % rc)
err = srv.stderr.read()
check("error" not in err.lower(), "nothing on stderr but the stop: %r" % err[:200])
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
