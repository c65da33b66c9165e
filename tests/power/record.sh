#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Record a ppc64le test program under qemu-ppc64le and write its stream of
# executed instructions.
#   record.sh QEMU CPU PROGRAM.elf QEMU2STREAM OUT.stream
# The test programs exit with status 232 (their checksum: prog/calls.c).
set -eu
qemu=$1 cpu=$2 elf=$3 q2s=$4 out=$5
log=$out.log
set +e
"$qemu" -cpu "$cpu" -singlestep -d exec,cpu,nochain -D "$log" "$elf"
status=$?
set -e
if [ "$status" != 232 ]; then
	echo "record.sh: $elf exited with $status under qemu, not 232" >&2
	exit 1
fi
"$q2s" "$elf" "$log" >"$out.tmp"
mv "$out.tmp" "$out"
rm -f "$log"
