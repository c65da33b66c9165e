#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A terminal that cannot move the cursor (TERM=dumb, an editor's shell
# buffer): a clear message and a failure exit, instead of every screen
# printed as one long line.
. "$(dirname "$0")/lib.sh" dumbterm
qs="$TK_TRACES/quicksort.tarmac"
tmux -L "$SOCK" -f /dev/null new-session -d -s main -x 100 -y 20 \
	"env TERM=dumb $TK_BIN browse --index=$WORK/trace.index -q '$qs'; echo '[exited]' \$?; sleep 30" ||
	fail "tmux could not start"
wait_for '\[exited\] 1' 30
wait_for 'TERM=dumb cannot move the cursor'
expect_no 'Trace: '
pass
