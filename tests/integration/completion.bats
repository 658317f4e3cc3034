#!/usr/bin/env bats
# Completions under -n NS offer what they offer on the host: devices with
# BQL only (ifb), not lo or a veth, in a network namespace of our own.
bats_require_minimum_version 1.5.0
load netns
load ../cli/comp_helpers

setup_file() {
	netns_create comp || return 0
	ip -n "$NS" link add c0 numtxqueues 2 type ifb
	ip -n "$NS" link add cv0 type veth peer name cv1
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
}

@test "netns: bash, zsh and fish complete 'bqltool -n NS show ' with BQL devices only" {
	bcomp "$BQLTOOL -n $NS show "
	assert_success
	assert_output "c0"
	# check names devices without BQL on purpose, as on the host
	bcomp "$BQLTOOL -n $NS check "
	assert_line c0
	assert_line lo
	assert_line cv0
	fcomp "$BQLTOOL -n $NS show "
	assert_line c0
	refute_line lo
	refute_line cv0
	refute_line cv1
	command -v zsh >/dev/null || skip "zsh not installed"
	ZCAPTURE_DUMP=$BATS_FILE_TMPDIR/zcompdump run timeout 20 zsh \
		"$BATS_TEST_DIRNAME/../cli/zcapture.zsh" "$COMPLETIONS" "$BQLTOOL -n $NS show "
	assert_success
	assert_output --partial c0
	refute_output --regexp "(^|[[:space:]])(lo|cv0|cv1)([[:space:]]|$)"
}

@test "netns: -n NS after the command counts in bash, zsh and fish: 'bqltool show -n NS ' (#38)" {
	[ ! -e /sys/class/net/c0 ] || skip "the host has a device named c0"
	bcomp "$BQLTOOL show -n $NS "
	assert_success
	assert_output "c0"
	bcomp "$BQLTOOL show --netns=$NS c0:"
	assert_equal "$output" "$(printf '%s\n' 0 1)"
	fcomp "$BQLTOOL show -n $NS "
	assert_output "c0"
	fcomp "$BQLTOOL show -n $NS c0:"
	assert_equal "$output" "$(printf '%s\n' c0:0 c0:1)"
	command -v zsh >/dev/null || skip "zsh not installed"
	ZCAPTURE_DUMP=$BATS_FILE_TMPDIR/zcompdump run timeout 20 zsh \
		"$BATS_TEST_DIRNAME/../cli/zcapture.zsh" "$COMPLETIONS" "$BQLTOOL show -n $NS "
	assert_success
	assert_output "c0"
}

@test "netns: bash, zsh and fish complete 'bqltool -n NS show DEV:' with the namespace's queues" {
	# c0 exists only in the namespace: the host's sysfs has no such queues
	[ ! -e /sys/class/net/c0 ] || skip "the host has a device named c0"
	bcomp "$BQLTOOL -n $NS show c0:"
	assert_success
	assert_equal "$output" "$(printf '%s\n' 0 1)"
	fcomp "$BQLTOOL -n $NS show c0:"
	assert_line c0:0
	assert_line c0:1
	assert_equal "${#lines[@]}" 2
	command -v zsh >/dev/null || skip "zsh not installed"
	ZCAPTURE_DUMP=$BATS_FILE_TMPDIR/zcompdump run timeout 20 zsh \
		"$BATS_TEST_DIRNAME/../cli/zcapture.zsh" "$COMPLETIONS" "$BQLTOOL -n $NS show c0:"
	assert_success
	assert_output --regexp "(^|[[:space:]])0([[:space:]]|$)"
	assert_output --regexp "(^|[[:space:]])1([[:space:]]|$)"
}
