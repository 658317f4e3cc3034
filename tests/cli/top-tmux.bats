#!/usr/bin/env bats
# top's live view, driven in a detached tmux pane on a private socket: the
# table is drawn, keys work, q/Ctrl-C/SIGTERM quit with status 0 and the
# terminal is given back (stty shows echo and icanon again).
bats_require_minimum_version 1.5.0
load helpers

setup() {
	command -v tmux >/dev/null || skip "tmux is not installed (Debian package tmux)"
	use_tree multi
	SOCK="bqlt-$$-$BATS_TEST_NUMBER"
	RC="$BATS_TEST_TMPDIR/rc"
	STTY="$BATS_TEST_TMPDIR/stty"
}

teardown() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
}

# start_view [ENV...] -- [TOP ARGS...]: run top in a 160x40 pane; after it
# exits the pane records its status and the terminal modes, then idles.
start_view() {
	local envs=() args=()

	while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
	[ "${1:-}" = "--" ] && shift
	args=("$@")
	cat > "$BATS_TEST_TMPDIR/run.sh" <<-EOF
		#!/bin/sh
		export LANG=C.UTF-8 TERM=tmux-256color ${envs[*]}
		trap : INT	# ^C reaches the whole group: this shell stays (exec resets it)
		"$BQLTOOL" --sysfs-root "$ROOT" top ${args[*]}
		echo \$? > "$RC"
		stty -a > "$STTY"
		echo TOP-EXITED
		exec sleep 600
	EOF
	chmod +x "$BATS_TEST_TMPDIR/run.sh"
	tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 40 "$BATS_TEST_TMPDIR/run.sh"
}

screen() {
	tmux -L "$SOCK" capture-pane -p "$@"
}

keys() {
	tmux -L "$SOCK" send-keys "$@"
}

# wait_for REGEX: until the pane shows it (10 s); prints the pane if not
wait_for() {
	for _ in $(seq 100); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	echo "pane never showed /$1/:" >&2
	screen >&2
	return 1
}

wait_gone() {
	for _ in $(seq 100); do
		screen | grep -qE -- "$1" || return 0
		sleep 0.1
	done
	echo "pane still shows /$1/:" >&2
	screen >&2
	return 1
}

# the view ended with status 0 and the terminal is back in cooked mode
assert_quit_clean() {
	wait_for "TOP-EXITED"
	assert_equal "$(cat "$RC")" 0
	grep -qE '(^|[ ;])icanon([ ;]|$)' "$STTY"
	grep -qE '(^|[ ;])echo([ ;]|$)' "$STTY"
	! grep -qE '(^|[ ;])-icanon' "$STTY"
	! grep -qE '(^|[ ;])-echo([ ;]|$)' "$STTY"
	# the alternate screen is gone: no table left on the visible pane
	! screen | grep -q "DEVICE/QUEUE"
}

@test "the view draws devices, queues, limits, bars, history and key hints" {
	start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	wait_for "every 200ms"
	run screen
	assert_line --index 0 --regexp "^bqltool top +host .+ kernel .+ HZ 250 +every 200ms +[0-9]{2}:[0-9]{2}:[0-9]{2}"
	assert_output --regexp "devices 2 shown of 3, 1 idle hidden \\(a\\) +queues 7 +sort name asc"
	assert_output --regexp "DEVICE/QUEUE.* LIMIT +INFLIGHT +FILL +LIMIT HISTORY +MIN +MAX +TX RATE"
	assert_output --regexp "▾ eth0 +20\\.7 KiB +600 B +\\[▎ +\\] +3%"
	assert_output --regexp "   tx-3 +7\\.39 KiB +300 B +\\[▍ +\\] +4% +█+ +0 B +max"
	assert_output --regexp "   tx-1 +4\\.44 KiB +100 B"
	assert_output --regexp "▾ eth1 +7\\.39 KiB"
	refute_output --partial "wlan0"
	assert_output --regexp "hHelp sSort rReverse /Filter SpacePause"
	keys q
	assert_quit_clean
}

@test "h shows the help screen, any key returns, q quits with status 0" {
	start_view
	wait_for "DEVICE/QUEUE"
	keys h
	wait_for "Press any key to return"
	run screen
	assert_output --partial "bqltool top - help"
	assert_output --regexp "q, F10 +quit"
	assert_output --regexp "PINNED +inflight stayed at or above the limit"
	keys x
	wait_for "DEVICE/QUEUE"
	keys F1
	wait_for "Press any key to return"
	keys Escape
	wait_for "DEVICE/QUEUE"
	keys q
	assert_quit_clean
}

@test "sort, reverse, filter, expand, show all and pause keys" {
	start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	# > moves the sort to LIMIT (biggest first)
	keys '>'
	wait_for "sort limit desc"
	run screen
	assert_output --regexp "LIMITv"
	first=$(screen | grep -nE '^   tx-' | head -n 1)
	[[ "$first" == *"tx-3"* ]]
	keys r
	wait_for "sort limit asc"
	# the sort menu: down twice from limit is fill
	keys s
	wait_for "Sort by"
	keys Down Down Enter
	wait_for "sort fill desc"
	# filter by glob
	keys / e t h 1 Enter
	wait_for "filter 'eth1'"
	wait_gone "▾ eth0"
	run screen
	assert_output --partial "2 filtered"
	keys / C-u Enter
	wait_for "▾ eth0"
	# a: idle wlan0 appears
	keys a
	wait_for "wlan0"
	# Enter collapses the device under the cursor (the first row)
	keys Home Enter
	wait_for "▸ "
	# pause
	keys Space
	wait_for "PAUSED"
	keys p
	wait_gone "PAUSED"
	# interval
	keys +
	wait_for "every 500ms"
	keys - -
	wait_for "every 100ms"
	keys F10
	assert_quit_clean
}

@test "Ctrl-C and SIGTERM quit with status 0 and restore the terminal" {
	start_view
	wait_for "DEVICE/QUEUE"
	keys C-c
	assert_quit_clean

	tmux -L "$SOCK" kill-server
	start_view
	wait_for "DEVICE/QUEUE"
	pkill -TERM -f "^$BQLTOOL --sysfs-root $ROOT top" || true
	assert_quit_clean
}

@test "devices vanishing and appearing are shown, the view keeps running" {
	start_view -- -d 0.1
	wait_for "▾ eth1"
	rm -rf "$ROOT/class/net/eth1"
	wait_for "eth1 vanished"
	wait_gone "▾ eth1"
	cp -a "$DATA/sysfs/multi/class/net/eth0" "$ROOT/class/net/eth7"
	echo 9 > "$ROOT/class/net/eth7/ifindex"
	wait_for "eth7 appeared"
	wait_for "▾ eth7"
	keys q
	assert_quit_clean
}

@test "ASCII bars and history when the locale is not UTF-8" {
	echo 7000 > "$ROOT/class/net/eth0/queues/tx-3/byte_queue_limits/inflight"
	start_view LANG=C LC_ALL=C -- -d 0.1
	wait_for "DEVICE/QUEUE"
	run screen
	refute_output --partial "█"
	assert_line --regexp "^- eth0 "
	assert_output --regexp "tx-3 +7\\.39 KiB +6\\.84 KiB +\\[\\|{9} *\\] +92% +#+ +0 B +max"
	keys q
	assert_quit_clean
}

@test "colour by default, monochrome with NO_COLOR or --color=never" {
	start_view
	wait_for "DEVICE/QUEUE"
	# the column header is black on green
	screen -e | grep -q $'\e\\[30m\e\\[42m'
	keys q
	assert_quit_clean
	tmux -L "$SOCK" kill-server

	start_view NO_COLOR=1
	wait_for "DEVICE/QUEUE"
	run screen -e
	refute_output --partial $'\e[42m'
	assert_output --partial $'\e[7m'	# reverse video instead
	keys q
	assert_quit_clean
}

@test "an unusable terminal type is an error, not a broken screen" {
	start_view TERM=no-such-terminal-xyz
	wait_for "TOP-EXITED"
	assert_equal "$(cat "$RC")" 1
	run screen
	assert_output --regexp "cannot use terminal type 'no-such-terminal-xyz'; use -b"
}

@test "a device name with escape sequences is drawn escaped, the screen intact" {
	mv "$ROOT/class/net/eth0" "$ROOT/class/net/"$'e\e[2J\xc2\x9bx'
	start_view -- -d 0.2
	wait_for '▾ e\\x1b\[2J\\u00'
	screen | grep -q 'bqltool top'
	keys q
	wait_for TOP-EXITED
	[ "$(cat "$RC")" = 0 ]
}
