#!/usr/bin/env bats
# bqltool tune: the known case (a 1G link whose completions stall now and
# then: the defaults' limit inflates, hold_time 20 ms cuts the p99 and keeps
# the margin), a case where the defaults are best, --from a simulated trace, a live (fake) device read
# and never written, determinism across thread counts, the -j keys and
# usage errors. --apply against a real kernel is in tests/integration.
bats_require_minimum_version 1.5.0
load helpers

tn() {
	run --separate-stderr timeout 60 "$BQLTOOL" "$@"
}

# completions that stall 2 ms twice in 5 s
known=(--stall 1s:2ms --stall 3s:2ms --duration 5)

@test "tune: backlogged 1G whose completions stall now and then: a lower p99 within --keep" {
	tn -j tune "${known[@]}"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	for k in baseline recommended candidates command reason keep_defaults model; do
		jq -e "has(\"$k\")" <<<"$output" >/dev/null || fail "no key $k"
	done
	jq -e '.keep_defaults == false' <<<"$output"
	jq -e '.recommended.ring_delay_ns.p99 < .baseline.ring_delay_ns.p99' <<<"$output"
	jq -e '.recommended.throughput_bps >= 0.995 * .baseline.throughput_bps' <<<"$output"
	jq -e '.recommended.settings | has("limit_min") and has("limit_max") and has("hold_time")' <<<"$output"
	jq -e '.baseline.settings == {"limit_min":0,"limit_max":1879048192,"hold_time":1000}' <<<"$output"
	jq -e '.candidates | length >= 26' <<<"$output"
	# the margin: required half of the defaults', and the advice holds it
	jq -e '.margin.required_from == "half-defaults" and .margin.required_ns * 2 == .margin.defaults.irq_late_held_ns' <<<"$output"
	jq -e '.margin.recommended.irq_late_held_ns >= .margin.required_ns' <<<"$output"
	jq -e '.frontier[-1].kind == "defaults" and any(.frontier[]; .kind == "recommended")' <<<"$output"
	jq -e 'all(.candidates[]; has("settings") and has("throughput_bps") and has("ring_delay_ns") and has("feasible"))' <<<"$output"
	cmd=$(jq -r .command <<<"$output")
	lmax=$(jq .recommended.settings.limit_max <<<"$output")
	[[ $cmd == "bqltool set DEV limit_min="*" limit_max=$lmax hold_time="* ]] || fail "command: $cmd"
}

@test "tune: text names the choice, its reason and the set line" {
	tn tune "${known[@]}"
	[ "$status" -eq 0 ]
	assert_line --regexp '^baseline \(kernel defaults: limit_min 0, limit_max max, hold_time 1000 ms\)'
	assert_line --regexp '^ +limit_min +limit_max +hold_time +throughput +of_default +ring_p50 +ring_p99'
	# the answer first, then why, then the model and the 5 best candidates
	[[ ${lines[0]} =~ ^recommended\ \(\*\):\ worst\ p99\ ring\ delay\ [0-9.]+\ [mu]?s\ -\>\ [0-9.]+\ [mu]?s\ over\ [0-9]+\ conditions,\ throughput\ at\ least\ [0-9.]+%\ of\ the\ defaults\'\ in\ each,\ interrupts\ up\ to\ [0-9.]+\ [mu]?s\ late\ \(half\ of\ the\ [0-9.]+\ [mu]?s\ the\ defaults\ hold\)\ among\ them$ ]] || fail "first line: ${lines[0]}"
	[[ ${lines[1]} =~ ^\ \ bqltool\ set\ DEV\  ]] || fail "second line: ${lines[1]}"
	# sizes in the one human format, as every text table (issue #24); the set line in bytes
	assert_line --regexp '^why: hold_time 20 ms lets DQL shrink the limit sooner after a stall or a burst has grown it: a mean limit of [0-9.]+ (B|KiB|MiB) against the defaults. [0-9.]+ (B|KiB|MiB) \(both up to [0-9.]+ (B|KiB|MiB)\), with no cap to starve late interrupts$'
	assert_line --regexp '^ +margin: it (starves the link once interrupts are more than [0-9.]+ [mu]?s late|holds with interrupts up to [0-9]+ us late); the defaults '
	assert_line --regexp '^ +\* +[0-9.]+ (B|KiB|MiB) +([0-9.]+ (B|KiB|MiB)|max) +[0-9]+ ms .* yes$'
	assert_line --regexp '^ +default +0 B +max +1000 ms '
	# the trade-off: what a lower latency would cost in margin
	assert_line --regexp '^trade-off: p99 ring delay on the model and the worst over the conditions, .*every setting must hold [0-9.]+ [mu]?s \(half of the [0-9.]+ [mu]?s the defaults hold\):$'
	assert_line --regexp '^ +limit_min +limit_max +hold_time +p99 +worst_p99 +margin$'
	assert_line --regexp '^ +\* +0 B +max +20 ms +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s$'
	refute_output --regexp ' +$'
	refute_output --regexp '  [0-9]{4,} +[0-9]{4,} +[0-9]+ ms'
	assert_line --regexp '^  bqltool set DEV limit_min=[0-9]+ limit_max=[0-9]+ hold_time=[0-9]+$'
}

@test "tune: where the defaults are best it says so and exits 0" {
	tn -j tune --traffic poisson:300M --duration 0.3
	[ "$status" -eq 0 ]
	jq -e '.keep_defaults == true and .command == null' <<<"$output"
	jq -e '.recommended.settings == .baseline.settings' <<<"$output"
	tn tune --traffic poisson:300M --duration 0.3
	[ "$status" -eq 0 ]
	assert_line --regexp '^keep the defaults: no setting that carries the link with interrupts 2.5 ms late \(half of the 5 ms ceiling, which the defaults hold\) cuts'
	refute_line --partial 'bqltool set'
}

@test "tune: the same result whatever the thread count" {
	args=(tune --traffic poisson:950M --irq-latency 5us:3us --coalesce-usecs 300 --duration 0.2 --seed 3)
	tn -j "${args[@]}" --threads 1
	[ "$status" -eq 0 ]
	one=$output
	tn -j "${args[@]}" --threads 4
	[ "$output" = "$one" ]
}

@test "tune --from: fits the link of a simulated trace within 5%" {
	t="$BATS_TEST_TMPDIR/t.bqlt"
	for link in 1G 10G; do
		"$BQLTOOL" sim -q --link $link --coalesce-usecs 100 --ring 1024 --duration 0.2 --trace "$t"
		tn -j tune --from "$t" --duration 0.1
		[ "$status" -eq 0 ] || fail "$stderr"
		want=$(( ${link%G} * 1000000000 ))
		jq -e --argjson w "$want" '.fitted.link_bps > 0.95 * $w and .fitted.link_bps < 1.05 * $w' <<<"$output" ||
			fail "fitted $(jq .fitted.link_bps <<<"$output") for $link"
		jq -e '.fitted.backlogged and .model.link_bps == .fitted.link_bps' <<<"$output"
		jq -e '.fitted.coalesce_usecs >= 90 and .fitted.coalesce_usecs <= 110' <<<"$output"
	done
	tn tune --from "$t" --duration 0.1
	# sim frames 1514 B in 1538 byte-times: the bytes a 10G trace shows are 9.844 Gbit/s
	assert_line --regexp "^fitted from .*t.bqlt: link (9\\.8[0-9]*|10) Gbit/s \\(over [0-9]+ busy intervals\\); completions every"
}

@test "tune --from: a trace of more queues than the model has (300) is folded onto 64, or onto --queues" {
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace t=$BATS_TEST_TMPDIR/q300.bqlt
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	"$gen" -n 60000 -q 300 -s 7 -o "$t"
	tn -j tune --from "$t" --duration 0.05 --force --link 1G
	[ "$status" -eq 0 ] || fail "$stderr"
	assert_regex "$stderr" "q300.bqlt: 300 queues, modelled on 64 \\(trace queue i on model queue i mod 64\\)"
	jq -e '.fitted.nqueues == 300 and .model.nqueues == 64' <<<"$output"
	tn -j tune --from "$t" --queues 4 --duration 0.05 --force --link 1G
	[ "$status" -eq 0 ] || fail "$stderr"
	assert_regex "$stderr" "300 queues, modelled on 4 \\(trace queue i on model queue i mod 4\\), as --queues asks"
	[[ $stderr != *"give --queues"* ]] || fail "$stderr"
	jq -e '.model.nqueues == 4' <<<"$output"
}

@test "tune SEL: a device of more queues than the model has (128) is modelled on 64, and says so" {
	use_tree nic64
	for i in $(seq 64 127); do
		cp -a "$ROOT/class/net/ens1f0/queues/tx-0" "$ROOT/class/net/ens1f0/queues/tx-$i"
	done
	bq -j tune ens1f0 --link 1G --duration 0.02
	[ "$status" -eq 0 ] || fail "$stderr"
	jq -e '.device.nqueues == 128 and .model.nqueues == 64' <<<"$output"
	assert_regex "$stderr" "ens1f0: 128 queues selected, modelled on 64, the simulator's most .*give --queues to choose"
	bq -j tune ens1f0 --link 1G --duration 0.02 --queues 32
	[ "$status" -eq 0 ] || fail "$stderr"
	assert_equal "$stderr" ""
	bq -j tune ens1f0:0-63 --link 1G --duration 0.02
	[ "$status" -eq 0 ] || fail "$stderr"
	assert_equal "$stderr" ""
}

@test "tune --from: reads standard input; an option overrides the fit" {
	t="$BATS_TEST_TMPDIR/t.bqlt"
	"$BQLTOOL" sim -q --link 10G --duration 0.1 --trace "$t"
	run --separate-stderr bash -c "cat '$t' | '$BQLTOOL' -j tune --from - --link 25G --duration 0.05"
	[ "$status" -eq 0 ]
	jq -e '.model.link_bps == 25000000000' <<<"$output"
}

@test "tune --from: a compressed trace fits as the plain one" {
	d=$BATS_TEST_TMPDIR
	"$BQLTOOL" sim -q --link 10G --duration 0.1 --trace "$d/t.bqlt"
	"$BQLTOOL" sim -q --link 10G --duration 0.1 --trace "$d/t.bqlt.zst"
	gzip -c "$d/t.bqlt" >"$d/t.bqlt.gz"
	tn -j tune --from "$d/t.bqlt" --duration 0.05
	plain=$(jq -c 'del(.fitted.trace)' <<<"$output")
	for f in t.bqlt.zst t.bqlt.gz; do
		tn -j tune --from "$d/$f" --duration 0.05
		[ "$status" -eq 0 ] || fail "$f: $stderr"
		[ "$(jq -c 'del(.fitted.trace)' <<<"$output")" = "$plain" ]
	done
}

@test "tune --from: a trace without completions, a bad one, a damaged one" {
	d=$BATS_TEST_TMPDIR
	printf 'bqltrace 1\nqueue q\n0 q Q 100\n' >"$d/noc.bqlt"
	tn tune --from "$d/noc.bqlt"
	[ "$status" -eq 1 ]
	[[ $stderr == *"noc.bqlt: the trace has no completion"* ]]
	printf 'bqltrace 1\nqueue q\n0 q X 100\n' >"$d/bad.bqlt"
	tn tune --from "$d/bad.bqlt"
	[ "$status" -eq 1 ]
	[[ $stderr == *"bad.bqlt:3:"* ]]
	printf '\x1f\x8b\x08\x00junk' >"$d/c.bqlt.gz"
	tn tune --from "$d/c.bqlt.gz"
	[ "$status" -eq 1 ]
	[[ $stderr == *"c.bqlt.gz:1: "* ]]
	tn tune --from "$d/none.bqlt"
	[ "$status" -eq 1 ]
	[[ $stderr == *"none.bqlt: No such file"* ]]
}

@test "tune SEL: link speed and queues from the device, read-only" {
	use_tree multi
	before=$(tree_digest)
	run --separate-stderr timeout 120 "$BQLTOOL" --sysfs-root "$ROOT" -j tune eth0 --duration 0.05
	[ "$status" -eq 0 ] || fail "$stderr"
	jq -e '.device.ifname == "eth0" and .device.speed_mbps == 10000 and .device.nqueues == 4' <<<"$output"
	jq -e '.model.link_bps == 10000000000 and .model.nqueues == 4' <<<"$output"
	[ "$(tree_digest)" = "$before" ]
	cmd=$(jq -r '.command // empty' <<<"$output")
	[ -z "$cmd" ] || [[ $cmd == "bqltool set eth0 "* ]]
}

@test "tune: usage errors name the option" {
	check() {
		local re=$1
		shift
		tn tune "$@"
		[ "$status" -eq 2 ] || fail "tune $*: exit $status, expected 2"
		[ -z "$output" ] || fail "tune $*: wrote to stdout"
		[[ $stderr =~ $re ]] || fail "tune $*: stderr '$stderr' does not match '$re'"
	}
	check "--keep: '2': expected a fraction" --keep 2
	check "--keep: 'abc': expected a fraction" --keep abc
	check "--min-gain: 'x'" --min-gain x
	check "--threads: '0': expected 1..256" --threads 0
	check "--apply needs a selector" --apply
	check "one selector at most" eth0 eth1
	check "--link: '0': a rate must be positive" --link 0
	check "--traffic: 'x': unknown traffic kind" --traffic x
	check "unknown option '--bogus'" --bogus
	tn -j tune --apply eth0
	[ "$status" -eq 2 ]
	[[ $stderr == *"--apply reports its writes as text"* ]]
}

# ---------------------------------------------------------- the device model

@test "tune SEL: an unknown link speed and no --link: no recommendation, the message names --link (exit 2)" {
	use_tree multi
	before=$(tree_digest)
	bq tune eth1 --duration 0.05
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr == *"eth1: link speed unknown"*"give --link RATE"* ]] || fail "$stderr"
	[[ $stderr != *"assuming"* ]]
	bq tune eth1 --duration 0.05 --apply
	[ "$status" -eq 2 ]
	[ "$(tree_digest)" = "$before" ]
	# with --link it models that rate; the unknown speed is absent, never 0
	bq -j tune eth1 --link 1G --duration 0.05
	[ "$status" -eq 0 ] || fail "$stderr"
	jq -e '.model.link_bps == 1000000000 and (.device | has("speed_mbps") | not)' <<<"$output"
}

@test "tune SEL: a known speed outside the simulator's range (800G, 5 Mbit/s) is refused naming it, not 'unknown'" {
	use_tree multi
	for sp in 800000 5; do
		echo "$sp" >"$ROOT/class/net/eth0/speed"
		bq tune eth0 --duration 0.05
		[ "$status" -eq 2 ] || fail "speed $sp: exit $status"
		[ -z "$output" ]
		[[ $stderr == *"eth0: link speed $sp Mbit/s is outside what the simulator models (10 Mbit/s..400 Gbit/s)"*"--link"* ]] ||
			fail "speed $sp: $stderr"
		[[ $stderr != *unknown* ]]
	done
	bq -j tune eth0 --link 10G --duration 0.02
	[ "$status" -eq 0 ] || fail "$stderr"
	jq -e '.device.speed_mbps == 5 and .model.link_bps == 10000000000' <<<"$output"
}

@test "tune SEL: the advice never goes below what check's rules want of the device (MTU 9000: one 9014-byte frame)" {
	use_tree multi
	echo 9000 >"$ROOT/class/net/eth0/mtu"
	# a model in which the smallest cap wins: no coalescing, 1514-byte packets
	m=(--link 1G --coalesce-usecs 0 --irq-latency 1us --duration 0.2)
	bq -j tune eth0 "${m[@]}"
	[ "$status" -eq 0 ] || fail "$stderr"
	jq -e '.limit_max_floor == {"bytes": 9014, "ifname": "eth0", "rule": "limit-max-below-frame"}' <<<"$output"
	jq -e '.device.mtu == 9000' <<<"$output"
	jq -e '.keep_defaults or .recommended.settings.limit_max >= 9014' <<<"$output" ||
		fail "advice $(jq -c .recommended.settings <<<"$output")"
	bq tune eth0 "${m[@]}" --apply
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ $stderr != *"full-size frame"* ]] || fail "$stderr"
	assert_line "limit_max at least 9014 bytes, one full-size frame (MTU + 14) of eth0, below which check warns"
	bq check eth0
	[[ $output != *"below one full-size frame"* ]] || fail "$output"
	# without a device (no SEL) there is no floor: 1514-byte packets allow 1514
	bq -j tune "${m[@]}"
	jq -e 'has("limit_max_floor") | not' <<<"$output"
}

@test "tune SEL: a selector over devices that model differently is refused before anything is written" {
	use_tree multi
	echo 10000 >"$ROOT/class/net/eth1/speed"
	before=$(tree_digest)
	# eth0 has 4 queues, eth1 2: eth0's advice must not be written to eth1
	bq tune 'eth*' --duration 0.05 --apply
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr == *"'eth*' selects devices that differ in queue count (eth0 4, eth1 2)"*"one device at a time"* ]] || fail "$stderr"
	[ "$(tree_digest)" = "$before" ]
	echo -1 >"$ROOT/class/net/eth1/speed"
	bq tune 'eth*:0-1' --duration 0.05
	[ "$status" -eq 2 ]
	[[ $stderr == *"differ in link speed (eth0 10000 Mbit/s, eth1 unknown)"* ]] || fail "$stderr"
}

@test "tune SEL: devices with the same model share one recommendation; the printed set command is shell-quoted" {
	use_tree multi
	# completions that stall now and then: a recommendation (hold_time)
	bq -j tune 'eth*:0-1' --link 1G --stall 1s:2ms --stall 3s:2ms --duration 5
	[ "$status" -eq 0 ] || fail "$stderr"
	cmd=$(jq -r '.command' <<<"$output")
	[[ $cmd == "bqltool set 'eth*:0-1' limit_min="* ]] || fail "command: $cmd"
	# the command, run by a shell, sees the selector as one word
	eval "set -- ${cmd#bqltool set }"
	[ "$1" = 'eth*:0-1' ]
	bq tune 'eth0:0-1' --link 1G --stall 1s:2ms --stall 3s:2ms --duration 5
	[ "$status" -eq 0 ]
	assert_line --regexp '^  bqltool set eth0:0-1 limit_min='
}

@test "tune: a ring-bound model says so as sim does, on stderr and in the JSON" {
	# 100G: 256 descriptors of 1514-byte frames drain in 31.5 us < 50 + 5 us:
	# no BQL setting can fill the link, whatever tune recommends
	tn -j tune --link 100G --duration 0.05
	[ "$status" -eq 0 ]
	[[ $stderr == *"warning: the model is ring-bound: 1 ring of 256 descriptors holds 31.5 us of the link"*"at most 57%"*"--ring"* ]] ||
		fail "stderr: $stderr"
	jq -e '.warnings | length == 1' <<<"$output"
	jq -e '.warnings[0] | .kind == "ring_bound" and .ring_ns == 31498 and .cycle_ns == 55000' <<<"$output"
	tn -j tune --link 100G --ring 1024 --duration 0.05
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	jq -e '.warnings == []' <<<"$output"
}
