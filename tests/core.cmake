# SPDX-License-Identifier: GPL-3.0-or-later
# The core: instruction encodings, event copies, the format registry, seeking.
add_executable(test_core ${CMAKE_SOURCE_DIR}/tests/core/test_core.c)
target_link_libraries(test_core PRIVATE tracekit)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/core-tests)
add_test(NAME core.unit COMMAND test_core ${TK_TRACES} ${CMAKE_BINARY_DIR}/core-tests)
