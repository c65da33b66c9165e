# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit record (issue 5): real C programs, cross-compiled for AArch32 Arm,
# Thumb, M-profile and AArch64, run under the recorder; the output, the exit
# status, the parsed trace, the call counts and the final memory are checked
# (tests/record/check.sh).  Without a cross compiler the programs are not
# built and their tests are skipped.

set(TK_REC_SRC ${CMAKE_SOURCE_DIR}/tests/record)
set(TK_REC_DIR ${CMAKE_BINARY_DIR}/tests/record)
file(MAKE_DIRECTORY ${TK_REC_DIR})

find_program(TK_ARM_EABI_GCC arm-none-eabi-gcc)
find_program(TK_AARCH64_GCC aarch64-linux-gnu-gcc)

# newlib's semihosting library comes in a separate package.
set(TK_REC_HAVE_ARM OFF)
if(TK_ARM_EABI_GCC)
  execute_process(COMMAND ${TK_ARM_EABI_GCC} -print-file-name=rdimon.specs
                  OUTPUT_VARIABLE rec_specs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(IS_ABSOLUTE "${rec_specs}" AND EXISTS "${rec_specs}")
    set(TK_REC_HAVE_ARM ON)
  endif()
endif()

set(rec_cflags -O2 -g -Wall -Wextra -fno-optimize-sibling-calls -ffp-contract=off -fno-math-errno)
set(rec_newlib --specs=rdimon.specs)
set(rec_flags_a32 -marm -march=armv5te+fp -mfloat-abi=hard ${rec_newlib})
set(rec_flags_t32 -mthumb -march=armv7-a+fp -mfloat-abi=hard ${rec_newlib})
set(rec_flags_m3 -mthumb -mcpu=cortex-m3 ${rec_newlib})
set(rec_flags_m4 -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 ${rec_newlib})
set(rec_a64_rt ${TK_REC_SRC}/a64/start.S ${TK_REC_SRC}/a64/rt.c)
set(rec_flags_a64 -ffreestanding -nostdlib -static -fno-pie -no-pie -Wl,--build-id=none
    -Wl,--no-warn-rwx-segments -T ${TK_REC_SRC}/a64/link.ld ${rec_a64_rt})

set(rec_elves)
# rec_program(NAME VARIANT SOURCE): build NAME-VARIANT.elf if the compiler
# for VARIANT is there.
function(rec_program name variant source)
  if(variant STREQUAL "a64")
    if(NOT TK_AARCH64_GCC)
      return()
    endif()
    set(cc ${TK_AARCH64_GCC})
    set(deps ${rec_a64_rt} ${TK_REC_SRC}/a64/link.ld)
  else()
    if(NOT TK_REC_HAVE_ARM)
      return()
    endif()
    set(cc ${TK_ARM_EABI_GCC})
    set(deps)
  endif()
  set(out ${TK_REC_DIR}/${name}-${variant}.elf)
  add_custom_command(OUTPUT ${out}
    COMMAND ${cc} ${rec_cflags} ${rec_flags_${variant}} -o ${out} ${source}
    DEPENDS ${source} ${TK_REC_SRC}/rt.h ${deps}
    COMMENT "Building the record test program ${name}-${variant}.elf" VERBATIM)
  set(rec_elves ${rec_elves} ${out} PARENT_SCOPE)
endfunction()

foreach(prog quicksort calc fpmath fault)
  foreach(variant a32 t32 m3 a64)
    rec_program(${prog} ${variant} ${TK_REC_SRC}/${prog}.c)
  endforeach()
endforeach()
rec_program(fpmath m4 ${TK_REC_SRC}/fpmath.c)
foreach(variant a32 m3 a64)
  rec_program(args ${variant} ${TK_REC_SRC}/args.c)
endforeach()
rec_program(files a32 ${TK_REC_SRC}/files.c)
rec_program(files m3 ${TK_REC_SRC}/files.c)
rec_program(escape a32 ${TK_REC_SRC}/escape.c)
rec_program(escape m3 ${TK_REC_SRC}/escape.c)
rec_program(wait a32 ${TK_REC_SRC}/wait.c)
if(TK_REC_HAVE_ARM)
  set(out ${TK_REC_DIR}/traps-a32.elf)
  add_custom_command(OUTPUT ${out}
    COMMAND ${TK_ARM_EABI_GCC} -nostdlib -march=armv7-a -Wl,-Ttext=0x10000 -o ${out}
            ${TK_REC_SRC}/traps.S
    DEPENDS ${TK_REC_SRC}/traps.S
    COMMENT "Building the record test program traps-a32.elf" VERBATIM)
  list(APPEND rec_elves ${out})
endif()
add_custom_target(record_test_programs ALL DEPENDS ${rec_elves})

set(rec_check bash ${TK_REC_SRC}/check.sh)

# rec_test(TESTNAME STEP RECORDING ELF ARGS...)
function(rec_test test step rec elf)
  add_test(NAME ${test}
    COMMAND ${rec_check} ${step} ${TK_BIN} ${TK_REC_SRC} ${rec} ${TK_REC_DIR}/${elf} ${ARGN}
    WORKING_DIRECTORY ${TK_REC_DIR})
  set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77 LABELS record)
endfunction()

set(rec_status_quicksort 0)
set(rec_status_calc 20)
set(rec_status_fpmath 0)
foreach(prog quicksort calc fpmath)
  set(variants a32 t32 m3 a64)
  if(prog STREQUAL "fpmath")
    list(APPEND variants m4)
  endif()
  foreach(variant ${variants})
    set(rec ${prog}-${variant})
    rec_test(record-${rec} record ${rec} ${rec}.elf ${prog} ${rec_status_${prog}})
    set_tests_properties(record-${rec} PROPERTIES FIXTURES_SETUP rec-${rec})
    foreach(step parse calls memory)
      rec_test(record-${rec}-${step} ${step} ${rec} ${rec}.elf ${prog})
      set_tests_properties(record-${rec}-${step} PROPERTIES FIXTURES_REQUIRED rec-${rec})
    endforeach()
    rec_test(record-${rec}-deterministic same ${rec}-same ${rec}.elf)
  endforeach()
endforeach()

# The command line reaches the program (blanks and quotes included); the
# exit status is the last result, -15, modulo 256.
foreach(variant a32 m3 a64)
  rec_test(record-calc-args-${variant} record calc-args-${variant} calc-${variant}.elf
           calc-args 241 "1+2*3" "2 * (3 + 4)" "(7-10)*5")
endforeach()

# Arguments with blanks, quotes, a backslash, a tab, or empty reach the
# program intact: quoted the way newlib's start-up code splits (it has no
# escape character); the exit status is argc.  (@EMPTY@: an empty
# argument, which a CMake list cannot hold.)
foreach(variant a32 m3 a64)
  rec_test(record-args-${variant} record args-${variant} args-${variant}.elf
           args 8 "a b" "\"q\"" @EMPTY@ "x\\y" "say \"hi\"" "it's" "\ttab'\"")
endforeach()

foreach(variant a32 t32 m3 a64)
  rec_test(record-fault-${variant} fault fault-${variant} fault-${variant}.elf fault fault)
  set_tests_properties(record-fault-${variant} PROPERTIES FIXTURES_SETUP rec-fault-${variant})
  rec_test(record-fault-${variant}-parse parse fault-${variant} fault-${variant}.elf)
  set_tests_properties(record-fault-${variant}-parse PROPERTIES FIXTURES_REQUIRED rec-fault-${variant})
endforeach()
foreach(variant a32 m3)
  rec_test(record-fault-udf-${variant} fault fault-udf-${variant} fault-${variant}.elf fault fault-udf udf)
endforeach()
rec_test(record-fault-brk-a64 fault fault-brk-a64 fault-a64.elf fault fault-brk udf)

rec_test(record-limit-a64 limit limit-a64 quicksort-a64.elf 1000)
rec_test(record-limit-t32 limit limit-t32 quicksort-t32.elf 1000)

foreach(variant a32 m3)
  rec_test(record-files-${variant} files files-${variant} files-${variant}.elf)
  # Confinement without --allow-fs (issue 15): links, "..", NUL bytes.
  rec_test(record-escape-${variant} escape escape-${variant} escape-${variant}.elf)
endforeach()
# The same without openat2 (older kernels): one component at a time.
rec_test(record-escape-a32-nofollow escape escape-a32-nofollow escape-a32.elf)
set_tests_properties(record-escape-a32-nofollow PROPERTIES ENVIRONMENT TRACEKIT_NO_OPENAT2=1)

# Interrupted recordings keep their trace; unusable targets and sizes fail
# before the program runs; the default trace size cap.
rec_test(record-interrupt interrupt interrupt wait-a32.elf)
rec_test(record-targets targets targets quicksort-a32.elf)

rec_test(record-traps record traps-a32 traps-a32.elf traps 0)
set_tests_properties(record-traps PROPERTIES FIXTURES_SETUP rec-traps)
rec_test(record-traps-parse parse traps-a32 traps-a32.elf)
set_tests_properties(record-traps-parse PROPERTIES FIXTURES_REQUIRED rec-traps)

# The command line of the recorder itself.
rec_test(record-usage usage usage quicksort-a64.elf)
