#!/usr/bin/env bats
# bqltool replay: examples against golden files, --verify, --timeline,
# what-if --set, --kernel, stdin, several files, bad traces, bad options.
bats_require_minimum_version 1.5.0
load helpers

TRACES="$BATS_TEST_DIRNAME/../data/traces"
EXPECTED="$BATS_TEST_DIRNAME/../data/expected"

# rp ARGS...: bqltool replay, run from examples/ so "file" keys are stable
rp() {
	cd "$EXAMPLES"
	run --separate-stderr timeout 20 "$BQLTOOL" "$@"
}

@test "replay: ramp example matches the golden JSON" {
	rp -p replay ramp.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$EXPECTED/replay-ramp.json" - <<<"$output"
}

@test "replay: decay example matches the golden JSON" {
	rp -p replay decay.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$EXPECTED/replay-decay.json" - <<<"$output"
}

@test "replay: --verify passes on the completion-only example" {
	rp -p replay --verify completion-only.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$EXPECTED/replay-completion-only.json" - <<<"$output"
	[ "$(jq '.queues[0].verify.checked' <<<"$output")" -eq 60 ]
}

@test "replay: -j keys of DESIGN.md" {
	rp -j replay ramp.bqlt
	[ "$status" -eq 0 ]
	jq -e '.queues[0] | (.queue == "eth0:tx-0") and (.completions == 10)
		and (.limit | has("final") and has("min") and has("max") and has("mean"))
		and (.starvations == 4) and (.stops == 11)
		and (.verify == {"checked": 0, "mismatches": 0})' <<<"$output"
}

@test "replay: text summary of two files" {
	rp replay ramp.bqlt decay.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$EXPECTED/replay-multi.txt" - <<<"$output"
}

@test "replay: several files in one JSON document, each queue with its file" {
	rp -j replay ramp.bqlt decay.bqlt completion-only.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.queues[].file]' <<<"$output")" = '["ramp.bqlt","decay.bqlt","completion-only.bqlt"]' ]
	[ "$(jq -c '[.queues[].limit.final]' <<<"$output")" = '[18168,6056,9084]' ]
}

@test "replay: - reads standard input" {
	cd "$EXAMPLES"
	run --separate-stderr "$BQLTOOL" -p replay - <ramp.bqlt
	[ "$status" -eq 0 ]
	diff -u <(sed 's/"ramp.bqlt"/"-"/' "$EXPECTED/replay-ramp.json") - <<<"$output"
}

@test "replay: CRLF line endings give the same result" {
	sed 's/$/\r/' "$EXAMPLES/decay.bqlt" >"$BATS_TEST_TMPDIR/decay.bqlt"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "$BQLTOOL" -p replay decay.bqlt
	[ "$status" -eq 0 ]
	diff -u "$EXPECTED/replay-decay.json" - <<<"$output"
}

@test "replay: --timeline writes the golden CSV, one row per C record" {
	rp replay -q --timeline "$BATS_TEST_TMPDIR/t.csv" ramp.bqlt
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(head -1 "$BATS_TEST_TMPDIR/t.csv")" = "line,t_ns,queue,event,bytes,inflight,limit" ]
	diff -u "$EXPECTED/replay-ramp-timeline.csv" "$BATS_TEST_TMPDIR/t.csv"
	# rows: every C record of the trace
	[ "$(grep -c ' C ' ramp.bqlt)" -eq "$(($(wc -l <"$BATS_TEST_TMPDIR/t.csv") - 1))" ]
}

@test "replay: --timeline FILE.jsonl --all-events writes JSON lines for every record" {
	rp replay -q --all-events --timeline "$BATS_TEST_TMPDIR/t.jsonl" decay.bqlt
	[ "$status" -eq 0 ]
	diff -u "$EXPECTED/replay-decay-all.jsonl" "$BATS_TEST_TMPDIR/t.jsonl"
	jq -s -e 'length == 77 and (map(.event) | unique == ["C","P","Q"])' "$BATS_TEST_TMPDIR/t.jsonl"
}

@test "replay: --timeline to /dev/stdout" {
	rp replay -q --timeline /dev/stdout ramp.bqlt
	[ "$status" -eq 0 ]
	diff -u "$EXPECTED/replay-ramp-timeline.csv" - <<<"$output"
}

@test "replay: a failed replay leaves no timeline behind" {
	mkdir "$BATS_TEST_TMPDIR/tl"
	rp replay --timeline "$BATS_TEST_TMPDIR/tl/t.csv" "$TRACES/bad-overcomplete.bqlt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tl")" ]
}

@test "replay: --verify fails with exit 3 and lists the first 10 mismatches" {
	cd "$TRACES"
	run --separate-stderr "$BQLTOOL" -j replay --verify mismatch.bqlt
	[ "$status" -eq 3 ]
	[ "$(jq '.queues[0].verify' -c <<<"$output")" = '{"checked":60,"mismatches":12}' ]
	[ "${stderr_lines[0]}" = "bqltool: replay: mismatch.bqlt:16: queue eth0:tx-0: limit observed 24225, computed 24224" ]
	[ "$(grep -c ': queue eth0:tx-0: limit observed' <<<"$stderr")" -eq 10 ]
	[ "${stderr_lines[10]}" = "bqltool: replay: ... and 2 more" ]
	[ "${stderr_lines[11]}" = "bqltool: replay: verification failed: 12 of 60 limits differ" ]
}

@test "replay: without --verify a mismatch is only counted" {
	cd "$TRACES"
	run --separate-stderr "$BQLTOOL" replay mismatch.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"FAIL 12/60"* ]]
}

@test "replay: --kernel 3.3 computes other limits than the newest kernel" {
	rp -j replay --verify --kernel 3.3 completion-only.bqlt
	[ "$status" -eq 3 ]
	[ "$(jq -r '.queues[0].kernel' <<<"$output")" = "3.3" ]
	# 3.3 misses the starvation where completed == prev_num_queued (line 26)
	[ "${stderr_lines[0]}" = "bqltool: replay: completion-only.bqlt:26: queue eth0:tx-0: limit observed 24224, computed 22710" ]
	rp -j replay --verify --kernel 3.5 completion-only.bqlt
	[ "$status" -eq 0 ]
}

@test "replay: --set what-if settings" {
	# a hold time of 1 s: no slack decay within the 24 ms of the trace
	rp -j replay --set hold_time=1s decay.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq -c '.queues[0] | [.limit.final, .decreases]' <<<"$output")" = '[15140,0]' ]
	# limit_max caps the ramp
	rp -j replay --set limit_max=10K ramp.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq '.queues[0].limit.max' <<<"$output")" -eq 10240 ]
	# a stall_thrs outside the kernel's window at HZ 1000
	rp replay --set stall_thrs=2ms ramp.bqlt
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "bqltool: replay: ramp.bqlt: --set: stall_thrs=2: 2 jiffies at HZ 1000, outside"* ]]
}

@test "replay: --hz overrides the trace's hz" {
	rp -j replay --hz 250 ramp.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq '.queues[0].hz' <<<"$output")" -eq 250 ]
}

@test "replay: -q prints no summary" {
	rp replay -q ramp.bqlt
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "replay: nq= disagreeing with Q records warns once and wins" {
	cd "$TRACES"
	run --separate-stderr "$BQLTOOL" -j replay --verify nq-disagree.bqlt
	[ "$status" -eq 0 ]
	[ "$stderr" = "bqltool: warning: nq-disagree.bqlt:6: queue q: nq=1500 disagrees with the Q records (1000 queued): using nq=, what the kernel saw" ]
	[ "$(jq -c '.queues[0] | [.nq_disagree, .verify.mismatches, .limit.final]' <<<"$output")" = '[2,0,1500]' ]
}

@test "replay: bad traces exit 1 with FILE:LINE: reason and print nothing" {
	local cases=(
		"bad-magic.bqlt:2: unsupported bqltrace version '2'"
		"bad-undeclared.bqlt:4: record: queue 'eth0:tx-1' is not declared"
		"bad-overcomplete.bqlt:5: C record: completes 3028 bytes but only 1514 are in flight"
		"bad-time.bqlt:6: C record: t_ns 3000 goes back in time"
		"bad-key.bqlt:3: queue q: unknown key 'limit'"
		"bad-number.bqlt:4: C record: bytes 4294967296 out of range"
		"bad-stall-thrs.bqlt:5: P record: stall_thrs=2: 2 jiffies at HZ 1000"
		"bad-limit.bqlt:4: P record: limit=1879048193: above the kernel's maximum"
		"bad-hz.bqlt:4: hz: must come before the first record"
		"bad-crlf.bqlt:4: C record: expected limit, got 'x'"
		"bad-comment.bqlt:3: Q record: unexpected '#'"
		"bad-empty.bqlt: empty input: not a bqltrace"
	)
	local c f
	cd "$TRACES"
	[ "${#cases[@]}" -eq "$(ls bad-*.bqlt | wc -l)" ]
	for c in "${cases[@]}"; do
		f=${c%%:*}
		for fmt in "" "-j"; do
			run --separate-stderr "$BQLTOOL" $fmt replay "$f"
			[ "$status" -eq 1 ] || { echo "$f: status $status"; return 1; }
			[ -z "$output" ] || { echo "$f: stdout '$output'"; return 1; }
			[[ "$stderr" == "bqltool: replay: $c"* ]] || { echo "$f: '$stderr'"; return 1; }
		done
	done
}

@test "replay: a bad trace after a good one prints no summary" {
	rp replay ramp.bqlt "$TRACES/bad-time.bqlt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"bad-time.bqlt:6: "* ]]
}

@test "replay: missing and unreadable files" {
	rp replay no-such.bqlt
	[ "$status" -eq 1 ]
	[ "$stderr" = "bqltool: replay: no-such.bqlt: No such file or directory" ]
	rp replay .
	[ "$status" -eq 1 ]
	[ "$stderr" = "bqltool: replay: .: read error: Is a directory" ]
}

@test "replay: bad options exit 2" {
	local args
	for args in "" "--bogus ramp.bqlt" "--timeline" "--set ramp.bqlt" \
		"--set foo=1 ramp.bqlt" "--set limit_min=1Q ramp.bqlt" "--set limit_max=2G ramp.bqlt" \
		"--set hold_time=5x ramp.bqlt" "--hz 0 ramp.bqlt" "--hz x ramp.bqlt" \
		"--kernel 2.6 ramp.bqlt" "--kernel foo ramp.bqlt" "--all-events ramp.bqlt" \
		"--timeline t.csv ramp.bqlt decay.bqlt" "--timeline - ramp.bqlt"; do
		rp replay $args
		[ "$status" -eq 2 ] || { echo "'$args': status $status"; return 1; }
		[ -z "$output" ] || { echo "'$args': stdout"; return 1; }
		[[ "$stderr" == "bqltool: replay: "*"Try 'bqltool help replay'." ]] ||
			{ echo "'$args': '$stderr'"; return 1; }
	done
}

@test "replay: help" {
	rp replay --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--timeline FILE"* ]]
	[[ "$output" == *"--verify"* ]]
}
