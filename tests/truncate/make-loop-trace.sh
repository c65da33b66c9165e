#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: make-loop-trace.sh PREFIX ITERATIONS [SUFFIX] > TRACE
# Writes the lines of PREFIX, then ITERATIONS rounds of a two-instruction
# loop (MOV r0 / branch back) whose register value changes every round (the
# loop detector ignores data), with rising timestamps and instruction
# counters, then the lines of SUFFIX if given.
set -eu
awk -v n="$2" '
  { print }
  END {
    t = 100000; c = 90000
    for (i = 0; i < n; i++) {
      printf "%d clk IT (%d) 00200000 e3a0007b A svc_s : MOV      r0,#0x7b\n", t, c++
      printf "%d clk R r0 %08x\n", t++, i
      printf "%d clk IT (%d) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000\n", t++, c++
    }
  }' "$1"
if [ $# -ge 3 ]; then cat "$3"; fi
