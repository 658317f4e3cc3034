#!/usr/bin/env bats
# bqltool save and apply on fake sysfs trees: the profile format, atomic
# files, save -> change -> apply, --check, --missing, --only, bad profiles
# (nothing written, the JSON path named) and rollback.
bats_require_minimum_version 1.5.0
load helpers

# tree_bytes: every regular file of $ROOT with its exact bytes, in one
# process (tree_digest's meaning, faster for the loops below)
tree_bytes() {
	(cd "$ROOT" && find . -type f -print0 | sort -z | xargs -0 -r tail -v -n +1)
}

P="$BATS_TEST_DIRNAME/../data/profiles"

f() {
	echo "$ROOT/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}

v() {
	cat "$(f "$@")"
}

# the informational keys vary with the host and the version
norm() {
	jq -S 'del(.kernel, .bqltool_version)'
}

@test "save: the profile of each tree equals its golden file" {
	for t in tuned multi prestall; do
		use_tree "$t"
		bq save
		assert_success
		assert_equal "$stderr" ""
		diff -u <(norm <"$P/save-$t.json") <(norm <<<"$output")
	done
}

@test "save: version, kernel, hz and the bqltool version are recorded" {
	use_tree multi
	bq save
	assert_success
	assert_equal "$(jq '.bqltool_profile' <<<"$output")" 1
	assert_equal "$(jq -r '.kernel' <<<"$output")" "$(uname -r)"
	assert_equal "$(jq '.hz' <<<"$output")" 250
	BQLTOOL_HZ=300 bq save
	assert_equal "$(jq '.hz' <<<"$output")" 300
	bqx -V
	assert_equal "$(jq -r '.bqltool_version' <<<"$(BQLTOOL_HZ=250 "$BQLTOOL" --sysfs-root "$ROOT" save)")" "${output#bqltool }"
}

@test "save: one entry for all queues only when every queue is selected and equal" {
	use_tree tuned
	bq save eth1 eth0
	assert_success
	# ifindex order, whatever the selector order
	assert_equal "$(jq -c '.devices | keys_unsorted' <<<"$output")" '["eth0","eth1"]'
	assert_equal "$(jq -c '.devices.eth1 | keys' <<<"$output")" '["all"]'
	assert_equal "$(jq -c '[.devices.eth0.queues[].queue]' <<<"$output")" '[0,1,2,3]'
	# a subset is listed queue by queue even when equal
	bq save eth1:1 eth0:0-1
	assert_success
	assert_equal "$(jq -c '[.devices.eth1.queues[].queue]' <<<"$output")" '[1]'
	assert_equal "$(jq -c '[.devices.eth0.queues[].queue]' <<<"$output")" '[0,1]'
	# JSON flags do not change it: a profile is JSON
	bq save eth0:0-1 eth1:1
	a=$output
	bq -j save eth0:0-1 eth1:1
	assert_equal "$output" "$a"
	bq -p save eth0:0-1 eth1:1
	assert_equal "$output" "$a"
}

@test "save -o: written atomically, same content, mode from the umask" {
	use_tree tuned
	dir=$BATS_TEST_TMPDIR/out
	mkdir "$dir"
	bq save
	want=$output
	(umask 022 && "$BQLTOOL" --sysfs-root "$ROOT" save -o "$dir/p.json")
	assert_equal "$(cat "$dir/p.json")" "$want"
	assert_equal "$(stat -c %a "$dir/p.json")" 644
	echo old > "$dir/q.json"
	bq save --output "$dir/q.json" eth1
	assert_success
	assert_output ""
	assert_equal "$(jq -c '.devices | keys' "$dir/q.json")" '["eth1"]'
	assert_equal "$(ls -A "$dir" | sort | tr '\n' ' ')" "p.json q.json "
	bq save -o "$BATS_TEST_TMPDIR/nodir/p.json"
	assert_failure 1
	assert_regex "$stderr" "nodir/p.json: cannot create a temporary file in .*nodir: No such file or directory"
	bq save -o
	assert_failure 2
	assert_regex "$stderr" "option '-o' needs an argument"
	bq save nosuch0
	assert_failure 1
	assert_regex "$stderr" "nosuch0: no such device"
	assert_output ""
}

@test "save -o: a symlink's target is replaced; a FIFO or device is written, not replaced" {
	use_tree tuned
	dir=$BATS_TEST_TMPDIR/out
	mkdir "$dir"
	bq save
	want=$output
	echo old > "$dir/real.json"
	ln -s real.json "$dir/link"
	bq save -o "$dir/link"
	assert_success
	[ -L "$dir/link" ]
	assert_equal "$(cat "$dir/real.json")" "$want"
	mkfifo "$dir/fifo"
	timeout 10 cat "$dir/fifo" >"$dir/fifo.out" &
	bq save -o "$dir/fifo"
	assert_success
	wait
	[ -p "$dir/fifo" ]
	assert_equal "$(cat "$dir/fifo.out")" "$want"
	# a private copy of /dev/null: `save -o /dev/null` must not replace it
	if [ "$(id -u)" = 0 ] && mknod "$dir/null" c 1 3 2>/dev/null; then
		bq save -o "$dir/null"
		assert_success
		[ -c "$dir/null" ]
	fi
	[ ! -w /dev/full ] || {
		bq save -o /dev/full
		assert_failure 1
		assert_equal "$stderr" "bqltool: save: /dev/full: write error: No space left on device"
	}
	# no temporary file left behind
	assert_equal "$(ls -A "$dir" | grep -c '^\.')" 0
}

@test "save -> change -> apply restores the tree byte for byte" {
	use_tree tuned
	before=$(tree_bytes)
	bq save -o "$BATS_TEST_TMPDIR/p.json"
	assert_success
	bq reset eth0 eth1
	assert_success
	# reset cleared stall_max, which is history, not a setting: put it back
	for f in $(cd "$DATA/sysfs/tuned" && find . -name stall_max); do
		cp "$DATA/sysfs/tuned/$f" "$ROOT/$f"
	done
	bq set eth1 limit_min=100 hold_time=2s stall_thrs=100
	assert_success
	assert_not_equal "$(tree_bytes)" "$before"
	bq -v apply "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_line "eth0:tx-2 limit_min: 0 B -> 2.96 KiB"
	assert_line "eth1:tx-1 hold_time: 2000 ms -> 1000 ms"
	assert_line "eth1:tx-0 limit_max: max (unchanged)"
	assert_equal "$(tree_bytes)" "$before"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_output ""
}

@test "apply --check: exit 1 listing each difference, 0 when equal" {
	use_tree tuned
	bq save -o "$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_output ""
	# nothing to change is said, on stderr (standard output stays for the differences)
	assert_regex "$stderr" "^bqltool: apply: the live state matches .*/p.json: every value in place \([0-9]+ queues of [0-9]+ devices\)$"
	bq apply --check -q "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_equal "$stderr" ""
	bq -j apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
	assert_equal "$stderr" ""
	bq set eth0:2 limit_min=1514
	bq set eth1 stall_thrs=100
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	assert_equal "${#lines[@]}" 3
	assert_line "eth0:tx-2 limit_min: 1.48 KiB, profile 2.96 KiB"
	assert_line "eth1:tx-0 stall_thrs: 100 ms, profile off"
	assert_line "eth1:tx-1 stall_thrs: 100 ms, profile off"
	bq -j apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.[0]' <<<"$output")" '{"name":"eth0:tx-2","ifname":"eth0","queue":2,"key":"limit_min","live":1514,"profile":3028}'
	assert_equal "$(jq 'length' <<<"$output")" 3
	# nothing was written by the checks
	assert_equal "$(v eth0 2 limit_min)" 1514
}

@test "apply --check: absent devices and queues are differences" {
	use_tree multi
	bq apply --check "$P/missing-dev.json"
	assert_failure 1
	assert_line "eth9: not present"
	assert_line "eth0:tx-0 limit_max: max, profile 64.0 KiB"
	bq apply --check --missing=skip "$P/missing-dev.json"
	assert_failure 1
	refute_line "eth9: not present"
	bq -j apply --check "$P/extra-queue.json"
	assert_failure 1
	assert_equal "$(jq -c '.[0]' <<<"$output")" '{"name":"eth1:tx-5","ifname":"eth1","queue":5,"problem":"not present"}'
	bq apply --check "$P/nobql.json"
	assert_failure 1
	assert_line "veth0: does not use BQL"
	# a queue the device gained (ethtool -L): an "all" entry covers it
	use_tree tuned
	bq save -o "$BATS_TEST_TMPDIR/p.json" eth1
	cp -a "$ROOT/class/net/eth1/queues/tx-1" "$ROOT/class/net/eth1/queues/tx-2"
	echo 5000 > "$(f eth1 2 limit_min)"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	assert_output "eth1:tx-2 limit_min: 4.88 KiB, profile 0 B"
}

@test "apply --dry-run writes nothing" {
	use_tree multi
	before=$(tree_bytes)
	bq apply --dry-run "$P/save-tuned.json"
	assert_success
	assert_line "eth0:tx-2 limit_min: 0 B -> 2.96 KiB"
	assert_regex "$stderr" "dry run: nothing was written"
	bq -j apply --dry-run "$P/save-tuned.json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq '[.[] | select(.changed)] | length' <<<"$output")" 16
	assert_equal "$(tree_bytes)" "$before"
}

@test "apply: partial entries change only their keys; JSON output" {
	use_tree multi
	export BQLTOOL_HZ=1000	# as saved: no ms value rounds
	bq -j apply "$P/partial.json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '[.[] | [.ifname, .queue, .key, .old, .new, .changed]]' <<<"$output")" \
		'[["eth1",0,"limit_max",1879048192,131072,true],["eth1",0,"hold_time",1000,250,true],["eth1",1,"limit_max",1879048192,131072,true],["eth1",1,"hold_time",1000,250,true],["wlan0",0,"limit_min",0,3028,true],["wlan0",0,"stall_thrs",0,100,true]]'
	assert_equal "$(v eth1 1 limit_max)" 131072
	assert_equal "$(v eth1 1 limit_min)" 0
	assert_equal "$(v wlan0 0 stall_thrs)" 100
	assert_equal "$(v eth0 0 limit_max)" 1879048192
}

@test "apply: a profile on standard input" {
	use_tree multi
	run --separate-stderr timeout 10 "$BQLTOOL" --sysfs-root "$ROOT" apply - <"$P/partial.json"
	assert_success
	assert_equal "$(v eth1 0 hold_time)" 250
	run --separate-stderr timeout 10 "$BQLTOOL" --sysfs-root "$ROOT" apply - <"$P/bad-version.json"
	assert_failure 2
	assert_regex "$stderr" "^bqltool: apply: <stdin>: bqltool_profile: version 2 is not supported"
}

@test "apply: bad profiles exit 2 naming the JSON path; nothing written" {
	use_tree multi
	before=$(tree_bytes)
	local -a cases=(
		"bad-type.json|devices.eth0.queues\\[3\\].limit_max: expected an unsigned integer, not a string"
		"bad-truncated.json|line 9, column 3: truncated JSON"
		"bad-version.json|bqltool_profile: version 2 is not supported \\(this bqltool reads version 1\\)"
		"bad-notjson.json|line 1, column 1: expected a JSON object"
		"bad-nokey.json|bqltool_profile: missing: not a bqltool profile"
		"bad-syntax.json|line 4, column 44: invalid JSON: unexpected character"
		"bad-range.json|devices.eth1.all.limit_max: 1879048193 bytes is above the kernel's maximum 1879048192"
		"bad-stall.json|devices.eth1.queues\\[0\\].stall_thrs: 5 ms is 2 jiffies, outside .* 13..512 ms"
		"bad-limit.json|devices.eth0.all.limit: not a profile setting"
	)
	for c in "${cases[@]}"; do
		file=${c%%|*} re=${c#*|}
		for mode in "" --check --dry-run; do
			bq apply $mode "$P/$file"
			assert_failure 2
			assert_output ""
			assert_regex "$stderr" "^bqltool: apply: .*$file: $re"
		done
	done
	# a profile that cannot be read is a runtime failure (1), as in replay
	bq apply "$BATS_TEST_TMPDIR/none.json"
	assert_failure 1
	assert_regex "$stderr" "none.json: cannot open: No such file or directory"
	refute_regex "$stderr" "Try 'bqltool help"
	bq apply "$BATS_TEST_TMPDIR"
	assert_failure 1
	assert_regex "$stderr" "cannot read: Is a directory"
	assert_equal "$(tree_bytes)" "$before"
}

@test "apply: absent devices are an error, or skipped with --missing=skip" {
	use_tree multi
	before=$(tree_bytes)
	bq apply "$P/missing-dev.json"
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "missing-dev.json: devices.eth9: no such device \\(--missing=skip skips absent devices\\)"
	assert_equal "$(tree_bytes)" "$before"
	bq apply --missing=error "$P/missing-dev.json"
	assert_failure 1
	bq apply --missing=skip "$P/missing-dev.json"
	assert_success
	assert_equal "$(v eth0 3 limit_max)" 65536
	refute_output --partial eth9
}

@test "apply: a queue the device lacks, or a device without BQL: exit 1, nothing written" {
	use_tree multi
	before=$(tree_bytes)
	bq apply "$P/extra-queue.json"
	assert_failure 1
	assert_regex "$stderr" "extra-queue.json: devices.eth1.queues\\[1\\]: eth1 has no tx-5 \\(it has 2 TX queues\\)"
	bq apply --missing=skip "$P/extra-queue.json"
	assert_failure 1
	bq apply "$P/nobql.json"
	assert_failure 1
	assert_regex "$stderr" "devices.veth0: veth0 does not use BQL"
	assert_equal "$(tree_bytes)" "$before"
}

@test "apply --only: one device of the profile" {
	use_tree multi
	bq apply --only wlan0 "$P/partial.json"
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_equal "$(v wlan0 0 limit_min)" 3028
	assert_equal "$(v eth1 0 limit_max)" 1879048192
	# a device the profile does not name: nothing to do (udev, any NIC)
	before=$(tree_bytes)
	bq apply --only eth0 --only nosuch0 "$P/partial.json"
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	bq -j apply --only eth0 "$P/partial.json"
	assert_success
	assert_output "[]"
	assert_equal "$(tree_bytes)" "$before"
	bq apply --only eth1 --only wlan0 --dry-run "$P/partial.json"
	assert_equal "${#lines[@]}" 2	# per key, eth1:tx-0..1; wlan0's 2 are in place: -v lists them
	bq -v apply --only eth1 --only wlan0 --dry-run "$P/partial.json"
	assert_equal "${#lines[@]}" 6
	# the absent device is skipped, the present one applied
	bq apply --only eth9 --missing=skip "$P/missing-dev.json"
	assert_success
	assert_equal "$(tree_bytes)" "$before"
	# the whole profile is validated, not only the entries picked
	bq apply --only eth0 "$P/bad-range.json"
	assert_failure 2
	assert_regex "$stderr" "devices.eth1.all.limit_max: 1879048193 bytes is above"
	assert_equal "$(tree_bytes)" "$before"
}

@test "apply: usage errors exit 2" {
	use_tree multi
	bq apply
	assert_failure 2
	assert_regex "$stderr" "which profile\\? give a FILE"
	bq apply "$P/partial.json" "$P/partial.json"
	assert_failure 2
	assert_regex "$stderr" "one profile at a time"
	bq apply --missing=maybe "$P/partial.json"
	assert_failure 2
	assert_regex "$stderr" "--missing: invalid value 'maybe' \\(expected error or skip\\)"
	bq apply --only 'a/b' "$P/partial.json"
	assert_failure 2
	assert_regex "$stderr" "--only: 'a/b' is not a valid device name"
	bq apply --check --dry-run "$P/partial.json"
	assert_failure 2
	assert_regex "$stderr" "--check and --dry-run exclude each other"
	bq apply --nope "$P/partial.json"
	assert_failure 2
	assert_regex "$stderr" "unknown option '--nope'"
	bq apply --only
	assert_failure 2
	assert_output ""
	bq apply ""
	assert_failure 2
	assert_regex "$stderr" "^bqltool: apply: empty file name \\(- for standard input\\)"
}

@test "apply: a write failing at any position undoes the earlier ones" {
	use_tree multi
	# save-tuned.json on multi: 4 keys x 4 eth0 queues (all change), then eth1
	mapfile -t targets < <(for q in 0 1 2 3; do for a in limit_min limit_max hold_time stall_thrs; do f eth0 $q $a; done; done)
	for k in 0 1 7 8 15; do
		use_tree multi
		before=$(tree_bytes)
		bq_refusing "${targets[$k]}" apply "$P/save-tuned.json"
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "cannot write [0-9]+ to .*: Invalid argument"
		assert_equal "$(tree_bytes)" "$before"
	done
}

@test "apply: a profile saved with other HZ: ms values are checked for this one" {
	use_tree multi
	# partial.json was saved with HZ=1000: hold_time 250 ms is 62.5 jiffies
	# at HZ=250, stall_thrs 100 ms is 25 jiffies (valid)
	bq apply --dry-run "$P/partial.json"
	assert_success
	assert_regex "$stderr" "warning: devices.eth1.all.hold_time: the kernel keeps hold_time in jiffies \\(HZ=250\\): 250 ms is 63 jiffies and will read back as 252 ms"
	assert_line "eth1:tx-0..1 hold_time: 1000 ms -> 252 ms"
	bq apply --check "$P/partial.json"
	assert_failure 1
	assert_line "eth1:tx-0 hold_time: 1000 ms, profile 250 ms (reads back as 252 ms with HZ=250)"
	# at HZ=100 both are exact
	BQLTOOL_HZ=100 bq apply --dry-run "$P/partial.json"
	assert_success
	refute_regex "$stderr" "warning"
	# a stall_thrs valid where it was saved can be out of this kernel's window
	echo '{"bqltool_profile": 1, "hz": 1000, "devices": {"eth1": {"all": {"stall_thrs": 10}}}}' >"$BATS_TEST_TMPDIR/s.json"
	BQLTOOL_HZ=1000 bq apply --dry-run "$BATS_TEST_TMPDIR/s.json"
	assert_success
	bq apply "$BATS_TEST_TMPDIR/s.json"
	assert_failure 2
	assert_regex "$stderr" "devices.eth1.all.stall_thrs: 10 ms is 3 jiffies, outside .* with HZ=250 use 0 \\(off\\) or 13..512 ms"
}

@test "save and apply are listed in help" {
	bqx help
	assert_output --partial "  save "
	assert_output --partial "  apply "
	bqx help apply
	assert_success
	assert_output --partial "apply [--dry-run | --check] [--wait] [-q] [--missing=error|skip] [--only DEV]... FILE"
	bqx help save
	assert_output --partial "save [-o FILE] [SEL...]"
}

@test "contrib: the units' command lines parse and do what they say" {
	use_tree tuned
	cp "$P/save-tuned.json" "$BATS_TEST_TMPDIR/profile.json"
	bq reset eth0 eth1
	before=$(tree_bytes)
	for unit in bqltool-apply.service bqltool-apply@.service; do
		line=$(sed -n 's/^ExecStart=bqltool //p' "$BATS_TEST_DIRNAME/../../contrib/$unit")
		[ -n "$line" ] || fail "no ExecStart=bqltool in $unit"
		line=${line//%[iI]/eth1}
		line=${line//\/etc\/bqltool\/profile.json/$BATS_TEST_TMPDIR/profile.json}
		# shellcheck disable=SC2086
		bq $line --dry-run
		assert_success
	done
	assert_equal "$(tree_bytes)" "$before"
	line=$(sed -n 's/^ExecStart=bqltool //p' "$BATS_TEST_DIRNAME/../../contrib/bqltool-apply@.service")
	line=${line//%[iI]/eth0}
	# shellcheck disable=SC2086
	bq ${line//\/etc\/bqltool\/profile.json/$BATS_TEST_TMPDIR/profile.json}
	assert_success
	assert_equal "$(v eth0 2 limit_min)" 3028
	assert_equal "$(v eth1 0 limit_max)" 1879048192
	# the instance is the name escaped by systemd-escape (a+b, ESC in a name: #37)
	grep -q 'PROGRAM="/usr/bin/systemd-escape -- $name"' "$BATS_TEST_DIRNAME/../../contrib/90-bqltool.rules"
	grep -q 'ENV{SYSTEMD_WANTS}+="bqltool-apply@%c.service"' "$BATS_TEST_DIRNAME/../../contrib/90-bqltool.rules"
	grep -q '^ACTION=="add", SUBSYSTEM=="net"' "$BATS_TEST_DIRNAME/../../contrib/90-bqltool.rules"
}
