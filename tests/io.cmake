# SPDX-License-Identifier: GPL-3.0-or-later
# The input layer (compressed traces): unit tests on data compressed by
# gzip, zstd and xz in the test build (tests/io/test_input.c), damaged
# files and checkpoint files (tests/io/test_damage.c), the seekable zstd
# writer (tests/io/test_seekable.c); every tool on compressed copies of the
# shared traces (tests/io/compressed.sh).

set(TK_IO_WORK ${CMAKE_CURRENT_BINARY_DIR}/io-tests)
file(MAKE_DIRECTORY ${TK_IO_WORK})

foreach(prog test_input test_damage test_seekable)
  add_executable(${prog} ${CMAKE_SOURCE_DIR}/tests/io/${prog}.c)
  target_include_directories(${prog} PRIVATE ${CMAKE_SOURCE_DIR}/lib)
  target_link_libraries(${prog} PRIVATE tracekit)
endforeach()
target_link_libraries(test_seekable PRIVATE PkgConfig::ZSTD)

foreach(case roundtrip record stream detect)
  add_test(NAME io.${case} COMMAND test_input ${case} ${TK_IO_WORK}/${case})
endforeach()
foreach(case truncated corrupt checkpoints)
  add_test(NAME io.damage.${case} COMMAND test_damage ${case} ${TK_IO_WORK}/damage-${case})
endforeach()
foreach(case xxh64 writer)
  add_test(NAME io.seekable.${case} COMMAND test_seekable ${case} ${TK_IO_WORK}/seekable-${case})
endforeach()

foreach(variant gz gz-cat zst seek xz)
  add_test(NAME io.tools.${variant} COMMAND sh ${CMAKE_SOURCE_DIR}/tests/io/compressed.sh ${variant})
  set_tests_properties(io.tools.${variant} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_WORK=${TK_IO_WORK}/tools-${variant}")
endforeach()

# The decompressing reader, the seek table and checkpoint file parsers.
tk_add_fuzzer(NAME fuzz_input SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_input.c
              SEED_DIRS ${CMAKE_SOURCE_DIR}/fuzz/input-seeds SECONDS 30)

# The jump benchmark program (bench/compress-bench.sh drives it): not a test.
add_executable(jump_bench ${CMAKE_SOURCE_DIR}/bench/jump_bench.c)
target_link_libraries(jump_bench PRIVATE tracekit)

# The browser's screens on compressed traces (tmux, like tests/browse).
if(CURSES_FOUND AND TK_TMUX)
  add_test(NAME io.browse COMMAND bash ${CMAKE_SOURCE_DIR}/tests/io/browse-compressed.sh)
  set_tests_properties(io.browse PROPERTIES
    ENVIRONMENT "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES}" TIMEOUT 300)
endif()
