#!/usr/bin/env bats
# Shell completions: the bash function driven with COMP_WORDS/COMP_CWORD,
# zsh through a pseudo-terminal (zsh/zpty), fish with `complete -C`.
bats_require_minimum_version 1.5.0
load helpers
load comp_helpers

MULTI="$DATA/sysfs/multi"

@test "bash: commands after 'bqltool ' are the program's (help --commands)" {
	bcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
	bcomp "$BQLTOOL sh"
	assert_output show
	bcomp "$BQLTOOL help "
	assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
}

@test "bash: global options after '-' are the ones 'bqltool help' lists" {
	bcomp "$BQLTOOL -"
	assert_success
	expected=$("$BQLTOOL" help | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' |
		grep -oE -- '--?[a-zA-Z][-a-zA-Z]*' | sort -u)
	for o in $expected; do
		assert_line -- "$o"
	done
	for o in -j --json -p --pretty -n --netns --sysfs-root --color -h --help -V --version; do
		assert_line -- "$o"
	done
	bcomp "$BQLTOOL --sysfs"
	assert_output -- --sysfs-root
	bcomp "$BQLTOOL --color="
	assert_equal "$(sort <<<"$output")" "$(sorted always auto never)"
}

@test "bash: devices with BQL from --sysfs-root for 'show ', queues after 'DEV:'" {
	bcomp "$BQLTOOL --sysfs-root $MULTI show "
	assert_success
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	bcomp "$BQLTOOL --sysfs-root=$MULTI show e"
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1)"
	BQLTOOL_SYSFS_ROOT=$DATA/sysfs/nic64 bcomp "$BQLTOOL show "
	assert_output ens1f0
	# bash splits at ':'; the candidates are what follows it
	bcomp "$BQLTOOL --sysfs-root $MULTI show eth0:"
	assert_equal "$output" "$(printf '%s\n' 0 1 2 3)"
	bcomp "$BQLTOOL --sysfs-root $MULTI check "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 lo veth0 wlan0)"
}

@test "bash: devices from /sys without --sysfs-root (those with BQL)" {
	expected=$(for d in /sys/class/net/*; do
		[ -d "$d/queues/tx-0/byte_queue_limits" ] && basename "$d"; done | sort)
	bcomp "$BQLTOOL show "
	assert_success
	assert_equal "$(sort <<<"$output")" "$expected"
}

@test "bash: 'set DEV ' offers the writable keys with '=' (no space after them)" {
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 "
	assert_success
	while read -r key mode unit; do
		if [ "$mode" = rw ]; then
			assert_line "$key="
		else
			refute_line "$key="
		fi
	done < <("$BQLTOOL" help --keys)
	assert_line eth1	# another selector is fine too
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_m"
	assert_equal "$(sort <<<"$output")" "$(sorted limit_max= limit_min=)"
	assert_equal "$stderr" "<nospace>"
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 e"
	assert_equal "$stderr" ""	# a device gets its space
	# no key before the first selector
	bcomp "$BQLTOOL --sysfs-root $MULTI set "
	refute_output --partial "="
	bcomp "$BQLTOOL --sysfs-root $MULTI set --dry-run eth0:1 "
	assert_line "hold_time="
}

@test "bash: 'max' after limit_max=, limit_min= and limit=; nothing after hold_time=" {
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_max="
	assert_success
	assert_output max
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_min=m"
	assert_output max
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit="
	assert_output max
	bcomp "$BQLTOOL --sysfs-root $MULTI set eth0 hold_time="
	assert_output ""
	bcomp "$BQLTOOL replay --set limit_max="
	assert_output max
}

@test "bash: command options and their values" {
	bcomp "$BQLTOOL show -"
	assert_success
	assert_line --  -f
	assert_line -- --format
	bcomp "$BQLTOOL show --format "
	assert_equal "$(sort <<<"$output")" "$(sorted json prometheus text)"
	bcomp "$BQLTOOL show --format=pro"
	assert_output prometheus
	bcomp "$BQLTOOL check -"
	for o in -a --all -i --interval; do assert_line -- "$o"; done
	bcomp "$BQLTOOL export --textfile $BATS_TEST_DIRNAME/../da"
	assert_output "$BATS_TEST_DIRNAME/../data"
}

@test "record: bash, zsh and fish complete the command, its options, -o files and selectors" {
	bcomp "$BQLTOOL rec"
	assert_output record
	bcomp "$BQLTOOL record -"
	for o in -d --duration -c --count -o --output --queued --no-spin -n --netns; do
		assert_line -- "$o"
	done
	bcomp "$BQLTOOL record -o $BATS_TEST_DIRNAME/../da"
	assert_output "$BATS_TEST_DIRNAME/../data"
	bcomp "$BQLTOOL --sysfs-root $MULTI record eth"
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1)"
	fcomp "$BQLTOOL rec"
	assert_output record
	fcomp "$BQLTOOL record --"
	for o in --duration --count --output --queued --no-spin --netns; do
		assert_line -- "$o"
	done
	zcomp "$BQLTOOL rec"
	assert_line record
	zcomp "$BQLTOOL record --q"
	assert_line -- --queued
}

@test "latency: bash, zsh and fish complete the command, its options, --from files and selectors" {
	bcomp "$BQLTOOL lat"
	assert_output latency
	bcomp "$BQLTOOL latency -"
	for o in -d --duration -i --interval --hist --no-irq --from -n --netns -v --verbose; do
		assert_line -- "$o"
	done
	bcomp "$BQLTOOL latency --from $BATS_TEST_DIRNAME/../da"
	assert_output "$BATS_TEST_DIRNAME/../data"
	bcomp "$BQLTOOL --sysfs-root $MULTI latency eth"
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1)"
	fcomp "$BQLTOOL lat"
	assert_output latency
	fcomp "$BQLTOOL latency --"
	for o in --duration --interval --hist --from --netns; do
		assert_line -- "$o"
	done
	zcomp "$BQLTOOL lat"
	assert_line latency
	zcomp "$BQLTOOL latency --h"
	assert_line -- --hist
}

@test "bash: sim's value lists, and no selectors after sim" {
	bcomp "$BQLTOOL sim --traffic "
	assert_equal "$(sort <<<"$output")" "$(sorted bulk cbr: onoff: poisson:)"
	bcomp "$BQLTOOL sim --size b"
	assert_output bimodal:
	bcomp "$BQLTOOL sim --link 10"
	assert_equal "$(sort <<<"$output")" "$(sorted 10G 10M 100G 100M)"
	bcomp "$BQLTOOL sim --kernel 6.1"
	assert_line 6.1
	bcomp "$BQLTOOL --sysfs-root $MULTI sim "
	assert_output ""
	bcomp "$BQLTOOL sim --trace $BATS_TEST_DIRNAME/../da"
	assert_output "$BATS_TEST_DIRNAME/../data"
}

@test "bash: -n and --sysfs-root arguments are skipped when finding the command" {
	bcomp "$BQLTOOL -j --sysfs-root $MULTI -p show "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	bcomp "$BQLTOOL --sysfs-root "
	assert_success	# directories: whatever is here, no commands
	refute_line show
}

@test "bash, zsh, fish: --sysfs-root after the command counts, as bqltool takes it there (#38)" {
	for l in "$BQLTOOL show --sysfs-root $MULTI " "$BQLTOOL show --sysfs-root=$MULTI "; do
		bcomp "$l"
		assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
		zcomp "$l"
		assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
		fcomp "$l"
		assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	done
	bcomp "$BQLTOOL show --sysfs-root $MULTI eth1:"
	assert_equal "$output" "$(printf '%s\n' 0 1)"
	zcomp "$BQLTOOL show --sysfs-root $MULTI eth1:"
	assert_equal "$output" "$(printf '%s\n' 0 1)"
	fcomp "$BQLTOOL show --sysfs-root $MULTI eth1:"
	assert_equal "$output" "$(printf '%s\n' eth1:0 eth1:1)"
	# its value is no selector: set offers devices, keys only after one
	bcomp "$BQLTOOL set --sysfs-root $MULTI "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	fcomp "$BQLTOOL set --sysfs-root $MULTI "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	# and its own value completes as a directory, after the command too
	zcomp "$BQLTOOL show -"
	assert_line --sysfs-root
	assert_line --netns
}

@test "bash, zsh, fish: tune --qdisc offers the kinds tune takes (#38)" {
	want=$(sorted fq_codel fq cake fifo pfifo_fast pfifo bfifo)
	# the same kinds as tune's help
	for k in $want; do
		"$BQLTOOL" help tune | grep -q -- "$k" || fail "tune's help does not name $k"
	done
	bcomp "$BQLTOOL tune --qdisc "
	assert_equal "$(sort <<<"$output")" "$want"
	zcomp "$BQLTOOL tune --qdisc "
	assert_equal "$(sort <<<"$output")" "$want"
	fcomp "$BQLTOOL tune --qdisc "
	assert_equal "$(sort <<<"$output")" "$want"
}

@test "bash, zsh, fish: 'bqltool' not on PATH is found where it is installed (sbin: sudo bqltool <TAB>) (#38)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a private mount namespace"
	unshare -m true 2>/dev/null || skip "cannot create a mount namespace here"
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion not installed"
	local sbin=$BATS_TEST_TMPDIR/sbin
	mkdir -p "$sbin"
	ln -s "$BQLTOOL" "$sbin/bqltool"
	# /usr/sbin gets a directory holding only bqltool, in a mount namespace of
	# this test; PATH has no bqltool
	cat >"$BATS_TEST_TMPDIR/b.sh" <<-'EOF'
		mount --bind "$1" /usr/sbin || exit 99
		source /usr/share/bash-completion/bash_completion
		source "$2"
		compopt() { return 0; }
		COMP_WORDS=(bqltool "") COMP_CWORD=1 COMP_LINE="bqltool " COMP_POINT=8
		_bqltool bqltool "" bqltool
		printf "%s
" "${COMPREPLY[@]}"
	EOF
	run env PATH=/usr/bin:/bin unshare -m bash "$BATS_TEST_TMPDIR/b.sh" "$sbin" "$COMPLETIONS/bqltool.bash"
	assert_success
	assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
	if command -v fish >/dev/null; then
		run env PATH=/usr/bin:/bin unshare -m sh -c 'mount --bind "$1" /usr/sbin || exit 99
			exec fish -c "source $2; complete -C\"bqltool \" | string replace -r \"\t.*\" \"\""' \
			_ "$sbin" "$COMPLETIONS/bqltool.fish"
		assert_success
		assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
	fi
}

@test "zsh: the completion function parses (zsh -n)" {
	command -v zsh >/dev/null || skip "zsh not installed"
	run zsh -n "$COMPLETIONS/_bqltool"
	assert_success
	assert_output ""
	head -1 "$COMPLETIONS/_bqltool" | grep -qx '#compdef bqltool'
}

@test "zsh: commands, devices, keys and max, driven through a pty" {
	zcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
	zcomp "$BQLTOOL --sysfs-root $MULTI show "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	zcomp "$BQLTOOL --sysfs-root $MULTI show eth0:"
	assert_equal "$output" "$(printf '%s\n' 0 1 2 3)"
	zcomp "$BQLTOOL --sysfs-root $MULTI set eth0 "
	assert_line limit_max
	assert_line hold_time
	refute_line inflight
	zcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_max="
	assert_output max
	zcomp "$BQLTOOL show --format "
	assert_equal "$(sort <<<"$output")" "$(sorted json prometheus text)"
}

@test "fish: the completion parses (fish -n) and answers complete -C" {
	command -v fish >/dev/null || skip "fish not installed"
	run fish -n "$COMPLETIONS/bqltool.fish"
	assert_success
	fcomp "$BQLTOOL "
	assert_success
	assert_equal "$(sort <<<"$output")" "$("$BQLTOOL" help --commands | sort)"
	fcomp "$BQLTOOL --sysfs-root $MULTI show "
	assert_equal "$(sort <<<"$output")" "$(sorted eth0 eth1 wlan0)"
	fcomp "$BQLTOOL --sysfs-root $MULTI show eth1:"
	assert_equal "$output" "$(printf '%s\n' eth1:0 eth1:1)"
	fcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_"
	assert_equal "$(sort <<<"$output")" "$(sorted limit_max= limit_min=)"
	fcomp "$BQLTOOL --sysfs-root $MULTI set eth0 limit_max="
	assert_output limit_max=max
	fcomp "$BQLTOOL show --format="
	assert_equal "$(sort <<<"$output")" "$(sorted --format=json --format=prometheus --format=text)"
	fcomp "$BQLTOOL sim --traffic "
	assert_equal "$(sort <<<"$output")" "$(sorted bulk cbr: onoff: poisson:)"
	fcomp "$BQLTOOL --sysfs-root $MULTI sim "
	assert_output ""
}
