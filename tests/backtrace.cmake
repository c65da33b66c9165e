# SPDX-License-Identifier: GPL-3.0-or-later
# Frame-pointer backtraces and source lines (issue 13): tracekit backtrace on
# programs recorded with `tracekit record` (A32 with GCC and APCS frames,
# T32, M3, M4, A64), tracekit addr2line against binutils' addr2line, the
# freestanding runtime on the host.  Programs that need a missing cross
# compiler or reference tool are not built and their tests are skipped.

set(TK_BT_SRC ${CMAKE_SOURCE_DIR}/tests/backtrace)
set(TK_BT_DIR ${CMAKE_BINARY_DIR}/tests/backtrace)
file(MAKE_DIRECTORY ${TK_BT_DIR})

find_program(TK_PYTHON3 python3)
find_program(TK_ARM_EABI_GCC arm-none-eabi-gcc)
find_program(TK_AARCH64_GCC aarch64-linux-gnu-gcc)
find_program(TK_HOST_CXX NAMES g++ c++ clang++)
find_program(TK_HOST_CC NAMES gcc cc clang)
set(TK_BT_HAVE_ARM OFF)
if(TK_ARM_EABI_GCC)
  execute_process(COMMAND ${TK_ARM_EABI_GCC} -print-file-name=rdimon.specs
                  OUTPUT_VARIABLE bt_specs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(IS_ABSOLUTE "${bt_specs}" AND EXISTS "${bt_specs}")
    set(TK_BT_HAVE_ARM ON)
  endif()
endif()

set(bt_rt ${CMAKE_SOURCE_DIR}/runtime/tk_backtrace.c)
set(bt_cflags -O2 -g -Wall -Wextra -fno-omit-frame-pointer -fno-optimize-sibling-calls)
set(bt_newlib --specs=rdimon.specs)
set(bt_flags_a32 -marm -march=armv5te+fp -mfloat-abi=hard ${bt_newlib})
set(bt_flags_apcs -marm -mapcs-frame -DTK_BT_APCS -march=armv5te+fp -mfloat-abi=hard ${bt_newlib})
set(bt_flags_t32 -mthumb -march=armv7-a+fp -mfloat-abi=hard ${bt_newlib})
set(bt_flags_m3 -mthumb -mcpu=cortex-m3 ${bt_newlib})
set(bt_flags_m4 -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 ${bt_newlib})
set(bt_a64_rt ${CMAKE_SOURCE_DIR}/tests/record/a64/start.S ${CMAKE_SOURCE_DIR}/tests/record/a64/rt.c)
set(bt_flags_a64 -ffreestanding -nostdlib -static -fno-pie -no-pie -Wl,--build-id=none
    -Wl,--no-warn-rwx-segments -T ${CMAKE_SOURCE_DIR}/tests/record/a64/link.ld ${bt_a64_rt})

# The layout each variant's frames use (--frame=).
set(bt_layout_a32 aapcs)
set(bt_layout_apcs apcs)
set(bt_layout_t32 thumb)
set(bt_layout_m3 thumb)
set(bt_layout_m4 thumb)
set(bt_layout_a64 a64)

set(bt_elves)
set(bt_variants)
foreach(v a32 apcs t32 m3 m4 a64)
  if(v STREQUAL "a64")
    if(NOT TK_AARCH64_GCC)
      continue()
    endif()
    set(cc ${TK_AARCH64_GCC})
  else()
    if(NOT TK_BT_HAVE_ARM)
      continue()
    endif()
    set(cc ${TK_ARM_EABI_GCC})
  endif()
  set(out ${TK_BT_DIR}/btprog-${v}.elf)
  add_custom_command(OUTPUT ${out}
    COMMAND ${cc} ${bt_cflags} ${bt_flags_${v}} -o ${out} ${TK_BT_SRC}/btprog.c ${bt_rt}
    DEPENDS ${TK_BT_SRC}/btprog.c ${bt_rt} ${CMAKE_SOURCE_DIR}/runtime/tk_backtrace.h
            ${CMAKE_SOURCE_DIR}/tests/record/rt.h
    COMMENT "Building the backtrace test program btprog-${v}.elf" VERBATIM)
  list(APPEND bt_elves ${out})
  list(APPEND bt_variants ${v})
endforeach()

# Thumb images without .debug_frame: the walk reads the prologues instead.
find_program(TK_ARM_OBJCOPY arm-none-eabi-objcopy)
set(bt_nocfi)
if(TK_BT_HAVE_ARM AND TK_ARM_OBJCOPY)
  foreach(v t32 m3)
    set(out ${TK_BT_DIR}/btprog-${v}-nocfi.elf)
    add_custom_command(OUTPUT ${out}
      COMMAND ${TK_ARM_OBJCOPY} --remove-section=.debug_frame ${TK_BT_DIR}/btprog-${v}.elf ${out}
      DEPENDS ${TK_BT_DIR}/btprog-${v}.elf VERBATIM)
    list(APPEND bt_elves ${out})
    list(APPEND bt_nocfi ${v})
  endforeach()
endif()

# -O2 C and C++ with inlining, for addr2line: host and Arm.
set(bt_a2l_elves)
if(TK_HOST_CC)
  add_custom_command(OUTPUT ${TK_BT_DIR}/inline-c-host
    COMMAND ${TK_HOST_CC} -O2 -g -o ${TK_BT_DIR}/inline-c-host ${TK_BT_SRC}/inline.c
    DEPENDS ${TK_BT_SRC}/inline.c VERBATIM)
  list(APPEND bt_a2l_elves ${TK_BT_DIR}/inline-c-host)
endif()
if(TK_HOST_CC AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  # Hand-made corner cases of binutils' symbol and variable choices.
  add_custom_command(OUTPUT ${TK_BT_DIR}/symties-host
    COMMAND ${TK_HOST_CC} -nostdlib -Wl,-e,main -o ${TK_BT_DIR}/symties-host ${TK_BT_SRC}/symties.s
    DEPENDS ${TK_BT_SRC}/symties.s VERBATIM)
  add_custom_command(OUTPUT ${TK_BT_DIR}/variables-host
    COMMAND ${TK_HOST_CC} -O1 -g -o ${TK_BT_DIR}/variables-host ${TK_BT_SRC}/variables.c
    DEPENDS ${TK_BT_SRC}/variables.c VERBATIM)
  list(APPEND bt_a2l_elves ${TK_BT_DIR}/symties-host ${TK_BT_DIR}/variables-host)
endif()
if(TK_HOST_CXX)
  add_custom_command(OUTPUT ${TK_BT_DIR}/inline-cpp-host
    COMMAND ${TK_HOST_CXX} -O2 -g -o ${TK_BT_DIR}/inline-cpp-host ${TK_BT_SRC}/inline.cpp
    DEPENDS ${TK_BT_SRC}/inline.cpp VERBATIM)
  list(APPEND bt_a2l_elves ${TK_BT_DIR}/inline-cpp-host)
endif()
if(TK_BT_HAVE_ARM)
  add_custom_command(OUTPUT ${TK_BT_DIR}/inline-c-arm.elf
    COMMAND ${TK_ARM_EABI_GCC} -O2 -g -marm -mcpu=cortex-a9 ${bt_newlib}
            -o ${TK_BT_DIR}/inline-c-arm.elf ${TK_BT_SRC}/inline.c
    DEPENDS ${TK_BT_SRC}/inline.c VERBATIM)
  add_custom_command(OUTPUT ${TK_BT_DIR}/inline-cpp-m4.elf
    COMMAND ${TK_ARM_EABI_GCC} -x c++ -O2 -g -fno-exceptions -fno-rtti -mthumb -mcpu=cortex-m4
            ${bt_newlib} -o ${TK_BT_DIR}/inline-cpp-m4.elf ${TK_BT_SRC}/inline.cpp
    DEPENDS ${TK_BT_SRC}/inline.cpp VERBATIM)
  list(APPEND bt_a2l_elves ${TK_BT_DIR}/inline-c-arm.elf ${TK_BT_DIR}/inline-cpp-m4.elf)
endif()
# Small ELF images with DWARF: the fuzzer's seeds (at most 64 KiB each).
set(bt_seeds)
if(TK_HOST_CC)
  add_custom_command(OUTPUT ${TK_BT_DIR}/seed-host.o
    COMMAND ${TK_HOST_CC} -O2 -g -c -o ${TK_BT_DIR}/seed-host.o ${TK_BT_SRC}/inline.c
    DEPENDS ${TK_BT_SRC}/inline.c VERBATIM)
  list(APPEND bt_seeds ${TK_BT_DIR}/seed-host.o)
endif()
if(TK_BT_HAVE_ARM)
  add_custom_command(OUTPUT ${TK_BT_DIR}/seed-thumb.elf
    COMMAND ${TK_ARM_EABI_GCC} -O1 -g -mthumb -mcpu=cortex-m3 -fno-omit-frame-pointer -nostdlib
            -Wl,--unresolved-symbols=ignore-all -Wl,-e,main -o ${TK_BT_DIR}/seed-thumb.elf
            ${TK_BT_SRC}/inline.c
    DEPENDS ${TK_BT_SRC}/inline.c VERBATIM)
  add_custom_command(OUTPUT ${TK_BT_DIR}/seed-arm.o
    COMMAND ${TK_ARM_EABI_GCC} -O2 -g -marm -mapcs-frame -c -o ${TK_BT_DIR}/seed-arm.o
            ${TK_BT_SRC}/inline.c
    DEPENDS ${TK_BT_SRC}/inline.c VERBATIM)
  list(APPEND bt_seeds ${TK_BT_DIR}/seed-thumb.elf ${TK_BT_DIR}/seed-arm.o)
endif()
add_custom_target(backtrace_test_programs ALL DEPENDS ${bt_elves} ${bt_a2l_elves} ${bt_seeds})
tk_add_fuzzer(NAME fuzz_dwarf SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_dwarf.c SEED_FILES ${bt_seeds})

# ---- tracekit backtrace on the recordings ----
if(TK_PYTHON3)
  set(bt_check ${TK_PYTHON3} ${TK_BT_SRC}/bt_check.py)
  set(bt_a2l ${TK_PYTHON3} ${TK_BT_SRC}/a2l.py)
  foreach(v ${bt_variants})
    set(elf ${TK_BT_DIR}/btprog-${v}.elf)
    if(v STREQUAL "a64")
      set(ref aarch64-linux-gnu-addr2line)
      set(env "TK_NM=aarch64-linux-gnu-nm;TK_OBJCOPY=aarch64-linux-gnu-objcopy")
    else()
      set(ref arm-none-eabi-addr2line)
      set(env "TK_NM=arm-none-eabi-nm;TK_OBJCOPY=arm-none-eabi-objcopy")
    endif()
    set(name bt-${v})
    add_test(NAME backtrace.record.${v} COMMAND ${bt_check} record ${TK_BIN} ${name} ${elf}
             WORKING_DIRECTORY ${TK_BT_DIR})
    set_tests_properties(backtrace.record.${v} PROPERTIES FIXTURES_SETUP bt-${v}
                         SKIP_RETURN_CODE 77 ENVIRONMENT "${env}" LABELS backtrace)
    # tname | arguments of bt_check.py after NAME ELF
    set(steps marks activation.level5 activation.leaf_add positions srclines)
    if(v STREQUAL "a32" OR v STREQUAL "apcs" OR v STREQUAL "a64")
      list(APPEND steps activation.level5.noimage activation.leaf_add.noimage)
    endif()
    foreach(tname ${steps})
      string(REPLACE "." ";" args "${tname}")
      if(tname STREQUAL "marks" OR tname STREQUAL "srclines")
        list(APPEND args ${ref})
      elseif(tname STREQUAL "positions")
        list(APPEND args ${bt_layout_${v}})
      endif()
      list(GET args 0 step)
      list(REMOVE_AT args 0)
      add_test(NAME backtrace.${tname}.${v}
               COMMAND ${bt_check} ${step} ${TK_BIN} ${name} ${elf} ${args}
               WORKING_DIRECTORY ${TK_BT_DIR})
      set_tests_properties(backtrace.${tname}.${v} PROPERTIES FIXTURES_REQUIRED bt-${v}
                           SKIP_RETURN_CODE 77 ENVIRONMENT "${env}" LABELS backtrace)
    endforeach()
    if(v IN_LIST bt_nocfi)
      add_test(NAME backtrace.marks-nocfi.${v}
               COMMAND ${bt_check} marks ${TK_BIN} ${name} ${TK_BT_DIR}/btprog-${v}-nocfi.elf ${ref}
               WORKING_DIRECTORY ${TK_BT_DIR})
      set_tests_properties(backtrace.marks-nocfi.${v} PROPERTIES FIXTURES_REQUIRED bt-${v}
                           SKIP_RETURN_CODE 77 ENVIRONMENT "${env}" LABELS backtrace)
    endif()
    # addr2line on the same programs (newlib included).
    add_test(NAME addr2line.compare.btprog-${v}
             COMMAND ${bt_a2l} compare ${TK_BIN} ${ref} ${elf} main,level5,recurse,bt_mark,damage)
    set_tests_properties(addr2line.compare.btprog-${v} PROPERTIES SKIP_RETURN_CODE 77
                         ENVIRONMENT "${env}" LABELS addr2line)
  endforeach()

  # ---- tracekit addr2line against binutils ----
  foreach(elf ${bt_a2l_elves})
    get_filename_component(base ${elf} NAME_WE)
    if(elf MATCHES "host$")
      set(ref addr2line)
      set(env "TK_NM=nm;TK_OBJCOPY=objcopy")
    else()
      set(ref arm-none-eabi-addr2line)
      set(env "TK_NM=arm-none-eabi-nm;TK_OBJCOPY=arm-none-eabi-objcopy")
    endif()
    add_test(NAME addr2line.compare.${base}
             COMMAND ${bt_a2l} compare ${TK_BIN} ${ref} ${elf}
                     main,helper,fill,c_entry,_Z5applyIZ4mainEUliE_EiT_i)
    set_tests_properties(addr2line.compare.${base} PROPERTIES SKIP_RETURN_CODE 77
                         ENVIRONMENT "${env}" LABELS addr2line)
  endforeach()
  if(TK_HOST_CXX)
    add_test(NAME addr2line.coprocess.host
             COMMAND ${bt_a2l} coprocess ${TK_BIN} addr2line ${TK_BT_DIR}/inline-cpp-host)
    set_tests_properties(addr2line.coprocess.host PROPERTIES SKIP_RETURN_CODE 77 LABELS addr2line)
  endif()
  if(TK_HOST_CC)
    add_test(NAME addr2line.badinput.host
             COMMAND ${bt_a2l} badinput ${TK_BIN} ${TK_BT_DIR}/inline-c-host ${TK_BT_DIR}/bad-host)
    set_tests_properties(addr2line.badinput.host PROPERTIES SKIP_RETURN_CODE 77 LABELS addr2line
                         ENVIRONMENT "TK_NM=nm;TK_OBJCOPY=objcopy")
  endif()
  if(TK_BT_HAVE_ARM)
    add_test(NAME addr2line.coprocess.m3
             COMMAND ${bt_a2l} coprocess ${TK_BIN} arm-none-eabi-addr2line ${TK_BT_DIR}/btprog-m3.elf)
    add_test(NAME addr2line.badinput.a32
             COMMAND ${bt_a2l} badinput ${TK_BIN} ${TK_BT_DIR}/btprog-a32.elf ${TK_BT_DIR}/bad-a32)
    set_tests_properties(addr2line.coprocess.m3 addr2line.badinput.a32 PROPERTIES
                         SKIP_RETURN_CODE 77 LABELS addr2line
                         ENVIRONMENT "TK_NM=arm-none-eabi-nm;TK_OBJCOPY=arm-none-eabi-objcopy")
  endif()
endif()

# ---- the browser's call-stack and source panes (tmux) ----
find_program(TK_TMUX tmux)
if(CURSES_FOUND AND TK_TMUX AND "a32" IN_LIST bt_variants)
  add_test(NAME backtrace.browse-panes
           COMMAND bash ${TK_BT_SRC}/browse_panes.sh ${TK_BT_SRC}
           WORKING_DIRECTORY ${TK_BT_DIR})
  set_tests_properties(backtrace.browse-panes PROPERTIES FIXTURES_REQUIRED bt-a32 TIMEOUT 180
                       ENVIRONMENT "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES}" LABELS backtrace)
endif()

# ---- the runtime on the host ----
add_executable(test_bt_runtime ${TK_BT_SRC}/test_runtime.c ${bt_rt})
target_compile_options(test_bt_runtime PRIVATE -O2 -fno-omit-frame-pointer)
add_test(NAME backtrace.runtime.host COMMAND test_bt_runtime)
