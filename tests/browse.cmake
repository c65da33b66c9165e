# SPDX-License-Identifier: GPL-3.0-or-later
# The terminal browser (tracekit browse / tarmac-browser): a unit test of its
# address-expression evaluator, and screen tests that drive the real
# program inside tmux on the shared traces, one per group of documented keys.

add_executable(test_browse_expr ${CMAKE_SOURCE_DIR}/tests/browse/test_expr.c
                                ${CMAKE_SOURCE_DIR}/tools/view/expr.c)
target_include_directories(test_browse_expr PRIVATE ${CMAKE_SOURCE_DIR}/tools)
add_test(NAME browse.expr COMMAND test_browse_expr)

find_program(TK_TMUX tmux)
if(CURSES_FOUND AND TK_TMUX)
  foreach(t notty help prompt step fold search prevwrite memory panes calls screen syntax
            resizekeys narrow dumbterm numbers diffreset ldst pcrow foldmark regisa exceptions)
    add_test(NAME browse.${t}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/browse/${t}.sh)
    set_tests_properties(browse.${t} PROPERTIES
      ENVIRONMENT "TK_BIN=${TK_BIN};TK_TRACES=${TK_TRACES}"
      TIMEOUT 180)
  endforeach()
else()
  message(STATUS "browse: tmux or ncurses missing, screen tests not registered")
endif()
