# Shared by completion.bats and sync.bats: run each shell's completion for
# a command line and print the candidates, one per line.

COMPLETIONS="$BATS_TEST_DIRNAME/../../completions"

# bcomp LINE: the bash completion's candidates for LINE (cursor at the end),
# one per line; "<nospace>" on stderr when it asks for no trailing space.
# LINE is split into COMP_WORDS as readline splits it (blanks, and = and :
# as words of their own, from the default COMP_WORDBREAKS).
bcomp() {
	[ -r /usr/share/bash-completion/bash_completion ] ||
		skip "bash-completion not installed"
	run --separate-stderr bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		compopt() { [[ $* == *nospace* ]] && echo "<nospace>" >&2; return 0; }
		line=$2 w=() cur=
		for ((i = 0; i < ${#line}; i++)); do
			c=${line:i:1}
			if [[ $c == " " ]]; then
				[[ $cur ]] && w+=("$cur"); cur=
			elif [[ $c == [=:] ]]; then
				[[ $cur ]] && w+=("$cur"); w+=("$c"); cur=
			else
				cur+=$c
			fi
		done
		w+=("$cur")
		COMP_WORDS=("${w[@]}") COMP_CWORD=$((${#w[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		_bqltool bqltool "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETIONS/bqltool.bash" "$1"
}

# sorted words, one per line
sorted() {
	tr ' ' '\n' <<<"$*" | grep -v '^$' | sort
}

# zcomp LINE: the candidates zsh offers for LINE<TAB> (tests/cli/zcapture.zsh)
zcomp() {
	command -v zsh >/dev/null || skip "zsh not installed"
	zsh -c 'zmodload zsh/zpty' 2>/dev/null || skip "zsh without the zsh/zpty module"
	ZCAPTURE_DUMP=$BATS_FILE_TMPDIR/zcompdump \
		run timeout 20 zsh "$BATS_TEST_DIRNAME/zcapture.zsh" "$COMPLETIONS" "$1"
}

# fcomp LINE: the candidates of `complete -C LINE` in fish, descriptions cut
fcomp() {
	command -v fish >/dev/null || skip "fish not installed"
	run fish -c 'source $argv[1]; complete -C"$argv[2]" | string replace -r "\t.*" ""' \
		"$COMPLETIONS/bqltool.fish" "$1"
}
