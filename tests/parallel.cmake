# SPDX-License-Identifier: GPL-3.0-or-later
# Reading a trace in pieces on several threads (issue 9): the index is the
# one built reading the trace in order, byte for byte, for 1, 2 and 4
# threads and cuts anywhere (tests/parallel/test_pieces.c), on the shared
# traces, the hand-made corner cases and a recorded trace with semihosting.

add_executable(test_pieces ${CMAKE_SOURCE_DIR}/tests/parallel/test_pieces.c)
target_include_directories(test_pieces PRIVATE ${CMAKE_SOURCE_DIR}/lib)
target_link_libraries(test_pieces PRIVATE tracekit)

set(TK_PIECES_WORK ${CMAKE_CURRENT_BINARY_DIR}/pieces-tests)
file(MAKE_DIRECTORY ${TK_PIECES_WORK})

set(TK_PIECES_CASES
  "aarch64|${TK_TRACES}/calculator-aarch64-fastmodel.tarmac"
  "aarch32|${TK_TRACES}/calculator-aarch32-fastmodel.tarmac"
  "es-ld-st|${TK_TRACES}/calculator-aarch64-es-ld-st-style.tarmac"
  "quicksort|${TK_TRACES}/quicksort.tarmac"
  "indextest|${TK_TRACES}/indextest.tarmac"
  "calltest32|${TK_TRACES}/calltests/calltest32.tarmac"
  "calltest64|${TK_TRACES}/calltests/calltest64.tarmac"
  "crash32m|${TK_TRACES}/truncate/crash32m.tarmac"
  "parsertest|${TK_TRACES}/parsertest.txt"
  "parsertest-thumb|${TK_TRACES}/parsertest-implicit-thumb.txt|implicit-thumb"
  "multicpu|${CMAKE_SOURCE_DIR}/tests/calls/data/multicpu.tarmac"
  "cbnz-entry|${CMAKE_SOURCE_DIR}/tests/calls/data/cbnz-entry.tarmac"
  "malformed|${CMAKE_SOURCE_DIR}/tests/parser/data/malformed.tarmac"
  "crlf|${CMAKE_SOURCE_DIR}/tests/parser/data/crlf.tarmac"
  "nul-inside|${CMAKE_SOURCE_DIR}/tests/parser/data/nul-inside.tarmac"
  "no-newline|${CMAKE_SOURCE_DIR}/tests/parser/data/no-newline.tarmac"
  "truncated|${CMAKE_SOURCE_DIR}/tests/parser/data/truncated.tarmac"
  "endian-bi|${CMAKE_SOURCE_DIR}/tests/parser/data/endian.tarmac|bi"
  "mem-be|${CMAKE_SOURCE_DIR}/tests/index/mem-be.tarmac|bi"
  "mem-le|${CMAKE_SOURCE_DIR}/tests/index/mem-le.tarmac"
  "regs-a32|${CMAKE_SOURCE_DIR}/tests/index/regs-a32.tarmac"
  "regs-a64|${CMAKE_SOURCE_DIR}/tests/index/regs-a64.tarmac"
  "semihost-a32|${CMAKE_SOURCE_DIR}/tests/index/semihost-a32.tarmac"
  "semihost-a64|${CMAKE_SOURCE_DIR}/tests/index/semihost-a64.tarmac")
foreach(case ${TK_PIECES_CASES})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 file)
  set(opts "")
  list(LENGTH parts nparts)
  if(nparts GREATER 2)
    list(SUBLIST parts 2 -1 opts)
  endif()
  file(MAKE_DIRECTORY ${TK_PIECES_WORK}/${name})
  add_test(NAME parallel.index.${name}
           COMMAND test_pieces ${file} ${TK_PIECES_WORK}/${name} ${opts})
endforeach()

# A longer trace: several automatic pieces, blocks across cuts.
add_test(NAME parallel.index.big
         COMMAND sh -c "'${TK_SHARED_DIR}/bench/make-big-trace' 6 > '${TK_PIECES_WORK}/big.tarmac' && '$<TARGET_FILE:test_pieces>' '${TK_PIECES_WORK}/big.tarmac' '${TK_PIECES_WORK}'")
