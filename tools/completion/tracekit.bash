# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for tracekit and its tarmac-* aliases.
#
# The commands and each command's options are read from the program's own
# --help, so they are always those of the tracekit installed.

_tracekit_options()
{
	# Every --long and -s option of "$@ --help", one per line; those
	# taking a value end in "=".
	"$@" --help 2>/dev/null | sed -n 's/^ \{2,\}\(-[^ ].*\)/\1/p' |
		sed 's/  .*//' | tr ',' '\n' | sed -n 's/^ *\(-[-A-Za-z0-9]*\)\(=\{0,1\}\).*/\1\2/p'
}

_tracekit()
{
	local cur prog cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prog=${COMP_WORDS[0]}
	cmd=()
	case ${prog##*/} in
	tarmac-*)
		cmd=("$prog")
		;;
	*)
		if [ "$COMP_CWORD" -eq 1 ]; then
			COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
				sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p') --help --version" -- "$cur"))
			return
		fi
		cmd=("$prog" "${COMP_WORDS[1]}")
		;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		opts=$(_tracekit_options "${cmd[@]}")
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		# No space after an option that takes a value.
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	# Values: files (--image=ELF, --index=PATH, -o FILE, the trace).
	if [[ $cur == --*=* ]]; then
		COMPREPLY=($(compgen -f -- "${cur#*=}"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	compopt -o filenames 2>/dev/null
}

complete -F _tracekit tracekit tarmac-calltree tarmac-callinfo tarmac-profile \
	tarmac-flamegraph tarmac-vcd tarmac-truncate tarmac-browser tarmac-index \
	tarmac-indextool
