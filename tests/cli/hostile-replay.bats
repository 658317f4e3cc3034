#!/usr/bin/env bats
# Hostile input to the trace commands (replay, sim, tune) and to the
# number parsers behind every command line: outputs that name an input or
# each other, numbers with signs, spaces, hex, exponents or a newline, and
# limits that messages must name as the option enforces them.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$EXAMPLES/ramp.bqlt" r.bqlt
	SUM=$(cksum <r.bqlt)
}

# the trace r.bqlt is still the example, byte for byte
intact() {
	[ "$(cksum <r.bqlt)" = "$SUM" ] || { echo "r.bqlt was changed"; return 1; }
}

# ------------------------------------------------ outputs that name an input

@test "clash: replay --timeline/--plot naming the trace is refused (2), the trace intact" {
	ln -s r.bqlt link.bqlt
	ln r.bqlt hard.svg
	for a in "--timeline r.bqlt" "--timeline ./r.bqlt" "--timeline link.bqlt" \
		"--timeline hard.svg" "--plot hard.svg" "--timeline $PWD/r.bqlt"; do
		# shellcheck disable=SC2086
		bqx replay -q $a r.bqlt
		[ "$status" -eq 2 ] || { echo "$a: status $status"; return 1; }
		[[ "$stderr" == *"refusing to overwrite the input"* ]]
		intact
	done
	# among several traces, and with -J
	bqx replay -J 2 -q --timeline r.bqlt "$EXAMPLES/decay.bqlt" r.bqlt
	[ "$status" -eq 2 ]
	intact
}

@test "clash: replay - with standard input the --timeline file is refused" {
	run --separate-stderr sh -c '"$1" replay -q --timeline r.bqlt - <r.bqlt' sh "$BQLTOOL"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'r.bqlt' is the trace read from standard input"* ]]
	intact
}

@test "clash: replay --timeline and --plot on one file: 2, neither written" {
	bqx replay -q --timeline x.svg --plot x.svg r.bqlt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--plot: 'x.svg' is also the --timeline file"* ]]
	[ ! -e x.svg ]
	mkdir sub
	bqx replay -q --timeline sub/../x.svg --plot x.svg r.bqlt
	[ "$status" -eq 2 ]
	[ ! -e x.svg ]
}

@test "clash: outputs that differ, or are devices, still work" {
	bqx replay -q --timeline t.csv --plot t.svg r.bqlt
	[ "$status" -eq 0 ]
	[ -s t.csv ] && [ -s t.svg ]
	bqx replay -q --timeline /dev/null --plot /dev/null r.bqlt
	[ "$status" -eq 0 ]
	bqx sim -q --duration 10ms --trace /dev/null --timeline /dev/null --plot /dev/null
	[ "$status" -eq 0 ]
	# the same trace twice is two reads, not a clash
	bqx replay -q r.bqlt r.bqlt
	[ "$status" -eq 0 ]
}

@test "clash: replay - - is a usage error (standard input is read once)" {
	run --separate-stderr sh -c '"$1" replay - - <r.bqlt' sh "$BQLTOOL"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'-' given twice"* ]]
	[ -z "$output" ]
}

@test "clash: sim outputs on one file are refused (2), nothing written" {
	for a in "--trace x.svg --plot x.svg" "--trace y.csv --timeline ./y.csv" \
		"--timeline z.svg --plot z.svg"; do
		# shellcheck disable=SC2086
		bqx sim -q --duration 10ms $a
		[ "$status" -eq 2 ] || { echo "$a: status $status"; return 1; }
		[[ "$stderr" == *"each output needs a file of its own"* ]]
	done
	[ ! -e x.svg ] && [ ! -e y.csv ] && [ ! -e z.svg ]
}
