# SPDX-License-Identifier: GPL-3.0-or-later
# The core: instruction encodings, event copies, the format registry, seeking.
add_executable(test_core ${CMAKE_SOURCE_DIR}/tests/core/test_core.c)
target_link_libraries(test_core PRIVATE tracekit)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/core-tests)
add_test(NAME core.unit COMMAND test_core ${TK_TRACES} ${CMAKE_BINARY_DIR}/core-tests)

# The vector byte scans agree with the scalar ones (issue 9).
add_executable(test_simd ${CMAKE_SOURCE_DIR}/tests/core/test_simd.c)
target_include_directories(test_simd PRIVATE ${CMAKE_SOURCE_DIR}/lib)
target_link_libraries(test_simd PRIVATE tracekit)
add_test(NAME core.simd COMMAND test_simd)
