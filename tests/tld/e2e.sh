#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tracekit tld end to end: build the programs of tests/tld/prog, trace-link
# them, run them, and compare what they print or record with the oracle
# (prog/oracle.h: each traced function writes, in the printf generator's
# format, its own address and the bytes it received and returns).
#
#   e2e.sh CASE        (env: TK_BIN, TK_SRC = tests/tld, TK_WORK = a work dir)
#
# Cases: printf printk printf-dwarf buffer buffer-dwarf buffer-options
# threads dwarf-types dwarf-errors libc posix shipped builtin options
# regressions arm-m3 arm-a5 source.  Exit 77 skips (no cross compiler).
set -u
case=$1
tk=${TK_BIN:?}
src=${TK_SRC:?}
prog=$src/prog
work=${TK_WORK:?}/$case
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "$*"; }

cc=${CC_HOST:-gcc}
cflags="-O2 -g -Wall -Wextra -I$prog"
objs="main.o lib_math.o lib_misc.o recur_a.o recur_b.o oracle.o"

# build EXTRA_CFLAGS...: the objects of the test program.
build() {
	for f in main lib_math lib_misc recur_a recur_b oracle; do
		$cc $cflags "$@" -c "$prog/$f.c" -o $f.o || fail "compiling $f.c"
	done
}

# top GENERATOR FUNCTIONS TRACES [extra lines...]: write top.ini.
top() {
	local gen=$1 funcs=$2 traces=$3
	shift 3
	{
		echo "[tracer]"
		echo "name = tracekit tld test ($case)"
		echo "generator = $gen"
		echo "functions = $funcs"
		echo "traces = $traces"
		echo "include = rtld-base.ini, rtld-trace-buffer.ini, prog.ini"
		for l in "$@"; do echo "$l"; done
	} > top.ini
}

# tld ARGS...: run the trace linker, failing the test if it fails.
tld() {
	"$tk" tld "$@" > tld.out 2> tld.err || { cat tld.out tld.err; fail "tracekit tld $*"; }
}

# dump_to_printf: tld-dump's lines in the printf generator's format.
dump_to_printf() {
	awk '/^L[0-9]+ / {
		kind = ""; addr = ""; name = ""
		for (i = 2; i <= NF; i++) {
			if ($i == "CALL" || $i == "RETURN") kind = $i
			else if ($i ~ /^addr=/) addr = substr($i, 6)
			else if ($i ~ /^name=/) name = substr($i, 6)
		}
		print (kind == "CALL" ? ">>> " : "<<< ") name " (" addr ")"
		next
	}
	{ print }' "$@"
}

# oracle_cut: the oracle as a dump shows it: the 20000-byte struct huge
# argument cut at 16359 bytes (a record holds 16383 bytes with its header).
oracle_cut() {
	awk '/^  1\] struct huge\(20000\) = / {
		p = index($0, "= ") + 1
		hex = substr($0, p + 1, 2 * 16359)
		pad = ""
		for (i = 16359; i < 20000; i++) pad = pad "--"
		print substr($0, 1, p) hex pad
		next
	}
	{ print }' oracle.txt
}

# check_numbering FILE: records numbered 1, 2, ... with times that never
# go back (one thread).
check_numbering() {
	awk '/^L[0-9]+ / {
		n++
		if ($1 != "L" n) { print "record " n " is numbered " $1; bad = 1; exit 1 }
		t = substr($2, 3) + 0
		if (t < last) { print "time goes back at " $1; bad = 1; exit 1 }
		last = t
	}
	END { if (!bad) print n " records numbered in order" }' "$1" || fail "record numbering"
}

buffer_top() {
	top trace-buffer-generator "$1" prog-traces "options = tb-options" \
	    'define = "#define RTLD_TRACE_BUFFER_SIZE (1024 * 1024)"' \
	    "[tb-options]" "gen-enables = global-on" "gen-triggers = global-on"
}

case $case in
printf | printk | printf-dwarf)
	funcs=prog-funcs
	extra=
	if [ $case = printf-dwarf ]; then
		funcs=prog-funcs-dwarf
		extra=-DORACLE_DWARF
	fi
	gen=printf-generator
	[ $case = printk ] && gen=printk-generator
	build $extra
	top $gen $funcs prog-traces
	tld -P "$prog" -C top.ini -W wrapper -f "-I$prog" -- -o app $objs
	if [ $case = printk ]; then
		./app > app.out 2> app.err || fail "app exit status $?"
		[ ! -s app.out ] || fail "printk wrote to standard output"
		mv app.err app.trace
	else
		./app > app.trace || fail "app exit status $?"
	fi
	cmp -s oracle.txt app.trace || { diff oracle.txt app.trace | cut -c1-200 | head -20; fail "the trace differs from the oracle"; }
	note "$(grep -c '^>>> ' app.trace) calls printed as the oracle says"
	grep -q '^>>> add (0x[0-9a-f]\{9,\})$' app.trace || fail "addresses are not printed in full"
	;;

buffer | buffer-dwarf)
	funcs=prog-funcs
	extra=
	if [ $case = buffer-dwarf ]; then
		funcs=prog-funcs-dwarf
		extra=-DORACLE_DWARF
	fi
	build $extra -DRTRACE_SAVE
	$cc $cflags -c "$prog/rtrace_save.c" -o rtrace_save.o || fail "rtrace_save.c"
	buffer_top $funcs
	tld -P "$prog" -C top.ini -f "-I$prog" -- -no-pie -o app $objs rtrace_save.o
	RTLD_TRACE_FILE=dump.bin ./app || fail "app exit status $?"
	[ -s dump.bin ] || fail "no dump saved at exit"
	"$tk" tld-dump dump.bin > dump.txt 2> dump.err || { cat dump.err; fail "tld-dump"; }
	[ ! -s dump.err ] || { cat dump.err; fail "tld-dump complained"; }
	check_numbering dump.txt
	oracle_cut > oracle.cut
	dump_to_printf dump.txt > dump.printf
	cmp -s oracle.cut dump.printf || { diff oracle.cut dump.printf | cut -c1-200 | head -20; fail "the dump differs from the oracle"; }
	note "the dump holds the oracle's $(grep -c '^>>> ' oracle.txt) calls"
	"$tk" tld-dump --info dump.bin > info.txt || fail "tld-dump --info"
	grep -q "^clock:        ns (1000000000 Hz)" info.txt || { cat info.txt; fail "clock"; }
	grep -q "^machine:      62 " info.txt || [ "$(uname -m)" != x86_64 ] || fail "machine"
	# The rtrace save file of the same run: the same records, addresses
	# from the image (linked -no-pie, so they are the run's).
	"$tk" tld-dump --image=app rtrace.bin > rtrace.txt 2> rtrace.err || { cat rtrace.err; fail "tld-dump rtrace.bin"; }
	cmp -s dump.txt rtrace.txt || { diff dump.txt rtrace.txt | head; fail "rtrace save file decodes differently"; }
	note "rtrace save file: the same $(grep -c '^L' rtrace.txt) records"
	# As a trace source: addresses from --image, else a clear error.
	"$tk" profile rtrace.bin > /dev/null 2> rp.err; [ $? = 1 ] || fail "rtrace source without --image: exit status"
	grep -q "^rtrace.bin: error: an RTEMS \`rtrace save\` file names its functions but has no addresses: give the traced program with --image=ELF" rp.err ||
		{ cat rp.err; fail "rtrace source without --image: message"; }
	"$tk" profile --image=/bin/true rtrace.bin > /dev/null 2> rp.err; [ $? = 1 ] || fail "rtrace source with the wrong image: exit status"
	grep -q "^rtrace.bin: error: function add (and 12 others) has no address in the file nor in the --image" rp.err ||
		{ cat rp.err; fail "rtrace source with the wrong image: message"; }
	"$tk" profile --image=app dump.bin > dp.txt || fail "profile dump.bin"
	"$tk" profile --image=app rtrace.bin | cmp -s - dp.txt || fail "profile of the rtrace file differs from the dump's"
	grep -q "^0x[0-9a-f]* *4 .* is_even$" dp.txt || { cat dp.txt; fail "profile: is_even"; }
	"$tk" tld-dump rtrace.bin 2>&1 >/dev/null | grep -q "give the image" && fail "note shown without -v"
	"$tk" tld-dump -v rtrace.bin 2>&1 >/dev/null | grep -q "an rtrace file has no addresses" || fail "no note about addresses"
	# Without $RTLD_TRACE_FILE: rtld-trace.bin in the current directory
	# (a new run: new times, new stack addresses, a new oracle).
	./app || fail "second run"
	[ -s rtld-trace.bin ] || fail "no rtld-trace.bin"
	cmp -s dump.bin rtld-trace.bin && fail "two runs gave the same times"
	oracle_cut > oracle2.cut
	"$tk" tld-dump rtld-trace.bin | dump_to_printf | cmp -s - oracle2.cut || fail "second run differs from its oracle"
	;;

buffer-options)
	# The buffer fills: recording stops, the dump says so, nothing is damaged.
	build
	top trace-buffer-generator prog-funcs prog-traces "options = tb-options" \
	    'define = "#define RTLD_TRACE_BUFFER_SIZE 2048"' \
	    "define = '#define RTLD_TRACE_BUFFER_FILE \"custom.bin\"'" \
	    "[tb-options]" "gen-enables = global-on" "gen-triggers = global-on"
	tld -P "$prog" -C top.ini -f "-I$prog" -- -o app $objs
	./app || fail "app exit status $?"
	[ -s custom.bin ] || fail "RTLD_TRACE_BUFFER_FILE not used"
	"$tk" tld-dump --info custom.bin | grep -q "finished (full" || fail "a full buffer is not marked finished"
	"$tk" tld-dump custom.bin > full.txt 2> full.err || { cat full.err; fail "tld-dump of a full buffer"; }
	[ ! -s full.err ] || fail "a full buffer reads as damaged"
	n=$(grep -c '^L' full.txt)
	[ "$n" -ge 2 ] && [ "$n" -lt 60 ] || fail "$n records in a 2048-byte buffer"
	dump_to_printf full.txt > full.printf
	head -c "$(stat -c %s full.printf)" oracle.txt | cmp -s - full.printf || fail "the records kept are not the first calls"
	note "full buffer: the first $n records, then finished"
	# Enables and triggers: nothing before the first call of a trigger
	# function, then only enabled functions.
	top trace-buffer-generator prog-funcs prog-traces "options = tb-options" "enables = en" "triggers = tg" \
	    'define = "#define RTLD_TRACE_BUFFER_SIZE (1024 * 1024)"' \
	    "[tb-options]" "gen-enables = enable" "gen-triggers = enable" \
	    "[en]" "enable = is_even, is_odd, add" "[tg]" "trigger = is_even"
	tld -P "$prog" -C top.ini -f "-I$prog" -- -o app2 $objs
	RTLD_TRACE_FILE=en.bin ./app2 || fail "app2"
	names=$("$tk" tld-dump en.bin | awk '/^L/ { sub("name=", "", $NF); print $NF }' | sort -u | tr '\n' ' ')
	[ "$names" = "is_even is_odd " ] || fail "enabled and triggered records: $names"
	[ "$("$tk" tld-dump en.bin | grep -c CALL)" = 8 ] || fail "not 8 calls of is_even/is_odd"
	# No enabled function: tld warns, and nothing is recorded.
	top trace-buffer-generator prog-funcs prog-traces
	tld -P "$prog" -C top.ini -f "-I$prog" -- -o app3 $objs
	grep -q "none is enabled" tld.err || fail "no warning about a buffer that records nothing"
	# RTLD_TRACE_BUFFER_NO_SAVE: no file at exit.
	buffer_top prog-funcs
	tld -P "$prog" -C top.ini -f "-I$prog -DRTLD_TRACE_BUFFER_NO_SAVE" -- -o app4 $objs
	RTLD_TRACE_FILE=nosave.bin ./app4 || fail "app4"
	[ ! -e nosave.bin ] || fail "saved despite RTLD_TRACE_BUFFER_NO_SAVE"
	note "enables, triggers, file name and no-save options work"
	;;

threads)
	$cc $cflags -c "$prog/threads.c" "$prog/lib_math.c" "$prog/oracle.c" || fail "compile"
	top trace-buffer-generator prog-funcs threads-traces "options = tb-options" \
	    'define = "#define RTLD_TRACE_BUFFER_SIZE (1024 * 1024)"' \
	    "[tb-options]" "gen-enables = global-on" "gen-triggers = global-on" \
	    "[threads-traces]" "trace = add"
	tld -P "$prog" -C top.ini -f "-I$prog" -- -o app threads.o lib_math.o oracle.o -lpthread
	RTLD_TRACE_FILE=t.bin ./app || fail "app exit status $?"
	"$tk" tld-dump t.bin > t.txt 2> t.err || { cat t.err; fail "tld-dump"; }
	# Per thread (cpu=N, none for the first): 2000 calls, each entry
	# followed by its exit, arguments 0..1999 in order.
	awk '/^L/ {
		ctx = 0
		if ($3 ~ /^cpu=/) ctx = substr($3, 5) + 0
		if ($0 ~ / CALL /) { if (open[ctx]) { print "nested call in " ctx; exit 1 } open[ctx] = 1; calls[ctx]++; want[ctx] = 1 }
		else { if (!open[ctx]) { print "return without call in " ctx; exit 1 } open[ctx] = 0 }
		cur = ctx
		next
	}
	/^  1\] int\(4\) = / && want[cur] {
		v = substr($0, length($0) - 7)
		n = 0
		for (i = 7; i >= 1; i -= 2) n = n * 256 + index("0123456789abcdef", substr(v, i, 1)) * 16 - 16 + index("0123456789abcdef", substr(v, i + 1, 1)) - 1
		if (n != seen[cur]) { print "thread " cur ": argument " n ", expected " seen[cur]; exit 1 }
		seen[cur]++
		want[cur] = 0
	}
	END {
		for (c = 0; c < 4; c++) if (calls[c] != 2000) { print "thread " c ": " calls[c] " calls"; exit 1 }
		if (length(calls) != 4) { print length(calls) " threads"; exit 1 }
		print "4 threads x 2000 calls, each entry followed by its exit"
	}' t.txt || fail "concurrent records"
	;;

dwarf-types)
	cat > types.h <<'EOF'
#include <stddef.h>
struct pt { int x, y; };
union u { int i; float f; };
enum color { RED, GREEN };
typedef struct { int a; } anon_t;
typedef int (*binop)(int, int);
unsigned long long t_ull(long long a, unsigned char b, _Bool c);
const char *t_ptrs(char *const *argv, const volatile int *p, int (*arr)[4]);
void *t_fn(int (*cmp)(const void *, const void *), binop op, void (*v)(void));
enum color t_tags(union u x, enum color c, const struct pt *p, anon_t t);
size_t t_size(size_t n, signed char s, unsigned short h, long double d);
EOF
	cat > types.c <<'EOF'
#include "types.h"
unsigned long long t_ull(long long a, unsigned char b, _Bool c) { return (unsigned long long)a + b + c; }
const char *t_ptrs(char *const *argv, const volatile int *p, int (*arr)[4]) { return argv[0] + *p + (*arr)[0]; }
void *t_fn(int (*cmp)(const void *, const void *), binop op, void (*v)(void)) { v(); return (void *)(size_t)(op(1, 2) + (cmp ? 1 : 0)); }
enum color t_tags(union u x, enum color c, const struct pt *p, anon_t t) { return (enum color)(x.i + c + p->x + t.a); }
size_t t_size(size_t n, signed char s, unsigned short h, long double d) { return n + (size_t)s + h + (size_t)d; }
EOF
	cat > types_main.c <<'EOF'
#include "types.h"
static int add2(int a, int b) { return a + b; }
static void nothing(void) {}
int main(void)
{
	char *argv[] = {"abcdefgh", 0};
	int v = 1, arr[4] = {1, 2, 3, 4};
	union u x = {0};
	struct pt p = {0, 0};
	anon_t t = {0};
	return !(t_ull(1, 2, 1) == 4 && t_ptrs(argv, &v, &arr)[0] == 'c' &&
		 t_fn(0, add2, nothing) == (void *)3 && t_tags(x, GREEN, &p, t) == GREEN &&
		 t_size(1, 2, 3, 4.0L) == 10);
}
EOF
	$cc -O2 -g -c types.c types_main.c || fail "compile"
	cat > top.ini <<'EOF'
[tracer]
name = DWARF types
generator = printf-generator
functions = f
trace = t_ull, t_ptrs, t_fn, t_tags, t_size
include = rtld-base.ini
[f]
header = '#include "types.h"'
signatures = s
[s]
t_ull =
t_ptrs =
t_fn =
t_tags =
t_size =
EOF
	tld -C top.ini -W w -f -I. -- -o app types_main.o types.o
	./app > app.out || fail "app exit status $?"
	for want in \
		' rt] long long unsigned int(8) = ' '  1] long long int(8) = ' '  2] unsigned char(1) = 02' '  3] _Bool(1) = 01' \
		' rt] const char \*(8) = ' '  1] char \*const \*(8) = ' '  2] const volatile int \*(8) = ' '  3] int (\*)\[4\](8) = ' \
		' rt] void \*(8) = ' '  1] int (\*)(const void \*, const void \*)(8) = 0000000000000000' '  2] binop(8) = ' '  3] void (\*)(void)(8) = ' \
		' rt] enum color(4) = 01000000' '  1] union u(4) = 00000000' '  3] const struct pt \*(8) = ' '  4] anon_t(4) = 00000000' \
		' rt] size_t(8) = 0a00000000000000' '  2] signed char(1) = 02' '  3] short unsigned int(2) = 0300' '  4] long double(16) = '; do
		grep -q "^$want" app.out || { cat app.out; fail "no line '$want'"; }
	done
	note "DWARF spellings: base types, typedefs, qualifiers, pointers to functions and arrays, tags"
	;;

dwarf-errors)
	cat > v.c <<'EOF'
int vsum(int n, ...) { return n; }
int plain(int n) { return n; }
int nodebug(int n) { return n; }
EOF
	printf 'int vsum(int n, ...);\nint plain(int n);\nint nodebug(int n);\nint main(void) { return vsum(1, 2) + plain(0) + nodebug(0) - 1; }\n' > m.c
	$cc -O2 -g -c v.c m.c || fail "compile"
	printf '[tracer]\nname = e\ngenerator = printf-generator\nfunctions = f\ntrace = vsum, plain\ninclude = rtld-base.ini\n[f]\nsignatures = s\n[s]\nvsum =\nplain =\n' > top.ini
	"$tk" tld -C top.ini -- -o app m.o v.o > out 2> err
	[ $? = 10 ] || fail "a variadic function: exit status not 10"
	grep -q "^top.ini:10: error: signature vsum (DWARF of v.o): is variadic" err || { cat err; fail "variadic: no error at top.ini:10"; }
	[ ! -e app ] || fail "linked despite the error"
	# (m.o with -g would describe nodebug too: GCC writes a declaration for
	# the functions it calls.)
	$cc -O2 -c v.c -o v-nodebug.o
	$cc -O2 -c m.c -o m-nodebug.o
	printf '[tracer]\nname = e\ngenerator = printf-generator\nfunctions = f\ntrace = nodebug\ninclude = rtld-base.ini\n[f]\nsignatures = s\n[s]\nnodebug =\n' > top2.ini
	"$tk" tld -C top2.ini -- -o app m-nodebug.o v-nodebug.o > out 2> err
	[ $? = 10 ] || fail "no DWARF: exit status not 10"
	grep -q "^top2.ini:10: error: signature nodebug: no DWARF describes it in the link inputs" err || { cat err; fail "no DWARF: message"; }
	[ ! -e app ] || fail "linked despite the error"
	note "variadic and missing DWARF are errors at the signature's line"
	;;

libc)
	cat > heap.c <<'EOF'
#include <stdlib.h>
int main(void)
{
	char *p = malloc(100), *q = calloc(3, 7);
	p = realloc(p, 200);
	free(q);
	free(p);
	return 0;
}
EOF
	$cc -O0 -c heap.c || fail "compile"
	printf '[tracer]\nname = heap\ngenerator = printf-generator\nfunctions = libc\ntraces = libc-heap-all\ninclude = rtld-base.ini, libc.ini\n' > top.ini
	tld -C top.ini -- -o app heap.o
	./app > app.out || fail "app"
	for want in '>>> malloc (0x' '  1] size_t(8) = 6400000000000000' '>>> calloc (0x' '  2] size_t(8) = 0700000000000000' \
		'  2] size_t(8) = c800000000000000' ' rt] void\*(8) = '; do
		grep -q "^$want" app.out || { cat app.out; fail "no line '$want'"; }
	done
	[ "$(grep -c '^>>> free ' app.out)" = 2 ] || fail "free not traced twice"
	note "libc.ini: malloc, calloc, realloc and free traced"
	;;

posix)
	cat > pt.c <<'EOF'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;
static void *run(void *arg) { pthread_mutex_lock(&m); shared += (int)(long)arg; pthread_mutex_unlock(&m); return arg; }
int main(void)
{
	pthread_t t;
	void *r;
	if (pthread_create(&t, NULL, run, (void *)5) || pthread_join(t, &r))
		return 1;
	return !(shared == 5 && r == (void *)5);
}
EOF
	$cc -O2 -c pt.c || fail "compile"
	printf '[tracer]\nname = posix\ngenerator = printf-generator\nfunctions = rtems-posix\ntraces = rtems-posix-thread, rtems-posix-mutex\ninclude = rtld-base.ini, rtems-posix.ini\n' > top.ini
	tld -C top.ini -W w -- -o app pt.o -lpthread
	./app > app.out || fail "app"
	grep -q '^  3\] void \*(\*)(void \*)(8) = ' app.out || { cat app.out; fail "pthread_create's start routine"; }
	grep -q '^>>> pthread_mutex_lock ' app.out || fail "pthread_mutex_lock"
	grep -q '__typeof__(void \*(\*)(void \*)) a3' w.c || fail "no __typeof__ declaration"
	note "function-pointer parameters from rtems-posix.ini compile and print"
	;;

shipped)
	# Every shipped file loads; every shipped function set generates
	# (the RTEMS headers are not here: "true" stands in for the compiler).
	cat > top.ini <<'EOF'
[tracer]
name = shipped
generator = trace-buffer-generator
functions = rtems-api, rtems-posix, rtems-score, libc
traces = rtems-api-task, rtems-api-semaphore, rtems-api-event, rtems-posix-thread, rtems-posix-mutex
traces = rtems-score-object-all, rtems-score-thread-all, rtems-score-threadq-all, rtems-score-heap-all
traces = rtems-score-thread-create-destory, libc-heap-all
enables = rtems-api-task, rtems-api-semaphore, rtems-api-event
include = rtems.ini, libc.ini, rtld-base.ini, rtld-trace-buffer.ini
EOF
	tld -C top.ini -W w -c true -l true -- -o app x.o
	n=$(grep -c '^[^ ].* __wrap_[A-Za-z_]*(' w.c)
	[ "$n" -ge 60 ] || fail "only $n wrappers"
	for f in rtems_task_create rtems_semaphore_obtain rtems_event_receive pthread_create _Objects_Get \
		_Thread_Initialize _Thread_queue_Enqueue _Heap_Free malloc; do
		grep -q "__wrap_$f(" w.c || fail "no wrapper for $f"
	done
	grep -q '#include <rtems.h>' w.c || fail "rtems.h"
	grep -q '#include <rtems/score/heapimpl.h>' w.c || fail "score headers"
	# 64 functions sorted bytewise: the 23 rtems_* ones last.
	grep -A2 '__rtld_trace_enables\[2\]' w.c | grep -q '^  0x00000000, 0xfffffe00,' || fail "enables of the API trace sections"
	note "$n wrappers from the shipped rtems*.ini and libc*.ini"
	# The printk and printf generators and the default generator.
	printf '[tracer]\nname = d\nfunctions = libc\ntraces = libc-heap-all\ninclude = rtld-base.ini, libc.ini\n' > def.ini
	tld -C def.ini -W d -c true -l true -- -o app x.o
	grep -q 'Generator: printk-generator' d.c || fail "the default generator is not printk-generator"
	;;

builtin)
	# build/bin/tracekit finds the shipped files beside it
	# (../share/tracekit/trace-linker); a copy elsewhere uses its built-in ones.
	printf '[tracer]\nname = b\nfunctions = libc\ntraces = libc-heap-all\ninclude = rtld-base.ini, libc.ini\n' > top.ini
	"$tk" tld -v -C top.ini -W w -c true -l true -- -o app x.o > v.out 2>&1 || { cat v.out; fail "tld"; }
	grep -q "share/tracekit/trace-linker/rtld-base.ini" v.out || { cat v.out; fail "not found in the share directory"; }
	mkdir alone
	cp "$tk" alone/tracekit
	alone/tracekit tld -v -C top.ini -W w2 -c true -l true -- -o app x.o > v2.out 2>&1 || { cat v2.out; fail "tld (copy)"; }
	grep -q "<built-in>/rtld-base.ini" v2.out || { cat v2.out; fail "the built-in files were not used"; }
	grep -q "<built-in>/libc-heap.ini" v2.out || fail "built-in include"
	cmp -s w.c w2.c || fail "built-in files differ from the shipped ones"
	note "shipped files: share directory, then built in"
	;;

options)
	build
	top printf-generator prog-funcs prog-traces
	# -h, -V, bad options, no --, no -C, nothing to link.
	"$tk" tld -h > h.out; [ $? = 0 ] && grep -q -- "-E prefix" h.out || fail "-h"
	"$tk" tld --help > /dev/null || fail "--help"
	"$tk" tld -V | grep -q "^rtems-trace-ld (tracekit trace linker) .*, RTEMS revision [0-9]" || fail "-V"
	"$tk" tld --version > /dev/null || fail "--version"
	"$tk" tld -x 2> e; [ $? = 3 ] && grep -q "invalid option -x" e || fail "bad option: not exit 3"
	"$tk" tld --bogus 2> e; [ $? = 3 ] || fail "bad long option: not exit 3"
	"$tk" tld -C top.ini -o app main.o 2> e; [ $? = 3 ] && grep -q "the link command goes after --" e || fail "no --"
	"$tk" tld -C 2> e; [ $? = 3 ] || fail "missing argument"
	"$tk" tld -- -o app main.o 2> e; [ $? = 10 ] && grep -q "no configuration" e || fail "no -C"
	"$tk" tld -C top.ini 2> e; [ $? = 10 ] && grep -q "no link command" e || fail "no link command"
	# rtems-tld is the same command (a symlink).
	[ -x "$(dirname "$tk")/rtems-tld" ] && "$(dirname "$tk")/rtems-tld" -V | grep -q rtems-trace-ld || fail "rtems-tld alias"
	# Long options with = and with a separate word; -P twice and with ':'.
	mkdir -p p1 p2
	cp "$prog/prog.ini" p2/
	"$tk" tld --config=top.ini --path p1 --path=/nonexistent:p2 --wrapper=w1 --cflags "-I$prog" -- -o app1 $objs > o 2>&1 ||
		{ cat o; fail "long options"; }
	[ -f w1.c ] && [ -f w1.o ] && ./app1 > /dev/null || fail "-W files or the program"
	# Non-options before -- join the link command (GNU getopt permutes).
	"$tk" tld -C top.ini -P "$prog" -f "-I$prog" main.o lib_math.o -- -o app2 lib_misc.o recur_a.o recur_b.o oracle.o > o 2>&1 ||
		{ cat o; fail "objects before --"; }
	./app2 > app2.out && cmp -s app2.out oracle.txt || fail "permuted link command"
	# -E PREFIX- is used verbatim; -E ARCH names <arch>-rtems<VER>-gcc.
	mkdir -p bin
	printf '#!/bin/sh\necho "$0 $*" >> %s/fake.log\nexec gcc "$@"\n' "$work" > bin/fake-gcc
	chmod +x bin/fake-gcc
	PATH="$work/bin:$PATH" "$tk" tld -E fake- -C top.ini -P "$prog" -f "-I$prog" -- -o app3 $objs > o 2>&1 || { cat o; fail "-E fake-"; }
	[ "$(grep -c 'fake-gcc' fake.log)" = 2 ] || fail "-E fake- did not compile and link with fake-gcc"
	"$tk" tld -E sparc -C top.ini -P "$prog" -- -o app4 $objs 2> e; [ $? = 10 ] || fail "-E sparc"
	grep -q "cannot run 'sparc-rtems[0-9]*-gcc'" e || { cat e; fail "-E sparc: compiler name"; }
	[ ! -e app4 ] || fail "app4 exists"
	# -c and -l, and -vvv shows the commands with one --wrap per function.
	"$tk" tld -vvv -c gcc -l gcc -C top.ini -P "$prog" -f "-I$prog" -- -o app5 $objs > v.out 2>&1 || { cat v.out; fail "-vvv"; }
	grep -q "^execute: gcc .* -O2 -g -c -o " v.out || fail "-vvv: compile command"
	grep -q "^execute: gcc -Wl,--wrap=add -Wl,--wrap=copy_name .* -o app5 " v.out || fail "-vvv: link command"
	grep -q "^    1: /\*" v.out || fail "-vv: the C file"
	# Temporary files: removed, or kept with -k.
	mkdir -p tmp
	TMPDIR=$work/tmp "$tk" tld -C top.ini -P "$prog" -f "-I$prog" -- -o app6 $objs > o 2>&1 || { cat o; fail "tmp"; }
	[ -z "$(ls tmp)" ] || fail "temporary files left: $(ls tmp)"
	TMPDIR=$work/tmp "$tk" tld -k -C top.ini -P "$prog" -f "-I$prog" -- -o app7 $objs > o 2>&1 || fail "-k"
	[ "$(ls tmp | grep -c '^tld.*\.[co]$')" = 2 ] || fail "-k did not keep the .c and .o: $(ls tmp)"
	note "options, long forms, --, -E, -W, -k, -P, exit codes"
	;;

regressions)
	# One test per rtems-tld bug tracekit fixes (the unit tests cover the
	# generated code: duplicate wrappers, double release, @FUNC_LABEL@,
	# stdint.h, const char const, unknown lock models, empty trace lists).
	build
	top printf-generator prog-funcs prog-traces
	# 1. Unknown CFLAGS were dropped (-D, -U, -std=, -include...).
	printf '#if !defined(FROM_CFLAGS) || FROM_CFLAGS != 2 || defined(NOT_ME)\n#error CFLAGS lost\n#endif\n' > need.h
	tld -C top.ini -P "$prog" -f "-I$prog -DFROM_CFLAGS=2 -DNOT_ME -UNOT_ME -std=gnu11 -include $work/need.h -Wall -Werror -O3 -g3" -- -o app1 $objs
	./app1 > /dev/null || fail "app1"
	# 2. Link arguments were re-split at blanks: a map file name with a blank.
	tld -C top.ini -P "$prog" -f "-I$prog" -- -o app2 $objs "-Wl,-Map,$work/a b.map"
	[ -s "a b.map" ] || fail "the map file with a blank in its name is missing"
	# 3. dump-on-error = false turned it on.
	printf '[tracer]\nname = x\noptions = o\nfunctions = f\ntrace = nosig\ninclude = rtld-base.ini\n[o]\ndump-on-error = false\n[f]\nsignatures = s\n[s]\nadd = int, int, int\n' > d.ini
	"$tk" tld -C d.ini -- -o app3 main.o > d.out 2> d.err; [ $? = 10 ] || fail "error expected"
	grep -q "Configuration files:" d.out && fail "dump-on-error = false dumped the configuration"
	sed -i 's/= false/= true/' d.ini
	"$tk" tld -C d.ini -- -o app3 main.o > d.out 2> d.err
	grep -q "^\[tracer\] (d.ini:1)" d.out || fail "dump-on-error = true did not dump"
	grep -q "^d.ini:5: error: trace nosig: no signature" d.err || fail "message"
	# 4. Include cycles recursed forever; includes were not looked for
	# beside the including file.
	mkdir -p sub
	printf '[tracer]\nname = c\nfunctions = f\ntrace = add\ninclude = rtld-base.ini\n[includes]\ninclude = side.ini\n' > sub/cyc.ini
	printf '[f]\nheader = %s\nsignatures = s\n[s]\nadd = int, int, int\n[includes]\ninclude = cyc.ini\n' "'#include \"api.h\"'" > sub/side.ini
	"$tk" tld -C sub/cyc.ini -- -o app4 $objs > c.out 2> c.err; [ $? = 10 ] || fail "cycle: exit"
	grep -q "sub/side.ini:7: error: include cycle: sub/cyc.ini -> sub/side.ini -> sub/cyc.ini" c.err || { cat c.err; fail "cycle message"; }
	sed -i '/^\[includes\]/,$d' sub/side.ini
	tld -C sub/cyc.ini -f "-I$prog" -- -o app4 $objs
	./app4 2>&1 | grep -q '^>>> add ' || fail "include beside the including file (printk: stderr)"
	# 5. A section of the user's file always wins over the same section in a
	# file it includes ([zzz-gen] sorts after "includes": rtems-tld took
	# rtld-print's); a second file's later section never wins.
	cat > shadow.ini <<'INI'
[tracer]
name = s
functions = prog-funcs
traces = prog-traces
generator = printf-generator
[includes]
include = rtld-base.ini, prog.ini
[printf-generator]
headers = printf-generator-headers
entry-trace = "printf("mine %s\n", @FUNC_NAME@);"
INI
	tld -C shadow.ini -P "$prog" -f "-I$prog" -- -o app5 $objs
	./app5 | head -1 | grep -q '^mine add$' || { ./app5 | head -3; fail "the user's generator did not win"; }
	# 6. Addresses were printed with %08x (cut to 32 bits): see the printf
	# case, which compares them in full with the functions' own.
	# 7. A record over 4095 bytes decoded wrongly on target (12-bit size):
	# the buffer case decodes struct big (5000 bytes) and cuts struct huge.
	# 8. Nothing is linked on an error: a compile error, a link error.
	printf '[tracer]\nname = x\nfunctions = f\ntrace = add\ninclude = rtld-base.ini\n[f]\nheader = "#include <no-such-header.h>"\nsignatures = s\n[s]\nadd = int, int, int\n' > ce.ini
	"$tk" tld -C ce.ini -- -o app8 $objs > o 2> e; [ $? = 10 ] || fail "compile error: exit"
	grep -q "no-such-header.h" e && grep -q "error: compiling wrapper: gcc failed" e || { cat e; fail "compile error message"; }
	[ ! -e app8 ] || fail "linked after a compile error"
	"$tk" tld -C top.ini -P "$prog" -f "-I$prog" -- -o app9 main.o > o 2> e; [ $? = 10 ] || fail "link error: exit"
	grep -q "error: linking: gcc failed" e && grep -q "undefined reference" e || { cat e; fail "link error message"; }
	[ ! -e app9 ] || fail "output left after a link error"
	note "rtems-tld bugs fixed: CFLAGS, argv words, dump-on-error, include cycles and paths, shadowing, no output on errors"
	;;

bsp)
	# An RTEMS BSP's pkg-config file gives the compiler prefix and CFLAGS.
	build
	mkdir -p rtems/lib/pkgconfig bin
	ver=$("$tk" tld -V | sed 's/.*RTEMS revision //')
	cat > rtems/lib/pkgconfig/fakearch-rtems$ver-fakebsp.pc <<EOF
# a BSP for the test
prefix=$work/rtems
name=fakearch-rtems$ver-fakebsp
Name: \${name}
Version: 6
CFLAGS: -DBSP_FLAG=42 -I\${prefix}/include
EOF
	printf '#!/bin/sh\nexec gcc "$@"\n' > bin/fakearch-rtems$ver-gcc
	chmod +x bin/fakearch-rtems$ver-gcc
	top printf-generator prog-funcs prog-traces 'define = "#if BSP_FLAG != 42", "#error BSP CFLAGS missing", "#endif"'
	PATH="$work/bin:$PATH" "$tk" tld -r rtems -B fakearch/fakebsp -C top.ini -P "$prog" -f "-I$prog" -- -o app $objs > o 2>&1 || { cat o; fail "BSP"; }
	./app > /dev/null || fail "app"
	"$tk" tld -r rtems -B fakearch/nobsp -C top.ini -- -o app2 $objs 2> e; [ $? = 10 ] && grep -q "RTEMS BSP not found" e || fail "missing BSP"
	"$tk" tld -r nowhere -B fakearch/fakebsp -C top.ini -- -o app2 $objs 2> e; [ $? = 10 ] && grep -q "invalid RTEMS path" e || fail "bad RTEMS path"
	sed -i 's/^name=.*/name=other/' rtems/lib/pkgconfig/fakearch-rtems$ver-fakebsp.pc
	"$tk" tld -r rtems -B fakearch/fakebsp -C top.ini -- -o app2 $objs 2> e; [ $? = 10 ] && grep -q "does not match the Name" e || { cat e; fail "BSP name mismatch"; }
	note "BSP pkg-config: prefix, CFLAGS, errors"
	;;

arm-m3 | arm-a5)
	command -v arm-none-eabi-gcc > /dev/null || skip "no arm-none-eabi-gcc"
	specs=$(arm-none-eabi-gcc -print-file-name=rdimon.specs)
	[ -f "$specs" ] || skip "no newlib rdimon.specs"
	"$tk" record --help > /dev/null 2>&1 || skip "tracekit built without the recorder"
	if [ $case = arm-m3 ]; then
		arch="-mthumb -mcpu=cortex-m3"		# lock-free atomics, Thumb addresses
	else
		arch="-marm -march=armv5te+fp -mfloat-abi=hard"	# no lock-free atomics
	fi
	acc="arm-none-eabi-gcc $arch --specs=rdimon.specs"
	for f in main lib_math lib_misc recur_a recur_b oracle; do
		$acc -O2 -g -Wall -I"$prog" -DNO_HUGE -c "$prog/$f.c" -o $f.o || fail "compiling $f.c"
	done
	top trace-buffer-generator prog-funcs prog-traces-small "options = tb-options" \
	    'define = "#define RTLD_TRACE_BUFFER_SIZE (64 * 1024)"' \
	    "[tb-options]" "gen-enables = global-on" "gen-triggers = global-on"
	tld -E arm-none-eabi- -P "$prog" -C top.ini -f "-I$prog $arch --specs=rdimon.specs" -- $arch --specs=rdimon.specs -o app.elf $objs
	"$tk" record app.elf -o app.tarmac > rec.out 2> rec.err || { cat rec.err; fail "tracekit record: exit status $?"; }
	[ -s rtld-trace.bin ] || fail "no dump saved through semihosting"
	[ -s oracle.txt ] || fail "no oracle.txt"
	"$tk" tld-dump rtld-trace.bin > dump.txt 2> dump.err || { cat dump.err; fail "tld-dump"; }
	"$tk" tld-dump --info rtld-trace.bin > info.txt
	grep -q "^machine:      40 " info.txt && grep -q "^pointers:     4 bytes" info.txt && grep -q "^clock:        sequence" info.txt ||
		{ cat info.txt; fail "header of the Arm dump"; }
	check_numbering dump.txt
	dump_to_printf dump.txt > dump.printf
	cmp -s oracle.txt dump.printf || { diff oracle.txt dump.printf | cut -c1-200 | head; fail "the saved dump differs from the oracle"; }
	note "saved through semihosting: the oracle's $(grep -c '^>>> ' oracle.txt) calls"
	# The same buffer rebuilt from the Tarmac trace's memory writes.
	"$tk" tld-extract --image=app.elf -o x.dump app.tarmac 2> x.err || { cat x.err; fail "tld-extract"; }
	"$tk" tld-dump x.dump > x.txt 2> x.err2 || { cat x.err2; fail "tld-dump of the extracted dump"; }
	"$tk" tld-dump --info x.dump | grep -q "^clock:        trace time" || fail "extracted dump: clock"
	check_numbering x.txt
	dump_to_printf x.txt | cmp -s oracle.txt - || fail "the extracted dump differs from the oracle"
	# Its times are the trace's: the time of the write of each record's
	# first word (record 1: a line "<time> clk MW4 <buffer>:...").
	first=$(awk 'NR == 1 { print substr($2, 3) }' x.txt)
	buf=$(printf '%08x' "$("$tk" symbols app.elf __rtld_tbg_buffer | awk '{ print $1 }')")
	grep -q "^$first clk MW[0-9] $buf:" app.tarmac ||
		fail "record 1's time $first is not the time of a write to 0x$buf"
	note "tld-extract: the same calls, at the trace's times"
	;;

source)
	# Trace-buffer dumps as a trace source: every report tool on the dump
	# of tests/tld/prog/nest_*.c gives the calls the program makes.
	for f in nest_main nest_a nest_b nest_c; do
		$cc $cflags -c "$prog/$f.c" -o $f.o || fail "compiling $f.c"
	done
	cat > nest.ini <<'INI'
[tracer]
name = trace buffers as a source
generator = trace-buffer-generator
functions = nest-funcs
trace = outer, inner, leaf
options = nest-options
include = rtld-base.ini, rtld-trace-buffer.ini
define = "#define RTLD_TRACE_BUFFER_SIZE (1024 * 1024)"
[nest-options]
gen-enables = global-on
gen-triggers = global-on
[nest-funcs]
header = '#include "nest.h"'
signatures = nest-sigs
[nest-sigs]
outer = int, int
inner = int, int
leaf = int, int
INI
	tld -C nest.ini -f "-I$prog" -- -o nest nest_main.o nest_a.o nest_b.o nest_c.o -lpthread
	RTLD_TRACE_FILE=one.bin ./nest 10 || fail "nest 10"
	# Detected by its content, whatever its name; tracekit formats lists it.
	cp one.bin one.txt
	"$tk" formats | grep -q '^tld$' || fail "tracekit formats does not list tld"
	"$tk" parse one.txt > parse.txt 2> parse.err || { cat parse.err; fail "parse"; }
	[ ! -s parse.err ] || { cat parse.err; fail "parse complained"; }
	# parse prints what tld-dump prints (contexts named threads).
	"$tk" tld-dump one.bin | sed 's/ cpu=/ thread=/' | cmp -s - parse.txt ||
		{ "$tk" tld-dump one.bin | diff - parse.txt | head; fail "parse differs from tld-dump"; }
	[ "$(grep -c ' CALL ' parse.txt)" = 105 ] || fail "not 105 calls: $(grep -c ' CALL ' parse.txt)"
	# profile: outer 10, inner 30, leaf 65 (60 + 5 from main), and the root.
	"$tk" profile one.bin > prof.txt || fail "profile"
	cnt() { awk -v f="$2" '$NF == f && NF == 4 { print $2 }' "$1"; }
	[ "$(cnt prof.txt outer)" = 10 ] && [ "$(cnt prof.txt inner)" = 30 ] && [ "$(cnt prof.txt leaf)" = 65 ] ||
		{ cat prof.txt; fail "profile counts"; }
	# calltree: the root spans the whole trace; 10 outer, each with 3
	# inner, each with 2 leaf; 5 leaf at the top.
	"$tk" calltree one.bin > tree.txt || fail "calltree"
	head -1 tree.txt | grep -q "^o t:[0-9]* l:1 pc:0x0 - t:[0-9]* l:210 pc:0x0 :$" || { head -1 tree.txt; fail "root line"; }
	awk '/^o / { next } / o .* : / {
		depth = index($0, "o") - 1; name = $NF
		n[depth " " name]++
	}
	END {
		if (n["4 outer"] != 10 || n["8 inner"] != 30 || n["12 leaf"] != 60 || n["4 leaf"] != 5 || length(n) != 4) {
			for (k in n) print k, n[k]; exit 1
		}
	}' tree.txt || fail "call tree nesting"
	# flamegraph: the stacks and their call counts (time: any).
	"$tk" flamegraph one.bin > fg.txt || fail "flamegraph"
	for st in 'outer' 'outer;inner' 'outer;inner;leaf' 'leaf'; do
		grep -q "^$st [0-9]*$" fg.txt || { cat fg.txt; fail "no stack $st"; }
	done
	[ "$(wc -l < fg.txt)" -le 5 ] || { cat fg.txt; fail "unexpected stacks"; }
	# callinfo: by name (the dump names its functions), one line a call.
	"$tk" callinfo one.bin outer inner leaf > ci.txt || fail "callinfo"
	[ "$(grep -c '^ - time: ' ci.txt)" = 105 ] || fail "callinfo: $(grep -c '^ - time: ' ci.txt) calls"
	addr=$(awk '$NF == "leaf" { print $1 }' prof.txt)
	[ "$("$tk" callinfo one.bin "$addr" | grep -c '^ - time: ')" = 65 ] || fail "callinfo by address"
	"$tk" callinfo one.bin nosuch 2> e; [ $? = 2 ] && grep -q "nor a function the trace names" e || fail "callinfo: unknown name"
	# The index: built, then read by the same tools with the same answers.
	"$tk" index one.bin > idx.txt || fail "index"
	grep -q "^format: *tld " idx.txt && grep -q "^function events: *210$" idx.txt && grep -q "^calls: *105$" idx.txt ||
		{ cat idx.txt; fail "index summary"; }
	"$tk" profile -v one.bin 2> v.err | cmp -s - prof.txt || fail "profile from the index differs"
	grep -q "reusing index one.bin.index" v.err || { cat v.err; fail "the index was not read"; }
	"$tk" calltree one.bin | cmp -s - tree.txt || fail "calltree from the index differs"
	"$tk" flamegraph one.bin | cmp -s - fg.txt || fail "flamegraph from the index differs"
	"$tk" callinfo one.bin outer inner leaf | cmp -s - ci.txt || fail "callinfo from the index differs"
	note "one thread: parse, profile, calltree, flamegraph, callinfo, index agree with the program's 105 calls"

	# Several threads: one call stack, one tree per thread.
	RTLD_TRACE_FILE=three.bin ./nest 4 3 || fail "nest 4 3"
	"$tk" profile three.bin > p3.txt || fail "profile (threads)"
	[ "$(cnt p3.txt outer)" = 12 ] && [ "$(cnt p3.txt inner)" = 36 ] && [ "$(cnt p3.txt leaf)" = 77 ] ||
		{ cat p3.txt; fail "profile counts (threads)"; }
	"$tk" calltree three.bin > t3.txt || fail "calltree (threads)"
	[ "$(grep -c '^thread[0-9]*:$' t3.txt)" = 4 ] || { head t3.txt; fail "not one tree per thread (main + 3)"; }
	awk '/^thread/ { t = $0 } / : outer$/ { o[t]++ } END { n = 0; for (k in o) { n++; if (o[k] != 4) exit 1 } exit n != 3 }' t3.txt ||
		fail "4 outer calls in each of 3 threads"
	# The main thread records last (after the joins): thread 3.
	"$tk" calltree --context=3 three.bin > t3m.txt || fail "calltree --context=3"
	[ "$(grep -c ' : leaf$' t3m.txt)" = 5 ] && ! grep -q ' : outer$' t3m.txt || { cat t3m.txt; fail "the main thread's 5 leaf calls"; }
	"$tk" index three.bin | grep -q "^format: *tld (calls,functions,contexts" || fail "index: contexts"
	note "three threads: one tree per thread"

	# A buffer that fills up: calls never returned, closed at the end, a
	# gap and a warning.  1008 bytes hold 36 records of 28 bytes.
	sed -i 's/(1024 \* 1024)/1008/' nest.ini
	tld -C nest.ini -f "-I$prog" -- -o small nest_main.o nest_a.o nest_b.o nest_c.o -lpthread
	RTLD_TRACE_FILE=full.bin ./small 10 || fail "small 10"
	"$tk" tld-dump --info full.bin | grep -q "finished" || fail "the small buffer did not fill"
	n=$("$tk" tld-dump --count full.bin | awk '{ print $2 }')
	"$tk" parse full.bin > pf.txt 2> pf.err || fail "parse (full)"
	grep -q "warning: the trace buffer filled up after record $n" pf.err || { cat pf.err; fail "no warning about the full buffer"; }
	tail -1 pf.txt | grep -q "GAP kind=buffer full" || { tail -2 pf.txt; fail "no gap at the end"; }
	"$tk" calltree full.bin > tf.txt 2>/dev/null || fail "calltree (full)"
	last=$(awk '/ (CALL|RETURN) / { l = $1 } END { print substr(l, 2) }' pf.txt)
	# The last outer call (open at the end) ends with the trace, with its callees.
	tail -n +2 tf.txt | grep ' : outer$' | tail -1 | grep -q " l:$last pc:0x[0-9a-f]* : outer$" ||
		{ tail -5 tf.txt; fail "the unreturned outer call is not closed at the end"; }
	open=$(awk '/ CALL / { d++ } / RETURN / { d-- } END { print d }' pf.txt)
	[ "$open" -ge 1 ] || fail "no call left open in the full buffer"
	note "full buffer: $n records, $open calls open at the end, closed there"

	# Damage: a truncated and a corrupted dump give the file and the byte
	# offset, keep the records before it, and do not crash.
	size=$(stat -c %s one.bin)
	head -c $((size - 10)) one.bin > cut.bin
	"$tk" profile cut.bin > pc.txt 2> pc.err || fail "profile of a truncated dump failed"
	grep -q "^cut.bin: offset 0x$(printf %x $((size - 28))): warning: record 210: the file ends in its header (truncated: 5870 of 5880 buffer bytes present); the trace ends there (209 records before it are used)$" pc.err ||
		{ cat pc.err; fail "truncated: message"; }
	[ "$(cnt pc.txt leaf)" = 65 ] || { cat pc.txt; fail "truncated: the records before the damage"; }
	cp one.bin bad.bin
	# Record 50's offset: the buffer starts after the table; every record
	# here is 28 bytes.
	boff=$(( $(stat -c %s one.bin) - 210 * 28 ))
	printf '\377\377' | dd of=bad.bin bs=1 seek=$((boff + 49 * 28)) conv=notrunc 2>/dev/null
	"$tk" calltree bad.bin > tb.txt 2> tb.err || fail "calltree of a corrupt dump failed"
	grep -q "^bad.bin: offset 0x$(printf %x $((boff + 49 * 28))): warning: record 50: function index 65535, the table has 3 functions" tb.err ||
		{ cat tb.err; fail "corrupt: message"; }
	"$tk" parse bad.bin 2>/dev/null | grep -c '^L' | grep -qx 50 || fail "corrupt: 49 records and a gap"
	printf 'TKTLDUMP' > magic.bin
	"$tk" profile magic.bin > /dev/null 2> m.err; [ $? = 1 ] || fail "a dump of 8 bytes: exit status"
	grep -q "^magic.bin: error: byte offset" m.err || { cat m.err; fail "a dump of 8 bytes: message"; }
	note "damage: file and byte offset named, records before it kept"
	;;

*)
	fail "unknown case $case"
	;;
esac
echo "PASS: $case"
