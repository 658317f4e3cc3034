#!/usr/bin/env bats
# lib/kernel/nl_qdisc.c's direct dump (bnl_qdisc_dump, read by the sampler
# every tick) against libnl's qdisc cache (bnl_qdisc_refresh, read by show,
# check, export, set), through tests/tools/qdisc_cmp, on a namespace of the
# test's own with varied qdiscs: mq over pfifo/tbf/bfifo/htb children,
# pfifo_fast, noqueue, htb at the root, ingress; counters made to move
# (bytes, packets; a backlog, overlimits and drops in a slow tbf).
bats_require_minimum_version 1.5.0
load netns

: "${BUILD:=$BATS_TEST_DIRNAME/../../build}"
CMP="$BUILD/tests/tools/qdisc_cmp"

setup_file() {
	netns_create qdisc || return 0
	local i
	for i in 0 1 2 3; do
		ip -n "$NS" link add ifb$i numtxqueues 4 type ifb || return 0
		ip -n "$NS" link set ifb$i up
	done
	tc -n "$NS" qdisc add dev ifb0 root handle 1: mq
	tc -n "$NS" qdisc add dev ifb0 parent 1:1 pfifo limit 100
	tc -n "$NS" qdisc add dev ifb0 parent 1:2 tbf rate 8kbit burst 2k latency 10s
	tc -n "$NS" qdisc add dev ifb0 parent 1:3 bfifo limit 3000
	tc -n "$NS" qdisc add dev ifb0 parent 1:4 handle 40: htb default 1
	tc -n "$NS" qdisc add dev ifb1 root pfifo_fast
	tc -n "$NS" qdisc add dev ifb2 root noqueue || true
	tc -n "$NS" qdisc add dev ifb3 root handle 5: htb
	tc -n "$NS" qdisc add dev ifb3 ingress || true
	local d
	for d in ifb0 ifb1 ifb2 ifb3; do
		ip netns exec "$NS" python3 "$BATS_TEST_DIRNAME/../tools/pktsend.py" $d 32 4 1000 || true
	done
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	[ -x "$CMP" ] || skip "$CMP not built (make tools)"
}

@test "qdisc dump: the direct dump lists what libnl's cache holds, field by field" {
	run -0 ip netns exec "$NS" "$CMP" -p
	echo "$output"
	# every kind set up is there, with counters that moved
	[[ "$output" == *" mq 1: root bytes="[1-9]* ]]
	[[ "$output" == *" tbf "*" 1:2 "*" drops="[1-9]*" overlimits="[1-9]*" backlog="[1-9]* ]]
	[[ "$output" == *" bfifo "*" 1:3 "* ]]
	[[ "$output" == *" pfifo "*" 1:1 "* ]]
	[[ "$output" == *" htb 40: 1:4 "* ]]
	[[ "$output" == *" pfifo_fast "*" root bytes="[1-9]* ]]
	[[ "$output" == *" htb 5: root "* ]]
}

@test "qdisc dump: the same with hundreds of qdiscs (a dump over several messages)" {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		ip -n "$NS" link add m$i numtxqueues 64 type ifb
		ip -n "$NS" link set m$i up
		tc -n "$NS" qdisc replace dev m$i root handle 1: mq
	done
	run -0 ip netns exec "$NS" "$CMP"
	echo "$output"
	local n=${output#qdiscs }
	[ "$n" -ge $((8 * 64 + 8)) ]
}
