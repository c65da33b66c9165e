#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Not a terminal: a clear message and a failure exit, no curses garbage.
. "$(dirname "$0")/lib.sh" notty
qs="$TK_TRACES/quicksort.tarmac"

out=$("$TK_BIN" browse --index="$WORK/q.index" -q "$qs" </dev/null 2>"$WORK/err" >"$WORK/out")
rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, want 1"
grep -q "standard output is not a terminal" "$WORK/err" || fail "message: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "wrote to stdout: $(head -c 200 "$WORK/out")"

# The alias behaves the same.
"$(dirname "$TK_BIN")/tarmac-browser" --index="$WORK/q.index" -q "$qs" </dev/null >/dev/null 2>"$WORK/err2"
[ $? -eq 1 ] || fail "tarmac-browser: exit status, want 1"
grep -q "^tarmac-browser: standard output is not a terminal" "$WORK/err2" || fail "alias message: $(cat "$WORK/err2")"

# Standard input is not a trace the browser can index.
"$TK_BIN" browse - </dev/null >/dev/null 2>"$WORK/err3"
[ $? -eq 2 ] || fail "browse -: want usage error"
grep -q "needs a trace file" "$WORK/err3" || fail "stdin message: $(cat "$WORK/err3")"

# --only-index needs no terminal.
"$TK_BIN" browse --index="$WORK/q.index" -q --only-index "$qs" </dev/null >/dev/null 2>&1 ||
	fail "--only-index failed"
[ -s "$WORK/q.index" ] || fail "--only-index wrote no index"
pass
