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


@test "netns: check -a explains lo and veth from netlink, ifb queues are unused (never fed DQL)" {
	[ -d "/sys/class/net/lo/queues/tx-0/byte_queue_limits" ] &&
		skip "this kernel (before 6.9) gives every device BQL directories"
	run --separate-stderr "$BQLTOOL" -n "$NS" check -a
	assert_success
	assert_line --regexp '^lo +no_bql +loopback \(lltx, IFF_NO_QUEUE\)'
	assert_line --regexp '^v0 +no_bql +veth device'
	# an ifb never calls DQL and nothing was sent: no evidence, no verdict
	for q in 0 1 2 3; do
		assert_line --regexp "^i0:tx-$q +unused +BQL was never used here \\(limit and inflight 0\\) and nothing was sent"
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
	assert_line --regexp '^i0:tx-0 +unused'
	# the fail row says only why it fails
	refute_line --regexp '^ +BQL was never used'
}

@test "netns: check --interval on an idle ifb is unused, not ok (#38)" {
	run --separate-stderr "$BQLTOOL" -n "$NS" check -i 0.2 i0
	assert_success
	assert_line "checked: 0 ok, 0 warn, 0 fail, 4 unused"
	assert_line --regexp "^i0:tx-0 +unused +BQL was never used here .* nothing was sent during the interval"
	# a limit in use is judged
	nsw i0 2 limit 5000
	run --separate-stderr "$BQLTOOL" -n "$NS" check -i 0.2 i0
	nsw i0 2 limit 0
	assert_success
	assert_line "checked: 1 ok, 0 warn, 0 fail, 3 unused"
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
	assert_equal "$(jq -r '.queues[1].verdict' <<<"$output")" unused
	# and as numbers, the qdisc's too (#38)
	jq -e --argjson n "$n" '.queues[0].seen | .nsamples == $n and .interval_ns == 300000000 and
		.limit.nchanges == 0 and .qdisc.kind == "pfifo_fast" and .qdisc.drops == 0' <<<"$output"
	ip -n "$NS" link del c2
}

@test "netns: BQL in front of a FIFO qdisc is named only with evidence, with the tc command that replaces it (#38)" {
	ip -n "$NS" link add c3 type ifb
	ip -n "$NS" link set c3 up
	ip netns exec "$NS" tc qdisc add dev c3 root handle 3: pfifo limit 0
	# ifb never runs DQL: a limit written by hand makes BQL look active here
	nsw c3 0 limit 5000
	# no backlog, no drops: no evidence, no finding (not even a note)
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check -i 0.2 c3
	assert_success
	assert_equal "$(jq '[.queues[0].reasons[] | select(.code == "fifo-qdisc")] | length' <<<"$output")" 0
	assert_equal "$(jq -r '.queues[0].verdict' <<<"$output")" ok
	# packets redirected into c3 (from the ingress of a veth) are dropped by its
	# 0-packet FIFO: evidence
	ip -n "$NS" link add va type veth peer name vb
	ip -n "$NS" addr add 10.9.9.1/24 dev va
	ip -n "$NS" link set va up
	ip -n "$NS" link set vb up
	ip netns exec "$NS" tc qdisc add dev vb ingress
	ip netns exec "$NS" tc filter add dev vb parent ffff: protocol all u32 match u32 0 0 \
		action mirred egress redirect dev c3
	ip netns exec "$NS" bash -c 'for i in 1 2 3; do echo x >/dev/udp/10.9.9.2/9; sleep 0.05; done' || true
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check c3
	assert_success
	local drops
	drops=$(ip netns exec "$NS" tc -s -j qdisc show dev c3 | jq '.[0].drops')
	(( drops > 0 ))
	assert_equal "$(jq -r '.queues[0].reasons[] | select(.code == "fifo-qdisc") | .level' <<<"$output")" warn
	assert_regex "$(jq -r '.queues[0].reasons[] | select(.code == "fifo-qdisc") | .message' <<<"$output")" \
		"^pfifo dropped $drops packets? since it was created: BQL moves the standing queue out of the ring into this FIFO, which does not manage it: an AQM such as fq_codel would \\('tc qdisc replace dev c3 root fq_codel'\\)$"
	# with --interval, the drops it saw then
	ip netns exec "$NS" bash -c 'for i in $(seq 20); do echo x >/dev/udp/10.9.9.2/9; sleep 0.05; done' &
	local pid=$!
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check -i 0.5 c3
	wait "$pid" || true
	assert_success
	assert_regex "$(jq -r '.queues[0].reasons[] | select(.code == "fifo-qdisc") | .message' <<<"$output")" \
		"^pfifo dropped [0-9]+ packets? in 0.5 s: "
	# an AQM (here tbf, no FIFO) says nothing
	ip netns exec "$NS" tc qdisc del dev c3 root
	ip netns exec "$NS" tc qdisc add dev c3 root handle 4: tbf rate 1mbit burst 1600 limit 10000
	run --separate-stderr "$BQLTOOL" -n "$NS" -j check c3
	assert_success
	assert_equal "$(jq '[.queues[0].reasons[] | select(.code == "fifo-qdisc")] | length' <<<"$output")" 0
	ip -n "$NS" link del va
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
