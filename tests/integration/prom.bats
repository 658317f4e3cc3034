#!/usr/bin/env bats
# The fleet path with the real Prometheus parts: bqltool's expositions of the
# real kernel (the host's devices, read only, and an ifb in a namespace of our
# own) checked by promtool, then served by a real node_exporter, with only
# its textfile collector, on 127.0.0.1 and a free port, scraped with curl.
# node_exporter is stopped at the end of its test, also on failure.
bats_require_minimum_version 1.5.0
load netns

NODE_EXPORTER=prometheus-node-exporter	# Debian's name for node_exporter

setup_file() {
	netns_create prom || return 0
	ip -n "$NS" link add i0 numtxqueues 4 type ifb
	ip -n "$NS" link set i0 up
}

teardown_file() {
	netns_destroy
}

setup() {
	netns_require
	TF=$BATS_TEST_TMPDIR/textfile
	mkdir "$TF"
}

teardown() {
	if [ -n "${NE_PID:-}" ]; then
		kill "$NE_PID" 2>/dev/null || true
		wait "$NE_PID" 2>/dev/null || true
	fi
}

# export_both: the host's and the namespace's textfiles in $TF
export_both() {
	run --separate-stderr "$BQLTOOL" export --textfile "$TF"
	assert_success
	run --separate-stderr "$BQLTOOL" -n "$NS" export --textfile "$TF"
	assert_success
	[ -f "$TF/bqltool.prom" ] && [ -f "$TF/bqltool-netns-$NS.prom" ] ||
		fail "export wrote: $(ls -A "$TF")"
}

# start_node_exporter DIR: node_exporter with only the textfile collector on
# DIR, on 127.0.0.1 at a port nothing listens on; sets NE_PID and NE_PORT
# once it answers. A port taken in between (it exits) means another port.
start_node_exporter() {
	local try i
	for try in 1 2 3 4 5; do
		NE_PORT=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Hltn "sport = :$NE_PORT")" ] || continue
		"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NE_PORT" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$1" \
			>"$BATS_TEST_TMPDIR/node_exporter.log" 2>&1 3>&- &
		NE_PID=$!
		for ((i = 0; i < 100; i++)); do
			if curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$NE_PORT/metrics" 2>/dev/null; then
				return 0
			fi
			kill -0 "$NE_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$NE_PID" 2>/dev/null || true
		wait "$NE_PID" 2>/dev/null || true
		NE_PID=
	done
	fail "node_exporter did not start: $(cat "$BATS_TEST_TMPDIR/node_exporter.log")"
}

# canon FILE...: the bql_* samples as "name{labels sorted} value", the value
# as a number (node_exporter prints 1879048192 as 1.879048192e+09), sorted
canon() {
	awk '
	/^bql_/ {
		line = $0; labels = ""
		if (match(line, /\} [^ ]+$/)) {
			i = index(line, "{")
			name = substr(line, 1, i - 1)
			labels = substr(line, i + 1, RSTART - i - 1)
			value = substr(line, RSTART + 2)
		} else {
			name = $1; value = $2
		}
		n = split(labels, l, /",/)
		for (k = 1; k < n; k++) l[k] = l[k] "\""
		for (k = 2; k <= n; k++)	# insertion sort, mawk has no asort
			for (j = k; j > 1 && l[j - 1] > l[j]; j--) { t = l[j]; l[j] = l[j - 1]; l[j - 1] = t }
		s = ""
		for (k = 1; k <= n; k++) s = s (k > 1 ? "," : "") l[k]
		printf "%s{%s} %.17g\n", name, s, value + 0
	}' "$@" | LC_ALL=C sort
}

@test "real kernel: promtool accepts show --format prometheus and export, host and -n NS" {
	need_tool promtool prometheus
	run --separate-stderr "$BQLTOOL" show --format prometheus
	assert_success
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/host.prom"
	promtool_ok "$BATS_TEST_TMPDIR/host.prom" "show on the host"
	run --separate-stderr "$BQLTOOL" -n "$NS" show --format prometheus
	assert_success
	assert_line "bql_device_tx_queues{device=\"i0\",netns=\"$NS\"} 4"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/ns.prom"
	promtool_ok "$BATS_TEST_TMPDIR/ns.prom" "show -n $NS"
	export_both
	promtool_ok "$TF/bqltool.prom" "export on the host"
	promtool_ok "$TF/bqltool-netns-$NS.prom" "export -n $NS"
}

@test "real kernel: node_exporter's textfile collector serves the host's and the namespace's series" {
	need_tool "$NODE_EXPORTER" prometheus-node-exporter
	need_tool curl curl
	nsw i0 2 limit_max 123456
	export_both
	start_node_exporter "$TF"
	# on 127.0.0.1 only
	run ss -Hltn "sport = :$NE_PORT"
	assert_success
	assert_output --regexp "127\.0\.0\.1:$NE_PORT "
	refute_output --regexp "(\*|0\.0\.0\.0|\[::\]):$NE_PORT "
	run curl -fsS --max-time 5 "http://127.0.0.1:$NE_PORT/metrics"
	assert_success
	scrape=$output
	printf '%s\n' "$scrape" > "$BATS_TEST_TMPDIR/scrape"
	# both files read without error, and only the textfile collector ran
	assert_line 'node_textfile_scrape_error 0'
	assert_line --regexp '^node_textfile_mtime_seconds\{file="([^"]*/)?bqltool\.prom"\} '
	assert_line --regexp "^node_textfile_mtime_seconds\\{file=\"([^\"]*/)?bqltool-netns-$NS\\.prom\"\\} "
	assert_line 'node_scrape_collector_success{collector="textfile"} 1'
	refute_output --regexp 'collector="[^t]'
	# every sample bqltool wrote is served, with its value
	canon "$TF/bqltool.prom" "$TF/bqltool-netns-$NS.prom" > "$BATS_TEST_TMPDIR/written"
	canon "$BATS_TEST_TMPDIR/scrape" > "$BATS_TEST_TMPDIR/served"
	run comm -23 "$BATS_TEST_TMPDIR/written" "$BATS_TEST_TMPDIR/served"
	assert_success
	assert_output ""
	# the host's series (no netns label) and the namespace's, all 4 queues
	run grep -c 'netns=' "$BATS_TEST_TMPDIR/written"
	[ "$output" -gt 0 ]
	grep -v 'netns=' "$BATS_TEST_TMPDIR/served" | grep -q '^bql_kernel_hz{source=' ||
		fail "no host series served"
	# when each file was written: one gauge per file, to alert on a stale one
	assert_equal "$(grep -c '^bql_export_timestamp_seconds' "$BATS_TEST_TMPDIR/served")" 2
	assert_equal "$(grep -c "^bql_limit_bytes{device=\"i0\",netns=\"$NS\",queue=\"tx-[0-3]\"} " \
		"$BATS_TEST_TMPDIR/served")" 4
	grep -qx "bql_limit_max_bytes{device=\"i0\",netns=\"$NS\",queue=\"tx-2\"} 123456" \
		"$BATS_TEST_TMPDIR/served" || fail "the value written with echo is not served"
	# and every host device bqltool sees has its limit served
	for dev in $("$BQLTOOL" -j show | jq -r '.[].ifname'); do
		grep -q "^bql_limit_bytes{device=\"$dev\",queue=\"tx-0\"} " "$BATS_TEST_TMPDIR/served" ||
			fail "host device $dev not served"
	done
}

# issue #37 (questionable): "rt3 a" and "rt3_a" exported to one file (a
# byte out of [A-Za-z0-9._-] became '_'), and a long name was cut: one
# file per namespace now (%HH; a long name keeps its start and gets a hash)
@test "netns: export -n gives every namespace name its own file: 'x a', 'x_a', two long names" {
	local a="bqlt-x a-$$" b="bqlt-x_a-$$" l1 l2 n rc=0
	l1="bqlt-$(printf 'l%.0s' $(seq 230))-1-$$"
	l2="bqlt-$(printf 'l%.0s' $(seq 230))-2-$$"
	for n in "$a" "$b" "$l1" "$l2"; do
		ip netns add "$n" || { rc=1; break; }
	done
	if [ "$rc" -eq 0 ]; then
		for n in "$a" "$b" "$l1" "$l2"; do
			"$BQLTOOL" -n "$n" export --textfile "$TF" || rc=$?
		done
	fi
	for n in "$a" "$b" "$l1" "$l2"; do
		ip netns del "$n" 2>/dev/null || true
	done
	[ "$rc" -eq 0 ]
	[ "$(ls "$TF" | wc -l)" -eq 4 ]
	[ -f "$TF/bqltool-netns-bqlt-x%20a-$$.prom" ]
	[ -f "$TF/bqltool-netns-bqlt-x_a-$$.prom" ]
	[ "$(ls "$TF" | grep -c -- '-[0-9a-f]\{16\}\.prom$')" -eq 2 ]
	grep -q "netns=\"bqlt-x a-$$\"" "$TF/bqltool-netns-bqlt-x%20a-$$.prom" || [ ! -s "$TF/bqltool-netns-bqlt-x%20a-$$.prom" ]
}
