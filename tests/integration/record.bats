#!/usr/bin/env bats
# record against the real kernel. Captures observe the host's eth0 only
# (BPF reads; nothing is written to any device) while the test makes
# ordinary package-archive traffic; refusals use devices of a namespace of
# our own. Every case checks that no BPF program of record's outlives it.
bats_require_minimum_version 1.5.0
load netns

# record's BPF program names (lib/bpf/record.bpf.c), as bpftool shows them
REC_PROGS='^(rec_trap|rec_xmit|rec_fexit_compl|rec_fentry_comp|rec_fexit_reset|find_dql)$'
# a few large packages for traffic (downloaded into a temp dir, deleted)
PKGS="llvm-14 libllvm14 clang-14 libclang-cpp14 gcc-12"

setup_file() {
	netns_create rec || return 0
	ip -n "$NS" link add i8 numtxqueues 8 type ifb || true
	ip -n "$NS" link set i8 up || true
	ip -n "$NS" link add va type veth peer name vb || true
}

teardown_file() {
	netns_destroy
}

setup() {
	unset BQLTOOL_HZ
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF and perf breakpoints)"
}

teardown() {
	traffic_stop
	[ -z "${DL_DIR:-}" ] || rm -rf "$DL_DIR"
}

# our programs loaded right now (names), one per line
rec_progs() {
	bpftool -j prog list 2>/dev/null | jq -r '.[].name // empty' | grep -E "$REC_PROGS" || true
}

# our maps (the ring buffer, the counters, the skeleton's .bss)
REC_MAPS='^(rb|stats|record_b\.bss)$'
rec_maps() {
	bpftool -j map list 2>/dev/null | jq -r '.[].name // empty' | grep -E "$REC_MAPS" || true
}

# the links of our programs
rec_links() {
	local ids
	ids=$(bpftool -j prog list 2>/dev/null |
		jq -r --arg re "$REC_PROGS" '.[] | select((.name // "") | test($re)) | .id')
	[ -n "$ids" ] || return 0
	bpftool -j link list 2>/dev/null | jq -r '.[].prog_id' | grep -xF "$ids" || true
}

# The kernel frees a program after its last fd is closed through RCU, so
# for a moment after the command exits it may still be listed: wait up to
# 3 s for the lists to settle, then they must be empty.
assert_nothing_attached() {
	local i
	for i in $(seq 30); do
		[ -n "$(rec_progs)$(rec_links)$(rec_maps)" ] || break
		sleep 0.1
	done
	assert_equal "$(rec_progs)" ""
	assert_equal "$(rec_links)" ""
	assert_equal "$(rec_maps)" ""
}

# capture_require: eth0 with BQL, and BPF + breakpoints permitted (else skip, saying why)
capture_require() {
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] ||
		skip "no eth0 with byte_queue_limits on this host"
	local probe="$BATS_FILE_TMPDIR/probe" rc=0
	if [ ! -f "$probe" ]; then
		# the probe's own failure must never fail the test (bats runs under set -e)
		timeout 20 "$BQLTOOL" record eth0 -d 0.3 >/dev/null 2>"$probe.err" || rc=$?
		echo "$rc" >"$probe"
	fi
	rc=$(cat "$probe")
	[ "$rc" -eq 0 ] && return 0
	# every backend refused by this kernel: skip with the kernel's reason
	if grep -qE "Operation not permitted|Permission denied|without BPF support|not supported|No such device" \
		"$probe.err"; then
		skip "no record backend can attach here: $(tr '\n' ' ' <"$probe.err" | head -c 300)"
	fi
	fail "record eth0 failed (exit $rc): $(cat "$probe.err")"
}

# traffic_start: download packages in a loop into a temp dir, in the
# background, as a process group of its own (apt-get has helper children)
traffic_start() {
	DL_DIR=$(mktemp -d)
	setsid bash -c '
		cd "$1" || exit 1; shift
		apt-get download -q "$@" >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 && apt-get download -q "$@" >/dev/null 2>&1; }
		while :; do
			rm -f ./*.deb
			apt-get download -q "$@" >/dev/null 2>&1 || sleep 1
		done' traffic "$DL_DIR" $PKGS &
	DL_PID=$!
}

traffic_stop() {
	[ -n "${DL_PID:-}" ] || return 0
	kill -TERM -- "-$DL_PID" 2>/dev/null || kill "$DL_PID" 2>/dev/null
	wait "$DL_PID" 2>/dev/null || true
	DL_PID=
	rm -rf "$DL_DIR"
}

# verified TRACE: replay -j --verify; sets CHECKED and MISMATCHES
verified() {
	run --separate-stderr timeout 60 "$BQLTOOL" -j replay --verify "$1"
	assert_success
	CHECKED=$(jq '[.queues[].verify.checked] | add' <<<"$output")
	MISMATCHES=$(jq '[.queues[].verify.mismatches] | add' <<<"$output")
}

@test "record eth0 -d 20 -o t.bqt.zst during downloads: replay --verify reproduces every limit, nothing stays attached" {
	capture_require
	assert_nothing_attached
	local t="$BATS_TEST_TMPDIR/t.bqt.zst"
	traffic_start
	timeout 60 "$BQLTOOL" -v record eth0 -d 20 -o "$t" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$!
	sleep 5
	# while recording, our programs are loaded and linked (so the checks below can see them)
	[ -n "$(rec_progs)" ]
	[ -n "$(rec_links)" ]
	[ -n "$(rec_maps)" ]
	# and one SCHED_IDLE spinner runs per CPU (watchpoint backend)
	if grep -q "with the watchpoint backend" "$BATS_TEST_TMPDIR/err"; then
		assert_equal "$(pgrep -x bqltool-spin | wc -l)" "$(grep -c ^processor /proc/cpuinfo)"
		for p in $(pgrep -x bqltool-spin); do
			chrt -p "$p" | grep -q SCHED_IDLE
		done
	fi
	wait "$pid"
	traffic_stop
	cat "$BATS_TEST_TMPDIR/err" >&3 || true
	assert_nothing_attached
	run pgrep -x bqltool-spin
	assert_failure
	run -0 sh -c "zstd -dc '$t' | head -1"
	assert_output "bqltrace 1"
	zstd -dc "$t" | grep -q '^# backend watchpoint: \|^# backend fentry: '
	zstd -dc "$t" | grep -q '^# selfcheck events='
	verified "$t"
	echo "# checked $CHECKED, mismatches $MISMATCHES" >&3
	assert_equal "$MISMATCHES" 0
	[ "$CHECKED" -ge 200 ]
}

@test "record -o t.bqt.gz --queued: Q records, the gzip capture replays with 0 mismatches" {
	capture_require
	local t="$BATS_TEST_TMPDIR/t.bqt.gz"
	traffic_start
	run --separate-stderr timeout 60 "$BQLTOOL" record --queued eth0 -d 8 -o "$t"
	traffic_stop
	assert_success
	assert_nothing_attached
	gzip -t "$t"
	run -0 sh -c "gzip -dc '$t' | grep -c ' Q '"
	[ "$output" -gt 0 ]
	verified "$t"
	assert_equal "$MISMATCHES" 0
	[ "$CHECKED" -gt 0 ]
}

@test "record -c N to stdout: exactly N C records, then a clean end" {
	capture_require
	traffic_start
	run --separate-stderr timeout 60 "$BQLTOOL" record eth0 -c 25
	traffic_stop
	assert_success
	assert_nothing_attached
	assert_equal "$(grep -c ' eth0:tx-0 C ' <<<"$output")" 25
	assert_equal "$(grep -c ' eth0:tx-0 S ' <<<"$output")" "$(( $(grep -c 'MISSED C' <<<"$output") + 1 ))"
	grep -q '^# selfcheck eth0:tx-0 ' <<<"$output"
}

@test "record: SIGINT and SIGTERM end the capture cleanly, -o committed with the footer" {
	capture_require
	local sig
	for sig in INT TERM; do
		local t="$BATS_TEST_TMPDIR/$sig.bqt"
		"$BQLTOOL" record eth0 -o "$t" 2>"$BATS_TEST_TMPDIR/$sig.err" &
		local pid=$!
		sleep 2
		[ ! -e "$t" ]	# written atomically: nothing before the end
		kill -"$sig" "$pid"
		local rc=0
		wait "$pid" || rc=$?
		assert_equal "$rc" 0
		assert_nothing_attached
		grep -q '^# selfcheck events=' "$t"
		run --separate-stderr "$BQLTOOL" replay --verify "$t"
		assert_success
		# the idle spinners are gone too
		run pgrep -x bqltool-spin
		assert_failure
	done
}

@test "record: a write error on stdout fails, nothing stays attached" {
	capture_require
	run --separate-stderr timeout 20 sh -c "'$BQLTOOL' record eth0 -d 3 >/dev/full"
	assert_failure 1
	assert_regex "$stderr" "write error"
	assert_nothing_attached
}

@test "record: unknown device, device without BQL: exit 1, no file, nothing attached" {
	local t="$BATS_TEST_TMPDIR/x.bqt"
	run --separate-stderr timeout 20 "$BQLTOOL" record nosuchdev0 -d 1 -o "$t"
	assert_failure 1
	assert_regex "$stderr" "nosuchdev0: no such device"
	run --separate-stderr timeout 20 "$BQLTOOL" record lo -d 1 -o "$t"
	assert_failure 1
	assert_regex "$stderr" "lo: device does not use BQL"
	[ ! -e "$t" ]
	assert_nothing_attached
}

@test "record -n NS: a veth does not use BQL; 8 ifb queues exceed the debug registers" {
	netns_require
	local t="$BATS_TEST_TMPDIR/x.bqt"
	run --separate-stderr timeout 20 "$BQLTOOL" record -n "$NS" va -d 1 -o "$t"
	assert_failure 1
	assert_regex "$stderr" "va: device does not use BQL"
	ip netns exec "$NS" test -d /sys/class/net/i8/queues/tx-7/byte_queue_limits ||
		skip "no 8-queue ifb in the namespace"
	capture_require
	run --separate-stderr timeout 20 "$BQLTOOL" record -n "$NS" i8 -d 1 -o "$t"
	if grep -q "backend fentry" <<<"$stderr"; then skip "fentry backend: no register limit"; fi
	assert_failure 1
	assert_regex "$stderr" "8 queues selected, but the watchpoint backend can record at most 4 at once: each queue takes 1 of the 4 hardware debug registers per CPU; select fewer \(e.g. i8:0-3\)"
	run --separate-stderr timeout 20 "$BQLTOOL" -n "$NS" record --queued i8:0-2 -d 1 -o "$t"
	assert_failure 1
	assert_regex "$stderr" "at most 2 at once with --queued"
	[ ! -e "$t" ]
	assert_nothing_attached
}

@test "record -n NS i8:0-3: resolves the namespace's queues; ifb never completes, so no seed" {
	netns_require
	ip netns exec "$NS" test -d /sys/class/net/i8/queues/tx-7/byte_queue_limits ||
		skip "no 8-queue ifb in the namespace"
	capture_require
	run --separate-stderr timeout 20 "$BQLTOOL" -v record -n "$NS" i8:0-3 -d 1
	assert_success
	assert_regex "$output" "queue i8:tx-3 limit_min=0 "
	assert_regex "$stderr" "i8:tx-0: struct dql at 0xffff[0-9a-f]+"
	assert_regex "$stderr" "4 of 4 queues \(i8:tx-0, ...\) saw no completion"
	assert_nothing_attached
}

@test "record: no permission (uid nobody): exit 1 naming the need, nothing written" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] || skip "no eth0 with BQL"
	run --separate-stderr timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BQLTOOL" record eth0 -d 1
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "needs root, or CAP_BPF and CAP_PERFMON"
	assert_nothing_attached
}

@test "record: an unwritable -o fails before anything is loaded" {
	run --separate-stderr timeout 20 "$BQLTOOL" record eth0 -d 1 -o "$BATS_TEST_TMPDIR/no/such/dir/t.bqt"
	assert_failure 1
	assert_regex "$stderr" "no/such/dir/t.bqt"
	[ ! -e "$BATS_TEST_TMPDIR/no" ]
	assert_nothing_attached
}
