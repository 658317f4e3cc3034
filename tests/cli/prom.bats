#!/usr/bin/env bats
# show --format prometheus and export --textfile: the exposition format and
# the atomic textfile for node_exporter.
bats_require_minimum_version 1.5.0
load helpers

# metric names and their TYPE lines, one "name type" per line
families() {
	grep '^# TYPE ' <<<"$1" | awk '{ print $3, $4 }'
}

@test "show --format prometheus on the multi tree equals the golden file" {
	use_tree multi
	bq show --format prometheus
	assert_success
	assert_equal "$stderr" ""
	diff -u "$DATA/expected/prom-multi.prom" - <<<"$output"
}

@test "prometheus: every family has one HELP and one TYPE before its samples" {
	use_tree multi
	bq show --format prometheus
	assert_success
	awk '
		/^# HELP / { help[$3]++; next }
		/^# TYPE / { if (!($3 in help)) { print "TYPE before HELP: " $3; bad = 1 }
			     type[$3]++; next }
		/^#/ { print "unexpected comment: " $0; bad = 1; next }
		{
			name = $0; sub(/[{ ].*/, "", name)
			if (!(name in type)) { print "sample without TYPE: " name; bad = 1 }
			if (name != last && (name in seen)) { print "family split: " name; bad = 1 }
			seen[name] = 1; last = name
			# no timestamps: "name{labels} value" only
			rest = $0; sub(/^[^ ]*\} /, "", rest); sub(/^[^ {]* /, "", rest)
			if (rest ~ / /) { print "extra field: " $0; bad = 1 }
		}
		END { for (n in help) if (help[n] != 1 || type[n] != 1) { print "dup: " n; bad = 1 }
		      exit bad }' <<<"$output"
}

@test "prometheus: base units, _total counters, valid names" {
	use_tree multi
	bq show --format prometheus
	assert_success
	local f
	f=$(families "$output")
	# counters and only counters end in _total
	run awk '($2 == "counter") != ($1 ~ /_total$/) { print; bad = 1 } END { exit bad }' <<<"$f"
	assert_success
	run grep -vE '^[a-zA-Z_:][a-zA-Z0-9_:]* (gauge|counter)$' <<<"$f"
	assert_failure
	for m in bql_limit_bytes bql_limit_min_bytes bql_limit_max_bytes bql_hold_time_seconds \
		bql_inflight_bytes bql_stall_threshold_seconds bql_stall_events_total \
		bql_stall_max_seconds bql_device_info; do
		grep -q "^$m " <<<"$f" || fail "family $m missing"
	done
	# no milliseconds or jiffies leak into names
	run grep -E '_(ms|msecs|jiffies)[ {]' <<<"$output"
	assert_failure
}

@test "prometheus: units are converted (ms -> s, stall_max jiffies -> s with HZ)" {
	use_tree multi
	b=$ROOT/class/net/eth1/queues/tx-1/byte_queue_limits
	echo 250 > "$b/hold_time"
	echo 20 > "$b/stall_thrs"
	echo 25 > "$b/stall_max"	# 25 jiffies at HZ=250 = 100 ms
	bq show --format prometheus eth1:1
	assert_success
	assert_line 'bql_hold_time_seconds{device="eth1",queue="tx-1"} 0.25'
	assert_line 'bql_stall_threshold_seconds{device="eth1",queue="tx-1"} 0.02'
	assert_line 'bql_stall_max_seconds{device="eth1",queue="tx-1"} 0.1'
	assert_line 'bql_kernel_hz{source="BQLTOOL_HZ"} 250'
	BQLTOOL_HZ=1000 bq show --format prometheus eth1:1
	assert_line 'bql_stall_max_seconds{device="eth1",queue="tx-1"} 0.025'
}

@test "prometheus: a kernel without stall_* files exports no stall families" {
	use_tree prestall
	bq show --format prometheus
	assert_success
	refute_output --partial bql_stall
	assert_output --partial 'bql_limit_bytes{device="eth0",queue="tx-1"} 4542'
}

@test "prometheus: label values are escaped (backslash, double quote)" {
	use_tree multi
	mv "$ROOT/class/net/eth1" "$ROOT/class/net/e\"t\\1"
	bq show --format prometheus
	assert_success
	assert_line 'bql_limit_bytes{device="e\"t\\1",queue="tx-0"} 3028'
}

@test "prometheus: no BQL device gives only the HZ gauge, exit 0" {
	use_tree nobql
	bq show --format prometheus
	assert_success
	refute_output --partial 'bql_limit_bytes'
	assert_output --partial 'bql_kernel_hz'
}

# Every exposition bqltool writes from a sysfs tree: show --format prometheus
# and export --textfile, on every valid fixture, and with hostile device names
# (label escaping, C0/C1 controls, invalid UTF-8). The real kernel's, host and
# -n NS, are in tests/integration/prom.bats.
@test "prometheus: promtool check metrics accepts show and export on every tree" {
	need_tool promtool prometheus
	local t n=0
	for t in check multi nic1 nic64 nobql prestall tuned; do
		use_tree "$t"
		bq show --format prometheus
		assert_success
		printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/show.prom"
		promtool_ok "$BATS_TEST_TMPDIR/show.prom" "show --format prometheus on $t"
		rm -rf "$BATS_TEST_TMPDIR/tf" && mkdir "$BATS_TEST_TMPDIR/tf"
		bq export --textfile "$BATS_TEST_TMPDIR/tf"
		assert_success
		promtool_ok "$BATS_TEST_TMPDIR/tf/bqltool.prom" "export on $t"
		n=$((n + 1))
	done
	assert_equal "$n" 7
}

@test "prometheus: promtool accepts the exposition of hostile device names" {
	need_tool promtool prometheus
	use_tree multi
	mv "$ROOT/class/net/eth1" "$ROOT/class/net/e\"t\\1"
	mv "$ROOT/class/net/eth0" "$ROOT/class/net/"$'e\e[31m\xc2\x9b\a'
	mv "$ROOT/class/net/wlan0" "$ROOT/class/net/"$'b\xff\xfed\xe2\x80\xae'
	bq show --format prometheus
	assert_success
	assert_output --partial 'device="e\"t\\1"'
	assert_output --partial 'device="e\\x1b[31m\\u009b\\x07"'
	assert_output --partial 'device="b\\xff\\xfed\\u202e"'
	assert_equal "$(grep -c '^bql_limit_bytes{' <<<"$output")" 7
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/show.prom"
	promtool_ok "$BATS_TEST_TMPDIR/show.prom" "show, hostile names"
	bq export --textfile "$BATS_TEST_TMPDIR"
	assert_success
	promtool_ok "$BATS_TEST_TMPDIR/bqltool.prom" "export, hostile names"
}

@test "prometheus: -j and --format prometheus exclude each other" {
	use_tree multi
	bq -j show --format prometheus
	assert_failure 2
	assert_output ""
}

@test "export --textfile writes bqltool.prom, same as show, mode 0644, no temp left" {
	use_tree multi
	out=$BATS_TEST_TMPDIR/textfile
	mkdir "$out"
	bq show --format prometheus
	expected=$output
	local t0 t1 ts
	t0=$(date +%s)
	bq export --textfile "$out"
	t1=$(date +%s)
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	# show's exposition, then when the file was written (to alert on a stale file)
	assert_equal "$(head -n -3 "$out/bqltool.prom")" "$expected"
	assert_equal "$(tail -3 "$out/bqltool.prom" | head -2)" "# HELP bql_export_timestamp_seconds When bqltool export wrote this file (Unix time): alert when it stops moving.
# TYPE bql_export_timestamp_seconds gauge"
	ts=$(tail -1 "$out/bqltool.prom")
	[[ "$ts" =~ ^bql_export_timestamp_seconds\ ([0-9]+)\.[0-9]{3}$ ]]
	(( BASH_REMATCH[1] >= t0 && BASH_REMATCH[1] <= t1 ))
	# show has no such gauge: it writes no file
	refute_regex "$expected" "bql_export_timestamp_seconds"
	assert_equal "$(stat -c %a "$out/bqltool.prom")" 644
	assert_equal "$(ls -A "$out")" "bqltool.prom"
}

@test "export replaces the file by rename (a reader never sees half a file)" {
	use_tree multi
	out=$BATS_TEST_TMPDIR/textfile
	mkdir "$out"
	echo stale > "$out/bqltool.prom"
	ln "$out/bqltool.prom" "$BATS_TEST_TMPDIR/old"	# the inode a reader may hold
	bq export --textfile "$out" eth1
	assert_success
	assert_equal "$(cat "$BATS_TEST_TMPDIR/old")" stale	# never written in place
	[ "$(stat -c %i "$out/bqltool.prom")" != "$(stat -c %i "$BATS_TEST_TMPDIR/old")" ]
	run grep -c '^bql_limit_bytes{' "$out/bqltool.prom"
	assert_output 2
	assert_equal "$(ls -A "$out")" "bqltool.prom"
}

@test "export: a missing or non-directory DIR exits 1 naming it" {
	use_tree multi
	bq export --textfile "$BATS_TEST_TMPDIR/nope"
	assert_failure 1
	assert_output ""
	[[ $stderr == *"$BATS_TEST_TMPDIR/nope"*"No such file or directory"* ]]
	touch "$BATS_TEST_TMPDIR/file"
	bq export --textfile "$BATS_TEST_TMPDIR/file"
	assert_failure 1
	[[ $stderr == *"$BATS_TEST_TMPDIR/file: not a directory"* ]]
}

@test "export: an unwritable DIR exits 1 naming it, nothing written" {
	dir=$(mktemp -d /tmp/bqltool-ro.XXXXXX)
	chmod 0555 "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		# root writes anywhere: run as nobody instead
		command -v setpriv >/dev/null || { rm -rf "$dir"; skip "root without setpriv"; }
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$BQLTOOL" --sysfs-root "$DATA/sysfs/multi" export --textfile "$dir"
	else
		run --separate-stderr "$BQLTOOL" --sysfs-root "$DATA/sysfs/multi" export --textfile "$dir"
	fi
	ls=$(ls -A "$dir")
	chmod 0755 "$dir"
	rm -rf "$dir"
	assert_failure 1
	assert_output ""
	[[ $stderr == *"$dir"*"not writable"* ]]
	assert_equal "$ls" ""
}

@test "export: usage errors exit 2" {
	use_tree multi
	bq export
	assert_failure 2
	[[ $stderr == *"missing --textfile DIR"* ]]
	[[ $stderr == *"Try 'bqltool help export'"* ]]
	bq export --textfile
	assert_failure 2
	bq export --bogus x
	assert_failure 2
	bq -j export --textfile "$BATS_TEST_TMPDIR"
	assert_failure 2
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR" | grep -c prom)" 0
}

@test "export DIR: did you mean --textfile DIR? (#38)" {
	use_tree multi
	mkdir "$BATS_TEST_TMPDIR/tf"
	bq export "$BATS_TEST_TMPDIR/tf"
	assert_failure 2
	assert_output ""
	assert_equal "${stderr_lines[0]}" "bqltool: export: missing --textfile DIR: did you mean 'export --textfile $BATS_TEST_TMPDIR/tf'? (words after export are selectors)"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/tf")" ""
	# a selector is no directory: the plain message
	bq export eth0
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "bqltool: export: missing --textfile DIR (the node_exporter textfile directory)"
}

@test "export: a selector that matches nothing exits 1 and writes nothing" {
	use_tree multi
	out=$BATS_TEST_TMPDIR/textfile
	mkdir "$out"
	bq export --textfile "$out" nosuch0
	assert_failure 1
	[[ $stderr == *"nosuch0"* ]]
	assert_equal "$(ls -A "$out")" ""
}
