#!/usr/bin/env bats
# bqltool show on fake sysfs trees: text, JSON, selectors, errors.
bats_require_minimum_version 1.5.0
load helpers

@test "show: JSON equals the golden file for each tree" {
	for t in nic1 multi prestall nic64; do
		use_tree "$t"
		bq -p show
		assert_success
		assert_equal "$stderr" ""
		diff -u "$DATA/expected/show-$t.json" <(echo "$output")
	done
}

@test "show: text equals the golden file for each tree" {
	for t in nic1 multi prestall nic64; do
		use_tree "$t"
		bq show
		assert_success
		diff -u "$DATA/expected/show-$t.txt" <(echo "$output")
	done
}

@test "show -j: values equal the files of the tree, key by key" {
	use_tree multi
	bq -j show
	assert_success
	json_ok
	local n=0
	for f in "$ROOT"/class/net/*/queues/tx-*/byte_queue_limits/*; do
		local dev q attr want got
		dev=$(echo "$f" | sed -E 's|.*/net/([^/]+)/queues/.*|\1|')
		q=$(echo "$f" | sed -E 's|.*/tx-([0-9]+)/.*|\1|')
		attr=$(basename "$f")
		want=$(cat "$f")
		got=$(jq -r --arg d "$dev" --argjson q "$q" --arg a "$attr" \
			'.[] | select(.ifname == $d) | .queues[] | select(.queue == $q) | .[$a]' <<<"$output")
		assert_equal "$got" "$want"
		n=$((n + 1))
	done
	# 7 queues x 8 files
	assert_equal "$n" 56
}

@test "show: devices without BQL are skipped by default" {
	use_tree nic1
	bq -j show
	assert_success
	assert_equal "$(jq -r '[.[].ifname] | join(",")' <<<"$output")" "eth0"
}

@test "show: a pre-6.9 kernel has no stall keys and no error" {
	use_tree prestall
	bq -j show
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq '.[0].queues[0] | has("stall_cnt")' <<<"$output")" false
	assert_equal "$(jq '.[0].queues[0] | has("limit")' <<<"$output")" true
}

@test "show: selectors pick exactly the queues asked for" {
	use_tree nic64
	bq -j show ens1f0:0-3,7 ens1f0:tx-9
	assert_success
	assert_equal "$(jq -c '[.[0].queues[].queue]' <<<"$output")" "[0,1,2,3,7,9]"
	bq -j show 'ens*:63'
	assert_success
	assert_equal "$(jq -c '[.[0].queues[].queue]' <<<"$output")" "[63]"
	use_tree multi
	bq -j show eth1 'wl*'
	assert_success
	assert_equal "$(jq -r '[.[].ifname] | join(",")' <<<"$output")" "eth1,wlan0"
	# output keeps ifindex order, whatever the order of the selectors
	bq -j show wlan0 eth0:2
	assert_equal "$(jq -r '[.[].ifname] | join(",")' <<<"$output")" "eth0,wlan0"
}

@test "show: unknown device exits 1 naming it" {
	use_tree multi
	bq show nosuchdev
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "^bqltool: show: nosuchdev: no such device$"
}

@test "show: a named device without BQL exits 1" {
	use_tree multi
	bq show veth0
	assert_failure 1
	assert_regex "$stderr" "veth0: device does not use BQL"
	bq -j show lo
	assert_failure 1
	assert_output ""
}

@test "show: a queue the device does not have exits 1" {
	use_tree multi
	bq show eth1:5
	assert_failure 1
	assert_regex "$stderr" "eth1: no TX queue 5 \\(the device has 2: tx-0..tx-1\\)"
	# every missing queue is named
	bq show eth1:1-4,9
	assert_failure 1
	assert_regex "$stderr" "eth1: no TX queues 2-4,9 \\(the device has 2: tx-0..tx-1\\)"
	bq show wlan0:2
	assert_failure 1
	assert_regex "$stderr" "wlan0: no TX queue 2 \\(the device has 1: tx-0\\)"
}

@test "show: a glob that matches nothing exits 1" {
	use_tree multi
	bq show 'ib*'
	assert_failure 1
	assert_regex "$stderr" "'ib\\*': no device with BQL matches"
}

@test "show: bad selector syntax exits 2 with a hint" {
	use_tree multi
	for sel in 'eth0:' ':1' 'eth0:x' 'eth0:3-1' 'eth0:1,' '../etc' 'abcdefghijklmnop' 'a/b'; do
		bq show "$sel"
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" "selector '"
		assert_regex "$stderr" "Try 'bqltool help show'"
	done
}

@test "show: garbage in a sysfs file exits 1 naming the file" {
	use_tree bad-garbage
	bq -j show
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "eth0:tx-1: limit: invalid value '12abc' in .*/tx-1/byte_queue_limits/limit"
}

@test "show: an empty sysfs file exits 1" {
	use_tree bad-empty
	bq show
	assert_failure 1
	assert_regex "$stderr" "eth0:tx-0: limit_max: invalid value ''"
}

@test "show: a gap in tx-N numbering is reported" {
	use_tree bad-gap
	bq show
	assert_failure 1
	assert_regex "$stderr" "eth0: TX queues in .* are not numbered 0..2"
}

@test "show: no BQL device at all is a warning with empty output" {
	use_tree nobql
	bq show
	assert_success
	assert_output ""
	assert_regex "$stderr" "warning: no network device with byte queue limits found"
	bq -j show
	assert_success
	assert_output "[]"
}

@test "show: a sysfs root that does not exist exits 1" {
	run --separate-stderr "$BQLTOOL" --sysfs-root /nonexistent show
	assert_failure 1
	assert_regex "$stderr" "cannot list network devices in /nonexistent/class/net"
}

@test "show: BQLTOOL_SYSFS_ROOT works like --sysfs-root" {
	use_tree nic1
	BQLTOOL_SYSFS_ROOT="$ROOT" run --separate-stderr "$BQLTOOL" -j show
	assert_success
	assert_equal "$(jq -r '.[0].ifname' <<<"$output")" "eth0"
}

@test "show: the limit is shown as time on the wire when the speed is known" {
	use_tree nic1
	bq show
	# 3028 B at 1000 Mbit/s = 24.2 us
	assert_output --partial "2.96 KiB = 24.2 us"
	use_tree multi
	bq show eth1
	refute_output --partial " = "
}

@test "show: stall_max is jiffies in JSON and ms in text (HZ=250)" {
	use_tree multi
	bq -j show eth0:3
	assert_equal "$(jq '.[0].queues[0].stall_max' <<<"$output")" 6
	bq show eth0:3
	assert_output --partial "24 ms"
	BQLTOOL_HZ=1000 run --separate-stderr "$BQLTOOL" --sysfs-root "$ROOT" show eth0:3
	assert_output --partial " 6 ms"
}

@test "show --format: json, prometheus exclusivity and bad values" {
	use_tree nic1
	bq show --format json
	assert_success
	json_ok
	bq show --format yaml
	assert_failure 2
	assert_regex "$stderr" "unknown format 'yaml'"
	bq -j show --format prometheus
	assert_failure 2
	assert_regex "$stderr" "--format prometheus and -j/-p exclude each other"
	bq -p show --format text
	assert_failure 2
	assert_regex "$stderr" "--format text and -j/-p exclude each other"
	bq -j show --format json
	assert_success
	json_ok
	bq show --bogus
	assert_failure 2
	assert_regex "$stderr" "unknown option '--bogus'"
}

@test "show: -v explains that netlink was not consulted and where HZ came from" {
	use_tree nic1
	bq -v show
	assert_success
	assert_regex "$stderr" "netlink not consulted"
	assert_regex "$stderr" "note: HZ 250 \\(BQLTOOL_HZ\\)"
	BQLTOOL_HZ= BQLTOOL_KCONFIG=/dev/null run --separate-stderr "$BQLTOOL" --sysfs-root "$ROOT" -v show
	assert_regex "$stderr" "note: HZ 250 \\(assumed\\)"
}

@test "a bad BQLTOOL_HZ or an unreadable BQLTOOL_KCONFIG is an error naming it" {
	use_tree nic1
	for v in abc 0 -5 12x 100000; do
		BQLTOOL_HZ=$v run --separate-stderr "$BQLTOOL" --sysfs-root "$ROOT" show
		assert_failure 2
		assert_regex "$stderr" "BQLTOOL_HZ: invalid value '$v' \\(expected the kernel's HZ"
		assert_equal "$output" ""
	done
	BQLTOOL_HZ= BQLTOOL_KCONFIG=/nonexistent run --separate-stderr "$BQLTOOL" --sysfs-root "$ROOT" show
	assert_failure 2
	assert_regex "$stderr" "BQLTOOL_KCONFIG: cannot read '/nonexistent': No such file"
	# help still works
	BQLTOOL_HZ=abc run --separate-stderr "$BQLTOOL" help
	assert_success
}

@test "show --color=always colours the device name, never with JSON" {
	use_tree nic1
	bq --color=always show
	assert_output --partial $'\033[1meth0'
	bq --color=always -j show
	refute_output --partial $'\033['
	NO_COLOR=1 run --separate-stderr "$BQLTOOL" --sysfs-root "$ROOT" --color=auto show
	refute_output --partial $'\033['
}
