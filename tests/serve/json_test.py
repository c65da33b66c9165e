#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""--json of calltree, callinfo, profile and dump against their text output,
and the files of `tracekit export` against the formats they claim (Chrome
Trace Event "X" events, speedscope's evented profile), on shared traces.
Usage: json_test.py TRACEKIT TRACES_DIR WORK_DIR"""
import json
import os
import re
import subprocess
import sys

TK, TRACES, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)


def run(*args):
    return subprocess.run([TK, *args], check=True, capture_output=True, text=True).stdout


CASES = [("quicksort.tarmac", "quicksort.elf"), ("calculator-aarch64-fastmodel.tarmac", "calculator-aarch64.elf"),
         ("calculator-aarch32-fastmodel.tarmac", "calculator-aarch32.elf")]
for trace, elf in CASES:
    t, img = os.path.join(TRACES, trace), "--image=" + os.path.join(TRACES, elf)
    idx = "--index=" + os.path.join(WORK, trace + ".index")
    # calltree: every "o" line is one call, in the same order.
    text = run("calltree", "-q", "--no-index", img, t)
    js = json.loads(run("calltree", "-q", "--json", "--no-index", img, t))
    olines = [l for l in text.splitlines() if l.lstrip().startswith("o ")]
    check(js["version"] == 1 and len(js["calls"]) == len(olines), "%s: calltree --json has every call" % trace)
    ok = True
    for c, l in zip(js["calls"], olines):
        m = re.search(r"o t:(\d+) l:(\d+) pc:(0x[0-9a-f]+) - t:(\d+) l:(\d+) pc:(0x[0-9a-f]+) :\s*(.*)$", l)
        ok &= (c["entry"]["time"], c["entry"]["line"], c["entry"]["pc"], c["exit"]["time"], c["exit"]["line"],
               c["exit"]["pc"]) == (int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5]), m[6])
        ok &= (c["name"] or "") == m[7] and len(l) - len(l.lstrip()) == 4 * c["depth"]
    check(ok, "%s: calltree --json = the text tree" % trace)
    # profile
    text = run("profile", "-q", "--no-index", img, t).splitlines()[1:]
    js = json.loads(run("profile", "-q", "--json", "--no-index", img, t))
    check([(f["addr"], f["count"], f["time"]) for f in js["functions"]] ==
          [(l.split()[0], int(l.split()[1]), int(l.split()[2])) for l in text], "%s: profile --json = the table" % trace)
    # callinfo on the three busiest functions
    addrs = [f["addr"] for f in sorted(js["functions"], key=lambda f: -f["count"])[:3]]
    text = run("callinfo", "-q", "--no-index", img, t, *addrs)
    js = json.loads(run("callinfo", "-q", "--json", "--no-index", img, t, *addrs))
    want = [(int(a), int(b), int(c)) for a, b, c in re.findall(r"- time: (\d+) \(line:(\d+), pos:(\d+)\)", text)]
    got = [(c["time"], c["line"], c["offset"]) for f in js["functions"] for c in f["calls"]]
    check(got == want and [f["addr"] for f in js["functions"]] == addrs, "%s: callinfo --json = the text" % trace)
    # dump
    for q in (["pos", "400"], ["regs", "400"], ["mem", "400", "0x8000", "32"], ["history", "reg", "sp"],
              ["prev-write", "reg", "900", "lr"], ["find-time", "100"], ["calls"], ["call-at", "900"]):
        text = run("dump", "-q", idx, t, *q)
        js = json.loads(run("dump", "-q", "--json", idx, t, *q))
        if q[0] == "pos":
            ok = "pos %d line %d " % (js["insn"], js["line"]) in text and "pc %s " % js["pc"] in text
        elif q[0] == "regs":
            ok = {k: v for k, v in (l.split() for l in text.splitlines())} == js["registers"]
        elif q[0] == "mem":
            ok = "".join(l.split(":")[1].replace(" ", "") for l in text.splitlines()) == js["bytes"]
        elif q[0] == "history":
            ok = [int(x) for x in re.findall(r"line (\d+)", text)] == [w["line"] for w in js["writes"]]
        elif q[0] in ("prev-write", "find-time"):
            ok = (text.strip() == "none") == (js["position"] is None) and (js["position"] is None or "line %d " % js["position"]["line"] in text)
        elif q[0] == "calls":
            ok = len(js["calls"]) == len(text.splitlines())
        else:
            ok = text.startswith("call %d " % js["call"])
        check(ok, "%s: dump --json %s" % (trace, " ".join(q)))
    ncalls = len(olines)

    # export --to=chrome: X events, one per activation, nested per track.
    out = os.path.join(WORK, trace + ".chrome.json")
    run("export", "-q", "--to=chrome", img, t, "-o", out)
    with open(out) as f:
        ch = json.load(f)
    xs = [e for e in ch["traceEvents"] if e["ph"] == "X"]
    check(len(xs) == ncalls, "%s: chrome: one X event per activation (%d, %d)" % (trace, len(xs), ncalls))
    check(all(isinstance(e["name"], str) and isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and
              isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["args"]["entry_line"], int)
              and re.match(r"0x[0-9a-f]+$", e["args"]["pc"]) for e in xs), "%s: chrome: the members of X events" % trace)
    check(any(e["ph"] == "M" and e["name"] == "thread_name" for e in ch["traceEvents"]), "%s: chrome: the track is named" % trace)
    stack, nested = [], True
    for e in sorted(xs, key=lambda e: (e["ts"], -e["dur"])):
        while stack and e["ts"] >= stack[-1] and not (e["dur"] == 0 and e["ts"] == stack[-1]):
            stack.pop()
        nested &= not stack or e["ts"] + e["dur"] <= stack[-1]
        stack.append(e["ts"] + e["dur"])
    check(nested, "%s: chrome: activations nest" % trace)
    # export --to=speedscope: evented, sorted, balanced.
    out2 = os.path.join(WORK, trace + ".speedscope.json")
    run("export", "-q", "--to=speedscope", "--unit=instructions", img, t, "-o", out2)
    with open(out2) as f:
        sp = json.load(f)
    p = sp["profiles"][0]
    check(sp["$schema"] == "https://www.speedscope.app/file-format-schema.json" and p["type"] == "evented"
          and p["unit"] == "none", "%s: speedscope: the header" % trace)
    opens, st, ok, last = 0, [], True, p["startValue"]
    for e in p["events"]:
        ok &= e["at"] >= last and 0 <= e["frame"] < len(sp["shared"]["frames"])
        last = e["at"]
        if e["type"] == "O":
            opens += 1
            st.append(e["frame"])
        else:
            ok &= bool(st) and st.pop() == e["frame"]
    check(ok and not st and opens == ncalls and last <= p["endValue"], "%s: speedscope: %d balanced, sorted events" % (trace, opens))
    check(all("name" in f for f in sp["shared"]["frames"]), "%s: speedscope: frames" % trace)

# Several contexts: one named track per thread (a function trace of three
# interleaved threads, tests/functrace/data/contexts.functext).
ctx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "functrace", "data",
                   "contexts.functext")
ctx_copy = os.path.join(WORK, "contexts.functext")
with open(ctx, "rb") as f, open(ctx_copy, "wb") as g:
    g.write(f.read())
out = os.path.join(WORK, "contexts.chrome.json")
run("export", "-q", "--to=chrome", ctx_copy, "-o", out)
with open(out) as f:
    ch = json.load(f)
tracks = {e["tid"]: e["args"]["name"] for e in ch["traceEvents"]
          if e["ph"] == "M" and e["name"] == "thread_name"}
check(tracks == {1: "thread 1", 2: "thread 2", 9: "thread 9"}, "chrome: one track per thread: %r" % tracks)
xs = [e for e in ch["traceEvents"] if e["ph"] == "X"]
check({e["tid"] for e in xs} == {1, 2, 9} and sum(e["cat"] == "trace" for e in xs) == 3,
      "chrome: each thread's activations on its track, one root each")

out = os.path.join(WORK, "contexts.speedscope.json")
run("export", "-q", "--to=speedscope", ctx_copy, "-o", out)
with open(out) as f:
    sp = json.load(f)
names = [p["name"] for p in sp["profiles"]]
check(names == ["thread 1", "thread 2", "thread 9"], "speedscope: one profile per thread: %r" % names)
ok = True
for p in sp["profiles"]:
    st = []
    for e in p["events"]:
        if e["type"] == "O":
            st.append(e["frame"])
        else:
            ok &= bool(st) and st.pop() == e["frame"]
    ok &= not st and p["startValue"] <= p["endValue"]
check(ok and sum(len(p["events"]) for p in sp["profiles"]) == 2 * len(xs),
      "speedscope: each thread's profile balanced, every activation once")

# Errors: a usage error, a missing trace, an unwritable output.
r = subprocess.run([TK, "export", os.path.join(TRACES, "quicksort.tarmac")], capture_output=True, text=True)
check(r.returncode == 2 and "--to" in r.stderr, "export without --to: usage error")
r = subprocess.run([TK, "export", "--to=chrome", "/nonexistent/trace"], capture_output=True, text=True)
check(r.returncode == 1, "export of a missing trace: exit 1")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
