#!/usr/bin/env bats
# Hostile device names on the real kernel: it lets root name a device with
# ESC, C1 controls, invalid UTF-8 or direction overrides (dev_valid_name()
# refuses only '/', ':' and blanks). In a namespace of our own, with ifb
# devices so named, nothing raw may reach the terminal and JSON stays valid.
bats_require_minimum_version 1.5.0
load netns

N_ESC=$'e\e[2J\xc2\x9bx'	T_ESC='e\x1b[2J\u009bx'
N_BAD=$'b\xff\xfe'		T_BAD='b\xff\xfe'
N_RLO=$'r\xe2\x80\xaeo'		T_RLO='r\u202eo'
N_OSC=$'t\e]0;PWN\a'		T_OSC='t\x1b]0;PWN\x07'

setup_file() {
	netns_create hnames || return 0
	ip -n "$NS" link add "$N_ESC" numtxqueues 2 type ifb
	ip -n "$NS" link add "$N_BAD" type ifb
	ip -n "$NS" link add "$N_RLO" type ifb
	# more queues than record's watchpoint backend takes (4)
	ip -n "$NS" link add "$N_OSC" numtxqueues 8 type ifb
	ip -n "$NS" link set "$N_OSC" up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
}

# clean TEXT: no raw control but newline, no C1 or direction character, UTF-8
clean() {
	if LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]' <<<"$1"; then
		od -c <<<"$1" | head -20 >&2
		return 1
	fi
	iconv -f UTF-8 -t UTF-8 <<<"$1" >/dev/null 2>&1
}

nsbq() {
	run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" "$@"
}

@test "netns hostile: show prints every kernel-accepted name escaped" {
	nsbq show
	assert_success
	clean "$output"
	clean "$stderr"
	assert_output --partial "$T_ESC: ifindex"
	assert_output --partial "$T_BAD: ifindex"
	assert_output --partial "$T_RLO: ifindex"
}

@test "netns hostile: show -j, check -j and top -b -j are valid JSON" {
	nsbq -j show
	assert_success
	clean "$output"
	jq -e . >/dev/null <<<"$output"
	[ "$(jq -r '.[] | select(.ifname | startswith("e")) | .ifname' <<<"$output")" = "$N_ESC" ]
	nsbq -j check
	clean "$output"
	jq -e . >/dev/null <<<"$output"
	nsbq -j top -b -c 2 -d 0.1
	assert_success
	clean "$output"
	jq -e . >/dev/null <<<"$output"
}

@test "netns hostile: check, top -b and prometheus text are escaped" {
	for args in check "top -b -c 1" "show --format prometheus"; do
		nsbq $args
		clean "$output"
		clean "$stderr"
	done
	nsbq show --format prometheus
	assert_output --partial 'device="e\\x1b[2J\\u009bx"'
}

@test "netns hostile: set on the hostile device writes and prints escaped lines" {
	nsbq set "$N_ESC" limit_max=64K
	assert_success
	clean "$output"
	clean "$stderr"
	[ "$(nsr "$N_ESC" 1 limit_max)" = 65536 ]
	nsbq reset "$N_ESC"
	assert_success
}

@test "netns hostile: save then apply --check round-trips an ESC/C1 name" {
	nsbq save -o "$BATS_TEST_TMPDIR/p.json" "$N_ESC" "$N_RLO"
	assert_success
	clean "$(cat "$BATS_TEST_TMPDIR/p.json")"
	nsbq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
	nsbq save "$N_BAD"
	assert_failure 1
	clean "$stderr"
	assert_regex "$stderr" 'the device name is not valid UTF-8'
}

# issue #37 class 1: record -v's "backend watchpoint not used: ... select
# fewer (e.g. NAME:0-3)" printed the name raw (report() in cmd/record_cap.c)
@test "netns hostile: record -v names a hostile device escaped in every line (#37 class 1)" {
	nsbq -v record "$N_OSC" -d 0.3 -o "$BATS_TEST_TMPDIR/t.bqlt"
	[ "$status" -eq 0 ] || [[ "$stderr" == *"without BPF support"* ]] ||
		[[ "$stderr" == *"not permitted"* ]] || fail "record: $status: $stderr"
	clean "$stderr"
	if [[ "$stderr" == *"backend watchpoint not used"* ]]; then
		assert_regex "$stderr" "backend watchpoint not used: .*\\\\x1b\\]0;PWN\\\\x07:0-3"
	fi
}

# issue #37 class 2: record wrote the name raw and replay refused it
# ("expected a queue name, got '?[31mRED:tx-0'"). Names are written with
# \xHH escapes (bqltrace(5)), the trace is clean text, replay reads the
# very bytes back (-j: the device's name).
@test "netns hostile: record then replay round-trips ESC, C1, invalid UTF-8 and RLO names (#37 class 2)" {
	local t="$BATS_TEST_TMPDIR/t.bqlt" n
	nsbq record "$N_ESC" "$N_BAD" "$N_RLO" "$N_OSC:0" -d 0.3 -o "$t"
	if [ "$status" -ne 0 ] && [[ "$stderr" == *"without BPF support"* ]]; then
		skip "record cannot run here: $stderr"
	fi
	assert_success
	clean "$(cat "$t")"
	grep -q '^queue e\\x1b\[2J\\xc2\\x9bx:tx-0 ' "$t"
	grep -q '^queue b\\xff\\xfe:tx-0 ' "$t"
	run --separate-stderr "$BQLTOOL" replay "$t"
	assert_success
	clean "$output"
	assert_output --partial "$T_ESC:tx-1"
	assert_output --partial "$T_BAD:tx-0"
	run --separate-stderr "$BQLTOOL" -j replay "$t"
	assert_success
	for n in "$N_ESC" "$N_RLO" "$N_OSC"; do
		[ "$(jq -r --arg n "$n" '[.queues[] | select(.ifname == $n)] | length' <<<"$output")" -ge 1 ] ||
			fail "no queue of $(printf %q "$n") in $output"
	done
}
