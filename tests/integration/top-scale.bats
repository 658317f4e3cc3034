#!/usr/bin/env bats
# top at scale, against the real kernel: 16 ifb devices of 256 TX queues
# (4096 queues) in a namespace of our own. Every device `show` lists is
# sampled, or what is left out is said, in text, JSON and the live view,
# whatever the descriptor limit (`ulimit -n` in a subshell makes the
# shortage reproducible). The host's devices are never touched.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create topscale || return 0
	for i in $(seq 0 15); do
		ip -n "$NS" link add "s$i" numtxqueues 256 type ifb || return 0
		ip -n "$NS" link set "s$i" up
	done
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	command -v jq >/dev/null || skip "jq is not installed (Debian package jq)"
	[ "$(ip -n "$NS" -o link show | grep -c ' s[0-9]*:')" -eq 16 ] ||
		skip "could not make 16 ifb devices of 256 TX queues"
	SOCK="bqlt-scale-$$-$BATS_TEST_NUMBER"
}

teardown() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	if [ -n "${TOP_PID:-}" ]; then
		kill "$TOP_PID" 2>/dev/null || true
		wait "$TOP_PID" 2>/dev/null || true
	fi
}

# devices and queues of the last JSON line, and its shortage (or null)
json_cover() {
	tail -n 1 | jq -r '"\(.devices | length) \([.devices[].queues | length] | add) \(.shortage.reason // "none") \(.shortage.ndevices_skipped // 0)"'
}

@test "scale: show lists 16 devices, 4096 queues" {
	run -0 bash -c "'$BQLTOOL' -n '$NS' -j show | jq -r '\"\(length) \([.[].queues | length] | add)\"'"
	assert_output "16 4096"
}

@test "scale: ulimit -n 20000: top -b -j -a samples all 16 devices, 4096 queues, nothing short" {
	run -0 bash -c "ulimit -n 20000 && '$BQLTOOL' -n '$NS' -j top -a -c 2 -d 0.05 | tail -n 1 > '$BATS_TEST_TMPDIR/j'"
	run -0 json_cover < "$BATS_TEST_TMPDIR/j"
	assert_output "16 4096 none 0"
}

@test "scale: ulimit -n 1024: still all 16 devices, and the shortage is said (JSON, text, stderr)" {
	run -0 bash -c "ulimit -n 1024 && '$BQLTOOL' -n '$NS' -j top -a -c 2 -d 0.05 2>'$BATS_TEST_TMPDIR/e' | tail -n 1 > '$BATS_TEST_TMPDIR/j'"
	run -0 json_cover < "$BATS_TEST_TMPDIR/j"
	assert_output "16 4096 EMFILE 0"
	run -0 jq -r '"\(.shortage.fd_limit) \(.shortage.nqueues_reopened > 0) \(.shortage.message)"' "$BATS_TEST_TMPDIR/j"
	assert_output --regexp "^1024 true out of file descriptors \\(ulimit -n 1024\\): [0-9]+ queues read by reopening their files \\(slower\\); covering 16 devices, 4096 queues$"
	run -0 cat "$BATS_TEST_TMPDIR/e"
	assert_output --partial "warning: out of file descriptors (ulimit -n 1024)"
	# the values of a queue read by reopening are the kernel's
	run -0 jq -r '.devices[] | select(.ifname == "s15") | .queues[255] | "\(.queue) \(.limit_max) \(.hold_time)"' "$BATS_TEST_TMPDIR/j"
	assert_output "255 $(nsr s15 255 limit_max) $(nsr s15 255 hold_time)"

	run -0 bash -c "ulimit -n 1024 && '$BQLTOOL' -n '$NS' top -b -a -c 1 2>/dev/null"
	assert_output --regexp "shortage: out of file descriptors \\(ulimit -n 1024\\): .*covering 16 devices, 4096 queues"
	[ "$(grep -cE '^s[0-9]+ +all ' <<< "$output")" -eq 16 ]
}

@test "scale: the soft limit is raised to the hard one: no shortage with ulimit -S -n 1024" {
	[ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -ge 20000 ] ||
		skip "the hard descriptor limit ($(ulimit -H -n)) is below 20000"
	run -0 bash -c "ulimit -S -n 1024 && '$BQLTOOL' -n '$NS' -j top -a -c 1 | tail -n 1 > '$BATS_TEST_TMPDIR/j'"
	run -0 json_cover < "$BATS_TEST_TMPDIR/j"
	assert_output "16 4096 none 0"
}

@test "scale: the live view says what the descriptor shortage leaves and shows all 16 devices" {
	command -v tmux >/dev/null || skip "tmux is not installed (Debian package tmux)"
	tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 40 \
		"ulimit -n 1024; LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL -n $NS top -a -d 0.5; sleep 600"
	for _ in $(seq 100); do
		tmux -L "$SOCK" capture-pane -p | grep -q "DEVICE/QUEUE" && break
		sleep 0.1
	done
	run tmux -L "$SOCK" capture-pane -p
	assert_output --regexp "devices 16 shown of 16 +queues 4096"
	assert_output --regexp "out of file descriptors \\(ulimit -n 1024\\): [0-9]+ queues read by reopening"
	tmux -L "$SOCK" send-keys q
}

# the first JSON line of FILE whose mono_ns is at least T: its line number
line_at() {
	jq -r --argjson t "$2" 'select(.mono_ns >= $t) | input_line_number' "$1" | head -n 1
}

@test "scale: settings written while top -b runs show within the documented second (#40)" {
	out="$BATS_TEST_TMPDIR/out"
	"$BQLTOOL" -n "$NS" -j top -a -d 0.1 > "$out" 2>/dev/null &
	TOP_PID=$!
	for _ in $(seq 200); do [ "$(wc -l < "$out")" -ge 2 ] && break; sleep 0.05; done
	# the last queue of the last device, and one in the middle: whichever
	# slice they fall in, each queue's settings are read within 1 s
	run -0 "$BQLTOOL" -n "$NS" set -q s15:tx-255 limit_max=30000 hold_time=250
	run -0 "$BQLTOOL" -n "$NS" set -q s7:tx-100 stall_thrs=20
	# the first sample that started after the writes: R
	n=$(wc -l < "$out")
	for _ in $(seq 200); do [ "$(wc -l < "$out")" -ge $((n + 2)) ] && break; sleep 0.05; done
	r=$(sed -n "$((n + 2))p" "$out" | jq '.mono_ns')
	# samples until 1.5 s after R (the bound, and slack for a late tick)
	for _ in $(seq 400); do
		[ "$(tail -n 1 "$out" | jq '.mono_ns' 2>/dev/null || echo 0)" -ge $((r + 1500000000)) ] && break
		sleep 0.05
	done
	kill -INT "$TOP_PID"; wait "$TOP_PID" || true; TOP_PID=
	first=$(line_at "$out" $((r + 1000000000)))
	[ -n "$first" ]
	# from 1 s after R on, every sample shows the new values
	run -0 bash -c "tail -n +$first '$out' | head -n -1 | jq -c '[(.devices[] | select(.ifname == \"s15\") | .queues[255] | .limit_max, .hold_time), (.devices[] | select(.ifname == \"s7\") | .queues[100] | .stall_thrs)]' | sort -u"
	# (as the kernel keeps them: ms through jiffies)
	assert_output "[30000,$(nsr s15 255 hold_time),$(nsr s7 100 stall_thrs)]"
}
