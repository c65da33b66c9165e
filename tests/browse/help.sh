#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# F1 / F10: a help screen per pane; Up/Down/PgUp/PgDn scroll it, any other
# key returns to the display.
. "$(dirname "$0")/lib.sh" help
start 100 30 "$TK_TRACES/quicksort.tarmac"

keys F1
wait_for '^ Trace pane$'
wait_for 'fold up the function call containing the position'
wait_for 'help \(1/[0-9]+\)'
expect_no 'Register panes'
keys NPage
wait_for 'help \([2-9][0-9]*/'
wait_for 'Ctrl-W +delete one word'	# the general section follows
keys Up
wait_for 'help \([0-9]+/'
keys x				# any other key closes the help
wait_for 'Core registers'
wait_gone 'help \('

keys Tab F10			# the register pane has its own help
wait_for '^ Register panes$'
wait_for 'show in the status line the symbol'
wait_for 'lock the pane to a line number'
expect_no '^ Trace pane$'
keys Escape
wait_for 'Core registers'

keys Tab			# back to the trace pane
wait_attr ' Trace: ' '44m'

# Memory and call-stack panes have theirs too.
keys m
wait_for 'Memory address:'
type_text 0x80fc
keys Enter
keys c
wait_for '^ Call stack'
keys Tab Tab F1			# trace -> registers -> memory
wait_for '^ Memory panes$'
wait_for 'previous / next highlighted \(changed\) address'
keys Down
keys Escape
wait_for '^ Memory: 0x80fc'
keys Tab F10
wait_for '^ Call-stack pane$'
wait_for 'go to the call site of the selected call'
keys Escape
wait_for '^ Call stack'
keys q
wait_for '\[exited\] 0'
pass
