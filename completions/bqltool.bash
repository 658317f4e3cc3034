# bash completion for bqltool(8)                          -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-only
#
# Nothing is typed twice: command names come from `bqltool help --commands`,
# option names from `bqltool help [COMMAND]`, BQL keys and their units from
# `bqltool help --keys`, devices and queues from sysfs (honouring
# --sysfs-root and BQLTOOL_SYSFS_ROOT) or from `ip -n NS link` with -n NS.

# _bqltool_opts BIN [COMMAND]: parse the option lines of `BIN help [COMMAND]`
# ("  -f, --format FMT   text...") into _bqltool_optnames (words to offer)
# and _bqltool_optarg (option -> its argument name, for options that take one).
_bqltool_opts()
{
	local line arg tok
	local -a toks
	_bqltool_optnames=()
	_bqltool_optarg=()
	while IFS= read -r line; do
		# an option line starts at most 6 blanks in; deeper ones continue
		# a description (and may start with an option name: "--size also...")
		[[ $line =~ ^\ {1,6}- ]] || continue
		line=${line#"${line%%[! ]*}"}	# leading blanks
		line=${line%%  *}		# the description
		arg=
		[[ $line =~ [\ =]([A-Z][A-Z_=]*) ]] && arg=${BASH_REMATCH[1]}
		read -ra toks <<<"${line//,/ }"
		for tok in "${toks[@]}"; do
			case $tok in
			--*\[=*)	# optional argument: --color[=WHEN]
				tok=${tok%%\[*}
				_bqltool_optnames+=("$tok" "$tok=")
				_bqltool_optarg[$tok]=${arg:-WHEN} ;;
			--*=*)
				tok=${tok%%=*}
				_bqltool_optnames+=("$tok=")
				_bqltool_optarg[$tok]=$arg ;;
			-*)
				_bqltool_optnames+=("$tok")
				[[ $arg ]] && _bqltool_optarg[$tok]=$arg ;;
			esac
		done
	done < <("$1" help ${2:+"$2"} 2>/dev/null)
}

# _bqltool_find BIN: the program to ask, as typed; a bare name that PATH
# lacks is looked for where bqltool is installed (make install: PREFIX/sbin,
# the package: /usr/sbin), which a user's PATH often lacks (sudo bqltool <TAB>)
_bqltool_find()
{
	local d
	if [[ $1 == */* ]] || type -P "$1" >/dev/null 2>&1; then
		printf '%s\n' "$1"
		return
	fi
	for d in /usr/local/sbin /usr/sbin /sbin; do
		[[ -x $d/$1 ]] && printf '%s\n' "$d/$1" && return
	done
	printf '%s\n' "$1"
}

# _bqltool_devices ROOT NETNS [all]: device names; only those with BQL
# unless "all" (check names devices without BQL on purpose).
_bqltool_devices()
{
	local root=$1 netns=$2 d
	if [[ $netns ]]; then
		# the rule of the host's branch below, applied by bqltool inside
		# the namespace (reading its sysfs needs root, as -n itself does)
		local which=devices
		[[ $3 == all ]] && which=all-devices
		"${bin:-bqltool}" -n "$netns" help --$which 2>/dev/null
		return
	fi
	for d in "$root"/class/net/*; do
		[[ -e $d ]] || continue
		[[ $3 == all || -d $d/queues/tx-0/byte_queue_limits ]] && printf '%s\n' "${d##*/}"
	done
}

# _bqltool_selectors ROOT NETNS [all]: DEV, or DEV:N once a colon is typed
_bqltool_selectors()
{
	local dev q
	if [[ $cur == *:* ]]; then
		dev=${cur%%:*}
		if [[ $2 ]]; then	# the namespace's queues, listed inside it
			"${bin:-bqltool}" -n "$2" help --queues "$dev" 2>/dev/null |
				while read -r q; do printf '%s:%s\n' "$dev" "$q"; done
			return
		fi
		for q in "$1/class/net/$dev"/queues/tx-*; do
			[[ -e $q ]] && printf '%s:%s\n' "$dev" "${q##*/tx-}"
		done | sort -t: -k2n
		return
	fi
	_bqltool_devices "$@"
}

# _bqltool_keyvals BIN WORD: completions for KEY or KEY=VALUE of writable keys
_bqltool_keyvals()
{
	local bin=$1 word=$2 name mode unit
	if [[ $word == *=* ]]; then
		while read -r name mode unit; do
			[[ $name == "${word%%=*}" && $unit == bytes ]] || continue
			if [[ $COMP_WORDBREAKS == *=* ]]; then
				compgen -W max -- "${word#*=}"
			else
				compgen -W "$name=max" -- "$word"
			fi
		done < <("$bin" help --keys 2>/dev/null)
		return
	fi
	"$bin" help --keys 2>/dev/null | awk '$2 == "rw" { print $1 "=" }'
}

# no space after KEY= or --opt=, when every candidate is one of those
_bqltool_nospace()
{
	local c
	((${#COMPREPLY[@]})) || return
	for c in "${COMPREPLY[@]}"; do
		[[ $c == *= ]] || return
	done
	compopt -o nospace
}

# _bqltool_value OPTION ARGNAME: complete the argument of an option
_bqltool_value()
{
	case $1 in
	--sysfs-root | --textfile) _filedir -d ;;
	-n | --netns)
		COMPREPLY=($(compgen -W "$(ip netns list 2>/dev/null | awk '{ print $1 }')" -- "$cur")) ;;
	--color | --colour) COMPREPLY=($(compgen -W "auto always never" -- "$cur")) ;;
	-f | --format) COMPREPLY=($(compgen -W "text json prometheus" -- "$cur")) ;;
	--kernel) COMPREPLY=($(compgen -W "3.3 3.5 6.1 6.9 6.15 newest" -- "$cur")) ;;
	--missing) COMPREPLY=($(compgen -W "error skip" -- "$cur")) ;;
	--traffic)
		COMPREPLY=($(compgen -W "bulk cbr: poisson: onoff:" -- "$cur"))
		[[ ${COMPREPLY[*]} == *: ]] && compopt -o nospace ;;
	--size)
		COMPREPLY=($(compgen -W "fixed: uniform: imix bimodal: tso:" -- "$cur"))
		[[ ${COMPREPLY[*]} == *: ]] && compopt -o nospace ;;
	--from) _filedir ;;
	--link) COMPREPLY=($(compgen -W "10M 100M 1G 2.5G 10G 25G 40G 100G 200G 400G" -- "$cur")) ;;
	--qdisc) COMPREPLY=($(compgen -W "fq_codel fq cake fifo pfifo_fast pfifo bfifo" -- "$cur")) ;;
	-s | --sort)
		COMPREPLY=($(compgen -W "name limit inflight fill limit_min limit_max tx_rate
			pkt_rate stop_rate wake_rate stall_cnt stall_max qdisc_backlog qdrop_rate
			ring tx_usecs ring_p99 qdisc_p99 bql_stop_rate ring_stop_rate" -- "$cur")) ;;
	--only) COMPREPLY=($(compgen -W "$(_bqltool_devices "$root" "$netns")" -- "$cur")) ;;
	--set)
		if [[ $cur == *=* ]]; then
			COMPREPLY=($(_bqltool_keyvals "$bin" "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_bqltool_keyvals "$bin" "")" -- "$cur"))
			compopt -o nospace
		fi ;;
	*)
		case $2 in
		DIR) _filedir -d ;;
		FILE | PATH) _filedir ;;
		esac ;;
	esac
}

_bqltool()
{
	local cur prev words cword split
	_init_completion -s -n := || return

	local bin root=${BQLTOOL_SYSFS_ROOT:-/sys} netns= cmd= w i j k
	local -a _bqltool_optnames cmds
	local -A _bqltool_optarg

	bin=$(_bqltool_find "${words[0]/#\~/$HOME}")
	# global options before the command; remember -n and --sysfs-root
	_bqltool_opts "$bin"
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		case $w in
		--sysfs-root=*) root=${w#*=} ;;
		--netns=*) netns=${w#*=} ;;
		--) ;;
		-*)
			[[ ${_bqltool_optarg[$w]} && $w != --color && $w != --colour ]] || continue
			((i + 1 < cword)) || break
			((i++))
			[[ $w == --sysfs-root ]] && root=${words[i]}
			[[ $w == -n || $w == --netns ]] && netns=${words[i]} ;;
		*)
			cmd=$w
			break ;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ ${_bqltool_optarg[$prev]} && $prev != --color && $prev != --colour ]] ||
			[[ $split && ${_bqltool_optarg[$prev]} ]]; then
			_bqltool_value "$prev" "${_bqltool_optarg[$prev]}"
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "${_bqltool_optnames[*]}" -- "$cur"))
			_bqltool_nospace
		else
			COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null)" -- "$cur"))
		fi
		return
	fi

	# the command: an exact name or a unique prefix, as bqltool accepts it
	cmds=($(compgen -W "$("$bin" help --commands 2>/dev/null)" -- "$cmd"))
	for w in "${cmds[@]}"; do [[ $w == "$cmd" ]] && cmds=("$w") && break; done
	((${#cmds[@]} == 1)) && cmd=${cmds[0]}

	# global options may follow the command (bqltool show -n NS eth0): -n
	# and --sysfs-root there count too (top's and record's own -n is the same)
	for ((k = i + 1; k < cword; k++)); do
		w=${words[k]}
		case $w in
		--sysfs-root=*) root=${w#*=} ;;
		--netns=*) netns=${w#*=} ;;
		-n | --netns | --sysfs-root)
			((k + 1 < cword)) || break
			((k++))
			[[ $w == --sysfs-root ]] && root=${words[k]} || netns=${words[k]} ;;
		esac
	done

	_bqltool_opts "$bin" "$cmd"
	# a global option after the command takes its value as before it
	for w in -n --netns --sysfs-root; do
		[[ ${_bqltool_optarg[$w]} ]] || _bqltool_optarg[$w]=GLOBAL
	done
	if [[ ${_bqltool_optarg[$prev]} ]]; then
		_bqltool_value "$prev" "${_bqltool_optarg[$prev]}"
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_bqltool_optnames[*]}" -- "$cur"))
		_bqltool_nospace
		return
	fi

	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null)" -- "$cur")) ;;
	replay | apply)
		_filedir ;;
	sim) ;;		# options only
	set)
		# SEL... KEY=VALUE...: keys once a selector is there, values after '='
		local nsel=0
		for ((j = i + 1; j < cword; j++)); do
			# an option's argument (-n NS) is not a selector
			[[ ${_bqltool_optarg[${words[j]}]} && ${words[j]} != *=* ]] && ((j++)) && continue
			[[ ${words[j]} == -* || ${words[j]} == *=* ]] || ((nsel++))
		done
		if [[ $cur == *=* ]]; then
			COMPREPLY=($(_bqltool_keyvals "$bin" "$cur"))
			return
		fi
		COMPREPLY=($(compgen -W "$(_bqltool_selectors "$root" "$netns")" -- "$cur"))
		((nsel > 0)) &&
			COMPREPLY+=($(compgen -W "$(_bqltool_keyvals "$bin" "")" -- "$cur"))
		_bqltool_nospace
		__ltrim_colon_completions "$cur" ;;
	check)
		COMPREPLY=($(compgen -W "$(_bqltool_selectors "$root" "$netns" all)" -- "$cur"))
		__ltrim_colon_completions "$cur" ;;
	*)
		COMPREPLY=($(compgen -W "$(_bqltool_selectors "$root" "$netns")" -- "$cur"))
		__ltrim_colon_completions "$cur" ;;
	esac
} &&
	complete -F _bqltool bqltool

# ex: filetype=sh
