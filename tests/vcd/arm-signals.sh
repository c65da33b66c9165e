#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: arm-signals.sh TRACEKIT OUTDIR EXPECTED TRACE [OPTIONS...]
# The dump of TRACE declares, in one scope "CPU", first exactly the
# variables of EXPECTED (type, width, name, in order: what Arm's tarmac-vcd
# declares, so a GTKWave save file made for its output finds every signal
# in ours), then only tracekit's extra ones.  Then, without -o, the dump
# goes to TRACE.vcd next to the trace (a copy of it in OUTDIR), as Arm's
# tool writes it, through `tracekit vcd` and the tarmac-vcd alias alike.
set -eu
tk=$1 out=$2 expected=$3 trace=$4
shift 4
mkdir -p "$out"
name=$(basename "$trace")
fail=0
"$tk" vcd --no-date -o - "$@" "$trace" > "$out/$name.vcd"
scopes=$(grep -c '^\$scope' "$out/$name.vcd")
[ "$scopes" = 1 ] && grep -q '^\$scope module CPU \$end$' "$out/$name.vcd" ||
  { echo "FAIL: scopes: $(grep '^\$scope' "$out/$name.vcd")"; fail=1; }
sed -n 's/^\$var \([a-z]*\) \([0-9]*\) [^ ]* \([A-Za-z0-9_]*\) \$end$/\1 \2 \3/p' "$out/$name.vcd" \
  > "$out/$name.vars"
grep -v '^#' "$expected" > "$out/$name.want"
n=$(wc -l < "$out/$name.want")
head -n "$n" "$out/$name.vars" > "$out/$name.first"
if ! cmp -s "$out/$name.want" "$out/$name.first"; then
  echo "FAIL: the first $n declarations differ from Arm's:"
  diff "$out/$name.want" "$out/$name.first" | head -20
  fail=1
fi
# Every declaration has that form (no range after an integer).
all=$(grep -c '^\$var' "$out/$name.vcd")
[ "$all" = "$(wc -l < "$out/$name.vars")" ] || { echo "FAIL: $all declarations, $(wc -l < "$out/$name.vars") in Arm's form"; fail=1; }
echo "extra signals: $(tail -n +$((n + 1)) "$out/$name.vars" | tr '\n' ',')"
# The default output: TRACE.vcd.
cp "$trace" "$out/default-$name"
rm -f "$out/default-$name.vcd"
"$tk" vcd --no-date "$@" "$out/default-$name" > "$out/default.stdout"
cmp -s "$out/default-$name.vcd" "$out/$name.vcd" || { echo "FAIL: no TRACE.vcd, or another dump"; fail=1; }
[ -s "$out/default.stdout" ] && { echo "FAIL: output on stdout without -o"; fail=1; }
alias="$(dirname "$tk")/tarmac-vcd"
if [ -x "$alias" ]; then
  rm -f "$out/default-$name.vcd"
  "$alias" --no-date "$@" "$out/default-$name"
  cmp -s "$out/default-$name.vcd" "$out/$name.vcd" || { echo "FAIL: tarmac-vcd: no TRACE.vcd"; fail=1; }
fi
[ $fail = 0 ] && echo "ok: $n declarations as Arm's tool writes them"
exit $fail
