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

  # AArch64: 5 cpu + 31 x + sp + cpsr + 32 v + fpsr + fpcr + 4 bus = 76.
  tk_vcd_test(calculator-aarch64 calculator-aarch64.expect 76
    --image ${TK_TRACES}/calculator-aarch64.elf ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac)
  # AArch32: 5 cpu + 16 r + cpsr + 16 q + fpscr + 4 bus = 43.
  tk_vcd_test(calculator-aarch32 calculator-aarch32.expect 43
    --image ${TK_TRACES}/calculator-aarch32.elf ${TK_TRACES}/calculator-aarch32-fastmodel.tarmac)
  tk_vcd_test(es-timestamps es-timestamps.expect 76
    --use-tarmac-timestamps ${TK_TRACES}/calculator-aarch64-es-ld-st-style.tarmac)

  # A stalled clock: more instructions at one timestamp than sub-steps
  # (tests/vcd/make-crowded-trace.py says what is expected where).
  add_test(NAME vcd.crowded-timestamps-trace
    COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && ${TK_PYTHON3} ${TK_VCD_DIR}/make-crowded-trace.py > ${TK_VCD_OUT}/crowded.tarmac")
  set_tests_properties(vcd.crowded-timestamps-trace PROPERTIES FIXTURES_SETUP tk_vcd_crowded)
  tk_vcd_test(crowded-timestamps crowded-timestamps.expect 43
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

# --no-date: two runs (stdout, and -o through the tarmac-vcd alias) give
# identical bytes; without it there is a $date section.
set(tk_calc ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac)
get_filename_component(tk_bindir ${TK_BIN} DIRECTORY)
add_test(NAME vcd.deterministic
  COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && ${TK_BIN} vcd --no-date ${tk_calc} > ${TK_VCD_OUT}/det1.vcd && ${tk_bindir}/tarmac-vcd --no-date -o ${TK_VCD_OUT}/det2.vcd ${tk_calc} && cmp ${TK_VCD_OUT}/det1.vcd ${TK_VCD_OUT}/det2.vcd && ! grep -q '[$]date' ${TK_VCD_OUT}/det1.vcd && ${TK_BIN} vcd ${tk_calc} | head -3 | grep -q '^[$]date'")
# Errors: a missing trace exits 1 and leaves no -o file; a bad option exits 2.
add_test(NAME vcd.missing-file
  COMMAND sh -c "mkdir -p ${TK_VCD_OUT} && rm -f ${TK_VCD_OUT}/missing.vcd; ${TK_BIN} vcd -o ${TK_VCD_OUT}/missing.vcd ${TK_VCD_OUT}/no-such-trace; rc=$?; test $rc -eq 1 && ! ls ${TK_VCD_OUT} | grep -q missing.vcd")
add_test(NAME vcd.bad-option COMMAND sh -c "${TK_BIN} vcd --no-such-option x; test $? -eq 2")
