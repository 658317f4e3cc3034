# Shared by tests/integration/record.bats and tune.bats: a capture of the
# host's eth0 (record attaches read-only BPF programs; nothing is written to
# any device) while ordinary package-archive traffic runs.

# a few large packages for traffic (downloaded into a temp dir, deleted), one download each
PKGS="llvm-14 libllvm14 clang-14 libclang-cpp14 gcc-12"

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

# traffic_start: one download loop per package, in parallel, into a temp
# dir, in the background, as a process group of its own (apt-get has
# helper children)
traffic_start() {
	DL_DIR=$(mktemp -d)
	setsid bash -c '
		cd "$1" || exit 1; shift
		apt-cache show "$1" >/dev/null 2>&1 || apt-get update -q >/dev/null 2>&1
		for p in "$@"; do
			mkdir -p "$p"
			( cd "$p" && while :; do
				rm -f ./*.deb
				apt-get download -q "$p" >/dev/null 2>&1 || sleep 1
			done ) &
		done
		wait' traffic "$DL_DIR" $PKGS &
	DL_PID=$!
	traffic_flowing
}

# traffic_flowing: wait (at most 30 s) until eth0 has sent 200 packets
# more, so that a short capture does not start while apt-get is still
# reading its lists
traffic_flowing() {
	local f=/sys/class/net/eth0/statistics/tx_packets p0 i
	p0=$(cat "$f" 2>/dev/null) || return 0
	for i in $(seq 300); do
		[ "$(cat "$f")" -lt $((p0 + 200)) ] || return 0
		sleep 0.1
	done
	echo "# traffic_start: eth0 sent $(($(cat "$f") - p0)) packets in 30 s" >&3
}

traffic_stop() {
	[ -n "${DL_PID:-}" ] || return 0
	kill -TERM -- "-$DL_PID" 2>/dev/null || kill "$DL_PID" 2>/dev/null
	wait "$DL_PID" 2>/dev/null || true
	DL_PID=
	rm -rf "$DL_DIR"
}
