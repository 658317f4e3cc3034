#!/usr/bin/env bats
# latency's command line and --from (no BPF needed: every case here fails
# before any program is loaded, or reads a trace). Live runs are in
# tests/integration/latency.bats.
bats_require_minimum_version 1.5.0
load helpers

lat() {
	run --separate-stderr timeout 10 "$BQLTOOL" "$@"
}

@test "latency: bad -d and -i values, unknown option, missing argument" {
	lat latency -d soon eth0
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "-d"
	assert_regex "$stderr" "Try 'bqltool help latency'"
	lat latency -d 0 eth0
	assert_failure 2
	assert_regex "$stderr" "latency: -d: the duration must be above 0"
	lat latency -i 0 eth0
	assert_failure 2
	assert_regex "$stderr" "latency: -i: the interval must be above 0"
	lat latency -i 2d eth0
	assert_failure 2
	assert_regex "$stderr" "-i"
	lat latency --bogus eth0
	assert_failure 2
	assert_regex "$stderr" "unknown option '--bogus'"
	lat latency eth0 -d
	assert_failure 2
	assert_regex "$stderr" "option '-d' needs an argument"
}

@test "latency: no --sysfs-root (it observes the running kernel); --from excludes -d, -i, -n and selectors" {
	lat --sysfs-root "$DATA/sysfs/multi" latency eth0
	assert_failure 2
	assert_regex "$stderr" "latency observes the running kernel, not a sysfs tree"
	lat latency --from "$DATA/traces/ringtime.bqlt" eth0
	assert_failure 2
	assert_regex "$stderr" "--from reads a trace: no -d, -i, -n, --no-irq or selector"
	lat latency --from "$DATA/traces/ringtime.bqlt" -d 1
	assert_failure 2
	lat latency --from ""
	assert_failure 2
	assert_regex "$stderr" "--from: expected a trace file"
}

@test "latency --from: the ring time of each queue from Q and C records, across the u32 wrap" {
	lat -j latency --from "$DATA/traces/ringtime.bqlt"
	assert_success
	assert_equal "$stderr" ""
	# 4, 3, 7 and 6 ms; one packet of 250 us across the wrap
	assert_equal "$(jq -c '.queues[0] | [.name, .ring_time.count, .ring_time.max, .ring_time.mean, .sent, .completions, .in_flight_at_end]' <<<"$output")" \
		'["eth0:tx-0",4,7000000,5000000,4,2,0]'
	assert_equal "$(jq -c '.queues[1] | [.name, .ring_time.count, .ring_time.p50, .ring_time.max]' <<<"$output")" \
		'["eth0:tx-1",1,250000,250000]'
	# p50 within its bucket (12.5%) of the exact 4 ms, p99 the max
	jq -e '.queues[0].ring_time | .p50 >= 3500000 and .p50 <= 4500000 and .p99 == 7000000' <<<"$output"
	lat latency --from "$DATA/traces/ringtime.bqlt"
	assert_success
	assert_line "eth0:tx-0"
	assert_line --regexp "^  ring time    4 packets: p50 4\.[0-9]+ ms  p90 7\.00 ms  p99 7\.00 ms  max 7\.00 ms$"
	assert_line "  4 Q, 2 C records, 0 in flight at the end, 0 re-seeds"
	# the same read from standard input, and compressed
	run --separate-stderr sh -c "gzip -c '$DATA/traces/ringtime.bqlt' | '$BQLTOOL' -j latency --from -"
	assert_success
	jq -e '.queues[0].ring_time.count == 4' <<<"$output"
}

@test "latency --from: a trace without Q records, a missing file, a broken line: exit 1 naming it" {
	lat latency --from "$BATS_TEST_DIRNAME/../../examples/completion-only.bqlt"
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "completion-only.bqlt: no Q records: the ring time needs the packets sent \(record --queued\)"
	lat latency --from "$BATS_TEST_TMPDIR/nope.bqlt"
	assert_failure 1
	assert_regex "$stderr" "nope.bqlt"
	lat latency --from "$DATA/traces/bad-number.bqlt"
	assert_failure 1
	assert_regex "$stderr" "bad-number.bqlt: line [0-9]+"
}

@test "latency: help names the quantities and the options" {
	lat help latency
	assert_success
	assert_line --index 0 "Usage: bqltool [GLOBAL OPTIONS] latency [-d SEC] [-i SEC] [--hist] [--no-irq] [-n NS] [-v] [--from TRACE] [SEL...]"
	assert_regex "$output" "qdisc wait \(enqueue -> dequeue; a bypass waits 0\)"
	assert_regex "$output" "ring time \(netdev_tx_sent_queue -> the completion"
	assert_regex "$output" "--from TRACE"
	lat help
	assert_regex "$output" "  latency +Measure time in the transmit path"
	# a unique prefix
	lat help lat
	assert_success
	assert_line --index 0 --regexp "latency"
}

@test "export --latency: out of range values; on a sysfs tree a warning, the rest written" {
	lat --sysfs-root "$DATA/sysfs/multi" export --textfile "$BATS_TEST_TMPDIR" --latency 0
	assert_failure 2
	assert_regex "$stderr" "--latency: '0' out of range \(0 < SEC <= 60"
	lat --sysfs-root "$DATA/sysfs/multi" export --textfile "$BATS_TEST_TMPDIR" --latency 61
	assert_failure 2
	lat --sysfs-root "$DATA/sysfs/multi" export --textfile "$BATS_TEST_TMPDIR" --latency soon
	assert_failure 2
	lat --sysfs-root "$DATA/sysfs/multi" export --textfile "$BATS_TEST_TMPDIR" --latency 0.1
	assert_success
	assert_regex "$stderr" "warning: --latency: a sysfs tree has no kernel to observe: no latency families"
	grep -q '^bql_limit_bytes{' "$BATS_TEST_TMPDIR/bqltool.prom"
	run grep -c '^bql_ring_time_seconds' "$BATS_TEST_TMPDIR/bqltool.prom"
	assert_output 0
}
