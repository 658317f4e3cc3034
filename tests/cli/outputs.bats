#!/usr/bin/env bats
# Every output file is written in full or not at all (issue #10, class 1):
# replay --timeline/--plot, save -o, export --textfile go through
# lib/io/ofile.c. A failed run leaves an existing target (or a symlink's
# target) untouched; a dangling symlink gets its target created and is
# kept; an existing file keeps its mode and owner; a FIFO, a device or
# standard output gets data only after success; write errors are named.
bats_require_minimum_version 1.5.0
load helpers

TRACES="$BATS_TEST_DIRNAME/../data/traces"

# long_bad FILE: a trace whose timeline is larger than any output buffer
# (over 1 MiB of rows) and which fails at its last line
long_bad() {
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	"$gen" -n 60000 -q 1 -s 3 -o "$1"
	echo "1 eth0:tx-0 C 1" >>"$1"	# back in time
}

rpx() {
	run --separate-stderr timeout 20 "$BQLTOOL" "$@"
}

@test "outputs: replay --timeline/--plot onto symlinks to existing files, replay fails: files intact" {
	local t=$BATS_TEST_TMPDIR/o
	mkdir "$t"
	long_bad "$t/bad.bqlt"
	echo "old timeline" >"$t/real.csv"
	echo "old plot" >"$t/real.svg"
	ln -s real.csv "$t/link.csv"
	ln -s real.svg "$t/link.svg"
	rpx replay --timeline "$t/link.csv" --plot "$t/link.svg" "$t/bad.bqlt"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad.bqlt:"*"goes back in time"* ]]
	[ "$(cat "$t/real.csv")" = "old timeline" ]
	[ "$(cat "$t/real.svg")" = "old plot" ]
	[ -L "$t/link.csv" ] && [ -L "$t/link.svg" ]
	# the same with a plain file and a short bad trace
	rpx replay --all-events --timeline "$t/real.csv" "$TRACES/bad-overcomplete.bqlt"
	[ "$status" -eq 1 ]
	[ "$(cat "$t/real.csv")" = "old timeline" ]
	[ "$(ls -A "$t" | sort | tr '\n' ' ')" = "bad.bqlt link.csv link.svg real.csv real.svg " ]
}

@test "outputs: replay --timeline to a dangling symlink creates its target, keeps the link" {
	local t=$BATS_TEST_TMPDIR
	mkdir "$t/d"
	ln -s d/made.csv "$t/link.csv"
	cd "$EXAMPLES"
	rpx replay -q --timeline "$t/link.csv" ramp.bqlt
	[ "$status" -eq 0 ]
	[ -L "$t/link.csv" ]
	diff -u "$DATA/expected/replay-ramp-timeline.csv" "$t/d/made.csv"
}

@test "outputs: save -o onto a dangling symlink creates its target and keeps the link" {
	use_tree tuned
	local t=$BATS_TEST_TMPDIR
	mkdir "$t/profiles"
	ln -s profiles/bql.json "$t/link.json"
	bq save
	want=$output
	bq save -o "$t/link.json"
	assert_success
	[ -L "$t/link.json" ]
	assert_equal "$(readlink "$t/link.json")" profiles/bql.json
	assert_equal "$(cat "$t/profiles/bql.json")" "$want"
	# a link chain, the last one dangling, absolute
	ln -s "$t/profiles/other.json" "$t/abs.json"
	ln -s abs.json "$t/chain.json"
	bq save -o "$t/chain.json"
	assert_success
	[ -L "$t/chain.json" ] && [ -L "$t/abs.json" ]
	assert_equal "$(cat "$t/profiles/other.json")" "$want"
}

@test "outputs: a missing directory is named as such, not as a temporary file (#38)" {
	use_tree tuned
	local t=$BATS_TEST_TMPDIR
	bq save -o "$t/etc/bqltool/profile.json"
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "bqltool: save: $t/etc/bqltool/profile.json: directory $t/etc/bqltool does not exist"
	rpx replay -q --timeline "$t/none/t.csv" "$EXAMPLES/ramp.bqlt"
	assert_failure 1
	assert_equal "$stderr" "bqltool: replay: $t/none/t.csv: directory $t/none does not exist"
	# through a dangling symlink, the directory of the file it points to
	ln -s "$t/gone/p.json" "$t/l.json"
	bq save -o "$t/l.json"
	assert_failure 1
	assert_equal "$stderr" "bqltool: save: $t/l.json: directory $t/gone does not exist"
	[ ! -e "$t/etc" ] && [ ! -e "$t/none" ] && [ ! -e "$t/gone" ]
}

@test "outputs: overwriting a 0600 file keeps 0600 and its owner (save, replay, export)" {
	use_tree multi
	local t=$BATS_TEST_TMPDIR owner=""
	mkdir "$t/prom"
	for f in p.json tl.csv pl.svg prom/bqltool.prom; do
		echo old >"$t/$f"
		chmod 0600 "$t/$f"
		if [ "$(id -u)" -eq 0 ]; then
			chown 1234:5678 "$t/$f"
			owner=1234:5678
		fi
	done
	(umask 022 && "$BQLTOOL" --sysfs-root "$ROOT" save -o "$t/p.json")
	(cd "$EXAMPLES" && umask 022 && "$BQLTOOL" replay -q --timeline "$t/tl.csv" \
		--plot "$t/pl.svg" ramp.bqlt)
	(umask 022 && "$BQLTOOL" --sysfs-root "$ROOT" export --textfile "$t/prom")
	for f in p.json tl.csv pl.svg prom/bqltool.prom; do
		[ "$(head -c 3 "$t/$f")" != old ] || { echo "$f not written"; return 1; }
		assert_equal "$f $(stat -c %a "$t/$f")" "$f 600"
		[ -z "$owner" ] || assert_equal "$f $(stat -c %u:%g "$t/$f")" "$f $owner"
	done
	# and a new file follows the umask (export: 0644 for the collector)
	(umask 077 && "$BQLTOOL" --sysfs-root "$ROOT" save -o "$t/new.json")
	assert_equal "$(stat -c %a "$t/new.json")" 600
	rm "$t/prom/bqltool.prom"
	(umask 077 && "$BQLTOOL" --sysfs-root "$ROOT" export --textfile "$t/prom")
	assert_equal "$(stat -c %a "$t/prom/bqltool.prom")" 644
}

@test "outputs: export --textfile through a symlinked bqltool.prom keeps the link" {
	use_tree multi
	local t=$BATS_TEST_TMPDIR
	mkdir "$t/prom" "$t/real"
	ln -s ../real/bql.prom "$t/prom/bqltool.prom"
	bq export --textfile "$t/prom"
	assert_success
	[ -L "$t/prom/bqltool.prom" ]
	grep -q '^bql_limit_bytes{' "$t/real/bql.prom"
	assert_equal "$(ls -A "$t/prom")" "bqltool.prom"
}

# reader FIFO OUT: copy FIFO to OUT in the background until a writer closes it
reader() {
	timeout 20 cat "$1" >"$2" &
	READER=$!
}

# release FIFO: open it for writing and close it, so that a reader that
# never got a writer sees the end (a failed run must not have written)
release() {
	timeout 5 bash -c "exec 3>'$1'" || true
	wait "$READER" || true
}

@test "outputs: a FIFO gets the timeline only after success" {
	local t=$BATS_TEST_TMPDIR
	long_bad "$t/bad.bqlt"
	mkfifo "$t/fifo"
	reader "$t/fifo" "$t/got"
	rpx replay --all-events --timeline "$t/fifo" "$t/bad.bqlt"
	[ "$status" -eq 1 ]
	release "$t/fifo"
	[ ! -s "$t/got" ]
	[ -p "$t/fifo" ]
	# success: all of it
	reader "$t/fifo" "$t/got"
	cd "$EXAMPLES"
	rpx replay -q --timeline "$t/fifo" ramp.bqlt
	[ "$status" -eq 0 ]
	wait "$READER"
	diff -u "$DATA/expected/replay-ramp-timeline.csv" "$t/got"
	[ -p "$t/fifo" ]
}

@test "outputs: --timeline /dev/stdout of a failed replay prints no row" {
	local t=$BATS_TEST_TMPDIR
	long_bad "$t/bad.bqlt"
	rpx replay --all-events --timeline /dev/stdout "$t/bad.bqlt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# to a pipe, too
	run bash -c "'$BQLTOOL' replay --all-events --timeline /dev/stdout '$t/bad.bqlt' 2>/dev/null | wc -c"
	[ "$output" -eq 0 ]
	# and a file behind /dev/stdout is appended to, not replaced
	echo first >"$t/out"
	(cd "$EXAMPLES" && "$BQLTOOL" replay -q --timeline /dev/stdout ramp.bqlt >>"$t/out")
	[ "$(head -1 "$t/out")" = first ]
	[ "$(sed -n 2p "$t/out")" = "line,t_ns,queue,event,bytes,inflight,limit" ]
}

@test "outputs: a write error (file size limit) is named and the target kept" {
	local t=$BATS_TEST_TMPDIR/o
	mkdir "$t"
	echo old >"$t/tl.csv"
	cd "$EXAMPLES"
	run --separate-stderr bash -c "ulimit -f 1; trap '' XFSZ; exec '$BQLTOOL' replay -q \
		--all-events --timeline '$t/tl.csv' decay.bqlt ramp.bqlt completion-only.bqlt"
	[ "$status" -eq 2 ]	# --timeline takes one trace
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	"$gen" -n 20000 -q 1 -s 5 -o "$t/g.bqlt"
	run --separate-stderr bash -c "ulimit -f 100; trap '' XFSZ; exec '$BQLTOOL' replay -q \
		--all-events --timeline '$t/tl.csv' '$t/g.bqlt'"
	[ "$status" -eq 1 ]
	[ "$stderr" = "bqltool: replay: $t/tl.csv: write error: File too large" ]
	[ "$(cat "$t/tl.csv")" = old ]
	[ "$(ls -A "$t" | sort | tr '\n' ' ')" = "g.bqlt tl.csv " ]
	# save -o and export the same way
	use_tree multi
	echo old >"$t/p.json"
	# (stderr through a pipe: bats keeps it in a file, which the limit hits too)
	run bash -c "(ulimit -f 0; trap '' XFSZ; exec '$BQLTOOL' \
		--sysfs-root '$ROOT' save -o '$t/p.json') 2>&1 | cat; exit \${PIPESTATUS[0]}"
	[ "$status" -eq 1 ]
	[ "$output" = "bqltool: save: $t/p.json: write error: File too large" ]
	[ "$(cat "$t/p.json")" = old ]
	mkdir "$t/prom"
	echo old >"$t/prom/bqltool.prom"
	run bash -c "(ulimit -f 0; trap '' XFSZ; exec '$BQLTOOL' \
		--sysfs-root '$ROOT' export --textfile '$t/prom') 2>&1 | cat; exit \${PIPESTATUS[0]}"
	[ "$status" -eq 1 ]
	[ "$output" = "bqltool: export: $t/prom/bqltool.prom: write error: File too large" ]
	[ "$(cat "$t/prom/bqltool.prom")" = old ]
	[ "$(ls -A "$t/prom")" = bqltool.prom ]
}

@test "outputs: a compressed timeline by its name, read back by replay's own reader" {
	local t=$BATS_TEST_TMPDIR
	command -v zstd >/dev/null || skip "no zstd"
	cd "$EXAMPLES"
	rpx replay -q --timeline "$t/t.csv.gz" ramp.bqlt
	[ "$status" -eq 0 ]
	gzip -dc "$t/t.csv.gz" | diff -u "$DATA/expected/replay-ramp-timeline.csv" -
	rpx replay -q --all-events --timeline "$t/t.jsonl.zst" decay.bqlt
	[ "$status" -eq 0 ]
	zstd -dc "$t/t.jsonl.zst" | jq -e -s 'length > 10 and (.[0] | has("inflight"))' >/dev/null
}

@test "outputs: a timeline of many buffers is the same from the writer thread and inline (one CPU)" {
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace t=$BATS_TEST_TMPDIR
	[ -x "$gen" ] || skip "gentrace not built (make tools)"
	command -v taskset >/dev/null || skip "no taskset"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no writer thread to compare with"
	# 8 MB of rows and more: the writer's buffers go round several times
	"$gen" -n 200000 -q 4 -s 7 --t0 1000000000 -o "$t/big.bqlt"
	for f in a.csv a.jsonl a.csv.gz a.jsonl.zst; do
		rpx replay -q --all-events --timeline "$t/thread-$f" "$t/big.bqlt"
		[ "$status" -eq 0 ]
		run --separate-stderr timeout 20 taskset -c 0 "$BQLTOOL" replay -q --all-events \
			--timeline "$t/inline-$f" "$t/big.bqlt"
		[ "$status" -eq 0 ]
	done
	[ "$(stat -c %s "$t/thread-a.csv")" -gt 8000000 ]
	cmp "$t/thread-a.csv" "$t/inline-a.csv"
	cmp "$t/thread-a.jsonl" "$t/inline-a.jsonl"
	cmp <(gzip -dc "$t/thread-a.csv.gz") "$t/inline-a.csv"
	cmp <(gzip -dc "$t/inline-a.csv.gz") "$t/inline-a.csv"
	if command -v zstd >/dev/null; then
		cmp <(zstd -dcq "$t/thread-a.jsonl.zst") "$t/inline-a.jsonl"
		cmp <(zstd -dcq "$t/inline-a.jsonl.zst") "$t/inline-a.jsonl"
	fi
	# one row per record, in file order (line numbers strictly increasing)
	[ "$(wc -l <"$t/inline-a.csv")" -eq "$(($(grep -c '^[0-9]' "$t/big.bqlt") + 1))" ]
	tail -n +2 "$t/thread-a.csv" | awk -F, 'NR > 1 && $1 <= prev { exit 1 } { prev = $1 }'
}

@test "outputs: one name check for --plot, --timeline, --trace and -o, the same in every command (#23 class 8)" {
	local t=$BATS_TEST_TMPDIR n cmd
	use_tree nic64
	cd "$EXAMPLES"
	# a name that promises another format, or a compressor bqltool does not write
	for cmd in "sim -q --duration 0.01" "replay -q ramp.bqlt"; do
		for n in x.svg x.json x.csv.bz2 x.jsonl.xz; do
			rpx $cmd --timeline "$t/$n"
			[ "$status" -eq 2 ] || fail "$cmd --timeline $n: exit $status"
			[[ $stderr == *"--timeline: '$t/$n': "*"the timeline is CSV or JSON lines"* ]] || fail "$stderr"
			[ ! -e "$t/$n" ]
		done
		for n in x.svgz x.gif x.svg.bz2; do
			rpx $cmd --plot "$t/$n"
			[ "$status" -eq 2 ] || fail "$cmd --plot $n: exit $status"
			[[ $stderr == *"--plot: '$t/$n': "*"the plot is SVG"* ]] || fail "$stderr"
		done
		# the format a name chooses is the same in both: JSON lines, compressed
		rpx $cmd --timeline "$t/tl.jsonl.gz" --plot "$t/pl.SVG.gz"
		[ "$status" -eq 0 ] || fail "$cmd: $stderr"
		gzip -dc "$t/tl.jsonl.gz" | head -1 | jq -e 'has("limit")' >/dev/null ||
			fail "$cmd: $t/tl.jsonl.gz is not JSON lines"
		gzip -dc "$t/pl.SVG.gz" | grep -q '<svg' || fail "$cmd: the plot is not gzip'd SVG"
		rm -f "$t/tl.jsonl.gz" "$t/pl.SVG.gz"
	done
	for n in t.csv t.bqlt.xz; do
		rpx sim -q --duration 0.01 --trace "$t/$n"
		[ "$status" -eq 2 ] || fail "--trace $n: exit $status"
		[[ $stderr == *"--trace: '$t/$n': "*"the trace is a bqltrace"* ]] || fail "$stderr"
		rpx record -o "$t/$n" -d 1 lo
		[ "$status" -eq 2 ] || fail "record -o $n: exit $status"
		[[ $stderr == *"-o: '$t/$n': "*"the trace is a bqltrace"* ]] || fail "$stderr"
	done
	for n in p.json.gz p.svg; do
		bq save -o "$t/$n"
		[ "$status" -eq 2 ] || fail "save -o $n: exit $status"
		[[ $stderr == *"-o: '$t/$n': the profile is JSON"* ]] || fail "$stderr"
		[ ! -e "$t/$n" ]
	done
	# names with no ending bqltool knows, and devices, pass
	rpx sim -q --duration 0.01 --trace "$t/t" --timeline "$t/tl" --plot /dev/null
	[ "$status" -eq 0 ] || fail "$stderr"
}

# issue #37 class 5: a message longer than 255 bytes kept its head and lost
# its reason ("... /x.csv: cannot c"); long paths now lose their middle
@test "outputs: an error naming a 230-byte directory keeps its reason (#37 class 5)" {
	local d=$BATS_TEST_TMPDIR/$(printf 'a%.0s' $(seq 230))
	rpx replay -q --timeline "$d/x.csv" "$TRACES/../../../examples/ramp.bqlt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	assert_regex "$stderr" '^bqltool: replay: /.*\.\.\..*/x\.csv: directory /.*aaa does not exist$'
	[ "${#stderr}" -lt 300 ]
}

# issue #37 class 4: an output name of 248-255 bytes failed "File name too
# long": the temporary ".NAME.XXXXXX" passed NAME_MAX. Every writer shares
# ofile: save -o, replay --timeline/--plot, sim --trace; both the unnamed
# file (O_TMPFILE) and, without it, a temporary whose NAME is cut
@test "outputs: names of 248 to 255 bytes are written by every writer, with and without O_TMPFILE (#37 class 4)" {
	local t=$BATS_TEST_TMPDIR/o n b mode
	mkdir "$t"
	for mode in 0 1; do
		for n in 248 251 255; do
			b=$(printf 'x%.0s' $(seq $((n - 5))))
			BQLTOOL_NO_O_TMPFILE=$mode rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/$b.json"
			assert_success
			jq -e .devices "$t/$b.json" >/dev/null
			BQLTOOL_NO_O_TMPFILE=$mode rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/$b.json"	# replaced
			assert_success
			BQLTOOL_NO_O_TMPFILE=$mode rpx replay -q --timeline "$t/${b}c.csv" --plot "$t/${b}s.svg" \
				"$TRACES/../../../examples/ramp.bqlt"
			assert_success
			[ -s "$t/${b}c.csv" ] && [ -s "$t/${b}s.svg" ]
			BQLTOOL_NO_O_TMPFILE=$mode rpx sim -q --duration 0.01 --link 1G --trace "$t/${b:1}.bqlt"
			assert_success
			head -1 "$t/${b:1}.bqlt" | grep -qx 'bqltrace 1'
			rm -f "$t"/*
		done
		# 255 bytes for the timeline and the plot too
		b=$(printf 'y%.0s' $(seq 251))
		BQLTOOL_NO_O_TMPFILE=$mode rpx replay -q --timeline "$t/$b.csv" --plot "$t/${b:1}.svg" \
			"$TRACES/../../../examples/ramp.bqlt"
		assert_success
		[ -s "$t/$b.csv" ] && [ -s "$t/${b:1}.svg" ]
		[ -z "$(ls -A "$t" | grep '^\.')" ]
		rm -f "$t"/*
	done
	# 256 is the kernel's refusal, named, with its reason
	b=$(printf 'z%.0s' $(seq 252))
	rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/$b.json"
	assert_failure 1
	assert_regex "$stderr" 'File name too long$'
}

# issue #37 (questionable, decided): output symlinks are resolved in user
# space, so root followed a link another user planted in /tmp. A link is
# now followed only where fs.protected_symlinks=1 lets the kernel follow it
@test "outputs: a symlink of another user in a sticky world-writable directory is not followed, as fs.protected_symlinks" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (to own a link as another user)"
	local t=$BATS_TEST_TMPDIR/sticky victim=$BATS_TEST_TMPDIR/victim
	mkdir -m 1777 "$t"
	echo precious >"$victim"
	ln -s "$victim" "$t/p.json"
	chown -h nobody "$t/p.json"
	rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/p.json"
	assert_failure 1
	assert_regex "$stderr" "p\\.json: .*/sticky/p\\.json is a symbolic link of another user in the sticky, world-writable .*/sticky: not followed \\(as fs\\.protected_symlinks refuses\\)$"
	[ "$(cat "$victim")" = precious ]
	# the same chain one hop later (our own link to theirs) is refused too
	ln -s "$t/p.json" "$BATS_TEST_TMPDIR/mine.json"
	rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$BATS_TEST_TMPDIR/mine.json"
	assert_failure 1
	[ "$(cat "$victim")" = precious ]
	# our own link there, or one owned by the directory's owner, is followed
	chown -h root "$t/p.json"
	rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/p.json"
	assert_success
	jq -e .devices "$victim" >/dev/null
	[ -L "$t/p.json" ]
	chown nobody "$t" && chown -h nobody "$t/p.json"
	rpx --sysfs-root "$DATA/sysfs/nic1" save -o "$t/p.json"
	assert_success
}

# issue #37 (questionable): with TMPDIR missing, the spool's error named
# only /dev/stdout; it names the directory and that it is $TMPDIR
@test "outputs: a spool that cannot be made names \$TMPDIR, not only the target" {
	TMPDIR=$BATS_TEST_TMPDIR/none rpx sim -q --duration 0.01 --timeline /dev/stdout
	assert_failure 1
	[ -z "$output" ]
	assert_regex "$stderr" "^bqltool: sim: /dev/stdout: cannot create the temporary file that holds the output until success in .*/none \\(\\\$TMPDIR\\): No such file or directory"
}
