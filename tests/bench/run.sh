#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: speed and memory figures. Printed, never asserted.
#
# One function per section, named bench_<what>; every bench_* function
# defined in this file runs, in alphabetical order, unless BENCH_SECTIONS
# names a subset ("bench_replay bench_top"). Sections share the helpers
# below: measure, rss_kb, report.
#
# env: BQLTOOL (the binary), BUILD (the build directory: tools and data),
#      BENCH_RECORDS (replay trace size, default 5000000),
#      BENCH_RECORD_PKGS, BENCH_RECORD_ROUNDS (record's download workload)
set -euo pipefail

: "${BQLTOOL:?BQLTOOL must name the bqltool binary}"
: "${BUILD:?BUILD must name the build directory}"
BENCH_DIR="$BUILD/bench"
mkdir -p "$BENCH_DIR"

have() { command -v "$1" >/dev/null 2>&1; }

# measure NAME CMD: mean wall-clock seconds of the shell command CMD into
# SECS[NAME] (hyperfine if installed: 1 warm-up + 5 runs; else the best of
# 3 runs of bash's time).
declare -A SECS
measure() {
	local name=$1 cmd=$2 best="" t i
	if have hyperfine && have jq; then
		hyperfine -N --style none --warmup 1 --runs 5 \
			--export-json "$BENCH_DIR/$name.json" "$cmd" >/dev/null 2>&1 ||
			hyperfine --style none --warmup 1 --runs 5 \
				--export-json "$BENCH_DIR/$name.json" "$cmd" >/dev/null
		SECS[$name]=$(jq '.results[0].mean' "$BENCH_DIR/$name.json")
		return
	fi
	for i in 1 2 3; do
		TIMEFORMAT=%R
		t=$( { time bash -c "$cmd" >/dev/null 2>&1; } 2>&1 )
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	SECS[$name]=$best
}

# rss_kb CMD: maximum resident set size in KiB of one run of CMD
rss_kb() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M bash -c "exec $1" 2>&1 >/dev/null | tail -1
	else
		echo "?"
	fi
}

# report LABEL SECONDS RECORDS BYTES [BASELINE_SECONDS] [RSS_KB]
report() {
	awk -v l="$1" -v s="$2" -v r="$3" -v b="$4" -v base="${5:-}" -v rss="${6:-}" 'BEGIN {
		printf "  %-28s %8.3f s %10.2f Mrec/s %8.1f MB/s", l, s, r / s / 1e6, b / s / 1e6
		if (base != "") printf "  %5.2fx wc -l", s / base
		if (rss != "") printf "  maxRSS %s KiB", rss
		printf "\n"
	}'
}

# ------------------------------------------------------------ replay

bench_replay() {
	local n=${BENCH_RECORDS:-5000000}
	local trace="$BENCH_DIR/replay-$n.bqlt" ctrace="$BENCH_DIR/replay-$n-c.bqlt"
	local gen="$BUILD/tests/tools/gentrace" lines bytes clines cbytes m
	local tl="$BENCH_DIR/timeline.csv" svg="$BENCH_DIR/replay.svg"

	echo "replay: $n-record traces from $gen (4 queues)"
	[ -s "$trace" ] || "$gen" -n "$n" -q 4 -s 1 -o "$trace"
	[ -s "$ctrace" ] || "$gen" -n "$n" -q 4 -s 1 -c -o "$ctrace"
	lines=$(wc -l <"$trace")
	bytes=$(stat -c %s "$trace")
	clines=$(wc -l <"$ctrace")
	cbytes=$(stat -c %s "$ctrace")
	printf '  %s: %s lines, %s bytes\n' "${trace##*/}" "$lines" "$bytes"
	printf '  %s: %s lines, %s bytes\n' "${ctrace##*/}" "$clines" "$cbytes"
	cat "$trace" "$ctrace" >/dev/null	# page cache

	measure wc "wc -l $trace"
	measure replay "$BQLTOOL replay -q $trace"
	measure replay_j "$BQLTOOL -j replay $trace"
	measure replay_tl "$BQLTOOL replay -q --timeline $tl $trace"
	measure replay_plot "$BQLTOOL replay -q --plot $svg $trace"
	measure wc_c "wc -l $ctrace"
	measure replay_verify "$BQLTOOL replay -q --verify $ctrace"

	report "wc -l (Q+C trace)" "${SECS[wc]}" "$lines" "$bytes"
	report "replay" "${SECS[replay]}" "$lines" "$bytes" "${SECS[wc]}" \
		"$(rss_kb "$BQLTOOL replay -q $trace")"
	report "replay -j" "${SECS[replay_j]}" "$lines" "$bytes" "${SECS[wc]}"
	report "replay --timeline" "${SECS[replay_tl]}" "$lines" "$bytes" "${SECS[wc]}" \
		"$(rss_kb "$BQLTOOL replay -q --timeline $tl $trace")"
	report "replay --plot" "${SECS[replay_plot]}" "$lines" "$bytes" "${SECS[wc]}" \
		"$(rss_kb "$BQLTOOL replay -q --plot $svg $trace")"
	report "wc -l (completion-only)" "${SECS[wc_c]}" "$clines" "$cbytes"
	report "replay --verify" "${SECS[replay_verify]}" "$clines" "$cbytes" "${SECS[wc_c]}" \
		"$(rss_kb "$BQLTOOL replay -q --verify $ctrace")"
	# the means above hide a busy machine: the best and worst run of each
	if have hyperfine && have jq; then
		echo "  runs (best .. worst, s):"
		for m in wc replay replay_j replay_tl replay_plot wc_c replay_verify; do
			jq -r '.results[0] | "\(.min) \(.max)"' "$BENCH_DIR/$m.json" |
				awk -v m="$m" '{ printf "    %-14s %.3f .. %.3f\n", m, $1, $2 }'
		done
	fi
	rm -f "$tl" "$svg"
}

# ------------------------------------------------------------ shapes

# cpu_best CMD: the least user+sys seconds of 3 runs of the shell command
# CMD (CPU time: a fairer ratio than wall time on a shared machine), of 9
# when a run takes less than 0.2 s, where a VM's jitter is a tenth of it.
# A simple command runs without a shell, whose start (5 ms here) would count.
cpu_best() {
	local i=0 t best=""
	local -a argv=(bash -c "$1")
	case $1 in
	*[\|\<\>\;\&\$\`\(\)\*\?\[\"\']*) ;;
	*) read -ra argv <<<"$1" ;;
	esac
	while [ $((i += 1)) -le 3 ] || { [ "$i" -le 9 ] && awk "BEGIN{exit !($best < 0.2)}"; }; do
		if have perf; then	# task-clock: finer than time(1)'s 10 ms
			t=$(perf stat -x, -e task-clock -- "${argv[@]}" 2>&1 >/dev/null |
				awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }')
		else
			t=$(/usr/bin/time -f '%U %S' "${argv[@]}" 2>&1 >/dev/null | tail -1 |
				awk '{ printf "%.3f", $1 + $2 }')
		fi
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	echo "$best"
}

# wall_best CMD: the least wall-clock seconds of 3 runs of the shell command CMD
wall_best() {
	local i t best=""
	TIMEFORMAT=%R
	for i in 1 2 3; do
		t=$( { time bash -c "$1" >/dev/null 2>&1; } 2>&1 )
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	echo "$best"
}

# shape_run LABEL BASE F: one row for trace F: BASE (`wc -l F`, or the
# decompressor piped into it) as wall and CPU seconds, then replay, -j,
# --verify and --timeline as multiples of BASE's wall time, single-threaded
# (-J 1, with replay's CPU time against BASE's) and with -J SHAPE_J
# threads, and the peak RSS of plain replay with each.
shape_run() {
	local label=$1 base=$2 f=$3 tl="$BENCH_DIR/shape-timeline.csv" k j rss1 rssn=-
	local -a w1 wn
	local wb cb c1
	wb=$(wall_best "$base")
	cb=$(cpu_best "$base")
	for j in 1 "$SHAPE_J"; do
		local ja=""
		[ -z "$J_OPT" ] || ja="$J_OPT$j "
		local -a cmds=("$BQLTOOL replay -q $ja$f" "$BQLTOOL -j replay $ja$f"
			"$BQLTOOL replay -q --verify $ja$f" "$BQLTOOL replay -q --timeline $tl $ja$f")
		for k in "${!cmds[@]}"; do
			if [ "$j" = 1 ]; then w1[k]=$(wall_best "${cmds[$k]}"); else wn[k]=$(wall_best "${cmds[$k]}"); fi
		done
		if [ "$j" = 1 ]; then
			c1=$(cpu_best "${cmds[0]}")
			rss1=$(rss_kb "${cmds[0]}")
		else
			rssn=$(rss_kb "${cmds[0]}")
		fi
		[ -n "$J_OPT" ] || break
	done
	rm -f "$tl"
	awk -v l="$label" -v wb="$wb" -v cb="$cb" -v c1="$c1" -v a="${w1[*]}" -v b="${wn[*]:-}" \
	    -v r1="$rss1" -v rn="$rssn" 'BEGIN {
		split(a, A, " "); split(b, B, " ")
		if (wb <= 0) wb = 0.001; if (cb <= 0) cb = 0.001
		printf "  %-24s %5.0f | %5.2f %5.2f %5.2f %5.2f %5.2f |", l, wb * 1000,
			A[1] / wb, c1 / cb, A[2] / wb, A[3] / wb, A[4] / wb
		if (b != "")
			printf " %5.2f %5.2f %5.2f %5.2f |", B[1] / wb, B[2] / wb, B[3] / wb, B[4] / wb
		else
			printf " %5s %5s %5s %5s |", "-", "-", "-", "-"
		printf " %7s %7s\n", r1, rn
	}'
}

# Replay against `wc -l` on traces of many shapes (issue #14). From
# gentrace: its own (short timestamps from 0, 4 queues, Q+C); 10-digit
# timestamps without j=, 12 queues; completion-only with every field
# (j= nq= lo= limit=); 256 queues; 1024 queues with long names and CRLF.
# From an independent writer (tests/tools/shapegen.awk), so that the fast
# path is not only timed on its own generator's lines: 19-digit epoch
# timestamps with 17-byte names; what `bqltool record` writes (Q j=, C j=
# nq= lo= limit=); 64-byte names with tabs; one queue. Then the 12-queue
# trace compressed with zstd and gzip, against `zstd -dc | wc -l`.
# Each row: wc -l in ms (wall, best of 3), then as multiples of it:
# single-threaded (-J 1) replay wall, replay CPU (against wc's CPU), -j,
# --verify, --timeline; the same with -J (all CPUs, at most 8); the peak
# RSS (KiB) of plain replay with -J 1 and -J N.
bench_shapes() {
	local n=${BENCH_SHAPE_RECORDS:-3000000} gen="$BUILD/tests/tools/gentrace"
	local awkgen name kind args f c
	awkgen="$(dirname "${BASH_SOURCE[0]}")/../tools/shapegen.awk"
	SHAPE_J=$(nproc)
	[ "$SHAPE_J" -le 8 ] || SHAPE_J=8
	J_OPT=""
	if "$BQLTOOL" help replay 2>/dev/null | grep -q -- '-J'; then J_OPT="-J "; fi
	local -a shapes=(
		"gentrace|g|-q 4 -s 1"
		"long-ts-12q|g|-q 12 -s 2 --t0 1000000000"
		"conly-all-fields|g|-q 4 -s 3 -c --jiffies --t0 1000000000"
		"256q|g|-q 256 -s 4 --t0 1000000000"
		"1024q-long-crlf-c|g|-q 1024 -s 5 -c --long-names --crlf --t0 1000000000"
		"awk-epoch19-8q|a|epoch"
		"awk-recorder-4q|a|rec"
		"awk-names64-tabs|a|long"
		"awk-1q-j|a|one"
	)
	echo "shapes: $n records each; wc -l ms, then x wc -l (wall; cpu: CPU against wc's CPU)"
	printf '  %-24s %5s | %-29s | %-23s | %s\n' "" "" "-J 1" "-J $SHAPE_J" "peak RSS KiB"
	printf '  %-24s %5s | %5s %5s %5s %5s %5s | %5s %5s %5s %5s | %7s %7s\n' shape "wc ms" \
		replay cpu "-j" verify tline replay "-j" verify tline "-J 1" "-J $SHAPE_J"
	[ -n "$J_OPT" ] || echo "  (this bqltool has no replay -J: single-threaded only)"
	for s in "${shapes[@]}"; do
		name=${s%%|*} s=${s#*|} kind=${s%%|*} args=${s#*|}
		f="$BENCH_DIR/shape-$name-$n.bqlt"
		if [ ! -s "$f" ]; then
			if [ "$kind" = g ]; then
				# shellcheck disable=SC2086
				"$gen" -n "$n" $args -o "$f"
			else
				awk -v shape="$args" -v n="$n" -f "$awkgen" >"$f"
			fi
		fi
		cat "$f" >/dev/null
		shape_run "$name" "wc -l $f" "$f"
	done
	f="$BENCH_DIR/shape-long-ts-12q-$n.bqlt"
	have zstd && { [ -s "$f.zst" ] || zstd -q -T0 -c "$f" >"$f.zst"; }
	have gzip && { [ -s "$f.gz" ] || gzip -c "$f" >"$f.gz"; }
	for c in zst gz; do
		[ -s "$f.$c" ] || continue
		if [ "$c" = zst ]; then
			shape_run "long-ts-12q.zst" "zstd -dc $f.$c | wc -l" "$f.$c"
		else
			shape_run "long-ts-12q.gz" "gzip -dc $f.$c | wc -l" "$f.$c"
		fi
	done
	echo "  (.zst/.gz rows: wc ms is the decompressor piped into wc -l)"
}

# Replay of many queues (issue #23): BENCH_MANYQ queues (default 1e6),
# a Q and a C each (tests/tools/shapegen.awk), declared up front
# (manyq: the queue table large against the records) or each just before
# its first record (manyq-late). Each row: wall (best of 3) and peak RSS
# with -J 1, 2 and 8; -J N must not multiply the memory, nor the time.
bench_shapes_manyq() {
	local nq=${BENCH_MANYQ:-1000000} s f j w r
	local awkgen
	awkgen="$(dirname "${BASH_SOURCE[0]}")/../tools/shapegen.awk"
	if ! "$BQLTOOL" help replay 2>/dev/null | grep -q -- '-J'; then
		echo "manyq: this bqltool has no replay -J"
		return 0
	fi
	echo "manyq: $nq queues, 2 records each; wall s (best of 3) / peak RSS MiB"
	printf '  %-12s %10s | %-17s | %-17s | %-17s\n' shape "trace MB" "-J 1" "-J 2" "-J 8"
	for s in manyq manyq-late; do
		f="$BENCH_DIR/$s-$nq.bqlt"
		[ -s "$f" ] || awk -v shape="$s" -v queues="$nq" -v n=$((2 * nq)) -f "$awkgen" >"$f"
		cat "$f" >/dev/null
		printf '  %-12s %10.1f |' "$s" "$(awk -v b="$(wc -c <"$f")" 'BEGIN { print b / 1e6 }')"
		for j in 1 2 8; do
			w=$(wall_best "$BQLTOOL replay -q -J $j $f")
			r=$(rss_kb "$BQLTOOL replay -q -J $j $f")
			[[ ! $r =~ ^[0-9]+$ ]] || r=$((r / 1024))
			printf ' %7.2f s %5s MiB |' "$w" "$r"
		done
		printf '\n'
	done
}

# ------------------------------------------------------------ top

# top_tree DIR NDEV NQ: a fake sysfs tree with NDEV devices of NQ queues
top_tree() {
	local root=$1 ndev=$2 nq=$3 d q b
	[ -f "$root/.done-$ndev-$nq" ] && return 0
	rm -rf "$root"
	for ((d = 0; d < ndev; d++)); do
		mkdir -p "$root/class/net/b$d/statistics"
		echo $((d + 2)) > "$root/class/net/b$d/ifindex"
		echo 0 > "$root/class/net/b$d/statistics/tx_bytes"
		echo 0 > "$root/class/net/b$d/statistics/tx_packets"
		for ((q = 0; q < nq; q++)); do
			b=$root/class/net/b$d/queues/tx-$q/byte_queue_limits
			mkdir -p "$b"
			echo $((3028 + q)) > "$b/limit"; echo 0 > "$b/limit_min"
			echo 1879048192 > "$b/limit_max"; echo 1000 > "$b/hold_time"
			echo $((q * 10)) > "$b/inflight"; echo 0 > "$b/stall_thrs"
			echo 0 > "$b/stall_cnt"; echo 0 > "$b/stall_max"
		done
	done
	touch "$root/.done-$ndev-$nq"
}

# cpu_rss CMD: "user+sys seconds" and "max RSS KiB" of one run of CMD
cpu_rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S %M' bash -c "exec $1" 2>&1 >/dev/null | tail -1 |
			awk '{ printf "%.3f %s\n", $1 + $2, $3 }'
	else
		# children's utime+stime of this shell (fields 16, 17), before and after
		local t0 t1
		t0=$(awk '{ print $16 + $17 }' /proc/$BASHPID/stat)
		bash -c "$1" >/dev/null 2>&1
		t1=$(awk '{ print $16 + $17 }' /proc/$BASHPID/stat)
		awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f ?\n", (b - a) / hz }'
	fi
}

# top_row LABEL CPU_S SAMPLES QUEUES [BARE_CPU_S] [RSS]
top_row() {
	awk -v l="$1" -v c="$2" -v n="$3" -v q="$4" -v base="${5:-}" -v rss="${6:-}" 'BEGIN {
		printf "  %-34s %7.3f s CPU %7.3f us/sample/queue", l, c, c / n / q * 1e6
		if (base != "" && base > 0) printf "  %5.2fx bare", c / base
		if (rss != "") printf "  maxRSS %s KiB", rss
		printf "\n"
	}'
}

# top_measure LABEL PREFIX ROOT TOPCMD N QUEUES [FLOOR]: bare reads, text,
# NDJSON; FLOOR "kept" reads only the 4 files per queue top keeps open (and
# reads at every sample), the default all 8 (needs 8 descriptors a queue)
top_measure() {
	local label=$1 pre=$2 root=$3 top=$4 n=$5 queues=$6 floor=${7:-} bare b t j
	bare=$(cpu_rss "$pre $BUILD/tests/tools/bareread $root $n $floor")
	t=$(cpu_rss "$top top -b -c $n -d 0.01")
	j=$(cpu_rss "$top -j top -c $n -d 0.01")
	b=${bare% *}
	top_row "$label: bare pread+parse${floor:+ ($floor)}" "$b" "$n" "$queues" "" "${bare#* }"
	top_row "$label: top -b (text)" "${t% *}" "$n" "$queues" "$b" "${t#* }"
	top_row "$label: top -b -j (NDJSON)" "${j% *}" "$n" "$queues" "$b" "${j#* }"
}

# CPU time per sample per queue of top -b against a bare C reader of the
# same files (tests/tools/bareread.c), on fake trees of 64x64 and 16x256
# queues and, as root, on namespaces of 16 ifb devices x 64 and x 256
# queues (4096: 4 descriptors a queue, the "kept" floor); max RSS of each.
bench_top() {
	local n=${BENCH_TOP_SAMPLES:-100} root="$BENCH_DIR/top-64x64" ns="bqlt-bench-$$" i
	local root2="$BENCH_DIR/top-16x256"
	echo "top: CPU per sample per queue (user+sys over $n samples, -d 0.01) vs bare reads"
	top_tree "$root" 64 64
	top_measure "fake 64x64" "" "$root" "$BQLTOOL --sysfs-root $root" "$n" 4096 kept
	top_tree "$root2" 16 256
	top_measure "fake 16x256" "" "$root2" "$BQLTOOL --sysfs-root $root2" "$n" 4096 kept
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns" 2>/dev/null; then
		echo "  netns: skipped (needs root and ip netns)"
		return 0
	fi
	for i in $(seq 0 15); do
		ip -n "$ns" link add "b$i" numtxqueues 64 type ifb
		ip -n "$ns" link set "b$i" up
	done
	top_measure "netns 16 ifb x 64" "ip netns exec $ns" /sys "$BQLTOOL -n $ns" "$n" 1024 || true
	top_measure "netns 16 ifb x 64" "ip netns exec $ns" /sys "$BQLTOOL -n $ns" "$n" 1024 kept || true
	for i in $(seq 0 15); do
		ip -n "$ns" link del "b$i"
		ip -n "$ns" link add "b$i" numtxqueues 256 type ifb
		ip -n "$ns" link set "b$i" up
	done
	top_measure "netns 16 ifb x 256" "ip netns exec $ns" /sys "$BQLTOOL -n $ns" "$n" 4096 kept || true
	ip netns del "$ns"
}

# ------------------------------------------------------------ record

# the workload: a few large Debian packages, downloaded into a temp dir
REC_PKGS=${BENCH_RECORD_PKGS:-"llvm-14 libllvm14 clang-14 libclang-cpp14 gcc-12"}

# busy jiffies of all CPUs (user nice system irq softirq steal) from /proc/stat
cpu_busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# rec_download: BENCH_RECORD_ROUNDS (default 3) rounds of downloading them,
# one apt-get per package, in parallel
rec_download() {
	local d rc=0 i p pids
	d=$(mktemp -d)
	for ((i = 0; i < ${BENCH_RECORD_ROUNDS:-3}; i++)); do
		pids=()
		for p in $REC_PKGS; do
			(mkdir -p "$d/$p" && cd "$d/$p" && apt-get download -q "$p" >/dev/null 2>&1) &
			pids+=($!)
		done
		# these only: the recorder runs in the background too
		for p in "${pids[@]}"; do wait "$p" || rc=$?; done
		for p in $REC_PKGS; do
			ls "$d/$p"/*.deb >/dev/null 2>&1 || rc=1
		done
		rm -rf "${d:?}"/*
	done
	rm -rf "$d"
	return $rc
}

# own_cpu PID: CPU seconds of that process alone (not its children): the
# scheduler's nanoseconds on a CPU (/proc/PID/schedstat), else user+sys ticks
own_cpu() {
	if [ -r "/proc/$1/schedstat" ]; then
		awk '{ printf "%.6f", $1 / 1e9 }' "/proc/$1/schedstat"
	else
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / hz }' "/proc/$1/stat"
	fi
}

# rec_during NAME IDLE_SECS ARGS...: record eth0 (ARGS) around one download,
# or with IDLE_SECS > 0 around that long a sleep; sets R_SECS (wall time),
# R_BUSY (machine busy CPU s) and R_OWN (the recorder's own CPU s) over
# that window only, and leaves the -v report in $BENCH_DIR/NAME.err
rec_during() {
	local name=$1 idle=$2 pid b0 b1 t0 t1 o0 o1; shift 2
	BQLTOOL_RECORD_STATS=1 "$BQLTOOL" -v record "$@" eth0 -o "$BENCH_DIR/$name.bqt" \
		2>"$BENCH_DIR/$name.err" &
	pid=$!
	sleep 3		# start-up (BTF, loading, attaching) is not part of the figure
	b0=$(cpu_busy); t0=$(date +%s.%N); o0=$(own_cpu "$pid")
	if [ "$idle" = 0 ]; then rec_download || true; else sleep "$idle"; fi
	b1=$(cpu_busy); t1=$(date +%s.%N); o1=$(own_cpu "$pid")
	kill -INT "$pid"; wait "$pid" || true
	R_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	R_BUSY=$(awk -v a="$b0" -v b="$b1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", (b - a) / hz }')
	R_OWN=$(awk -v a="$o0" -v b="$o1" 'BEGIN { printf "%.6f", b - a }')
}

# field FILE REGEX: the number before REGEX in a -v report
field() {
	grep -oE "[0-9]+ $2" "$1" | head -1 | awk '{ print $1 }'
}

# CPU cost of record per captured event on eth0 during package downloads
# (needs root, an eth0 with BQL and BPF), against an idle baseline of the
# same length: BPF program time per run (kernel run-time statistics), the
# recorder's own CPU, and the whole machine's busy CPU with and without
# recording (noisy on a shared machine: other load counts). --no-spin for
# the CPU figures (spinners burn idle time by design); losses with and
# without spinners.
bench_record() {
	local b0 b1 t0 t1 base_busy base_secs ev
	echo "record: CPU per event on eth0 during '${REC_PKGS}' downloads (figures, not asserted)"
	if [ "$(id -u)" -ne 0 ]; then echo "  skipped: needs root"; return 0; fi
	if [ ! -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ]; then
		echo "  skipped: no eth0 with byte queue limits"; return 0
	fi
	if ! "$BQLTOOL" record eth0 -d 0.2 >/dev/null 2>"$BENCH_DIR/rec-probe.err"; then
		echo "  skipped: $(head -1 "$BENCH_DIR/rec-probe.err")"; return 0
	fi
	if ! rec_download; then echo "  skipped: apt-get download $REC_PKGS failed"; return 0; fi
	# the download alone
	b0=$(cpu_busy); t0=$(date +%s.%N)
	rec_download || true
	b1=$(cpu_busy); t1=$(date +%s.%N)
	base_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	base_busy=$(awk -v a="$b0" -v b="$b1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", (b - a) / hz }')
	# recording it (no spinners), then idle for as long
	rec_during rec-dl 0 --no-spin
	local dl_secs=$R_SECS dl_busy=$R_BUSY dl_own=$R_OWN
	ev=$(field "$BENCH_DIR/rec-dl.err" "events,")
	rec_during rec-idle "$dl_secs" --no-spin
	echo "  download alone:            ${base_secs} s, machine busy ${base_busy} CPU s"
	echo "  download recorded:         ${dl_secs} s, machine busy ${dl_busy} CPU s, ${ev:-0} events"
	grep -E "^bqltool: record: backend [a-z]+$" "$BENCH_DIR/rec-dl.err" | sed 's/^bqltool: record: /  /'
	grep -E "BPF program" "$BENCH_DIR/rec-dl.err" | sed 's/^bqltool: record: /  /'
	# tracepoints: BPF time per hooked event, per transmitted packet, per completion
	local nc
	nc=$(field "$BENCH_DIR/rec-dl.err" "C records,")
	grep -E "BPF program rec_tp_" "$BENCH_DIR/rec-dl.err" | awk -v c="${nc:-0}" '
		{ runs += $6; ns += $6 * $8; if ($5 == "rec_tp_start:") pk = $6 }
		END {
			if (!runs) exit
			printf "  BPF per hooked event:      %.0f ns (%d runs of the 3 programs)\n", ns / runs, runs
			if (pk) printf "  BPF per transmitted packet: %.0f ns (%d packets; NAPI polls included)\n", ns / pk, pk
			if (c) printf "  BPF per completion:        %.0f ns (%d C records)\n", ns / c, c
		}'
	awk -v a="$dl_own" -v b="$R_OWN" -v s="$dl_secs" 'BEGIN {
		if (s > 0) printf "  recorder process:          %.3f%% of a core while recording (%.3f%% while idle)\n",
			a / s * 100, b / s * 100 }'
	awk -v e="${ev:-0}" -v a="$dl_own" -v b="$R_OWN" -v rb="$dl_busy" -v bb="$base_busy" 'BEGIN {
		if (e <= 0) { print "  no events captured: no per-event figures"; exit }
		printf "  recorder process:          %.4f s CPU vs %.4f s idle baseline: %.2f us per event\n",
			a, b, (a - b) / e * 1e6
		printf "  whole machine (noisy):     %+.3f CPU s vs the download alone: %.2f us per event\n",
			rb - bb, (rb - bb) / e * 1e6
	}'
	"$BQLTOOL" replay --verify "$BENCH_DIR/rec-dl.bqt" 2>&1 | tail -1 | sed 's/^/  verify: /'
	# tracepoints: exact C records and re-seeds; watchpoints: losses without and with spinners
	grep -h "completion windows" "$BENCH_DIR/rec-dl.err" | sed 's/^bqltool: record: /  /'
	if grep -q "lost C" "$BENCH_DIR/rec-dl.err"; then
		grep -h "lost C" "$BENCH_DIR/rec-dl.err" | sed 's/^bqltool: record: /  --no-spin: /'
		rec_during rec-spin 0
		grep -h "lost C" "$BENCH_DIR/rec-spin.err" | sed 's/^bqltool: record: /  spinners:  /'
	fi
}

# ------------------------------------------------------------ latency

# lat_during NAME ARGS...: latency -j on eth0 (ARGS) around one download;
# the report in $BENCH_DIR/NAME.json, the program statistics in NAME.err;
# sets L_SECS (wall time of the download) and L_OWN (the observer's CPU s)
lat_during() {
	local name=$1 pid t0 t1 o0 o1; shift
	BQLTOOL_LATENCY_STATS=1 "$BQLTOOL" -v -j latency "$@" eth0 >"$BENCH_DIR/$name.json" \
		2>"$BENCH_DIR/$name.err" &
	pid=$!
	sleep 3		# start-up (BTF, loading, attaching) is not part of the figure
	t0=$(date +%s.%N); o0=$(own_cpu "$pid")
	rec_download || true
	t1=$(date +%s.%N); o1=$(own_cpu "$pid")
	kill -INT "$pid"; wait "$pid" || true
	L_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	L_OWN=$(awk -v a="$o0" -v b="$o1" 'BEGIN { printf "%.6f", b - a }')
}

# lat_cost NAME: BPF run time per transmitted packet of eth0, all programs
# together and per program (kernel run-time statistics, BPF_ENABLE_STATS:
# the counters kernel.bpf_stats_enabled turns on, on only while the
# observer holds the fd; the kernel turns them off when it closes)
lat_cost() {
	local pk
	pk=$(jq '.devices[0].queues[0].xmit' "$BENCH_DIR/$1.json")
	awk -v pk="${pk:-0}" -v own="$L_OWN" -v secs="$L_SECS" '
		/BPF program lat_/ {
			name = $5; sub(":", "", name)
			if (name == "lat_find") next
			runs[name] = $6; ns[name] = $8; total += $8; order[++n] = name
		}
		END {
			if (!pk) { print "  no packet sent on eth0: no per-packet figure"; exit }
			printf "  BPF per transmitted packet: %.0f ns, all programs (%d packets on eth0 in %s s)\n", total / pk, pk, secs
			for (i = 1; i <= n; i++)
				printf "    %-12s %8d runs %7.0f ns/run %8.0f ns per packet\n", order[i], runs[order[i]],
					ns[order[i]] / (runs[order[i]] ? runs[order[i]] : 1), ns[order[i]] / pk
			printf "  observer process:          %.4f s CPU, %.3f%% of a core\n", own, own / secs * 100
		}' "$BENCH_DIR/$1.err"
}

# floor_cost NAME [--no-irq]: the floor under the observer's figure: empty
# programs at the same tracepoints (tests/tools/latfloor) around one
# download, per packet sent on eth0 in that window; and what one clock
# read adds to a run (the observer reads it once per packet sent and once
# per poll that completes)
floor_cost() {
	local name=$1 pid p0 p1 ready; shift
	"$BUILD/tests/tools/latfloor" "$BUILD/tests/tools/latfloor.bpf.o" "$@" \
		>"$BENCH_DIR/$name.out" 2>"$BENCH_DIR/$name.err" &
	pid=$!
	for ready in $(seq 50); do
		grep -q ready "$BENCH_DIR/$name.out" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q ready "$BENCH_DIR/$name.out" 2>/dev/null; then
		echo "  floor: skipped: $(head -1 "$BENCH_DIR/$name.err")"
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
		return 0
	fi
	p0=$(cat /sys/class/net/eth0/statistics/tx_packets)
	rec_download || true
	p1=$(cat /sys/class/net/eth0/statistics/tx_packets)
	kill -INT "$pid"; wait "$pid" || true
	awk -v pk="$((p1 - p0))" '
		/BPF program floor_/ {
			name = $4; sub(":", "", name); runs[name] = $5; ns[name] = $7
			if (name != "floor_xmit_clock") total += $7
		}
		END {
			if (!pk) { print "  floor: no packet sent on eth0"; exit }
			printf "  floor: empty programs at the same tracepoints: %.0f ns per transmitted packet (%d packets)\n", total / pk, pk
			for (n in runs) if (n != "floor_xmit_clock")
				printf "    %-12s %8d runs %7.0f ns/run %8.0f ns per packet\n", n, runs[n], ns[n] / runs[n], ns[n] / pk
			if (runs["floor_xmit_clock"] && runs["floor_xmit"])
				printf "    one clock read adds %.0f ns to a run (floor_xmit_clock %.0f ns/run)\n",
					ns["floor_xmit_clock"] / runs["floor_xmit_clock"] - ns["floor_xmit"] / runs["floor_xmit"],
					ns["floor_xmit_clock"] / runs["floor_xmit_clock"]
		}' "$BENCH_DIR/$name.err"
}

# The observer's cost during package downloads on eth0 (needs root, an eth0
# with BQL and BPF): BPF run time per transmitted packet, all programs
# together (the issue's budget: 150 ns), with and without the softirq
# programs (--no-irq), and the observer's own CPU. Figures, not asserted.
bench_latency() {
	echo "latency: BPF run time per transmitted packet on eth0 during '${REC_PKGS}' downloads (figures, not asserted)"
	if [ "$(id -u)" -ne 0 ]; then echo "  skipped: needs root"; return 0; fi
	if [ ! -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ]; then
		echo "  skipped: no eth0 with byte queue limits"; return 0
	fi
	if ! "$BQLTOOL" latency eth0 -d 0.2 >/dev/null 2>"$BENCH_DIR/lat-probe.err"; then
		echo "  skipped: $(head -1 "$BENCH_DIR/lat-probe.err")"; return 0
	fi
	lat_during lat-all
	echo " every program:"
	lat_cost lat-all
	floor_cost lat-floor-all
	lat_during lat-noirq --no-irq
	echo " --no-irq (no softirq programs):"
	lat_cost lat-noirq
	floor_cost lat-floor-noirq --no-irq
	jq -r '.devices[0].queues[0] | "  ring time p50 \(.ring_time.p50) ns, p99 \(.ring_time.p99) ns; qdisc wait p99 \(.qdisc_wait.p99) ns, bypass \(.bypass) of \(.xmit)"' \
		"$BENCH_DIR/lat-all.json"
}

# ------------------------------------------------------------ sim

# sim_row LABEL CPU_S PACKETS RSS [BASE_CPU_S]
sim_row() {
	awk -v l="$1" -v c="$2" -v n="$3" -v rss="$4" -v base="${5:-}" 'BEGIN {
		printf "  %-36s %7.3f s CPU %9d packets %7.2f M packets/s", l, c, n, (c > 0 ? n / c / 1e6 : 0)
		if (base != "" && base > 0) printf "  %5.2fx sim", c / base
		printf "  maxRSS %s KiB\n", rss
	}'
}

# cpu_rss_best CMD: "CPU RSS" of CMD: cpu_best's CPU (the least of 3
# runs, perf's task-clock where there is perf: time(1)'s 10 ms ticks are a
# tenth of the short rows) and one run's max RSS
cpu_rss_best() {
	local cr
	cr=$(cpu_rss "$1")
	echo "$(cpu_best "$1") ${cr#* }"
}

# sim_one LABEL ARGS: CPU, packets per second and max RSS of one sim run
sim_one() {
	local label=$1 args=$2 n cr err="$BENCH_DIR/sim.err"
	n=$("$BQLTOOL" -j sim $args 2>"$err" | jq .packets)
	cr=$(cpu_rss_best "$BQLTOOL sim -q $args")
	sim_row "$label" "${cr% *}" "$n" "${cr#* }"
	# the model's own warnings (ring-bound) under its row, not above the next
	sim_warnings "$err"
}

# sim_warnings FILE: sim's stderr, indented under the row it belongs to; FILE removed
sim_warnings() {
	sed 's/^bqltool: /    /' "$1"
	rm -f "$1"
}

# sim_vs_replay TITLE MODEL REPLAY_OPTS [write]: the CPU of sim on MODEL
# against replay (with REPLAY_OPTS) of the trace it writes, per packet;
# "write" adds sim --trace itself. Uses bench_sim's $t.
sim_vs_replay() {
	local m=$2 rj=$3 lines n cs cr err="$BENCH_DIR/sim.err"
	echo "$1"
	"$BQLTOOL" sim -q $m --trace "$t" 2>"$err"
	sim_warnings "$err"
	lines=$(wc -l <"$t")
	n=$(grep -c ' Q ' "$t")
	cs=$(cpu_rss_best "$BQLTOOL sim -q $m")
	sim_row "sim" "${cs% *}" "$n" "${cs#* }"
	cr=$(cpu_rss_best "$BQLTOOL replay -q $rj $t")
	sim_row "replay ${rj:+$rj }of its trace ($lines lines)" "${cr% *}" "$n" "${cr#* }" "${cs% *}"
	if [ "${4:-}" = write ]; then
		cr=$(cpu_rss_best "$BQLTOOL sim -q $m --trace $t")
		sim_row "sim --trace (writing it)" "${cr% *}" "$n" "${cr#* }" "${cs% *}"
	fi
	rm -f "$t"
}

# Simulated packets per CPU second (user+sys of the whole process) and max
# RSS, on a few models; memory with a 4x longer run (it must stay flat);
# and the same packets simulated vs replayed from the run's --trace.
bench_sim() {
	local d=${BENCH_SIM_SECONDS:-2} t="$BENCH_DIR/sim.bqlt"
	echo "sim: simulated packets per CPU second (one core), max RSS"
	sim_one "100G bulk 1514 B, ${d} s" "--link 100G --ring 4096 --duration $d"
	sim_one "100G bulk 1514 B, $((4 * d)) s" "--link 100G --ring 4096 --duration $((4 * d))"
	sim_one "400G bulk imix, ${d} s" "--link 400G --ring 4096 --size imix --duration $d"
	sim_one "40G 4 queues poisson+cbr imix" "--link 40G --queues 4 --traffic poisson:15G --traffic cbr:10G --traffic poisson:10G --size imix --irq-latency 5us:2us --duration $d"
	sim_one "10G 64 queues 64 bulk flows" "--link 10G --queues 64 $(printf -- '--traffic bulk %.0s' $(seq 64)) --duration $d"
	# the models of #21 (target: >= 30 M packets per CPU second on each)
	echo "sim: the #21 models, ${d} s each"
	sim_one "10G bulk 1514 B" "--link 10G --duration $d"
	sim_one "10G bulk imix" "--link 10G --size imix --duration $d"
	sim_one "100G 64 queues 64 poisson:1.5G imix" "--link 100G --queues 64 --size imix $(printf -- '--traffic poisson:1.5G %.0s' $(seq 64)) --duration $d"
	sim_one "100G bulk imix (ring 4096)" "--link 100G --size imix --ring 4096 --duration $d"
	sim_vs_replay "sim vs replay -J 1 of the same packets (100G bulk imix, ring 4096, 1 s; target: sim <= replay)" \
		"--link 100G --size imix --ring 4096 --duration 1" "-J 1"
	sim_vs_replay "sim vs replay of the same packets (10G bulk, 4x longer, --trace then replay)" \
		"--link 10G --duration $((4 * d))" "" write
	sim_vs_replay "sim vs replay of the same packets (40G, 4 queues, poisson+cbr imix)" \
		"--link 40G --queues 4 --traffic poisson:15G --traffic cbr:10G --traffic poisson:10G --size imix --irq-latency 5us:2us --duration $d" ""
	echo "tune: wall time of the whole search (10G backlogged, 200 us coalescing, 1 s per run)"
	local args="tune --link 10G --coalesce-usecs 200" n1 nall w1 wall
	n1=$("$BQLTOOL" -j $args --threads 1 | jq '.candidates | length')
	if [ -x /usr/bin/time ]; then
		w1=$(/usr/bin/time -f %e "$BQLTOOL" $args --threads 1 2>&1 >/dev/null | tail -1)
		wall=$(/usr/bin/time -f %e "$BQLTOOL" $args 2>&1 >/dev/null | tail -1)
		printf '  %d candidates + baseline: %s s on 1 thread, %s s on %s\n' "$n1" "$w1" "$wall" "$(nproc) threads"
	fi
}

# ------------------------------------------------------------ tune

# tune_row LABEL ARGS...: the wall and CPU time of one whole tune (the
# ensemble, the search, the margins), its answer and its simulations
tune_row() {
	local label=$1 out tm
	shift
	out="$BENCH_DIR/tune.json"
	/usr/bin/time -o "$out.time" -f '%e %U %S %M' "$BQLTOOL" -j tune "$@" >"$out" 2>/dev/null || true
	tm=$(tail -1 "$out.time")
	awk -v l="$label" -v t="$tm" -v a="$(jq -r 'if .keep_defaults then "keep the defaults" else (.recommended.settings | "limit_min=\(.limit_min) limit_max=\(.limit_max) hold_time=\(.hold_time)") end' "$out" 2>/dev/null || echo "?")" \
		-v n="$(jq -r '"\(.simulations) sims, \(.ensemble | length) conditions"' "$out" 2>/dev/null || echo "?")" 'BEGIN {
		split(t, f, " ")
		printf "  %-36s %6.2f s wall %6.2f s CPU  maxRSS %6d KiB  %s; %s\n", l, f[1], f[2] + f[3], f[4], n, a
	}'
	rm -f "$out" "$out.time"
}

# tune's wall time per scenario of #22 (targets: 10G x 8 queues <= 10 s,
# 100G x 64 queues <= 60 s on 2 cores), default threads; and --from a
# trace of a known model (sim --trace: 4 bulk queues at 10G)
bench_tune() {
	local i p8=() t="$BENCH_DIR/tune-from.bqlt"
	if [ ! -x /usr/bin/time ] || ! have jq; then
		echo "tune: skipped (needs /usr/bin/time and jq)"
		return 0
	fi
	for i in 1 2 3 4 5 6 7 8; do p8+=(--traffic poisson:1.1G); done
	echo "tune: wall time per scenario ($(nproc) CPUs, default threads)"
	tune_row "1G bulk, the defaults" --link 1G
	tune_row "25G, coalescing 20 us / 32 frames" --link 25G --coalesce-usecs 20 --coalesce-frames 32
	tune_row "10G x 8 queues, 8 bulk flows" --link 10G --queues 8 --traffic bulk@0 --traffic bulk@1 \
		--traffic bulk@2 --traffic bulk@3 --traffic bulk@4 --traffic bulk@5 --traffic bulk@6 --traffic bulk@7
	tune_row "10G x 8 queues, Poisson 1.1G each" --link 10G --queues 8 "${p8[@]}"
	tune_row "10G imix" --link 10G --size imix
	tune_row "100G TSO, ring 1024, 4 queues" --link 100G --size tso:65536 --ring 1024 --queues 4 \
		--traffic bulk@0 --traffic bulk@1 --traffic bulk@2 --traffic bulk@3
	tune_row "100G x 64 queues, ring 1024" --link 100G --queues 64 --ring 1024 \
		$(for i in $(seq 0 63); do printf -- '--traffic bulk@%d ' "$i"; done)
	"$BQLTOOL" sim -q --link 10G --queues 4 --traffic bulk --traffic bulk --traffic bulk --traffic bulk \
		--duration 0.2 --trace "$t"
	tune_row "--from 4 bulk queues at 10G (0.2 s)" --from "$t"
	rm -f "$t"
}

# ------------------------------------------------------------ top live

# cpu_of_live PREFIX ROOT_ARGS N [DELAY] [TOP_ARGS]: user+sys seconds of the
# live view taking N samples at -d DELAY (default 0.01) in a detached
# 200x80 tmux pane (a real terminal)
cpu_of_live() {
	local pre=$1 args=$2 n=$3 delay=${4:-0.01} targs=${5:-} out sock i
	sock="bqlt-bench-$$-$n"
	out=$(mktemp)
	tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 80 \
		"LANG=C.UTF-8 TERM=tmux-256color $pre /usr/bin/time -f '%U %S' -o $out \
		 $BQLTOOL $args top $targs -d $delay -c $n; sleep 2"
	for ((i = 0; i < 3000; i++)); do
		[ -s "$out" ] && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	awk '{ printf "%.3f\n", $1 + $2 }' "$out"
	rm -f "$out"
}

# live_row LABEL PREFIX ROOT ROOT_ARGS [FLOOR] [N2] [DELAY] [TOP_ARGS]: CPU
# per sample of bare reads (the floor), of the live view and of top -b
# (text, to /dev/null), each as (CPU(N2) - CPU(N1)) / (N2 - N1) so that
# start-up (exec, opening files, curses, BPF) does not count; FLOOR as in
# top_measure; top at -d DELAY (default 0.01), N1 = N2 / 10 (at least 10)
live_row() {
	local label=$1 pre=$2 root=$3 args=$4 floor=${5:-} n2=${6:-${BENCH_LIVE_SAMPLES:-1000}}
	local delay=${7:-0.01} targs=${8:-} n1 b1 b2 l1 l2 t1 t2
	n1=$((n2 / 10 < 10 ? 10 : n2 / 10))
	b1=$(cpu_rss "$pre $BUILD/tests/tools/bareread $root $n1 $floor"); b1=${b1% *}
	b2=$(cpu_rss "$pre $BUILD/tests/tools/bareread $root $n2 $floor"); b2=${b2% *}
	l1=$(cpu_of_live "$pre" "$args" $n1 "$delay" "$targs")
	l2=$(cpu_of_live "$pre" "$args" $n2 "$delay" "$targs")
	t1=$(cpu_rss "$pre $BQLTOOL $args top -b $targs -c $n1 -d $delay"); t1=${t1% *}
	t2=$(cpu_rss "$pre $BQLTOOL $args top -b $targs -c $n2 -d $delay"); t2=${t2% *}
	awk -v l="$label" -v b1="$b1" -v b2="$b2" -v l1="$l1" -v l2="$l2" -v t1="$t1" -v t2="$t2" \
	    -v n="$((n2 - n1))" 'BEGIN {
		b = (b2 - b1) / n * 1e3; v = (l2 - l1) / n * 1e3; t = (t2 - t1) / n * 1e3
		printf "  %-34s floor %6.3f ms/sample  live view %6.3f ms", l, b, v
		if (b > 0) printf " %5.2fx", v / b
		printf "  top -b %6.3f ms", t
		if (b > 0) printf " %5.2fx", t / b
		printf "\n"
	}'
}

# The live view (200x80 terminal) and top -b against the floor measured
# in the same run: bareread pread-ing the BQL files of the same queues over
# open fds (all 8, or "kept": limit, inflight, stall_cnt and stall_max,
# which is more than top reads at each sample since #40: limit and
# inflight, and the other 6 files of a slice of the queues so that each
# queue's are read once a second). On a fake 1x64 tree, and as root on
# one ifb with 64 TX queues in a namespace (-d 0.01) and on 16 ifb of 256
# TX queues (4096, -a: every device shown) at 10 samples a second.
bench_top_live() {
	local root="$BENCH_DIR/top-1x64" ns="bqlt-bench-live-$$" i
	echo "top live view and top -b: CPU per sample vs the floor (tmux 200x80)"
	if ! have tmux || [ ! -x /usr/bin/time ]; then
		echo "  skipped (needs tmux and /usr/bin/time)"
		return 0
	fi
	top_tree "$root" 1 64
	live_row "fake 1x64, -d 0.01" "" "$root" "--sysfs-root $root"
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns" 2>/dev/null; then
		echo "  netns: skipped (needs root and ip netns)"
		return 0
	fi
	ip -n "$ns" link add b0 numtxqueues 64 type ifb
	ip -n "$ns" link set b0 up
	live_row "netns 1 ifb x 64, -d 0.01" "ip netns exec $ns" /sys "-n $ns" || true
	live_row "netns 1 ifb x 64, -d 0.01 (kept)" "ip netns exec $ns" /sys "-n $ns" kept || true
	# 4096 queues (the size of issues #23 and #40), 10 samples a second
	ip -n "$ns" link del b0
	for i in $(seq 0 15); do
		ip -n "$ns" link add "b$i" numtxqueues 256 type ifb
		ip -n "$ns" link set "b$i" up
	done
	live_row "netns 16 ifb x 256, -d 0.1 (kept)" "ip netns exec $ns" /sys "-n $ns" kept \
		"${BENCH_LIVE_SAMPLES_4096:-200}" 0.1 -a || true
	ip netns del "$ns"
}

# ------------------------------------------------------------ main

sections=${BENCH_SECTIONS:-$(declare -F | awk '$3 ~ /^bench_/ { print $3 }')}
echo "bqltool bench: $("$BQLTOOL" --version 2>/dev/null || echo "$BQLTOOL"), $(nproc) CPUs"
for s in $sections; do
	"$s"
done
