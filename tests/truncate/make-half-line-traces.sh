#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: make-half-line-traces.sh TRACES OUTDIR
# Writes traces whose last line may lack its newline, as when a hung or
# killed simulation stops in the middle of writing a line, and a few other
# awkward inputs (TRACES is the shared tarmac directory):
#
#   hang-killed      10 distinct instructions (lines 1-10), then a polling
#                    loop LDR r0 (r0 stays 0) / CMP / B back from line 11,
#                    then the half-written "3020 clk IT (3020) 00003008 eaf"
#   run-killed       the 10 instructions and 4 more, no loop, then the half
#                    line without its newline
#   run-odd-last     the same, the half line ending in a newline
#   run-crlf         run-killed with CRLF line ends, the half line bare
#   run-crlf-cr      the same, the half line ending in CR but no LF
#   loop-long-half   truncate/loop.tarmac, then a 2.5 MB half line
#   quicksort-nonl   quicksort.tarmac without its last newline
#   nontrunc-nonl    truncate/nontruncate.tarmac without its last newline
#   nontrunc-half    truncate/nontruncate.tarmac, then "1000000 ps R r"
#   only-half        just the half line, no newline anywhere
#   nul-line         run-killed's 14 complete lines, a line of NUL bytes,
#                    then 2 more lines
#   long-line        truncate/loop.tarmac's lines 1-3, a line of 2 MB (more
#                    than the 1 MB the test lowers the line limit to with
#                    TRACEKIT_MAX_LINE), then lines 4-36
set -eu
T=$1 out=$2
mkdir -p "$out"
half='3020 clk IT (3020) 00003008 eaf'
nops() {
  awk 'BEGIN { for (t = 2990; t < 3000; t++)
    printf "%d clk IT (%d) %08x e1a00000 A svc_s : NOP\n", t, t, 8192 + 4 * (t - 2990) }'
}
hang() {
  nops
  awk '
    BEGIN {
      for (t = 3000; t < 3020; t++) {
        i = (t - 3000) % 3
        if (i == 0) {
          printf "%d clk IT (%d) 00003000 e5910000 A svc_s : LDR      r0,[r1,#0]\n", t, t
          printf "%d clk R r0 00000000\n", t
        } else if (i == 1) {
          printf "%d clk IT (%d) 00003004 e3500000 A svc_s : CMP      r0,#0\n", t, t
        } else {
          printf "%d clk IT (%d) 00003008 0afffffc A svc_s : BEQ      {pc}-8 ; 0x3000\n", t, t
        }
      }
    }'
}
run() {
  nops
  awk 'BEGIN { for (t = 3000; t < 3004; t++)
    printf "%d clk IT (%d) %08x e1a00000 A svc_s : NOP\n", t, t, 12288 + 4 * (t - 3000) }'
}
{ hang; printf '%s' "$half"; } > "$out/hang-killed.tarmac"
{ run; printf '%s' "$half"; } > "$out/run-killed.tarmac"
{ run; echo "$half"; } > "$out/run-odd-last.tarmac"
{ run | sed 's/$/\r/'; printf '%s' "$half"; } > "$out/run-crlf.tarmac"
{ run | sed 's/$/\r/'; printf '%s\r' "$half"; } > "$out/run-crlf-cr.tarmac"
{ cat "$T/truncate/loop.tarmac"
  printf '25000000 ps '; head -c 2621440 /dev/zero | tr '\0' 'x'; } > "$out/loop-long-half.tarmac"
head -c -1 "$T/quicksort.tarmac" > "$out/quicksort-nonl.tarmac"
head -c -1 "$T/truncate/nontruncate.tarmac" > "$out/nontrunc-nonl.tarmac"
{ cat "$T/truncate/nontruncate.tarmac"; printf '1000000 ps R r'; } > "$out/nontrunc-half.tarmac"
printf '%s' "$half" > "$out/only-half.tarmac"
{ run; head -c 100 /dev/zero; echo; echo '3010 clk IT (3010) 00004000 e1a00000 A svc_s : NOP'
  echo '3011 clk IT (3011) 00004004 e1a00000 A svc_s : NOP'; } > "$out/nul-line.tarmac"
{ head -n 3 "$T/truncate/loop.tarmac"
  printf '2500000 ps INFO: '; head -c 2097152 /dev/zero | tr '\0' 'x'; echo
  tail -n +4 "$T/truncate/loop.tarmac"; } > "$out/long-line.tarmac"
