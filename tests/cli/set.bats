#!/usr/bin/env bats
# bqltool set and reset on fake sysfs trees: values and units, kernel
# validation per HZ, dry runs, JSON, and all-or-nothing writes with a
# failure injected at every write position.
bats_require_minimum_version 1.5.0
load helpers

# tree_bytes: every regular file of $ROOT with its exact bytes, in one
# process (tree_digest's meaning, faster for the loops below)
tree_bytes() {
	(cd "$ROOT" && find . -type f -print0 | sort -z | xargs -0 -r tail -v -n +1)
}

# f DEV Q ATTR: one BQL file of the tree
f() {
	echo "$ROOT/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}

v() {
	cat "$(f "$@")"
}

# The files `set eth0 limit_min=3000 hold_time=500` writes on "multi", in
# write order (queue by queue, keys as typed).
targets8() {
	local q
	for q in 0 1 2 3; do
		f eth0 $q limit_min
		f eth0 $q hold_time
	done
}

@test "set: the queue lists it prints are selectors: pasted back they select the same queues (#38)" {
	use_tree multi
	bq set --dry-run eth0:0-1,3 eth1:1 limit_max=64K
	assert_success
	assert_line --index 0 "eth0:0-1,3 limit_max: max -> 64.0 KiB"
	assert_line --index 1 "eth1:tx-1 limit_max: max -> 64.0 KiB"
	# the first word of each line, as a selector
	bq -j show $(cut -d' ' -f1 <<<"$output")
	assert_success
	assert_equal "$(jq -c '[.[].queues[].name]' <<<"$output")" '["eth0:tx-0","eth0:tx-1","eth0:tx-3","eth1:tx-1"]'
}

@test "set: a key without its value is named as such, not taken for a device (#38)" {
	use_tree multi
	before=$(tree_digest)
	bq set eth0 limit_max
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "bqltool: set: 'limit_max' is a key without a value: give limit_max=VALUE (e.g. limit_max=64K)
Try 'bqltool help set'."
	bq set eth0 hold_time limit_min=0
	assert_failure 2
	assert_regex "$stderr" "'hold_time' is a key without a value: give hold_time=VALUE \(e.g. hold_time=500ms\)"
	assert_equal "$(tree_digest)" "$before"
}

@test "set: writes every selected queue and prints old -> new (in show's units)" {
	use_tree multi
	bq set eth0 limit_min=3000 hold_time=500
	assert_success
	assert_equal "$stderr" ""
	# the queues of a device that change the same way: one line
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "eth0:0-3 limit_min: 0 B -> 2.93 KiB"
	assert_line --index 1 "eth0:0-3 hold_time: 1000 ms -> 500 ms"
	for q in 0 1 2 3; do
		assert_equal "$(v eth0 $q limit_min)" 3000
		assert_equal "$(v eth0 $q hold_time)" 500
		assert_equal "$(v eth0 $q limit_max)" 1879048192
	done
	# other devices untouched
	assert_equal "$(v eth1 0 limit_min)" 0
	assert_equal "$(v wlan0 0 hold_time)" 1000
}

@test "set, reset: one report line per device, key and change; -v lists every queue" {
	use_tree multi
	bq set 'eth*' hold_time=100ms --dry-run
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "eth0:0-3 hold_time: 1000 ms -> 100 ms"
	assert_line --index 1 "eth1:0-1 hold_time: 1000 ms -> 100 ms"
	bq -v set 'eth*' hold_time=100ms --dry-run
	assert_success
	assert_equal "${#lines[@]}" 6
	assert_line --index 0 "eth0:tx-0 hold_time: 1000 ms -> 100 ms"
	assert_line --index 5 "eth1:tx-1 hold_time: 1000 ms -> 100 ms"
	# queues that change differently, and gaps in the list
	bq set eth0:0,2-3 limit_min=1000
	assert_success
	bq set eth0 limit_min=2000 limit_max=1M --dry-run
	assert_success
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 "eth0:0,2-3 limit_min: 1000 B -> 1.95 KiB"
	assert_line --index 1 "eth0:tx-1 limit_min: 0 B -> 1.95 KiB"
	assert_line --index 2 "eth0:0-3 limit_max: max -> 1.00 MiB"
	# JSON stays one object per queue and key
	bq -j set eth0 limit_min=2000 --dry-run
	assert_success
	assert_equal "$(jq 'length' <<<"$output")" 4
	bq reset eth0:0,2-3
	assert_success
	assert_line --index 0 "eth0:0,2-3 limit_min: 1000 B -> 0 B"
	assert_line --index 1 "eth0:tx-2 stall_max: 16 ms -> 0 ms"
}

@test "set: the file holds exactly what echo would write" {
	use_tree multi
	bq set eth1:1 limit_max=9000
	assert_success
	assert_equal "$(od -An -c "$(f eth1 1 limit_max)" | tr -s ' ')" " 9 0 0 0 \\n"
}

@test "set: selectors, ranges, globs and option placement" {
	use_tree multi
	bq set eth0:1-2 'wl*' limit_max=64K
	assert_success
	assert_equal "$(v eth0 0 limit_max)" 1879048192
	assert_equal "$(v eth0 1 limit_max)" 65536
	assert_equal "$(v eth0 2 limit_max)" 65536
	assert_equal "$(v eth0 3 limit_max)" 1879048192
	assert_equal "$(v wlan0 0 limit_max)" 65536
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "eth0:1-2 limit_max: max -> 64.0 KiB"
	assert_line --index 1 "wlan0:tx-0 limit_max: max -> 64.0 KiB"
	bq set limit_min=1 eth1:tx-1 --dry-run
	assert_success
	assert_output "eth1:tx-1 limit_min: 0 B -> 1 B"
	assert_equal "$(v eth1 1 limit_min)" 0
}

@test "set: byte units, max, and times in ms or s" {
	use_tree multi
	local -A want=(
		[64K]=65536 [64k]=65536 [64KB]=65536 [64KiB]=65536 [1.5M]=1572864
		[1.5MiB]=1572864 [1G]=1073741824 [1514]=1514 [1514B]=1514 [0]=0
		[max]=1879048192 [1.75G]=1879048192 [+7]=7
	)
	for val in "${!want[@]}"; do
		bq set eth1:0 limit_max="$val"
		assert_success
		assert_equal "$(v eth1 0 limit_max)" "${want[$val]}"
	done
	local -A ms=([500]=500 [500ms]=500 [1s]=1000 [1.5s]=1500 [2000us]=2 [0]=0)
	for val in "${!ms[@]}"; do
		bq set eth1:0 hold_time="$val"
		assert_success
		assert_equal "$(v eth1 0 hold_time)" "${ms[$val]}"
	done
	bq set eth1:0 stall_thrs=100ms
	assert_success
	assert_equal "$(v eth1 0 stall_thrs)" 100
	bq set eth1:0 stall_thrs=0
	assert_success
	assert_equal "$(v eth1 0 stall_thrs)" 0
}

@test "set: limit can be written, with max" {
	use_tree multi
	bq set eth1:0 limit=max
	assert_success
	assert_output "eth1:tx-0 limit: 2.96 KiB -> 1.75 GiB"
	assert_equal "$(v eth1 0 limit)" 1879048192
}

@test "set -j: an array of {name, ifname, queue, key, old, new, changed}" {
	use_tree multi
	bq -j set eth1 limit_min=1514 limit_max=max
	assert_success
	assert_equal "$stderr" ""
	json_ok
	assert_equal "$output" '[{"name":"eth1:tx-0","ifname":"eth1","queue":0,"key":"limit_min","old":0,"new":1514,"changed":true},{"name":"eth1:tx-0","ifname":"eth1","queue":0,"key":"limit_max","old":1879048192,"new":1879048192,"changed":false},{"name":"eth1:tx-1","ifname":"eth1","queue":1,"key":"limit_min","old":0,"new":1514,"changed":true},{"name":"eth1:tx-1","ifname":"eth1","queue":1,"key":"limit_max","old":1879048192,"new":1879048192,"changed":false}]'
	bq -p set eth1 limit_min=1514
	assert_success
	json_ok
	assert_equal "$(jq -c '[.[] | .changed]' <<<"$output")" "[false,false]"
	assert_line '    "ifname": "eth1",'
}

@test "set: a value already in place is not written" {
	use_tree multi
	bq -v set eth0:0 limit_min=0 hold_time=1000 limit_max=max
	assert_success
	assert_line "eth0:tx-0 limit_min: 0 B (unchanged)"
	assert_line "eth0:tx-0 limit_max: max (unchanged)"
	assert_line "eth0:tx-0 hold_time: 1000 ms (unchanged)"
	# without -v only changes are listed; nothing to change is said once
	bq set eth0:0 limit_min=0 hold_time=1000 limit_max=max
	assert_success
	assert_equal "$output" ""
	assert_equal "$stderr" "bqltool: set: nothing to change: every value is in place (-v lists them)"
}

@test "set, reset and apply print the changes; -v everything; -q nothing" {
	use_tree multi
	bq set eth0:0 limit_min=3000 hold_time=1000 limit_max=max
	assert_success
	assert_output "eth0:tx-0 limit_min: 0 B -> 2.93 KiB"
	bq -q set eth0:0 limit_min=1000
	assert_failure 2	# -q is not a global option
	bq set -q eth0:0 limit_min=1000
	assert_success
	assert_equal "$output" ""
	assert_equal "$stderr" ""
	assert_equal "$(v eth0 0 limit_min)" 1000
	bq reset --quiet eth0:0
	assert_success
	assert_equal "$output" ""
	bq save -o "$BATS_TEST_TMPDIR/p.json" eth0
	bq set eth0:1 limit_min=3000
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_output "eth0:tx-1 limit_min: 2.93 KiB -> 0 B"
	bq set eth0:1 limit_min=3000
	bq apply -v "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_line "eth0:tx-1 limit_min: 2.93 KiB -> 0 B"
	assert_line "eth0:tx-0 limit_max: max (unchanged)"
	bq set eth0:1 limit_min=3000
	bq apply -q "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_equal "$output" ""
	assert_equal "$(v eth0 1 limit_min)" 0
	# JSON lists every file, changed or not
	bq -j apply "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_equal "$(jq '[.[] | select(.changed)] | length' <<<"$output")" 0
	[ "$(jq 'length' <<<"$output")" -gt 4 ]
}

@test "set --dry-run: prints old -> new and writes nothing" {
	use_tree multi
	before=$(tree_bytes)
	bq set --dry-run eth0 'w*' limit_min=3000 stall_thrs=20ms
	assert_success
	assert_equal "${#lines[@]}" 4
	assert_line "eth0:0-3 stall_thrs: off -> 20 ms"
	assert_line "wlan0:tx-0 limit_min: 0 B -> 2.93 KiB"
	assert_regex "$stderr" "dry run: nothing was written"
	assert_equal "$(tree_bytes)" "$before"
	bq -j set eth0 limit_min=3000 --dry-run
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq 'length' <<<"$output")" 4
	# a dry run says so in JSON too; values keep sysfs units
	assert_equal "$(jq -c '[.[] | .dry_run] | unique' <<<"$output")" '[true]'
	assert_equal "$(jq -c '.[0] | [.old, .new, .changed]' <<<"$output")" '[0,3000,true]'
	assert_equal "$(tree_bytes)" "$before"
	# a real run has no dry_run key
	bq -j set eth0:0 limit_min=3000
	assert_success
	assert_equal "$(jq -c '.[0] | has("dry_run")' <<<"$output")" false
}

@test "set: bad values exit 2 naming the value; nothing written" {
	use_tree multi
	before=$(tree_bytes)
	local -a cases=(
		"limit_min=-5|limit_min: invalid value '-5': must not be negative"
		"limit_max=64X|limit_max: invalid value '64X': unknown unit"
		"limit_max=abc|limit_max: invalid value 'abc'"
		"limit_max=1.1|limit_max: invalid value '1.1': not a whole number of bytes"
		"limit_max=1879048193|limit_max=1879048193: 1879048193 bytes is above the kernel's maximum 1879048192"
		"limit_min=4294967295|limit_min=4294967295: 4294967295 bytes is above the kernel's maximum"
		"limit=2G|limit=2G: 2147483648 bytes is above the kernel's maximum"
		"limit_max=99999999999999999999|limit_max: invalid value '99999999999999999999': too large"
		"limit_max=309485009.821348883422046681T|invalid value '309485009.821348883422046681T': too large"
		"limit_max=MAX|limit_max: invalid value 'MAX'"
		"hold_time=-1|hold_time: invalid value '-1': must not be negative"
		"hold_time=1.5ms|hold_time: invalid value '1.5ms': not a whole number of milliseconds"
		"hold_time=5d|hold_time: invalid value '5d': unknown unit"
		"hold_time=max|hold_time: invalid value 'max'"
		"hold_time=4294967296|hold_time=4294967296: 4294967296 ms is above the kernel's maximum 4294967295"
		"stall_thrs=1|stall_thrs=1: 1 ms is 1 jiffy, outside the kernel's stall_thrs window of 4..128 jiffies: with HZ=250 use 0 \\(off\\) or 13..512 ms"
		"stall_thrs=12ms|stall_thrs=12ms: 12 ms is 3 jiffies, outside .* 13..512 ms"
		"stall_thrs=513|stall_thrs=513: 513 ms is 129 jiffies, outside"
		"stall_thrs=1s|stall_thrs=1s: 1000 ms is 250 jiffies, outside"
		"limit_min=|'limit_min=': missing value after '='"
		"=5|'=5': missing key before '='"
		"foo=5|'foo=5': unknown key 'foo' \\(expected limit_min, limit_max, hold_time, stall_thrs, limit or stall_max=0\\)"
		"inflight=5|'inflight=5': inflight is read-only"
		"stall_max=5|stall_max=5: stall_max can only be cleared: write 0 \\(the kernel sets it to 0 whatever is written\\)"
		"stall_max=abc|stall_max=abc: stall_max can only be cleared: write 0"
		"stall_cnt=0|stall_cnt is read-only"
	)
	for c in "${cases[@]}"; do
		arg=${c%%|*} re=${c#*|}
		bq set eth0 "$arg"
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" "^bqltool: set: .*$re"
		assert_regex "$stderr" "Try 'bqltool help set'"
	done
	# a valid value next to a bad one is not written either
	bq set eth0 limit_min=4000 stall_thrs=1
	assert_failure 2
	assert_regex "$stderr" "stall_thrs=1: 1 ms is 1 jiffy"
	bq set eth0 stall_thrs=1 limit_min=4000
	assert_failure 2
	assert_equal "$(tree_bytes)" "$before"
}

@test "set: usage errors exit 2" {
	use_tree multi
	bq set eth0
	assert_failure 2
	assert_regex "$stderr" "nothing to set: give key=value"
	bq set limit_min=5
	assert_failure 2
	assert_regex "$stderr" "which queues\\? give a selector"
	bq set
	assert_failure 2
	bq set eth0 limit_min=5 limit_min=6
	assert_failure 2
	assert_regex "$stderr" "'limit_min=6': limit_min is given twice"
	bq set --bogus eth0 limit_min=5
	assert_failure 2
	assert_regex "$stderr" "unknown option '--bogus'"
	bq set 'eth0:9-' limit_min=5
	assert_failure 2
	assert_regex "$stderr" "selector 'eth0:9-'"
	bq -j set eth0 limit_min=x
	assert_failure 2
	assert_output ""
}

@test "set: the stall_thrs window follows HZ" {
	use_tree multi
	for c in 100:31:1280 250:13:512 300:11:427 1000:4:128; do
		IFS=: read -r hz lo hi <<<"$c"
		BQLTOOL_HZ=$hz bq set eth1:0 stall_thrs=$((lo - 1))
		assert_failure 2
		assert_regex "$stderr" "with HZ=$hz use 0 \\(off\\) or $lo..$hi ms"
		BQLTOOL_HZ=$hz bq set eth1:0 stall_thrs=$((hi + 1))
		assert_failure 2
		BQLTOOL_HZ=$hz bq set eth1:0 stall_thrs=$lo
		assert_success
		BQLTOOL_HZ=$hz bq set eth1:0 stall_thrs=$hi
		assert_success
	done
}

@test "set: warns when a ms value will read back rounded" {
	use_tree multi
	bq set eth1:0 hold_time=1001
	assert_success
	assert_output "eth1:tx-0 hold_time: 1000 ms -> 1004 ms"
	assert_regex "$stderr" "^bqltool: warning: hold_time=1001: the kernel keeps hold_time in jiffies \\(HZ=250\\): 1001 ms is 251 jiffies and will read back as 1004 ms$"
	# HZ=300: 4 ms is what 1 jiffy reads as; 3 is written so that it does
	BQLTOOL_HZ=300 bq set eth1:1 hold_time=4
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(v eth1 1 hold_time)" 3
}

@test "set shares check's rules: limit_min > limit_max refused unless --force" {
	use_tree multi
	before=$(tree_bytes)
	bq set eth0 limit_min=5000 limit_max=3000
	assert_failure 2
	assert_regex "$stderr" "set: eth0:tx-0 \\(and 3 other queues\\): limit_min 4\\.88 KiB > limit_max 2\\.93 KiB contradict each other: .*(limit_min wins|limit_max wins).*'bqltool check' fails this, so it is refused \\(--force writes it anyway\\)"
	assert_equal "$output" ""
	assert_equal "$(tree_bytes)" "$before"
	bq set --dry-run eth0 limit_min=5000 limit_max=3000
	assert_failure 2
	bq set --force eth0 limit_min=5000 limit_max=3000
	assert_success
	assert_regex "$stderr" "warning: eth0:tx-0 \\(and 3 other queues\\): limit_min 4\\.88 KiB > limit_max 2\\.93 KiB.*\\('bqltool check' fails this\\)"
	assert_equal "$(v eth0 3 limit_min)" 5000
	# check fails what set refused
	bq check eth0:3
	assert_failure 1
	# the final state counts, including values not being set
	bq set eth0 limit_max=max
	assert_success
	assert_equal "$stderr" ""
	bq set eth1:1 limit_max=2000
	assert_success
	assert_equal "$stderr" ""
	bq set eth1:1 limit_min=3000
	assert_failure 2
	assert_regex "$stderr" "eth1:tx-1: limit_min 2\\.93 KiB > limit_max 1\\.95 KiB"
}

@test "set shares check's rules: limit_max below one frame warns, as check does" {
	use_tree multi
	bq set eth1:1 limit_max=1000
	assert_success
	assert_regex "$stderr" "warning: eth1:tx-1: limit_max 1000 B is below one full-size frame \\(MTU 1500 \\+ 14\\)"
	assert_equal "$(v eth1 1 limit_max)" 1000
	bq check eth1:1
	assert_output --partial "limit_max 1000 B is below one full-size frame (MTU 1500 + 14)"
	bq set eth1:1 limit_max=1514
	assert_success
	assert_equal "$stderr" ""
}

@test "set: runtime errors exit 1 and write nothing" {
	use_tree multi
	before=$(tree_bytes)
	bq set nosuch0 limit_min=5
	assert_failure 1
	assert_regex "$stderr" "nosuch0: no such device"
	bq set eth1:2 limit_min=5
	assert_failure 1
	assert_regex "$stderr" "eth1: no TX queue 2"
	bq set veth0 limit_min=5
	assert_failure 1
	assert_regex "$stderr" "veth0: device does not use BQL"
	assert_equal "$(tree_bytes)" "$before"
}

@test "set: stall_thrs on a kernel without the stall detector" {
	use_tree prestall
	before=$(tree_bytes)
	bq set eth0 limit_min=100 stall_thrs=100
	assert_failure 1
	assert_regex "$stderr" "eth0:tx-0: stall_thrs: not supported by this kernel \\(the stall detector needs Linux 6.9 or later\\)"
	assert_equal "$(tree_bytes)" "$before"
	# stall_thrs=0 is what such a kernel does anyway
	bq set eth0 limit_min=100 stall_thrs=0
	assert_success
	refute_output --partial stall_thrs
	assert_equal "$(v eth0 1 limit_min)" 100
}

@test "set: a file that cannot be read: exit 1, nothing written" {
	for kind in dir devfull garbage; do
		use_tree multi
		t=$(f eth0 2 hold_time)
		case $kind in
		dir) rm "$t"; mkdir "$t" ;;
		devfull) rm "$t"; ln -s /dev/full "$t" ;;
		garbage) echo 12abc > "$t" ;;
		esac
		before=$(tree_bytes)
		bq set eth0 limit_min=3000 hold_time=500
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "eth0:tx-2: hold_time"
		assert_equal "$(tree_bytes)" "$before"
	done
}

@test "set: a write failing at any position undoes the earlier ones" {
	use_tree multi
	mapfile -t targets < <(targets8)
	assert_equal "${#targets[@]}" 8
	for k in 0 1 2 3 4 5 6 7; do
		use_tree multi
		# readable, but the kernel refuses any write (EINVAL)
		before=$(tree_bytes)
		bq_refusing "${targets[$k]}" set eth0 limit_min=3000 hold_time=500
		assert_failure 1
		assert_output ""
		attr=$(basename "${targets[$k]}")
		assert_regex "$stderr" "bqltool: set: eth0:tx-$((k / 2)): $attr: cannot write [0-9]+ to .*: Invalid argument"
		if [ "$k" -eq 0 ]; then
			assert_regex "$stderr" "bqltool: set: nothing was changed"
		else
			assert_regex "$stderr" "undid the $k earlier writes?: nothing was changed"
		fi
		assert_equal "$(tree_bytes)" "$before"
	done
}

@test "set: without write permission, one message and nothing written" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	pub=$(mktemp -d /tmp/bqlt-perm.XXXXXX)
	cp -a "$DATA/sysfs/multi/." "$pub/"
	chmod -R a+rX "$pub"
	chmod 755 "$pub"
	ROOT=$pub
	before=$(tree_bytes)
	if [ "$(id -u)" -eq 0 ]; then
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$BQLTOOL" --sysfs-root "$pub" set eth0 limit_min=3000 hold_time=500
	else
		chmod -R a-w "$pub/class/net/eth0/queues"
		bq set eth0 limit_min=3000 hold_time=500
	fi
	assert_failure 1
	assert_output ""
	assert_equal "$(echo "$stderr" | wc -l)" 1
	assert_regex "$stderr" "^bqltool: set: eth0:tx-0: limit_min: permission denied \\(.*\\) and more: changing BQL settings needs root; nothing was written$"
	assert_equal "$(tree_bytes)" "$before"
	# values already in place need no write, so no permission
	if [ "$(id -u)" -eq 0 ]; then
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$BQLTOOL" --sysfs-root "$pub" -v set eth0 limit_min=0 hold_time=1s
	else
		bq -v set eth0 limit_min=0 hold_time=1s
	fi
	assert_success
	assert_line "eth0:tx-3 hold_time: 1000 ms (unchanged)"
	chmod -R u+w "$pub"
	rm -rf "$pub"
}

@test "reset: writes the kernel defaults" {
	use_tree tuned
	bq reset eth0 eth1
	assert_success
	assert_line "eth0:0-1,3 limit_min: 1.48 KiB -> 0 B"
	assert_line "eth0:tx-2 limit_min: 2.96 KiB -> 0 B"
	assert_line "eth0:0-3 limit_max: 64.0 KiB -> max"
	assert_line "eth0:0-3 hold_time: 500 ms -> 1000 ms"
	assert_line "eth0:0-3 stall_thrs: 20 ms -> off"
	refute_line --partial "unchanged"
	# stall_max is cleared, as at boot (6 jiffies at HZ 250 = 24 ms)
	assert_line "eth0:tx-3 stall_max: 24 ms -> 0 ms"
	for q in 0 1 2 3; do
		assert_equal "$(v eth0 $q limit_min)" 0
		assert_equal "$(v eth0 $q limit_max)" 1879048192
		assert_equal "$(v eth0 $q hold_time)" 1000
		assert_equal "$(v eth0 $q stall_thrs)" 0
		assert_equal "$(v eth0 $q stall_max)" 0
	done
	bq -j reset eth0
	assert_success
	assert_equal "$(jq '[.[] | select(.changed)] | length' <<<"$output")" 0
	assert_equal "$(jq 'length' <<<"$output")" 20
}

@test "reset: dry run, kernels without stall_thrs, usage errors" {
	use_tree tuned
	before=$(tree_bytes)
	bq reset --dry-run eth0:2
	assert_success
	assert_equal "${#lines[@]}" 5
	assert_line "eth0:tx-2 limit_min: 2.96 KiB -> 0 B"
	assert_equal "$(tree_bytes)" "$before"
	bq reset eth0 limit_min=0
	assert_failure 2
	assert_regex "$stderr" "reset takes no values"
	bq reset
	assert_failure 2
	assert_regex "$stderr" "which queues"
	assert_equal "$(tree_bytes)" "$before"
	use_tree prestall
	echo 777 > "$(f eth0 1 limit_min)"
	bq reset eth0
	assert_success
	assert_equal "$(v eth0 1 limit_min)" 0
	refute_output --partial stall_thrs
}

@test "reset: a write failing at any position undoes the earlier ones" {
	use_tree tuned
	mapfile -t targets < <(for q in 0 1 2 3; do for a in limit_min limit_max hold_time stall_thrs; do f eth0 $q $a; done; done)
	for k in 0 5 10 15; do
		use_tree tuned
		before=$(tree_bytes)
		bq_refusing "${targets[$k]}" reset eth0
		assert_failure 1
		assert_equal "$(tree_bytes)" "$before"
	done
}

@test "set and reset are listed in help with their synopsis" {
	bqx help
	assert_success
	assert_output --partial "  set "
	assert_output --partial "  reset "
	bqx help set
	assert_success
	assert_output --partial "Usage: bqltool [GLOBAL OPTIONS] set [--dry-run] [--force] [--wait] [-q] SEL... KEY=VALUE..."
	assert_output --partial "DQL moves it again at the next completion"
	bqx reset -h
	assert_success
	assert_output --partial "reset [--dry-run] [--wait] [-q] SEL..."
}

@test "set: hold_time=1m is refused as ambiguous; 1min is a minute" {
	use_tree multi
	bq set --dry-run eth0:0 hold_time=1m
	assert_failure 2
	assert_regex "$stderr" "hold_time: invalid value '1m': ambiguous unit 'm' \\(write 'min' for minutes, 'ms' for milliseconds\\)"
	bq set --dry-run eth0:0 hold_time=1min
	assert_success
	assert_output "eth0:tx-0 hold_time: 1000 ms -> 60 s"
}

@test "set, top, check, sim: tc's time spellings (msec, sec) mean what they do in tc" {
	use_tree multi
	bq set --dry-run eth0:0 hold_time=500msec
	assert_success
	assert_output "eth0:tx-0 hold_time: 1000 ms -> 500 ms"
	bq set --dry-run eth0:0 hold_time=2sec
	assert_success
	assert_output "eth0:tx-0 hold_time: 1000 ms -> 2000 ms"
	bq -j top -c 2 -d 50msec
	assert_success
	jq -s -e '.[1].interval_ns >= 50000000' <<<"$output" >/dev/null
	bq check --interval 50msec eth0
	[[ "$stderr" != *"invalid value"* ]]
	bqx -j sim --duration 20msec
	assert_success
	assert_equal "$(jq .duration_ns <<<"$output")" 20000000
	bqx -j sim --duration 2min --link 10M
	assert_success
	assert_equal "$(jq .duration_ns <<<"$output")" 120000000000
	# a day at most, for every interval
	bq -j top -c 1 -d 25h
	assert_failure 2
	assert_regex "$stderr" "-d: invalid value '25h': too large"
}

@test "set: stall_max=0 clears the longest stall; only 0 is meaningful" {
	use_tree multi
	assert_equal "$(v eth0 1 stall_max)" 2
	bq set eth0:1 stall_max=0
	assert_success
	assert_output "eth0:tx-1 stall_max: 8 ms -> 0 ms"
	assert_equal "$(v eth0 1 stall_max)" 0
	bq -v set eth0:1 stall_max=0
	assert_output "eth0:tx-1 stall_max: 0 ms (unchanged)"
	bq set eth0:2 stall_max=5
	assert_failure 2
	assert_regex "$stderr" "stall_max can only be cleared: write 0"
	assert_equal "$(v eth0 2 stall_max)" 4
}
