#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: make-loop-trace.sh PREFIX ITERATIONS MODE [SUFFIX] > TRACE
# Writes the lines of PREFIX, then ITERATIONS rounds of a two-instruction
# loop (MOV r0 / branch back), with rising timestamps and instruction
# counters, then the lines of SUFFIX if given.  MODE "count": the value
# written to r0 changes every round (a loop doing work: never cut); MODE
# "stuck": it is always 0x7b (a hung program: cut in its second round).
set -eu
awk -v n="$2" -v mode="$3" '
  { print }
  END {
    t = 100000; c = 90000
    for (i = 0; i < n; i++) {
      printf "%d clk IT (%d) 00200000 e3a0007b A svc_s : MOV      r0,#0x7b\n", t, c++
      printf "%d clk R r0 %08x\n", t++, mode == "count" ? i : 123
      printf "%d clk IT (%d) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000\n", t++, c++
    }
  }' "$1"
if [ $# -ge 4 ]; then cat "$4"; fi
