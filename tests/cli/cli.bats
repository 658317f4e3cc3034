#!/usr/bin/env bats
# Global options, command lookup, help and exit codes.
bats_require_minimum_version 1.5.0
load helpers

@test "no command prints usage on stderr and exits 2" {
	bqx
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "Usage: bqltool"
}

@test "-V and --version print the version, then what this build can do (#38)" {
	bqx -V
	assert_success
	# the first line is the version alone, as scripts read it
	assert_regex "${lines[0]}" "^bqltool [0-9]+\\.[0-9]+\\.[0-9]+$"
	# then the features, as bpftool -V names libbpf and its features
	assert_regex "${lines[-1]}" "^features: (bpf \\(record\\)|no bpf \\(record is not built in\\)), gzip \\(zlib [0-9.]+\\), zstd [0-9.]+, json-c [0-9.]+, libnl [0-9.]+$"
	if [[ ${lines[-1]} == "features: bpf"* ]]; then
		assert_regex "${lines[1]}" "^using libbpf [0-9.]+$"
	fi
	bqx --version
	assert_success
	assert_equal "${lines[0]}" "$("$BQLTOOL" -V | head -1)"
	bqx -j -V
	assert_success
	jq -e '(.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$")) and (.features | .gzip and .zstd and (.bpf | type == "boolean"))
		and (.libraries | has("zlib") and has("zstd") and has("json_c") and has("libnl"))
		and ((.features.bpf | not) or (.libraries.libbpf | type == "string"))' <<<"$output"
	# record's refusal agrees with what -V says
	if jq -e '.features.bpf | not' <<<"$output" >/dev/null; then
		bqx record -d 1
		assert_regex "$stderr" "without BPF support"
	fi
}

@test "-h, --help and help list the commands" {
	for a in -h --help help; do
		bqx $a
		assert_success
		assert_output --partial "Commands:"
		assert_output --partial "  show "
		assert_output --partial "  replay "
	done
}

@test "help CMD and CMD -h print that command's help" {
	bqx help show
	assert_success
	assert_output --partial "Usage: bqltool [GLOBAL OPTIONS] show"
	bqx show -h
	assert_success
	assert_output --partial "Usage: bqltool [GLOBAL OPTIONS] show"
	bqx help nosuch
	assert_failure 2
	assert_regex "$stderr" "unknown command 'nosuch'"
}

@test "help -j prints JSON: the commands, one command, and each list (#38)" {
	bqx -j help
	assert_success
	assert_equal "$stderr" ""
	jq -e '.usage == "bqltool [GLOBAL OPTIONS] COMMAND [ARGS]" and
		([.commands[].name] | index("show") == 0 and index("help") != null) and
		all(.commands[]; . as $c | ($c.synopsis | startswith($c.name)) and (.summary | length > 0)
			and (.man | test("^bqltool-[a-z]+\\(8\\)$")))' <<<"$output"
	# the names equal the text list
	assert_equal "$(jq -r '.commands[].name' <<<"$output")" "$("$BQLTOOL" help --commands)"
	bqx -p help show
	assert_success
	jq -e '.commands | length == 1 and .[0].name == "show" and
		(.[0].synopsis | startswith("show ")) and (.[0].options | test("--format"))' <<<"$output"
	bqx -j help --commands
	jq -e 'type == "array" and index("replay") != null' <<<"$output"
	bqx -j help --keys
	jq -e '.[0] == {"name": "limit", "writable": true, "unit": "bytes"} and
		(map(select(.name == "inflight"))[0].writable == false)' <<<"$output"
	use_tree nic64
	bq -j help --queues ens1f0
	jq -e 'type == "array" and .[0] == 0 and length == 64' <<<"$output"
	bq -j help --devices
	jq -e 'type == "array" and index("ens1f0") != null' <<<"$output"
	bqx -j help nosuch
	assert_failure 2
	assert_output ""
}

@test "help --keys prints the attribute table" {
	bqx help --keys
	assert_success
	assert_line "limit bytes rw" || assert_line "limit rw bytes"
	assert_line "stall_max rw jiffies"
	assert_equal "$(echo "$output" | wc -l)" 8
}

@test "unknown command exits 2" {
	bqx frobnicate
	assert_failure 2
	assert_regex "$stderr" "unknown command 'frobnicate'"
	assert_regex "$stderr" "Try 'bqltool help'"
}

@test "a unique prefix runs the command; exact names win" {
	use_tree nic1
	bq sh
	assert_success
	assert_output --partial "eth0:"
	bq rep --help
	assert_success
	assert_output --partial "replay"
}

@test "an ambiguous prefix exits 2 listing the candidates" {
	bqx s
	assert_failure 2
	assert_regex "$stderr" "ambiguous command 's', could be: .*show"
}

@test "unknown global option and missing argument exit 2" {
	bqx --bogus show
	assert_failure 2
	assert_regex "$stderr" "unknown option '--bogus'"
	bqx --sysfs-root
	assert_failure 2
	assert_regex "$stderr" "needs an argument"
	bqx --color=sometimes show
	assert_failure 2
	assert_regex "$stderr" "--color: invalid value 'sometimes'"
	# an empty root is not "/": a typo'd variable must not select /class/net
	bqx --sysfs-root "" show
	assert_failure 2
	assert_regex "$stderr" "^bqltool: --sysfs-root: empty directory name"
}

@test "-n and --sysfs-root exclude each other" {
	use_tree nic1
	bq -n foo show
	assert_failure 2
	assert_regex "$stderr" "-n/--netns and --sysfs-root exclude each other"
	BQLTOOL_SYSFS_ROOT="$ROOT" run --separate-stderr "$BQLTOOL" -n foo show
	assert_failure 2
	assert_regex "$stderr" "BQLTOOL_SYSFS_ROOT \\(set in the environment\\) exclude"
}

@test "-n with a namespace that does not exist exits 1 naming it" {
	bqx -n bqlt-no-such-ns show
	assert_failure 1
	assert_regex "$stderr" "netns 'bqlt-no-such-ns': cannot open /run/netns/bqlt-no-such-ns"
	# a name ip would refuse is a usage error (exit 2, as bqltool(8) says)
	bqx -n ../x show
	assert_failure 2
	assert_regex "$stderr" "invalid namespace name"
}

@test "-p implies -j and indents" {
	use_tree nic1
	bq -p show
	assert_success
	json_ok
	assert_line --index 1 "  {"
}

@test "a write error on stdout is reported and exits 1" {
	use_tree nic64
	run --separate-stderr bash -c "'$BQLTOOL' --sysfs-root '$ROOT' show > /dev/full"
	assert_failure 1
	assert_regex "$stderr" "write error"
}

@test "a write error on stdout is reported once, by every command and for -V/-h" {
	[ -w /dev/full ] || skip "no /dev/full"
	use_tree nic64
	for args in "show" "-j show" "save" "set --dry-run ens1f0 limit_min=1" \
		"check" "help" "show -h" "-V" "-h"; do
		run --separate-stderr bash -c "'$BQLTOOL' --sysfs-root '$ROOT' $args > /dev/full"
		assert_failure 1
		assert_regex "$stderr" "^bqltool: ([a-z]+: )?write error on standard output: No space left on device$"
		assert_equal "$(grep -c . <<<"$stderr")" 1
	done
}

@test "option errors name the option as typed: clusters, long options" {
	use_tree nic1
	bq -jx show
	assert_failure 2
	assert_regex "$stderr" "unknown option '-x' in '-jx'"
	bq show --format
	assert_failure 2
	assert_regex "$stderr" "show: option '--format' needs an argument"
	bq show -f
	assert_failure 2
	assert_regex "$stderr" "show: option '-f' needs an argument"
	# the bad letter before the end of its cluster: getopt has not moved on
	bq -xj show
	assert_failure 2
	assert_regex "$stderr" "^bqltool: unknown option '-x' in '-xj'"
	bq top -bxc 1
	assert_failure 2
	assert_regex "$stderr" "^bqltool: top: unknown option '-x' in '-bxc'"
	# a long option that takes no value, given one: optopt is its letter
	bq set --dry-run=yes eth0 limit_min=1
	assert_failure 2
	assert_regex "$stderr" "^bqltool: set: option '--dry-run' takes no argument"
	bq --json=1 show
	assert_failure 2
	assert_regex "$stderr" "^bqltool: option '--json' takes no argument"
}

@test "command options may follow selectors" {
	use_tree multi
	bq show eth1 --format json
	assert_success
	json_ok
	assert_equal "$(jq -r '.[0].ifname' <<<"$output")" eth1
}

@test "help --queues DEV lists DEV's TX queue numbers, as completions use them under -n" {
	use_tree nic64
	bq help --queues ens1f0
	assert_success
	assert_equal "$(wc -l <<<"$output")" 64
	assert_line --index 0 0
	assert_line --index 63 63
	use_tree bad-gap
	bq help --queues eth0
	assert_failure 1
	assert_regex "$stderr" "eth0"
	bq help --queues nosuch
	assert_failure 1
	assert_regex "$stderr" "nosuch: no such device"
	bq help --queues ../../etc
	assert_failure 1
	bq help --queues
	assert_failure 2
	assert_regex "$stderr" "--queues needs one device name"
	bq help --queues eth0 eth1
	assert_failure 2
}

@test "an ambiguous long option lists what it could be; a value given to a flag is named, in every command" {
	bqx sim --s 1
	assert_failure 2
	assert_regex "$stderr" "ambiguous option '--s', could be: .*--seed.*--stall"
	bqx replay --t x.csv t.bqlt
	assert_failure 2
	assert_regex "$stderr" "ambiguous option '--t', could be: --timeline, --threads"
	bqx replay --verify=x t.bqlt
	assert_failure 2
	assert_regex "$stderr" "option '--verify' takes no argument"
	bqx replay -Q t.bqlt
	assert_failure 2
	assert_regex "$stderr" "unknown option '-Q'"
	bqx replay --nosuch t.bqlt
	assert_failure 2
	assert_regex "$stderr" "unknown option '--nosuch'"
	bqx show --nosuch
	assert_failure 2
	assert_regex "$stderr" "unknown option '--nosuch'"
}
