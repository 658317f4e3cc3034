#!/usr/bin/env bats
# One JSON vocabulary across commands (issue #24, DESIGN.md): every -j
# output of every command, on the fixture trees, the example traces, a
# trace of hostile and odd names and sim's own, checked against the same
# rules: each per-queue object says name, and ifname + queue where the
# queue is a device TX queue or a DEV:tx-N name; a key named queues (or
# devices, flows, candidates...) is always an array, counts being n...
# keys; device and queue counters nest under stats. The profile file
# (save) and --timeline keep their own documented formats.
bats_require_minimum_version 1.5.0
load helpers

P="$DATA/profiles"

# tn ARGS...: tune, which simulates (bq's 10 s are not enough on a busy machine)
tn() {
	run --separate-stderr timeout 120 "$BQLTOOL" "$@"
}

# the rules, as jq definitions
JQ_RULES='
# DEV:tx-N: DEV not empty, N decimal without a leading zero, at most 2^32 - 1
def devtx: test("^.+:tx-(0|[1-9][0-9]*)$") and
	(capture(":tx-(?<n>[0-9]+)$").n | tonumber) <= 4294967295;
# a queue object: name first; ifname + queue (a number) exactly when the
# name is DEV:tx-N, and then name is DEV ":tx-" N; a whole-device row
# (no BQL, absent) is name = ifname, queue null
def named:
	(.name | type == "string") and
	(if has("queue") and .queue == null then .ifname == .name
	 elif (.name | devtx) then
		(.queue | type == "number") and (.ifname | type == "string") and
		.ifname + ":tx-" + (.queue | tostring) == .name
	 else (has("ifname") or has("queue")) | not end);
def first_named: keys_unsorted[0] == "name" and named;
# collections are arrays wherever they appear; counts are n... keys (the
# kernel attribute num_tx_queues keeps its name)
def lists_are_arrays:
	[.. | objects | to_entries[]
	 | select(.key | IN("queues", "devices", "flows", "candidates", "ensemble",
			     "warnings", "events", "reasons", "notes", "why", "misfit")
			 or (test("_queues$") and (test("^(old_)?num_tx_queues$") | not)))
	 | .value | type] | all(. == "array");
# an object that says "queue" names it
def queue_keys_named: [.. | objects | select(has("queue"))] | all(named);
# counters only inside stats
def no_loose_counters:
	all(has("tx_bytes") or has("tx_packets") or has("tx_errors") or has("tx_dropped")
	    or has("tx_stop") or has("tx_wake") or has("tx_hw_drops") | not);
'

# shape JQ-EXPR: the last run's JSON output satisfies JQ-EXPR under the rules
shape() {
	jq -e "$JQ_RULES $1" <<<"$output" >/dev/null || {
		echo "rule failed: $1"
		echo "$output" | head -c 3000
		return 1
	}
}

# generic WHERE: what every document must satisfy; WHERE is the jq path of
# its per-queue objects
generic() {
	shape 'lists_are_arrays' || return 1
	shape 'queue_keys_named' || return 1
	shape "[$1] | length > 0 and all(first_named)"
}

@test "shape: show -j on every tree: queues named, counters under stats" {
	for t in nic1 multi prestall nic64 tuned check; do
		use_tree "$t"
		bq -j show
		assert_success
		generic '.[].queues[]'
		shape '[.[] | ., .queues[]] | no_loose_counters'
		shape 'all(.[]; .stats | (.tx_bytes | type == "number") and (.tx_packets | type == "number"))'
		# the queue's device is the object around it
		shape 'all(.[]; .ifname as $d | all(.queues[]; .ifname == $d))'
	done
}

@test "shape: check -j: queues named, a device without BQL is a device row" {
	for t in check multi; do
		use_tree "$t"
		bq -j check
		[ "$status" -le 1 ] || fail "check on $t: exit $status: $stderr"
		generic '.queues[]'
		shape 'all(.queues[]; .queue | type == "number")'
	done
	use_tree nobql
	bq -j check veth0
	shape '.queues | length == 1 and (.[0] | .name == "veth0" and .ifname == "veth0" and .queue == null)'
	shape '.queues[0] | keys_unsorted[0:3] == ["name", "ifname", "queue"]'
	generic '.queues[]'
}

@test "shape: top -b -j: queues named as in show, device counters under stats as in show" {
	use_tree multi
	bq -j top -b -c 2 -d 0.1
	assert_success
	all=$output
	[ "$(wc -l <<<"$all")" -eq 2 ]
	while IFS= read -r line; do
		output=$line
		generic '.devices[].queues[]'
		shape '[.devices[] | ., .queues[]] | no_loose_counters'
		shape 'all(.devices[]; .stats | keys == ["tx_bytes", "tx_dropped", "tx_errors", "tx_packets"])'
		shape 'all(.devices[]; .ifname as $d | all(.queues[]; .ifname == $d))'
	done <<<"$all"
	# the same names, queue for queue, as show -j
	top=$(tail -n 1 <<<"$all" | jq -c '[.devices[].queues[] | [.name, .ifname, .queue]]')
	bq -j show
	assert_equal "$(jq -c '[.[].queues[] | [.name, .ifname, .queue]]' <<<"$output")" "$top"
}

@test "shape: set, reset and apply -j (dry runs) and apply --check -j: every row named" {
	use_tree multi
	bq -j set --dry-run eth0:1-2 wlan0 limit_min=3028
	assert_success
	generic '.[]'
	shape '[.[] | .name] | unique == ["eth0:tx-1", "eth0:tx-2", "wlan0:tx-0"]'
	bq -j reset --dry-run eth1
	assert_success
	generic '.[]'
	bq -j apply --dry-run "$P/save-tuned.json"
	assert_success
	generic '.[]'
	# a missing device is a device row; a missing queue a queue row
	bq -j apply --check "$P/missing-dev.json"
	assert_failure 1
	generic '.[]'
	shape 'any(.[]; .name == "eth9" and .ifname == "eth9" and .queue == null)'
	bq -j apply --check "$P/extra-queue.json"
	assert_failure 1
	generic '.[]'
	shape '.[0] | .name == "eth1:tx-5" and .ifname == "eth1" and .queue == 5'
}

@test "shape: replay -j of the examples: name, ifname, queue as DESIGN.md has them" {
	for t in "$EXAMPLES"/*.bqlt; do
		bqx -j replay "$t"
		assert_success
		generic '.queues[]'
		shape 'all(.queues[]; .name == "eth0:tx-0" and .ifname == "eth0" and .queue == 0)'
	done
}

@test "shape: replay -j of odd and hostile trace names: ifname and queue only for DEV:tx-N, escaped" {
	T="$BATS_TEST_TMPDIR/n.bqlt"
	{
		printf 'bqltrace 1\n'
		for q in eth0:tx-3 q7 a:b:tx-2 eth0:tx-01 eth0:tx- :tx-1 eth0:tx-1x $'c\xc2\x9b31m:tx-1' $'b\xff:tx-4' $'b\xfe:tx-4' eth1:tx-4294967295 eth1:tx-4294967296; do
			printf 'queue %s\n' "$q"
		done
		printf '1000 eth0:tx-3 Q 1514\n2000 eth0:tx-3 C 1514\n'
	} >"$T"
	bqx -j replay "$T"
	assert_success
	generic '.queues[]'
	shape '[.queues[] | [.name, .ifname, .queue]] == [
		["eth0:tx-3", "eth0", 3], ["q7", null, null], ["a:b:tx-2", "a:b", 2],
		["eth0:tx-01", null, null], ["eth0:tx-", null, null], [":tx-1", null, null],
		["eth0:tx-1x", null, null], ["c\u009b31m:tx-1", "c\u009b31m", 1],
		["b\uefff:tx-4", "b\uefff", 4], ["b\ueffe:tx-4", "b\ueffe", 4],
		["eth1:tx-4294967295", "eth1", 4294967295], ["eth1:tx-4294967296", null, null]]'
	# escaped as every string: no raw C1 byte, no invalid UTF-8
	assert_output --partial '"ifname":"c\u009b31m"'
	assert_output --partial '"ifname":"b\uefff"'
	[[ "$output" != *$'\xc2\x9b'* ]]
	iconv -f UTF-8 -t UTF-8 <<<"$output" >/dev/null
}

@test "shape: sim -j: queues and the queue of each flow named; flows is an array" {
	bqx -j sim --queues 3 --traffic bulk@2 --traffic poisson:100M --duration 0.02
	assert_success
	generic '.queues[]'
	shape '[.queues[] | [.name, .ifname, .queue]] == [["sim:tx-0", "sim", 0], ["sim:tx-1", "sim", 1], ["sim:tx-2", "sim", 2]]'
	shape 'all(.flows[]; named and (.flow | type == "number"))'
	shape '.flows[0] | .name == "sim:tx-2" and .queue == 2'
	shape 'all(.queues[]; .flows | type == "array")'
	shape '.queues[0].limit | keys_unsorted == ["final", "min", "max", "mean"]'
}

@test "shape: tune -j: counts of queues are nqueues keys, never a numeric queues" {
	tn -j tune --duration 0.05
	assert_success
	shape 'lists_are_arrays and queue_keys_named'
	shape '.model.nqueues == 1 and (.model | has("queues") | not)'
	shape 'all(.ensemble[]; .nqueues_busy | type == "number")'
	T="$BATS_TEST_TMPDIR/s.bqlt"
	"$BQLTOOL" sim -q --queues 2 --traffic bulk@1 --duration 0.1 --trace "$T"
	tn -j tune --from "$T" --duration 0.05
	assert_success
	shape 'lists_are_arrays and queue_keys_named'
	shape '.fitted | (.nqueues == 2) and (.nqueues_busy | type == "number")
		and (.nqueues_active | type == "number") and (has("queues") | not)'
	use_tree multi
	tn --sysfs-root "$ROOT" -j tune eth0 --duration 0.05
	assert_success
	shape 'lists_are_arrays and queue_keys_named'
	shape '.device.nqueues == 4 and (.device | has("queues") | not)'
}
