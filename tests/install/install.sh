#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# usage: install.sh CMAKE BUILDDIR WORKDIR
# `cmake --install BUILDDIR --prefix DIR` into a fresh, empty DIR installs,
# in one run and without an error: DIR/bin/tracekit, a DIR/bin/tarmac-*
# link per alias (each one working), the man page with a link per alias,
# and bash completion that completes commands and options.  Again into the
# same DIR (the links are replaced), and with DESTDIR.
set -u
cmake=$1 build=$2 work=$3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$work"
mkdir -p "$work/fresh"
dir=$work/fresh

"$cmake" --install "$build" --prefix "$dir" > "$work/log" 2>&1 || bad "install failed: $(tail -5 "$work/log")"
grep -qi 'error' "$work/log" && bad "errors while installing: $(grep -i error "$work/log")"
[ -x "$dir/bin/tracekit" ] || bad "no $dir/bin/tracekit"
v=$("$dir/bin/tracekit" --version)
aliases=$("$dir/bin/tracekit" --help | sed -n 's/^  [a-z][a-z]*  .*(\(tarmac-[a-z]*\))$/\1/p')
[ -n "$aliases" ] || bad "no aliases listed by tracekit --help"
for a in $aliases; do
	[ -L "$dir/bin/$a" ] && [ "$(readlink "$dir/bin/$a")" = tracekit ] || bad "$a: not a link to tracekit"
	out=$("$dir/bin/$a" --version 2>&1)
	[ "$out" = "$a (tracekit) ${v#tracekit }" ] || bad "$a --version: '$out'"
	[ -L "$dir/share/man/man1/$a.1" ] || bad "no man page link for $a"
	[ -L "$dir/share/bash-completion/completions/$a" ] || bad "no completion for $a"
done
echo "installed: $(ls "$dir/bin" | tr '\n' ' ')"

# Every command runs from the installed tree, those living in a module
# (record, browse, serve, export, dump) loading it from DIR/lib/tracekit.
for c in $("$dir/bin/tracekit" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
	out=$(TRACEKIT_MODULES= "$dir/bin/tracekit" $c --version 2>&1)
	[ "$out" = "$v" ] || bad "installed tracekit $c --version: '$out'"
done
for m in record browse serve json; do
	[ -f "$dir/lib/tracekit/tk-$m.so" ] || bad "module tk-$m.so not installed"
done

# The man page: every command has its section; it renders.
man1=$dir/share/man/man1/tracekit.1
[ -s "$man1" ] || bad "no man page"
grep -q '^\.TH TRACEKIT 1' "$man1" || bad "the man page has no .TH"
for c in $("$dir/bin/tracekit" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	grep -q "^\.SS tracekit $c\$" "$man1" || bad "the man page has no section for $c"
done
if command -v man > /dev/null; then
	MANWIDTH=80 man -l "$man1" > "$work/man.txt" 2> "$work/man.err" || bad "man -l failed"
	grep -q 'tracekit calltree' "$work/man.txt" || bad "the rendered page lacks calltree"
	[ ! -s "$work/man.err" ] || bad "man warns: $(head -3 "$work/man.err")"
fi

# Bash completion: commands, then a command's options, then an alias's.
comp=$dir/share/bash-completion/completions/tracekit
bash -n "$comp" || bad "the completion script does not parse"
complete_words() { # words... : the completions of the last one
	bash -c '
		compopt() { :; }
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tracekit
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
got=$(complete_words "$dir/bin/tracekit" cal | tr '\n' ' ')
[ "$got" = "callinfo calltree " ] || bad "completing 'cal': '$got'"
got=$(complete_words "$dir/bin/tracekit" calltree --no- | tr '\n' ' ')
[ "$got" = "--no-offsets --no-index " ] || bad "completing 'calltree --no-': '$got'"
got=$(complete_words "$dir/bin/tarmac-vcd" --use | tr '\n' ' ')
[ "$got" = "--use-tarmac-timestamps " ] || bad "completing 'tarmac-vcd --use': '$got'"
got=$(complete_words "$dir/bin/tracekit" vcd --ima | tr '\n' ' ')
[ "$got" = "--image= " ] || bad "completing 'vcd --ima': '$got'"

# Installing again over it replaces the links quietly.
"$cmake" --install "$build" --prefix "$dir" > "$work/log2" 2>&1 || bad "second install failed"
# DESTDIR: staged under it, the prefix inside.
DESTDIR=$work/stage "$cmake" --install "$build" --prefix /usr/local > "$work/log3" 2>&1 ||
	bad "DESTDIR install failed"
[ -x "$work/stage/usr/local/bin/tracekit" ] && [ -L "$work/stage/usr/local/bin/tarmac-calltree" ] ||
	bad "DESTDIR: not staged"
[ $fail = 0 ] && echo "ok: a fresh prefix, again, and DESTDIR"
rm -rf "$work"
exit $fail
