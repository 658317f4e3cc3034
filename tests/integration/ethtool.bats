#!/usr/bin/env bats
# lib/kernel/nl_ethtool.c against the real kernel, through tests/tools/ethtool_get:
# the host's eth0 read only, compared with what ethtool(8) prints; and in a
# namespace of the test's own an ifb (no ring, no coalescing: a clear error,
# never a crash) and a device deleted under the caller (-ENODEV).
bats_require_minimum_version 1.5.0
load netns

: "${BUILD:=$BATS_TEST_DIRNAME/../../build}"
GET="$BUILD/tests/tools/ethtool_get"

setup_file() {
	netns_create ethtool || return 0
	ip -n "$NS" link add ifb0 type ifb || true
}

teardown_file() {
	netns_destroy
}

setup() {
	[ -x "$GET" ] || skip "$GET not built (make tools)"
}

host_eth0() {
	[ -e /sys/class/net/eth0 ] || skip "no eth0 on this host"
	command -v ethtool >/dev/null || skip "no ethtool binary (apt-get install ethtool)"
}

# ethtool -g output -> "ring tx=N tx_max=N", n/a fields left out
ring_expect() {
	awk '/^Pre-set maximums:/ { s = "max" }
	     /^Current hardware settings:/ { s = "cur" }
	     /^TX:/ { if (s == "max") max = $2; else if (s == "cur") cur = $2 }
	     END {
		line = "ring"
		if (cur != "" && cur != "n/a") line = line " tx=" cur
		if (max != "" && max != "n/a") line = line " tx_max=" max
		print line
	     }'
}

# ethtool -c output -> "coalesce tx_usecs=N ...", in ethtool_get's order
coal_expect() {
	awk 'function tx_after(   i) {	# "Adaptive RX: off  TX: n/a"
		for (i = 1; i < NF; i++) if ($i == "TX:") return $(i + 1)
		return ""
	     }
	     function add(k, v) {
		if (v == "" || v == "n/a") return
		if (v == "on") v = 1; else if (v == "off") v = 0
		line = line " " k "=" v
	     }
	     /^Adaptive RX:/ { atx = tx_after() }
	     /^CQE mode RX:/ { ctx = tx_after() }
	     /^tx-usecs:/ { tu = $2 }
	     /^tx-frames:/ { tf = $2 }
	     /^tx-usecs-irq:/ { tui = $2 }
	     /^tx-frames-irq:/ { tfi = $2 }
	     /^tx-aggr-max-bytes:/ { amb = $2 }
	     /^tx-aggr-max-frames:/ { amf = $2 }
	     /^tx-aggr-time-usecs:/ { atu = $2 }
	     END {
		line = "coalesce"
		add("tx_usecs", tu); add("tx_max_frames", tf)
		add("tx_usecs_irq", tui); add("tx_max_frames_irq", tfi)
		add("use_adaptive_tx", atx); add("use_cqe_mode_tx", ctx)
		add("tx_aggr_max_bytes", amb); add("tx_aggr_max_frames", amf)
		add("tx_aggr_time_usecs", atu)
		print line
	     }'
}

@test "host eth0: TX ring size and maximum equal ethtool -g" {
	host_eth0
	local rc=0 eg
	eg=$(ethtool -g eth0 2>&1) || rc=$?
	run --separate-stderr timeout 10 "$GET" eth0 ring
	if [ "$rc" -ne 0 ]; then
		# the driver has no get_ringparam: ethtool failed, so must we
		assert_failure 1
		assert_equal "$stderr" "ethtool_get: eth0: no ring parameters (the driver does not report them)"
		return
	fi
	assert_success
	assert_equal "$output" "$(ring_expect <<<"$eg")"
	assert_regex "$output" '^ring tx=[0-9]+ tx_max=[0-9]+$|^ring$'
}

@test "host eth0: TX coalescing equals ethtool -c" {
	host_eth0
	local rc=0 ec mine
	ec=$(ethtool -c eth0 2>&1) || rc=$?
	run --separate-stderr timeout 10 "$GET" eth0 coalesce
	if [ "$rc" -ne 0 ]; then
		assert_failure 1
		assert_equal "$stderr" "ethtool_get: eth0: no interrupt coalescing parameters (the driver does not report them)"
		return
	fi
	assert_success
	mine=$output
	# ethtool before 6.2 does not print the TX aggregation fields: those
	# are compared only when it does
	if ! grep -q '^tx-aggr-' <<<"$ec"; then
		mine=$(sed -E 's/ tx_aggr_[a-z_]+=[0-9]+//g' <<<"$mine")
	fi
	assert_equal "$mine" "$(coal_expect <<<"$ec")"
}

@test "host eth0: both requests on one socket, the same answers twice" {
	host_eth0
	run --separate-stderr timeout 10 "$GET" eth0
	local first=$output rc1=$status
	run --separate-stderr timeout 10 "$GET" -i "$(cat /sys/class/net/eth0/ifindex)"
	assert_equal "$status" "$rc1"
	assert_equal "$output" "$first"
}

@test "netns ifb0: no ring and no coalescing parameters, exit 1, no crash" {
	netns_require
	run --separate-stderr timeout 10 ip netns exec "$NS" "$GET" ifb0
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "ethtool_get: ifb0: no ring parameters (the driver does not report them)
ethtool_get: ifb0: no interrupt coalescing parameters (the driver does not report them)"
	# and so says ethtool, when there is one
	if command -v ethtool >/dev/null; then
		run ip netns exec "$NS" ethtool -g ifb0
		assert_failure
	fi
}

@test "netns: a deleted ifindex is -ENODEV from the kernel" {
	netns_require
	local idx
	ip -n "$NS" link add ifb1 type ifb
	idx=$(ip netns exec "$NS" cat /sys/class/net/ifb1/ifindex)
	ip -n "$NS" link del ifb1
	run --separate-stderr timeout 10 ip netns exec "$NS" "$GET" -i "$idx"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "ethtool_get: ifindex $idx: no such device
ethtool_get: ifindex $idx: no such device"
}

@test "netns: a device deleted after the name was looked up is -ENODEV, named" {
	netns_require
	local fifo="$BATS_TEST_TMPDIR/go" out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err"
	local pid rc=0 i w
	ip -n "$NS" link add ifb2 type ifb
	mkfifo "$fifo"
	timeout 20 ip netns exec "$NS" "$GET" -w ifb2 <"$fifo" >"$out" 2>"$err" &
	pid=$!
	exec {w}>"$fifo"	# fd 3 is bats' own
	for ((i = 0; i < 100; i++)); do
		grep -q '^resolved' "$out" && break
		sleep 0.05
	done
	ip -n "$NS" link del ifb2
	echo go >&"$w"
	exec {w}>&-
	wait "$pid" || rc=$?
	assert_equal "$rc" 1
	assert_regex "$(cat "$out")" '^resolved [0-9]+$'	# and nothing else
	assert_equal "$(cat "$err")" "ethtool_get: ifb2: no such device
ethtool_get: ifb2: no such device"
}
