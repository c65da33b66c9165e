#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tracekit addr2line against binutils' addr2line (tests/backtrace.cmake).

  a2l.py compare TRACEKIT REFERENCE ELF [FOCUS,...]
      200 addresses (seeded by the ELF's name): 100 anywhere in its code
      sections, 100 inside the FOCUS functions; both tools, each option set,
      addresses on the command line and on standard input: byte-identical;
      then the address of every symbol (data too).
  a2l.py coprocess TRACEKIT REFERENCE ELF
      tracekit addr2line as a coprocess: one address written, its answer
      read back before the next is written (with a timeout: a hang fails).
  a2l.py badinput TRACEKIT ELF WORKDIR
      not an ELF file, an ELF without DWARF, damaged .debug_line,
      .debug_info and .debug_frame: clear messages, no crash.
Exit status 0 (pass), 1 (fail), 77 (skip: a tool is missing).
"""
import os
import random
import select
import shutil
import struct
import subprocess
import sys

OPTION_SETS = [["-a", "-f", "-i", "-C"], ["-p", "-s", "-f", "-i"], ["-f"], ["-a", "-j", ".text"]]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def elf_sections(path):
    """(name, addr, size, flags, offset) of every section, from the ELF headers."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        fail(path + ": not an ELF file")
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
    raw = []
    for i in range(shnum):
        o = shoff + i * shentsize
        if is64:
            name, typ, flags, addr, off, size = struct.unpack_from(end + "IIQQQQ", data, o)
        else:
            name, typ, flags, addr, off, size = struct.unpack_from(end + "IIIIII", data, o)
        raw.append((name, typ, flags, addr, off, size))
    stroff = raw[shstrndx][4]
    out = []
    for name, typ, flags, addr, off, size in raw:
        n = data[stroff + name:data.index(b"\0", stroff + name)].decode()
        out.append((n, addr, size, flags, off))
    return out


def symbols(path):
    """name -> (addr, size) of the function symbols, via the reference nm."""
    out = {}
    nm = os.environ.get("TK_NM", "nm")
    res = subprocess.run([nm, "-S", path], capture_output=True, text=True)
    for line in res.stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            out[p[3]] = (int(p[0], 16) & ~1, int(p[1], 16))
    return out


def addresses(elf, focus, n=200):
    rng = random.Random(os.path.basename(elf))
    code = [(a, s) for name, a, s, f, o in elf_sections(elf) if f & 4 and s]
    if not code:
        fail(elf + ": no code section")
    syms = symbols(elf)
    spans = [syms[f] for f in focus if f in syms and syms[f][1]]
    out = []
    for i in range(n):
        if spans and i % 2:
            a, s = rng.choice(spans)
        else:
            a, s = rng.choice(code)
        out.append(a + rng.randrange(s))
    # Corner cases: outside everything, the first and last byte of code.
    a, s = code[0]
    out += [0, a, a + s - 1, 0xFFFFFFFF]
    return ["0x%x" % x for x in out]


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=300)


def compare(tk, ref, elf, focus):
    if not shutil.which(ref):
        skip("no " + ref)
    addrs = addresses(elf, focus)
    text = ("\n".join(addrs) + "\n").encode()
    text_off = [name for name, a, s, f, o in elf_sections(elf) if name == ".text"]
    for opts in OPTION_SETS:
        if "-j" in opts and not text_off:
            continue
        a = addrs if "-j" not in opts else ["0x%x" % (int(x, 16) % 4096) for x in addrs]
        want = run([ref] + opts + ["-e", elf] + a)
        got = run([tk, "addr2line"] + opts + ["-e", elf] + a)
        if got.stdout != want.stdout:
            diff(want.stdout, got.stdout, elf, opts, "arguments")
        want = run([ref] + opts + ["-e", elf], text)
        got = run([tk, "addr2line"] + opts + ["--exe=" + elf], text)
        if got.stdout != want.stdout:
            diff(want.stdout, got.stdout, elf, opts, "standard input")
        if got.returncode != 0:
            fail("exit status %d: %s" % (got.returncode, got.stderr.decode()))
        print("same: %s %s (%d lines)" % (os.path.basename(elf), " ".join(opts),
                                          want.stdout.count(b"\n")))
    # Every symbol's address, data included (binutils then looks for the
    # variable declared there).
    nm = os.environ.get("TK_NM", "nm")
    starts = {int(l.split()[0], 16) for l in run([nm, elf]).stdout.decode().splitlines()
              if len(l.split()) == 3}
    syms = sorted("0x%x" % (a + o) for a in starts for o in (0, 1, 3, 5))
    text = ("\n".join(syms) + "\n").encode()
    want = run([ref, "-a", "-f", "-i", "-e", elf], text)
    got = run([tk, "addr2line", "-a", "-f", "-i", "-e", elf], text)
    if got.stdout != want.stdout:
        diff(want.stdout, got.stdout, elf, ["-a", "-f", "-i"], "symbol addresses")
    print("same: %s, at and just after its %d symbols" % (os.path.basename(elf), len(starts)))


def diff(want, got, elf, opts, how):
    w, g = want.decode().splitlines(), got.decode().splitlines()
    for i in range(max(len(w), len(g))):
        a = w[i] if i < len(w) else "<none>"
        b = g[i] if i < len(g) else "<none>"
        if a != b:
            fail("%s %s (%s), line %d: binutils '%s', tracekit '%s'" %
                 (elf, " ".join(opts), how, i + 1, a, b))
    fail("%s %s (%s): outputs differ" % (elf, " ".join(opts), how))


def read_lines(proc, n, timeout=10.0):
    buf = b""
    while buf.count(b"\n") < n:
        r, _, _ = select.select([proc.stdout], [], [], timeout)
        if not r:
            fail("coprocess: no answer within %g s (output not flushed?)" % timeout)
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            fail("coprocess: output ended early")
        buf += chunk
    return buf


def coprocess(tk, ref, elf):
    if not shutil.which(ref):
        skip("no " + ref)
    addrs = addresses(elf, [], 20)
    proc = subprocess.Popen([tk, "addr2line", "-f", "-i", "--image=" + elf], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for a in addrs:
        want = run([ref, "-f", "-i", "-e", elf, a]).stdout
        proc.stdin.write((a + "\n").encode())
        proc.stdin.flush()
        got = read_lines(proc, want.count(b"\n"))
        if got != want:
            fail("coprocess: %s gave %r, binutils %r" % (a, got, want))
    proc.stdin.close()
    if proc.wait(timeout=10) != 0:
        fail("coprocess: exit status %d" % proc.returncode)
    print("coprocess: %d addresses answered one by one" % len(addrs))


def patched(elf, work, name, section, at, data):
    """A copy of elf with `data` written at offset `at` of `section`."""
    out = os.path.join(work, name)
    blob = bytearray(open(elf, "rb").read())
    sec = [s for s in elf_sections(elf) if s[0] == section]
    if not sec:
        fail("%s has no %s" % (elf, section))
    off = sec[0][4] + at
    blob[off:off + len(data)] = data
    open(out, "wb").write(bytes(blob))
    return out


def expect(cmd, status, *needles):
    res = run(cmd)
    err = res.stderr.decode()
    if res.returncode < 0 or "Sanitizer" in err or "runtime error" in err:
        fail("%s crashed: %s" % (" ".join(cmd), err))
    if res.returncode != status:
        fail("%s: exit status %d, expected %d (%s)" % (" ".join(cmd), res.returncode, status, err))
    for n in needles:
        if n not in err:
            fail("%s: stderr does not say '%s': %s" % (" ".join(cmd), n, err))
    return res


def badinput(tk, elf, work):
    os.makedirs(work, exist_ok=True)
    # Not an ELF file.
    junk = os.path.join(work, "not-an-elf.bin")
    open(junk, "wb").write(b"this is not an ELF file\n" * 10)
    expect([tk, "addr2line", "-e", junk, "0x8000"], 1, junk, "not an ELF file")
    expect([tk, "addr2line", "-e", os.path.join(work, "missing.elf"), "0"], 1, "missing.elf")
    # No DWARF: names from the symbols, with a warning naming the file.
    strip = os.environ.get("TK_OBJCOPY", "objcopy")
    bare = os.path.join(work, "no-dwarf.elf")
    if subprocess.run([strip, "--strip-debug", elf, bare]).returncode != 0:
        skip("cannot strip " + elf)
    main = symbols(elf).get("main")
    res = expect([tk, "addr2line", "-f", "-e", bare, "0x%x" % main[0]], 0, bare, "no DWARF")
    if res.stdout.decode() != "main\n??:?\n":
        fail("no DWARF: got %r" % res.stdout.decode())
    # Damaged sections: an error naming the file, the section and an offset.
    cases = [
        ("bad-line.elf", ".debug_line", 4, b"\x63\x00", ".debug_line at offset 0x"),
        ("bad-line-len.elf", ".debug_line", 0, b"\xf0\xff\xff\x7f", ".debug_line at offset 0x"),
        ("bad-info.elf", ".debug_info", 0, b"\xf0\xff\xff\x7f", ".debug_info"),
        ("bad-frame.elf", ".debug_frame", 0, b"\xf0\xff\xff\x7f", ".debug_frame at offset 0x0"),
    ]
    sections = [s[0] for s in elf_sections(elf)]
    for name, section, at, data, needle in cases:
        if section not in sections:
            continue
        bad = patched(elf, work, name, section, at, data)
        expect([tk, "addr2line", "-f", "-i", "-e", bad, "0x%x" % main[0], "0x%x" % (main[0] + 4)],
               1, bad, needle)
        print("%s: reported (%s)" % (name, needle))
    print("bad input reported")


def main():
    if len(sys.argv) < 4:
        fail(__doc__)
    step = sys.argv[1]
    if step == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4],
                sys.argv[5].split(",") if len(sys.argv) > 5 else [])
    elif step == "coprocess":
        coprocess(sys.argv[2], sys.argv[3], sys.argv[4])
    elif step == "badinput":
        badinput(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail("unknown step " + step)


if __name__ == "__main__":
    main()
