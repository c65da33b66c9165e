#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: vcd-test.sh TRACEKIT PYTHON OUTDIR NAME EXPECT NVARS [VCD2FST FST2VCD] -- ARGS...
# Runs `tracekit vcd --no-date -o OUTDIR/NAME.vcd ARGS...`, then checks the
# dump with vcdcheck.py: the IEEE 1364 grammar, NVARS variables, no $date,
# and every PATH@TIME=VALUE line of EXPECT.  With GTKWave's vcd2fst and
# fst2vcd, also converts the dump to FST and back and checks the values
# GTKWave read the same way.
set -eu
tk=$1 py=$2 out=$3 name=$4 expect=$5 nvars=$6
shift 6
v2f= f2v=
if [ "$1" != "--" ]; then v2f=$1 f2v=$2; shift 2; fi
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$tk" vcd --no-date -o "$out/$name.vcd" "$@"
"$py" "$here/vcdcheck.py" "$out/$name.vcd" --no-date --vars "$nvars" --expect-file "$expect"
if [ -n "$v2f" ]; then
  "$v2f" "$out/$name.vcd" "$out/$name.fst" >/dev/null
  "$f2v" "$out/$name.fst" > "$out/$name.gtkwave.vcd"
  "$py" "$here/vcdcheck.py" "$out/$name.gtkwave.vcd" --vars "$nvars" --expect-file "$expect"
fi
