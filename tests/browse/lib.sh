# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers for the browser's screen tests: run `tracekit browse` inside a
# private tmux server, type keys, and wait for text on the screen.
#
#   . lib.sh NAME             (then TK_BIN and TK_TRACES must be set)
#   start COLS ROWS ARGS...   run the browser on a COLSxROWS terminal
#   keys KEY...               tmux send-keys names: Down, PPage, C-l, F1, Enter...
#   wait_for REGEX [SECS]     poll the screen until a line matches (fail on timeout)
#   wait_gone REGEX [SECS]    poll until no line matches
#   expect_no REGEX           fail if a line matches now
#   row_of REGEX              the first screen row (0-based) matching
#   new_server                before a second start in the same test
#
# Each test has its own tmux socket (-L) and work directory, removed on exit
# whatever happens.
set -u
TEST_NAME=${1:?test name}
: "${TK_BIN:?}" "${TK_TRACES:?}"
SOCK="tkb-$TEST_NAME-$$"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tkb-$TEST_NAME.XXXXXX")
SCREEN_FILE="$WORK/screen.txt"

cleanup() {
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
	echo "FAIL [$TEST_NAME]: $*" >&2
	if [ -f "$SCREEN_FILE" ]; then
		echo "---- screen ----" >&2
		cat "$SCREEN_FILE" >&2
		echo "----------------" >&2
	fi
	exit 1
}

# start COLS ROWS ARGS...: the index goes into the work directory, since
# the shared traces are read-only.
start() {
	local cols=$1 rows=$2
	shift 2
	local cmd="$TK_BIN browse --index=$WORK/trace.index -q"
	for a in "$@"; do
		cmd="$cmd '$a'"
	done
	tmux -L "$SOCK" -f /dev/null new-session -d -s main -x "$cols" -y "$rows" \
		"env TERM=${TKB_TERM:-screen-256color} $cmd; echo '[exited]' \$?; sleep 30" ||
		fail "tmux could not start"
	wait_for 'Trace: ' 30
}

# Quit this tmux server and use a fresh one (and a fresh index) for the
# next start: a new server name, since the old one may still be exiting.
NSERVER=0
new_server() {
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -f "$WORK/trace.index"
	NSERVER=$((NSERVER + 1))
	SOCK="tkb-$TEST_NAME-$$-$NSERVER"
}

keys() {
	tmux -L "$SOCK" send-keys -t main "$@" || fail "send-keys $*"
}

# Type literal text (no key-name interpretation).
type_text() {
	tmux -L "$SOCK" send-keys -t main -l "$1" || fail "send-keys -l $1"
}

capture() {
	tmux -L "$SOCK" capture-pane -p -t main >"$SCREEN_FILE" 2>/dev/null
}

wait_for() {
	local re=$1 secs=${2:-10} i=0
	while [ $i -lt $((secs * 20)) ]; do
		capture
		if grep -Eq -- "$re" "$SCREEN_FILE"; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	fail "timed out waiting for /$re/"
}

wait_gone() {
	local re=$1 secs=${2:-10} i=0
	while [ $i -lt $((secs * 20)) ]; do
		capture
		if ! grep -Eq -- "$re" "$SCREEN_FILE"; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	fail "timed out waiting for /$re/ to go away"
}

expect_no() {
	capture
	if grep -Eq -- "$1" "$SCREEN_FILE"; then
		fail "unexpected /$1/ on screen"
	fi
}

row_of() {
	capture
	grep -En -- "$1" "$SCREEN_FILE" | head -n 1 | cut -d: -f1 | awk '{print $1 - 1}'
}

# The row of the position marker (a line of box-drawing or '-' characters).
marker_row() {
	row_of '^(─|q|-){20}'
}

# l: go to a line through the prompt.
goto_line() {
	keys l
	wait_for 'Go to line:'
	type_text "$1"
	keys Enter
}

pass() {
	echo "PASS [$TEST_NAME]"
	exit 0
}

# The current position shown in the trace status line ("P/N").
status_pos() {
	capture
	head -n 1 "$SCREEN_FILE" | grep -Eo '[0-9]+/[0-9]+ *$' | cut -d/ -f1
}

# Wait until the position differs from $1; print it.
wait_pos_change() {
	local old=$1 i=0 now
	while [ $i -lt 200 ]; do
		now=$(status_pos)
		if [ -n "$now" ] && [ "$now" != "$old" ]; then
			echo "$now"
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	fail "position stayed at $old"
}

# Wait until the marker is on row $1 of the screen.
wait_marker_row() {
	local want=$1 i=0
	while [ $i -lt 200 ]; do
		[ "$(marker_row)" = "$want" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	fail "marker on row $(marker_row), want $want"
}

# wait_attr LINE_REGEX SGR_REGEX: poll the screen with its attributes until
# a line matching LINE_REGEX carries an SGR sequence matching SGR_REGEX
# (e.g. '44m' for a blue background).
wait_attr() {
	local line=$1 sgr=$2 i=0
	while [ $i -lt 200 ]; do
		tmux -L "$SOCK" capture-pane -e -p -t main >"$WORK/esc.txt" 2>/dev/null
		if grep -a -- "$line" "$WORK/esc.txt" | grep -aq $'\e\\[[0-9;]*'"$sgr"; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	capture
	fail "no /$sgr/ attribute on a line matching /$line/"
}
