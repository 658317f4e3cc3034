#!/usr/bin/env bats
# Text tables (lib/io/table.c) print every cell whole: queue names may be
# up to 128 bytes in a trace, and two that differ only past byte 47 were
# once printed alike (cells were cut at 47 bytes).
bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	long=$(printf 'q%.0s' $(seq 1 120))
	{
		echo "bqltrace 1"
		echo "queue ${long}-a"
		echo "queue ${long}-b"
		echo "1000 ${long}-a Q 1514"
		echo "2000 ${long}-b Q 1514"
		echo "3000 ${long}-a C 1514"
		echo "4000 ${long}-b C 1514"
	} >"$T/long.bqlt"
}

@test "replay: summary rows show long queue names whole, aligned" {
	run -0 "$BQLTOOL" replay "$T/long.bqlt"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[2]} == "  ${long}-a "* ]]
	[[ ${lines[3]} == "  ${long}-b "* ]]
	# the columns after the name line up with the header's
	h=${lines[1]%%completions*}
	[ "${#h}" -eq $((2 + ${#long} + 2 + 2)) ]
}

@test "no text table line ends in spaces: empty trailing cells are not padded (#38)" {
	use_tree multi
	bq top -b -c 1
	assert_success
	# the device rows end in empty cells (no qstats, no stall delta yet)
	assert_line --regexp '^eth0 +all +up '
	run grep -c ' $' <<<"$output"
	assert_output 0
	for args in "show" "check -a" "set --dry-run eth0 limit_max=64K"; do
		bq $args
		run grep -c ' $' <<<"$output"
		assert_output 0
	done
	run -0 "$BQLTOOL" replay "$EXAMPLES/ramp.bqlt" "$EXAMPLES/decay.bqlt"
	run grep -c ' $' <<<"$output"
	assert_output 0
}
