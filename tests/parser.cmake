# SPDX-License-Identifier: GPL-3.0-or-later
# Tests of the Tarmac parser, the event source and `tracekit parse`.
#
#   parser.regs, parser.lines, parser.source   unit tests linked to the library
#   parser.golden.*    `tracekit parse` output compared with hand-checked files
#   parser.cli.*       exit status and messages on awkward input
#   parser.traces.*    every shared trace parses with zero warnings
#   parser.fuzz        libFuzzer on tk_tarmac_parse_line for 20 s (clang only)
set(TK_PARSER_DIR ${CMAKE_SOURCE_DIR}/tests/parser)
set(TK_PARSER_DATA ${TK_PARSER_DIR}/data)
set(TK_PARSER_EXPECTED ${TK_PARSER_DIR}/expected)
set(TK_PARSER_SCRATCH ${CMAKE_BINARY_DIR}/parser-scratch)
file(MAKE_DIRECTORY ${TK_PARSER_SCRATCH})

foreach(t regs lines source)
  add_executable(parser_test_${t} ${TK_PARSER_DIR}/test_${t}.c)
  target_link_libraries(parser_test_${t} PRIVATE tracekit)
endforeach()
add_test(NAME parser.regs COMMAND parser_test_regs)
add_test(NAME parser.lines COMMAND parser_test_lines ${TK_TRACES})
add_test(NAME parser.source COMMAND parser_test_source ${TK_PARSER_DATA} ${TK_PARSER_SCRATCH})

# tk_parser_cli(NAME ARGS... [EXPECTED file] [EXIT n] [STDIN file]
#               [STDERR_EMPTY] [STDERR_MATCH re] [STDOUT_MATCH re])
function(tk_parser_cli name)
  cmake_parse_arguments(T "STDERR_EMPTY" "EXPECTED;EXIT;STDIN;STDERR_MATCH;STDOUT_MATCH" "ARGS" ${ARGN})
  string(REPLACE ";" "|" args "${T_ARGS}")
  set(defs -DBIN=${TK_BIN} "-DARGS=${args}")
  foreach(v EXPECTED EXIT STDIN STDERR_MATCH STDOUT_MATCH)
    if(DEFINED T_${v})
      list(APPEND defs "-D${v}=${T_${v}}")
    endif()
  endforeach()
  if(T_STDERR_EMPTY)
    list(APPEND defs -DSTDERR_EMPTY=1)
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${TK_PARSER_DIR}/run_cli.cmake)
endfunction()

# The corpus of lines seen in the wild, and hand-made traces.
tk_parser_cli(parser.golden.parsertest ARGS parse ${TK_TRACES}/parsertest.txt
              EXPECTED ${TK_PARSER_EXPECTED}/parsertest.out STDERR_EMPTY)
tk_parser_cli(parser.golden.implicit-thumb
              ARGS parse --implicit-thumb ${TK_TRACES}/parsertest-implicit-thumb.txt
              EXPECTED ${TK_PARSER_EXPECTED}/parsertest-implicit-thumb.out STDERR_EMPTY)
tk_parser_cli(parser.golden.no-implicit-thumb
              ARGS parse ${TK_TRACES}/parsertest-implicit-thumb.txt
              EXPECTED ${TK_PARSER_EXPECTED}/parsertest-implicit-thumb.out STDERR_EMPTY)
tk_parser_cli(parser.golden.little-endian ARGS parse --li ${TK_PARSER_DATA}/endian.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/endian-li.out STDERR_EMPTY)
tk_parser_cli(parser.golden.big-endian ARGS parse --bi ${TK_PARSER_DATA}/endian.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/endian-bi.out STDERR_EMPTY)
tk_parser_cli(parser.golden.lf ARGS parse ${TK_PARSER_DATA}/lf.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/lf.out STDERR_EMPTY)
tk_parser_cli(parser.golden.crlf ARGS parse ${TK_PARSER_DATA}/crlf.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/lf.out STDERR_EMPTY)
tk_parser_cli(parser.golden.stdin ARGS parse STDIN ${TK_PARSER_DATA}/lf.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/lf.out STDERR_EMPTY)
tk_parser_cli(parser.golden.malformed ARGS parse -v ${TK_PARSER_DATA}/malformed.tarmac
              EXPECTED ${TK_PARSER_EXPECTED}/malformed.out
              STDERR_MATCH "malformed.tarmac:2: warning: R line: X0 value 'zz' is not hex digits.*malformed.tarmac:22: warning: ")
tk_parser_cli(parser.golden.count ARGS parse --count ${TK_TRACES}/calculator-aarch64-fastmodel.tarmac
              STDOUT_MATCH "events: 11560 \\(last at line 11560\\)\n  INSN   4783\n  REG    3929\n  MEM    2832\n  TEXT   16\nwarnings: 0\n"
              STDERR_EMPTY)

# Awkward input: never a crash; a message naming the file (and line);
# failure only when nothing useful can be done.
tk_parser_cli(parser.cli.missing ARGS parse ${TK_PARSER_DATA}/no-such-file.tarmac EXIT 1
              STDERR_MATCH "no-such-file.tarmac: No such file or directory")
tk_parser_cli(parser.cli.directory ARGS parse ${TK_PARSER_DATA} EXIT 1
              STDERR_MATCH "data: is a directory")
tk_parser_cli(parser.cli.binary ARGS parse ${TK_PARSER_DATA}/garbage.bin EXIT 1
              STDERR_MATCH "garbage.bin:1: error: binary data \\(NUL bytes\\), not a text trace")
tk_parser_cli(parser.cli.elf ARGS parse ${TK_TRACES}/quicksort.elf EXIT 1
              STDERR_MATCH "quicksort.elf:1: error: an ELF file")
tk_parser_cli(parser.cli.gzip ARGS parse ${TK_PARSER_DATA}/compressed.gz EXIT 1
              STDERR_MATCH "compressed.gz:1: error: gzip-compressed")
tk_parser_cli(parser.cli.empty ARGS parse ${TK_PARSER_DATA}/empty.tarmac STDERR_EMPTY
              EXPECTED ${TK_PARSER_DATA}/empty.tarmac)
tk_parser_cli(parser.cli.no-newline ARGS parse --count ${TK_PARSER_DATA}/no-newline.tarmac
              STDOUT_MATCH "events: 3 \\(last at line 3\\)" STDERR_EMPTY)
tk_parser_cli(parser.cli.truncated ARGS parse --count ${TK_PARSER_DATA}/truncated.tarmac
              STDOUT_MATCH "events: 3 .*warnings: 1"
              STDERR_MATCH "truncated.tarmac:3: warning: instruction line: encoding 'f94' is not 4 or 8 hex digits")
tk_parser_cli(parser.cli.nul-inside ARGS parse --count ${TK_PARSER_DATA}/nul-inside.tarmac
              STDOUT_MATCH "events: 4 .*warnings: 2"
              STDERR_MATCH "nul-inside.tarmac:3: warning: line contains NUL bytes")
tk_parser_cli(parser.cli.usage ARGS parse --no-such-option EXIT 2)

# Every shared trace parses without a single warning.
file(GLOB_RECURSE TK_PARSER_TRACES CONFIGURE_DEPENDS ${TK_TRACES}/*.tarmac)
foreach(f ${TK_PARSER_TRACES})
  file(RELATIVE_PATH rel ${TK_TRACES} ${f})
  tk_parser_cli(parser.traces.${rel} ARGS parse --count ${f}
                STDOUT_MATCH "warnings: 0\n" STDERR_EMPTY)
endforeach()

# libFuzzer (clang).  The parser sources are compiled into the target so
# that they carry the fuzzer's coverage instrumentation.
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
    set(lib ${CMAKE_SOURCE_DIR}/lib)
    add_executable(fuzz_tarmac_line ${CMAKE_SOURCE_DIR}/fuzz/fuzz_tarmac_line.c
                   ${lib}/sources/tarmac/tarmac_parse.c ${lib}/sources/tarmac/tarmac_insn.c
                   ${lib}/sources/tarmac/tarmac_reg.c ${lib}/sources/tarmac/tarmac_mem.c
                   ${lib}/sources/tarmac/tarmac_lex.c ${lib}/core/regs.c ${lib}/core/error.c
                   ${lib}/core/event.c)
    target_include_directories(fuzz_tarmac_line PRIVATE ${CMAKE_SOURCE_DIR}/include ${lib})
    target_compile_options(fuzz_tarmac_line PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(fuzz_tarmac_line PRIVATE -fsanitize=fuzzer,address,undefined)
    add_test(NAME parser.fuzz
             COMMAND ${CMAKE_COMMAND} -DFUZZER=$<TARGET_FILE:fuzz_tarmac_line>
                     "-DSEEDS=${TK_TRACES}/parsertest.txt|${TK_TRACES}/parsertest-implicit-thumb.txt"
                     -DWORK=${CMAKE_BINARY_DIR}/fuzz-tarmac-line
                     -DDICT=${CMAKE_SOURCE_DIR}/fuzz/tarmac.dict -DSECONDS=20
                     -P ${TK_PARSER_DIR}/run_fuzz.cmake)
    set_tests_properties(parser.fuzz PROPERTIES TIMEOUT 120)
  elseif(TK_FUZZ)
    message(WARNING "TK_FUZZ: ${CMAKE_C_COMPILER} cannot link -fsanitize=fuzzer (install libclang-rt-dev); no fuzz targets")
  endif()
endif()

# Binary data with no NUL byte and no newline: caught by its non-text bytes.
tk_parser_cli(parser.cli.binary-nonul ARGS parse ${TK_PARSER_DATA}/garbage-nonul.bin EXIT 1
              STDERR_MATCH "garbage-nonul.bin:1: error: binary data, not a text trace")
