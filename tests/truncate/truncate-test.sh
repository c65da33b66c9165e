#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: truncate-test.sh TRACEKIT TRACE KEEP LAST OUTDIR [WARNING]
# Runs `tracekit truncate` on TRACE in every way it can read and write -
# a file argument, -o FILE, standard input redirected from the file, a
# pipe, and the tarmac-truncate alias - and checks that each output is
# exactly the first KEEP lines of TRACE ("all": the whole trace, byte for
# byte), that its last line is LAST (compared without a CR, for CRLF
# traces; with KEEP "all" and no final newline, the last line is the
# unterminated one), and, if WARNING is given, that each run printed it.
set -eu
tk=$1 trace=$2 keep=$3 last=$4 out=$5 warning=${6:-}
mkdir -p "$out"
name=$(basename "$trace")
want="$out/$name.want"
if [ "$keep" = all ]; then
  cp "$trace" "$want"
else
  head -n "$keep" "$trace" > "$want"
fi
got=$(tail -n 1 "$want" | tr -d '\r')
if [ "$got" != "$last" ]; then
  echo "FAIL: line $keep of $trace is '$got', not '$last'"; exit 1
fi

fail=0
check() { # how file
  if ! cmp -s "$want" "$2"; then
    echo "FAIL ($1): output differs from the first $keep lines of $trace:"
    echo "  $(wc -l < "$2") lines, last: $(tail -n 1 "$2" | cut -c1-100)"
    fail=1
  else
    echo "ok ($1): $(wc -l < "$2") lines"
    rm -f "$2"	# the disk is shared: keep only what failed
  fi
  if [ -n "$warning" ] && ! grep -q "$warning" "$out/$name.err"; then
    echo "FAIL ($1): no warning '$warning' (stderr: $(cat "$out/$name.err"))"
    fail=1
  fi
}
"$tk" truncate "$trace" > "$out/$name.file" 2> "$out/$name.err";  check file "$out/$name.file"
rm -f "$out/$name.o"
"$tk" truncate -o "$out/$name.o" "$trace" 2> "$out/$name.err";   check -o "$out/$name.o"
"$tk" truncate < "$trace" > "$out/$name.stdin" 2> "$out/$name.err"; check "stdin (file)" "$out/$name.stdin"
cat "$trace" | "$tk" truncate > "$out/$name.pipe" 2> "$out/$name.err"; check "stdin (pipe)" "$out/$name.pipe"
alias="$(dirname "$tk")/tarmac-truncate"
if [ -x "$alias" ]; then
  "$alias" "$trace" > "$out/$name.alias" 2> "$out/$name.err"; check tarmac-truncate "$out/$name.alias"
fi
ls "$out" | grep -q '\.tmp\.' && { echo "FAIL: temporary file left in $out"; fail=1; }
[ $fail = 0 ] && rm -f "$want"
exit $fail
