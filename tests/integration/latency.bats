#!/usr/bin/env bats
# latency against the real kernel. The qdisc checks run in a namespace of
# our own (ifb devices under mq, a tbf or pfifo child per queue, frames from
# AF_PACKET); the ring time observes the host's eth0 read-only (BPF reads,
# nothing written to any device) during package downloads, against record
# --queued of the same window. Every case checks that no BPF program,
# link or map of the observer outlives it.
bats_require_minimum_version 1.5.0
load netns
load capture

# latency's BPF programs and maps (lib/kernel/bpf/latency.bpf.c), as bpftool shows them
LAT_PROGS='^(lat_enq|lat_deq|lat_start|lat_xmit|lat_napi|lat_raise|lat_sentry|lat_sexit|lat_drop|lat_stall|lat_timeout|lat_find)$'
LAT_MAPS='^(lat_enq_ts|lat_hists|lat_cpu_irq|lat_cnts|lat_drops|lat_fifos|lat_xs|lat_sirq|lat_ev|lat_popn|latency_\.bss)$'
TOOLS="$BATS_TEST_DIRNAME/../tools"
# tbf: 8 Mbit/s = 1,000,000 bytes/s per queue; frames of 1000 bytes
RATE_PPS=1000

setup_file() {
	netns_create lat || return 0
	ip -n "$NS" link add t0 numtxqueues 2 type ifb || true
	ip -n "$NS" link set t0 up || true
	ip netns exec "$NS" tc qdisc add dev t0 root handle 1: mq || true
	local q
	for q in 1 2; do
		ip netns exec "$NS" tc qdisc add dev t0 parent 1:$q handle 1$q: \
			tbf rate 8mbit burst 5000 limit 60000 || true
	done
	ip -n "$NS" link add p0 numtxqueues 2 type ifb || true
	ip -n "$NS" link set p0 up || true
	ip netns exec "$NS" tc qdisc add dev p0 root handle 1: mq || true
	for q in 1 2; do
		ip netns exec "$NS" tc qdisc add dev p0 parent 1:$q handle 2$q: pfifo limit 1000 || true
	done
}

teardown_file() {
	netns_destroy
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF, network namespaces)"
}

teardown() {
	[ -z "${SAMPLER:-}" ] || { touch "$BATS_TEST_TMPDIR/stop"; wait "$SAMPLER" 2>/dev/null || true; }
	[ -z "${LAT_PID:-}" ] || { kill -KILL "$LAT_PID" 2>/dev/null; wait "$LAT_PID" 2>/dev/null || true; }
	[ -z "${REC_PID:-}" ] || { kill -KILL "$REC_PID" 2>/dev/null; wait "$REC_PID" 2>/dev/null || true; }
	traffic_stop
}

lat_progs() {
	bpftool -j prog list 2>/dev/null | jq -r '.[].name // empty' | grep -E "$LAT_PROGS" || true
}
lat_maps() {
	bpftool -j map list 2>/dev/null | jq -r '.[].name // empty' | grep -E "$LAT_MAPS" || true
}
lat_links() {
	local ids
	ids=$(bpftool -j prog list 2>/dev/null |
		jq -r --arg re "$LAT_PROGS" '.[] | select((.name // "") | test($re)) | .id')
	[ -n "$ids" ] || return 0
	bpftool -j link list 2>/dev/null | jq -r '.[].prog_id' | grep -xF "$ids" || true
}

# the kernel frees programs through RCU after the last fd closes: wait up to 3 s
assert_nothing_attached() {
	local i
	for i in $(seq 30); do
		[ -n "$(lat_progs)$(lat_links)$(lat_maps)" ] || break
		sleep 0.1
	done
	assert_equal "$(lat_progs)" ""
	assert_equal "$(lat_links)" ""
	assert_equal "$(lat_maps)" ""
}

# the observer can attach here (else skip with the kernel's reason)
lat_require() {
	local probe="$BATS_FILE_TMPDIR/latprobe" rc=0
	if [ ! -f "$probe" ]; then
		timeout 30 "$BQLTOOL" latency -n "$NS" t0 -d 0.2 >/dev/null 2>"$probe.err" || rc=$?
		echo "$rc" >"$probe"
	fi
	rc=$(cat "$probe")
	[ "$rc" -eq 0 ] && return 0
	if grep -qE "Operation not permitted|Permission denied|without BPF support|not supported" "$probe.err"; then
		skip "the latency observer cannot attach here: $(tr '\n' ' ' <"$probe.err" | head -c 300)"
	fi
	fail "latency failed (exit $rc): $(cat "$probe.err")"
}

# start_latency OUT ARGS...: latency -v in the background; returns once attached
start_latency() {
	local out=$1 i
	shift
	"$BQLTOOL" -v latency "$@" >"$out" 2>"$out.err" &
	LAT_PID=$!
	for i in $(seq 300); do
		grep -q "observing" "$out.err" 2>/dev/null && return 0
		kill -0 "$LAT_PID" 2>/dev/null || fail "latency ended early: $(cat "$out.err")"
		sleep 0.05
	done
	fail "latency did not attach in 15 s: $(cat "$out.err")"
}

wait_latency() {
	local rc=0
	wait "$LAT_PID" || rc=$?
	LAT_PID=
	return $rc
}

@test "latency: qdisc wait on tbf queues filled above their rate matches Little's law (backlog from tc) within 10%" {
	netns_require
	lat_require
	local out="$BATS_TEST_TMPDIR/lat.json"
	python3 "$TOOLS/tcbacklog.py" "$NS" t0 "$BATS_TEST_TMPDIR/stop" >"$BATS_TEST_TMPDIR/tc.json" &
	SAMPLER=$!
	sleep 0.3
	start_latency "$out" -j -n "$NS" t0 -d 6
	# 1.5 times the rate of each queue, 8 flows over the two queues, 3 s
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((3 * RATE_PPS)) 3 8 >/dev/null
	wait_latency
	touch "$BATS_TEST_TMPDIR/stop"
	wait "$SAMPLER"
	SAMPLER=
	assert_nothing_attached
	run python3 - "$out" "$BATS_TEST_TMPDIR/tc.json" <<-'EOF'
	import json, sys
	lat, tc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
	checked = 0
	for q in lat["devices"][0]["queues"]:
	    a = tc["1:%d" % (q["queue"] + 1)]
	    if a["bytes"] < 500000:
	        continue
	    assert a["first_backlog"] == 0 and a["last_backlog"] == 0, a
	    assert a["max_backlog"] > 20000, ("never backlogged", a)
	    little = a["integral"] / a["bytes"] * 1e9
	    w = q["qdisc_wait"]
	    print("%s: mean wait %.2f ms measured, %.2f ms by Little's law (%d tc samples), "
	          "%d packets, p50 %.2f ms p99 %.2f ms, bypass %d"
	          % (q["name"], w["mean"] / 1e6, little / 1e6, a["samples"], w["count"],
	             w["p50"] / 1e6, w["p99"] / 1e6, q["bypass"]))
	    assert abs(w["mean"] - little) <= 0.10 * little, "off by more than 10%"
	    # the packets the tbf sent were timed: stamped at enqueue, seen leaving (a
	    # percent or so pass both qdisc_dequeue and net_dev_start_xmit without
	    # their programs running, on this kernel: the README's caveat)
	    assert q["untimed"] == 0 and q["dequeued"] >= 0.97 * a["packets"], (q["dequeued"], a["packets"])
	    assert q["enqueued"] == a["packets"], (q["enqueued"], a["packets"])
	    assert q["bypass"] == 0
	    checked += 1
	assert checked >= 1, "no queue carried traffic"
	EOF
	echo "$output" | sed 's/^/# /' >&3
	assert_success
}

@test "latency: below the rate, tbf queues wait next to nothing (tbf cannot be bypassed) and pfifo queues are bypassed" {
	netns_require
	lat_require
	local out="$BATS_TEST_TMPDIR/lat.json"
	start_latency "$out" -j -n "$NS" t0 p0 -d 4
	# 0.4 times the rate of each tbf queue, on both devices at once
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((8 * RATE_PPS / 10)) 2 8 >/dev/null &
	local sender=$!
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" p0 1000 $((8 * RATE_PPS / 10)) 2 8 >/dev/null
	wait "$sender"
	wait_latency
	assert_nothing_attached
	run python3 - "$out" <<-'EOF'
	import json, sys
	lat = json.load(open(sys.argv[1]))
	devs = {d["ifname"]: d for d in lat["devices"]}
	t0, p0 = devs["t0"], devs["p0"]
	for d in (t0, p0):
	    w = d["qdisc_wait"]
	    print("%s: %d packets, bypass %d (%.1f%%), p50 %d ns p90 %d ns p99 %d ns, mean %.0f ns"
	          % (d["ifname"], w["count"], d["bypass"], 100 * d.get("bypass_share", 0),
	             w["p50"], w["p90"], w["p99"], w["mean"]))
	assert t0["qdisc_wait"]["count"] >= 1000 and p0["qdisc_wait"]["count"] >= 1000
	# tbf sets no TCQ_F_CAN_BYPASS: every packet is enqueued, and leaves at once
	assert t0["bypass"] == 0 and t0["enqueued"] == t0["qdisc_wait"]["count"]
	assert t0["qdisc_wait"]["p90"] < 200000, "tbf below its rate held packets"
	# pfifo can be bypassed: an empty queue sends straight to the driver
	assert p0["bypass_share"] >= 0.95, p0["bypass_share"]
	assert p0["qdisc_wait"]["p90"] == 0
	EOF
	echo "$output" | sed 's/^/# /' >&3
	assert_success
}

@test "latency: SIGINT, SIGTERM and SIGHUP end the run and print it; SIGKILL leaves nothing attached" {
	netns_require
	lat_require
	local sig out
	for sig in INT TERM HUP; do
		out="$BATS_TEST_TMPDIR/$sig.json"
		start_latency "$out" -j -n "$NS" t0
		ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 200 0.5 4 >/dev/null
		kill -"$sig" "$LAT_PID"
		local rc=0
		wait_latency || rc=$?
		assert_equal "$rc" 0
		assert_nothing_attached
		jq -e '.devices[0].qdisc_wait.count >= 50' "$out" >/dev/null ||
			fail "$sig: no report: $(cat "$out" "$out.err")"
	done
	start_latency "$BATS_TEST_TMPDIR/kill.json" -n "$NS" t0
	[ -n "$(lat_links)" ]
	[ -n "$(lat_maps)" ]
	kill -KILL "$LAT_PID"
	wait "$LAT_PID" || true
	LAT_PID=
	assert_nothing_attached
}

@test "latency: ring time on eth0 during downloads agrees with record --queued of the same window, computed offline (--from)" {
	capture_require
	lat_require
	local t="$BATS_TEST_TMPDIR/eth0.bqlt" out="$BATS_TEST_TMPDIR/eth0.json"
	traffic_start
	"$BQLTOOL" record --queued eth0 -d 20 -o "$t" 2>"$BATS_TEST_TMPDIR/rec.err" &
	REC_PID=$!
	start_latency "$out" -j eth0 -d 20
	wait_latency
	wait "$REC_PID"
	REC_PID=
	traffic_stop
	assert_nothing_attached
	run --separate-stderr "$BQLTOOL" -j latency --from "$t"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/from.json"
	# The same definition both ways: a packet's time runs from the observation
	# after the driver queued it (net_dev_xmit) to the first observation where
	# num_completed has passed its last byte (net_dev_xmit, napi_poll). The
	# windows differ by the two start-ups (tens of ms of 20 s), so a few packets
	# are in one and not the other; the live side reads percentiles from
	# buckets 1/8 of an octave wide (12.5%), the offline side from the same
	# buckets. p50 sits in a dense bucket: 15%. p99 is about the 10th largest
	# of ~1000 values, where one packet more or less moves it to the next
	# order statistic of a sparse tail: 30%.
	run python3 - "$out" "$BATS_TEST_TMPDIR/from.json" <<-'EOF'
	import json, sys
	live = json.load(open(sys.argv[1]))["devices"][0]["queues"][0]
	off = json.load(open(sys.argv[2]))["queues"][0]
	a, b = live["ring_time"], off["ring_time"]
	print("eth0:tx-0 ring time live: %d packets, p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us"
	      % (a["count"], a["p50"] / 1e3, a["p90"] / 1e3, a["p99"] / 1e3, a["max"] / 1e3))
	print("eth0:tx-0 ring time from record --queued: %d packets, p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us"
	      % (b["count"], b["p50"] / 1e3, b["p90"] / 1e3, b["p99"] / 1e3, b["max"] / 1e3))
	assert a["count"] >= 200 and b["count"] >= 200, "too little traffic"
	assert abs(a["p50"] - b["p50"]) <= 0.15 * b["p50"], "p50"
	assert abs(a["p99"] - b["p99"]) <= 0.30 * b["p99"], "p99"
	EOF
	echo "$output" | sed 's/^/# /' >&3
	assert_success
}

@test "latency: unknown device, device without BQL, bad netns: exit 1, nothing attached" {
	run --separate-stderr timeout 20 "$BQLTOOL" latency nosuchdev0 -d 1
	assert_failure 1
	assert_regex "$stderr" "nosuchdev0: no such device"
	run --separate-stderr timeout 20 "$BQLTOOL" latency lo -d 1
	assert_failure 1
	assert_regex "$stderr" "lo: device does not use BQL"
	assert_output ""
	assert_nothing_attached
}

@test "latency: no permission (uid nobody): exit 1 naming the need" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	run --separate-stderr timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BQLTOOL" latency eth0 -d 1
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "needs root, or CAP_BPF and CAP_PERFMON"
	assert_nothing_attached
}

@test "check --interval: the evidence in time, from the observer, on a tbf queue filled above its rate" {
	netns_require
	lat_require
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((3 * RATE_PPS)) 3 8 >/dev/null &
	local sender=$!
	run --separate-stderr timeout 30 "$BQLTOOL" -n "$NS" check -i 2 t0
	wait "$sender"
	echo "$output" | sed 's/^/# /' >&3
	assert_regex "$output" "p99 qdisc wait [0-9.]+ ms \(0% bypass\); no stop"
	assert_nothing_attached
	# as nobody: no observer, the rest as before
	command -v setpriv >/dev/null || return 0
	run --separate-stderr timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BQLTOOL" -v check -i 0.2 eth0
	refute_regex "$output" "ring time"
	assert_regex "$stderr" "no time in the transmit path: observing the kernel needs root"
}

@test "export --latency: summaries of the window (qdisc wait of a tbf queue above its rate), promtool-clean" {
	netns_require
	lat_require
	command -v promtool >/dev/null || skip "promtool not installed"
	local tf="$BATS_TEST_TMPDIR/tf"
	mkdir -p "$tf"
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((3 * RATE_PPS)) 3 8 >/dev/null &
	local sender=$!
	sleep 0.5
	run --separate-stderr timeout 30 "$BQLTOOL" -n "$NS" export --textfile "$tf" --latency 2 t0
	wait "$sender"
	assert_success
	assert_equal "$stderr" ""
	local f="$tf/bqltool-netns-$NS.prom"
	run promtool check metrics <"$f"
	assert_success
	grep -E '^bql_latency_window_seconds\{netns="[^"]+"\} 2\.' "$f"
	# the queues waited tens of ms (limit 60000 bytes at 1 MB/s)
	awk '/^bql_qdisc_wait_seconds\{.*quantile="0.5"\}/ { if ($2 > 0.01) ok = 1 } END { exit !ok }' "$f" ||
		fail "no qdisc wait above 10 ms: $(grep qdisc_wait "$f")"
	grep -qE '^bql_latency_window_stops\{device="t0",queue="tx-0",cause="bql",netns=' "$f"
	assert_nothing_attached
}

@test "record --latency: the observer's summaries end the trace as comments; replay --verify and latency --from read it as before" {
	capture_require
	lat_require
	local t="$BATS_TEST_TMPDIR/l.bqlt"
	traffic_start
	run --separate-stderr timeout 60 "$BQLTOOL" record --queued --latency eth0 -d 8 -o "$t"
	traffic_stop
	assert_success
	assert_nothing_attached
	grep '^# latency ' "$t" | sed 's/^/# /' >&3
	grep -qE '^# latency window_ns=[0-9]+ ' "$t"
	grep -qE '^# latency eth0:tx-0 ring_time p50=[0-9]+ p90=[0-9]+ p99=[0-9]+ max=[0-9]+ count=[1-9][0-9]*$' "$t"
	grep -qE '^# latency eth0:tx-0 irq_delay p50=[0-9]+ ' "$t"
	grep -qE '^# latency eth0:tx-0 qdisc_wait p50=[0-9]+ .* bypass=[0-9]+$' "$t"
	grep -qE '^# latency eth0:tx-0 stops bql=[0-9]+ ring=[0-9]+ both=[0-9]+ ' "$t"
	run --separate-stderr "$BQLTOOL" -j replay --verify "$t"
	assert_success
	assert_equal "$(jq '[.queues[].verify.mismatches] | add' <<<"$output")" 0
	# the live summary and the offline ring time of the same capture agree (as above)
	run --separate-stderr "$BQLTOOL" -j latency --from "$t"
	assert_success
	local live off
	live=$(sed -n 's/^# latency eth0:tx-0 ring_time p50=\([0-9]*\) .*/\1/p' "$t")
	off=$(jq '.queues[0].ring_time.p50' <<<"$output")
	echo "# ring time p50: $live ns live, $off ns from the Q and C records" >&3
	python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 0.15 * b)" "$live" "$off"
}

@test "top -b: RING P99 / QDISC P99 and stops per second from the observer; -j the same keys as latency" {
	netns_require
	lat_require
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((3 * RATE_PPS)) 6 8 >/dev/null &
	local sender=$!
	sleep 0.5
	run --separate-stderr timeout 30 "$BQLTOOL" -n "$NS" -j top -b -c 3 -d 1 t0
	assert_success
	local last
	last=$(tail -n 1 <<<"$output")
	jq -e '.latency.on == true' <<<"$last" >/dev/null
	jq -c '.devices[0].queues[] | {queue, qdisc_wait: .qdisc_wait.p99, stops}' <<<"$last" | sed 's/^/# /' >&3
	# filled above their rate: tens of ms in the qdisc (60000 bytes at 1 MB/s)
	jq -e '[.devices[0].queues[] | select(.qdisc_wait.count > 100) | .qdisc_wait.p99 > 10000000] | length > 0 and all' <<<"$last" >/dev/null
	jq -e '.devices[0].queues[0].stops.bql | has("count") and has("per_sec")' <<<"$last" >/dev/null
	assert_nothing_attached
	run --separate-stderr timeout 30 "$BQLTOOL" -n "$NS" top -b -c 2 -d 0.5 t0
	wait "$sender"
	assert_success
	# ifb counts no BQL bytes: no ring time, the other three
	assert_regex "$output" "qdisc_p99 +bqlstop/s +ringstop/s"
	assert_regex "$output" "t0 +tx-[01] .* [0-9.]+ ms +0\.0 +0\.0"
	assert_nothing_attached
	# without root: off, and why
	command -v setpriv >/dev/null || return 0
	run --separate-stderr timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BQLTOOL" -j top -b -c 1 eth0
	jq -e '.latency.on == false and (.latency.why | test("needs root"))' <<<"$output" >/dev/null
}

@test "top's live view: the header says latency on and the measured columns show (eth0, read only)" {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	command -v tmux >/dev/null || skip "tmux is not installed"
	lat_require
	local sock="bqlt-lat-$$" i ok=0
	tmux -L "$sock" -f /dev/null new-session -d -x 320 -y 20 \
		"LANG=C.UTF-8 TERM=tmux-256color $BQLTOOL top -d 0.3 eth0; sleep 600"
	for i in $(seq 100); do
		if tmux -L "$sock" capture-pane -p | grep -q "latency on, 1 queue" &&
		   tmux -L "$sock" capture-pane -p | grep -qE "RING P99 +QDISC P99 +BQLSTOP/S +RINGSTOP/S"; then
			ok=1
			break
		fi
		sleep 0.1
	done
	tmux -L "$sock" capture-pane -p | head -5 | sed 's/^/# /' >&3
	tmux -L "$sock" send-keys q
	sleep 0.5
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ "$ok" = 1 ]
	assert_nothing_attached
}

@test "latency: a kernel without a tracepoint gets the rest and a word on what is missing" {
	netns_require
	lat_require
	BQLTOOL_LATENCY_NO_TP=dql_stall_detected,softirq_raise \
		run --separate-stderr timeout 30 "$BQLTOOL" -j latency -n "$NS" t0 -d 0.5
	assert_success
	assert_regex "$stderr" "warning: this kernel has no tracepoint irq:softirq_raise, napi:dql_stall_detected: what it shows is not measured"
	assert_equal "$(jq -r .missing <<<"$output")" "irq:softirq_raise, napi:dql_stall_detected"
	jq -e '.devices[0].queues | length == 2' <<<"$output" >/dev/null
	# without the transmit tracepoints nothing can be measured: a clear failure
	BQLTOOL_LATENCY_NO_TP=net_dev_start_xmit run --separate-stderr timeout 30 "$BQLTOOL" latency -n "$NS" t0 -d 0.5
	assert_failure 1
	assert_regex "$stderr" "this kernel has no tracepoint net:net_dev_start_xmit: no transmit can be observed"
	assert_nothing_attached
}

@test "latency: BQLTOOL_LATENCY_STATS=1 -v prints each program that ran, with its runs and run time (the kernel's statistics)" {
	netns_require
	lat_require
	ip netns exec "$NS" python3 "$TOOLS/pktpace.py" t0 1000 $((RATE_PPS / 2)) 2 4 >/dev/null &
	local sender=$!
	run --separate-stderr timeout 30 env BQLTOOL_LATENCY_STATS=1 "$BQLTOOL" -v latency -n "$NS" t0 -d 1.5
	wait "$sender"
	assert_success
	echo "$stderr" | grep 'BPF program' | sed 's/^/# /' >&3
	# every packet sent passes the qdisc: its two programs ran, and took time
	grep -qE '^bqltool: latency: BPF program lat_enq: [1-9][0-9]* runs, [1-9][0-9]* ns, [0-9]+ ns per run$' <<<"$stderr"
	grep -qE '^bqltool: latency: BPF program lat_deq: [1-9][0-9]* runs, [1-9][0-9]* ns' <<<"$stderr"
	# a program that never ran is not listed (lat_find runs once, by test run)
	! grep -qE 'BPF program lat_timeout' <<<"$stderr"
	assert_nothing_attached
}
