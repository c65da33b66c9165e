# SPDX-License-Identifier: GPL-3.0-or-later
# The trace linker (tracekit tld, tld-dump, tld-extract): unit tests of the
# INI module, the configuration and code generator, the DWARF signatures
# and the dump reader, the dumps as a trace source; end-to-end tests that build host and arm-none-eabi
# programs, trace-link them with each generator and check every line they
# print or record (tests/tld/*.sh say how the expected output is made).

set(TK_TLD_WORK ${CMAKE_CURRENT_BINARY_DIR}/tld-tests)
file(MAKE_DIRECTORY ${TK_TLD_WORK})

add_executable(test_tld_ini ${CMAKE_SOURCE_DIR}/tests/tld/test_tld_ini.c)
target_link_libraries(test_tld_ini PRIVATE tracekit)
add_test(NAME tld.ini COMMAND test_tld_ini ${TK_TLD_WORK}/ini)

add_executable(test_tld_config ${CMAKE_SOURCE_DIR}/tests/tld/test_tld_config.c)
target_link_libraries(test_tld_config PRIVATE tracekit)
add_test(NAME tld.config COMMAND test_tld_config)

add_executable(test_tld_dump ${CMAKE_SOURCE_DIR}/tests/tld/test_tld_dump.c)
target_link_libraries(test_tld_dump PRIVATE tracekit)
add_test(NAME tld.dump COMMAND test_tld_dump)

# The dumps as a trace source (format "tld"), and the call detector on them.
add_executable(test_tld_source ${CMAKE_SOURCE_DIR}/tests/tld/test_tld_source.c)
target_link_libraries(test_tld_source PRIVATE tracekit)
add_test(NAME tld.source-unit COMMAND test_tld_source)

# End to end (tests/tld/e2e.sh): host programs with each generator, the
# options, the fixed rtems-tld bugs, and arm-none-eabi programs run by
# `tracekit record` (skipped without the cross compiler).
foreach(case printf printk printf-dwarf buffer buffer-dwarf buffer-options threads
             dwarf-types dwarf-errors libc posix shipped builtin options regressions bsp
             arm-m3 arm-a5 source)
  add_test(NAME tld.${case} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tld/e2e.sh ${case})
  set_tests_properties(tld.${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "TK_BIN=${TK_BIN};TK_SRC=${CMAKE_SOURCE_DIR}/tests/tld;TK_WORK=${TK_TLD_WORK}")
endforeach()

# The unit test of the dump reader also writes its synthetic dumps, the
# seeds of the dump fuzzer.
set_tests_properties(tld.dump PROPERTIES FIXTURES_SETUP tld-dump-seeds)
set_property(TEST tld.dump PROPERTY ENVIRONMENT "TK_TLD_SEEDS=${TK_TLD_WORK}/dump-seeds")
tk_add_fuzzer(NAME fuzz_tld_dump SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_tld_dump.c
              SEED_DIRS ${TK_TLD_WORK}/dump-seeds SECONDS 30)
if(TEST fuzz.tld_dump)
  set_tests_properties(fuzz.tld_dump PROPERTIES FIXTURES_REQUIRED tld-dump-seeds)
endif()
file(GLOB tld_ini_seeds ${CMAKE_SOURCE_DIR}/share/trace-linker/*.ini
                        ${CMAKE_SOURCE_DIR}/tests/tld/prog/*.ini)
tk_add_fuzzer(NAME fuzz_tld_ini SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_tld_ini.c
              SEED_FILES ${tld_ini_seeds} DICT ${CMAKE_SOURCE_DIR}/fuzz/tld_ini.dict SECONDS 30)
