# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit vcd: the VCD writer's exact output (tests/vcd/test_vcd_writer.c),
# then dumps of the shared traces checked against the IEEE 1364 VCD grammar
# by tests/vcd/vcdcheck.py, with values at hand-verified times
# (tests/vcd/*.expect quote the trace lines), loaded by GTKWave's vcd2fst
# when it is installed, deterministic with --no-date.

add_executable(test_vcd_writer ${CMAKE_SOURCE_DIR}/tests/vcd/test_vcd_writer.c)
target_link_libraries(test_vcd_writer PRIVATE tracekit)
add_test(NAME vcd.writer COMMAND test_vcd_writer)

find_program(TK_PYTHON3 python3)
find_program(TK_VCD2FST vcd2fst)
find_program(TK_FST2VCD fst2vcd)
set(TK_VCD_DIR ${CMAKE_SOURCE_DIR}/tests/vcd)
set(TK_VCD_OUT ${CMAKE_BINARY_DIR}/tests-out/vcd)

if(TK_PYTHON3)
  set(gtkwave --)
  if(TK_VCD2FST AND TK_FST2VCD)
    set(gtkwave ${TK_VCD2FST} ${TK_FST2VCD} --)
  else()
    message(STATUS "vcd2fst/fst2vcd (Debian package gtkwave) not found: "
                   "the vcd tests will not check that GTKWave loads the dumps")
  endif()
  function(tk_vcd_test name expect nvars)
    add_test(NAME vcd.${name}
      COMMAND sh ${TK_VCD_DIR}/vcd-test.sh ${TK_BIN} ${TK_PYTHON3} ${TK_VCD_OUT} ${name}
              ${TK_VCD_DIR}/${expect} ${nvars} ${gtkwave} ${ARGN})
  endfunction()

  # AArch64, Arm's signals: 31 x + xsp + psr + 32 d + 32 s + Cycle,
  # Function, Inst, InstAsm, InstExecuted, PC, MemRW, MemAddr, MemData (9)
  # = 106, then tracekit's MemSize, fpsr, fpcr = 109.
  tk_vcd_test(calculator-aarch64 calculator-aarch64.expect 109
    --image ${TK_TRACES}/calculator-aarch64.elf ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac)
  # AArch32: 15 r + psr + 16 d + 32 s + 9 = 73, then MemSize, fpscr = 75.
  tk_vcd_test(calculator-aarch32 calculator-aarch32.expect 75
    --image ${TK_TRACES}/calculator-aarch32.elf ${TK_TRACES}/calculator-aarch32-fastmodel.tarmac)
  tk_vcd_test(es-timestamps es-timestamps.expect 109
    --use-tarmac-timestamps ${TK_TRACES}/calculator-aarch64-es-ld-st-style.tarmac)

  # d and s registers as views of the vector registers.
  tk_vcd_test(fpviews-a64 fpviews-a64.expect 109 ${TK_VCD_DIR}/data/fpviews-a64.tarmac)
  tk_vcd_test(fpviews-a32 fpviews-a32.expect 75 ${TK_VCD_DIR}/data/fpviews-a32.tarmac)

  # A stalled clock: more instructions at one timestamp than sub-steps
  # (tests/vcd/make-crowded-trace.py says what is expected where).
  add_test(NAME vcd.crowded-timestamps-trace
    COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && ${TK_PYTHON3} ${TK_VCD_DIR}/make-crowded-trace.py > ${TK_VCD_OUT}/crowded.tarmac")
  set_tests_properties(vcd.crowded-timestamps-trace PROPERTIES FIXTURES_SETUP tk_vcd_crowded)
  tk_vcd_test(crowded-timestamps crowded-timestamps.expect 75
    --use-tarmac-timestamps ${TK_VCD_OUT}/crowded.tarmac)
  set_tests_properties(vcd.crowded-timestamps PROPERTIES FIXTURES_REQUIRED tk_vcd_crowded)

  # Every shared trace gives a valid dump (structure only).
  file(GLOB tk_vcd_traces ${TK_TRACES}/*.tarmac ${TK_TRACES}/*.txt
                          ${TK_TRACES}/truncate/*.tarmac ${TK_TRACES}/calltests/*.tarmac)
  foreach(trace ${tk_vcd_traces})
    get_filename_component(base ${trace} NAME_WE)
    add_test(NAME vcd.valid.${base}
      COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && ${TK_BIN} vcd --no-date -o ${TK_VCD_OUT}/valid-${base}.vcd ${trace} && ${TK_PYTHON3} ${TK_VCD_DIR}/vcdcheck.py --no-date ${TK_VCD_OUT}/valid-${base}.vcd")
  endforeach()

  # The checker itself rejects broken dumps.
  file(GLOB tk_vcd_bad ${TK_VCD_DIR}/bad/*.vcd)
  foreach(bad ${tk_vcd_bad})
    get_filename_component(base ${bad} NAME_WE)
    add_test(NAME vcd.checker-rejects.${base} COMMAND ${TK_PYTHON3} ${TK_VCD_DIR}/vcdcheck.py ${bad})
    set_tests_properties(vcd.checker-rejects.${base} PROPERTIES WILL_FAIL TRUE)
  endforeach()
endif()

# The signals of Arm's tarmac-vcd, exactly (tests/vcd/arm-signals-*.txt),
# on an AArch64 trace, the quicksort trace (AArch64 with X register lines
# at reset) and an AArch32 one; and TRACE.vcd as the default output.
add_test(NAME vcd.arm-signals-a64 COMMAND sh ${TK_VCD_DIR}/arm-signals.sh ${TK_BIN} ${TK_VCD_OUT}/arm-a64
  ${TK_VCD_DIR}/arm-signals-a64.txt ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac
  --image ${TK_TRACES}/calculator-aarch64.elf)
add_test(NAME vcd.arm-signals-quicksort COMMAND sh ${TK_VCD_DIR}/arm-signals.sh ${TK_BIN} ${TK_VCD_OUT}/arm-qs
  ${TK_VCD_DIR}/arm-signals-a64.txt ${TK_TRACES}/quicksort.tarmac)
add_test(NAME vcd.arm-signals-a32 COMMAND sh ${TK_VCD_DIR}/arm-signals.sh ${TK_BIN} ${TK_VCD_OUT}/arm-a32
  ${TK_VCD_DIR}/arm-signals-a32.txt ${TK_TRACES}/calculator-aarch32-fastmodel.tarmac)

# --no-date: two runs (stdout, and -o through the tarmac-vcd alias) give
# identical bytes; without it there is a $date section.
set(tk_calc ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac)
get_filename_component(tk_bindir ${TK_BIN} DIRECTORY)
add_test(NAME vcd.deterministic
  COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && ${TK_BIN} vcd --no-date -o - ${tk_calc} > ${TK_VCD_OUT}/det1.vcd && ${tk_bindir}/tarmac-vcd --no-date -o ${TK_VCD_OUT}/det2.vcd ${tk_calc} && cmp ${TK_VCD_OUT}/det1.vcd ${TK_VCD_OUT}/det2.vcd && ! grep -q '[$]date' ${TK_VCD_OUT}/det1.vcd && ${TK_BIN} vcd -o - ${tk_calc} | head -3 | grep -q '^[$]date'")
# Errors: a missing trace exits 1 and leaves no -o file; a bad option exits 2.
add_test(NAME vcd.missing-file
  COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && rm -f ${TK_VCD_OUT}/missing.vcd; ${TK_BIN} vcd -o ${TK_VCD_OUT}/missing.vcd ${TK_VCD_OUT}/no-such-trace; rc=$?; test $rc -eq 1 && ! ls ${TK_VCD_OUT} | grep -q missing.vcd")
add_test(NAME vcd.bad-option COMMAND sh -c "${TK_BIN} vcd --no-such-option x; test $? -eq 2")
