#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: make-half-line-traces.sh TRACES BIG-LOOP-TRACE OUTDIR
# Writes traces whose last line may lack its newline, as when a hung
# simulation is killed in the middle of writing a line (TRACES is the
# shared tarmac directory, BIG-LOOP-TRACE the output of make-loop-trace.sh):
#
#   hang-killed      10 distinct instructions, then a 4-line loop (ADD r0 /
#                    R r0 / CMP / B back) from line 11, instructions 3000-
#                    3019, then the half-written "3020 clk IT (3020)
#                    00003008 eaf" with no newline
#   hang-complete    the same, the last line written in full with its newline
#   hang-odd-last    the same, the half line "... eaf" ending in a newline:
#                    a complete line that breaks the loop
#   hang-crlf        hang-killed with CRLF line ends, the half line bare
#   hang-crlf-cr     the same, the half line ending in CR but no LF
#   loop-half        truncate/loop.tarmac, then a half line
#   loop-long-half   truncate/loop.tarmac, then a 2.5 MB half line (more
#                    than the 1 MB chunks the last newline is looked for in)
#   quicksort-nonl   quicksort.tarmac without its last newline
#   nontrunc-nonl    truncate/nontruncate.tarmac without its last newline
#   nontrunc-half    truncate/nontruncate.tarmac, then a half line
#   only-half        just the half line, no newline anywhere
#   big-loop-half    BIG-LOOP-TRACE, then a half line
set -eu
T=$1 big=$2 out=$3
mkdir -p "$out"
half='3020 clk IT (3020) 00003008 eaf'
hang() {
  awk '
    BEGIN {
      for (t = 2990; t < 3000; t++)
        printf "%d clk IT (%d) %08x e1a00000 A svc_s : NOP\n", t, t, 8192 + 4 * (t - 2990)
      for (t = 3000; t < 3020; t++) {
        i = (t - 3000) % 3
        if (i == 0) {
          printf "%d clk IT (%d) 00003000 e2800001 A svc_s : ADD      r0,r0,#1\n", t, t
          printf "%d clk R r0 %08x\n", t, t - 2999
        } else if (i == 1) {
          printf "%d clk IT (%d) 00003004 e3500000 A svc_s : CMP      r0,#0\n", t, t
        } else {
          printf "%d clk IT (%d) 00003008 eafffffc A svc_s : B        {pc}-8 ; 0x3000\n", t, t
        }
      }
    }'
}
{ hang; printf '%s' "$half"; } > "$out/hang-killed.tarmac"
{ hang; echo '3020 clk IT (3020) 00003008 eafffffc A svc_s : B        {pc}-8 ; 0x3000'; } \
  > "$out/hang-complete.tarmac"
{ hang; echo "$half"; } > "$out/hang-odd-last.tarmac"
{ hang | sed 's/$/\r/'; printf '%s' "$half"; } > "$out/hang-crlf.tarmac"
{ hang | sed 's/$/\r/'; printf '%s\r' "$half"; } > "$out/hang-crlf-cr.tarmac"
{ cat "$T/truncate/loop.tarmac"; printf '25000000 ps IT (25) 000200b4 e3a0'; } \
  > "$out/loop-half.tarmac"
{ cat "$T/truncate/loop.tarmac"
  printf '25000000 ps '; head -c 2621440 /dev/zero | tr '\0' 'x'; } > "$out/loop-long-half.tarmac"
head -c -1 "$T/quicksort.tarmac" > "$out/quicksort-nonl.tarmac"
head -c -1 "$T/truncate/nontruncate.tarmac" > "$out/nontrunc-nonl.tarmac"
{ cat "$T/truncate/nontruncate.tarmac"; printf '1000000 ps R r'; } > "$out/nontrunc-half.tarmac"
printf '%s' "$half" > "$out/only-half.tarmac"
{ cat "$big"; printf '%s' "$half"; } > "$out/big-loop-half.tarmac"
