#!/usr/bin/env bats
# record's command line (no BPF needed: every case here fails before any
# program is loaded). Captures are in tests/integration/record.bats.
bats_require_minimum_version 1.5.0
load helpers

rec() {
	run --separate-stderr timeout 10 "$BQLTOOL" "$@"
}

@test "record: -d and -c exclude each other" {
	rec record -d 1 -c 5 eth0
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "record: -d and -c exclude each other"
	assert_regex "$stderr" "Try 'bqltool help record'"
}

@test "record: bad -d and -c values" {
	rec record -d soon eth0
	assert_failure 2
	assert_regex "$stderr" "-d"
	rec record -d 0 eth0
	assert_failure 2
	assert_regex "$stderr" "-d: the duration must be above 0"
	rec record -c 0 eth0
	assert_failure 2
	assert_regex "$stderr" "-c: invalid count '0'"
	rec record -o "" eth0
	assert_failure 2
	assert_regex "$stderr" "-o: empty file name"
}

@test "record: unknown option, missing argument" {
	rec record --bogus eth0
	assert_failure 2
	assert_regex "$stderr" "unknown option '--bogus'"
	rec record eth0 -o
	assert_failure 2
	assert_regex "$stderr" "option '-o' needs an argument"
}

@test "record: no JSON, no --sysfs-root (it reads the running kernel)" {
	rec -j record eth0
	assert_failure 2
	assert_regex "$stderr" "no JSON output"
	rec --sysfs-root "$DATA/sysfs/multi" record eth0
	assert_failure 2
	assert_regex "$stderr" "record captures the running kernel, not a sysfs tree"
}

@test "record: help names the backends, the register limit and the options" {
	rec help record
	assert_success
	assert_line --index 0 "Usage: bqltool [GLOBAL OPTIONS] record [-d SEC | -c COUNT] [-o FILE] [--queued] [--latency] [--no-spin] [-n NS] [-v] [SEL...]"
	assert_regex "$output" "Backends, tried in this order: tracepoints"
	assert_regex "$output" "fentry/fexit on dql_completed"
	assert_regex "$output" "hardware write watchpoints \(at most 4"
	assert_regex "$output" "queues, 2 with --queued"
	assert_regex "$output" "BQLTOOL_RECORD_BACKEND=tracepoints\|fentry\|watchpoint"
	rec help
	assert_regex "$output" "  record +Capture a bqltrace"
}
