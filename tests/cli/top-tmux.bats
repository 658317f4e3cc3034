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

# start_view [ENV...] -- [TOP ARGS...]: run top in a 160x40 pane (VIEW_SIZE
# "COLSxROWS" changes it); after it exits the pane records its status and
# the terminal modes, then idles.
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
	local size=${VIEW_SIZE:-160x40}
	tmux -L "$SOCK" -f /dev/null new-session -d -x "${size%x*}" -y "${size#*x}" \
		"$BATS_TEST_TMPDIR/run.sh"
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
	assert_output --regexp "devices 3 shown of 3 +queues 7 +sort name asc"
	assert_output --regexp "DEVICE/QUEUE.* LIMIT +INFLIGHT +FILL +LIMIT HISTORY +LIMIT_MIN +LIMIT_MAX +TX RATE"
	assert_output --regexp "▾ eth0 +20\\.7 KiB +600 B +\\[▎ +\\] +3%"
	assert_output --regexp "   tx-3 +7\\.39 KiB +300 B +\\[▍ +\\] +4% +█+ +0-7\\.39K +0 B +max"
	assert_output --regexp "   tx-1 +4\\.44 KiB +100 B"
	assert_output --regexp "▾ eth1 +7\\.39 KiB"
	# up, BQL used once (limit 3028) although idle now: shown
	assert_output --regexp "▾ wlan0 +2\\.96 KiB +0 B"
	refute_output --partial "column"
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
	assert_output --regexp "q F10 \\^C +quit"
	assert_output --regexp "PINNED inflight stayed at or above the limit"
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
	wait_for "filter 'eth1' hides 2"
	wait_gone "▾ eth0"
	keys / C-u Enter
	wait_for "▾ eth0"
	# a: the hidden (here: BQL never used) wlan0 appears
	wait_for "▾ wlan0"
	echo 0 > "$ROOT/class/net/wlan0/queues/tx-0/byte_queue_limits/limit"
	wait_gone "▾ wlan0"
	wait_for "1 hidden: 1 BQL unused \\(a shows\\)"
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
	assert_output --regexp "tx-3 +7\\.39 KiB +6\\.84 KiB +\\[\\|{9} *\\] +92% +#+ +0-7\\.39K +0 B +max"
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

@test "TERM=dumb (no cursor addressing) is refused with a reason, not a garbled screen (#38)" {
	start_view TERM=dumb
	wait_for "TOP-EXITED"
	assert_equal "$(cat "$RC")" 1
	run screen
	assert_output --regexp "bqltool: top: terminal type 'dumb' cannot move the cursor; use -b for batch output"
	refute_output --partial "DEVICE/QUEUE"
	# the terminal is given back as it was
	grep -qE '(^|[ ;])icanon([ ;]|$)' "$STTY"
	grep -qE '(^|[ ;])echo([ ;]|$)' "$STTY"
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

@test "first screen: up devices with BQL shown; down and never-used ones hidden and counted" {
	echo down > "$ROOT/class/net/eth1/operstate"
	echo 0 > "$ROOT/class/net/wlan0/queues/tx-0/byte_queue_limits/limit"
	start_view -- -d 0.1
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "devices 1 shown of 3  2 hidden: 1 down, 1 BQL unused \\(a shows\\)"
	assert_output --regexp "▾ eth0 "
	refute_output --partial "eth1"
	refute_output --partial "wlan0"
	keys a
	wait_for "wlan0"
	wait_for "eth1"
	# every device would be hidden: all are shown instead, and the header says so
	keys a
	echo down > "$ROOT/class/net/eth0/operstate"
	wait_for "devices 3 shown of 3 \\(all down or BQL never used: shown anyway\\)"
	run screen
	assert_output --regexp "▾ eth0 "
	assert_output --regexp "▾ eth1 "
	assert_output --regexp "▾ wlan0 "
	refute_output --partial "press a"
	keys q
	assert_quit_clean
}

@test "LIMIT HISTORY prints its range: a 1 B limit and a 7.39 KiB one are told apart" {
	echo 1 > "$ROOT/class/net/eth0/queues/tx-1/byte_queue_limits/limit"
	start_view -- -d 0.1
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "   tx-1 +1 B .* █+ +0-1B +0 B +max"
	assert_output --regexp "   tx-3 +7\\.39 KiB .* █+ +0-7\\.39K +0 B +max"
	# the bar is on a zero baseline: half the maximum is half a bar
	echo 3784 > "$ROOT/class/net/eth0/queues/tx-3/byte_queue_limits/limit"
	wait_for "tx-3 +3\\.70 KiB"
	sleep 0.3
	run screen
	assert_output --regexp "   tx-3 +3\\.70 KiB .* █+▄+ +0-7\\.39K "
	keys q
	assert_quit_clean
}

@test "* expands every device (and collapses them all again); sorting by tx_rate follows the rate shown" {
	# 20 devices x 4 queues: past 64 queues devices start collapsed
	for i in $(seq 2 19); do
		cp -a "$ROOT/class/net/eth0" "$ROOT/class/net/eth$i"
		echo $((10 + i)) > "$ROOT/class/net/eth$i/ifindex"
	done
	VIEW_SIZE=160x120 start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "▸ eth0 "
	refute_output --partial "tx-3"
	keys '*'
	wait_for "▾ eth19 "
	[ "$(screen | grep -c '▾ eth')" -eq 20 ]
	[ "$(screen | grep -cE '^   tx-3 ')" -eq 19 ]	# wlan0 and eth1 have fewer queues
	keys '*'
	wait_gone "▾ eth"
	[ "$(screen | grep -c '▸ eth')" -eq 20 ]
	# one device has the biggest counter, another the rate: the rate wins
	echo 900000000 > "$ROOT/class/net/eth5/statistics/tx_bytes"
	keys s
	wait_for "Sort by"
	run screen
	assert_output --partial "tx_rate"
	refute_output --partial "tx_bytes"
	keys Escape
	keys q
	assert_quit_clean
	tmux -L "$SOCK" kill-server
	start_view -- -d 0.2 -s tx_rate
	wait_for "sort tx_rate desc"
	# eth7's counter grows while the view samples: it comes first (on a
	# busy machine a sample may see no write, so look for up to 10 s)
	local first=""
	for i in $(seq 1 100); do
		echo $((i * 100000)) > "$ROOT/class/net/eth7/statistics/tx_bytes"
		sleep 0.1
		[ "$i" -ge 5 ] || continue
		first=$(screen | grep -E '^[▾▸] ' | head -n 1)
		[[ "$first" != *"eth7 "* ]] || break
	done
	[[ "$first" == *"eth7 "* ]] || fail "first device row: $first"
	run screen
	assert_output --regexp "TX RATEv"
	keys q
	assert_quit_clean
}

@test "80x24: header lines drop whole fields, lowest priority first, never cut one" {
	echo down > "$ROOT/class/net/eth1/operstate"
	echo 0 > "$ROOT/class/net/wlan0/queues/tx-0/byte_queue_limits/limit"
	VIEW_SIZE=80x24 start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	run screen
	# line 0 ends with the whole time; line 1 keeps the sort, whole
	assert_line --index 0 --regexp "^bqltool top( +[^ ]+ [^ ]+)* +every 200ms +[0-9]{2}:[0-9]{2}:[0-9]{2}$"
	assert_line --index 1 --regexp "^devices 1 shown of 3  2 hidden \\(a shows\\)  sort name asc  [0-9]+ columns hidden$"
	keys Space
	wait_for "PAUSED"
	run screen
	assert_line --index 0 --regexp "^bqltool top( +[^ ]+ [^ ]+)* +[0-9]{2}:[0-9]{2}:[0-9]{2} +PAUSED ?$"
	# a long filter: fields give way, the filter is kept whole
	keys / x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x Enter
	wait_for "filter 'x{30}'"
	run screen
	assert_line --index 1 --regexp "^devices 0 of 3  filter 'x{30}'  sort name asc$"
	keys q
	assert_quit_clean
}

@test "80x24: a usable table that says how many columns are hidden, a help that fits" {
	VIEW_SIZE=80x24 start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "[0-9]+ columns hidden"
	assert_output --regexp "DEVICE/QUEUE.* LIMIT +INFLIGHT +FILL +TX RATE +FLAGS"
	assert_output --regexp "▾ eth0 +20\\.7 KiB +600 B"
	keys h
	wait_for "Press any key to return"
	run screen
	# every line of the help is there, none cut at the right edge
	assert_line --regexp "h \\? F1 +this help$"
	assert_line --regexp "DEV:tx-N\\*$"
	assert_line --regexp "STALL MAX stall_max in ms$"
	assert_line --regexp "re-read at least once a second\\.$"
	assert_line --index 0 "bqltool top - help"
	keys x
	wait_for "DEVICE/QUEUE"
	keys q
	assert_quit_clean
}

@test "80x24: the sort column stays in sight with its marker; a column with no data says so" {
	VIEW_SIZE=80x24 start_view -- -s stall_max
	wait_for "DEVICE/QUEUE"
	run screen
	# STALL MAX has a low priority: the width would hide it, the sort keeps it
	assert_line --index 1 --regexp "^devices 3 shown of 3  queues 7  sort stall_max desc  [0-9]+ columns hidden$"
	# (lines: bats leaves out the blank line 2)
	assert_line --index 2 --regexp "^DEVICE/QUEUE +LIMIT +INFLIGHT +FILL +STALL MAXv +FLAGS$"
	assert_output --regexp "▾ eth0 +20\\.7 KiB +600 B .* 24 ms"
	refute_output --partial "column hidden)"
	keys q
	assert_quit_clean
	# no netdev qstats under --sysfs-root: nothing to show, and the header says it
	tmux -L "$SOCK" kill-server
	VIEW_SIZE=80x24 start_view -- -s stop_rate
	wait_for "DEVICE/QUEUE"
	run screen
	assert_line --index 1 --regexp "  sort stop_rate desc \\(not reported\\)  "
	keys q
	assert_quit_clean
}

@test "80x24: sort, filter and pause stay in sight together; the filter's device row sums what it shows (#38)" {
	echo down > "$ROOT/class/net/eth1/operstate"
	VIEW_SIZE=80x24 start_view -- -s stall_max -d 0.2
	wait_for "DEVICE/QUEUE"
	keys / e t h 0 : t x - 1 Enter
	wait_for "filter 'eth0:tx-1'"
	keys Space
	wait_for "PAUSED"
	run screen
	assert_line --index 0 --regexp " PAUSED ?$"
	assert_line --index 1 --regexp "^devices 1 of 3  filter 'eth0:tx-1'  sort stall_max desc  [0-9]+ columns hidden$"
	assert_line --index 2 --regexp "STALL MAXv"	# bats leaves out the blank line 2
	# one rule with the selector: the device row sums the queue shown, and says how many
	assert_line --index 3 --regexp "^▾ eth0 \\(1 of 4\\) +4\\.44 KiB +100 B .* 8 ms"
	assert_line --index 4 --regexp "^   tx-1 +4\\.44 KiB +100 B "
	keys q
	assert_quit_clean
}

@test "a selector's device row sums the queues selected and says how many of all" {
	start_view -- -d 0.2 eth0:1 eth1
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "▾ eth0 \\(1 of 4\\) +4\\.44 KiB +100 B "
	assert_output --regexp "▾ eth1 +7\\.39 KiB +100 B "
	keys q
	assert_quit_clean
}

@test "the stall_max sort marker shows; the sort menu clears the rows it covers" {
	start_view -- -s stall_max
	wait_for "DEVICE/QUEUE"
	run screen
	assert_output --regexp "STALL MAXv"
	refute_output --partial "column hidden"
	keys s
	wait_for "Sort by"
	# the menu's rows (from "Sort by" down) hold the menu and nothing else
	run bash -c "tmux -L '$SOCK' capture-pane -p | sed -n '/Sort by/,/stall_max/p'"
	assert_output --partial "limit_min"
	refute_output --regexp "tx-|KiB|\\[|%"
	keys Escape
	wait_gone "Sort by"
	keys q
	assert_quit_clean
}

@test "keys between frames, sampling at -d 0.01: rows are rebuilt before a key uses them" {
	start_view -- -d 0.01
	wait_for "DEVICE/QUEUE"
	# samples come 10 times per frame, a full rescan (new device array)
	# every second: for 2.5 s, every key must see the current rows
	for _ in $(seq 80); do
		keys Down Down Up Home Enter Enter
		sleep 0.03
	done
	wait_for "every 10ms"
	keys q
	assert_quit_clean
}

# the table's lines: those under the column header, before the status line
table_lines() {
	screen | sed -n '/DEVICE\/QUEUE/,$p' | sed '1d' | head -n "$1"
}

@test "scrolled down, the device of the queues at the top stays on the first line, as a sticky header" {
	VIEW_SIZE=160x10 start_view -- -d 0.2
	wait_for "DEVICE/QUEUE"
	# 5 table lines; 10 rows: eth0 and 4 queues, eth1 and 2, wlan0 and 1
	keys Home
	wait_for "▾ eth0"
	# the cursor to eth1's first queue: the page scrolls eth0's row off the top
	for _ in 1 2 3 4 5 6; do keys Down; done
	sleep 0.5
	run table_lines 5
	# eth0's row is kept on the first line above its queues still in sight
	assert_line --index 0 --regexp "^▾ eth0 +20\\.7 KiB"
	assert_line --index 1 --regexp "^   tx-2 "
	assert_line --index 2 --regexp "^   tx-3 "
	assert_line --index 3 --regexp "^▾ eth1 "
	assert_line --index 4 --regexp "^   tx-0 "
	# further down, eth1's queues at the top: eth1 is the header
	keys Down Down Down
	sleep 0.5
	run table_lines 5
	assert_line --index 0 --regexp "^▾ eth1 "
	# no device row twice, no queue row lost under the header
	[ "$(table_lines 5 | grep -c 'eth1')" = 1 ]
	assert_line --index 4 --regexp "^   tx-0 "
	assert_line --index 3 --regexp "^▾ wlan0 "
	# back to the top: no header, the rows as they are
	keys Home
	sleep 0.5
	run table_lines 2
	assert_line --index 0 --regexp "^▾ eth0 "
	assert_line --index 1 --regexp "^   tx-0 "
	keys q
	assert_quit_clean
}
