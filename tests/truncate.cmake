# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit truncate: the loop detector against the rule computed the slow
# way (tests/truncate/test_loop.c), then the command on the shared
# truncate/ traces and generated ones, each cut at the line verified by
# hand (see the comments), read and written every way (file, -o, stdin
# from a file, a pipe, the tarmac-truncate alias): see
# tests/truncate/truncate-test.sh.

add_executable(test_loop ${CMAKE_SOURCE_DIR}/tests/truncate/test_loop.c)
target_link_libraries(test_loop PRIVATE tracekit)
add_test(NAME truncate.detector COMMAND test_loop)

set(TK_TRUNC_DIR ${CMAKE_SOURCE_DIR}/tests/truncate)
set(TK_TRUNC_OUT ${CMAKE_BINARY_DIR}/tests-out/truncate)

function(tk_truncate_test name trace keep last)
  add_test(NAME truncate.${name}
    COMMAND sh ${TK_TRUNC_DIR}/truncate-test.sh ${TK_BIN} ${trace} ${keep} "${last}"
            ${TK_TRUNC_OUT}/${name} ${ARGN})
endfunction()

# Arm's rule (tracekit/loop.h): an instruction whose address is among the
# last 16, no register having changed value since, ends the output after
# its own line; so does a block of k >= 8 text-only lines repeated twice.
#
# crash32: an LDM aborts; the abort handler at 0x10 raises an SVC whose
# vector (0x8: SVCLE fails, SVCGT at 0xc taken) raises it again, forever.
# r14_svc (18 -> 10) at line 26 and spsr_svc (1d7 -> 1d3) at line 28 change
# for the last time; the window then holds IS 8 (line 30) and IT c (31); the
# next round's IS 8 at line 37 is in it: lines 1-37.
tk_truncate_test(crash32 ${TK_TRACES}/truncate/crash32.tarmac 37
  "9000000 ps IS (9) 00000008 dfdfdfcf A svc_s : SVCLE    #0xdfdfcf")
# crash32m: an M-profile core escalates to HardFault and locks up: after
# the last register line (62, R DHCSR) only INFO_EXCEPTION_REASON lines:
# RAISE / ESCALATING / ESCALATED with PC=0xea00004c (63-65), then the same
# three with PC=0xfffffffe forever from line 66.  The first block of k >= 8
# lines repeated twice in a row: k = 9, lines 66-74 and 75-83: lines 1-83.
tk_truncate_test(crash32m ${TK_TRACES}/truncate/crash32m.tarmac 83
  "4000000 ps INFO_EXCEPTION_REASON: PHASE=ESCALATED REASONS=FAULT_NOT_IN_ARCH PC=0xfffffffe VECTOR=HARDFAULT FaultCause=Fault has been escalated to a HardFault exception")
# crash64: the LDP aborts to the vector at 0x200, an undefined instruction
# that traps to itself.  IT 200 (line 12) enters the window, ESR_EL3 and
# ELR_EL3 change (15, 16) and empty it; IT 200 again (18) enters it, and
# nothing changes after (cpsr, ESR, ELR, SPSR keep their values): the IT
# 200 at line 24 ends the output.
tk_truncate_test(crash64 ${TK_TRACES}/truncate/crash64.tarmac 24
  "5000000 ps IT (5) 00000200 dfdfdfcf O EL3h_s : DCI      0xdfdfdfcf ; ? Undefined")
# loop: MOV r0,#0x7b / B back.  r0's first write (line 2) empties the
# window; the same value again (line 5) does not: B at line 6 is the
# second visit of 0x200b8 since: lines 1-6.
tk_truncate_test(loop ${TK_TRACES}/truncate/loop.tarmac 6
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4")
# nontruncate ends normally: its SIGNAL lines (70-84) never repeat a block
# of 8 twice, and register lines empty the windows: unchanged.
tk_truncate_test(nontruncate ${TK_TRACES}/truncate/nontruncate.tarmac all
  "1000000 ps R r1 00000000")
# The other shared traces end normally (every revisit of an address has a
# register changing in between): unchanged.
tk_truncate_test(calculator-aarch64 ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac all
  "4782 clk CADI E simulation_stopped")
tk_truncate_test(calculator-es ${TK_TRACES}/calculator-aarch64-es-ld-st-style.tarmac all
  "     470100 tic ES  (0000000000210670:d45e0000) O el3h_s:         HLT      #0xf000")
tk_truncate_test(quicksort ${TK_TRACES}/quicksort.tarmac all
  "2043 clk CADI E simulation_stopped")

# Big: the calculator trace (11560 lines), then 200000 rounds of a 3-line
# loop (35 MB).  "stuck": r0 is written the same value every round: cut in
# the second round, at line 11560 + 6.  "count": r0 changes every round:
# a working loop, copied unchanged, as is the same loop followed by a
# normal ending.
add_test(NAME truncate.make-loop-trace
  COMMAND sh -c "mkdir -p ${TK_TRUNC_OUT} && sh ${TK_TRUNC_DIR}/make-loop-trace.sh ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac 200000 stuck > ${TK_TRUNC_OUT}/loop-after-calculator.tarmac && sh ${TK_TRUNC_DIR}/make-loop-trace.sh ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac 200000 count > ${TK_TRUNC_OUT}/count-after-calculator.tarmac && sh ${TK_TRUNC_DIR}/make-loop-trace.sh ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac 200000 count ${TK_TRACES}/truncate/nontruncate.tarmac > ${TK_TRUNC_OUT}/loop-then-end.tarmac")
set_tests_properties(truncate.make-loop-trace PROPERTIES FIXTURES_SETUP tk_loop_traces)
tk_truncate_test(big-loop ${TK_TRUNC_OUT}/loop-after-calculator.tarmac 11566
  "100003 clk IT (90003) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000")
tk_truncate_test(big-count ${TK_TRUNC_OUT}/count-after-calculator.tarmac all
  "499999 clk IT (489999) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000")
tk_truncate_test(big-loop-then-end ${TK_TRUNC_OUT}/loop-then-end.tarmac all
  "1000000 ps R r1 00000000")
set_tests_properties(truncate.big-loop truncate.big-count truncate.big-loop-then-end PROPERTIES
  FIXTURES_REQUIRED tk_loop_traces)

# Awkward endings (tests/truncate/make-half-line-traces.sh says what each
# trace is).  A malformed last line without its newline (a killed
# simulation) is left out with a warning, as Arm's tool does; every other
# line is copied.
set(TK_HALF ${TK_TRUNC_OUT}/half)
add_test(NAME truncate.make-half-line-traces
  COMMAND sh ${TK_TRUNC_DIR}/make-half-line-traces.sh ${TK_TRACES} ${TK_HALF})
set_tests_properties(truncate.make-half-line-traces PROPERTIES FIXTURES_SETUP tk_half_traces)
# The polling loop: r0's first write (line 12) empties the window, which
# then fills with CMP 3004 (13), B 3008 (14), LDR 3000 (15); r0 keeps its
# value (16); CMP at line 17 ends it.  The half line is never reached.
tk_truncate_test(half-hang-killed ${TK_HALF}/hang-killed.tarmac 17
  "3004 clk IT (3004) 00003004 e3500000 A svc_s : CMP      r0,#0")
# No loop: the 14 lines are copied, the malformed half line dropped.
set(TK_RUN_LAST "3003 clk IT (3003) 0000300c e1a00000 A svc_s : NOP")
tk_truncate_test(half-run-killed ${TK_HALF}/run-killed.tarmac 14 "${TK_RUN_LAST}"
  "ignoring this malformed last line")
tk_truncate_test(half-run-crlf ${TK_HALF}/run-crlf.tarmac 14 "${TK_RUN_LAST}"
  "ignoring this malformed last line")
tk_truncate_test(half-run-crlf-cr ${TK_HALF}/run-crlf-cr.tarmac 14 "${TK_RUN_LAST}"
  "ignoring this malformed last line")
# The half line with its newline is a complete (malformed) line: copied,
# with the parser's warning.
tk_truncate_test(half-run-odd-last ${TK_HALF}/run-odd-last.tarmac all
  "3020 clk IT (3020) 00003008 eaf" "warning")
# loop.tarmac (cut at line 6) then a 2.5 MB half line.
tk_truncate_test(half-loop-long ${TK_HALF}/loop-long-half.tarmac 6
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4")
# Well-formed last lines without a newline: byte for byte.
tk_truncate_test(half-quicksort-nonl ${TK_HALF}/quicksort-nonl.tarmac all
  "2043 clk CADI E simulation_stopped")
tk_truncate_test(half-nontrunc-nonl ${TK_HALF}/nontrunc-nonl.tarmac all
  "1000000 ps R r1 00000000")
# "1000000 ps R r" (no value) is malformed: dropped.
tk_truncate_test(half-nontrunc-half ${TK_HALF}/nontrunc-half.tarmac 92
  "1000000 ps R r1 00000000" "ignoring this malformed last line")
tk_truncate_test(half-only ${TK_HALF}/only-half.tarmac 0 "" "ignoring this malformed last line")
# A line of NUL bytes (binary data) after line 14: the output ends before it.
tk_truncate_test(nul-line ${TK_HALF}/nul-line.tarmac 14 "${TK_RUN_LAST}" "NUL bytes")
# A line longer than the limit (the parser's 64 MB, lowered to 1 MB here
# by TRACEKIT_MAX_LINE, so the test needs no 64 MB files) after
# loop.tarmac's line 3: copied through unparsed and unheld, with a
# warning; the loop is cut one line later than in loop.tarmac, at line 7.
tk_truncate_test(long-line ${TK_HALF}/long-line.tarmac 7
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4"
  "longer than 1048576 bytes")
set_tests_properties(truncate.long-line PROPERTIES ENVIRONMENT TRACEKIT_MAX_LINE=1048576)
set_tests_properties(truncate.half-hang-killed truncate.half-run-killed truncate.half-run-crlf
  truncate.half-run-crlf-cr truncate.half-run-odd-last truncate.half-loop-long
  truncate.half-quicksort-nonl truncate.half-nontrunc-nonl truncate.half-nontrunc-half
  truncate.half-only truncate.nul-line truncate.long-line PROPERTIES FIXTURES_REQUIRED tk_half_traces)

# Errors: a missing trace fails (exit 1) and leaves no -o file behind.
add_test(NAME truncate.missing-file
  COMMAND sh -c "mkdir -p ${TK_TRUNC_OUT} && rm -f ${TK_TRUNC_OUT}/missing.out; ${TK_BIN} truncate -o ${TK_TRUNC_OUT}/missing.out ${TK_TRUNC_OUT}/no-such-trace; rc=$?; test $rc -eq 1 && ! ls ${TK_TRUNC_OUT} | grep -q missing.out")
add_test(NAME truncate.bad-option COMMAND sh -c "${TK_BIN} truncate --no-such-option x; test $? -eq 2")
