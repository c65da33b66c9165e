# SPDX-License-Identifier: GPL-3.0-or-later
# Build a seed corpus from the lines of the Tarmac corpus files (one file
# per line), then run the libFuzzer target for a bounded time.
#   cmake -DFUZZER=exe -DSEEDS="a.txt|b.txt" -DWORK=dir -DDICT=file -DSECONDS=20 -P run_fuzz.cmake
string(REPLACE "|" ";" seeds "${SEEDS}")
set(corpus ${WORK}/corpus)
file(MAKE_DIRECTORY ${corpus} ${WORK}/artifacts)
set(i 0)
foreach(f ${seeds})
  file(STRINGS ${f} lines)
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^#" AND NOT line STREQUAL "")
      math(EXPR i "${i} + 1")
      file(WRITE ${corpus}/seed-${i} "${line}\n")
    endif()
  endforeach()
endforeach()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=1024
                        -max_len=4096 -dict=${DICT} -artifact_prefix=${WORK}/artifacts/
                        -print_final_stats=1 ${corpus}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a problem (exit ${rc}); see ${WORK}/artifacts")
endif()
