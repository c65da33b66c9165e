# SPDX-License-Identifier: GPL-3.0-or-later
# Options shared with Arm's tools, on every subcommand and alias
# (tests/cli/options.sh).
foreach(case version debug memory-index colour no-offsets indextool)
  add_test(NAME cli.${case} COMMAND sh ${CMAKE_SOURCE_DIR}/tests/cli/options.sh ${case})
  set_tests_properties(cli.${case} PROPERTIES ENVIRONMENT
    "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES};TK_WORK=${CMAKE_BINARY_DIR}/tests-out/cli")
endforeach()
