#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Every shared Tarmac trace, compressed in the test build as VARIANT (gz:
# gzip; zst: zstd, one frame; seek: `tracekit compress`, seekable zstd of
# small frames; xz: xz of small blocks; gz-cat: two gzip members), gives the
# same output as the plain trace from every tool: parse, calltree, profile,
# flamegraph, callinfo, vcd, truncate (streaming, from a file and from
# standard input), the index summary and dump's answers (text of positions
# included, read through the checkpoint table), and calltree from the index.
# Usage: compressed.sh VARIANT (environment: TK_BIN, TK_TRACES, TK_WORK).
set -u
bin=${TK_BIN:?}
traces=${TK_TRACES:?}
work=${TK_WORK:?}
variant=${1:?}
mkdir -p "$work"
failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

compress() { # plain out
	case $variant in
	gz) gzip -c "$1" > "$2" ;;
	gz-cat) head -c 20000 "$1" | gzip -1 -c > "$2" && tail -c +20001 "$1" | gzip -9 -c >> "$2" ;;
	zst) zstd -q -c "$1" > "$2" ;;
	seek) "$bin" compress -q --frame-size=16K --level=3 -o "$2" "$1" ;;
	xz) xz -c --block-size=32KiB "$1" > "$2" ;;
	*) echo "unknown variant $variant"; exit 2 ;;
	esac
}

# same NAME CMD... : stdout and exit status of CMD on the plain trace (%P)
# and on the compressed one (%C) are equal; stderr too, file names aside.
same() {
	name=$1
	shift
	a=$(for x in "$@"; do printf '%s\n' "$x"; done | sed "s|%P|$plain|g; s|%I|$pidx|g")
	b=$(for x in "$@"; do printf '%s\n' "$x"; done | sed "s|%P|$comp|g; s|%I|$cidx|g")
	(IFS='
'; set -f; $a) > "$work/p.out" 2> "$work/p.err"
	ra=$?
	(IFS='
'; set -f; $b) > "$work/c.out" 2> "$work/c.err"
	rb=$?
	sed -i "s|$comp|TRACE|g; s|$cidx|INDEX|g" "$work/c.err"
	sed -i "s|$plain|TRACE|g; s|$pidx|INDEX|g" "$work/p.err"
	checks=$((checks + 1))
	if [ $ra -ne $rb ]; then
		fail "$name ($base): exit $ra plain, $rb $variant"
		cat "$work/c.err"
	elif ! cmp -s "$work/p.out" "$work/c.out"; then
		fail "$name ($base): output differs"
		diff "$work/p.out" "$work/c.out" | head -5
	elif ! cmp -s "$work/p.err" "$work/c.err"; then
		fail "$name ($base): messages differ"
		diff "$work/p.err" "$work/c.err" | head -5
	fi
}

for plain in "$traces"/*.tarmac "$traces"/*.txt "$traces"/calltests/*.tarmac "$traces"/truncate/*.tarmac; do
	base=$(basename "$plain")
	comp=$work/$base.$variant
	pidx=$work/$base.plain.index
	cidx=$work/$base.$variant.index
	rm -f "$cidx" "$cidx.ckpt"
	compress "$plain" "$comp" || { fail "cannot compress $base"; continue; }
	opt=--li
	case $base in *implicit-thumb*) opt=--implicit-thumb ;; esac
	same parse "$bin" parse $opt %P
	same calltree "$bin" calltree $opt --no-index %P
	same profile "$bin" profile $opt --no-index %P
	same flamegraph "$bin" flamegraph $opt --no-index %P
	addrs=$("$bin" profile $opt --no-index "$plain" 2>/dev/null | awk 'NR > 1 && NR < 6 {print $1}')
	[ -n "$addrs" ] && same callinfo "$bin" callinfo $opt --no-index %P $addrs
	same vcd "$bin" vcd $opt --no-date -o - %P
	same truncate "$bin" truncate $opt %P
	# standard input
	"$bin" calltree $opt < "$plain" > "$work/p.out" 2>/dev/null
	"$bin" calltree $opt < "$comp" > "$work/c.out" 2>/dev/null
	cmp -s "$work/p.out" "$work/c.out" || fail "calltree < stdin ($base)"
	"$bin" truncate $opt < "$comp" > "$work/c.out" 2>/dev/null
	"$bin" truncate $opt "$plain" > "$work/p.out" 2>/dev/null
	cmp -s "$work/p.out" "$work/c.out" || fail "truncate < stdin ($base)"
	# the index and its answers
	"$bin" index -q $opt --index="$pidx" "$plain" > /dev/null 2>&1
	"$bin" index $opt --index="$pidx" "$plain" 2>/dev/null | grep -v -e '^trace:' -e '^index:' -e 'time:' > "$work/p.sum"
	"$bin" index $opt --index="$cidx" "$comp" 2>/dev/null | grep -v -e '^trace:' -e '^index:' -e 'time:' -e '^random access:' > "$work/c.sum"
	checks=$((checks + 1))
	cmp -s "$work/p.sum" "$work/c.sum" || { fail "index summary ($base)"; diff "$work/p.sum" "$work/c.sum" | head; }
	n=$("$bin" dump $opt --index="$pidx" "$plain" pos end 2>/dev/null | awk '{print $2}')
	[ -n "$n" ] || n=0
	for q in "pos end" "regs end" "calls" "text 1" "text end" "text #$((n / 2))" "text #$((n / 3))" \
		 "text #$((n * 7 / 8))" "pos #$((n / 2))" "regs #$((n / 3))" "find-time 1000"; do
		same "dump $q" "$bin" dump $opt --index=%I %P $q
	done
	same "calltree (index)" "$bin" calltree $opt --index=%I %P
	case $variant in
	gz | gz-cat | zst)
		[ -s "$cidx.ckpt" ] || fail "no checkpoint table beside $cidx" ;;
	*)
		[ ! -e "$cidx.ckpt" ] || fail "a checkpoint table for $variant beside $cidx" ;;
	esac
	# without its checkpoint table, dump text rebuilds it, and so does
	# index (which says so)
	if [ -e "$cidx.ckpt" ]; then
		rm -f "$cidx.ckpt"
		same "dump text (table rebuilt)" "$bin" dump $opt --index=%I %P text "#$((n / 2))"
		[ -s "$cidx.ckpt" ] || fail "checkpoint table not rebuilt ($base)"
		rm -f "$cidx.ckpt"
		"$bin" index $opt --index="$cidx" "$comp" 2>/dev/null | grep -q '^random access: .*(rebuilt and saved (it was missing))' ||
			fail "index did not rebuild the checkpoint table ($base)"
		"$bin" index $opt --index="$cidx" "$comp" 2>/dev/null | grep -q '^random access: .*(loaded)' ||
			fail "index did not load the checkpoint table ($base)"
	fi
done
rm -f "$work/p.out" "$work/c.out" "$work/p.err" "$work/c.err"
echo "$variant: $checks comparisons, $failures failed"
[ $failures -eq 0 ]
