#!/usr/bin/env bats
# top -b against the real kernel, in a network namespace of our own with
# ifb devices: values equal sysfs, a device deleted while top runs is
# reported and top keeps going, a device added appears, SIGINT ends it
# with status 0. The host's devices are never touched.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create top || return 0
	ip -n "$NS" link add t0 numtxqueues 4 type ifb
	ip -n "$NS" link add t1 numtxqueues 2 type ifb
	ip -n "$NS" link set t0 up
	ip -n "$NS" link set t1 up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	OUT="$BATS_TEST_TMPDIR/out"
	ERR="$BATS_TEST_TMPDIR/err"
}

teardown() {
	if [ -n "${TOP_PID:-}" ]; then
		kill "$TOP_PID" 2>/dev/null || true
		wait "$TOP_PID" 2>/dev/null || true
	fi
	ip -n "$NS" link del t9 2>/dev/null || true
}


# wait_grep REGEX: until $OUT matches (10 s)
wait_grep() {
	for _ in $(seq 200); do
		grep -qE -- "$1" "$OUT" && return 0
		sleep 0.05
	done
	echo "never saw /$1/ in:" >&2
	cat "$OUT" "$ERR" >&2
	return 1
}

@test "netns: top -b -j values equal sysfs; rates from rtnetlink appear" {
	ip netns exec "$NS" sh -c 'echo 12345 > /sys/class/net/t0/queues/tx-2/byte_queue_limits/limit_min'
	run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" -j top -c 2 -d 0.1
	assert_success
	first=$(head -n 1 <<<"$output")
	assert_equal "$(jq -c '[.devices[] | [.ifname, (.queues | length)]]' <<<"$first")" '[["t0",4],["t1",2]]'
	for q in 0 1 2 3; do
		for a in limit limit_min limit_max hold_time inflight stall_thrs stall_cnt stall_max; do
			assert_equal "$(jq --argjson q $q --arg a $a '.devices[0].queues[$q][$a]' <<<"$first")" \
				"$(nsr t0 $q $a)"
		done
	done
	assert_equal "$(jq '.devices[0].queues[2].limit_min' <<<"$first")" 12345
	jq -e '.devices[0].stats | has("tx_bytes") and has("tx_packets")' <<<"$first" >/dev/null
	sed -n 2p <<<"$output" | jq -e '.devices[0].tx_bytes_rate >= 0 and .interval_ns > 0' >/dev/null
}

@test "netns: a device deleted while top -b runs is reported; one added appears; SIGINT exits 0" {
	"$BQLTOOL" -n "$NS" -j top -d 0.2 > "$OUT" 2> "$ERR" &
	TOP_PID=$!
	wait_grep '"ifname":"t1"'
	ip -n "$NS" link del t1
	wait_grep '"events":\[\{"type":"vanished","ifname":"t1"\}\]'
	# it keeps running: more samples come, without t1
	n=$(wc -l < "$OUT")
	for _ in $(seq 100); do [ "$(wc -l < "$OUT")" -gt $((n + 1)) ] && break; sleep 0.05; done
	tail -n 1 "$OUT" | jq -e '[.devices[].ifname] == ["t0"]' >/dev/null
	ip -n "$NS" link add t9 numtxqueues 3 type ifb
	wait_grep '"events":\[\{"type":"appeared","ifname":"t9"\}\]'
	n=$(wc -l < "$OUT")
	for _ in $(seq 100); do [ "$(wc -l < "$OUT")" -gt "$n" ] && break; sleep 0.05; done
	tail -n 1 "$OUT" | jq -e '[.devices[] | [.ifname, (.queues | length)]] == [["t0",4],["t9",3]]' >/dev/null
	kill -INT "$TOP_PID"
	rc=0; wait "$TOP_PID" || rc=$?; TOP_PID=
	assert_equal "$rc" 0
	jq -e . "$OUT" >/dev/null	# every line complete
	assert_equal "$(cat "$ERR")" ""
	# recreate t1 for other tests
	ip -n "$NS" link add t1 numtxqueues 2 type ifb
}

@test "netns: text batch reports removal and addition as events" {
	"$BQLTOOL" -n "$NS" top -b -d 0.2 't*' > "$OUT" 2> "$ERR" &
	TOP_PID=$!
	wait_grep '^t1 +tx-1 '
	ip -n "$NS" link del t1
	wait_grep '^event: t1: vanished$'
	ip -n "$NS" link add t1 numtxqueues 2 type ifb
	wait_grep '^event: t1: appeared$'
	kill -INT "$TOP_PID"
	rc=0; wait "$TOP_PID" || rc=$?; TOP_PID=
	assert_equal "$rc" 0
	assert_equal "$(tail -n 1 "$OUT")" ""
}
