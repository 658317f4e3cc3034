#!/usr/bin/env bats
# Global options (-j, -p, -v, --color, -n, --sysfs-root) are accepted after
# the command too, by every command, as ip and bpftool users type them.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	use_tree multi
}

@test "global options after the command: -j and -p, for every command with JSON" {
	bq show -j eth1
	assert_success
	assert_equal "$(jq -r '.[0].ifname' <<<"$output")" eth1
	bq show eth1 -p
	assert_success
	assert_equal "${lines[0]}" "["
	bq show eth1 --json
	assert_success
	assert_equal "$(jq -r '.[0].ifname' <<<"$output")" eth1
	bq check -j eth1
	assert_equal "$(jq -r '.queues[0].ifname' <<<"$output")" eth1
	bq set --dry-run eth1:0 limit_min=1 -j
	assert_success
	assert_equal "$(jq -r '.[0].key' <<<"$output")" limit_min
	bq reset --dry-run -j eth1:0
	assert_success
	assert_equal "$(jq -r '.[0].key' <<<"$output")" limit_min
	bq save eth1 -p
	assert_success
	jq -e '.devices' <<<"$output" >/dev/null
	bq replay "$BATS_TEST_DIRNAME/../../examples/completion-only.bqlt" -j
	assert_success
	jq -e '.queues[0].completions' <<<"$output" >/dev/null
	bq top -b -c 1 -j eth1
	assert_success
	assert_equal "$(jq -r '.devices[0].ifname' <<<"$output")" eth1
}

@test "global options after the command: -v, --color, --sysfs-root; errors as before it" {
	bq show eth1 -v
	assert_success
	assert_regex "$stderr" "note: HZ 250"
	bq show --color=always eth1
	assert_output --partial $'\033[1meth1'
	run --separate-stderr "$BQLTOOL" show --sysfs-root "$ROOT" eth1
	assert_success
	assert_output --partial "eth1"
	bq show --color=bogus eth1
	assert_failure 2
	assert_regex "$stderr" "^bqltool: show: --color: invalid value 'bogus'"
	assert_equal "$output" ""
	bq show eth1 -n somens
	assert_failure 2
	assert_regex "$stderr" "-n/--netns and --sysfs-root exclude each other"
	bq export --textfile "$BATS_TEST_TMPDIR" -j
	assert_failure 2
	assert_regex "$stderr" "this command has no JSON output"
	# after --, not an option
	bq show -- -j
	assert_failure
	refute_regex "$output" "^\\["
}
