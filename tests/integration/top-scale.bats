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
