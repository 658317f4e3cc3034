#!/usr/bin/env bats
# show against the real kernel: a namespace of our own with an 8-queue ifb
# (written with echo, read with bqltool -n), and the host's own devices
# (read only: never written).
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create show || return 0
	ip -n "$NS" link add i0 numtxqueues 8 type ifb
	ip -n "$NS" link add i1 numtxqueues 2 type ifb
	ip -n "$NS" link set i0 up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
}



@test "netns: show -j reports exactly the values written with echo" {
	for q in 0 1 2 3 4 5 6 7; do
		nsw i0 $q limit_min $((1000 + q))
		nsw i0 $q limit_max $((900000 + q))
		nsw i0 $q hold_time $((200 + q * 4))
	done
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i0
	assert_success
	json_ok
	assert_equal "$(jq '.[0].queues | length' <<<"$output")" 8
	assert_equal "$(jq '.[0].num_tx_queues' <<<"$output")" 8
	for q in 0 1 2 3 4 5 6 7; do
		for a in limit limit_min limit_max hold_time inflight stall_thrs stall_cnt stall_max; do
			assert_equal "$(jq --argjson q $q --arg a $a '.[0].queues[$q][$a]' <<<"$output")" "$(nsr i0 $q $a)"
		done
	done
	assert_equal "$(jq '.[0].queues[3].limit_min' <<<"$output")" 1003
}

@test "netns: show i0:2-3 shows exactly those two queues" {
	nsw i0 2 limit_min 4242
	nsw i0 3 limit_min 4343
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i0:2-3
	assert_success
	assert_equal "$(jq -c '[.[0].queues[] | [.queue, .limit_min]]' <<<"$output")" "[[2,4242],[3,4343]]"
	run --separate-stderr "$BQLTOOL" -n "$NS" show i0:2-3
	assert_success
	assert_output --partial "tx-2"
	assert_output --partial "tx-3"
	refute_output --partial "tx-1 "
	refute_output --partial "tx-4"
	assert_output --partial "4.14 KiB"	# 4242 B
}

@test "netns: device context comes from rtnetlink" {
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show
	assert_success
	assert_equal "$(jq -r '[.[].ifname] | join(",")' <<<"$output")" "i0,i1"
	assert_equal "$(jq -r '.[0].operstate' <<<"$output")" "$(ip netns exec "$NS" cat /sys/class/net/i0/operstate)"
	assert_equal "$(jq '.[0].ifindex' <<<"$output")" "$(ip netns exec "$NS" cat /sys/class/net/i0/ifindex)"
	assert_equal "$(jq '.[0].mtu' <<<"$output")" 1500
	assert_equal "$(jq '.[1].num_tx_queues' <<<"$output")" 2
	assert_equal "$(jq '.[0].stats | has("tx_bytes")' <<<"$output")" true
}

@test "netns: lo has no BQL and naming it says so" {
	run --separate-stderr "$BQLTOOL" -n "$NS" show lo
	assert_failure 1
	assert_regex "$stderr" "lo: device does not use BQL"
}

@test "netns: a device deleted between two runs is reported as gone" {
	ip -n "$NS" link add gone0 numtxqueues 2 type ifb
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show gone0
	assert_success
	ip -n "$NS" link del gone0
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show gone0
	assert_failure 1
	assert_regex "$stderr" "gone0: no such device"
	assert_output ""
}

@test "host (read only): show -j equals every BQL file of every host queue" {
	run --separate-stderr "$BQLTOOL" -j show
	assert_success
	json_ok
	local n=0
	for d in /sys/class/net/*/queues/tx-0/byte_queue_limits; do
		dev=$(echo "$d" | cut -d/ -f5)
		for qd in /sys/class/net/$dev/queues/tx-*; do
			q=${qd##*tx-}
			for f in "$qd"/byte_queue_limits/*; do
				a=$(basename "$f")
				# inflight moves with traffic; everything else must match exactly
				[ "$a" = inflight ] && continue
				want=$(cat "$f")
				got=$(jq --arg d "$dev" --argjson q "$q" --arg a "$a" \
					'.[] | select(.ifname == $d) | .queues[] | select(.queue == $q) | .[$a]' <<<"$output")
				[ "$a" = limit ] && [ "$got" != "$want" ] && {
					# limit moves on completions: re-read right away once
					run --separate-stderr "$BQLTOOL" -j show; want=$(cat "$f")
					got=$(jq --arg d "$dev" --argjson q "$q" --arg a "$a" \
						'.[] | select(.ifname == $d) | .queues[] | select(.queue == $q) | .[$a]' <<<"$output"); }
				assert_equal "$got" "$want"
				n=$((n + 1))
			done
		done
	done
	[ "$n" -gt 0 ] || skip "the host has no device with BQL"
}

@test "host (read only): the number of devices and queues matches sysfs" {
	run --separate-stderr "$BQLTOOL" -j show
	assert_success
	want=$(ls -d /sys/class/net/*/queues/tx-*/byte_queue_limits 2>/dev/null | wc -l)
	assert_equal "$(jq '[.[].queues | length] | add // 0' <<<"$output")" "$want"
}
