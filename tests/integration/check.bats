#!/usr/bin/env bats
# check, show --format prometheus and export against the real kernel, in a
# namespace of our own: an ifb (BQL directories, a driver that never feeds
# them), a veth pair (lltx: no BQL) and lo. Nothing outside it is written.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create check || return 0
	ip -n "$NS" link add i0 numtxqueues 4 type ifb
	ip -n "$NS" link add v0 type veth peer name v1
	ip -n "$NS" link set i0 up
	ip -n "$NS" link set lo up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
}


@test "netns: check -a explains lo and veth from netlink, ifb queues are ok" {
	[ -d "/sys/class/net/lo/queues/tx-0/byte_queue_limits" ] &&
		skip "this kernel (before 6.9) gives every device BQL directories"
	run --separate-stderr "$BQLTOOL" -n "$NS" check -a
	assert_success
	assert_line --regexp '^lo +no-bql +loopback \(lltx, IFF_NO_QUEUE\)'
	assert_line --regexp '^v0 +no-bql +veth device'
	for q in 0 1 2 3; do
		assert_line --regexp "^i0:tx-$q +ok"
	done
}

@test "netns: check names a veth without BQL as a failure, exit 1" {
	[ -d "/sys/class/net/lo/queues/tx-0/byte_queue_limits" ] &&
		skip "this kernel (before 6.9) gives every device BQL directories"
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check v1
	assert_failure 1
	json_ok
	assert_equal "$(jq -r '.queues[0].verdict' <<<"$output")" fail
	assert_equal "$(jq -r '.queues[0].reasons[0].code' <<<"$output")" no-bql
}

@test "netns: limit_min > limit_max written with echo fails, says which wins here" {
	nsw i0 1 limit_min 5000
	nsw i0 1 limit_max 3000
	run --separate-stderr "$BQLTOOL" -n "$NS" check i0
	nsw i0 1 limit_max 1879048192
	nsw i0 1 limit_min 0
	assert_failure 1
	assert_line --regexp '^i0:tx-1 +fail +limit_min 4.88 KiB > limit_max 2.93 KiB'
	assert_output --regexp 'on this kernel \((6\.1 or later|before 6\.1)\)'
	assert_line --regexp '^i0:tx-0 +ok'
}

@test "netns: check --interval on an idle ifb is ok" {
	run --separate-stderr "$BQLTOOL" -n "$NS" check -i 0.2 i0
	assert_success
	assert_line "checked: 4 ok, 0 warn, 0 fail"
}

@test "netns: prometheus output has the device context from rtnetlink" {
	run --separate-stderr "$BQLTOOL" -n "$NS" show --format prometheus i0
	assert_success
	assert_line --regexp '^bql_device_info\{device="i0",ifindex="[0-9]+",operstate="[a-z]+"(,qdisc="[a-z_]+")?,netns="'"$NS"'"\} 1$'
	assert_line "bql_device_tx_queues{device=\"i0\",netns=\"$NS\"} 4"
	assert_line "bql_limit_max_bytes{device=\"i0\",queue=\"tx-3\",netns=\"$NS\"} 1879048192"
	assert_line --regexp "^bql_kernel_hz\\{source=\"[^\"]+\",netns=\"$NS\"\\} [0-9]+$"
	# promtool checks this exposition in prom.bats
}

@test "netns: export --textfile writes the namespace's metrics" {
	dir=$BATS_TEST_TMPDIR/prom
	mkdir "$dir"
	run --separate-stderr "$BQLTOOL" -n "$NS" export --textfile "$dir" i0
	assert_success
	# one file per namespace, series labelled with it
	run grep -c "^bql_limit_bytes{device=\"i0\",queue=\"tx-[0-3]\",netns=\"$NS\"}" \
		"$dir/bqltool-netns-$NS.prom"
	assert_output 4
	# the host's export into the same directory does not overwrite it
	run --separate-stderr "$BQLTOOL" export --textfile "$dir"
	assert_success
	[ -f "$dir/bqltool.prom" ]
	[ -f "$dir/bqltool-netns-$NS.prom" ]
	run grep -c 'netns=' "$dir/bqltool.prom"
	assert_output 0
}

@test "netns: check --interval reports what it saw per queue (samples, limit, inflight, qdisc)" {
	ip -n "$NS" link add c2 numtxqueues 2 type ifb
	ip -n "$NS" link set c2 up
	ip netns exec "$NS" tc qdisc add dev c2 root handle 1: mq
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check -i 0.3 c2
	assert_success
	local seen
	seen=$(jq -r '.queues[0].reasons[] | select(.code == "seen") | .message' <<<"$output")
	# 10 ms samples over 0.3 s: about 30 (at least a few, whatever the machine's load)
	assert_regex "$seen" "^over 0.3 s \(([0-9]+) samples\): limit 0 B \(no change\), inflight up to 0 B, busy in 0% of samples"
	local n
	n=$(sed -E 's/^over 0.3 s \(([0-9]+) samples\).*/\1/' <<<"$seen")
	(( n >= 5 && n <= 40 ))
	assert_equal "$(jq -r '.queues[1].verdict' <<<"$output")" ok
	ip -n "$NS" link del c2
}

@test "netns: BQL in front of a FIFO qdisc is named, with the tc command that replaces it" {
	ip -n "$NS" link add c3 type ifb
	ip -n "$NS" link set c3 up
	ip netns exec "$NS" tc qdisc add dev c3 root handle 3: pfifo limit 100
	# ifb never runs DQL: a limit written by hand makes BQL look active here
	nsw c3 0 limit 5000
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check c3
	assert_success
	assert_equal "$(jq -r '.queues[0].reasons[] | select(.code == "fifo-qdisc") | .level' <<<"$output")" info
	assert_regex "$(jq -r '.queues[0].reasons[] | select(.code == "fifo-qdisc") | .message' <<<"$output")" \
		"into pfifo, a FIFO that does not manage it: an AQM such as fq_codel would \('tc qdisc replace dev c3 root fq_codel'\)"
	# an AQM (here tbf, no FIFO) says nothing
	ip netns exec "$NS" tc qdisc del dev c3 root
	ip netns exec "$NS" tc qdisc add dev c3 root handle 4: tbf rate 1mbit burst 1600 limit 10000
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check c3
	assert_success
	assert_equal "$(jq '[.queues[0].reasons[] | select(.code == "fifo-qdisc")] | length' <<<"$output")" 0
	ip -n "$NS" link del c3
}

@test "host (read only): check -i on eth0 during downloads shows its evidence" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	local d
	d=$(mktemp -d)
	( cd "$d" && apt-get download -q gcc-12 libllvm14 >/dev/null 2>&1 ) &
	local pid=$!
	run --separate-stderr "$BQLTOOL" check -i 2 eth0
	wait "$pid" || true
	rm -rf "$d"
	assert_success
	assert_regex "$output" "over 2 s \([0-9]+ samples\): limit [0-9.]+ [KM]?i?B"
	assert_regex "$output" "busy in [0-9]+% of samples"
	echo "# $output" | head -3 >&3
}
