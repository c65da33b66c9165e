#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Output files of every command that writes one (tools/cli/output.h):
# regular files replaced atomically with their mode kept, symbolic links
# followed, fifos and character devices written directly and left as they
# are, "-" is standard output, directories, read-only files and the inputs
# themselves refused before anything is written, no temporary file left
# after a failure or a signal, and an index path naming the trace refused.
# Usage: outputs.sh CASE (environment: TK_BIN, TK_TRACES, TK_WORK, and for
# the record cases TK_REC_ELF, a recordable program, or empty to skip).
set -u
bin=${TK_BIN:?}
traces=${TK_TRACES:?}
work=${TK_WORK:?}/$1
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
umask 022
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
trace=$traces/quicksort.tarmac
cp "$trace" t.tarmac
chmod 644 t.tarmac

# run CMD OUT: the command writing OUT, for each command under test.
run() {
	case $cmd in
	vcd) "$bin" vcd --no-date -o "$2" "$1" ;;
	flamegraph) "$bin" flamegraph -o "$2" "$1" ;;
	truncate) "$bin" truncate -o "$2" "$1" ;;
	record)
		# The program's console goes to standard output, or to stderr
		# when the trace does.
		if [ "$2" = - ]; then
			"$bin" record -q --max-insns=2000 -o - "$TK_REC_ELF" 2> /dev/null
		else
			"$bin" record -q --max-insns=2000 -o "$2" "$TK_REC_ELF" > /dev/null
		fi ;;
	esac
}
# What the command writes, for comparisons.
reference() {
	case $cmd in
	vcd) "$bin" vcd --no-date -o - t.tarmac ;;
	flamegraph) "$bin" flamegraph t.tarmac ;;
	truncate) cat t.tarmac ;;
	record) "$bin" record -q --max-insns=2000 -o - "$TK_REC_ELF" 2> /dev/null ;;
	esac
}
no_temporaries() {
	if ls -a "$1" | grep -q '\.tmp\.'; then fail "$2: a temporary file is left in $1"; fi
}
mode_of() { stat -c %a "$1"; }

check_command() {
	reference > want || { fail "$cmd: no reference output"; return; }
	# A new file: 0666 less the umask.
	run t.tarmac new.out; rc=$?
	[ $rc -eq 0 ] || fail "$cmd new file: exit $rc"
	cmp -s want new.out || fail "$cmd new file: wrong content"
	[ "$(mode_of new.out)" = 644 ] || fail "$cmd new file: mode $(mode_of new.out), not 644"
	# An existing file: replaced, its mode kept.
	echo old > old.out
	chmod 640 old.out
	run t.tarmac old.out || fail "$cmd existing file: exit $?"
	cmp -s want old.out || fail "$cmd existing file: wrong content"
	[ "$(mode_of old.out)" = 640 ] || fail "$cmd existing file: mode $(mode_of old.out), not 640"
	# A symbolic link (and a chain of two): the target is written.
	echo old > target.out
	ln -s target.out link1
	ln -s link1 link2
	run t.tarmac link2 || fail "$cmd symlink: exit $?"
	[ -L link2 ] && [ -L link1 ] || fail "$cmd symlink: the link was replaced"
	cmp -s want target.out || fail "$cmd symlink: the target was not written"
	# A dangling link: its target is created.
	ln -s created.out dangling
	run t.tarmac dangling || fail "$cmd dangling symlink: exit $?"
	[ -L dangling ] && cmp -s want created.out || fail "$cmd dangling symlink: target not created"
	# A fifo: written directly, streaming, and left a fifo.
	mkfifo fifo
	cat fifo > from-fifo &
	reader=$!
	run t.tarmac fifo || fail "$cmd fifo: exit $?"
	wait $reader
	[ -p fifo ] || fail "$cmd fifo: no longer a fifo"
	cmp -s want from-fifo || fail "$cmd fifo: the reader did not get the output"
	# A character device: written, never replaced.
	if [ "$(id -u)" = 0 ] && mknod null c 1 3 2> /dev/null; then
		run t.tarmac null || fail "$cmd char device: exit $?"
		[ -c null ] || fail "$cmd char device: replaced by a $(stat -c %F null)"
	else
		echo "skipped: character device (needs root and mknod)"
		# /dev/null itself is only looked at, never risked.
	fi
	[ -c /dev/null ] || fail "/dev/null is no longer a character device"
	# "-": standard output.
	run t.tarmac - > stdout.out || fail "$cmd -: exit $?"
	cmp -s want stdout.out || fail "$cmd -: wrong standard output"
	# A directory: refused.
	mkdir dir
	run t.tarmac dir 2> err; rc=$?
	[ $rc -eq 1 ] && grep -q 'is a directory' err || fail "$cmd directory: exit $rc, $(cat err)"
	[ -d dir ] || fail "$cmd directory: replaced"
	# A read-only file: refused, not replaced.
	echo keep > ro.out
	chmod 444 ro.out
	run t.tarmac ro.out 2> err; rc=$?
	[ $rc -eq 1 ] && grep -q 'read-only' err || fail "$cmd read-only: exit $rc, $(cat err)"
	[ "$(cat ro.out)" = keep ] || fail "$cmd read-only: the file was replaced"
	# The input itself, by its name, a symbolic link and a hard link.
	if [ $cmd != record ]; then
		ln -s t.tarmac tlink
		ln t.tarmac thard
		for o in t.tarmac tlink thard; do
			run t.tarmac $o 2> err; rc=$?
			[ $rc -eq 1 ] && grep -q 'is the input' err || fail "$cmd -o $o (the input): exit $rc, $(cat err)"
			cmp -s t.tarmac "$trace" || fail "$cmd -o $o: the trace was changed"
			cp "$trace" t.tarmac 2> /dev/null
		done
	else
		cp "$TK_REC_ELF" prog.elf
		"$bin" record -q -o prog.elf prog.elf 2> err; rc=$?
		[ $rc -eq 1 ] && grep -q 'is the input' err || fail "record -o PROGRAM: exit $rc, $(cat err)"
		cmp -s prog.elf "$TK_REC_ELF" || fail "record -o PROGRAM: the program was changed"
	fi
	no_temporaries . "$cmd"
}

case $1 in
vcd|flamegraph|truncate)
	cmd=$1
	check_command
	;;
record)
	if [ -z "${TK_REC_ELF:-}" ] || [ ! -f "$TK_REC_ELF" ]; then
		echo "skipped: no recordable program (cross compiler missing)"
		exit 0
	fi
	cmd=record
	check_command
	;;
stdout-input)
	# Standard output redirected into the input trace: refused before
	# anything is written (>> keeps the trace intact).
	"$bin" flamegraph t.tarmac >> t.tarmac 2> err; rc=$?
	[ $rc -eq 1 ] && grep -q 'standard output is the input' err || fail "stdout = input: exit $rc, $(cat err)"
	cmp -s t.tarmac "$trace" || fail "stdout = input: the trace was changed"
	;;
failure)
	# A command failing after opening its output: the target is left as
	# it was and no temporary file remains.
	printf 'ELF\0\0\0binary\0' > binary.tarmac
	echo old > out
	"$bin" truncate -o out binary.tarmac 2> err; rc=$?
	[ $rc -eq 1 ] || fail "truncate of binary input: exit $rc"
	[ "$(cat out)" = old ] || fail "failed truncate: the output was replaced"
	no_temporaries . failure
	;;
signal)
	# SIGTERM and SIGINT while the output is being written: the temporary
	# file is removed, the target left as it was.
	for sig in TERM INT; do
		mkfifo slow
		echo old > out
		# A writer that keeps the fifo open: truncate waits for more.
		( cat t.tarmac; exec sleep 30 ) > slow &
		writer=$!
		# A shell without job control starts background commands with
		# SIGINT ignored: give it back its default action.
		env --default-signal=INT "$bin" truncate -o out slow &
		pid=$!
		sleep 1
		ls | grep -q '^out\.tmp\.' || fail "signal $sig: no temporary file while writing"
		kill -$sig $pid
		wait $pid; rc=$?
		kill $writer 2> /dev/null
		wait $writer 2> /dev/null
		[ $rc -ne 0 ] || fail "signal $sig: exit status 0"
		[ "$(cat out)" = old ] || fail "signal $sig: the output was replaced"
		no_temporaries . "signal $sig"
		rm -f slow
	done
	;;
index-path)
	# An index path naming the trace: refused, the trace intact.
	for c in index dump; do
		args=
		[ $c = dump ] && args="regs 0"
		"$bin" $c --index=t.tarmac t.tarmac $args > /dev/null 2> err; rc=$?
		[ $rc -eq 1 ] && grep -q 'is the input' err || fail "$c --index=TRACE: exit $rc, $(cat err)"
		cmp -s t.tarmac "$trace" || fail "$c --index=TRACE: the trace was changed"
		ln -sf t.tarmac ilink
		"$bin" $c --index=ilink t.tarmac $args > /dev/null 2> err; rc=$?
		[ $rc -eq 1 ] || fail "$c --index=link-to-TRACE: exit $rc"
		cmp -s t.tarmac "$trace" || fail "$c --index=link-to-TRACE: the trace was changed"
	done
	;;
index-full-disk)
	# dump needs an index: when its file cannot be written (a full file
	# system: a 16 KB tmpfs), it indexes into memory for the run and
	# answers, as the report tools stream.  Needs a private mount.
	mkdir full
	if ! unshare -m true 2> /dev/null; then
		echo "skipped: cannot make a private mount namespace"
		exit 0
	fi
	unshare -m sh -c "mount -t tmpfs -o size=16k tmpfs full 2> /dev/null || exit 77
		'$bin' dump --index=full/q.index t.tarmac reg 100 x0 > out 2> err; echo \$? > rc
		ls full > left"
	if [ $? -eq 77 ]; then
		echo "skipped: cannot mount a tmpfs"
		exit 0
	fi
	[ "$(cat rc)" = 0 ] || fail "dump on a full disk: exit $(cat rc): $(cat err)"
	[ "$(cat out)" = "x0 0000000000100000" ] || fail "dump on a full disk: '$(cat out)'"
	grep -q 'using a temporary index in memory' err || fail "dump on a full disk: $(cat err)"
	[ -z "$(cat left)" ] || fail "dump on a full disk left $(cat left)"
	;;
*)
	echo "unknown case $1"; exit 2 ;;
esac
[ $failures -eq 0 ] && echo "all ok"
exit $failures
