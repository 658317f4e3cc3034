#!/usr/bin/env bats
# save and apply against the real kernel, in a namespace of our own with
# ifb devices (never the host's): save -> change -> apply restores,
# apply --check exit codes, rollback when the kernel refuses a write, a
# device re-created with more queues.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create prof || return 0
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
	unset BQLTOOL_HZ
	PROF=$BATS_TEST_TMPDIR/p.json
}



# every writable BQL value of both devices, one line per file
state() {
	ip netns exec "$NS" sh -c 'for f in /sys/class/net/i*/queues/tx-*/byte_queue_limits/*; do
		case ${f##*/} in limit_min|limit_max|hold_time|stall_thrs) echo "$f=$(cat "$f")";; esac
	done'
}

bqn() {
	run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" "$@"
}

@test "netns: save -> change -> apply restores every setting" {
	bqn reset i0 i1
	for q in 0 1 2 3 4 5 6 7; do
		nsw i0 $q limit_min $((1000 + q))
		nsw i0 $q hold_time 500
	done
	nsw i1 1 stall_thrs 100
	before=$(state)
	bqn save -o "$PROF"
	assert_success
	assert_equal "$(jq -r '.kernel' "$PROF")" "$(uname -r)"
	assert_equal "$(jq -c '[.devices.i0.queues[].limit_min]' "$PROF")" "[1000,1001,1002,1003,1004,1005,1006,1007]"
	assert_equal "$(jq -c '.devices.i1 | keys' "$PROF")" '["queues"]'
	bqn reset i0 i1
	bqn set i0 limit_max=64K stall_thrs=200
	assert_success
	assert_not_equal "$(state)" "$before"
	bqn apply "$PROF"
	assert_success
	assert_equal "$(state)" "$before"
}

@test "netns: apply --check exits 0 when equal, 1 listing differences" {
	bqn reset i0 i1
	bqn set i0 limit_min=1514 hold_time=250
	bqn save -o "$PROF" i0
	bqn apply --check "$PROF"
	assert_success
	assert_output ""
	nsw i0 6 limit_min 9999
	bqn apply --check "$PROF"
	assert_failure 1
	assert_output "i0:tx-6 limit_min: 9.76 KiB, profile 1.48 KiB"
	bqn -j apply --check "$PROF"
	assert_failure 1
	assert_equal "$output" '[{"name":"i0:tx-6","ifname":"i0","queue":6,"key":"limit_min","live":9999,"profile":1514}]'
	assert_equal "$(nsr i0 6 limit_min)" 9999
	bqn apply "$PROF"
	assert_success
	assert_line "i0:tx-6 limit_min: 9.76 KiB -> 1.48 KiB"
	assert_equal "$(grep -c -- ' -> ' <<<"$output")" 1
	bqn apply --check "$PROF"
	assert_success
	# a malformed profile is neither equal nor different: 2
	echo '{"bqltool_profile": 1, "devices": {"i0": {"all": {"hold_time": "1s"}}}}' >"$PROF"
	bqn apply --check "$PROF"
	assert_failure 2
	assert_regex "$stderr" "devices.i0.all.hold_time: expected an unsigned integer, not a string"
}

@test "netns: an \"all\" entry follows the queue count (a device re-created with more queues)" {
	bqn reset i1
	bqn set i1 limit_max=100000
	bqn save -o "$PROF" i1
	assert_equal "$(jq -c '.devices.i1 | keys' "$PROF")" '["all"]'
	ip -n "$NS" link del i1
	ip -n "$NS" link add i1 numtxqueues 4 type ifb
	bqn apply --check "$PROF"
	assert_failure 1
	assert_equal "${#lines[@]}" 4
	bqn apply "$PROF"
	assert_success
	for q in 0 1 2 3; do
		assert_equal "$(nsr i1 $q limit_max)" 100000
	done
	ip -n "$NS" link del i1
	ip -n "$NS" link add i1 numtxqueues 2 type ifb
}

@test "netns: when the kernel refuses the last write, all 8 earlier ones are undone" {
	bqn reset i0
	if nsw i1 1 stall_thrs 5 2>/dev/null; then
		nsw i1 1 stall_thrs 0
		fake=100 thrs=1280
	else
		fake=1000 thrs=5
	fi
	{
		echo '{"bqltool_profile": 1, "devices": {"i0": {"queues": ['
		for q in 0 1 2 3 4 5 6; do echo "{\"queue\": $q, \"limit_min\": 4000},"; done
		echo "{\"queue\": 7, \"limit_min\": 4000, \"stall_thrs\": $thrs}]}}}"
	} >"$PROF"
	before=$(state)
	BQLTOOL_HZ=$fake bqn apply "$PROF"
	assert_failure 1
	assert_regex "$stderr" "i0:tx-7: stall_thrs: cannot write $thrs to .*: Numerical result out of range"
	assert_regex "$stderr" "undid the 8 earlier writes: nothing was changed"
	assert_equal "$(state)" "$before"
}

@test "netns: missing devices and --only" {
	bqn reset i0 i1
	echo '{"bqltool_profile": 1, "devices": {"i0": {"all": {"limit_min": 2000}}, "i1": {"all": {"limit_min": 2001}}, "gone9": {"all": {"limit_min": 1}}}}' >"$PROF"
	before=$(state)
	bqn apply "$PROF"
	assert_failure 1
	assert_regex "$stderr" "devices.gone9: no such device"
	assert_equal "$(state)" "$before"
	bqn apply --missing=skip --only i1 "$PROF"
	assert_success
	assert_equal "$(nsr i1 1 limit_min)" 2001
	assert_equal "$(nsr i0 1 limit_min)" 0
	bqn apply --missing=skip "$PROF"
	assert_success
	assert_equal "$(nsr i0 7 limit_min)" 2000
	bqn reset i0 i1
	assert_success
	assert_equal "$(nsr i0 7 limit_min)" 0
}
