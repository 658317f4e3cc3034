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

teardown() {
	churn_stop
}

# churn_start: ifb devices c10..c19 added and deleted in a loop, in the background
churn_start() {
	ip netns exec "$NS" bash -c '
		for i in $(seq 3000); do
			for d in c10 c11 c12 c13 c14 c15 c16 c17 c18 c19; do
				ip link add $d numtxqueues 8 type ifb 2>/dev/null
			done
			for d in c10 c11 c12 c13 c14 c15 c16 c17 c18 c19; do
				ip link del $d 2>/dev/null
			done
		done' 3>&- &
	CHURN=$!
}

churn_stop() {
	[ -n "${CHURN:-}" ] || return 0
	kill "$CHURN" 2>/dev/null || true
	wait "$CHURN" 2>/dev/null || true
	CHURN=
	local d
	for d in c10 c11 c12 c13 c14 c15 c16 c17 c18 c19; do
		ip -n "$NS" link del $d 2>/dev/null || true
	done
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

# counters_nested JSON-LIST: every device and queue object keeps its
# counters in "stats", none on itself (queues: netdev qstats)
counters_nested() {
	jq -e '[.[] | ., .queues[]] |
		all(has("tx_bytes") or has("tx_packets") or has("tx_stop") or has("tx_wake")
		    or has("tx_hw_drops") or has("tx_errors") or has("tx_dropped") | not)' <<<"$1" >/dev/null
}

@test "host (read only): device and per-queue counters nest under stats in show -j and top -b -j (issue #24)" {
	run --separate-stderr "$BQLTOOL" -j show
	assert_success
	counters_nested "$output" || fail "show -j: a counter outside stats"
	jq -e 'all(.[]; .stats | has("tx_bytes") and has("tx_packets"))' <<<"$output" >/dev/null ||
		fail "show -j: a device without stats.tx_bytes"
	qstats=$(jq '[.[].queues[] | select(.stats)] | length' <<<"$output")
	run --separate-stderr "$BQLTOOL" -j top -b -c 1
	assert_success
	counters_nested "$(jq -c .devices <<<"$output")" || fail "top -b -j: a counter outside stats"
	# the same device counters in both (#38): top -j had 2 of show's 4
	jq -e 'all(.devices[]; .stats | keys == ["tx_bytes","tx_dropped","tx_errors","tx_packets"])' \
		<<<"$output" >/dev/null || fail "top -b -j: device stats keys differ from show -j's"
	[ "$qstats" -gt 0 ] || skip "no host device reports per-queue stats (netdev qstats, Linux 6.9+)"
	[ "$(jq '[.devices[].queues[] | select(.stats.tx_bytes)] | length' <<<"$output")" -gt 0 ] ||
		fail "top -b -j: no queue has stats.tx_bytes where show -j has $qstats"
}

# tc's view of DEV's qdiscs in the namespace, one "parent kind backlog bytes" per line
tc_qdiscs() {
	ip netns exec "$NS" tc -s -j qdisc show dev "$1" |
		jq -r '.[] | "\(.parent // "root") \(.kind) \(.backlog) \(.bytes)"'
}

@test "netns: the qdisc of each TX queue under mq (tbf children with a real backlog) agrees with tc -s" {
	command -v python3 >/dev/null || skip "python3 not installed (the AF_PACKET sender)"
	ip -n "$NS" link add i4 numtxqueues 4 type ifb
	ip -n "$NS" link set i4 up
	ip netns exec "$NS" tc qdisc add dev i4 root handle 1: mq
	local n
	for n in 1 2 3 4; do
		ip netns exec "$NS" tc qdisc add dev i4 parent 1:$n handle 1$n: tbf rate 8kbit burst 1600 limit 200000
	done
	# 32 flows of 3 frames: the flow hash spreads them over the 4 queues; tbf holds them
	ip netns exec "$NS" python3 "$BATS_TEST_DIRNAME/../tools/pktsend.py" i4 32 3 1000
	local before after
	before=$(tc_qdiscs i4)
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i4
	after=$(tc_qdiscs i4)
	assert_success
	json_ok
	assert_equal "$(jq '.[0] | has("shared_qdisc")' <<<"$output")" false
	for ((n = 1; n <= 4; n++)); do
		local q=$((n - 1)) kind parent backlog bytes b0 b1 s0 s1
		kind=$(jq -r --argjson q $q '.[0].queues[$q].qdisc.kind' <<<"$output")
		parent=$(jq -r --argjson q $q '.[0].queues[$q].qdisc.parent' <<<"$output")
		backlog=$(jq -r --argjson q $q '.[0].queues[$q].qdisc.backlog' <<<"$output")
		bytes=$(jq -r --argjson q $q '.[0].queues[$q].qdisc.bytes' <<<"$output")
		assert_equal "$kind" tbf
		assert_equal "$parent" "1:$n"
		assert_equal "$(jq -r --argjson q $q '.[0].queues[$q].qdisc.handle' <<<"$output")" "1$n:"
		read -r _ _ b0 s0 < <(grep "^1:$n " <<<"$before")
		read -r _ _ b1 s1 < <(grep "^1:$n " <<<"$after")
		# tbf sends about one frame a second: between what tc saw before and after
		(( backlog <= b0 && backlog >= b1 ))
		(( bytes >= s0 && bytes <= s1 ))
	done
	# a real backlog on more than one queue
	(( $(jq '[.[0].queues[] | select(.qdisc.backlog > 0)] | length' <<<"$output") >= 2 ))
	# text: one row per queue with its qdisc
	run --separate-stderr "$BQLTOOL" -n "$NS" show i4
	assert_success
	assert_regex "$output" "tx-3 +tbf 14: 1:4"
	ip -n "$NS" link del i4
}

@test "netns: one root qdisc over several queues is the device's, shown once" {
	ip -n "$NS" link add i5 numtxqueues 3 type ifb
	ip netns exec "$NS" tc qdisc add dev i5 root handle 5: htb default 1
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i5
	assert_success
	assert_equal "$(jq -r '.[0].shared_qdisc.kind' <<<"$output")" htb
	# the device's own qdisc is an object, as every qdisc is (#38)
	assert_equal "$(jq -c '.[0].qdisc' <<<"$output")" '{"kind":"htb"}'
	assert_equal "$(jq -r '.[0].shared_qdisc.handle' <<<"$output")" "5:"
	assert_equal "$(jq -r '.[0].shared_qdisc.parent' <<<"$output")" root
	assert_equal "$(jq '[.[0].queues[] | has("qdisc")] | any' <<<"$output")" false
	run --separate-stderr "$BQLTOOL" -n "$NS" show i5
	assert_success
	assert_regex "$output" "qdisc htb 5: parent root \(all 3 queues\): backlog 0 B"
	# a single-queue device: its root qdisc feeds tx-0
	ip -n "$NS" link add i6 type ifb
	ip netns exec "$NS" tc qdisc add dev i6 root handle 6: tbf rate 1mbit burst 1600 limit 10000
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i6
	assert_success
	assert_equal "$(jq -r '.[0].queues[0].qdisc.kind' <<<"$output")" tbf
	assert_equal "$(jq '.[0] | has("shared_qdisc")' <<<"$output")" false
	ip -n "$NS" link del i5
	ip -n "$NS" link del i6
}

@test "host (read only): eth0's qdisc agrees with tc -s -j" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	local ntx kind
	ntx=$(ls -d /sys/class/net/eth0/queues/tx-* | wc -l)
	[ "$ntx" -eq 1 ] || skip "eth0 has $ntx TX queues (this check is for a single-queue eth0)"
	run --separate-stderr "$BQLTOOL" -j show eth0
	assert_success
	kind=$(tc -j qdisc show dev eth0 | jq -r '.[] | select(.root == true) | .kind')
	assert_equal "$(jq -r '.[0].queues[0].qdisc.kind' <<<"$output")" "$kind"
	assert_equal "$(jq -r '.[0].queues[0].qdisc.handle' <<<"$output")" \
		"$(tc -j qdisc show dev eth0 | jq -r '.[] | select(.root == true) | .handle')"
}

@test "host (read only): eth0's ring and coalescing equal ethtool -g / -c; an ifb has none (absent, not 0)" {
	run --separate-stderr "$BQLTOOL" -n "$NS" -j show i0
	assert_success
	assert_equal "$(jq '.[0] | has("ring") or has("coalesce")' <<<"$output")" false
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	command -v ethtool >/dev/null || skip "ethtool not installed"
	local g c want
	g=$(ethtool -g eth0 2>/dev/null) || skip "ethtool -g eth0 is refused here"
	c=$(ethtool -c eth0 2>/dev/null) || skip "ethtool -c eth0 is refused here"
	run --separate-stderr "$BQLTOOL" -j show eth0
	assert_success
	# "Pre-set maximums:" first, then "Current hardware settings:"
	want=$(awk '/^Pre-set/ { s = "max" } /^Current/ { s = "cur" } s == "max" && /^TX:/ { print $2; exit }' <<<"$g")
	[ "$want" = "n/a" ] || assert_equal "$(jq '.[0].ring.tx_max' <<<"$output")" "$want"
	want=$(awk '/^Current/ { s = "cur" } s == "cur" && /^TX:/ { print $2; exit }' <<<"$g")
	[ "$want" = "n/a" ] || assert_equal "$(jq '.[0].ring.tx' <<<"$output")" "$want"
	want=$(awk '/^tx-usecs:/ { print $2 }' <<<"$c")
	if [ "$want" = "n/a" ]; then
		assert_equal "$(jq '.[0].coalesce | has("tx_usecs")' <<<"$output")" false
	else
		assert_equal "$(jq '.[0].coalesce.tx_usecs' <<<"$output")" "$want"
	fi
	want=$(awk '/^tx-frames:/ { print $2 }' <<<"$c")
	if [ "$want" = "n/a" ]; then
		assert_equal "$(jq '.[0].coalesce | has("tx_max_frames")' <<<"$output")" false
	else
		assert_equal "$(jq '.[0].coalesce.tx_max_frames' <<<"$output")" "$want"
	fi
	want=$(awk '/^tx-usecs-irq:/ { print $2 }' <<<"$c")
	[ "$want" != "n/a" ] || assert_equal "$(jq '.[0].coalesce | has("tx_usecs_irq")' <<<"$output")" false
	# and the text line says the same
	run --separate-stderr "$BQLTOOL" show eth0
	assert_success
	assert_regex "$output" "ring tx $(jq '.[0].ring.tx' <<<"$("$BQLTOOL" -j show eth0)")"
}

@test "netns: qdisc trees and devices that change between dumps are never fatal" {
	ip -n "$NS" link add c7 numtxqueues 4 type ifb
	ip -n "$NS" link set c7 up
	# churn: the qdisc tree of c7 replaced, a device created and deleted, in a loop
	ip netns exec "$NS" bash -c '
		for i in $(seq 400); do
			tc qdisc replace dev c7 root handle 1: mq 2>/dev/null
			tc qdisc replace dev c7 parent 1:2 handle 20: tbf rate 1mbit burst 1600 limit 10000 2>/dev/null
			tc qdisc del dev c7 root 2>/dev/null
			ip link add c8 type ifb 2>/dev/null; ip link del c8 2>/dev/null
		done' &
	local pid=$! n
	for n in $(seq 25); do
		run --separate-stderr "$BQLTOOL" -n "$NS" -j show c7 i0
		assert_success
		json_ok
		assert_equal "$(jq 'length' <<<"$output")" 2
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ip -n "$NS" link del c7
}

@test "netns: whole-host commands skip devices that vanish while read (ifb churn); a named one still fails" {
	local n a
	cd "$BATS_TEST_TMPDIR"	# (the selector [ci]* is not a file here)
	mkdir ex
	churn_start
	for n in $(seq 15); do
		for a in "show" "-j show" "show --format prometheus" "save -o $BATS_TEST_TMPDIR/p.json" \
			"export -t $BATS_TEST_TMPDIR/ex" "show [ci]*" "-j check"; do
			# shellcheck disable=SC2086
			run --separate-stderr "$BQLTOOL" -n "$NS" $a
			[ "$status" -eq 0 ] || { echo "$a: status $status: $stderr"; return 1; }
			[[ "$stderr" != *"no such"* ]] || { echo "$a: $stderr"; return 1; }
		done
		grep -q 'device="i0"' ex/bqltool-netns-"$NS".prom
		jq -e '.devices | has("i0")' "$BATS_TEST_TMPDIR/p.json" >/dev/null
	done
	churn_stop
	# named, it is an error still
	run --separate-stderr "$BQLTOOL" -n "$NS" show c10
	assert_failure 1
	assert_regex "$stderr" "c10: no such device"
}
