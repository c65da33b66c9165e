#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a Value Change Dump against the IEEE 1364-2005 VCD grammar (18.2)
and assert the values of variables at given times.

usage: vcdcheck.py FILE [--expect PATH@TIME=VALUE]... [--expect-file F]...
                   [--no-date] [--vars N]

PATH is the variable's full name, scopes joined by dots ("cpu.regs.x0").
TIME is in the dump's time units.  VALUE is:
  0x1f          the value, fully known (no x or z bits)
  x / z         every bit x / z
  'text'        a text variable: a GTKWave string variable's text (C-style
                escapes undone), or 8-bit ASCII right-aligned in a vector
                (NULs dropped)
  b0101         the exact bits (after left-extension to the width)
The value "at" a time is the one in force after every change at that time.

--expect-file  one PATH@TIME=VALUE per line; blank lines and # comments
               are ignored
--no-date      fail if the dump has a $date section
--vars N       fail unless exactly N variables are declared

GTKWave's extensions that Arm's tarmac-vcd uses are accepted: var types
"bit" and "string" (1 wide, or 0 as GTKWave's fst2vcd writes it; values "s<text> <code>", the text one
word with blanks and other bytes escaped: "\\040").

Checks: declaration commands and their order, scope nesting, var types,
sizes and identifier codes, a valid timescale, identifiers declared once
and used only when declared, simulation times strictly increasing, values
made of 0 1 x z only and no wider than the variable, $dumpvars giving every
variable, and well-formed $end-terminated sections.  Exits 1 with a
message on the first problem.
"""
import re
import sys

VAR_TYPES = {"event", "integer", "parameter", "real", "realtime", "reg",
             "supply0", "supply1", "time", "tri", "triand", "trior", "trireg",
             "tri0", "tri1", "wand", "wire", "wor",
             "bit", "string"}          # GTKWave's, as Arm's tarmac-vcd writes
ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "'": "'", '"': '"', "\\": "\\", "?": "?"}
SCOPE_TYPES = {"begin", "fork", "function", "module", "task"}
TIME_UNITS = {"s", "ms", "us", "ns", "ps", "fs"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
BITS = set("01xXzZ")


class Bad(Exception):
    pass


def tokens(path):
    """(line number, word) for every whitespace-separated word."""
    with open(path, "r", encoding="ascii") as f:
        for n, line in enumerate(f, 1):
            for w in line.split():
                yield n, w


def extend(bits, width):
    """Left-extend a VCD binary value to width (IEEE 1364 18.2.1)."""
    bits = bits.lower()
    if len(bits) > width:
        raise Bad("value %s wider than %d bits" % (bits, width))
    fill = bits[0] if bits[0] in "xz" else "0"
    return fill * (width - len(bits)) + bits


def unescape(text):
    """A string value's text, its C-style escapes undone."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(text):
            raise Bad("string value %r ends in a lone backslash" % text)
        e = text[i + 1]
        if e in ESCAPES:
            out.append(ESCAPES[e])
            i += 2
        elif re.match(r"[0-7]{3}", text[i + 1:i + 4]):
            out.append(chr(int(text[i + 1:i + 4], 8)))
            i += 4
        else:
            raise Bad("bad escape \\%s in string value %r" % (e, text))
    return "".join(out)


class Dump:
    def __init__(self):
        self.strings = set()  # codes of string variables
        self.vars = {}      # id -> (width, [paths])
        self.paths = {}     # path -> id
        self.sections = set()
        self.timescale = None


def parse_header(tok, d):
    scope = []
    for n, w in tok:
        if w == "$enddefinitions":
            _, e = next(tok)
            if e != "$end":
                raise Bad("line %d: $enddefinitions without $end" % n)
            if scope:
                raise Bad("line %d: %d scopes not closed" % (n, len(scope)))
            return
        if w in ("$date", "$version", "$comment"):
            d.sections.add(w)
            for n2, w2 in tok:
                if w2 == "$end":
                    break
                if w2.startswith("$"):
                    raise Bad("line %d: %s inside %s" % (n2, w2, w))
            else:
                raise Bad("%s not ended" % w)
        elif w == "$timescale":
            words = []
            for n2, w2 in tok:
                if w2 == "$end":
                    break
                words.append(w2)
            m = re.match(r"^(1|10|100)\s*([a-z]+)$", " ".join(words))
            if not m or m.group(2) not in TIME_UNITS:
                raise Bad("line %d: bad timescale %r" % (n, " ".join(words)))
            d.timescale = m.group(1) + " " + m.group(2)
        elif w == "$scope":
            args = []
            for n2, w2 in tok:
                if w2 == "$end":
                    break
                args.append(w2)
            if len(args) != 2 or args[0] not in SCOPE_TYPES or not IDENT.match(args[1]):
                raise Bad("line %d: bad $scope %r" % (n, args))
            scope.append(args[1])
        elif w == "$upscope":
            _, e = next(tok)
            if e != "$end" or not scope:
                raise Bad("line %d: bad $upscope" % n)
            scope.pop()
        elif w == "$var":
            args = []
            for n2, w2 in tok:
                if w2 == "$end":
                    break
                args.append(w2)
            if len(args) not in (4, 5):
                raise Bad("line %d: bad $var %r" % (n, args))
            vtype, size, code, ref = args[:4]
            if vtype not in VAR_TYPES:
                raise Bad("line %d: var type %r" % (n, vtype))
            if not size.isdigit() or (int(size) < 1 and vtype != "string"):
                raise Bad("line %d: var size %r" % (n, size))
            if not all(33 <= ord(c) <= 126 for c in code):
                raise Bad("line %d: identifier code %r" % (n, code))
            if not REF.match(ref):
                raise Bad("line %d: reference %r" % (n, ref))
            width = int(size)
            if vtype == "string":
                # 1 wide as Arm's tool and tracekit write it, 0 as GTKWave's
                # fst2vcd does.
                if width > 1 or len(args) != 4:
                    raise Bad("line %d: a string variable is declared 1 wide" % n)
                d.strings.add(code)
            if len(args) == 5:
                m = re.match(r"^\[(\d+)(?::(\d+))?\]$", args[4])
                if not m:
                    raise Bad("line %d: bit range %r" % (n, args[4]))
                if m.group(2) is not None and \
                        abs(int(m.group(1)) - int(m.group(2))) + 1 != width:
                    raise Bad("line %d: range %s is not %d bits" % (n, args[4], width))
            if not scope:
                raise Bad("line %d: $var outside any scope" % n)
            path = ".".join(scope + [ref])
            if path in d.paths:
                raise Bad("line %d: %s declared twice" % (n, path))
            if code in d.vars:
                if d.vars[code][0] != width:
                    raise Bad("line %d: code %r reused with another width" % (n, code))
                d.vars[code][1].append(path)
            else:
                d.vars[code] = (width, [path])
            d.paths[path] = code
        else:
            raise Bad("line %d: unexpected %r in the declarations" % (n, w))
    raise Bad("no $enddefinitions")


def parse_expect(spec):
    m = re.match(r"^([^@]+)@(\d+)=(.*)$", spec)
    if not m:
        raise SystemExit("bad --expect %r" % spec)
    return m.group(1), int(m.group(2)), m.group(3)


def describe(bits, width):
    if set(bits) <= set("01"):
        return "0x%x" % int(bits, 2)
    return "b" + bits


def check_value(path, t, want, bits, width, is_string=False):
    if bits is None:
        raise Bad("%s@%d: no value" % (path, t))
    if is_string:
        if not (want.startswith("'") and want.endswith("'") and len(want) >= 2):
            raise SystemExit("%s is a string variable: expect 'text'" % path)
        if bits != want[1:-1]:
            raise Bad("%s@%d: text %r, expected %r" % (path, t, bits, want[1:-1]))
        return
    if want in ("x", "z"):
        ok = bits == want * width
    elif want.startswith("'") and want.endswith("'") and len(want) >= 2:
        if set(bits) - set("01"):
            raise Bad("%s@%d: text has unknown bits: %s" % (path, t, bits))
        raw = int(bits, 2).to_bytes(width // 8, "big")
        got = raw.lstrip(b"\0").decode("ascii", "replace")
        if got != want[1:-1]:
            raise Bad("%s@%d: text %r, expected %r" % (path, t, got, want[1:-1]))
        return
    elif want.startswith("0x"):
        ok = set(bits) <= set("01") and int(bits, 2) == int(want, 16)
    elif want.startswith("b"):
        ok = bits == extend(want[1:], width)
    else:
        raise SystemExit("bad expected value %r" % want)
    if not ok:
        raise Bad("%s@%d: got %s, expected %s" % (path, t, describe(bits, width), want))


def check(path, expects, no_date, nvars):
    d = Dump()
    tok = tokens(path)
    parse_header(tok, d)
    if d.timescale is None:
        raise Bad("no $timescale")
    if no_date and "$date" in d.sections:
        raise Bad("$date present with --no-date")
    if nvars is not None and len(d.paths) != nvars:
        raise Bad("%d variables declared, expected %d" % (len(d.paths), nvars))
    for p, _, _ in expects:
        if p not in d.paths:
            raise Bad("no variable %s" % p)

    value = {code: None for code in d.vars}
    pending = sorted(expects, key=lambda e: e[1])
    now = None
    changes = 0
    section = None          # inside $dumpvars etc.
    dumped = set()

    def settle(upto):
        # Check the expectations for times before `upto` (all changes seen).
        while pending and (upto is None or pending[0][1] < upto):
            p, t, want = pending.pop(0)
            code = d.paths[p]
            check_value(p, t, want, value[code], d.vars[code][0], code in d.strings)

    def change(n, code, bits):
        nonlocal changes
        if code not in d.vars:
            raise Bad("line %d: undeclared identifier code %r" % (n, code))
        if now is None:
            raise Bad("line %d: value change before any time" % n)
        width = d.vars[code][0]
        if code in d.strings:
            raise Bad("line %d: a vector or scalar value for string variable %r" % (n, code))
        value[code] = extend(bits, width)
        changes += 1
        if section == "$dumpvars":
            dumped.add(code)

    for n, w in tok:
        c = w[0]
        if c == "#":
            if section:
                raise Bad("line %d: time inside %s" % (n, section))
            if not w[1:].isdigit():
                raise Bad("line %d: bad time %r" % (n, w))
            t = int(w[1:])
            if now is not None and t <= now:
                raise Bad("line %d: time %d not after %d" % (n, t, now))
            settle(t)
            now = t
        elif c == "$":
            if w == "$end":
                if not section:
                    raise Bad("line %d: stray $end" % n)
                if section == "$dumpvars" and dumped != set(d.vars):
                    raise Bad("line %d: $dumpvars misses %d variables" %
                              (n, len(set(d.vars) - dumped)))
                section = None
            elif w in ("$dumpvars", "$dumpall", "$dumpon", "$dumpoff"):
                if section:
                    raise Bad("line %d: %s inside %s" % (n, w, section))
                section = w
            elif w == "$comment":
                for n2, w2 in tok:
                    if w2 == "$end":
                        break
                else:
                    raise Bad("$comment not ended")
            else:
                raise Bad("line %d: unexpected command %r" % (n, w))
        elif c in "bB":
            bits = w[1:]
            if not bits or set(bits) - BITS:
                raise Bad("line %d: bad vector value %r" % (n, w))
            n2, code = next(tok)
            change(n, code, bits)
        elif c in "sS":
            text = unescape(w[1:])
            n2, code = next(tok)
            if code not in d.vars:
                raise Bad("line %d: undeclared identifier code %r" % (n, code))
            if code not in d.strings:
                raise Bad("line %d: a string value for non-string variable %r" % (n, code))
            if now is None:
                raise Bad("line %d: value change before any time" % n)
            value[code] = text
            changes += 1
            if section == "$dumpvars":
                dumped.add(code)
        elif c in "rR":
            try:
                float(w[1:])
            except ValueError:
                raise Bad("line %d: bad real value %r" % (n, w))
            n2, code = next(tok)
            if code not in d.vars:
                raise Bad("line %d: undeclared identifier code %r" % (n, code))
        elif c in BITS:
            if len(w) < 2:
                raise Bad("line %d: scalar change without identifier" % n)
            if d.vars.get(w[1:], (1,))[0] != 1:
                raise Bad("line %d: scalar change of a %d-bit variable" %
                          (n, d.vars[w[1:]][0]))
            change(n, w[1:], c)
        else:
            raise Bad("line %d: unexpected %r" % (n, w))
    if section:
        raise Bad("%s not ended" % section)
    settle(None)
    return len(d.paths), changes, now


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path, expects, no_date, nvars = None, [], False, None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--expect":
            expects.append(parse_expect(args[i + 1]))
            i += 2
        elif a == "--expect-file":
            with open(args[i + 1]) as f:
                for line in f:
                    line = line.strip()
                    if line and not line.startswith("#"):
                        expects.append(parse_expect(line))
            i += 2
        elif a == "--no-date":
            no_date = True
            i += 1
        elif a == "--vars":
            nvars = int(args[i + 1])
            i += 2
        else:
            path = a
            i += 1
    try:
        nv, nc, last = check(path, expects, no_date, nvars)
    except Bad as e:
        print("%s: %s" % (path, e), file=sys.stderr)
        return 1
    print("%s: valid VCD: %d variables, %d value changes, last time %s, "
          "%d expectations met" % (path, nv, nc, last, len(expects)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
