#!/usr/bin/env bats
# replay -J N: threads scan the trace ahead while one thread replays the
# records in file order; the output is the single-threaded run's (-J 1),
# byte for byte: stdout, stderr, exit status, --timeline and --plot files.
# BQLTOOL_REPLAY_CHUNK (for tests) cuts small traces into chunks of a few
# bytes, so that chunk edges fall on every line of a fixture.
bats_require_minimum_version 1.5.0
load helpers

TRACES="$BATS_TEST_DIRNAME/../data/traces"

# the ways of replaying a trace that the comparisons go through
MODES=(
	""
	"-j"
	"--verify"
	"-j --verify"
	"-q --timeline t.csv"
	"-q --timeline t.jsonl --all-events"
	"--plot p.svg"
	"--set limit_min=3000 --kernel 6.1 --timeline t.csv.gz"
)

# run_in DIR ARGS...: bqltool replay ARGS run in a new DIR (so that output
# files have the same relative names), its stdout, stderr and status kept
# there as files (+stdout +stderr +status)
run_in() {
	local d=$BATS_TEST_TMPDIR/$1 z rc=0
	shift
	rm -rf "$d"
	mkdir "$d"
	(cd "$d" && exec timeout 60 "$BQLTOOL" replay "$@" >+stdout 2>+stderr) || rc=$?
	echo "$rc" >"$d/+status"
	# compressed outputs: their content (the compressor's bytes may differ)
	for z in "$d"/*.gz; do
		[ -e "$z" ] || continue
		gzip -dc "$z" >"$z.text" && rm "$z"
	done
}

# same_as_j1 TRACE SPECS ARGS...: ARGS TRACE with -J 1, and with each
# J:CHUNK of SPECS (space separated; CHUNK empty = the default), must give
# the same stdout, stderr, status and files
same_as_j1() {
	local trace=$1 specs=$2 s j c
	shift 2
	run_in ref -J 1 "$@" "$trace"
	for s in $specs; do
		j=${s%%:*} c=${s#*:}
		BQLTOOL_REPLAY_CHUNK=$c run_in par -J "$j" "$@" "$trace"
		diff -r "$BATS_TEST_TMPDIR/ref" "$BATS_TEST_TMPDIR/par" >"$BATS_TEST_TMPDIR/diff" || {
			echo "-J $j, chunks of ${c:-default} bytes: replay $* $trace differs from -J 1:"
			head -40 "$BATS_TEST_TMPDIR/diff"
			return 1
		}
	done
}

# all_modes TRACE SPECS: same_as_j1 in every mode of MODES
all_modes() {
	local m
	for m in "${MODES[@]}"; do
		# shellcheck disable=SC2086
		same_as_j1 "$1" "$2" $m || return 1
	done
}

# gen_mixed FILE N [crlf] [nonl]: a trace of N lines that gentrace does
# not write: 5 queues, one declared late (after records) with a long name,
# Q with j= now and then, C with lo= or limit= (mismatches for --verify),
# P, S and R records, comments and blank lines between records; CRLF line
# ends; no final newline (the last line a record all the same)
gen_mixed() {
	awk -v n="$2" -v crlf="${3:-}" 'BEGIN {
		srand(7)
		eol = crlf == "crlf" ? "\r\n" : "\n"
		printf "bqltrace 1%s# mixed: a comment before hz%shz 1000%s", eol, eol, eol
		for (q = 0; q < 4; q++) printf "queue eth0:tx-%d%s%s", q, (q == 2 ? " hold_time=20" : ""), eol
		nq = 4; t = 1000000000
		for (i = 0; i < n; i++) {
			t += int(rand() * 20000)
			if (i == int(n / 3)) {
				printf "queue late:tx-long-name-0123456789abcdef%s", eol
				nq = 5
			}
			q = int(rand() * nq)
			name = q == 4 ? "late:tx-long-name-0123456789abcdef" : "eth0:tx-" q
			r = rand()
			if (r < 0.02) { printf "# comment %d%s", i, eol; continue }
			if (r < 0.03) { printf "%s", eol; continue }
			if (r < 0.035) { printf "%d %s P hold_time=%d%s", t, name, 10 + i % 50, eol; continue }
			if (r < 0.04) { printf "%d %s R%s", t, name, eol; inflight[q] = 0; continue }
			if (r < 0.045) { printf "%d %s S limit=%d stall_cnt=0%s", t, name, 3000 + i, eol; continue }
			if (r < 0.55 || inflight[q] == 0) {
				b = int(rand() * 9000) + 60
				inflight[q] += b
				printf "%d %s Q %d%s%s", t, name, b, (rand() < 0.2 ? " j=" int(t / 1000000) : ""), eol
			} else {
				b = int(rand() * inflight[q]) + 1
				inflight[q] -= b
				x = rand()
				printf "%d %s C %d%s%s", t, name, b,
					(x < 0.2 ? " lo=" b : x < 0.3 ? " limit=" (b * 3) : ""), eol
			}
		}
	}' >"$1"
	[ "${4:-}" != nonl ] || printf '1999999999999 eth0:tx-0 Q 100' >>"$1"
}

@test "replay -J: every fixture, every mode: the output of -J 1" {
	local f
	for f in "$TRACES"/*.bqlt "$EXAMPLES"/*.bqlt; do
		all_modes "$f" "2:1 3:40 4:100 2:" || return 1
	done
}

@test "replay -J: small fixtures cut at every byte count (chunk edges on every line)" {
	local f c n specs
	for f in "$TRACES"/*.bqlt "$EXAMPLES"/ramp.bqlt; do
		specs=""
		n=$(wc -c <"$f")
		for ((c = 1; c <= 200 && c <= n + 1; c += (c < 48 ? 1 : 7))); do
			specs="$specs $((c % 3 + 2)):$c"
		done
		same_as_j1 "$f" "$specs" || return 1
	done
}

@test "replay -J: generated traces (late queue, P/S/R, comments, CRLF, no final newline)" {
	local t=$BATS_TEST_TMPDIR v
	for v in "" crlf; do
		gen_mixed "$t/m$v.bqlt" 3000 "$v"
		gen_mixed "$t/n$v.bqlt" 3000 "$v" nonl
		# the fixture is what it claims to be
		grep -q "^[0-9]* late:tx-long-name-0123456789abcdef Q" "$t/m$v.bqlt"
		grep -q " R.\?$" "$t/m$v.bqlt"
		[ "$(tail -c 1 "$t/n$v.bqlt")" = 0 ]
		all_modes "$t/m$v.bqlt" "2:1 2:64 3:700 4:4096 2:" || return 1
		all_modes "$t/n$v.bqlt" "2:50 3:1000 2:" || return 1
	done
	run --separate-stderr "$BQLTOOL" replay -J 1 "$t/m.bqlt"
	[ "$status" -eq 0 ]
	[[ "$output" == *late:tx-long-name* ]]
}

@test "replay -J: gentrace shapes (many queues, long names, CRLF, completion-only, j=)" {
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace t=$BATS_TEST_TMPDIR
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	"$gen" -n 20000 -q 64 -s 4 --t0 1000000000 -o "$t/q64.bqlt"
	"$gen" -n 20000 -q 300 -s 5 -c --long-names --crlf --t0 1000000000 -o "$t/long.bqlt"
	"$gen" -n 20000 -q 4 -s 3 -c --jiffies -o "$t/conly.bqlt"
	"$gen" -n 20000 -q 2 -s 1 -o "$t/g.bqlt"
	for f in q64 long conly g; do
		all_modes "$t/$f.bqlt" "2:3000 3:65536 2:" || return 1
	done
}

# shapegen SHAPE QUEUES RECORDS FILE: tests/tools/shapegen.awk's trace
shapegen() {
	awk -v shape="$1" -v queues="$2" -v n="$3" -f "$BATS_TEST_DIRNAME/../tools/shapegen.awk" >"$4"
}

@test "replay -J: many queues, declared up front or as they appear (issue #23)" {
	local t=$BATS_TEST_TMPDIR
	shapegen manyq 3000 12000 "$t/up.bqlt"
	shapegen manyq-late 3000 12000 "$t/late.bqlt"
	# the fixtures are what they claim: 3000 queues, before or among records
	[ "$(grep -c '^queue ' "$t/up.bqlt")" -eq 3000 ]
	[ "$(sed -n '4,3003p' "$t/up.bqlt" | grep -vc '^queue ')" -eq 0 ]
	[ "$(sed -n '4,6p' "$t/late.bqlt" | cut -d' ' -f2-)" = "$(printf 'q0\nq0 Q 60\nq0 C 60')" ]
	for f in up late; do
		all_modes "$t/$f.bqlt" "2:1000 3:4096 4:30000 8:65536 2:" || return 1
	done
	# a queue declared after records that name it: the same first error
	{ sed -n '1,3p' "$t/late.bqlt"; echo "5 q1 Q 60"; sed -n '4,$p' "$t/late.bqlt"; } >"$t/bad.bqlt"
	run "$BQLTOOL" replay -J 1 "$t/bad.bqlt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.bqlt:4: record: queue 'q1' is not declared"* ]]
	same_as_j1 "$t/bad.bqlt" "2:100 3:4096 2:" || return 1
}

# vm_floor_mb ARGS...: the least address space, in steps of 16 MiB, under
# which bqltool ARGS succeeds (one malloc arena, so that threads do not
# each reserve their own); 0 if not even 2 GiB do
vm_floor_mb() {
	local mb
	for ((mb = 64; mb <= 2048; mb += 16)); do
		if (ulimit -v $((mb * 1024)) && MALLOC_ARENA_MAX=1 exec "$BQLTOOL" "$@" >/dev/null 2>&1); then
			echo "$mb"
			return
		fi
	done
	echo 0
}

@test "replay -J: per-queue state is held once, not per thread (issue #23)" {
	local t=$BATS_TEST_TMPDIR one four
	[[ "${BUILD:-}" != *san* ]] || skip "address space limits do not apply under ASan"
	(ulimit -v 4000000) 2>/dev/null || skip "ulimit -v cannot be set here"
	# 200000 queues: the queue table is most of the memory
	shapegen manyq 200000 400000 "$t/q.bqlt"
	one=$(vm_floor_mb replay -q -J 1 "$t/q.bqlt")
	[ "$one" -gt 0 ]
	# four threads need their stacks and chunks (3 x 8 MiB + 10 x 2 MiB),
	# not a copy of the table each (before: 2.2 times -J 1's memory)
	(ulimit -v $(((one + 96) * 1024)) &&
		MALLOC_ARENA_MAX=1 BQLTOOL_REPLAY_CHUNK=65536 exec "$BQLTOOL" replay -q -J 4 "$t/q.bqlt") || {
		four=$(BQLTOOL_REPLAY_CHUNK=65536 vm_floor_mb replay -q -J 4 "$t/q.bqlt")
		echo "-J 1 runs in $one MiB, -J 4 needs $four MiB"
		return 1
	}
}

@test "replay -J 8: an address space that fits one thread but not 8 threads' chunks: fewer threads, the output of -J 1" {
	local t=$BATS_TEST_TMPDIR mb one=0
	[[ "${BUILD:-}" != *san* ]] || skip "address space limits do not apply under ASan"
	(ulimit -v 4000000) 2>/dev/null || skip "ulimit -v cannot be set here"
	"$BQLTOOL" sim -q --link 10G --queues 4 --traffic bulk --traffic bulk --traffic bulk \
		--traffic bulk --duration 0.05 --trace "$t/s.bqlt"
	"$BQLTOOL" replay -J 1 "$t/s.bqlt" >"$t/one.out"
	# the least address space -J 1 runs in, in steps of 2 MiB
	for ((mb = 4; mb <= 512; mb += 2)); do
		if (ulimit -v $((mb * 1024)) && MALLOC_ARENA_MAX=1 exec "$BQLTOOL" replay -q -J 1 "$t/s.bqlt" 2>/dev/null); then
			one=$mb
			break
		fi
	done
	[ "$one" -gt 0 ]
	# 8 threads' chunks in flight take 18 x 1.25 MiB: they do not fit there
	run --separate-stderr bash -c 'ulimit -v $1; MALLOC_ARENA_MAX=1 exec "$2" -v replay -J 8 "$3"' _ \
		$(((one + 2) * 1024)) "$BQLTOOL" "$t/s.bqlt"
	[ "$status" -eq 0 ] || fail "-J 1 runs in $one MiB; -J 8 in $((one + 2)): exit $status: $stderr"
	[ "$output" = "$(cat "$t/one.out")" ] || fail "not the output of -J 1"
	[[ $stderr == *"-J 8: out of memory for the threads' chunks: "* ]] || fail "stderr: $stderr"
}

@test "replay -J: a trace that declares its queues as it goes is read by one thread; -v says how much was scanned" {
	local t=$BATS_TEST_TMPDIR
	shapegen manyq-late 5000 10000 "$t/late.bqlt"
	shapegen manyq 5000 100000 "$t/up.bqlt"
	# every chunk declares queues: after two scans that came to nothing,
	# the threads rest and the consumer parses alone
	BQLTOOL_REPLAY_CHUNK=4096 bqx -v replay -q -J 2 "$t/late.bqlt"
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ late.bqlt:\ ([0-9]+)%\ of\ the\ trace\ scanned\ ahead\ by\ the\ threads ]]
	[ "${BASH_REMATCH[1]}" -le 5 ]
	BQLTOOL_REPLAY_CHUNK=4096 bqx -v replay -q -J 2 "$t/up.bqlt"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"up.bqlt: "*"% of the trace scanned ahead by the threads"* ]]
	# -J 1 has no threads to tell of
	bqx -v replay -q -J 1 "$t/up.bqlt"
	[[ "$stderr" != *scanned* ]]
}

# bad TEXT: a trace file holding TEXT (printf format) with 200 good lines
# before it and a few after it, so that the error falls in a chunk the
# threads scanned
bad() {
	local f=$BATS_TEST_TMPDIR/bad.bqlt
	{
		printf 'bqltrace 1\nqueue a\nqueue b\n'
		for ((i = 0; i < 100; i++)); do
			printf '%d a Q 1000\n%d a C 1000\n' $((i * 1000 + 10000)) $((i * 1000 + 10500))
		done
		# shellcheck disable=SC2059
		printf "$1"
		# and lines after it, so that it is not within the last bytes
		for ((i = 0; i < 4; i++)); do printf '%d a Q 1000\n' $((i + 900000)); done
	} >"$f"
	echo "$f"
}

@test "replay -J: bad traces: the same first error, line and status" {
	local f c specs=""
	for c in 1 20 31 32 33 40 64 65 100 128 700 1024 3000; do specs="$specs 2:$c 3:$c"; done
	for text in \
		'200000 a Q 100\n199999 a C 50\n' \
		'200000 a Q 100\n200001 b Q 5\n150000 b C 5\n' \
		'200000 c Q 100\n' \
		'200000 a Q 100\n200001 a C 101\n' \
		'200000 a Q 100\n200001 a C 100 limit=x\n' \
		'200000 a X 100\n' \
		'200000 a Q 4294967296\n' \
		'queue a\n' \
		'hz 100\n' \
		'200000 a Q 100 # trailing\n300000 a C 100 nq=5\n'; do
		f=$(bad "$text")
		run "$BQLTOOL" replay -J 1 "$f"
		[ "$status" -eq 1 ] || { echo "not an error: $text"; return 1; }
		[[ "$output" == *"$f":20[0-9]:* ]] || { echo "not at its line: $output"; return 1; }
		same_as_j1 "$f" "$specs" || return 1
		same_as_j1 "$f" "2:50 3:300" -q --timeline t.csv || return 1
		[ ! -e "$BATS_TEST_TMPDIR/par/t.csv" ]
	done
	# an error at the very first line, and an empty input
	printf 'bqltrace 2\n0 a Q 1\n' >"$BATS_TEST_TMPDIR/v2.bqlt"
	: >"$BATS_TEST_TMPDIR/empty.bqlt"
	same_as_j1 "$BATS_TEST_TMPDIR/v2.bqlt" "2:1 2:5 3:"
	same_as_j1 "$BATS_TEST_TMPDIR/empty.bqlt" "2:1 3:"
}

@test "replay -J: a line longer than 1 MiB is refused at its line, wherever the chunks end" {
	local f=$BATS_TEST_TMPDIR/long.bqlt n
	for n in 1048575 1048576 1048577 1500000; do
		{
			printf 'bqltrace 1\nqueue a\n'
			for ((i = 0; i < 50; i++)); do printf '%d a Q 10\n' $((i + 1000)); done
			printf '# '; head -c $((n - 2)) /dev/zero | tr '\0' x; printf '\n'
			printf '2000 a Q 10\n'
		} >"$f"
		run "$BQLTOOL" replay -J 1 -q "$f"
		if [ "$n" -lt 1048576 ]; then
			[ "$status" -eq 0 ]
		else
			[ "$status" -eq 1 ]
			[[ "$output" == *"long.bqlt:53: line longer than 1048576 bytes"* ]]
		fi
		same_as_j1 "$f" "2:100 3:4096 2:" -q || return 1
	done
	# the long line is the last, without '\n'
	{ printf 'bqltrace 1\nqueue a\n1 a Q 5\n# '; head -c 1048576 /dev/zero | tr '\0' y; } >"$f"
	same_as_j1 "$f" "2:100 2:"
}

@test "replay -J: compressed traces, whole and truncated" {
	command -v zstd >/dev/null || skip "no zstd command (make deps)"
	local t=$BATS_TEST_TMPDIR
	gen_mixed "$t/m.bqlt" 4000
	gzip -c "$t/m.bqlt" >"$t/m.bqlt.gz"
	zstd -q -c "$t/m.bqlt" >"$t/m.bqlt.zst"
	head -c 20000 "$t/m.bqlt.gz" >"$t/cut.gz"
	head -c 20000 "$t/m.bqlt.zst" >"$t/cut.zst"
	for f in m.bqlt.gz m.bqlt.zst; do
		all_modes "$t/$f" "2:100 3:5000 2:" || return 1
	done
	for f in cut.gz cut.zst; do
		same_as_j1 "$t/$f" "2:100 3:5000 2:" || return 1
		[[ "$(cat "$t/par/+stderr")" == *"$f:"[0-9]*": truncated "* ]]
	done
	# and the compressed replay is the plain one (but for the file name)
	run_in plain -J 2 -j --verify "$t/m.bqlt"
	run_in zst -J 2 -j --verify "$t/m.bqlt.zst"
	diff <(jq -S 'del(.queues[].file)' "$t/plain/+stdout") <(jq -S 'del(.queues[].file)' "$t/zst/+stdout")
}

@test "replay -J: standard input, a pipe or a file, and several traces" {
	local t=$BATS_TEST_TMPDIR
	gen_mixed "$t/m.bqlt" 2000
	run --separate-stderr sh -c '"$1" replay -J 1 -j - <"$2"' sh "$BQLTOOL" "$t/m.bqlt"
	[ "$status" -eq 0 ]
	local want=$output
	run --separate-stderr sh -c 'BQLTOOL_REPLAY_CHUNK=100 "$1" replay -J 3 -j - <"$2"' sh "$BQLTOOL" "$t/m.bqlt"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	run --separate-stderr sh -c 'cat "$2" | BQLTOOL_REPLAY_CHUNK=100 "$1" replay -J 3 -j -' sh "$BQLTOOL" "$t/m.bqlt"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	same_as_j1 "$EXAMPLES/decay.bqlt" "2:100 3:" "$EXAMPLES/ramp.bqlt" "$t/m.bqlt"
	same_as_j1 "$TRACES/bad-time.bqlt" "2:30 3:" --verify "$EXAMPLES/ramp.bqlt"
}

@test "replay -J: tune --from replays through the same path" {
	# a random mix fits no model: --force searches all the same
	local t=$BATS_TEST_TMPDIR
	gen_mixed "$t/m.bqlt" 3000
	run --separate-stderr "$BQLTOOL" -j tune --from "$t/m.bqlt" --force --duration 0.01
	[ "$status" -eq 0 ]
	local want=$output
	BQLTOOL_REPLAY_CHUNK=64 run --separate-stderr "$BQLTOOL" -j tune --from "$t/m.bqlt" --force --duration 0.01
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
}

@test "replay -J: a bad thread count is a usage error" {
	for v in 0 -1 abc 65 1000000 99999999999999999999 '' 2x; do
		bqx replay -J "$v" "$EXAMPLES/ramp.bqlt"
		[ "$status" -eq 2 ] || { echo "-J '$v': status $status"; return 1; }
		[ -z "$output" ]
		[[ "$stderr" == *"-J: '$v': expected 1..64 threads"* ]]
	done
	bqx replay "$EXAMPLES/ramp.bqlt" -J
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"needs an argument"* ]]
	bqx replay --threads 64 -q "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
	bqx help replay
	[[ "$output" == *"-J, --threads N"* ]]
}

@test "replay -J: the default is the CPUs it may run on (its affinity), at most 8; -v tells it" {
	local n=$(nproc)	# nproc counts the affinity mask too
	((n <= 8)) || n=8
	bqx replay -v -q "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"note: replay: $EXAMPLES/ramp.bqlt: -J $n (default: the $(nproc) CPU"*" this process may run on, at most 8)"* ]]
	bqx replay -v -q -J 3 "$EXAMPLES/ramp.bqlt"
	[[ "$stderr" == *"ramp.bqlt: -J 3 (given)"* ]]
	# a pipe is read by one thread, whatever -J
	run --separate-stderr sh -c 'cat "$2" | "$1" replay -v -q -J 4 -' sh "$BQLTOOL" "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"replay: -: -J 1 (not a regular file: one thread reads it)"* ]]
	# without -v, no note
	bqx replay -q "$EXAMPLES/ramp.bqlt"
	[ -z "$stderr" ]
}

@test "replay -J: under taskset -c 0 the default is one thread" {
	command -v taskset >/dev/null || skip "no taskset command (util-linux)"
	run --separate-stderr taskset -c 0 "$BQLTOOL" replay -v -q "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ramp.bqlt: -J 1 (default: the 1 CPU this process may run on, at most 8)"* ]]
	# the output is the same as on all CPUs
	run --separate-stderr taskset -c 0 "$BQLTOOL" replay -j "$EXAMPLES/ramp.bqlt"
	local one=$output
	bqx replay -j "$EXAMPLES/ramp.bqlt"
	[ "$output" = "$one" ]
}
