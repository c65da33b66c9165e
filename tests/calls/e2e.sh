#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of calltree, callinfo, profile and flamegraph on the
# shared real traces.  Usage: e2e.sh CASE (environment: TK_BIN, TK_TRACES,
# TK_WORK = a scratch directory).  Every expected value below was checked by
# reading the trace; see the comment of each case.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${TK_BIN:?}
traces=${TK_TRACES:?}
work=${TK_WORK:-/tmp}
bindir=$(dirname "$bin")
calls=$traces/calltests
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# same NAME GOT WANT
same() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
# golden NAME FILE CMD...: the command's stdout equals FILE, through both
# paths: streaming the trace (--no-index), and from an index (built, then
# reused).
golden() {
	name=$1 file=$2
	shift 2
	idx="$work/golden.$$.index"
	rm -f "$idx"
	for path in "--no-index" "--index=$idx --force-index" "--index=$idx"; do
		# shellcheck disable=SC2086
		"$@" $path > "$work/out.$$" 2> "$work/err.$$" ||
			fail "$name ($path): exit status $? ($(cat "$work/err.$$"))"
		diff -u "$file" "$work/out.$$" > "$work/diff.$$" ||
			{ fail "$name ($path) differs:"; cat "$work/diff.$$"; }
	done
	rm -f "$work/out.$$" "$work/err.$$" "$work/diff.$$" "$idx"
}

case_calltree32() {
	# calltest32.tarmac, by instruction number (IT (n)); sp is 0x100000 in
	# _start and 0xffff8 inside a function that pushed {r4,lr}.
	#  4 BL leaf_bx_lr, returns by BX lr (8) to 0x200c4.
	#  10 BLX r1 -> nonleaf_pop_pc, which calls leaf_bx_lr (12, BL) and
	#     leaf_mov_pc_lr (17, BL; MOV pc,lr returns) and returns by
	#     POP {r4,pc} (22).  Its two children are confirmed while the dead
	#     potential calls left by the leaves' returns (lr still near) are
	#     pending; the POP raises sp, discarding those, so both children
	#     land under nonleaf_pop_pc in order.
	#  24 MOV lr,pc; 25 BX r1: a two-instruction call to nonleaf_pop_lr,
	#     which calls leaf_mov_pc_lr and leaf_bx_lr, then POP {r4,lr}; BX lr.
	#  40 BL call_via_r1, which tail-calls leaf_mov_pc_lr with BX r1 (41):
	#     lr 0x200e0 is 128 bytes from 0x20160, so no call; one activation
	#     from 0x2015c to the MOV pc,lr at 0x20134.
	#  49/57/65 LDR lr,=loopstart; B leaf_bx_lr: stunt calls, lr 16 bytes
	#     past the natural return; each returns to loopstart (0x200e4).
	#     The taken BCS at 72 has lr 7 instructions old and 8 bytes away: a
	#     potential call that nothing ever returns to.
	#  73 BL internal_bl, whose BL at 78 is a branch (lr never used): its
	#     potential call is discarded when POP {r4,pc} (82) raises sp.
	#  83 BL internal_bx_lr: ADD lr,pc,r1,LSL #3; BX lr is a table branch,
	#     never returned to; the function returns by POP {r4,pc} (91).
	#  92 BL branch_after_call_wrapper -> 94 BL branch_after_call, returning
	#     by POP {r4,lr}; BX lr (100) and again (102).
	#  104 BNE just after a return (lr recent and near) is no call either.
	golden calltree32 "$here/calltest32.calltree" "$bin" calltree "$calls/calltest32.tarmac"
}

case_calltree64() {
	# The same program for AArch64 (x30/sp), same shape except that it has
	# no internal_bl/internal_bx_lr: 4 BL leaf_ret; 10 BLR x1 ->
	# nonleaf_pop_lr (two BL leaf_ret inside, LDP x19,x30; RET); 25 BL
	# call_via_x1, tail-calling leaf_ret with BR x1; four stunt calls
	# LDR x30,=loopstart; B leaf_ret; 71 BL branch_after_call_wrapper ->
	# 73 BL branch_after_call.  With --image only _start is named: the other
	# labels are local untyped symbols.
	golden calltree64 "$here/calltest64.calltree" "$bin" calltree "$calls/calltest64.tarmac"
	out=$("$bin" calltree --image "$calls/calltest64.elf" "$calls/calltest64.tarmac" | head -1)
	same calltree64.image "$out" "o t:1000000 l:164 pc:0x210120 - t:86000000 l:336 pc:0x210170 : _start"
}

case_seed_example() {
	# The seed's calltree example is a piece of calculator-aarch32's tree:
	# Lexer::next_inner (0x20784) calling nextch, getch and sys_read.  It
	# sits at depth 3, so its lines carry 12 more columns of indentation.
	"$bin" calltree "$traces/calculator-aarch32-fastmodel.tarmac" |
		sed -n '/^            o t:89 l:283 /,/^  - /p' | sed '$d' | cut -c13- > "$work/seed.$$"
	diff -u "$here/seed-example.calltree" "$work/seed.$$" || fail "seed example differs"
	rm -f "$work/seed.$$"
}

case_quicksort() {
	# quicksort.tarmac (AArch64): c_entry calls quicksort once (BL at
	# 0x8020) and quicksort recurses with the BL at 0x8078 26 times: the
	# trace has 27 instructions at 0x8038.  All return (RET at 0x8050).
	# _start's BL {pc}+4 at 0x8008 goes to the next instruction: no
	# transfer of control, so c_entry is no activation of its own.
	img="--image $traces/quicksort.elf"
	n=$("$bin" calltree $img "$traces/quicksort.tarmac" | grep -c ' : quicksort$')
	same quicksort.activations "$n" 27
	n=$("$bin" calltree $img "$traces/quicksort.tarmac" | grep -c '^ *- .* pc:0x8078 - .* pc:0x807c$')
	same quicksort.recursive-calls "$n" 26
	# the deepest activations: two at depth 7 (column 28), none deeper
	n=$("$bin" calltree "$traces/quicksort.tarmac" | grep -c '^                            o ')
	same quicksort.depth7 "$n" 2
	n=$("$bin" calltree "$traces/quicksort.tarmac" | grep -c '^                              ')
	same quicksort.depth8 "$n" 0
	out=$("$bin" calltree $img "$traces/quicksort.tarmac" | tail -2)
	same quicksort.last "$out" "  - t:2029 l:4288 pc:0x8028 - t:2034 l:4296 pc:0x802c
    o t:2030 l:4290 pc:0x80ec - t:2033 l:4295 pc:0x80f8 : sys_write0"
}

case_callinfo() {
	# Arm's format: for a symbol, "Symbol 'NAME' at 0xADDR (SIZE bytes)
	# called from :" (quicksort is 144 bytes at 0x8038 in the ELF's symbol
	# table), then " - time: T (line:L, pos:P)" per call, with a leading
	# space.  27 calls to quicksort; the first enters at line 177 ("10 clk
	# IT (10) 00008038 ..."), byte 6251 of the file; the second at line 860.
	img="--image $traces/quicksort.elf"
	out=$("$bin" callinfo $img "$traces/quicksort.tarmac" quicksort)
	same callinfo.count "$(echo "$out" | grep -c '^ - time: ')" 27
	same callinfo.head "$(echo "$out" | head -3)" "Symbol 'quicksort' at 0x8038 (144 bytes) called from :
 - time: 10 (line:177, pos:6251)
 - time: 367 (line:860, pos:40670)"
	same callinfo.pos "$(tail -c +6252 "$traces/quicksort.tarmac" | head -1 | cut -c1-31)" \
		"10 clk IT (10) 00008038 a9be57f"
	# hex, decimal and the symbol name are the same function; an address
	# gets no header line (and its Thumb bit, bit 0, is ignored)
	same callinfo.hex "$("$bin" callinfo "$traces/quicksort.tarmac" 0x8038)" \
		"$(echo "$out" | tail -n +2)"
	same callinfo.decimal "$("$bin" callinfo "$traces/quicksort.tarmac" 32824)" \
		"$(echo "$out" | tail -n +2)"
	same callinfo.thumbbit "$("$bin" callinfo "$traces/quicksort.tarmac" 0x8039)" \
		"$(echo "$out" | tail -n +2)"
	# several functions, in the order given; sys_exit (36 bytes) is never
	# called; _start (12 bytes) is the whole trace's activation, entered at
	# line 157 ("1 clk IT (1) 00008000", byte 5305): called once, as Arm's
	# tool lists it.
	out=$("$bin" callinfo $img "$traces/quicksort.tarmac" sys_write0 sys_exit _start 0x8000)
	same callinfo.multi "$out" "Symbol 'sys_write0' at 0x80ec (16 bytes) called from :
 - time: 2030 (line:4290, pos:216439)
Symbol 'sys_exit' at 0x80c8 (36 bytes) called from :
Symbol '_start' at 0x8000 (12 bytes) called from :
 - time: 1 (line:157, pos:5305)
 - time: 1 (line:157, pos:5305)"
	same callinfo.start.pos "$(tail -c +5306 "$traces/quicksort.tarmac" | head -1 | cut -c1-21)" \
		"1 clk IT (1) 00008000"
	# errors: symbol without --image, unknown symbol
	"$bin" callinfo "$traces/quicksort.tarmac" quicksort > /dev/null 2> "$work/err.$$"
	same callinfo.noimage.status $? 2
	grep -q "symbol names need --image" "$work/err.$$" || fail "callinfo.noimage message"
	"$bin" callinfo $img "$traces/quicksort.tarmac" no_such_fn > /dev/null 2> "$work/err.$$"
	same callinfo.unknown.status $? 2
	grep -q "no symbol 'no_such_fn'" "$work/err.$$" || fail "callinfo.unknown message"
	rm -f "$work/err.$$"
}

case_profile() {
	# Time = exit - entry + 1 per activation (both ends count, as in Arm's
	# tarmac-profile).  quicksort: the root (_start, 0x8000) spans t:1..2044,
	# 2044; quicksort's 27 activations span 5509 time units from entry to
	# exit (recursion counted again; the sum of the calltree's o-line
	# differences), plus 1 each: 5536; sys_write0 runs from t:2030 to
	# t:2033: 4.
	golden profile.quicksort "$here/quicksort.profile" \
		"$bin" profile --image "$traces/quicksort.elf" "$traces/quicksort.tarmac"
	# Without --image the name column is empty and the line ends after Time.
	out=$("$bin" profile "$traces/quicksort.tarmac" | sed -n 2p)
	same profile.noname "$out" "0x8000      1           2044"
	# The calculator: the three traces (AArch64 and AArch32 Fast Model, and
	# the AArch64 ES/LD/ST style) run the same program, so every function
	# has the same call count.  The A64 trace has 160 BL and 158 RET: c_entry
	# and sys_exit never return, so they are no calls.
	for t in aarch64-fastmodel aarch32-fastmodel aarch64-es-ld-st-style; do
		elf=$traces/calculator-${t%%-*}.elf
		out=$("$bin" profile --image "$elf" "$traces/calculator-$t.tarmac" |
			awk 'NR > 1 { print $2, $4 }' | sed 's/Ej$/Em/' | tr '\n' ' ')
		same "profile.calculator-$t" "$out" "1 _start 1 sys_open 2 sys_read 9 sys_writec 1 sys_write0 1 _ZL5printj 1 _ZN10FileReaderC2Em 1 _ZN5LexerC2ER10FileReader 1 _ZN6ParserC2ER5Lexer 1 _ZN6Parser9try_parseEv 23 _ZN5Lexer4nextEv 23 _ZN5Lexer10next_innerEv 30 _ZN5Lexer6nextchEv 30 _ZN10FileReader5getchEv 1 _ZN6Parser4exprERj 3 _ZN6Parser3addERj 8 _ZN6Parser4multERj 11 _ZN6Parser5powerERj 11 _ZN6Parser4atomERj "
	done
	# the header, exactly
	out=$("$bin" profile "$calls/calltest32.tarmac" | head -1)
	same profile.header "$out" "Address     Count       Time        Function name"
	# calltest32: leaf_bx_lr 0x20118 is entered 6 times (by BL x3 and the
	# 3 stunt calls), 3 us from entry to BX lr each (4 instructions, 1 us =
	# 1000000 ps apart), + 1 ps each for the last instruction: 18000006.
	out=$("$bin" profile "$calls/calltest32.tarmac" | grep '^0x20118 ')
	same profile.leaf "$out" "0x20118     6           18000006"
}

case_flamegraph() {
	# Folded stacks for quicksort: self times, each stack once, sorted.
	golden flamegraph.quicksort "$here/quicksort.folded" \
		"$bin" flamegraph --image "$traces/quicksort.elf" "$traces/quicksort.tarmac"
	# The self times add up to the whole trace (t:1 to t:2044).
	sum=$("$bin" flamegraph "$traces/quicksort.tarmac" | awk '{ s += $NF } END { print s }')
	same flamegraph.sum "$sum" 2043
	# Without --image, frames are hex addresses.
	out=$("$bin" flamegraph "$traces/quicksort.tarmac" | tail -1)
	same flamegraph.hex "$out" "0x8000;0x80ec 3"
	# A trace whose timestamps never advance counts instructions: calltest32
	# with every timestamp set to 0 has 107 instructions.
	sed 's/^[0-9]* ps /0 ps /' "$calls/calltest32.tarmac" > "$work/notime.$$.tarmac"
	sum=$("$bin" flamegraph -q "$work/notime.$$.tarmac" | awk '{ s += $NF } END { print s }')
	same flamegraph.insns "$sum" 107
	# leaf_bx_lr: 6 activations of 4 instructions each, called from _start
	# (3 BL + 3 stunt calls) or from the two non-leaf functions.
	out=$("$bin" flamegraph -q "$work/notime.$$.tarmac" | grep '^0x200b4;0x20118 ')
	same flamegraph.leaf "$out" "0x200b4;0x20118 16"
	# --unit=instructions on the real trace gives the same numbers
	sum=$("$bin" flamegraph --unit=instructions "$calls/calltest32.tarmac" | awk '{ s += $NF } END { print s }')
	same flamegraph.unit "$sum" 107
	rm -f "$work/notime.$$.tarmac"
	# -o writes the file atomically; --svg draws it.
	"$bin" flamegraph -o "$work/fg.$$.txt" "$traces/quicksort.tarmac" || fail "flamegraph -o"
	same flamegraph.output "$(cat "$work/fg.$$.txt")" "$("$bin" flamegraph "$traces/quicksort.tarmac")"
	"$bin" flamegraph --svg -o "$work/fg.$$.svg" --image "$traces/quicksort.elf" \
		"$traces/quicksort.tarmac" || fail "flamegraph --svg"
	grep -q '^<svg version="1.1"' "$work/fg.$$.svg" || fail "svg header"
	# one box per distinct stack: 9 (the root, 7 quicksort depths, sys_write0)
	same flamegraph.svg.boxes "$(grep -c '<g class="f"' "$work/fg.$$.svg")" 9
	grep -q 'data-name="quicksort"><title>quicksort (2017 time units, 98.73%, 1 call)</title>' \
		"$work/fg.$$.svg" || fail "svg box for quicksort"
	if command -v xmllint > /dev/null; then
		xmllint --noout "$work/fg.$$.svg" || fail "svg is not well-formed XML"
	fi
	rm -f "$work/fg.$$.txt" "$work/fg.$$.svg"
}

case_aliases() {
	# The classic names run the same code with the same options.
	for c in calltree profile flamegraph; do
		a=$("$bindir/tarmac-$c" "$calls/calltest32.tarmac")
		b=$("$bin" "$c" "$calls/calltest32.tarmac")
		same "alias.$c" "$a" "$b"
		[ -n "$a" ] || fail "alias.$c: no output"
	done
	a=$("$bindir/tarmac-callinfo" --image "$traces/quicksort.elf" "$traces/quicksort.tarmac" quicksort)
	b=$("$bin" callinfo --image "$traces/quicksort.elf" "$traces/quicksort.tarmac" quicksort)
	same alias.callinfo "$a" "$b"
	"$bindir/tarmac-calltree" --help | grep -q '^usage: tarmac-calltree ' || fail "alias help"
}

case_debug() {
	# --debug=call_heuristics explains each decision: calltest32 has 15
	# confirmed calls.
	n=$("$bin" calltree --debug=call_heuristics "$calls/calltest32.tarmac" 2>&1 >/dev/null |
		grep -c 'call confirmed')
	same debug.confirmed "$n" 15
	"$bin" calltree --debug=call_heuristics "$calls/calltest32.tarmac" 2>&1 >/dev/null |
		grep -q '^call_heuristics: line 155: 0x200f0 -> 0x20118: potential call: lr 0x200e4 written 1 instruction before the branch, 16 bytes from 0x200f4' ||
		fail "debug: stunt call explanation"
	# options are checked
	"$bin" profile --no-such-option "$calls/calltest32.tarmac" > /dev/null 2>&1
	same usage.status $? 2
	"$bin" calltree "$calls/calltest32.tarmac" extra > /dev/null 2>&1
	same usage.extra $? 2
	"$bin" flamegraph --unit=bogus "$calls/calltest32.tarmac" > /dev/null 2>&1
	same usage.unit $? 2
	"$bin" calltree "$work/no-such-trace.$$" > /dev/null 2>&1
	same missing.status $? 1
}

case_aarch32_w_regs() {
	# An AArch32 trace whose register lines name the AArch64 views (W14 is
	# lr_usr, W19 sp_svc, as the seed allows: "also used to report register
	# updates in 32-bit code").  BL at 0x8000 sets lr 0x8004, the callee at
	# 0x800c returns with BX lr at sp unchanged: one call, whose '-' line
	# goes from the BL to the MOV at 0x8004.
	cat > "$work/w32.$$.tarmac" <<'TRACE'
1 clk R W19 00100000
1 clk IT (1) 00008000 eb000001 A svc_s : BL {pc}+0xc
1 clk R W14 00008004
2 clk IT (2) 0000800c e12fff1e A svc_s : BX lr
3 clk IT (3) 00008004 e3a01000 A svc_s : MOV r1,#0
3 clk R W1 00000000
TRACE
	out=$("$bin" calltree --no-index "$work/w32.$$.tarmac")
	same w32.calltree "$out" "o t:1 l:2 pc:0x8000 - t:3 l:5 pc:0x8004 :
  - t:1 l:2 pc:0x8000 - t:3 l:5 pc:0x8004
    o t:2 l:4 pc:0x800c - t:2 l:4 pc:0x800c :"
	rm -f "$work/w32.$$.tarmac"
}

case_multicpu() {
	# tests/calls/data/multicpu.tarmac: two CPUs' lines interleaved.  cpu0:
	# BL at 0x8000 to 0x8100, which pushes {r4,lr} (sp 0x10000 -> 0xfff8),
	# calls 0x814c (BL at 0x8104; BX lr back to 0x8108) and returns by
	# POP {r4,pc} to 0x8004.  cpu1: BL at 0x9000 to a leaf at 0x9100
	# returning by BX lr to 0x9004.  Each CPU has its own lr and sp (cpu1's
	# BL writes r14 between cpu0's instructions), its own call stack and its
	# own tree, each root spanning that CPU's instructions.  Both paths.
	want="cpu0:
o t:1 l:3 pc:0x8000 - t:6 l:18 pc:0x8004 :
  - t:1 l:3 pc:0x8000 - t:6 l:18 pc:0x8004
    o t:2 l:7 pc:0x8100 - t:5 l:15 pc:0x8108 :
      - t:3 l:10 pc:0x8104 - t:5 l:15 pc:0x8108
        o t:4 l:13 pc:0x814c - t:4 l:13 pc:0x814c :
cpu1:
o t:1 l:5 pc:0x9000 - t:5 l:17 pc:0x9008 :
  - t:1 l:5 pc:0x9000 - t:4 l:14 pc:0x9004
    o t:2 l:9 pc:0x9100 - t:3 l:12 pc:0x9104 :"
	cp "$here/data/multicpu.tarmac" "$work/multicpu.tarmac"
	rm -f "$work/multicpu.tarmac.index"
	same multicpu.stream "$("$bin" calltree --no-index "$work/multicpu.tarmac")" "$want"
	same multicpu.indexed "$("$bin" calltree --force-index "$work/multicpu.tarmac")" "$want"
	same multicpu.context1 "$("$bin" calltree --context=1 "$work/multicpu.tarmac")" \
		"$(printf '%s\n' "$want" | tail -n 3)"
	same multicpu.profile "$("$bin" profile "$work/multicpu.tarmac")" "Address     Count       Time        Function name
0x8000      1           6
0x8100      1           4
0x814c      1           1
0x9000      1           5
0x9100      1           2"
	"$bin" calltree --context=7 "$work/multicpu.tarmac" >/dev/null 2>"$work/err.$$" &&
		fail "multicpu: --context=7 accepted"
	grep -q "no context 7 in the trace" "$work/err.$$" || fail "multicpu: $(cat "$work/err.$$")"
	rm -f "$work/err.$$" "$work/multicpu.tarmac" "$work/multicpu.tarmac.index"
}

case_cbnz_entry() {
	# tests/calls/data/cbnz-entry.tarmac: a recursive A64 function at
	# 0x1000, called from 0x1024, that starts with CBNZ (taken while n > 0).
	# Each taken CBNZ comes one instruction after a BL, with that BL's lr
	# 36 or 16 bytes from its natural return: by the lr rules alone it is a
	# potential call with the same lr and sp as the BL.  The BL wrote lr
	# itself and the CBNZ did not, so the BL keeps it: every activation
	# starts at 0x1000 (the function's entry), none at 0x1008.  Nested
	# three deep: main's call, then two recursive ones; each returns to the
	# instruction after its BL (0x1028, 0x1014, 0x1014).
	out=$("$bin" calltree --no-index "$here/data/cbnz-entry.tarmac")
	same cbnz-entry.calltree "$out" "o t:1 l:3 pc:0x1020 - t:17 l:39 pc:0x1028 :
  - t:2 l:5 pc:0x1024 - t:17 l:39 pc:0x1028
    o t:3 l:7 pc:0x1000 - t:16 l:38 pc:0x1018 :
      - t:6 l:14 pc:0x1010 - t:15 l:33 pc:0x1014
        o t:7 l:16 pc:0x1000 - t:14 l:32 pc:0x1018 :
          - t:10 l:23 pc:0x1010 - t:13 l:27 pc:0x1014
            o t:11 l:25 pc:0x1000 - t:12 l:26 pc:0x1004 :"
}

case_offsets() {
	# tests/calls/data/offsets.tarmac: _start (0x8000) calls, by BL at
	# 0x8008, an address 8 bytes into c_entry (0x800c in quicksort.elf):
	# Arm's tools name that activation "c_entry + 0x8", and --no-offsets
	# leaves the offset out (calltree, profile, flamegraph).
	img="--image $traces/quicksort.elf"
	t=$here/data/offsets.tarmac
	out=$("$bin" calltree $img "$t" | tail -1)
	same offsets.calltree "$out" "    o t:4 l:7 pc:0x8014 - t:5 l:8 pc:0x8018 : c_entry + 0x8"
	out=$("$bin" calltree --no-offsets $img "$t" | tail -1)
	same offsets.calltree.no "$out" "    o t:4 l:7 pc:0x8014 - t:5 l:8 pc:0x8018 : c_entry"
	out=$("$bin" profile $img "$t" | tail -1)
	same offsets.profile "$out" "0x8014      1           2           c_entry + 0x8"
	out=$("$bin" profile --no-offsets $img "$t" | tail -1)
	same offsets.profile.no "$out" "0x8014      1           2           c_entry"
	out=$("$bin" flamegraph $img "$t" | tail -1)
	same offsets.flamegraph "$out" "_start;c_entry + 0x8 1"
	out=$("$bin" flamegraph --no-offsets $img "$t" | tail -1)
	same offsets.flamegraph.no "$out" "_start;c_entry 1"
	# The root starts at _start's first byte: no offset either way.
	out=$("$bin" calltree $img "$t" | head -1)
	same offsets.root "$out" "o t:1 l:1 pc:0x8000 - t:6 l:9 pc:0x800c : _start"
}

case_deep_recursion() {
	# A function at 0x2000 that calls itself 50,000 deep (each level pushes
	# 16 bytes, then BL; the deepest falls through to the LDP/RET that every
	# level returns through), called once from 0x1000: 50,000 activations,
	# all pending at once before the first return (more than the 32,768
	# pending potential calls an earlier limit kept).
	awk -v N=50000 'BEGIN { t = 0; sp = 268435456
		printf "0 clk R SP_EL1 %016x\n", sp
		printf "%d clk IT (%d) 0000000000001000 94000400 O EL1h_s : BL f\n", ++t, t
		printf "%d clk R X30 %016x\n", t, 4100
		for (d = 0; d < N; d++) {
			printf "%d clk IT (%d) 0000000000002000 a9bf7bfd O EL1h_s : STP x29,x30,[sp,#-16]!\n", ++t, t
			sp -= 16; printf "%d clk R SP_EL1 %016x\n", t, sp
			if (d < N - 1) {
				printf "%d clk IT (%d) 0000000000002004 94000000 O EL1h_s : BL f\n", ++t, t
				printf "%d clk R X30 %016x\n", t, 8200
			}
		}
		printf "%d clk IT (%d) 0000000000002004 d503201f O EL1h_s : NOP\n", ++t, t
		for (d = 0; d < N; d++) {
			printf "%d clk IT (%d) 0000000000002008 a8c17bfd O EL1h_s : LDP x29,x30,[sp],#16\n", ++t, t
			sp += 16; printf "%d clk R X30 %016x\n", t, d == N - 1 ? 4100 : 8200
			printf "%d clk R SP_EL1 %016x\n", t, sp
			printf "%d clk IT (%d) 000000000000200c d65f03c0 O EL1h_s : RET\n", ++t, t
		}
		printf "%d clk IT (%d) 0000000000001004 d503201f O EL1h_s : NOP\n", ++t, t
	}' > "$work/deep.$$.tarmac"
	# Times count both ends (exit - entry + 1): the root spans t:1 to
	# t:200002; the activation at depth d (0-based) spans 4 * (N - d) - 2
	# steps, so the 50,000 sum to 2 * N * (N + 1) - 2 * N = 5000050000,
	# plus 1 each: 5000100000.
	out=$("$bin" profile --no-index "$work/deep.$$.tarmac")
	same deep.profile "$out" "Address     Count       Time        Function name
0x1000      1           200002
0x2000      50000       5000100000"
	rm -f "$work/deep.$$.tarmac"
}

case_demangle() {
	# --demangle shows C++ names demangled (calculator-aarch32.elf is C++:
	# _ZN5Lexer10next_innerEv is Lexer::next_inner(), the function of the
	# seed's calltree example, 23 calls); demangled names are accepted
	# where symbols are, and the ELF names still work.
	img=$traces/calculator-aarch32.elf
	tr=$traces/calculator-aarch32-fastmodel.tarmac
	out=$("$bin" profile --no-index --demangle --image="$img" "$tr" | grep -E '^0x(20618|20784) ')
	# Times are exit - entry + 1: Lexer::Lexer runs from t:59 to t:68 (10);
	# the 23 activations of next_inner span 3288 in all, + 23 = 3311.
	same demangle.profile "$out" "0x20618     1           10          Lexer::Lexer(FileReader&)
0x20784     23          3311        Lexer::next_inner()"
	out=$("$bin" callinfo --no-index --demangle --image="$img" "$tr" 'Lexer::next_inner()')
	same demangle.callinfo "$(echo "$out" | head -n 1)" "Symbol 'Lexer::next_inner()' at 0x20784 (968 bytes) called from :"
	same demangle.callinfo.count "$(echo "$out" | grep -c '^ - time:')" 23
	out=$("$bin" callinfo --no-index --demangle --image="$img" "$tr" _ZN5Lexer10next_innerEv)
	same demangle.linkage "$(echo "$out" | head -n 1)" "Symbol '_ZN5Lexer10next_innerEv' at 0x20784 (968 bytes) called from :"
	same demangle.linkage.count "$(echo "$out" | grep -c '^ - time:')" 23
	out=$("$bin" calltree --no-index --demangle --image="$img" "$tr" | sed -n 5p)
	same demangle.calltree "$out" "    o t:43 l:179 pc:0x205e8 - t:54 l:203 pc:0x20614 : FileReader::FileReader(unsigned int)"
	# Without --demangle, the ELF names, as Arm's tools print them.
	out=$("$bin" profile --no-index --image="$img" "$tr" | grep -E '^0x20784 ')
	same demangle.off "$out" "0x20784     23          3311        _ZN5Lexer10next_innerEv"
}

case_flamegraph_oom_output() {
	# A failed flamegraph -o must not leave a half-written FILE: 5000-deep
	# recursion makes folded lines of up to 35 kB, 90 MB of them, which a
	# 48 MB address space cannot hold after the trace has been read.  (Under
	# the sanitizers the limit stops the program at once: nothing to check.)
	command -v prlimit > /dev/null 2>&1 || { echo "no prlimit: skipped"; return; }
	awk 'BEGIN {
		t = 0; sp = 268435456
		printf "0 clk R SP_EL1 %016x\n", sp
		printf "%d clk IT (%d) 0000000000001000 94000400 O EL1h_s : BL f\n", ++t, t
		printf "%d clk R X30 0000000000001004\n", t
		for (d = 0; d < 5000; d++) {
			printf "%d clk IT (%d) 0000000000002000 d10043ff O EL1h_s : SUB sp,sp,#16\n", ++t, t
			sp -= 16; printf "%d clk R SP_EL1 %016x\n", t, sp
			printf "%d clk IT (%d) 0000000000002004 b4000040 O EL1h_s : CBZ x0,+8\n", ++t, t
			if (d < 4999) {
				printf "%d clk IT (%d) 0000000000002008 97fffffe O EL1h_s : BL f\n", ++t, t
				printf "%d clk R X30 000000000000200c\n", t
			}
		}
		for (d = 0; d < 5000; d++) {
			printf "%d clk IT (%d) 000000000000200c 910043ff O EL1h_s : ADD sp,sp,#16\n", ++t, t
			sp += 16; printf "%d clk R SP_EL1 %016x\n", t, sp
			printf "%d clk IT (%d) 0000000000002010 d65f03c0 O EL1h_s : RET\n", ++t, t
		}
		printf "%d clk IT (%d) 0000000000001004 d503201f O EL1h_s : NOP\n", ++t, t
	}' > "$work/deep.$$.tarmac"
	rm -rf "$work/fgout.$$"
	mkdir "$work/fgout.$$"
	prlimit --as=50331648 "$bin" flamegraph --no-index -o "$work/fgout.$$/deep.folded" \
		"$work/deep.$$.tarmac" > /dev/null 2> "$work/fgerr.$$"
	status=$?
	if grep -q 'out of memory' "$work/fgerr.$$"; then
		same oom.status "$status" 1
		same oom.leftovers "$(ls -A "$work/fgout.$$")" ""
	else
		echo "flamegraph did not run out of memory (status $status): skipped"
	fi
	rm -rf "$work/fgout.$$" "$work/fgerr.$$" "$work/deep.$$.tarmac"
}

case_flamegraph_svg_control_chars() {
	# XML 1.0 cannot carry control characters (not even as &#1;): a title
	# (here --title; by default the trace's file name) with one is written
	# with '?' in its place, so the SVG stays well-formed.
	"$bin" flamegraph --no-index --svg --title="$(printf 'a\001b')" -o "$work/cc.$$.svg" \
		"$traces/quicksort.tarmac" || fail "flamegraph --svg --title"
	same svg.title "$(grep -o '<text id="title"[^<]*' "$work/cc.$$.svg")" '<text id="title" x="600" y="24">a?b'
	same svg.control_bytes "$(tr -d '\t\n\r -~\200-\377' < "$work/cc.$$.svg" | wc -c)" 0
	rm -f "$work/cc.$$.svg"
}

"case_$1"
if [ "$failures" -ne 0 ]; then
	echo "$1: $failures failed"
	exit 1
fi
echo "$1: ok"
