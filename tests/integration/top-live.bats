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

@test "netns: the header names the namespace; when every device would be hidden, all are shown" {
	tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 40 \
		"LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL -n $NS top -d 0.2; sleep 600"
	wait_pane "DEVICE/QUEUE"
	wait_pane "▾ u1"
	run tmux -L "$SOCK" capture-pane -p
	assert_line --index 0 --regexp "^bqltool top +host .+ netns $NS +kernel "
	# fresh ifbs (up, BQL never used) and a down one: not an empty screen
	assert_output --regexp "devices 3 shown of 3 \\(all down or BQL never used: shown anyway\\)"
	assert_output --regexp "▾ d0 "
	assert_output --regexp "▾ u0 "
	refute_output --partial "press a"
	tmux -L "$SOCK" send-keys q
}

@test "netns: the qdisc's backlog is a column (BACKLOG) with tc's value, in top -b -j and the live view" {
	command -v python3 >/dev/null || skip "python3 not installed (the AF_PACKET sender)"
	ip -n "$NS" link add m0 numtxqueues 2 type ifb
	ip -n "$NS" link set m0 up
	ip netns exec "$NS" tc qdisc add dev m0 root handle 1: mq
	ip netns exec "$NS" tc qdisc add dev m0 parent 1:1 handle 11: tbf rate 8kbit burst 1600 limit 200000
	ip netns exec "$NS" tc qdisc add dev m0 parent 1:2 handle 12: tbf rate 8kbit burst 1600 limit 200000
	ip netns exec "$NS" python3 "$BATS_TEST_DIRNAME/../tools/pktsend.py" m0 16 4 1000
	# batch JSON: each queue's qdisc, between what tc saw before and after
	local b0 b1 q
	b0=$(ip netns exec "$NS" tc -s -j qdisc show dev m0 | jq '[.[] | select(.kind == "tbf") | .backlog] | add')
	run --separate-stderr "$BQLTOOL" -n "$NS" top -b -j -c 1 m0
	b1=$(ip netns exec "$NS" tc -s -j qdisc show dev m0 | jq '[.[] | select(.kind == "tbf") | .backlog] | add')
	assert_success
	q=$(jq '[.devices[0].queues[].qdisc.backlog] | add' <<<"$output")
	(( q <= b0 && q >= b1 && q > 0 ))
	assert_equal "$(jq -r '.devices[0].queues[1].qdisc.kind' <<<"$output")" tbf
	assert_equal "$(jq -r '.devices[0].queues[1].qdisc.parent' <<<"$output")" "1:2"
	# the live view: the column, and a sort on it
	tmux -L "$SOCK" -f /dev/null new-session -d -x 200 -y 40 \
		"LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL -n $NS top -d 0.2 m0; sleep 600"
	# "qdisc" is the qdisc everywhere (its kind in text); its backlog is BACKLOG (#38)
	wait_pane "BACKLOG +QDROP/S"
	wait_pane "tx-1 .* [0-9.]+ KiB"
	! tmux -L "$SOCK" capture-pane -p | grep -q "QDISC"
	tmux -L "$SOCK" send-keys q
	ip -n "$NS" link del m0
}

@test "host (read only): eth0's device row shows its TX ring and tx-usecs (ethtool -g / -c)" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	command -v ethtool >/dev/null || skip "ethtool not installed"
	local ring usecs
	ring=$(ethtool -g eth0 2>/dev/null | awk '/^Current/ { s = 1 } s && /^TX:/ { print $2; exit }') || true
	usecs=$(ethtool -c eth0 2>/dev/null | awk '/^tx-usecs:/ { print $2 }') || true
	[[ "$ring" =~ ^[0-9]+$ && "$usecs" =~ ^[0-9]+$ ]] || skip "eth0 reports no TX ring or tx-usecs"
	tmux -L "$SOCK" -f /dev/null new-session -d -x 230 -y 20 \
		"LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL top -d 0.2 eth0; sleep 600"
	wait_pane "RING +TX-USECS"
	wait_pane "eth0 .* $ring +$usecs( |\$)"
	tmux -L "$SOCK" send-keys q
}
