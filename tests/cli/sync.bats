#!/usr/bin/env bats
# help, man pages and the three completions name the same commands, options
# and keys (the role of bpftool's test_bpftool_synctypes.py). Every list is
# taken from the binary, so commands that land later are covered as they do.
bats_require_minimum_version 1.5.0
load helpers
load comp_helpers

MAN="$BATS_TEST_DIRNAME/../../man"

setup_file() {
	export COMMANDS KEYS RWKEYS
	COMMANDS=$("$BQLTOOL" help --commands)
	KEYS=$("$BQLTOOL" help --keys | awk '{ print $1 }')
	RWKEYS=$("$BQLTOOL" help --keys | awk '$2 == "rw" { print $1 }')
}

# render PAGE: the page as plain text, one line per paragraph (no wrapping)
render() {
	if command -v mandoc >/dev/null; then
		mandoc -Tascii -Owidth=1000 "$1" | col -bx
	else
		groff -man -Tascii -rLL=1000n -P-cbou "$1" 2>/dev/null
	fi
}

# section TEXT NAME: the body of section NAME of a rendered page
section() {
	awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on' <<<"$1"
}

# squeeze: blanks collapsed to one space
squeeze() {
	tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'
}

# options CMD: the option words of `bqltool help [CMD]`, one per line
options() {
	"$BQLTOOL" help ${1:+"$1"} | grep -E '^ {1,6}-' | sed -E 's/^ +//; s/  .*//' |
		grep -oE -- '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*' | tr -d ' ,' | sort -u
}

@test "sync: the binary lists commands and keys" {
	[ -n "$COMMANDS" ]
	[ -n "$KEYS" ]
	[ -n "$RWKEYS" ]
	grep -qx show <<<"$COMMANDS"
	grep -qx limit_max <<<"$RWKEYS"
}

@test "sync: every command is in the 'bqltool help' overview" {
	overview=$("$BQLTOOL" help)
	for c in $COMMANDS; do
		grep -qE "^  $c +[A-Z(]" <<<"$overview" || fail "'$c' missing from 'bqltool help'"
	done
}

@test "sync: every command has bqltool-CMD(8) whose SYNOPSIS is the command's synopsis" {
	for c in $COMMANDS; do
		page=$MAN/bqltool-$c.8
		[ -f "$page" ] || fail "no man page $page for command '$c'"
		syn=$("$BQLTOOL" help "$c" | sed -n '1s/^Usage: //p' | squeeze)
		[ -n "$syn" ] || fail "no synopsis for '$c'"
		got=$(section "$(render "$page")" SYNOPSIS | squeeze)
		[[ $got == *"$syn"* ]] || fail "bqltool-$c.8 SYNOPSIS: '$got' lacks '$syn'"
	done
}

@test "sync: every option of a command's help is in its man page" {
	for c in $COMMANDS; do
		text=$(render "$MAN/bqltool-$c.8")
		for o in $(options "$c"); do
			grep -qF -- "$o" <<<"$text" || fail "bqltool-$c.8 does not mention $o"
		done
	done
}

@test "sync: bqltool(8) names every command, its page and every global option" {
	text=$(render "$MAN/bqltool.8")
	commands=$(section "$text" COMMANDS)
	for c in $COMMANDS; do
		grep -qE "^ +$c( |$)" <<<"$commands" || fail "bqltool.8 COMMANDS lacks '$c'"
		grep -qF "bqltool-$c(8)" <<<"$(section "$text" "SEE ALSO")" ||
			fail "bqltool.8 SEE ALSO lacks bqltool-$c(8)"
	done
	for o in $(options ""); do
		grep -qF -- "$o" <<<"$(section "$text" "GLOBAL OPTIONS")" ||
			fail "bqltool.8 GLOBAL OPTIONS lacks $o"
	done
}

@test "sync: no man page for a command that does not exist" {
	for page in "$MAN"/bqltool-*.8; do
		c=${page##*/bqltool-}
		c=${c%.8}
		grep -qx "$c" <<<"$COMMANDS" || fail "$page: no command '$c' in 'bqltool help --commands'"
	done
}

@test "sync: every man page has the sections of the house style" {
	for page in "$MAN"/*.[58]; do
		text=$(render "$page")
		want="NAME SYNOPSIS DESCRIPTION"
		[[ $page == *.8 ]] && want+=" EXIT_STATUS EXAMPLES SEE_ALSO"
		[[ $page == *bqltool.8 || $page == *.5 ]] || want+=" OPTIONS"
		[[ $page == *-help.8 ]] && want=${want/ OPTIONS/}
		[[ $page == *.5 ]] && want="NAME DESCRIPTION EXAMPLES SEE_ALSO"
		for s in $want; do
			grep -qx "${s//_/ }" <<<"$text" || fail "$page: no ${s//_/ } section"
		done
		if [[ $page == *.8 ]]; then
			codes=$(section "$text" "EXIT STATUS")
			grep -qE '^ +0( |$)' <<<"$codes" || fail "$page: EXIT STATUS without 0"
			grep -qE '^ +2( |$)' <<<"$codes" || fail "$page: EXIT STATUS without 2"
		fi
	done
}

@test "sync: every man page names the version it documents in .TH, the binary's (#38)" {
	version=$("$BQLTOOL" -V | head -1 | cut -d' ' -f2)
	for page in "$MAN"/*.[58]; do
		th=$(grep -m1 '^\.TH ' "$page")
		[[ $th == *" \"bqltool $version\" "* ]] || fail "$page: $th (want \"bqltool $version\")"
	done
}

@test "sync: no man page renders a line over 80 columns, and no doubled parentheses (#38)" {
	command -v man >/dev/null || skip "man is not installed"
	for page in "$MAN"/*.[58]; do
		while IFS= read -r l; do
			(( $(printf '%s' "$l" | wc -L) <= 80 )) || fail "$page: over 80 columns: $l"
			[[ $l != *" (("* ]] || fail "$page: doubled parentheses: $l"
		done < <(MANWIDTH=80 man -l "$page" 2>/dev/null)
	done
}

@test "sync: every key is in bqltool(8) and bqltool-show(8); writable keys in bqltool-set(8) and 'help set'" {
	main=$(render "$MAN/bqltool.8")
	show=$(render "$MAN/bqltool-show.8")
	set=$(render "$MAN/bqltool-set.8")
	sethelp=$("$BQLTOOL" help set)
	for k in $KEYS; do
		grep -qw -- "$k" <<<"$(section "$main" "BQL ATTRIBUTES")" ||
			fail "bqltool.8 BQL ATTRIBUTES lacks $k"
		grep -qw -- "$k" <<<"$show" || fail "bqltool-show.8 lacks $k"
	done
	for k in $RWKEYS; do
		grep -qw -- "$k" <<<"$(section "$set" KEYS)" || fail "bqltool-set.8 KEYS lacks $k"
		grep -qw -- "$k" <<<"$sethelp" || fail "'bqltool help set' lacks $k"
	done
}

@test "sync: the bash completion offers every command and every writable key" {
	bcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$(sort <<<"$COMMANDS")"
	bcomp "$BQLTOOL --sysfs-root $DATA/sysfs/multi set eth0 "
	for k in $RWKEYS; do assert_line "$k="; done
	bcomp "$BQLTOOL help "
	assert_equal "$(sort <<<"$output")" "$(sort <<<"$COMMANDS")"
}

@test "sync: the zsh completion offers every command and every writable key" {
	zcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$(sort <<<"$COMMANDS")"
	zcomp "$BQLTOOL --sysfs-root $DATA/sysfs/multi set eth0 "
	for k in $RWKEYS; do assert_line "$k"; done
}

@test "sync: the fish completion offers every command and every writable key" {
	fcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$(sort <<<"$COMMANDS")"
	fcomp "$BQLTOOL --sysfs-root $DATA/sysfs/multi set eth0 "
	for k in $RWKEYS; do assert_line "$k="; done
}

@test "sync: each command's options are offered by all three completions" {
	for c in $COMMANDS; do
		opts=$(options "$c")
		[ -n "$opts" ] || continue
		# --opt=WHAT in the help is offered as --opt=
		bcomp "$BQLTOOL $c -"
		for o in $opts; do assert_line --regexp "^$o=?\$"; done
		fcomp "$BQLTOOL $c -"
		for o in $opts; do assert_line --regexp "^$o=?\$"; done
	done
	# each option once: a description line that starts with an option name
	# ("--size also covers...") is no option of its own
	for c in $COMMANDS; do
		bcomp "$BQLTOOL $c -"
		assert_equal "$(sort <<<"$output" | uniq -d)" ""
		fcomp "$BQLTOOL $c -"
		assert_equal "$(sort <<<"$output" | uniq -d)" ""
	done
	zcomp "$BQLTOOL tune -"
	assert_equal "$(grep -c -- '^--size$' <<<"$output")" 1
	# zsh is slower to drive: one command with options is enough to prove
	# that the specs are parsed from the help
	zcomp "$BQLTOOL check -"
	for o in $(options check); do assert_line --regexp "^$o=?\$"; done
}
