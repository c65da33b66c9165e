# SPDX-License-Identifier: GPL-3.0-or-later
# Output files and index paths (issue 15): every command that writes a file
# follows links, writes fifos and devices directly, keeps modes, refuses
# directories, read-only files and its own inputs, and leaves no temporary
# file after a failure or a signal (tests/files/outputs.sh).

set(TK_FILES_WORK ${CMAKE_BINARY_DIR}/tests-out/files)
# A program the record case can run (built by tests/record.cmake when a
# cross compiler is there; the case is skipped otherwise).
set(TK_FILES_REC_ELF ${CMAKE_BINARY_DIR}/tests/record/quicksort-a32.elf)
foreach(case vcd flamegraph truncate record stdout-input failure signal index-path index-full-disk)
  add_test(NAME files.output.${case}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/files/outputs.sh ${case})
  set_tests_properties(files.output.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_WORK=${TK_FILES_WORK};TK_REC_ELF=${TK_FILES_REC_ELF}")
endforeach()
