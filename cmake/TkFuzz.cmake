# SPDX-License-Identifier: GPL-3.0-or-later
# libFuzzer targets (clang only).  Every binary reader gets one:
#
#   tk_add_fuzzer(NAME fuzz_x SOURCE fuzz/fuzz_x.c
#                 [SEED_DIRS dir...] [SEED_FILES file...] [DICT file]
#                 [SECONDS n] [MAX_LEN n] [LIBS lib...])
#
# builds fuzz/fuzz_x.c against the whole library compiled with the fuzzer's
# coverage instrumentation (the target tk_fuzzlib), and adds the ctest
# fuzz.x that runs it for SECONDS (default 20) on a corpus made of the seed
# files and the files of the seed directories.  A crash, leak or timeout
# fails the test and leaves the input in <build>/fuzz-work/x/artifacts.
set(TK_FUZZ_ENABLED OFF)
if(TK_FUZZ OR CMAKE_C_COMPILER_ID MATCHES "Clang")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
  check_c_source_compiles("
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }"
    TK_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(TK_HAVE_LIBFUZZER)
    set(TK_FUZZ_ENABLED ON)
  elseif(TK_FUZZ)
    message(WARNING "TK_FUZZ: ${CMAKE_C_COMPILER} cannot link -fsanitize=fuzzer (install libclang-rt-dev); no fuzz targets")
  endif()
endif()

function(tk_fuzzlib_setup)
  if(TARGET tk_fuzzlib)
    return()
  endif()
  get_target_property(srcs tracekit SOURCES)
  add_library(tk_fuzzlib STATIC ${srcs})
  target_include_directories(tk_fuzzlib PUBLIC ${CMAKE_SOURCE_DIR}/include
                                        PRIVATE ${CMAKE_SOURCE_DIR}/lib)
  get_target_property(libs tracekit LINK_LIBRARIES)
  target_link_libraries(tk_fuzzlib PUBLIC ${libs})
  get_target_property(defs tracekit COMPILE_DEFINITIONS)
  if(defs)
    target_compile_definitions(tk_fuzzlib PRIVATE ${defs})
  endif()
  get_target_property(idefs tracekit INTERFACE_COMPILE_DEFINITIONS)
  if(idefs)
    target_compile_definitions(tk_fuzzlib PUBLIC ${idefs})
  endif()
  target_compile_options(tk_fuzzlib PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
endfunction()

function(tk_add_fuzzer)
  cmake_parse_arguments(F "" "NAME;SOURCE;DICT;SECONDS;MAX_LEN" "SEED_DIRS;SEED_FILES;LIBS" ${ARGN})
  if(NOT TK_FUZZ_ENABLED)
    return()
  endif()
  tk_fuzzlib_setup()
  if(NOT F_SECONDS)
    set(F_SECONDS 20)
  endif()
  if(NOT F_MAX_LEN)
    set(F_MAX_LEN 65536)
  endif()
  add_executable(${F_NAME} ${F_SOURCE})
  target_include_directories(${F_NAME} PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/lib)
  target_link_libraries(${F_NAME} PRIVATE tk_fuzzlib ${F_LIBS})
  target_compile_options(${F_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${F_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
  string(REGEX REPLACE "^fuzz_" "" short ${F_NAME})
  string(REPLACE ";" "|" dirs "${F_SEED_DIRS}")
  string(REPLACE ";" "|" files "${F_SEED_FILES}")
  add_test(NAME fuzz.${short}
           COMMAND ${CMAKE_COMMAND} -DFUZZER=$<TARGET_FILE:${F_NAME}>
                   "-DSEED_DIRS=${dirs}" "-DSEED_FILES=${files}" "-DDICT=${F_DICT}"
                   -DWORK=${CMAKE_BINARY_DIR}/fuzz-work/${short}
                   -DSECONDS=${F_SECONDS} -DMAX_LEN=${F_MAX_LEN}
                   -P ${CMAKE_SOURCE_DIR}/cmake/run_fuzzer.cmake)
  math(EXPR limit "${F_SECONDS} * 3 + 60")
  set_tests_properties(fuzz.${short} PROPERTIES TIMEOUT ${limit} LABELS fuzz)
endfunction()
