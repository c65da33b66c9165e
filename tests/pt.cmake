# SPDX-License-Identifier: GPL-3.0-or-later
# Intel PT (issue 11): real PT made at test time.  Small x86-64 programs
# (tests/pt/progs) are recorded under ptrace single-stepping (ptrec), their
# PT synthesised with libipt's encoder in several variants (ptsynth) and
# wrapped as perf.data (ptperf); the decoded listings must equal the
# recordings and the call counts the programs' own counters.  Skipped
# (exit 77) where ptrace is refused.

set(TK_PT_SRC ${CMAKE_SOURCE_DIR}/tests/pt)
set(TK_PT_WORK ${CMAKE_BINARY_DIR}/tests/pt)
file(MAKE_DIRECTORY ${TK_PT_WORK})

add_executable(ptrec ${TK_PT_SRC}/ptrec.c)
target_link_libraries(ptrec PRIVATE PkgConfig::CAPSTONE)
add_executable(ptsynth ${TK_PT_SRC}/ptsynth.c)
target_include_directories(ptsynth PRIVATE ${LIBIPT_INCLUDE_DIR})
target_link_libraries(ptsynth PRIVATE ${LIBIPT_LIBRARY})
add_executable(ptperf ${TK_PT_SRC}/ptperf.c)
add_executable(test_pt ${TK_PT_SRC}/test_pt.c)
target_include_directories(test_pt PRIVATE ${LIBIPT_INCLUDE_DIR})
target_link_libraries(test_pt PRIVATE tracekit)
set_target_properties(ptrec ptsynth ptperf PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TK_PT_WORK}/tools)

# The test programs: always with the system gcc, never instrumented.
set(pt_prog_flags -O1 -g -fno-optimize-sibling-calls)
add_custom_command(OUTPUT ${TK_PT_WORK}/calls-static
  COMMAND gcc ${pt_prog_flags} -static -fno-pie -no-pie -o ${TK_PT_WORK}/calls-static ${TK_PT_SRC}/progs/calls.c
  DEPENDS ${TK_PT_SRC}/progs/calls.c VERBATIM)
add_custom_command(OUTPUT ${TK_PT_WORK}/calls-pie
  COMMAND gcc ${pt_prog_flags} -fpie -pie -Wl,-z,lazy -o ${TK_PT_WORK}/calls-pie ${TK_PT_SRC}/progs/calls.c
  DEPENDS ${TK_PT_SRC}/progs/calls.c VERBATIM)
add_custom_target(pt_test_programs ALL DEPENDS ${TK_PT_WORK}/calls-static ${TK_PT_WORK}/calls-pie)

add_test(NAME pt.generate COMMAND sh ${TK_PT_SRC}/gen.sh ${TK_PT_WORK}/tools ${TK_PT_WORK})
set_tests_properties(pt.generate PROPERTIES FIXTURES_SETUP pt_data SKIP_RETURN_CODE 77 TIMEOUT 300)

foreach(prog static pie)
  foreach(v base psb64 psb16 tnt64 noretcomp interrupts all)
    add_test(NAME pt.flow.${prog}.${v}
             COMMAND sh -c "'$<TARGET_FILE:test_pt>' flow ${prog}-${v}.pt ${prog}-${v}.lst ${prog}.counts $(cat ${prog}.images)"
             WORKING_DIRECTORY ${TK_PT_WORK})
    set_tests_properties(pt.flow.${prog}.${v} PROPERTIES FIXTURES_REQUIRED pt_data)
  endforeach()
  add_test(NAME pt.flow.${prog}.perf
           COMMAND $<TARGET_FILE:test_pt> flow ${prog}-psb64.data ${prog}-psb64.lst ${prog}.counts
           WORKING_DIRECTORY ${TK_PT_WORK})
  set_tests_properties(pt.flow.${prog}.perf PROPERTIES FIXTURES_REQUIRED pt_data)
endforeach()

add_test(NAME pt.packets COMMAND test_pt packets)
add_test(NAME pt.damage COMMAND sh -c "'$<TARGET_FILE:test_pt>' damage static-psb64.pt $(head -1 static.images)"
         WORKING_DIRECTORY ${TK_PT_WORK})
set_tests_properties(pt.damage PROPERTIES FIXTURES_REQUIRED pt_data)

foreach(case variants identical stat perf perf_script damage ptdump)
  add_test(NAME pt.cli.${case} COMMAND sh ${TK_PT_SRC}/cli.sh ${case})
  set_tests_properties(pt.cli.${case} PROPERTIES FIXTURES_REQUIRED pt_data SKIP_RETURN_CODE 77
    ENVIRONMENT "TK_BIN=${TK_BIN};TK_WORK=${TK_PT_WORK}" TIMEOUT 600)
endforeach()

# libFuzzer targets (clang builds): raw PT, raw PT as a source, and the
# perf.data reader.  The generated perf.data files name real binaries, so
# decoding is fuzzed too.
tk_add_fuzzer(NAME fuzz_pt SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_pt.c
              SEED_DIRS ${CMAKE_SOURCE_DIR}/fuzz/seeds/pt
              SEED_FILES ${TK_PT_WORK}/static-psb16.pt ${TK_PT_WORK}/pie-all.pt)
# Raw PT as a trace source: events one per instruction and as runs, through
# the call detector, checked against each other.
tk_add_fuzzer(NAME fuzz_pt_source SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_pt_source.c
              SEED_DIRS ${CMAKE_SOURCE_DIR}/fuzz/seeds/pt
              SEED_FILES ${TK_PT_WORK}/static-psb16.pt ${TK_PT_WORK}/pie-all.pt)
tk_add_fuzzer(NAME fuzz_perf SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_perf.c
              SEED_DIRS ${CMAKE_SOURCE_DIR}/fuzz/seeds/perf
              SEED_FILES ${TK_PT_WORK}/static-psb64.data ${TK_PT_WORK}/static-lost.data
                         ${TK_PT_WORK}/static-2cpu.data ${TK_PT_WORK}/pie-psb64.data)

# Intel PT as a trace source: calltree, profile, callinfo, flamegraph and
# the index on raw PT (--image) and perf.data (its own mappings).
foreach(case calltree reports formats gap index bad runs)
  add_test(NAME pt.source.${case} COMMAND sh ${TK_PT_SRC}/source.sh ${case})
  set_tests_properties(pt.source.${case} PROPERTIES FIXTURES_REQUIRED pt_data SKIP_RETURN_CODE 77
    ENVIRONMENT "TK_BIN=${TK_BIN};TK_WORK=${TK_PT_WORK}" TIMEOUT 300)
endforeach()

# A binary trace in the browsers: lines rendered from the index (tmux).
find_program(TK_TMUX tmux)
if(TK_TMUX)
  add_test(NAME pt.browse COMMAND bash ${TK_PT_SRC}/browse.sh)
  set_tests_properties(pt.browse PROPERTIES FIXTURES_REQUIRED pt_data SKIP_RETURN_CODE 77
    ENVIRONMENT "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_PT_WORK=${TK_PT_WORK}" TIMEOUT 300)
endif()
