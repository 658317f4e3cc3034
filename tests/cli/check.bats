#!/usr/bin/env bats
# bqltool check: one verdict per queue, JSON, exit codes. The "check" tree
# (tests/data/mkfixtures.sh) has one device per verdict.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	use_tree check
}

# verdict DEV:tx-N: the verdict word on that queue's line of the text output
verdict() {
	awk -v q="$1" '$1 == q { print $2 }' <<<"$output"
}

@test "check: a healthy device is ok, exit 0, no note about the detector" {
	bq check eth0
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(verdict eth0:tx-0)" ok
	assert_equal "$(verdict eth0:tx-1)" ok
	refute_output --partial "note:"
	assert_line "checked: 2 ok, 0 warn, 0 fail"
}

@test "check: stalls warn with stall_max converted from jiffies with HZ and its source" {
	bq check eth1
	assert_success		# warnings do not fail
	assert_equal "$(verdict eth1:tx-0)" warn
	assert_output --partial "3 stalls detected, longest 500 ms (stall_max 125 jiffies at HZ 250, from BQLTOOL_HZ)"
	BQLTOOL_HZ=1000 bq check eth1
	assert_output --partial "longest 125 ms (stall_max 125 jiffies at HZ 1000"
}

@test "check: limit_min > limit_max fails, exit 1, says which wins" {
	bq check eth2
	assert_failure 1
	assert_equal "$(verdict eth2:tx-0)" fail
	assert_output --partial "limit_min 4.88 KiB > limit_max 2.93 KiB"
	assert_output --partial "6.1"
	assert_output --partial "limit_min wins unless the limit reaches limit_max"
}

@test "check: limit_max below one full-size frame warns" {
	bq check eth3
	assert_success
	assert_equal "$(verdict eth3:tx-0)" warn
	assert_output --partial "limit_max 1000 B is below one full-size frame (MTU 1500 + 14)"
}

@test "check: limit 0 on every queue with tx bytes sent warns (one snapshot)" {
	bq check eth4
	assert_success
	assert_equal "$(verdict eth4:tx-0)" warn
	assert_equal "$(verdict eth4:tx-1)" warn
	assert_output --partial "although the device sent 5.86 KiB (device statistics)"
	assert_output --partial "confirm with --interval"
}

@test "check: limit 0 one queue only is an idle queue, not a silent driver" {
	echo 3028 > "$ROOT/class/net/eth4/queues/tx-1/byte_queue_limits/limit"
	bq check eth4:0
	assert_success
	assert_equal "$(verdict eth4:tx-0)" ok
}

@test "check --interval: limit stays 0 while bytes flow fails" {
	stats=$ROOT/class/net/eth4/statistics/tx_bytes
	(
		for i in $(seq 1 300); do
			echo $((6000 + i * 1514)) > "$stats.new" && mv "$stats.new" "$stats"
			sleep 0.01
		done
	) >/dev/null 2>&1 3>&- &
	writer=$!
	bq check -i 0.5 eth4
	kill "$writer" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	assert_failure 1
	assert_equal "$(verdict eth4:tx-0)" fail
	assert_output --regexp "limit stayed 0 on every TX queue while the device sent [0-9.]+ (B|KiB|MiB) in 0.5 s"
	assert_output --partial "does not report TX completions to BQL"
}

@test "check: inflight at the limit is only noted; --interval calls it stuck" {
	bq check eth5
	assert_success
	assert_equal "$(verdict eth5:tx-0)" ok
	assert_output --partial "inflight 2.96 KiB >= limit 2.96 KiB"
	bq check --interval 0.1 eth5
	assert_failure 1
	assert_equal "$(verdict eth5:tx-0)" fail
	assert_output --partial "inflight stuck at 2.96 KiB >= limit 2.96 KiB for 0.1 s"
}

@test "check: a down device whose BQL was never used is not judged: unused, not ok (#38)" {
	bq check eth6
	assert_success
	assert_equal "$(verdict eth6:tx-0)" unused
	assert_line 'eth6:tx-0  unused  BQL was never used here (limit and inflight 0) and the device is down: nothing to judge it by'
	assert_line "checked: 0 ok, 0 warn, 0 fail, 1 unused"
	bq -j check eth6
	jq -e '.queues[0].verdict == "unused" and .queues[0].reasons[0].code == "bql-unused" and
		.summary.unused == 1 and .summary.ok == 0' <<<"$output"
	# up, never used, and nothing sent: no evidence either
	echo up > "$ROOT/class/net/eth6/operstate"
	echo 0 > "$ROOT/class/net/eth6/statistics/tx_bytes"
	bq check eth6
	assert_line --regexp '^eth6:tx-0  unused  .* and nothing was sent: nothing to judge it by$'
	# a queue that has a limit is judged as before
	bq check eth0
	assert_line --regexp '^eth0:tx-0  ok$'
}

@test "check -i -j: the evidence as numbers, not only as English (#38)" {
	bq -j check --interval 0.1 eth5
	assert_failure 1	# stuck at the limit
	jq -e '.queues[0].seen | .interval_ns == 100000000 and .nsamples >= 3 and
		.limit == {"min": 3028, "max": 3028, "nchanges": 0} and
		.inflight_max == 3028 and .inflight_max_limit == 3028 and
		.nbusy == .nsamples and .ninflight_falls == 0' <<<"$output"
	# the message says the same
	jq -e '.queues[0].reasons[] | select(.code == "seen") | .message |
		test("limit 2.96 KiB \\(no change\\), inflight up to 2.96 KiB \\(100% of the limit then\\), busy in 100% of samples")' <<<"$output"
	# one snapshot: no "seen"
	bq -j check eth5
	jq -e '.queues[0] | has("seen") | not' <<<"$output"
}

@test "check: a device named without BQL fails with the kernel's reason" {
	bq check lo
	assert_failure 1
	assert_line --regexp '^lo  fail .*device does not use BQL: loopback \(lltx, IFF_NO_QUEUE\)'
	bq check veth0
	assert_failure 1
	assert_output --partial "lltx or IFF_NO_QUEUE"
}

@test "check -a: devices without BQL are listed as no_bql, not failures" {
	bq check -a 'l*' eth0
	assert_success
	assert_line --regexp '^lo +no_bql +loopback'
	assert_equal "$(verdict eth0:tx-0)" ok
	assert_line "checked: 2 ok, 0 warn, 0 fail, 1 without BQL"
	bq check --all
	assert_failure 1	# eth2 fails
	assert_line --regexp '^veth0 +no_bql '
	assert_line "checked: 3 ok, 4 warn, 1 fail, 2 without BQL, 1 unused"
}

@test "check: the stall detector off everywhere is a note with a command that works as pasted (#38)" {
	bq check eth1 eth2
	assert_line "note: the stall detector is off on every queue checked (stall_thrs 0); enable it with: bqltool --sysfs-root $ROOT set eth1 eth2 stall_thrs=16ms (at HZ 250 stall_thrs is 4..128 jiffies, 13..512 ms; 16 ms is the lowest that reads back as written)"
	BQLTOOL_HZ=1000 bq check eth1
	assert_output --partial "set eth1 stall_thrs=4ms (at HZ 1000 stall_thrs is 4..128 jiffies, 4..128 ms; 4 ms"
	BQLTOOL_HZ=100 bq check eth1
	assert_output --partial "set eth1 stall_thrs=40ms (at HZ 100 stall_thrs is 4..128 jiffies, 31..1280 ms; 40 ms"
	# globs quoted, and no selector is every device with BQL, as check took it
	bq check 'eth[12]'
	assert_output --partial "set 'eth[12]' stall_thrs=16ms"
	# pasted as printed: it runs, and the detector reads back what was written
	bq check eth1 eth2
	cmd=$(sed -n 's/.*enable it with: \(.*\) (at HZ.*/\1/p' <<<"$output")
	[ -n "$cmd" ]
	run env PATH="$(dirname "$BQLTOOL"):$PATH" bash -c "$cmd"
	assert_success
	bq -j show eth1 eth2
	jq -e '[.[].queues[].stall_thrs] | all(. == 16)' <<<"$output"
	bq check eth1 eth2
	refute_output --partial "stall detector is off"
}

@test "check: a kernel before 6.9 gets a note, no stall verdicts" {
	use_tree prestall
	bq check
	assert_success
	assert_output --partial "note: no stall_* files"
}

@test "check: HZ from the fallback is noted" {
	BQLTOOL_HZ= BQLTOOL_KCONFIG=/dev/null bq check eth1
	assert_output --partial "note: HZ 250 assumed"
	assert_output --partial "(stall_max 125 jiffies at HZ 250, assumed)"
}

@test "check -j: valid JSON with the documented shape, exit 1 on a failure" {
	bq -j check -a
	assert_failure 1
	assert_equal "$stderr" ""
	json_ok
	jq -e '
		(.queues | type == "array" and length == 11) and
		all(.queues[];
			(.ifname | type == "string") and
			((.queue | type == "number") or .queue == null) and
			(.verdict | IN("ok", "warn", "fail", "no_bql", "unused")) and
			all(.reasons[]; (.level | IN("info", "warn", "fail")) and
				(.code | type == "string") and (.message | type == "string"))) and
		(.summary == {"ok": 3, "warn": 4, "fail": 1, "no_bql": 2, "unused": 1, "no-bql": 2}) and
		(.hz == {"value": 250, "source": "BQLTOOL_HZ"})' <<<"$output"
	run jq -r '.queues[] | select(.verdict != "ok") |
		"\(.ifname):\(.queue) \(.verdict) \([.reasons[].code] | join(","))"' <<<"$output"
	assert_output - <<-EOF
	lo:null no_bql no-bql
	eth1:0 warn stalls
	eth2:0 fail limit-min-above-max
	eth3:0 warn limit-max-below-frame
	eth4:0 warn no-completions
	eth4:1 warn no-completions
	eth6:0 unused bql-unused
	veth0:null no_bql no-bql
	EOF
}

@test "check -j: a healthy selection exits 0 with empty reasons" {
	bq -p check eth0
	assert_success
	json_ok
	jq -e '[.queues[].verdict] == ["ok", "ok"] and all(.queues[]; .reasons == []) and
		.notes == []' <<<"$output"
}

@test "check: no device with BQL warns on stderr and exits 0" {
	use_tree nobql
	bq check
	assert_success
	[[ $stderr == *"no network device with byte queue limits found"* ]]
	bq -j check
	assert_success
	jq -e '.queues == []' <<<"$output"
}

@test "check: usage errors exit 2, unknown devices exit 1" {
	bq check --bogus
	assert_failure 2
	assert_output ""
	[[ $stderr == *"Try 'bqltool help check'"* ]]
	bq check -i 0 eth0
	assert_failure 2
	bq check -i abc eth0
	assert_failure 2
	bq check 'eth0:x'
	assert_failure 2
	bq check nosuch0
	assert_failure 1
	[[ $stderr == *"nosuch0: no such device"* ]]
	bq check 'zz*'
	assert_failure 1
	[[ $stderr == *"'zz*': no device with BQL matches"* ]]
}
