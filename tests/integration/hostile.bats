#!/usr/bin/env bats
# Issue #10 on the real kernel, in a namespace of our own with ifb devices:
# a file size limit never empties a BQL value, real sysfs links resolve
# beneath the root with openat2 and with the fallback walk, and a closed
# stdout fails a run that also has netlink sockets open.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create hostile || return 0
	ip -n "$NS" link add i0 numtxqueues 4 type ifb || true
	ip -n "$NS" link add r0 type ifb || true
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	ip netns exec "$NS" test -d /sys/class/net/i0/queues/tx-3/byte_queue_limits ||
		skip "no 4-queue ifb with byte_queue_limits in the namespace (ifb module?)"
	unset BQLTOOL_HZ
}

all4() {
	nsq i0 "$1" 4
}

@test "netns: under ulimit -f 0, set applies in full or not at all, never an empty value" {
	nsw i0 0 limit_max 1879048192
	before=$(all4 limit_max)
	# stderr through a pipe to a cat without the limit
	run --separate-stderr timeout 20 bash -c \
		'set -o pipefail; { (ulimit -f 0; exec "$@") 2>&1 1>&3 3>&- | cat >&2; } 3>&1' \
		sh "$BQLTOOL" -n "$NS" set i0 limit_max=64K
	after=$(all4 limit_max)
	# sysfs is not bound by RLIMIT_FSIZE on current kernels: then it applied
	if [ "$status" -eq 0 ]; then
		assert_equal "$after" "65536 65536 65536 65536"
	else
		assert_equal "$status" 1
		assert_regex "$stderr" "nothing was changed"
		assert_equal "$after" "$before"
	fi
	for v in $after; do
		[[ $v =~ ^[0-9]+$ ]] || fail "a value was damaged: '$v'"
	done
	nsw i0 0 limit_max 1879048192
}

@test "netns: the failing write keeps the kernel's value and the earlier ones are undone" {
	bqn() { run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" "$@"; }
	bqn set i0 limit_min=3000 stall_thrs=0
	assert_success
	# Lie about HZ so that our stall_thrs check passes and the kernel's fails
	if nsw i0 1 stall_thrs 5 2>/dev/null; then
		nsw i0 1 stall_thrs 0
		fake=100 thrs=1280
	else
		fake=1000 thrs=5
	fi
	BQLTOOL_HZ=$fake bqn set i0 limit_min=4000 hold_time=500 stall_thrs=$thrs
	assert_failure 1
	assert_regex "$stderr" "i0:tx-0: stall_thrs: cannot write $thrs"
	# the failing file kept its value: not rewritten, not reported as restored
	refute_regex "$stderr" "the failed write changed it"
	assert_regex "$stderr" "undid the 2 earlier writes: nothing was changed"
	assert_equal "$(all4 limit_min)" "3000 3000 3000 3000"
	assert_equal "$(all4 hold_time)" "1000 1000 1000 1000"
	assert_equal "$(all4 stall_thrs)" "0 0 0 0"
	bqn reset i0
	assert_success
}

@test "netns: real sysfs links resolve beneath /sys with openat2 and with the walk" {
	ip netns exec "$NS" test -L /sys/class/net/i0 || skip "class/net/i0 is not a link here"
	for m in 0 1; do
		run --separate-stderr env BQLTOOL_NO_OPENAT2=$m "$BQLTOOL" -n "$NS" -j show i0
		assert_success
		assert_equal "$(jq '.[0].queues | length' <<<"$output")" 4
		eval "out$m=\$(jq -c '[.[0].queues[] | .limit_max]' <<<\"\$output\")"
		# --sysfs-root /sys walks the same links (ip netns exec mounts its sysfs)
		run --separate-stderr ip netns exec "$NS" env BQLTOOL_NO_OPENAT2=$m \
			"$BQLTOOL" --sysfs-root /sys -j show i0
		[ "$status" -eq 0 ] || fail "exit $status: $stderr"
		assert_equal "$(jq '.[0].queues | length' <<<"$output")" 4
		run --separate-stderr env BQLTOOL_NO_OPENAT2=$m "$BQLTOOL" -n "$NS" set i0:2 limit_max=$((8000 + m))
		assert_success
		assert_equal "$(nsr i0 2 limit_max)" $((8000 + m))
		nsw i0 2 limit_max 1879048192
	done
	assert_equal "$out0" "$out1"
}

@test "netns: a closed stdout fails the run (netlink sockets open), exit 1" {
	run --separate-stderr bash -c '"$0" -n "$1" show i0 >&-' "$BQLTOOL" "$NS"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output: Bad file descriptor"
	run --separate-stderr bash -c '"$0" -n "$1" -j show >&-' "$BQLTOOL" "$NS"
	assert_failure 1
}

@test "netns: devices renamed meanwhile never fail a read (openat2 EAGAIN)" {
	# RESOLVE_BENEATH gives up (EAGAIN) on ".." in real sysfs links while
	# any rename happens: bqltool retries, then walks
	( end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do
		ip -n "$NS" link set r0 name r1 && ip -n "$NS" link set r1 name r0 || break
	done ) 3>&- &
	churn=$!
	fails=0
	for i in $(seq 150); do
		ip netns exec "$NS" "$BQLTOOL" --sysfs-root /sys -j show i0 >/dev/null \
			2>"$BATS_TEST_TMPDIR/err" || { fails=$((fails + 1)); cat "$BATS_TEST_TMPDIR/err"; }
	done
	kill "$churn" 2>/dev/null || true
	wait "$churn" 2>/dev/null || true
	ip -n "$NS" link set r1 name r0 2>/dev/null || true
	assert_equal "$fails" 0
}
