#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A trace for vcd --use-tarmac-timestamps whose clock stalls: 1500
instructions stamped "5 clk" (more than the 1000 picosecond sub-steps of
one step), then one at 6 (inside the spill-over), one at 4 (time going
back), one at 9.  Instruction i (0-based) of the stalled run is at pc
0x1000 + 4*i and writes r0 = i.

Expected (vcd.crowded-timestamps): the stalled run at 5000..6499 ps, one
instruction per picosecond; 6 clk at 6500; 4 clk at 6501; 9 clk at 9000."""
for i in range(1500):
    print(f"5 clk IT ({i + 1}) {0x1000 + 4 * i:08x} e3a00000 A svc_s : MOV      r0,#0")
    print(f"5 clk R r0 {i:08x}")
print("6 clk IT (1501) 00009000 e3a01001 A svc_s : MOV      r1,#1")
print("6 clk R r1 00000001")
print("4 clk IT (1502) 00009004 e3a01002 A svc_s : MOV      r1,#2")
print("4 clk R r1 00000002")
print("9 clk IT (1503) 00009008 e3a01003 A svc_s : MOV      r1,#3")
print("9 clk R r1 00000003")
