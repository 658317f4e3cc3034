#!/usr/bin/env bats
# top's live view against the real kernel, in a tmux pane, inside a network
# namespace of our own with ifb devices: the header names the namespace,
# down devices and devices whose BQL was never used are hidden and counted.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create toplive || return 0
	# fresh ifb devices never used their BQL (limit and inflight 0)
	ip -n "$NS" link add u0 numtxqueues 2 type ifb	# up
	ip -n "$NS" link add u1 numtxqueues 2 type ifb	# up
	ip -n "$NS" link add d0 numtxqueues 2 type ifb	# down
	ip -n "$NS" link set u0 up
	ip -n "$NS" link set u1 up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	command -v tmux >/dev/null || skip "tmux is not installed (Debian package tmux)"
	SOCK="bqlt-live-$$-$BATS_TEST_NUMBER"
}

teardown() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
}

wait_pane() {
	for _ in $(seq 100); do
		tmux -L "$SOCK" capture-pane -p | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	tmux -L "$SOCK" capture-pane -p >&2
	return 1
}

@test "netns: the header names the namespace; down and never-used devices are hidden" {
	tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 40 \
		"LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL -n $NS top -d 0.2; sleep 600"
	wait_pane "DEVICE/QUEUE"
	run tmux -L "$SOCK" capture-pane -p
	assert_line --index 0 --regexp "^bqltool top +host .+ netns $NS +kernel "
	assert_output --regexp "devices 0 shown of 3, 3 hidden \\(1 down, 2 BQL unused: a\\)"
	assert_output --partial "Every device is down or has never used BQL: press a to show them."
	tmux -L "$SOCK" send-keys a
	wait_pane "▾ d0"
	wait_pane "▾ u1"
	wait_pane "devices 3 shown of 3"
	tmux -L "$SOCK" send-keys q
}
