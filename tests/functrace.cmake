# SPDX-License-Identifier: GPL-3.0-or-later
# The multi-source core on function-level traces (the "functext" test
# format): calls across contexts, calls that never return, gaps, mutual and
# 1,000,000-deep recursion, through calltree, callinfo, profile, flamegraph,
# index and dump, each through both paths (streaming and indexed), which
# must agree with the expected files in tests/functrace/expected.
set(TK_FT_DIR ${CMAKE_SOURCE_DIR}/tests/functrace)
set(TK_FT_WORK ${CMAKE_BINARY_DIR}/functrace-tests)

function(tk_functrace_test name trace expected)
  add_test(NAME functrace.${name}
           COMMAND ${TK_FT_DIR}/both-paths.sh ${TK_BIN} ${TK_FT_WORK}/${name}
                   ${TK_FT_DIR}/data/${trace} ${TK_FT_DIR}/expected/${expected} ${ARGN})
endfunction()

foreach(t unreturned contexts recursion malformed)
  tk_functrace_test(${t}.calltree ${t}.functext ${t}.calltree calltree)
  tk_functrace_test(${t}.profile ${t}.functext ${t}.profile profile)
  tk_functrace_test(${t}.flamegraph ${t}.functext ${t}.folded flamegraph)
endforeach()
tk_functrace_test(contexts.callinfo contexts.functext contexts.callinfo callinfo -- 0x500 0xb00)
tk_functrace_test(contexts.context2 contexts.functext contexts.ctx2.calltree calltree --context=2)

# parse: the events, and the warnings (file:line) for malformed lines
add_test(NAME functrace.parse
         COMMAND sh -c "cd '${TK_FT_DIR}' && '${TK_BIN}' parse data/contexts.functext | cmp - expected/contexts.parse")
add_test(NAME functrace.parse-malformed
         COMMAND sh -c "cd '${TK_FT_DIR}' && '${TK_BIN}' parse data/malformed.functext 2>'${TK_FT_WORK}/m.err' | cmp - expected/malformed.parse && cmp '${TK_FT_WORK}/m.err' expected/malformed.stderr")
# detection by content, not by name; --format forces one
add_test(NAME functrace.detect
         COMMAND sh -c "mkdir -p '${TK_FT_WORK}' && cp '${TK_FT_DIR}/data/recursion.functext' '${TK_FT_WORK}/rec.tarmac' && '${TK_BIN}' calltree --no-index '${TK_FT_WORK}/rec.tarmac' | cmp - '${TK_FT_DIR}/expected/recursion.calltree' && ! '${TK_BIN}' calltree --no-index --format=tarmac '${TK_FT_WORK}/rec.tarmac' 2>/dev/null")
# register and memory questions on a trace without them: said clearly
add_test(NAME functrace.no-registers
         COMMAND sh -c "mkdir -p '${TK_FT_WORK}/noregs' && cp '${TK_FT_DIR}/data/recursion.functext' '${TK_FT_WORK}/noregs/' && cd '${TK_FT_WORK}/noregs' && ! '${TK_BIN}' dump recursion.functext regs 1 2>err && grep -q 'the trace has no register values' err && ! '${TK_BIN}' vcd recursion.functext -o x.vcd 2>err && grep -q 'has no instructions' err && [ ! -e x.vcd ]")
add_test(NAME functrace.deep
         COMMAND ${TK_FT_DIR}/deep.sh ${TK_BIN} ${TK_FT_WORK}/deep 1000000)
set_tests_properties(functrace.deep PROPERTIES TIMEOUT 900)
