#!/usr/bin/env bash
# Regenerate the fake sysfs trees in tests/data/sysfs/. The trees are
# committed; run this only to change them (and review the diff).
set -eu
cd "$(dirname "$0")/sysfs"

# dev ROOT NAME IFINDEX NTX [bql|nobql] [stall|nostall] [speed]
dev() {
	local root=$1 name=$2 idx=$3 ntx=$4 bql=${5:-bql} stall=${6:-stall} speed=${7:--1}
	local d=$root/class/net/$name q
	mkdir -p "$d/queues" "$d/statistics"
	echo "$idx" > "$d/ifindex"
	echo 1500 > "$d/mtu"
	echo 1000 > "$d/tx_queue_len"
	echo up > "$d/operstate"
	echo "$speed" > "$d/speed"
	echo $((idx * 1000)) > "$d/statistics/tx_bytes"
	echo $((idx * 10)) > "$d/statistics/tx_packets"
	echo 0 > "$d/statistics/tx_errors"
	echo 0 > "$d/statistics/tx_dropped"
	mkdir -p "$d/queues/rx-0"
	for ((q = 0; q < ntx; q++)); do
		mkdir -p "$d/queues/tx-$q"
		echo 0 > "$d/queues/tx-$q/tx_timeout"
		[ "$bql" = bql ] || continue
		local b=$d/queues/tx-$q/byte_queue_limits
		mkdir -p "$b"
		echo $((3028 + q * 1514)) > "$b/limit"
		echo 0 > "$b/limit_min"
		echo 1879048192 > "$b/limit_max"
		echo 1000 > "$b/hold_time"
		echo $((q * 100)) > "$b/inflight"
		if [ "$stall" = stall ]; then
			echo 0 > "$b/stall_thrs"
			echo "$q" > "$b/stall_cnt"
			echo $((q * 2)) > "$b/stall_max"
		fi
	done
}

rm -rf nic1 nic64 multi prestall bad-garbage bad-empty bad-gap nobql
# One NIC with one queue, lo and a veth without BQL.
dev nic1 lo 1 1 nobql
dev nic1 eth0 2 1 bql stall 1000
dev nic1 veth0 3 1 nobql
# 64-queue NIC.
dev nic64 lo 1 1 nobql
dev nic64 ens1f0 2 64 bql stall 25000
# Several devices.
dev multi lo 1 1 nobql
dev multi eth0 2 4 bql stall 10000
dev multi eth1 3 2 bql stall
dev multi wlan0 4 1 bql stall
dev multi veth0 5 1 nobql
# A kernel before 6.9: no stall_* files.
dev prestall eth0 2 2 bql nostall 1000
# Bad values.
dev bad-garbage eth0 2 2
echo "12abc" > bad-garbage/class/net/eth0/queues/tx-1/byte_queue_limits/limit
dev bad-empty eth0 2 1
: > bad-empty/class/net/eth0/queues/tx-0/byte_queue_limits/limit_max
dev bad-gap eth0 2 3
rm -rf bad-gap/class/net/eth0/queues/tx-1
# No BQL anywhere.
dev nobql lo 1 1 nobql
dev nobql veth0 2 2 nobql

# `bqltool check`: one device per verdict (tests/cli/check.bats).
rm -rf check
b() { echo "$3" > "check/class/net/$1/queues/tx-0/byte_queue_limits/$2"; }
dev check lo 1 1 nobql
echo 0x9 > check/class/net/lo/flags		# IFF_UP|IFF_LOOPBACK
dev check eth0 2 2 bql stall 10000		# healthy, stall detector on
for q in 0 1; do
	echo 20 > check/class/net/eth0/queues/tx-$q/byte_queue_limits/stall_thrs
	echo 0 > check/class/net/eth0/queues/tx-$q/byte_queue_limits/stall_cnt
	echo 0 > check/class/net/eth0/queues/tx-$q/byte_queue_limits/stall_max
done
dev check eth1 3 1				# stalls: 3, longest 125 jiffies
b eth1 stall_cnt 3
b eth1 stall_max 125
dev check eth2 4 1				# limit_min > limit_max
b eth2 limit_min 5000
b eth2 limit_max 3000
dev check eth3 5 1				# limit_max below one frame
b eth3 limit_max 1000
dev check eth4 6 2				# limit 0 everywhere, tx bytes > 0
for q in 0 1; do
	echo 0 > check/class/net/eth4/queues/tx-$q/byte_queue_limits/limit
	echo 0 > check/class/net/eth4/queues/tx-$q/byte_queue_limits/inflight
	echo 0 > check/class/net/eth4/queues/tx-$q/byte_queue_limits/stall_cnt
	echo 0 > check/class/net/eth4/queues/tx-$q/byte_queue_limits/stall_max
done
dev check eth5 7 1				# inflight at the limit
b eth5 inflight 3028
dev check eth6 8 1				# down, limit 0: nothing to judge
echo down > check/class/net/eth6/operstate
b eth6 limit 0
dev check veth0 9 1 nobql
echo 0x1003 > check/class/net/veth0/flags	# IFF_UP|IFF_BROADCAST|IFF_MULTICAST

# set, reset, save, apply (tests/cli/set.bats, profile.bats): eth0 tuned,
# its tx-2 unlike the others; eth1 at the kernel defaults.
rm -rf tuned
dev tuned lo 1 1 nobql
dev tuned eth0 2 4 bql stall 10000
dev tuned eth1 3 2 bql stall
dev tuned veth0 4 1 nobql
for q in 0 1 2 3; do
	t=tuned/class/net/eth0/queues/tx-$q/byte_queue_limits
	echo 1514 > "$t/limit_min"
	echo 65536 > "$t/limit_max"
	echo 500 > "$t/hold_time"
	echo 20 > "$t/stall_thrs"
done
echo 3028 > tuned/class/net/eth0/queues/tx-2/byte_queue_limits/limit_min
