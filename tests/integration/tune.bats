#!/usr/bin/env bats
# tune --apply against the real kernel, in a namespace of our own with a
# 4-queue ifb (never the host's devices): exactly the recommended values
# land in every queue, and nothing is written when the defaults are best.
# The host's eth0 is only read: its device model, and a capture of it made
# by record (read-only BPF) during downloads, fitted by tune --from.
bats_require_minimum_version 1.5.0
load netns
load capture

setup_file() {
	netns_create tune || return 0
	ip -n "$NS" link add t0 numtxqueues 4 type ifb || true
}

teardown_file() {
	netns_destroy
}

teardown() {
	traffic_stop
}

setup() {
	netns_require
	ip netns exec "$NS" test -d /sys/class/net/t0/queues/tx-3/byte_queue_limits ||
		skip "no 4-queue ifb with byte_queue_limits in the namespace (ifb module?)"
	unset BQLTOOL_HZ
}

bqn() {
	run --separate-stderr timeout 60 "$BQLTOOL" -n "$NS" "$@"
}

# all4 ATTR: the values of t0's 4 queues, space separated
all4() {
	local q out=""
	for q in 0 1 2 3; do
		out+="$(nsr t0 $q "$1") "
	done
	echo "${out% }"
}

@test "netns: tune --apply writes exactly the recommended values to every queue" {
	# ifb has no link speed: give the model's; one bulk flow (with a
	# backlogged flow on each of the 4 queues, 1G, their rings bound the
	# delay, not BQL: tune keeps the defaults) whose completions stall now
	# and then: hold_time is the advice that keeps the margin
	args=(tune t0 --link 1G --traffic bulk --stall 1s:2ms --stall 3s:2ms --duration 5)
	bqn -j "${args[@]}"
	assert_success
	jq -e '.keep_defaults == false' <<<"$output"
	min=$(jq .recommended.settings.limit_min <<<"$output")
	max=$(jq .recommended.settings.limit_max <<<"$output")
	hold=$(jq .recommended.settings.hold_time <<<"$output")
	[[ $(jq -r .command <<<"$output") == "bqltool set t0 limit_min=$min limit_max=$max hold_time=$hold" ]]
	bqn "${args[@]}" --apply
	assert_success
	assert_line "applying (old -> new):"
	assert_line --regexp "^t0:tx-0\.\.3 hold_time: 1000 ms -> $hold ms$"	# as show prints it, one line for the 4 queues
	assert_equal "$(all4 limit_min)" "$min $min $min $min"
	assert_equal "$(all4 limit_max)" "$max $max $max $max"
	assert_equal "$(all4 hold_time)" "$hold $hold $hold $hold"
}

# issue #37 class 3: "nothing applied: the defaults stay" about a queue
# that did not hold them (limit_min above limit_max, which check fails).
# Decided: where tune keeps the defaults, --apply writes the defaults
# (limit_min, limit_max, hold_time), all-or-nothing as set; nothing when
# every queue holds them already.
@test "netns: tune --apply writes the defaults when they are best and a queue does not hold them (#37 class 3)" {
	bqn reset t0
	assert_success
	nsw t0 1 limit_max 5000
	bqn tune t0 --link 1G --traffic poisson:300M --duration 0.2 --apply
	assert_success
	assert_line "applying the defaults (old -> new):"
	assert_line --regexp "^t0:tx-1 limit_max: 4\.88 KiB -> max$"
	assert_equal "$(all4 limit_max)" "1879048192 1879048192 1879048192 1879048192"
	# the issue's case: limit_min above limit_max (set --force)
	bqn set --force t0 limit_min=100000 limit_max=1000
	assert_success
	bqn tune t0 --apply --link 1G --traffic poisson:300M --duration 0.2
	assert_success
	assert_line "applying the defaults (old -> new):"
	refute_line "nothing applied: the defaults stay"
	assert_equal "$(all4 limit_min)" "0 0 0 0"
	assert_equal "$(all4 limit_max)" "1879048192 1879048192 1879048192 1879048192"
	bqn check t0
	assert_success
	# at the defaults: nothing to write, and it says so
	bqn tune t0 --link 1G --traffic poisson:300M --duration 0.2 --apply
	assert_success
	assert_line "nothing applied: the queues hold the defaults"
}

@test "netns: tune reads the device: its queues, without writing" {
	bqn reset t0
	bqn -j tune t0 --link 10G --duration 0.05
	assert_success
	jq -e '.device.ifname == "t0" and .device.nqueues == 4 and .model.nqueues == 4' <<<"$output"
	assert_equal "$(all4 limit_max)" "1879048192 1879048192 1879048192 1879048192"
}

@test "host (read only): tune models eth0's own TX ring and coalescing (ethtool -g / -c); options still win" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	command -v ethtool >/dev/null || skip "ethtool not installed"
	local ring usecs frames
	ring=$(ethtool -g eth0 2>/dev/null | awk '/^Current/ { s = 1 } s && /^TX:/ { print $2; exit }') || true
	usecs=$(ethtool -c eth0 2>/dev/null | awk '/^tx-usecs:/ { print $2 }') || true
	frames=$(ethtool -c eth0 2>/dev/null | awk '/^tx-frames:/ { print $2 }') || true
	[[ "$ring" =~ ^[0-9]+$ ]] || skip "eth0 reports no TX ring size"
	run --separate-stderr "$BQLTOOL" -j tune eth0 --link 1G --duration 0.05
	assert_success
	assert_equal "$(jq '.device.ring.tx' <<<"$output")" "$ring"
	assert_equal "$(jq '.model.ring' <<<"$output")" "$ring"
	if [[ "$usecs" =~ ^[0-9]+$ ]]; then
		assert_equal "$(jq '.device.coalesce.tx_usecs' <<<"$output")" "$usecs"
		assert_equal "$(jq '.model.coalesce_usecs' <<<"$output")" "$usecs"
	fi
	if [[ "$frames" =~ ^[0-9]+$ ]]; then
		assert_equal "$(jq '.model.coalesce_frames' <<<"$output")" "$frames"
	fi
	run --separate-stderr "$BQLTOOL" tune eth0 --link 1G --duration 0.05
	assert_success
	assert_regex "$output" "device eth0: .*ring $ring"
	# given options are the model's, the device's values stay reported
	run --separate-stderr "$BQLTOOL" -j tune eth0 --link 1G --duration 0.05 --ring 64 --coalesce-usecs 30 --coalesce-frames 8
	assert_success
	assert_equal "$(jq '.model.ring' <<<"$output")" 64
	assert_equal "$(jq '.model.coalesce_usecs' <<<"$output")" 30
	assert_equal "$(jq '.model.coalesce_frames' <<<"$output")" 8
	assert_equal "$(jq '.device.ring.tx' <<<"$output")" "$ring"
}

@test "netns: tune on an ifb (no ring, no coalescing reported) keeps the model's defaults and says so" {
	run --separate-stderr "$BQLTOOL" -n "$NS" tune t0:0 --link 1G --duration 0.05
	assert_success
	assert_regex "$output" "device t0: .*\(ring and tx-usecs not reported: t0: no ring parameters .*: the model's default\)"
	assert_regex "$output" "model: .* ring 256, coalescing 50 us"
}

# ---------------------------------------------------------- the device model

@test "netns: tune 'i*' over i0 (8 queues) and i1 (4) refuses before writing, naming what differs" {
	ip -n "$NS" link add i0 numtxqueues 8 type ifb
	ip -n "$NS" link add i1 numtxqueues 4 type ifb
	before="$(nsq i0 limit_max 8) $(nsq i1 limit_max 4)"
	bqn tune 'i*' --link 1G --coalesce-usecs 500 --duration 0.2 --apply
	ip -n "$NS" link del i0
	after1=$(nsq i1 limit_max 4)
	ip -n "$NS" link del i1
	assert_equal "$status" 2
	assert_output ""
	[[ $stderr == *"'i*' selects devices that differ in queue count (i0 8, i1 4)"* ]] || fail "$stderr"
	assert_equal "$after1" "${before#* * * * * * * * }"
}

@test "netns: tune reads the qdisc kind in front of the queues, as tc shows it" {
	local k fq=""
	# none (tc lists nothing for t0): the kind is absent, not guessed
	if [ "$(ip netns exec "$NS" tc -j qdisc show dev t0 | jq length)" = 0 ]; then
		bqn -j tune t0 --link 1G --duration 0.02
		assert_success
		jq -e '.device | has("qdisc") | not' <<<"$output"
	fi
	for k in pfifo bfifo pfifo_fast; do
		ip netns exec "$NS" tc qdisc replace dev t0 root "$k"
		bqn -j tune t0 --link 1G --duration 0.02
		assert_success
		assert_equal "$(jq -r '.device.qdisc.kind' <<<"$output")" "$k"
	done
	# a flow-isolating kind where the kernel has one (modules may be missing)
	for k in fq_codel fq sfq; do
		ip netns exec "$NS" tc qdisc replace dev t0 root "$k" 2>/dev/null && { fq=$k; break; }
	done
	if [ -n "$fq" ]; then
		bqn -j tune t0 --link 1G --duration 0.02
		assert_success
		assert_equal "$(jq -r '.device.qdisc.kind' <<<"$output")" "$fq"
	fi
	ip netns exec "$NS" tc qdisc del dev t0 root 2>/dev/null || true
	[ -n "$fq" ] || skip "pfifo, bfifo, pfifo_fast checked; no fq_codel, fq or sfq in this kernel"
}

@test "host (read only): tune eth0 with no link speed and no --link says why it cannot recommend (exit 2)" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	local sp
	sp=$(cat /sys/class/net/eth0/speed 2>/dev/null) || sp=-1
	[ "$sp" = -1 ] || skip "eth0 reports a link speed ($sp Mbit/s)"
	run --separate-stderr "$BQLTOOL" tune eth0 --duration 0.02
	assert_equal "$status" 2
	assert_output ""
	[[ $stderr == *"eth0: link speed unknown"*"give --link RATE"* ]] || fail "$stderr"
	run --separate-stderr "$BQLTOOL" tune eth0 --link 1G --duration 0.05
	assert_success
	assert_line --regexp '^(recommended|keep the defaults)'
}

# eth0's BQL settings and qdisc, to show that nothing was written
eth0_state() {
	local q
	for q in /sys/class/net/eth0/queues/tx-*/byte_queue_limits; do
		echo "$q $(cat "$q/limit_min" "$q/limit_max" "$q/hold_time" | tr '\n' ' ')"
	done
	tc qdisc show dev eth0
}

@test "host (read only): tune eth0 --from a capture of eth0 during downloads: refused naming --link, or advice; with --link 1G, advice with the fit shown" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	capture_require
	local t="$BATS_TEST_TMPDIR/eth0.bqt.zst" before
	before=$(eth0_state)
	traffic_start
	run --separate-stderr timeout 60 "$BQLTOOL" record eth0 -d 10 -o "$t"
	traffic_stop
	assert_success
	# the capture has what a fit needs: completions (C records only, nq= lo=)
	[ "$(zstdcat "$t" | grep -c ' C ')" -ge 20 ] || fail "$(zstdcat "$t" | grep -c ' C ') completions in 10 s"
	# an eth0 capture never shows the link busy: it cannot be seen, so --link is named
	run --separate-stderr timeout 120 "$BQLTOOL" tune eth0 --from "$t" --duration 0.05
	if [ "$status" -ne 0 ]; then
		assert_equal "$status" 1
		assert_output ""
		[[ $stderr == *"eth0.bqt.zst: the trace fits no model, so there is no recommendation: the link rate cannot be seen"*"give --link"* ]] ||
			fail "$stderr"
		# the link is the only thing that does not fit
		[[ $stderr != *"does not reproduce"* ]] || fail "$stderr"
	else
		assert_line --regexp '^(recommended|keep the defaults)'
		assert_line --regexp '^  goodness of fit .*: fits$'
	fi
	run --separate-stderr timeout 120 "$BQLTOOL" tune eth0 --from "$t" --link 1G --duration 0.05
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_line --regexp '^(recommended \(\*\)|keep the defaults): '
	assert_line --regexp '^fitted from .*eth0\.bqt\.zst: link rate not observable \(assumed 1 Gbit/s\); completions every [0-9.]+ [mu]?s \(median\) of [0-9.]+ [KMG]?i?B -> coalesce-usecs [0-9]+; offered [0-9.]+ [kMG]?bit/s .*; packets [0-9]+\.\.[0-9]+ bytes, mean [0-9]+'
	assert_line --regexp '^  goodness of fit \(the model simulated vs the trace\): completion interval .* vs .*, [0-9.]+ [KMG]?i?B vs [0-9.]+ [KMG]?i?B per completion .*: fits$'
	run --separate-stderr timeout 120 "$BQLTOOL" -j tune eth0 --from "$t" --link 1G --duration 0.05
	assert_success
	jq -e '.model.link_bps == 1000000000 and .fitted.misfit == [] and .fitted.goodness_of_fit.ok' <<<"$output"
	# record writes C records only: the sizes come from lo=, never the 1514 assumed
	jq -e '.fitted.packet_sizes_seen and .fitted.packet_sizes_from == "last_obj_cnt" and .fitted.completions >= 20' <<<"$output"
	jq -e '.recommended.settings | .limit_max > 0 and .hold_time > 0' <<<"$output"
	assert_equal "$(eth0_state)" "$before"
}
