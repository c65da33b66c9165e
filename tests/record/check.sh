#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit record tests: one check per run, called by tests/record.cmake.
#
#   check.sh STEP TRACEKIT SRCDIR NAME ELF [ARGS...]
#
# NAME names the recording (NAME.tarmac, NAME.out in the working directory);
# expectations come from SRCDIR/expect/.  Exits 77 (skip) when the program
# could not be built (no cross compiler) or tracekit has no recorder.
#
# Steps:
#   record PROG STATUS ARGS...  record ELF; stdout must equal expect/PROG.out
#                               and the exit status STATUS
#   parse                       `tracekit parse` reads the trace, no warning
#   calls PROG                  `tracekit profile --image` counts the calls
#                               listed in expect/PROG.calls
#   memory PROG                 `tracekit dump ... mem end` shows the bytes
#                               listed in expect/PROG.mem at the end
#   same ARGS...                two recordings are byte-identical, and equal
#                               to one made with --all-regs
#   fault PROG KIND ARGS...     the program faults: exit 1, stdout is
#                               expect/PROG.out, stderr and the trace's last
#                               line say what happened (expect/KIND.fault)
#   limit N                     --max-insns N: exactly N instructions, exit 0
#   files ARGS...               semihosting file access, with and without
#                               --allow-fs
#   escape                      a program trying to write outside its
#                               working directory is confined
#   interrupt                   SIGINT/SIGTERM while recording keep the trace
#                               so far, valid, at the target
#   targets                     unusable -o targets and sizes fail before
#                               the program runs; --max-trace-size
#   usage                       the recorder's own command line errors
set -u
step=$1 tk=$2 src=$3 name=$4 elf=$5
shift 5
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$elf" ] || skip "$elf was not built (cross compiler missing?)"
"$tk" record --help >/dev/null 2>&1 || skip "tracekit built without the recorder"
trace=$name.tarmac

need_trace() {
	[ -s "$trace" ] || fail "$trace missing (the record step failed?)"
}

case $step in
record)
	prog=$1 status=$2
	shift 2
	# @EMPTY@ stands for an empty argument (CMake lists drop them).
	for a in "$@"; do
		shift
		[ "$a" = @EMPTY@ ] && a=
		set -- "$@" "$a"
	done
	"$tk" record "$elf" "$@" -o "$trace" > "$name.out" 2> "$name.err"
	rc=$?
	cat "$name.err"
	diff -u "$src/expect/$prog.out" "$name.out" || fail "output differs"
	[ "$rc" = "$status" ] || fail "exit status $rc, expected $status"
	[ ! -s "$name.err" ] || fail "unexpected messages on stderr"
	;;
parse)
	need_trace
	"$tk" parse "$trace" > "$name.parsed" 2> "$name.parse.err"
	rc=$?
	head -20 "$name.parse.err"
	[ "$rc" = 0 ] || fail "tracekit parse exit status $rc"
	[ ! -s "$name.parse.err" ] || fail "tracekit parse printed diagnostics"
	insns=$(grep -c ' INSN ' "$name.parsed")
	lines=$(grep -c -E ' I[TS] \(' "$trace")
	[ "$insns" = "$lines" ] || fail "parse saw $insns instructions, the trace has $lines"
	echo "parsed $insns instructions"
	;;
calls)
	need_trace
	prog=$1
	"$tk" profile --image="$elf" "$trace" > "$name.profile" 2> "$name.profile.err" ||
		fail "tracekit profile failed: $(cat "$name.profile.err")"
	bad=0
	while read -r fn count; do
		[ -z "$fn" ] && continue
		got=$(awk -v f="$fn" '$4 == f { print $2 }' "$name.profile")
		if [ "$got" != "$count" ]; then
			echo "$fn: ${got:-no entry} calls, expected $count"
			bad=1
		else
			echo "$fn: $count calls"
		fi
	done < "$src/expect/$prog.calls"
	[ $bad = 0 ] || { cat "$name.profile"; fail "call counts differ"; }
	;;
memory)
	need_trace
	prog=$1
	"$tk" dump --help >/dev/null 2>&1 || skip "tracekit has no dump command yet"
	bad=0
	while read -r sym off hex; do
		[ -z "$sym" ] && continue
		addr=$("$tk" symbols "$elf" "$sym" | awk -v s="$sym" '$4 == s { print $1 }')
		[ -n "$addr" ] || fail "no symbol $sym in $elf"
		want=$(echo "$hex" | tr -d ' ')
		len=$(( ${#want} / 2 ))
		at=$(printf '0x%x' $(( addr + off )))
		got=$("$tk" dump --index="$name.index" "$trace" mem end "$at" "$len" 2>&1 |
			sed -n 's/^[0-9a-fA-F]*: //p' | tr -d ' \n')
		if [ "$got" != "$want" ]; then
			echo "$sym+$off ($at): got ${got:-nothing}, expected $want"
			bad=1
		else
			echo "$sym+$off ($at): $want"
		fi
	done < "$src/expect/$prog.mem"
	[ $bad = 0 ] || fail "memory differs"
	;;
same)
	"$tk" record "$elf" "$@" -o "$name.1.tarmac" > /dev/null 2>&1
	"$tk" record "$elf" "$@" -o "$name.2.tarmac" > /dev/null 2>&1
	"$tk" record --all-regs "$elf" "$@" -o "$name.3.tarmac" > /dev/null 2>&1
	[ -s "$name.1.tarmac" ] || fail "no trace"
	cmp "$name.1.tarmac" "$name.2.tarmac" || fail "two recordings differ"
	cmp "$name.1.tarmac" "$name.3.tarmac" || fail "--all-regs finds register changes the normal recording missed"
	echo "identical: $(wc -l < "$name.1.tarmac") lines"
	rm -f "$name.1.tarmac" "$name.2.tarmac" "$name.3.tarmac"
	;;
fault)
	prog=$1 kind=$2
	shift 2
	"$tk" record "$elf" "$@" -o "$trace" > "$name.out" 2> "$name.err"
	rc=$?
	cat "$name.err"
	diff -u "$src/expect/$prog.out" "$name.out" || fail "output differs"
	[ "$rc" = 1 ] || fail "exit status $rc, expected 1"
	want=$(cat "$src/expect/$kind.fault")
	grep -q -F "$want" "$name.err" || fail "stderr does not say '$want'"
	tail -1 "$trace" | grep -q -F " E " || fail "the trace does not end with an E line"
	tail -1 "$trace" | grep -q -F "$want" || fail "the E line does not say '$want'"
	tail -1 "$trace"
	;;
limit)
	n=$1
	shift
	"$tk" record --max-insns="$n" "$elf" "$@" -o "$trace" > /dev/null 2> "$name.err"
	rc=$?
	cat "$name.err"
	[ "$rc" = 0 ] || fail "exit status $rc"
	got=$(grep -c -E ' I[TS] \(' "$trace")
	[ "$got" = "$n" ] || fail "$got instructions in the trace, expected $n"
	grep -q "stopped after $n instructions" "$name.err" || fail "no message about --max-insns"
	"$tk" record -q --max-insns="$n" "$elf" "$@" -o "$trace" 2>&1 >/dev/null | grep . &&
		fail "-q still prints"
	echo "$got instructions"
	;;
files)
	# Run in a directory of our own: the program creates, reads and
	# removes a file there.
	dir=$name.dir
	rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
	echo outside > "$dir/outside.txt"
	abs=$(cd "$dir" && pwd)/outside.txt
	(cd "$dir" && "$tk" record "$elf" scratch.txt "$abs" -o ../"$trace") > "$name.out" 2>&1 ||
		fail "record failed: $(cat "$name.out")"
	diff -u "$src/expect/files.out" "$name.out" || fail "output differs"
	[ ! -e "$dir/scratch.txt" ] || fail "the program's file was not removed"
	(cd "$dir" && "$tk" record --allow-fs "$elf" scratch.txt "$abs" -o ../"$name.fs.tarmac") > "$name.fs.out" 2>&1 ||
		fail "record --allow-fs failed"
	grep -q 'absolute path: opened' "$name.fs.out" || fail "--allow-fs did not allow $abs"
	echo "confined without --allow-fs, allowed with it"
	;;
escape)
	# work/ is the program's working directory, outside/ its sibling:
	# escape-link -> ../outside/created.txt (dangling), dirlink ->
	# ../outside, victim-link -> ../outside/victim.txt (which exists).
	base=$name.esc
	rm -rf "$base" && mkdir -p "$base/work/sub" "$base/outside" || fail "cannot make $base"
	echo victim > "$base/outside/victim.txt"
	ln -s ../outside/created.txt "$base/work/escape-link"
	ln -s ../outside "$base/work/dirlink"
	ln -s ../outside/victim.txt "$base/work/victim-link"
	(cd "$base/work" && "$tk" record "$elf" -o ../trace.tarmac) > "$name.out" 2>&1 ||
		fail "record failed: $(cat "$name.out")"
	diff -u "$src/expect/escape.out" "$name.out" || fail "output differs"
	left=$(ls "$base/outside" | tr '\n' ' ')
	[ "$left" = "victim.txt " ] || fail "files appeared outside: $left"
	[ "$(cat "$base/outside/victim.txt")" = victim ] || fail "the link's target was changed"
	[ -e "$base/work/renamed.txt" ] || fail "the rename inside did not happen"
	[ ! -e "$base/work/nul.txt" ] || fail "a name with a NUL was cut short and opened"
	[ ! -L "$base/work/victim-link" ] || fail "remove did not remove the link"
	# With --allow-fs the same program reaches outside.
	(cd "$base/work" && "$tk" record --allow-fs "$elf" -o ../trace-fs.tarmac) > "$name.fs.out" 2>&1
	grep -q 'dangling link out: written' "$name.fs.out" || fail "--allow-fs: $(cat "$name.fs.out")"
	[ -e "$base/outside/created.txt" ] || fail "--allow-fs: the link was not followed"
	rm -rf "$base"
	echo "confined: $(tr '\n' ';' < "$name.out")"
	;;
interrupt)
	# The program waits for console input for ever (its stdin a fifo
	# nobody writes to); SIGINT, then SIGTERM, stop the recording, which
	# keeps the trace so far, valid, at the target, and says so.
	rm -f "$name.in"
	mkfifo "$name.in" || fail "mkfifo"
	for sig in INT TERM; do
		rm -f "$name.$sig.tarmac" "$name.$sig.tarmac".tmp.*	# a killed run's
		sleep 60 > "$name.in" &
		holder=$!
		env --default-signal=INT "$tk" record "$elf" -o "$name.$sig.tarmac" \
			< "$name.in" > "$name.$sig.out" 2> "$name.$sig.err" &
		pid=$!
		# A failure must not leave the recording running (at end of
		# input the program spins, and its trace grows by gigabytes).
		trap 'kill $pid $holder 2> /dev/null' EXIT
		for i in $(seq 300); do
			grep -q waiting "$name.$sig.out" 2> /dev/null && break
			sleep 0.1
		done
		grep -q waiting "$name.$sig.out" || fail "SIG$sig: the program did not start in 30 s"
		kill -$sig $pid
		wait $pid
		rc=$?
		kill $holder 2> /dev/null
		wait $holder 2> /dev/null
		[ $rc -ne 0 ] || fail "SIG$sig: exit status 0"
		[ -s "$name.$sig.tarmac" ] || fail "SIG$sig: no trace at the target ($(cat "$name.$sig.err"))"
		grep -q "interrupted by SIG$sig" "$name.$sig.err" || fail "SIG$sig: not said: $(cat "$name.$sig.err")"
		ls | grep -q "^$name.$sig.tarmac.tmp" && fail "SIG$sig: temporary file left"
		"$tk" parse --count "$name.$sig.tarmac" > /dev/null 2> "$name.$sig.parse" ||
			fail "SIG$sig: the trace does not parse"
		[ ! -s "$name.$sig.parse" ] || fail "SIG$sig: the trace has bad lines: $(head -3 "$name.$sig.parse")"
		[ "$(tail -c 1 "$name.$sig.tarmac" | od -An -c | tr -d ' ')" = '\n' ] ||
			fail "SIG$sig: the trace ends mid-line"
		echo "SIG$sig (exit $rc): $(grep -c ' IT (' "$name.$sig.tarmac") instructions kept"
	done
	trap - EXIT
	rm -f "$name.in"
	;;
targets)
	# Unusable targets fail before the program runs (its console output
	# never appears), with exit status 1.
	rm -rf "$name.dir" "$name.ro"
	mkdir -p "$name.dir"
	echo keep > "$name.ro"
	chmod 444 "$name.ro"
	for t in "$name.dir" "no-such-dir/x.tarmac" "$name.ro"; do
		"$tk" record "$elf" -o "$t" > "$name.out" 2> "$name.err"
		rc=$?
		[ $rc = 1 ] || fail "-o $t: exit status $rc"
		[ ! -s "$name.out" ] || fail "-o $t: the program ran"
		grep -q . "$name.err" || fail "-o $t: no message"
	done
	[ "$(cat "$name.ro")" = keep ] || fail "the read-only target was replaced"
	# Sizes: 0 and near 2^64 are refused (usage errors).
	for o in --stack-size=0 --heap-size=0 --stack-size=18446744073709551615 \
		 --heap-size=0xfffffffffffff000 --stack-size=17179869183G --max-trace-size=-1; do
		"$tk" record $o "$elf" -o "$name.tarmac" > /dev/null 2> "$name.err"
		rc=$?
		[ $rc = 2 ] || fail "$o: exit status $rc ($(cat "$name.err"))"
	done
	# --max-trace-size stops the trace once it reaches the size (the
	# trace stays valid); --help states the default and --max-insns=0.
	"$tk" record --max-trace-size=64K "$elf" -o "$name.cap.tarmac" > /dev/null 2> "$name.err"
	rc=$?
	[ $rc = 1 ] || fail "--max-trace-size: exit status $rc"
	grep -q 'max-trace-size' "$name.err" || fail "--max-trace-size: not said"
	size=$(wc -c < "$name.cap.tarmac")
	[ "$size" -ge 65536 ] && [ "$size" -lt 70000 ] || fail "--max-trace-size=64K: $size bytes"
	"$tk" parse --count "$name.cap.tarmac" > /dev/null 2> "$name.err" && [ ! -s "$name.err" ] ||
		fail "--max-trace-size: the trace does not parse cleanly"
	"$tk" record --help | grep -q -- '--max-trace-size=N.*10G' || fail "--help: no default trace size"
	"$tk" record --help | grep -A1 -- '--max-insns=N' | grep -q '0' || fail "--help: --max-insns=0"
	rm -rf "$name.dir" "$name.ro" "$name.cap.tarmac"
	echo "targets and sizes refused before running"
	;;
usage)
	"$tk" record --help | grep -q 'PROGRAM.elf' || fail "no --help"
	expect_rc() { # status, description, command...
		local want=$1 what=$2
		shift 2
		"$@" > /dev/null 2> "$name.err"
		local rc=$?
		[ "$rc" = "$want" ] || fail "$what: exit status $rc, expected $want"
	}
	expect_rc 2 "no PROGRAM" "$tk" record
	expect_rc 2 "no -o" "$tk" record "$elf"
	expect_rc 2 "unknown option" "$tk" record --bogus "$elf" -o "$name.tarmac"
	expect_rc 2 "unknown CPU" "$tk" record --cpu=cortex-z9 "$elf" -o "$name.tarmac"
	expect_rc 1 "Arm ELF as AArch64" "$tk" record --arch=arm "$elf" -o "$name.tarmac"
	# newlib's start-up code has no escapes: an argument with a blank and
	# both quotes cannot reach the program intact, so it is refused.
	expect_rc 2 "unquotable argument" "$tk" record "$elf" "it's \"both\"" -o "$name.tarmac"
	grep -q 'both kinds of quote' "$name.err" || fail "the unquotable argument is not explained"
	expect_rc 1 "missing ELF" "$tk" record does-not-exist.elf -o "$name.tarmac"
	grep -q 'does-not-exist.elf' "$name.err" || fail "the missing ELF is not named"
	expect_rc 1 "not an ELF" "$tk" record "$0" -o "$name.tarmac"
	grep -q 'not an ELF' "$name.err" || fail "a non-ELF file is not reported as such"
	echo "usage errors reported"
	;;
*)
	fail "unknown step $step"
	;;
esac
exit 0
