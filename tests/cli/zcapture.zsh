#!/usr/bin/env zsh
# SPDX-License-Identifier: GPL-2.0-only
# zcapture.zsh COMPDIR LINE: print the candidates zsh offers for LINE<TAB>,
# one per line, with the completion functions of COMPDIR, so that tests can
# check zsh completion without a terminal. An interactive `zsh -f` runs on a
# pseudo-terminal (zsh/zpty); compadd is wrapped to print what it adds, and
# the markers are split ("<<""C>>") so the echo of the input never matches.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
# compinit scans all of fpath; a dump file ($ZCAPTURE_DUMP) makes later runs quick
if [[ -n $ZCAPTURE_DUMP ]]; then
	zpty -w z "PROMPT= RPROMPT= ; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -d ${(q)ZCAPTURE_DUMP}"
else
	zpty -w z "PROMPT= RPROMPT= ; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
fi
zpty -w z 'zstyle ":completion:*" insert-tab false; zstyle ":completion:*" list-grouped false'
zpty -w z 'compprefuncs=(_cap_begin); comppostfuncs=(_cap_end)'
zpty -w z '_cap_begin() { print -r -- "<<""BEGIN>>" }'
zpty -w z '_cap_end() { print -r -- "<<""END>>"; exit }'
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __h; builtin compadd -A __h "$@"; (( $#__h )) || return 1; print -rl -- "<<""C>>"${^__h}; builtin compadd "$@" }'
zpty -w z 'bindkey "^I" complete-word'
zpty -w z "$2"$'\t'
local line on=0
while zpty -r z line; do
	line=${${line//$'\r'/}%$'\n'}
	[[ $line == *'<<BEGIN>>'* ]] && on=1
	[[ $line == *'<<END>>'* ]] && break
	(( on )) && [[ $line == *'<<C>>'* ]] && print -r -- ${line#*<<C>>}
done
zpty -d z
