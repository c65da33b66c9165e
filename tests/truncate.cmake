# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit truncate: the loop detector against a brute-force reference
# (tests/truncate/test_loop.c), then the command on the shared truncate/
# traces, each cut at the line verified by hand (see the comments), read
# and written every way (file, -o, stdin from a file, stdin from a pipe, a
# pipe with the temporary file in use, the tarmac-truncate alias): see
# tests/truncate/truncate-test.sh.

add_executable(test_loop ${CMAKE_SOURCE_DIR}/tests/truncate/test_loop.c)
target_link_libraries(test_loop PRIVATE tracekit)
add_test(NAME truncate.detector COMMAND test_loop)

set(TK_TRUNC_DIR ${CMAKE_SOURCE_DIR}/tests/truncate)
set(TK_TRUNC_OUT ${CMAKE_BINARY_DIR}/tests-out/truncate)

function(tk_truncate_test name trace keep last)
  add_test(NAME truncate.${name}
    COMMAND sh ${TK_TRUNC_DIR}/truncate-test.sh ${TK_BIN} ${trace} ${keep} "${last}"
            ${TK_TRUNC_OUT}/${name})
endfunction()

# crash32: an LDM aborts; the abort handler at 0x10 raises an SVC whose
# vector (0x8: SVCLE fails, SVCGT at 0xc taken) raises it again, forever.
# The 7-line loop "IS 8 / IT c / E SWI / R r14_svc / R cpsr / R spsr_svc /
# R SPSR_svc" is periodic from line 19 (data ignored); the first
# instruction in it is line 23, IS (5); two rounds end at line 36.
tk_truncate_test(crash32 ${TK_TRACES}/truncate/crash32.tarmac 36
  "8000000 ps R SPSR_svc 000001d3")
# crash32m: an M-profile core faults on the SVC, escalates to HardFault and
# locks up: no instruction after line 26, only the three messages RAISE /
# ESCALATING / ESCALATED with PC=0xfffffffe repeating from line 66 (the
# round before has PC=0xea00004c); two rounds: lines 66-71.
tk_truncate_test(crash32m ${TK_TRACES}/truncate/crash32m.tarmac 71
  "4000000 ps INFO_EXCEPTION_REASON: PHASE=ESCALATED REASONS=FAULT_NOT_IN_ARCH PC=0xfffffffe VECTOR=HARDFAULT FaultCause=Fault has been escalated to a HardFault exception")
# crash64: the LDP aborts to the vector at 0x200, an undefined instruction
# that traps to itself: "IT 200 / E / R cpsr / ESR / ELR / SPSR" (6 lines)
# from line 12, IT (3) (periodic from line 10, register names only); two
# rounds end at line 23.
tk_truncate_test(crash64 ${TK_TRACES}/truncate/crash64.tarmac 23
  "4000000 ps R SPSR_EL3 00000000000003cd")
# loop: MOV r0 / B back from the very first line: lines 1-6.
tk_truncate_test(loop ${TK_TRACES}/truncate/loop.tarmac 6
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4")
# nontruncate ends normally (after the SIGNAL lines' short repeats): unchanged.
tk_truncate_test(nontruncate ${TK_TRACES}/truncate/nontruncate.tarmac all
  "1000000 ps R r1 00000000")
# The other shared traces end normally: unchanged.
tk_truncate_test(calculator-aarch64 ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac all
  "4782 clk CADI E simulation_stopped")
tk_truncate_test(calculator-es ${TK_TRACES}/calculator-aarch64-es-ld-st-style.tarmac all
  "     470100 tic ES  (0000000000210670:d45e0000) O el3h_s:         HLT      #0xf000")
tk_truncate_test(quicksort ${TK_TRACES}/quicksort.tarmac all
  "2043 clk CADI E simulation_stopped")

# Big: the calculator trace (11560 lines) then 200000 rounds of a 3-line
# loop whose r0 value changes every round (35 MB, more than the 4 MB tail
# the file reader starts with, so it walks back chunk by chunk; a pipe
# holds the loop in a temporary file): cut after two rounds, line 11566.
add_test(NAME truncate.make-loop-trace
  COMMAND sh -c "mkdir -p ${TK_TRUNC_OUT} && sh ${TK_TRUNC_DIR}/make-loop-trace.sh ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac 200000 > ${TK_TRUNC_OUT}/loop-after-calculator.tarmac && sh ${TK_TRUNC_DIR}/make-loop-trace.sh ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac 200000 ${TK_TRACES}/truncate/nontruncate.tarmac > ${TK_TRUNC_OUT}/loop-then-end.tarmac")
set_tests_properties(truncate.make-loop-trace PROPERTIES FIXTURES_SETUP tk_loop_traces)
tk_truncate_test(big-loop ${TK_TRUNC_OUT}/loop-after-calculator.tarmac 11566
  "100003 clk IT (90003) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000")
# The same loop followed by a normal ending: unchanged.
tk_truncate_test(big-loop-then-end ${TK_TRUNC_OUT}/loop-then-end.tarmac all
  "1000000 ps R r1 00000000")
set_tests_properties(truncate.big-loop truncate.big-loop-then-end PROPERTIES
  FIXTURES_REQUIRED tk_loop_traces)

# Traces of hung simulations killed in the middle of writing their last
# line (no newline at the end; made by tests/truncate/make-half-line-traces.sh,
# see there): the unterminated last line is left out of the detection, so a
# loop before it is cut as usual (the half line is dropped), and a trace
# whose complete lines do not end in a loop is copied byte for byte, half
# line included.  A complete last line is a line like any other.
set(TK_HALF ${TK_TRUNC_OUT}/half)
add_test(NAME truncate.make-half-line-traces
  COMMAND sh ${TK_TRUNC_DIR}/make-half-line-traces.sh ${TK_TRACES}
          ${TK_TRUNC_OUT}/loop-after-calculator.tarmac ${TK_HALF})
set_tests_properties(truncate.make-half-line-traces PROPERTIES
  FIXTURES_SETUP tk_half_traces FIXTURES_REQUIRED tk_loop_traces)
# 10 NOPs, then ADD r0 / R r0 / CMP / B from line 11 (the first instruction):
# two rounds end at line 18, B (3005); the half line "3020 ... eaf" is dropped.
set(TK_HANG_LAST "3005 clk IT (3005) 00003008 eafffffc A svc_s : B        {pc}-8 ; 0x3000")
tk_truncate_test(half-hang-killed ${TK_HALF}/hang-killed.tarmac 18 "${TK_HANG_LAST}")
# The same, with the last line complete (and continuing the loop): as before.
tk_truncate_test(half-hang-complete ${TK_HALF}/hang-complete.tarmac 18 "${TK_HANG_LAST}")
# The half line with a newline is a complete line breaking the loop: unchanged.
tk_truncate_test(half-hang-odd-last ${TK_HALF}/hang-odd-last.tarmac all
  "3020 clk IT (3020) 00003008 eaf")
# CRLF line ends, the half line bare or ending in CR without LF.
tk_truncate_test(half-hang-crlf ${TK_HALF}/hang-crlf.tarmac 18 "${TK_HANG_LAST}")
tk_truncate_test(half-hang-crlf-cr ${TK_HALF}/hang-crlf-cr.tarmac 18 "${TK_HANG_LAST}")
# loop.tarmac (cut at line 6) then a half line, short or of 2.5 MB.
tk_truncate_test(half-loop ${TK_HALF}/loop-half.tarmac 6
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4")
tk_truncate_test(half-loop-long ${TK_HALF}/loop-long-half.tarmac 6
  "4000000 ps IT (4) 000200b8 eafffffd A svc_s : B        {pc}-4 ; 0x200b4")
# Traces that do not end in a loop, without a final newline: unchanged.
tk_truncate_test(half-quicksort-nonl ${TK_HALF}/quicksort-nonl.tarmac all
  "2043 clk CADI E simulation_stopped")
tk_truncate_test(half-nontrunc-nonl ${TK_HALF}/nontrunc-nonl.tarmac all
  "1000000 ps R r1 00000000")
tk_truncate_test(half-nontrunc-half ${TK_HALF}/nontrunc-half.tarmac all "1000000 ps R r")
tk_truncate_test(half-only ${TK_HALF}/only-half.tarmac all "3020 clk IT (3020) 00003008 eaf")
# The big loop trace (walked back chunk by chunk; a pipe spills) then a half line.
tk_truncate_test(half-big-loop ${TK_HALF}/big-loop-half.tarmac 11566
  "100003 clk IT (90003) 00200004 eafffffd A svc_s : B        {pc}-4 ; 0x200000")
set_tests_properties(truncate.half-hang-killed truncate.half-hang-complete
  truncate.half-hang-odd-last truncate.half-hang-crlf truncate.half-hang-crlf-cr
  truncate.half-loop truncate.half-loop-long truncate.half-quicksort-nonl
  truncate.half-nontrunc-nonl truncate.half-nontrunc-half truncate.half-only
  truncate.half-big-loop PROPERTIES FIXTURES_REQUIRED tk_half_traces)

# Errors: a missing trace fails (exit 1) and leaves no -o file behind.
add_test(NAME truncate.missing-file
  COMMAND sh -c "mkdir -p ${TK_TRUNC_OUT} && rm -f ${TK_TRUNC_OUT}/missing.out; ${TK_BIN} truncate -o ${TK_TRUNC_OUT}/missing.out ${TK_TRUNC_OUT}/no-such-trace; rc=$?; test $rc -eq 1 && ! ls ${TK_TRUNC_OUT} | grep -q missing.out")
add_test(NAME truncate.bad-option COMMAND sh -c "${TK_BIN} truncate --no-such-option x; test $? -eq 2")
