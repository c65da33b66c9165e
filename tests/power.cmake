# SPDX-License-Identifier: GPL-3.0-or-later
# POWER: Qtrace files, Core HTM dumps, htm2qt / qtdis / qtwrite.
#
#   power.ppc, power.qtrace, power.htm   unit tests (instruction classes and
#        disassembly; Qtrace writer bytes and reader corner cases, cut at
#        every byte; the HTM decoder on the 11 public dumps, hand-made
#        POWER8/POWER10 dumps, cuts, random words, compressed dumps, the
#        encoders)
#   power.cli.*     the commands on the public dumps: listings, -d lines,
#        Qtrace sizes, options and messages (tests/power/cli.sh)
#   power.prog.*    round trips on real ppc64le programs recorded under
#        qemu-ppc64le: stream -> qtwrite -> qtdis -r, stream -> qtwrite
#        --htm (POWER10, POWER8 with and without IEA/IRA words) -> htm2qt ->
#        the same, and the call counts the program implies
#        (tests/power/roundtrip.sh; skipped without the cross compiler or
#        qemu)
set(TK_POWER_SRC ${CMAKE_SOURCE_DIR}/tests/power)
set(TK_POWER_DIR ${CMAKE_BINARY_DIR}/tests/power)
set(TK_HTM_DUMPS ${TK_SHARED_DIR}/traces/htm)
file(MAKE_DIRECTORY ${TK_POWER_DIR})

add_executable(power_bench ${CMAKE_SOURCE_DIR}/bench/power_bench.c)
target_link_libraries(power_bench PRIVATE tracekit)
foreach(t ppc qtrace power source)
  add_executable(test_power_${t} ${TK_POWER_SRC}/test_${t}.c)
  target_link_libraries(test_power_${t} PRIVATE tracekit)
endforeach()
add_test(NAME power.ppc COMMAND test_power_ppc)
add_test(NAME power.qtrace COMMAND test_power_qtrace)
# the qtrace and htm trace sources on the public dumps (and, in the
# power.prog.*.sources tests, on the recorded program's files)
add_test(NAME power.source COMMAND test_power_source ${TK_HTM_DUMPS})
# (the HTM unit test compresses dumps itself: it needs the three codecs)
if(ZLIB_FOUND AND ZSTD_FOUND AND LZMA_FOUND)
  add_executable(test_power_htm ${TK_POWER_SRC}/test_htm.c)
  target_link_libraries(test_power_htm PRIVATE tracekit ZLIB::ZLIB PkgConfig::ZSTD PkgConfig::LZMA)
  add_test(NAME power.htm COMMAND test_power_htm ${TK_HTM_DUMPS})
endif()

foreach(case listings insn_lines qt_bytes htm2qt_options qtdis_options reports damaged compressed)
  add_test(NAME power.cli.${case} COMMAND sh ${TK_POWER_SRC}/cli.sh ${case})
  set_tests_properties(power.cli.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_DUMPS=${TK_HTM_DUMPS};TK_EXPECTED=${TK_POWER_SRC}/expected;TK_WORK=${TK_POWER_DIR}")
endforeach()

# Test programs: built for POWER8 (TOC, ELFv2 local entry points) and
# POWER10 (prefixed, PC-relative), recorded with qemu, turned into streams.
find_program(TK_PPC64LE_GCC powerpc64le-linux-gnu-gcc)
find_program(TK_QEMU_PPC64LE qemu-ppc64le)
add_executable(qemu2stream ${TK_POWER_SRC}/qemu2stream.c)
target_link_libraries(qemu2stream PRIVATE PkgConfig::LIBELF)
if(TK_PPC64LE_GCC AND TK_QEMU_PPC64LE)
  set(power_streams)
  foreach(cpu power8 power10)
    set(elf ${TK_POWER_DIR}/calls-${cpu}.elf)
    set(stream ${TK_POWER_DIR}/calls-${cpu}.stream)
    add_custom_command(OUTPUT ${elf}
      COMMAND ${TK_PPC64LE_GCC} -O1 -g -mcpu=${cpu} -static -nostdlib -fno-inline
              -fno-optimize-sibling-calls -Wl,--build-id=none -o ${elf}
              ${TK_POWER_SRC}/prog/start.S ${TK_POWER_SRC}/prog/calls.c
      DEPENDS ${TK_POWER_SRC}/prog/start.S ${TK_POWER_SRC}/prog/calls.c
      COMMENT "ppc64le test program (${cpu})")
    add_custom_command(OUTPUT ${stream}
      COMMAND sh ${TK_POWER_SRC}/record.sh ${TK_QEMU_PPC64LE} ${cpu} ${elf}
              $<TARGET_FILE:qemu2stream> ${stream}
      DEPENDS ${elf} qemu2stream ${TK_POWER_SRC}/record.sh
      COMMENT "recording the ${cpu} test program under qemu-ppc64le" VERBATIM)
    list(APPEND power_streams ${stream})
  endforeach()
  add_custom_target(power_streams ALL DEPENDS ${power_streams})
  # Seeds for the fuzzers: short Qtrace files and dumps of the recording.
  set(seeds ${TK_POWER_DIR}/seeds)
  add_custom_command(OUTPUT ${seeds}/calls.qt ${seeds}/calls-p10.htm ${seeds}/calls-p8.htm
    COMMAND ${CMAKE_COMMAND} -E make_directory ${seeds}
    COMMAND sh -c "head -n 400 '${TK_POWER_DIR}/calls-power10.stream' > '${seeds}/calls.stream'"
    COMMAND ${TK_BIN} qtwrite -o ${seeds}/calls.qt ${seeds}/calls.stream
    COMMAND ${TK_BIN} qtwrite --htm -o ${seeds}/calls-p10.htm ${seeds}/calls.stream
    COMMAND sh -c "head -n 400 '${TK_POWER_DIR}/calls-power8.stream' > '${seeds}/calls8.stream'"
    COMMAND ${TK_BIN} qtwrite --htm=power8 -o ${seeds}/calls-p8.htm ${seeds}/calls8.stream
    COMMAND ${CMAKE_COMMAND} -E remove ${seeds}/calls.stream ${seeds}/calls8.stream
    DEPENDS power_streams tracekit_cli
    COMMENT "fuzzer seeds from the POWER test programs" VERBATIM)
  add_custom_target(power_seeds ALL DEPENDS ${seeds}/calls.qt)
  # The browsers on a Qtrace file and an HTM dump (serve's API).
  add_test(NAME power.browse COMMAND sh ${TK_POWER_SRC}/browse.sh ${TK_BIN} ${seeds})
  set_tests_properties(power.browse PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)

  add_executable(test_power_symbols ${TK_POWER_SRC}/test_symbols.c)
  target_link_libraries(test_power_symbols PRIVATE tracekit)
  add_test(NAME power.symbols COMMAND test_power_symbols
           ${TK_POWER_DIR}/calls-power8.elf ${TK_POWER_DIR}/calls-power10.elf)
  foreach(cpu power8 power10)
    foreach(case qtwrite htm-power10 htm-power8 htm-power8-full calls sources)
      if(cpu STREQUAL "power10" AND case MATCHES "htm-power8")
        continue()	# prefixed instructions have no POWER8 form
      endif()
      add_test(NAME power.prog.${cpu}.${case}
               COMMAND sh ${TK_POWER_SRC}/roundtrip.sh ${case} ${TK_POWER_DIR}/calls-${cpu})
      set_tests_properties(power.prog.${cpu}.${case} PROPERTIES ENVIRONMENT
        "TK_BIN=${TK_BIN};TK_POWER_TEST=$<TARGET_FILE:test_power_power>;TK_POWER_SOURCE_TEST=$<TARGET_FILE:test_power_source>;TK_DUMPS=${TK_HTM_DUMPS}")
    endforeach()
  endforeach()
else()
  message(STATUS "powerpc64le-linux-gnu-gcc or qemu-ppc64le missing: POWER round-trip tests skipped")
endif()

tk_add_fuzzer(NAME fuzz_qtrace SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_qtrace.c
              SEED_DIRS ${TK_POWER_DIR}/seeds SEED_FILES ${TK_POWER_SRC}/data/corner.qt)
tk_add_fuzzer(NAME fuzz_htm SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_htm.c
              SEED_DIRS ${TK_HTM_DUMPS} ${TK_POWER_DIR}/seeds)
