#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The browser on compressed traces: the same keys on quicksort.tarmac and
# on its gzip, seekable zstd and xz copies give the same screens (the trace
# name in the title aside).  Moves, jumps to lines far apart, the end and
# back: every screen's lines come through the page cache over
# tk_input_pread.  (environment: TK_BIN, TK_TRACES)
. "$(dirname "$0")/../browse/lib.sh" compressed
plain="$TK_TRACES/quicksort.tarmac"
gzip -c "$plain" > "$WORK/q.tarmac.gz"
xz -c --block-size=16KiB "$plain" > "$WORK/q.tarmac.xz"
"$TK_BIN" compress -q --frame-size=8K -o "$WORK/q.tarmac.zst" "$plain" || fail "compress"

# Wait until the screen stops changing, then keep it as $1.
settle() {
	local prev="" i=0
	while [ $i -lt 100 ]; do
		capture
		cur=$(cat "$SCREEN_FILE")
		[ -n "$prev" ] && [ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.1
		i=$((i + 1))
	done
	sed '1s/^ Trace: [^ ]*/ Trace: TRACE/; 1s/  */ /g' "$SCREEN_FILE" > "$1"
}

run() { # TRACE TAG
	start 110 36 "$1"
	wait_for 'Line: 157  Time: 1'
	settle "$WORK/$2.0"
	n=1
	for k in Down Down NPage End Home PPage; do
		keys "$k"
		settle "$WORK/$2.$n"
		n=$((n + 1))
	done
	for line in 4000 900 2500 160 4321; do
		goto_line "$line"
		wait_gone 'Go to line:'
		settle "$WORK/$2.$n"
		n=$((n + 1))
		keys Up
		settle "$WORK/$2.$n"
		n=$((n + 1))
	done
	keys q
	new_server
	rm -f "$WORK/trace.index.ckpt"
}

run "$plain" plain
# the keys moved: the end, a jump, another jump are other screens
cmp -s "$WORK/plain.0" "$WORK/plain.4" && fail "End did not move"
cmp -s "$WORK/plain.7" "$WORK/plain.9" && fail "the jumps did not move"
grep -Eq " 204[34]/2044" "$WORK/plain.4" || fail "End is not at the last instruction"
for v in gz zst xz; do
	run "$WORK/q.tarmac.$v" "$v"
	for f in "$WORK"/plain.*; do
		s=${f##*.}
		cmp -s "$f" "$WORK/$v.$s" || { diff "$f" "$WORK/$v.$s" | head; fail "$v: screen $s differs"; }
	done
done
pass
