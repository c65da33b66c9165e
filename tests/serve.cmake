# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit serve (the web browser) and export, issue 14:
#   serve.api      the JSON API against a running server, values checked
#                  against `tracekit dump`; bad, hostile, oversized and
#                  concurrent requests; a clean Ctrl-C (tests/serve/api_test.py)
#   serve.json     --json of calltree/callinfo/profile/dump against their text,
#                  export files checked against their formats (json_test.py)
#   serve.browser  the page in Debian's chromium driven by playwright-core
#                  (installed from tests/serve/package-lock.json); skipped
#                  only when node or chromium is missing
find_package(Python3 COMPONENTS Interpreter)
set(TK_SERVE_WORK ${CMAKE_BINARY_DIR}/serve-tests)
file(MAKE_DIRECTORY ${TK_SERVE_WORK})
if(MICROHTTPD_FOUND AND Python3_FOUND)
  add_test(NAME serve.api COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/serve/api_test.py
           ${TK_BIN} ${TK_TRACES} ${TK_SERVE_WORK}/api)
  set_tests_properties(serve.api PROPERTIES TIMEOUT 180)
  add_test(NAME serve.browser COMMAND bash ${CMAKE_SOURCE_DIR}/tests/serve/browser.sh
           ${TK_BIN} ${TK_TRACES} ${TK_SERVE_WORK}/browser)
  set_tests_properties(serve.browser PROPERTIES TIMEOUT 400 SKIP_RETURN_CODE 77)
endif()
if(Python3_FOUND)
  add_test(NAME serve.json COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/serve/json_test.py
           ${TK_BIN} ${TK_TRACES} ${TK_SERVE_WORK}/json)
  set_tests_properties(serve.json PROPERTIES TIMEOUT 180)
endif()

# libFuzzer (clang builds): the API with arbitrary routes and parameters.
set(TK_SERVE_FUZZ_SOURCES api.c api_common.c api_trace.c api_state.c api_calls.c api_profile.c
    api_search.c params.c lines.c)
list(TRANSFORM TK_SERVE_FUZZ_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/tools/serve/)
tk_add_fuzzer(NAME fuzz_serve_api SOURCE ${CMAKE_SOURCE_DIR}/fuzz/fuzz_serve_api.c
              SEED_DIRS ${CMAKE_SOURCE_DIR}/fuzz/serve_api SECONDS 20 MAX_LEN 4096)
if(TARGET fuzz_serve_api)
  target_sources(fuzz_serve_api PRIVATE ${TK_SERVE_FUZZ_SOURCES}
    ${CMAKE_SOURCE_DIR}/tools/json/json_out.c ${CMAKE_SOURCE_DIR}/tools/view/expr.c
    ${CMAKE_SOURCE_DIR}/tools/view/resolve.c ${CMAKE_SOURCE_DIR}/tools/view/regsets.c
    ${CMAKE_SOURCE_DIR}/tools/view/highlight.c ${CMAKE_SOURCE_DIR}/tools/view/textfile.c
    ${CMAKE_SOURCE_DIR}/tools/view/rendered.c
    ${CMAKE_SOURCE_DIR}/tools/cli/source_opts.c)
  target_include_directories(fuzz_serve_api PRIVATE ${CMAKE_SOURCE_DIR}/tools)
  target_compile_definitions(fuzz_serve_api PRIVATE "TK_FUZZ_TRACES=\"${TK_TRACES}\"")
  target_link_libraries(fuzz_serve_api PRIVATE PkgConfig::JANSSON pthread)
endif()
