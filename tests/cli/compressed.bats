#!/usr/bin/env bats
# Compressed traces: `bqltool replay` reads gzip and zstd files and stdin by
# their magic bytes, with the very output of the plain trace (summary, -j,
# --verify, --timeline, errors with FILE:LINE); damaged streams are named.
bats_require_minimum_version 1.5.0
load helpers

TRACES="$BATS_TEST_DIRNAME/../data/traces"

setup() {
	command -v zstd >/dev/null || skip "no zstd command (make deps)"
	command -v gzip >/dev/null || skip "no gzip command"
}

# same_run DIR_A DIR_B ARGS...: bqltool ARGS run in DIR_A and in DIR_B give
# the same status, stdout and stderr, byte for byte (the file names are
# the same: only the content differs)
same_run() {
	local a=$1 b=$2
	shift 2
	local d rc
	for d in a b; do
		rc=0
		(cd "${!d}" && exec "$BQLTOOL" "$@") >"$BATS_TEST_TMPDIR/$d.out" \
			2>"$BATS_TEST_TMPDIR/$d.err" || rc=$?
		echo "$rc" >"$BATS_TEST_TMPDIR/$d.rc"
	done
	cmp "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/b.out" &&
		cmp "$BATS_TEST_TMPDIR/a.err" "$BATS_TEST_TMPDIR/b.err" &&
		cmp "$BATS_TEST_TMPDIR/a.rc" "$BATS_TEST_TMPDIR/b.rc" ||
		{ echo "differ: in $b: $*"; diff "$BATS_TEST_TMPDIR/a.err" "$BATS_TEST_TMPDIR/b.err"; return 1; }
}

# trees: plain/, gz/ and zst/ hold every trace under the same name
make_trees() {
	local t=$BATS_TEST_TMPDIR f n
	mkdir -p "$t/plain" "$t/gz" "$t/zst"
	for f in "$TRACES"/*.bqlt "$EXAMPLES"/*.bqlt; do
		n=${f##*/}
		cp "$f" "$t/plain/$n"
		gzip -c "$f" >"$t/gz/$n"
		zstd -q -c "$f" >"$t/zst/$n"
	done
}

@test "compressed: every fixture replays byte for byte as the plain trace" {
	local t=$BATS_TEST_TMPDIR f n c opts
	make_trees
	for f in "$t"/plain/*.bqlt; do
		n=${f##*/}
		for c in gz zst; do
			for opts in "" "-j" "-p" "--verify" "-j --verify" "-q --timeline /dev/stdout" \
				"-q --all-events --timeline /dev/stdout" "--set limit_min=3000"; do
				# shellcheck disable=SC2086
				same_run "$t/plain" "$t/$c" replay $opts "$n"
			done
		done
	done
	# the fixtures do exercise the error paths: bad traces keep FILE:LINE
	(cd "$t/zst" && "$BQLTOOL" replay bad-time.bqlt 2>&1 >/dev/null) | grep -q '^bqltool: replay: bad-time.bqlt:6: '
}

@test "compressed: standard input, plain or compressed, gives the same output" {
	local t=$BATS_TEST_TMPDIR f n
	make_trees
	for f in "$t"/plain/*.bqlt; do
		n=${f##*/}
		"$BQLTOOL" replay --verify - <"$f" >"$t/a.out" 2>"$t/a.err" || true
		gzip -c "$f" | "$BQLTOOL" replay --verify - >"$t/b.out" 2>"$t/b.err" || true
		zstd -q -c "$f" | "$BQLTOOL" replay --verify - >"$t/c.out" 2>"$t/c.err" || true
		cmp "$t/a.out" "$t/b.out" && cmp "$t/a.out" "$t/c.out" || { echo "stdout $n"; return 1; }
		cmp "$t/a.err" "$t/b.err" && cmp "$t/a.err" "$t/c.err" || { echo "stderr $n"; return 1; }
	done
}

@test "compressed: a long trace in several members and frames, with the plain output" {
	local t=$BATS_TEST_TMPDIR gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	mkdir -p "$t/plain" "$t/gz" "$t/zst"
	"$gen" -n 300000 -q 3 -s 7 -c -o "$t/plain/g.bqlt"
	# split anywhere, even inside a line: the decompressed stream is the trace
	head -c 1000003 "$t/plain/g.bqlt" | gzip -1 -c >"$t/gz/g.bqlt"
	tail -c +1000004 "$t/plain/g.bqlt" | gzip -9 -c >>"$t/gz/g.bqlt"
	head -c 777777 "$t/plain/g.bqlt" | zstd -q -c >"$t/zst/g.bqlt"
	tail -c +777778 "$t/plain/g.bqlt" | zstd -q -c --no-check >>"$t/zst/g.bqlt"
	[ "$(stat -c %s "$t/plain/g.bqlt")" -gt 4000000 ]
	same_run "$t/plain" "$t/gz" -j replay --verify g.bqlt
	same_run "$t/plain" "$t/zst" -j replay --verify g.bqlt
	jq -e '.queues[0].verify.checked > 1000' "$t/a.out" >/dev/null
	same_run "$t/plain" "$t/zst" replay -q --timeline /dev/stdout g.bqlt
}

@test "compressed: a truncated stream fails naming the file, the line and why" {
	local t=$BATS_TEST_TMPDIR
	cd "$EXAMPLES"
	gzip -c decay.bqlt | head -c 500 >"$t/cut.gz"
	run --separate-stderr "$BQLTOOL" replay "$t/cut.gz"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/cut.gz:"[0-9]+": truncated gzip stream"$ ]]
	zstd -q -c decay.bqlt | head -c 500 >"$t/cut.zst"
	run --separate-stderr "$BQLTOOL" replay "$t/cut.zst"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/cut.zst:"[0-9]+": truncated zstd stream"$ ]]
	# and from standard input
	run --separate-stderr bash -c "zstd -q -c ramp.bqlt | head -c 100 | '$BQLTOOL' replay -"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: -:"[0-9]+": truncated zstd stream"$ ]]
	# the timeline of a replay that failed is not written
	run --separate-stderr "$BQLTOOL" replay --timeline "$t/t.csv" "$t/cut.gz"
	[ "$status" -eq 1 ]
	[ ! -e "$t/t.csv" ]
}

@test "compressed: corrupt data and trailing garbage are named" {
	local t=$BATS_TEST_TMPDIR
	cd "$EXAMPLES"
	zstd -q -c decay.bqlt >"$t/bad.zst"
	printf '\xff\xff\xff\xff' | dd of="$t/bad.zst" bs=1 seek=200 conv=notrunc status=none
	run --separate-stderr "$BQLTOOL" replay "$t/bad.zst"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/bad.zst:"[0-9]+": corrupt zstd data: " ]]
	gzip -c decay.bqlt >"$t/bad.gz"
	printf '\xff\xff\xff\xff' | dd of="$t/bad.gz" bs=1 seek=200 conv=notrunc status=none
	run --separate-stderr "$BQLTOOL" replay "$t/bad.gz"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/bad.gz:"[0-9]+": corrupt gzip data: " ]]
	{ gzip -c decay.bqlt; echo junk; } >"$t/junk.gz"
	run --separate-stderr "$BQLTOOL" replay "$t/junk.gz"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/junk.gz:"[0-9]+": trailing garbage after the gzip data"$ ]]
	{ zstd -q -c decay.bqlt; echo junk; } >"$t/junk.zst"
	run --separate-stderr "$BQLTOOL" replay "$t/junk.zst"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"bqltool: replay: $t/junk.zst:"[0-9]+": trailing garbage after the zstd data"$ ]]
}

# flip_byte FILE OFFSET: XOR the byte at OFFSET with 0x10, in place
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 16)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# issue #37 class 8: tinput_blame() existed with unit tests and nothing
# called it: a byte flipped mid-stream gives garbage text first, and the
# parse error was reported alone ("... goes back in time"). Every parse
# error from a compressed input now waits for the decompressor's verdict
# on the rest: "(possibly corrupt input: FILE: corrupt gzip data: ...)".
@test "compressed: a byte flipped mid-.gz/.zst: the parse error says possibly corrupt input (#37 class 8)" {
	local t=$BATS_TEST_TMPDIR gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace z zn off blamed j
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	"$gen" -n 200000 -q 2 -s 3 -o "$t/g.bqlt"
	gzip -n -c "$t/g.bqlt" >"$t/g.gz"
	zstd -q -c "$t/g.bqlt" >"$t/g.zst"
	for z in gz zst; do
		zn=$([ $z = gz ] && echo gzip || echo zstd)
		blamed=0
		for off in 100000 200000 300000 400000; do
			cp "$t/g.$z" "$t/c.$z"
			flip_byte "$t/c.$z" "$off"
			for j in 1 4; do
				run --separate-stderr timeout 20 "$BQLTOOL" replay -q -J $j "$t/c.$z"
				[ "$status" -eq 1 ] || { echo "$z at $off: status $status"; return 1; }
				[ -z "$output" ]
				# the decompressor's own error, or a parse error that says it
				if [[ "$stderr" =~ ^"bqltool: replay: $t/c.$z:"[0-9]+": corrupt $zn data: "[^\(]*$ ]]; then
					continue
				fi
				[[ "$stderr" =~ ^"bqltool: replay: $t/c.$z:"[0-9]+": ".*" (possibly corrupt input: $t/c.$z: corrupt $zn data: ".*")"$ ]] ||
					{ echo "$z at $off, -J $j: $stderr"; return 1; }
				blamed=$((blamed + 1))
			done
		done
		[ "$blamed" -gt 0 ] || { echo "$z: no flip gave a parse error first"; return 1; }
	done
	# tune --from reads traces the same way
	cp "$t/g.gz" "$t/c.gz"
	flip_byte "$t/c.gz" 200000
	run --separate-stderr timeout 60 "$BQLTOOL" tune --from "$t/c.gz" --link 1G
	[ "$status" -eq 1 ]
	assert_regex "$stderr" "\(possibly corrupt input: $t/c\.gz: corrupt gzip data: .*\)$"
}

@test "compressed: an empty compressed trace is an empty trace" {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/plain" "$t/gz" "$t/zst"
	: >"$t/plain/e.bqlt"
	gzip -c </dev/null >"$t/gz/e.bqlt"
	zstd -q -c </dev/null >"$t/zst/e.bqlt"
	same_run "$t/plain" "$t/gz" replay e.bqlt
	same_run "$t/plain" "$t/zst" replay e.bqlt
	[ "$(cat "$t/a.rc")" -eq 1 ]
}
