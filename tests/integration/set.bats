#!/usr/bin/env bats
# set and reset against the real kernel, in a namespace of our own with an
# 8-queue ifb (never the host's devices): all queues written, kernel
# validation matching ours, rollback when the kernel itself refuses a write.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create set || return 0
	ip -n "$NS" link add i0 numtxqueues 8 type ifb || true
	ip -n "$NS" link add i1 numtxqueues 2 type ifb || true
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	ip netns exec "$NS" test -d /sys/class/net/i0/queues/tx-7/byte_queue_limits ||
		skip "no 8-queue ifb with byte_queue_limits in the namespace (ifb module?)"
	# the real HZ, not the one the CLI tests pin
	unset BQLTOOL_HZ
}



# all8 DEV ATTR: the values of the 8 queues, space separated
all8() {
	nsq "$1" "$2" 8
}

bqn() {
	run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" "$@"
}

@test "netns: set writes all 8 queues" {
	bqn set i0 limit_min=3000 hold_time=500
	assert_success
	# one line per key: the 8 queues change the same way
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp "^i0:0-7 limit_min: .* -> 2.93 KiB$"
	assert_line --index 1 --regexp "^i0:0-7 hold_time: .* -> 500 ms$"
	assert_equal "$(all8 i0 limit_min)" "3000 3000 3000 3000 3000 3000 3000 3000"
	assert_equal "$(all8 i0 hold_time)" "500 500 500 500 500 500 500 500"
	assert_equal "$(nsr i1 0 limit_min)" 0
}

@test "netns: an out-of-window stall_thrs with a valid limit_min changes nothing" {
	bqn set i0 limit_min=3000
	assert_success
	bqn set i0 limit_min=4000 stall_thrs=1
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "stall_thrs=1: 1 ms is 1 jiff(y|ies), outside the kernel's stall_thrs window of 4..128 jiffies: with HZ=[0-9]+ use 0 \\(off\\) or [0-9]+..[0-9]+ ms"
	assert_equal "$(all8 i0 limit_min)" "3000 3000 3000 3000 3000 3000 3000 3000"
	assert_equal "$(all8 i0 stall_thrs)" "0 0 0 0 0 0 0 0"
}

@test "netns: our stall_thrs window is the kernel's, at both ends" {
	bqn set i1:0 stall_thrs=1
	assert_failure 2
	[[ $stderr =~ use\ 0\ \(off\)\ or\ ([0-9]+)\.\.([0-9]+)\ ms ]] || fail "no range in: $stderr"
	lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
	for m in "$lo" "$hi"; do
		bqn set i1:0 stall_thrs="$m"
		assert_success
		assert_equal "$(nsr i1 0 stall_thrs)" "$(jq '.[0].new' <<<"$("$BQLTOOL" -n "$NS" -j set --dry-run i1:0 stall_thrs="$m")")"
	done
	# just outside: we refuse, and so does the kernel
	bqn set i1:0 stall_thrs=$((lo - 1))
	assert_failure 2
	run ip netns exec "$NS" sh -c "echo $((lo - 1)) > /sys/class/net/i1/queues/tx-0/byte_queue_limits/stall_thrs"
	assert_failure
	bqn set i1:0 stall_thrs=$((hi + 1))
	assert_failure 2
	nsw i1 0 stall_thrs 0
}

@test "netns: when the kernel refuses a write, the earlier ones are undone" {
	bqn set i0 limit_min=3000 stall_thrs=0
	assert_success
	# Lie about HZ so that our check passes and the kernel's fails:
	# 5 ms is 5 jiffies at HZ=1000 but 2 at 100/250/300.
	if nsw i1 1 stall_thrs 5 2>/dev/null; then
		nsw i1 1 stall_thrs 0
		fake=100 thrs=1280	# a HZ=1000 kernel: 1280 jiffies
	else
		fake=1000 thrs=5
	fi
	BQLTOOL_HZ=$fake bqn set i0 limit_min=4000 stall_thrs=$thrs
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "bqltool: set: i0:tx-0: stall_thrs: cannot write $thrs to /sys/class/net/i0/queues/tx-0/byte_queue_limits/stall_thrs: Numerical result out of range"
	assert_regex "$stderr" "undid the 1 earlier write: nothing was changed"
	assert_equal "$(all8 i0 limit_min)" "3000 3000 3000 3000 3000 3000 3000 3000"
	assert_equal "$(all8 i0 stall_thrs)" "0 0 0 0 0 0 0 0"
}

@test "netns: -j old and new are what sysfs shows, rounding included" {
	bqn -j set i0:3 hold_time=1001 limit_max=64K
	assert_success
	json_ok
	assert_equal "$(jq '.[0].new' <<<"$output")" "$(nsr i0 3 hold_time)"
	assert_equal "$(jq '.[1].new' <<<"$output")" 65536
	assert_equal "$(nsr i0 3 limit_max)" 65536
	if [ "$(nsr i0 3 hold_time)" != 1001 ]; then
		assert_regex "$stderr" "hold_time=1001: the kernel keeps hold_time in jiffies"
	fi
	# writing the shown value again changes nothing
	shown=$(nsr i0 3 hold_time)
	bqn -v set i0:3 hold_time="$shown"
	assert_success
	assert_output "i0:tx-3 hold_time: $shown ms (unchanged)"
}

@test "netns: limit_max=max, limit, and limit_min > limit_max" {
	bqn set i1 limit_max=max
	assert_success
	assert_equal "$(nsr i1 1 limit_max)" 1879048192
	bqn set i1:0 limit=9000
	assert_success
	assert_equal "$(nsr i1 0 limit)" 9000
	bqn set i1 limit_min=5000 limit_max=3000
	assert_failure 2
	assert_regex "$stderr" "limit_min 4\\.88 KiB > limit_max 2\\.93 KiB contradict each other: on this kernel"
	assert_equal "$(nsr i1 1 limit_min)" 0
	bqn set --force i1 limit_min=5000 limit_max=3000
	assert_success
	assert_equal "$(nsr i1 1 limit_min)" 5000
	assert_equal "$(nsr i1 1 limit_max)" 3000
	bqn set i1:2 limit_min=1
	assert_failure 1
	assert_regex "$stderr" "i1: no TX queue 2"
}

@test "netns: --dry-run writes nothing" {
	before=$(all8 i0 limit_min)
	bqn set --dry-run i0 limit_min=7777
	assert_success
	assert_equal "${#lines[@]}" 1
	bqn -v set --dry-run i0 limit_min=7777
	assert_success
	assert_equal "${#lines[@]}" 8
	assert_equal "$(all8 i0 limit_min)" "$before"
}

@test "netns: reset restores the kernel defaults" {
	bqn set i0 limit_min=3000 limit_max=100000 hold_time=500 stall_thrs=100ms
	assert_success
	bqn reset i0 i1
	assert_success
	assert_equal "$(all8 i0 limit_min)" "0 0 0 0 0 0 0 0"
	assert_equal "$(all8 i0 limit_max)" "1879048192 1879048192 1879048192 1879048192 1879048192 1879048192 1879048192 1879048192"
	assert_equal "$(all8 i0 hold_time)" "1000 1000 1000 1000 1000 1000 1000 1000"
	assert_equal "$(all8 i0 stall_thrs)" "0 0 0 0 0 0 0 0"
	assert_equal "$(nsr i1 1 limit_max)" 1879048192
	bqn -j reset i0
	assert_success
	assert_equal "$(jq '[.[] | select(.changed)] | length' <<<"$output")" 0
}
