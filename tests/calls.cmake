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

foreach(case calltree32 calltree64 seed_example quicksort callinfo profile
             flamegraph aliases debug aarch32_w_regs cbnz_entry deep_recursion demangle multicpu
             flamegraph_oom_output flamegraph_svg_control_chars offsets)
  add_test(NAME calls.${case}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/calls/e2e.sh ${case})
  set_tests_properties(calls.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_WORK=${CMAKE_CURRENT_BINARY_DIR}")
endforeach()
