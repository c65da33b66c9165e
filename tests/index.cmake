# SPDX-License-Identifier: GPL-3.0-or-later
# The trace index (issue 3): the API on hand-made traces whose state at every
# line is known (tests/index/*.tarmac), on the shared traces, and on a
# synthetic source with 64-bit lines and offsets (tests/index/test_index.c);
# `tracekit index` / `tracekit dump` end to end (tests/index/dump.sh); the
# index life cycle (tests/index/lifecycle.sh).

add_executable(test_index ${CMAKE_SOURCE_DIR}/tests/index/test_index.c)
target_include_directories(test_index PRIVATE ${CMAKE_SOURCE_DIR}/lib)
target_link_libraries(test_index PRIVATE tracekit)

set(TK_INDEX_WORK ${CMAKE_CURRENT_BINARY_DIR}/index-tests)
file(MAKE_DIRECTORY ${TK_INDEX_WORK})

foreach(case regs mem semihost indextest quicksort consistency synthetic stale)
  add_test(NAME index.${case}
           COMMAND test_index ${case} ${CMAKE_SOURCE_DIR}/tests/index ${TK_TRACES} ${TK_INDEX_WORK})
endforeach()

# The same tests with tiny buffers, so that every spill to a temporary file
# and the merge of many sorted runs are exercised.
file(GLOB_RECURSE TK_INDEX_LIB_SOURCES ${CMAKE_SOURCE_DIR}/lib/*.c)
add_executable(test_index_smallbuf ${CMAKE_SOURCE_DIR}/tests/index/test_index.c ${TK_INDEX_LIB_SOURCES})
target_compile_definitions(test_index_smallbuf PRIVATE TK_IDX_SMALL_BUFFERS=1)
target_include_directories(test_index_smallbuf PRIVATE ${CMAKE_SOURCE_DIR}/lib ${CMAKE_SOURCE_DIR}/include
                           ${LIBIPT_INCLUDE_DIR})
# Intel PT is a registered format: its decoder links libipt and capstone.
target_link_libraries(test_index_smallbuf PRIVATE ${LIBIPT_LIBRARY} PkgConfig::CAPSTONE Threads::Threads)
target_link_libraries(test_index_smallbuf PRIVATE PkgConfig::LIBELF PkgConfig::LIBDW m pthread
                      ZLIB::ZLIB PkgConfig::ZSTD PkgConfig::LZMA)
if(ZLIB_FOUND)
  target_link_libraries(test_index_smallbuf PRIVATE ZLIB::ZLIB)
  target_compile_definitions(test_index_smallbuf PRIVATE TK_HAVE_ZLIB=1)
endif()
foreach(case mem semihost quicksort consistency synthetic)
  add_test(NAME index.smallbuf.${case}
           COMMAND test_index_smallbuf ${case} ${CMAKE_SOURCE_DIR}/tests/index ${TK_TRACES} ${TK_INDEX_WORK}/smallbuf)
endforeach()
file(MAKE_DIRECTORY ${TK_INDEX_WORK}/smallbuf)

# A trace big enough to be read on a second thread while indexing.
add_test(NAME index.consistency-big
         COMMAND sh -c "'${TK_SHARED_DIR}/bench/make-big-trace' 12 > '${TK_INDEX_WORK}/big.tarmac' && '$<TARGET_FILE:test_index>' consistency-big '${CMAKE_SOURCE_DIR}/tests/index' '${TK_INDEX_WORK}' '${TK_INDEX_WORK}'")

foreach(case summary dump regs mem history ranges semihost quicksort calls)
  add_test(NAME index.cli.${case}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/index/dump.sh ${case})
  set_tests_properties(index.cli.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_TESTS=${CMAKE_SOURCE_DIR}/tests/index;TK_WORK=${TK_INDEX_WORK}/cli-${case}")
endforeach()

foreach(case reuse stale replaced corrupt truncated version options no-index only-index force
             index-path atomic concurrent)
  add_test(NAME index.lifecycle.${case}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/index/lifecycle.sh ${case})
  set_tests_properties(index.lifecycle.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_SHARED_DIR=${TK_SHARED_DIR};TK_WORK=${TK_INDEX_WORK}/life-${case}")
endforeach()

# The benchmark program (bench/index-bench.sh drives it): not a test.
add_executable(index_bench ${CMAKE_SOURCE_DIR}/bench/index_bench.c)
target_link_libraries(index_bench PRIVATE tracekit)
