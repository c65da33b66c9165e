# SPDX-License-Identifier: GPL-3.0-or-later
# Call detection and the report tools (calltree, callinfo, profile,
# flamegraph): unit tests of the heuristic on synthetic event streams, and
# end-to-end tests on the shared real traces (tests/calls/e2e.sh, whose
# comments say how each expected value was read from the trace).

add_executable(test_calls ${CMAKE_SOURCE_DIR}/tests/calls/test_calls.c)
target_link_libraries(test_calls PRIVATE tracekit)
add_test(NAME calls.unit COMMAND test_calls)

# The folded-stacks writer of tracekit flamegraph, against building and
# sorting every line (and a million-deep chain on a small thread stack).
add_executable(test_folded ${CMAKE_SOURCE_DIR}/tests/calls/test_folded.c
               ${CMAKE_SOURCE_DIR}/tools/commands/flamegraph_folded.c)
target_include_directories(test_folded PRIVATE ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(test_folded PRIVATE tracekit pthread)
add_test(NAME calls.folded COMMAND test_folded)
# The call spill against the tree in memory; again with tiny buffers.
add_executable(test_callspill ${CMAKE_SOURCE_DIR}/tests/calls/test_callspill.c)
target_link_libraries(test_callspill PRIVATE tracekit)
add_test(NAME calls.spill COMMAND test_callspill)
add_executable(test_callspill_small ${CMAKE_SOURCE_DIR}/tests/calls/test_callspill.c
               ${CMAKE_SOURCE_DIR}/lib/calls/callspill.c)
target_compile_definitions(test_callspill_small PRIVATE TK_IDX_SMALL_BUFFERS=1)
target_include_directories(test_callspill_small PRIVATE ${CMAKE_SOURCE_DIR}/lib
                           ${CMAKE_SOURCE_DIR}/lib/calls)
target_link_libraries(test_callspill_small PRIVATE tracekit)
add_test(NAME calls.spill.smallbuf COMMAND test_callspill_small)

foreach(case calltree32 calltree64 seed_example quicksort callinfo profile
             flamegraph aliases debug aarch32_w_regs cbnz_entry deep_recursion demangle multicpu
             flamegraph_oom_output flamegraph_svg_control_chars offsets)
  add_test(NAME calls.${case}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/calls/e2e.sh ${case})
  set_tests_properties(calls.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_WORK=${CMAKE_CURRENT_BINARY_DIR}")
endforeach()
# Runs of instructions against the same instructions one by one.
add_executable(test_calls_runs ${CMAKE_SOURCE_DIR}/tests/calls/test_runs.c)
target_include_directories(test_calls_runs PRIVATE ${CMAKE_SOURCE_DIR}/lib/calls)
target_link_libraries(test_calls_runs PRIVATE tracekit)
add_test(NAME calls.runs COMMAND test_calls_runs)
