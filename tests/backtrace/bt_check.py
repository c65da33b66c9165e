#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tracekit backtrace on recorded programs (tests/backtrace.cmake).

  bt_check.py record TRACEKIT NAME ELF
      record ELF into NAME.tarmac (its output into NAME.out) and index it.
  bt_check.py marks TRACEKIT NAME ELF ADDR2LINE
      at each call of bt_mark (pc:bt_mark@N), the walk shows the return
      addresses the program's shadow stack printed (and its tk_backtrace
      ones), every frame named as ADDR2LINE -f names the address (the
      return address - 1); damaged chains and exception frames stop with
      the right reason after the frames before the damage; no warning.
  bt_check.py activation TRACEKIT NAME ELF FUNC [noimage]
      at every position of FUNC's first activation (the call, each of its
      own instructions, the return, the resume) the walk equals the call
      tree's stack (--calls), without a warning; with noimage, the walk is
      made without --image (frame layouts guessed from memory).
  bt_check.py positions TRACEKIT NAME ELF LAYOUT
      the position syntaxes agree; bad ones exit 1 naming them; options;
      --frame=LAYOUT (the variant's own) walks as the automatic choice; a
      walk that differs from the call stack is warned about in the format
      the documentation gives.
  bt_check.py srclines TRACEKIT NAME ELF ADDR2LINE
      --source-lines of calltree, callinfo, profile and flamegraph: the
      output without it is unchanged, and what it adds is the reference
      addr2line's FILE:LINE of the right address.
Exit status 0 (pass), 1 (fail), 77 (skip).
"""
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def symbol(elf, name):
    nm = os.environ.get("TK_NM", "nm")
    for line in run([nm, elf]).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] == name:
            return int(p[0], 16) & ~1
    fail("no symbol %s in %s" % (name, elf))


def blocks(text):
    """[(header, [(k, addr, rest)], stopped-line or None)] of backtrace output."""
    out = []
    for chunk in text.strip("\n").split("\n\n"):
        lines = chunk.split("\n")
        frames, stopped = [], None
        for line in lines[1:]:
            m = re.match(r"#(\d+) +0x([0-9a-f]+)(.*)$", line)
            if m:
                frames.append((int(m.group(1)), int(m.group(2), 16), m.group(3)))
            elif line.startswith("stopped: "):
                stopped = line
            else:
                fail("unexpected line %r" % line)
        out.append((lines[0], frames, stopped))
    return out


def step_record(tk, name, elf):
    if not os.path.exists(elf):
        skip(elf + " was not built (no cross compiler?)")
    if run([tk, "record", "--help"]).returncode != 0:
        skip("tracekit built without the recorder")
    res = run([tk, "record", elf, "-o", name + ".tarmac"])
    open(name + ".out", "w").write(res.stdout)
    if res.returncode != 0 or "done" not in res.stdout:
        fail("record: exit status %d: %s" % (res.returncode, res.stderr))
    res = run([tk, "index", "-q", name + ".tarmac"])
    if res.returncode != 0:
        fail("index: " + res.stderr)
    print("recorded: " + res.stdout.strip().replace("\n", "; ")[:200])


def reference(a2l, elf, addrs):
    """(function, FILE:LINE) per address, from the reference addr2line."""
    res = run([a2l, "-f", "-e", elf] + ["0x%x" % a for a in addrs])
    lines = res.stdout.splitlines()
    if len(lines) != 2 * len(addrs):
        fail("%s gave %d lines for %d addresses" % (a2l, len(lines), len(addrs)))
    return [(lines[2 * i], lines[2 * i + 1]) for i in range(len(addrs))]


def expected_suffix(func, fileline):
    s = "" if func == "??" else " in " + func
    if not re.search(r":\d+( \(discriminator \d+\))?$", fileline) or fileline.startswith("??:"):
        return s
    return s + " at " + re.sub(r" \(discriminator \d+\)$", "", fileline)


def step_marks(tk, name, elf, a2l):
    if not shutil.which(a2l):
        skip("no " + a2l)
    marks = []
    for line in open(name + ".out"):
        m = re.match(r"mark (\d+):([0-9a-f ]*)\|\s*tk:([0-9a-f ]*)$", line.strip())
        if m:
            marks.append((int(m.group(1)), [int(x, 16) for x in m.group(2).split()],
                          [int(x, 16) for x in m.group(3).split()]))
    if len(marks) < 3:
        fail("the program printed %d marks" % len(marks))
    pos = ["pc:bt_mark@%d" % (i + 1) for i in range(len(marks))]
    res = run([tk, "backtrace", "--image=" + elf, name + ".tarmac"] + pos)
    if res.returncode != 0:
        fail("backtrace: exit status %d: %s" % (res.returncode, res.stderr))
    if res.stderr:
        fail("warnings: " + res.stderr)
    bts = blocks(res.stdout)
    if len(bts) != len(marks):
        fail("%d blocks for %d marks" % (len(bts), len(marks)))
    mark_fn = symbol(elf, "bt_mark")
    for (mid, want, tk_ras), (hdr, frames, stopped) in zip(marks, bts):
        got = [a for k, a, rest in frames]
        if got[0] != mark_fn:
            fail("mark %d: frame #0 is 0x%x, bt_mark is 0x%x" % (mid, got[0], mark_fn))
        if mid >= 10:
            # Damaged (10-13) or exception (20) chains: the frames before.
            keep = 1 if mid == 20 else 2
            if got[1:1 + keep] != want[:keep]:
                fail("mark %d: frames %s, expected %s first" %
                     (mid, [hex(a) for a in got[1:]], [hex(a) for a in want[:keep]]))
            reasons = {10: "not above the previous one", 11: "misaligned frame pointer",
                       12: "is not known", 20: "stopped: exception frame"}
            if not stopped or (mid in reasons and reasons[mid] not in stopped):
                fail("mark %d: %s, expected a stop (%s)" % (mid, stopped, reasons.get(mid)))
            print("mark %d: %d frames, %s" % (mid, len(frames), stopped))
        else:
            if got[1:1 + len(want)] != want:
                fail("mark %d: frames %s, the shadow stack says %s" %
                     (mid, [hex(a) for a in got[1:]], [hex(a) for a in want]))
            if tk_ras != want[:len(tk_ras)]:
                fail("mark %d: tk_backtrace found %s" % (mid, [hex(a) for a in tk_ras]))
            if stopped:
                fail("mark %d: %s" % (mid, stopped))
            print("mark %d: %d frames match the shadow stack (tk_backtrace: %d)" %
                  (mid, len(frames), len(tk_ras)))
        ref = reference(a2l, elf, [a if k == 0 else a - 1 for k, a, rest in frames])
        for (k, a, rest), (func, fl) in zip(frames, ref):
            if rest != expected_suffix(func, fl):
                fail("mark %d frame #%d: '%s', addr2line says %s %s" % (mid, k, rest, func, fl))
    print("%d marks, names and lines as %s gives them" % (len(marks), a2l))


def calls(tk, trace):
    """Nodes of `dump calls`: dict with entry, exit, call, resume, pc, depth."""
    res = run([tk, "dump", trace, "calls"])
    nodes = []
    for line in res.stdout.splitlines():
        m = re.match(r"( *)(\d+): entry pos (\d+) line \d+ pc 0x([0-9a-f]+) - exit pos (\d+)"
                     r" line \d+(?:; call pos (\d+), resume pos (\d+))?", line)
        if m:
            nodes.append({"depth": len(m.group(1)) // 2, "entry": int(m.group(3)),
                          "pc": int(m.group(4), 16), "exit": int(m.group(5)),
                          "call": int(m.group(6) or -1), "resume": int(m.group(7) or -1)})
    return nodes


def step_activation(tk, name, elf, func, noimage=False):
    trace = name + ".tarmac"
    addr = symbol(elf, func)
    nodes = calls(tk, trace)
    act = next((i for i, n in enumerate(nodes) if n["pc"] == addr and n["call"] >= 0), None)
    if act is None:
        fail("no activation of %s in the call tree" % func)
    a = nodes[act]
    children = []
    for n in nodes[act + 1:]:
        if n["depth"] <= a["depth"]:
            break
        if n["depth"] == a["depth"] + 1:
            children.append((n["entry"], n["exit"]))
    own = [p for p in range(a["entry"], a["exit"] + 1)
           if not any(lo <= p <= hi for lo, hi in children)]
    positions = [a["call"]] + own + [a["resume"]]
    with open(name + "." + func + ".pos", "w") as f:
        f.write("".join("#%d\n" % p for p in positions))
    image = [] if noimage else ["--image=" + elf]
    walk = run([tk, "backtrace"] + image + [trace, "--positions=" + f.name])
    stack = run([tk, "backtrace", "--calls"] + image + [trace, "--positions=" + f.name])
    if walk.returncode or stack.returncode:
        fail("backtrace: %s %s" % (walk.stderr, stack.stderr))
    if walk.stderr:
        fail("warnings at the positions of %s: %s" % (func, walk.stderr[:2000]))
    wb, sb = blocks(walk.stdout), blocks(stack.stdout)
    for (wh, wf, ws), (sh, sf, ss) in zip(wb, sb):
        if ws or wf != sf:
            fail("%s: the walk\n%s\n%s\ndiffers from the call stack\n%s" %
                 (wh, "\n".join("#%d 0x%x%s" % f for f in wf), ws or "",
                  "\n".join("#%d 0x%x%s" % f for f in sf)))
    if len(wb) != len(positions):
        fail("%d blocks for %d positions" % (len(wb), len(positions)))
    print("%s: walk = call stack at all %d positions (call, %d own, resume)%s" %
          (func, len(positions), len(own), " without --image" if noimage else ""))


def step_positions(tk, name, elf, layout):
    trace = name + ".tarmac"
    fn = symbol(elf, "bt_mark")
    res = run([tk, "backtrace", trace, "pc:0x%x@2" % fn, "pc:%d@2" % fn,
               "--image=" + elf, "pc:bt_mark@2"])
    b = blocks(res.stdout)
    if res.returncode or len(b) != 3 or not (b[0] == b[1] == b[2]):
        fail("pc: forms disagree: %s %s" % (res.stdout, res.stderr))
    m = re.match(r"Backtrace at #(\d+) \(line (\d+), time (\d+)\):", b[0][0])
    if not m:
        fail("header %r" % b[0][0])
    pos, line, time = m.groups()
    res = run([tk, "backtrace", "--image=" + elf, trace, "#" + pos, line, "t:" + time])
    b2 = blocks(res.stdout)
    if res.returncode or len(b2) != 3 or any(x != b[0] for x in b2):
        fail("#N, LINE and t:TIME disagree: %s %s" % (res.stdout, res.stderr))
    end = run([tk, "backtrace", trace])
    endb = run([tk, "backtrace", trace, "end"])
    if end.returncode or end.stdout != endb.stdout or "Backtrace at #" not in end.stdout:
        fail("the default position is not 'end'")
    calls = run([tk, "backtrace", "--calls", "--image=" + elf, trace, "#" + pos])
    if calls.returncode or not calls.stdout.startswith("Call stack at #" + pos):
        fail("--calls: %r" % calls.stdout[:200])
    base = run([tk, "backtrace", "-s", "--image=" + elf, trace, "#" + pos])
    if "/" in base.stdout.split("\n")[1]:
        fail("-s left directories: %r" % base.stdout)
    for bad, needle in [("pc:nosuch@1", "nosuch"), ("pc:bt_mark@999", "bt_mark@999"),
                        ("#99999999999", "#99999999999"), ("t:99999999999", "t:99999999999"),
                        ("bogus", "bogus"), ("pc:bt_mark@0", "bt_mark@0")]:
        res = run([tk, "backtrace", "--image=" + elf, trace, bad])
        if res.returncode != 1 or needle not in res.stderr or res.stdout:
            fail("bad position %s: exit %d, %r" % (bad, res.returncode, res.stderr))
    res = run([tk, "backtrace", "--frame=sideways", trace])
    if res.returncode != 2:
        fail("--frame=sideways: exit %d" % res.returncode)
    res = run([tk, "backtrace", trace, "pc:bt_mark@1"])
    if res.returncode != 1 or "--image" not in res.stderr:
        fail("a symbol without --image: exit %d, %r" % (res.returncode, res.stderr))
    auto = run([tk, "backtrace", "--image=" + elf, trace, "pc:bt_mark@1", "pc:bt_mark@2"])
    forced = run([tk, "backtrace", "--frame=" + layout, "--image=" + elf, trace, "pc:bt_mark@1",
                  "pc:bt_mark@2"])
    if forced.returncode or forced.stdout != auto.stdout:
        fail("--frame=%s walks differently:\n%s\n%s" % (layout, forced.stdout, auto.stdout))
    # Warnings: at positions in the C library (no frame pointers) the
    # chain and the call stack part; the first such position.
    printf = symbol(elf, "printf")
    first = run([tk, "dump", trace, "find-pc", "#0", "0x%x" % printf]).stdout.split()
    if len(first) > 1:
        start = int(first[1])
        with open(name + ".warn.pos", "w") as f:
            f.write("".join("#%d\n" % p for p in range(start, start + 4000, 3)))
        res = run([tk, "backtrace", "--image=" + elf, trace, "--positions=" + f.name])
        warn = re.compile(r"^%s: warning: frame #\d+: frame chain has (0x[0-9a-f]{%d}|no frame), "
                          r"call stack has (0x[0-9a-f]{%d}|no frame)$" %
                          (re.escape(trace), 16 if layout == "a64" else 8,
                           16 if layout == "a64" else 8))
        lines = res.stderr.splitlines()
        if res.returncode or not all(warn.match(l) for l in lines):
            fail("warnings: exit %d, %r" % (res.returncode, lines[:3]))
        # (None for A64, whose printf is the test runtime's, with frames.)
        print("%d warnings in the documented format" % len(lines))
    print("positions, bad positions and options checked")


def step_srclines(tk, name, elf, a2l):
    trace = name + ".tarmac"
    img = "--image=" + elf

    def lines_of(addrs):
        out = {}
        addrs = sorted(set(addrs))
        for i in range(0, len(addrs), 500):
            chunk = addrs[i:i + 500]
            for a, (fn, fl) in zip(chunk, reference(a2l, elf, chunk)):
                m = re.match(r"(.*:\d+)( \(discriminator \d+\))?$", fl)
                out[a] = None if not m or fl.startswith("??") else m.group(1)
        return out

    # calltree: " at FILE:LINE" of the entry (o) or the call (-).
    plain = run([tk, "calltree", img, trace])
    src = run([tk, "calltree", img, "--source-lines", trace])
    if plain.returncode or src.returncode:
        fail("calltree: " + plain.stderr + src.stderr)
    pl, sl = plain.stdout.splitlines(), src.stdout.splitlines()
    if len(pl) != len(sl):
        fail("calltree --source-lines has %d lines, without %d" % (len(sl), len(pl)))
    pcs = [int(re.search(r"pc:0x([0-9a-f]+)", l).group(1), 16) for l in pl]
    ref = lines_of(pcs)
    for p, s_, pc in zip(pl, sl, pcs):
        want = p + (" at " + ref[pc] if ref[pc] else "")
        if s_ != want:
            fail("calltree line %r, expected %r" % (s_, want))
    print("calltree: %d lines, each with the line of its first pc" % len(pl))
    # callinfo: " from FILE:LINE" of each call site, in call order.
    target = symbol(elf, "leaf_add")
    sites = [pcs[i] for i in range(len(pl) - 1)
             if pl[i].lstrip().startswith("-") and pcs[i + 1] == target]
    ref = lines_of(sites)
    plain = run([tk, "callinfo", img, trace, "leaf_add"]).stdout.splitlines()
    src = run([tk, "callinfo", img, "--source-lines", trace, "leaf_add"]).stdout.splitlines()
    hits = [l for l in src if l.startswith(" - time:")]
    if len(hits) != len(sites) or len(src) != len(plain):
        fail("callinfo: %d calls, the call tree has %d" % (len(hits), len(sites)))
    for p, s_ in zip(plain, src):
        if p.startswith(" - time:"):
            site = sites.pop(0)
            if s_ != p + (" from " + ref[site] if ref[site] else ""):
                fail("callinfo line %r, call site 0x%x (%s)" % (s_, site, ref[site]))
        elif s_ != p:
            fail("callinfo line %r, without --source-lines %r" % (s_, p))
    print("callinfo: %d call sites" % len(hits))
    # profile: a last column, Source, with the entry's line.
    plain = run([tk, "profile", img, trace]).stdout.splitlines()
    src = run([tk, "profile", img, "--source-lines", trace]).stdout.splitlines()
    if src[0] != plain[0] + " Source" or len(src) != len(plain):
        fail("profile header %r" % src[0])
    addrs = [int(l.split()[0], 16) for l in plain[1:]]
    ref = lines_of(addrs)
    for p, s_, a in zip(plain[1:], src[1:], addrs):
        if ref[a]:
            if not s_.endswith(" " + ref[a]) or s_.split()[:3] != p.split()[:3]:
                fail("profile row %r, expected ... %s" % (s_, ref[a]))
        elif s_ != p:
            fail("profile row %r, expected %r" % (s_, p))
    print("profile: %d rows" % len(addrs))
    # flamegraph: NAME@BASENAME:LINE frames, the same total.
    plain = run([tk, "flamegraph", img, trace]).stdout.splitlines()
    src = run([tk, "flamegraph", img, "--source-lines", trace]).stdout.splitlines()
    total = lambda ls: sum(int(l.rsplit(" ", 1)[1]) for l in ls)
    if not src or total(src) != total(plain):
        fail("flamegraph totals differ: %d, %d" % (total(src), total(plain)))
    leaf = [l for l in src if l.rsplit(" ", 1)[0].split(";")[-1].startswith("leaf_add@")]
    want = "leaf_add@" + (lines_of([target])[target] or "").rsplit("/", 1)[-1]
    if not leaf or any(l.rsplit(" ", 1)[0].split(";")[-1] != want for l in leaf):
        fail("flamegraph: the innermost leaf_add frames are not %s: %s" % (want, leaf[:2]))
    for l in src:
        for fr in l.rsplit(" ", 1)[0].split(";"):
            if "@" in fr and not re.match(r"[^@]+@[^/@]+:\d+$", fr):
                fail("flamegraph frame %r" % fr)
    print("flamegraph: %d stacks, the same total" % len(src))


def main():
    if len(sys.argv) < 5:
        fail(__doc__)
    step, tk, name, elf = sys.argv[1:5]
    if step != "record":
        if not os.path.exists(elf):
            skip(elf + " was not built")
        if not os.path.exists(name + ".tarmac"):
            fail(name + ".tarmac missing (the record step failed?)")
    if step == "record":
        step_record(tk, name, elf)
    elif step == "marks":
        step_marks(tk, name, elf, sys.argv[5])
    elif step == "activation":
        step_activation(tk, name, elf, sys.argv[5], len(sys.argv) > 6 and sys.argv[6] == "noimage")
    elif step == "positions":
        step_positions(tk, name, elf, sys.argv[5])
    elif step == "srclines":
        step_srclines(tk, name, elf, sys.argv[5])
    else:
        fail("unknown step " + step)


if __name__ == "__main__":
    main()
