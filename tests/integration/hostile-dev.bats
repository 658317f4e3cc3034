#!/usr/bin/env bats
# -n NAME where /run/netns/NAME is not a network namespace: a FIFO (which
# once hung the open), a directory, a plain file, a namespace of another
# kind. Each such file is the test's own, named with its PID, removed in
# teardown; a namespace of the test's own checks that -n still works.
bats_require_minimum_version 1.5.0
load netns

setup_file() {
	netns_create hostdev || return 0
	ip -n "$NS" link add i0 numtxqueues 2 type ifb || true
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	FAKE="hostdev-fake-$$-$BATS_TEST_NUMBER"
	FAKEP="/run/netns/$FAKE"
}

teardown() {
	[ -n "${FAKEP:-}" ] && rm -rf "$FAKEP"
	return 0
}

@test "netns -n: a FIFO in /run/netns fails at once, naming it, never a hang" {
	mkfifo "$FAKEP"
	for cmd in show "set i0 limit_min=0" save check "top -b -c 1"; do
		run --separate-stderr timeout 10 "$BQLTOOL" -n "$FAKE" $cmd
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "netns '$FAKE': $FAKEP is a FIFO, not a network namespace"
	done
}

@test "netns -n: a directory, a plain file or a mount namespace is not a network namespace" {
	mkdir "$FAKEP"
	run --separate-stderr timeout 10 "$BQLTOOL" -n "$FAKE" show
	assert_failure 1
	assert_regex "$stderr" "$FAKEP is a directory, not a network namespace"
	rmdir "$FAKEP"
	echo x >"$FAKEP"
	run --separate-stderr timeout 10 "$BQLTOOL" -n "$FAKE" show
	assert_failure 1
	assert_regex "$stderr" "$FAKEP is a plain file, not a network namespace"
	rm -f "$FAKEP"
	ln -s /proc/self/ns/mnt "$FAKEP"
	run --separate-stderr timeout 10 "$BQLTOOL" -n "$FAKE" show
	assert_failure 1
	assert_regex "$stderr" "$FAKEP is a namespace of another kind, not a network namespace"
}

@test "netns -n: a real namespace still works after the checks" {
	ip netns exec "$NS" test -d /sys/class/net/i0/queues/tx-1/byte_queue_limits ||
		skip "no ifb with byte_queue_limits in the namespace"
	run --separate-stderr timeout 10 "$BQLTOOL" -n "$NS" -j show i0
	assert_success
	[ "$(jq '.[0].queues | length' <<<"$output")" = 2 ]
}
