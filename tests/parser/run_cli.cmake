# SPDX-License-Identifier: GPL-3.0-or-later
# Run a tracekit command and check what it did.  Used by tests/parser.cmake:
#   cmake -DBIN=tracekit -DARGS="parse|--count|FILE" [-DSTDIN=FILE]
#         [-DEXPECTED=FILE] [-DEXIT=N] [-DSTDERR_EMPTY=1]
#         [-DSTDERR_MATCH=regex] [-DSTDOUT_MATCH=regex] -P run_cli.cmake
# ARGS is '|'-separated.  EXPECTED: stdout must equal that file.  EXIT
# defaults to 0.
string(REPLACE "|" ";" args "${ARGS}")
set(extra)
if(DEFINED STDIN)
  list(APPEND extra INPUT_FILE ${STDIN})
endif()
execute_process(COMMAND ${BIN} ${args} ${extra}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 120)
if(NOT DEFINED EXIT)
  set(EXIT 0)
endif()
set(fail "")
if(NOT "${rc}" STREQUAL "${EXIT}")
  string(APPEND fail "exit status ${rc}, expected ${EXIT}\n")
endif()
if(STDERR_EMPTY AND NOT "${err}" STREQUAL "")
  string(APPEND fail "unexpected messages on stderr\n")
endif()
if(DEFINED STDERR_MATCH AND NOT "${err}" MATCHES "${STDERR_MATCH}")
  string(APPEND fail "stderr does not match: ${STDERR_MATCH}\n")
endif()
if(DEFINED STDOUT_MATCH AND NOT "${out}" MATCHES "${STDOUT_MATCH}")
  string(APPEND fail "stdout does not match: ${STDOUT_MATCH}\n")
endif()
if(DEFINED EXPECTED)
  file(READ ${EXPECTED} want)
  if(NOT "${out}" STREQUAL "${want}")
    get_filename_component(name ${EXPECTED} NAME)
    set(got_file ${CMAKE_CURRENT_BINARY_DIR}/${name}.got)
    file(WRITE ${got_file} "${out}")
    execute_process(COMMAND diff -u ${EXPECTED} ${got_file} OUTPUT_VARIABLE d)
    string(SUBSTRING "${d}" 0 6000 d)
    string(APPEND fail "stdout differs from ${EXPECTED} (got: ${got_file}):\n${d}\n")
  endif()
endif()
if(fail)
  message(FATAL_ERROR "${BIN} ${args}\n${fail}stderr:\n${err}")
endif()
