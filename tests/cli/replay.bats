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

@test "replay: -j on a completion-only trace leaves bytes_queued out: unknown, not 0 (#38)" {
	rp -j replay completion-only.bqlt
	[ "$status" -eq 0 ]
	jq -e '.queues[0] | (has("bytes_queued") | not) and .bytes_completed == 473882' <<<"$output"
	# with Q records it is known
	rp -j replay ramp.bqlt
	jq -e '.queues[0].bytes_queued == 93868' <<<"$output"
}

@test "replay: -j keys of DESIGN.md" {
	rp -j replay ramp.bqlt
	[ "$status" -eq 0 ]
	jq -e '.queues[0] | (.name == "eth0:tx-0") and (.completions == 10)
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

@test "replay: --timeline JSON rows name their queue as every per-queue object does" {
	# name is the trace's name; ifname and queue (the index) where it is DEV:tx-N
	printf 'bqltrace 1\nhz 1000\nqueue eth0:tx-3 hold_time=1000\nqueue odd hold_time=1000\n0 eth0:tx-3 Q 1514\n0 odd Q 100\n1000000 eth0:tx-3 C 1514\n1000000 odd C 100\n' >"$BATS_TEST_TMPDIR/n.bqlt"
	rp replay -q --timeline "$BATS_TEST_TMPDIR/n.jsonl" "$BATS_TEST_TMPDIR/n.bqlt"
	[ "$status" -eq 0 ]
	jq -s -e 'length == 2
		and .[0].name == "eth0:tx-3" and .[0].ifname == "eth0" and .[0].queue == 3
		and .[1].name == "odd" and (.[1] | has("ifname") or has("queue") | not)' \
		"$BATS_TEST_TMPDIR/n.jsonl"
	# the CSV keeps its documented header, the name in its queue column
	rp replay -q --timeline "$BATS_TEST_TMPDIR/n.csv" "$BATS_TEST_TMPDIR/n.bqlt"
	[ "$status" -eq 0 ]
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/n.csv" | cut -d, -f3)" = eth0:tx-3 ]
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

@test "replay: without --verify a mismatch is counted and warned about, no verdict (#38)" {
	cd "$TRACES"
	run --separate-stderr "$BQLTOOL" replay mismatch.bqlt
	[ "$status" -eq 0 ]
	[[ "$output" != *FAIL* ]]
	[[ "${lines[1]}" =~ \ stall_max\ +recorded$ ]]
	[[ "${lines[2]}" =~ \ differs\ 12/60$ ]]
	[ "$stderr" = "bqltool: warning: mismatch.bqlt: 12 of 60 recomputed limits differ from the trace's limit= (--verify lists them, exit 3)" ]
	# JSON: the same counts, the same warning
	run --separate-stderr "$BQLTOOL" -j replay mismatch.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq -c '.queues[0].verify' <<<"$output")" = '{"checked":60,"mismatches":12}' ]
	[[ "$stderr" == *"12 of 60 recomputed limits differ"* ]]
	# limits that agree: "same", nothing on stderr
	rp replay completion-only.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[2]}" =~ \ same\ 60$ ]]
	# -q: no summary, no warning
	cd "$TRACES"
	run --separate-stderr "$BQLTOOL" replay -q mismatch.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
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

@test "replay: a what-if shows how it differs from the recorded run, not a verdict (issue #24)" {
	rp replay --kernel 3.5 --set hold_time=100ms completion-only.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" != *FAIL* ]]
	[[ "${lines[1]}" == *" verify"* ]] && return 1
	[[ "${lines[1]}" == *"recorded_final  differs" ]]
	[[ "${lines[2]}" =~ \ 23.7\ KiB\ .*\ 8.87\ KiB\ +13/60$ ]]
	[ "${lines[3]}" = "what-if (--kernel 3.5, --set hold_time=100ms): differs from the recorded run at 13 of 60 limits, final 23.7 KiB vs recorded 8.87 KiB (--verify: a verdict, exit 3)" ]
	# JSON: verify's keys as before, and the comparison
	rp -j replay --kernel 3.5 --set hold_time=100ms completion-only.bqlt
	[ "$status" -eq 0 ]
	[ "$(jq -c '.queues[0] | [.verify, .whatif, .recorded]' <<<"$output")" = \
		'[{"checked":60,"mismatches":13},true,{"ncompared":60,"ndiffer":13,"limit_final":9084}]' ]
	# with --verify: today's verdict and exit 3
	rp replay --verify --kernel 3.5 --set hold_time=100ms completion-only.bqlt
	[ "$status" -eq 3 ]
	[[ "$output" == *"FAIL 13/60"* ]]
	[[ "$output" != *what-if* ]]
	[[ "$stderr" == *"verification failed: 13 of 60 limits differ"* ]]
	# a --hz other than the trace's is a what-if; the trace's own is not
	rp replay --hz 250 completion-only.bqlt
	[[ "${lines[3]}" == "what-if (--hz 250 (the trace's: 1000)): differs from the recorded run at 7 of 60 limits, "* ]]
	rp -j replay --hz 1000 --kernel 6.15 completion-only.bqlt
	[ "$(jq -c '.queues[0] | [.whatif, .recorded]' <<<"$output")" = '[false,null]' ]
	rp replay --hz 1000 --kernel newest completion-only.bqlt
	[[ "$output" == *" same 60"* ]]
	[[ "$output" != *what-if* ]]
	# without limit= in the trace there is nothing to compare with
	rp replay --set limit_max=10K ramp.bqlt
	[ "$status" -eq 0 ]
	[ "${lines[3]}" = "what-if (--set limit_max=10K): the trace records no limit= to compare with" ]
	# two queues, the second as the first: how many of them differ
	local two=$BATS_TEST_TMPDIR/two.bqlt
	{ cat completion-only.bqlt; grep -v '^bqltrace\|^hz' completion-only.bqlt | sed 's/eth0:tx-0/eth0:tx-1/'; } >"$two"
	rp replay --kernel 3.3 "$two"
	[ "$status" -eq 0 ]
	[[ "${lines[4]}" == "what-if (--kernel 3.3): differs from the recorded run at "*" of 120 limits, in 2 of 2 queues (--verify: a verdict, exit 3)" ]]
	rp replay --kernel 3.5 "$two"
	[[ "${lines[4]}" == "what-if (--kernel 3.5): differs from the recorded run at 0 of 120 limits, in 0 of 2 queues"* ]]
}

@test "replay: the text table gives limits in the one human format, -j in bytes (issue #24)" {
	rp replay completion-only.bqlt
	[ "$status" -eq 0 ]
	# final 9084, min 1514, max 24224, mean 20477.5 bytes
	[[ "${lines[2]}" =~ ^\ \ eth0:tx-0\ +60\ +8.87\ KiB\ +1.48\ KiB\ +23.7\ KiB\ +20.0\ KiB\  ]]
	[[ "$output" != *20477* ]]
	rp -j replay completion-only.bqlt
	[ "$(jq -c '.queues[0].limit' <<<"$output")" = '{"final":9084,"min":1514,"max":24224,"mean":20477.5}' ]
	# below 1 KiB: bytes, with the unit
	rp replay --set limit_max=1000 completion-only.bqlt
	[[ "${lines[2]}" =~ \ 1000\ B\  ]]
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

# svg_xy SVG NAME: the exact data points ("x,y", one a line) of the series
# named NAME (a limit's polyline, an inflight's band)
svg_xy() {
	xmllint --xpath "string(//*[@data-name='$2']/@data-xy)" "$1" |
		tr ' ' '\n' | grep .
}

# plot_matches SVG JSON: for every queue of the summary JSON, the chart has
# its limit and inflight series, and the lowest and highest plotted limits
# are the summary's limit min and max
plot_matches() {
	local svg=$1 json=$2 q lo hi ext n
	n=$(jq '.queues | length' <<<"$json")
	[ "$n" -ge 1 ] || { echo "no queues"; return 1; }
	for q in $(jq -r '.queues[].name' <<<"$json"); do
		lo=$(jq --arg q "$q" '.queues[] | select(.name == $q) | .limit.min' <<<"$json")
		hi=$(jq --arg q "$q" '.queues[] | select(.name == $q) | .limit.max' <<<"$json")
		ext=$(svg_xy "$svg" "$q limit" | awk -F, 'NR == 1 || $2 < lo { lo = $2 }
			NR == 1 || $2 > hi { hi = $2 } END { print lo, hi }')
		[ "$ext" = "$lo $hi" ] || { echo "$q: plotted '$ext', summary '$lo $hi'"; return 1; }
		[ "$(svg_xy "$svg" "$q inflight" | wc -l)" -gt 0 ] ||
			{ echo "$q: no inflight series"; return 1; }
	done
}

@test "replay: --plot draws limit and inflight per queue, extremes as in the summary" {
	rp -j replay --plot "$BATS_TEST_TMPDIR/d.svg" decay.bqlt
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	xmllint --noout "$BATS_TEST_TMPDIR/d.svg"
	plot_matches "$BATS_TEST_TMPDIR/d.svg" "$output"
	# x is seconds since the first record; limits only after C records
	[ "$(svg_xy "$BATS_TEST_TMPDIR/d.svg" "eth0:tx-0 inflight" | head -1 | cut -d, -f1)" = 0 ]
	[ "$(svg_xy "$BATS_TEST_TMPDIR/d.svg" "eth0:tx-0 limit" | wc -l)" -le \
	  "$(jq '.queues[0].completions' <<<"$output")" ]
	# the series are the queue's: its limit a line, its inflight a band
	[ "$(xmllint --xpath "count(//*[local-name()='polyline'])" "$BATS_TEST_TMPDIR/d.svg")" -eq 1 ]
	[ "$(xmllint --xpath "count(//*[@class='band'])" "$BATS_TEST_TMPDIR/d.svg")" -eq 1 ]
}

@test "replay: --plot of a long multi-queue trace keeps the exact extremes" {
	local gen=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$gen" ] || skip "no $gen (make tools)"
	"$gen" -n 40000 -q 3 -s 7 -c -o "$BATS_TEST_TMPDIR/g.bqlt"
	run --separate-stderr timeout 20 "$BQLTOOL" -j replay --verify \
		--plot "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/g.bqlt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
	[ "$(jq '.queues | length' <<<"$output")" -eq 3 ]
	plot_matches "$BATS_TEST_TMPDIR/g.svg" "$output"
	# downsampled: far fewer points than completions
	[ "$(svg_xy "$BATS_TEST_TMPDIR/g.svg" "eth0:tx-0 limit" | wc -l)" -lt \
	  "$(jq '.queues[0].completions' <<<"$output")" ]
}

@test "replay: --plot and --timeline together, and --plot to /dev/stdout" {
	rp replay -q --plot "$BATS_TEST_TMPDIR/r.svg" --timeline "$BATS_TEST_TMPDIR/r.csv" ramp.bqlt
	[ "$status" -eq 0 ]
	xmllint --noout "$BATS_TEST_TMPDIR/r.svg"
	diff -u "$EXPECTED/replay-ramp-timeline.csv" "$BATS_TEST_TMPDIR/r.csv"
	rp replay -q --plot /dev/stdout ramp.bqlt
	[ "$status" -eq 0 ]
	xmllint --noout - <<<"$output"
}

@test "replay: a failed replay leaves no plot behind" {
	mkdir "$BATS_TEST_TMPDIR/pl"
	rp replay --plot "$BATS_TEST_TMPDIR/pl/p.svg" --timeline "$BATS_TEST_TMPDIR/pl/t.csv" \
		"$TRACES/bad-overcomplete.bqlt"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"bad-overcomplete.bqlt:5: "* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/pl")" ]
	# an existing chart is left as it was
	echo old >"$BATS_TEST_TMPDIR/pl/p.svg"
	rp replay --plot "$BATS_TEST_TMPDIR/pl/p.svg" "$TRACES/bad-time.bqlt"
	[ "$status" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR/pl/p.svg")" = old ]
	[ "$(ls -A "$BATS_TEST_TMPDIR/pl")" = p.svg ]
}

@test "replay: --plot to a path that cannot be written exits 1 naming it" {
	rp replay --plot "$BATS_TEST_TMPDIR/no-such-dir/p.svg" ramp.bqlt
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "bqltool: replay: $BATS_TEST_TMPDIR/no-such-dir/p.svg: directory $BATS_TEST_TMPDIR/no-such-dir does not exist" ]
	mkdir "$BATS_TEST_TMPDIR/dir.svg"
	rp -j replay --plot "$BATS_TEST_TMPDIR/dir.svg" ramp.bqlt
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "bqltool: replay: $BATS_TEST_TMPDIR/dir.svg: "* ]]
}

@test "replay: --plot write errors exit 1 naming the file" {
	[ -w /dev/full ] || skip "no /dev/full"
	rp replay -q --plot /dev/full ramp.bqlt
	[ "$status" -eq 1 ]
	[ "$stderr" = "bqltool: replay: /dev/full: write error: No space left on device" ]
}

@test "replay: --plot usage errors exit 2" {
	local args
	for args in "--plot" "--plot - ramp.bqlt" "--plot p.svg ramp.bqlt decay.bqlt"; do
		rp replay $args
		[ "$status" -eq 2 ] || { echo "'$args': status $status"; return 1; }
		[ -z "$output" ] || { echo "'$args': stdout"; return 1; }
		[[ "$stderr" == "bqltool: replay: "*"Try 'bqltool help replay'." ]] ||
			{ echo "'$args': '$stderr'"; return 1; }
	done
	[ ! -e "$EXAMPLES/p.svg" ]
}

@test "replay: help mentions --plot" {
	rp replay --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--plot FILE.svg"* ]]
}

@test "replay: --timeline numbers from 0 to 2^64-1" {
	printf 'bqltrace 1\nqueue q\n0 q Q 10\n9 q Q 99\n18446744073709551615 q C 109 j=100\n' \
		>"$BATS_TEST_TMPDIR/x.bqlt"
	run --separate-stderr "$BQLTOOL" replay -q --all-events --timeline /dev/stdout \
		"$BATS_TEST_TMPDIR/x.bqlt"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "3,0,q,Q,10,10,0" ]
	[ "${lines[2]}" = "4,9,q,Q,99,109,0" ]
	[ "${lines[3]}" = "5,18446744073709551615,q,C,109,0,109" ]
}

@test "replay: --timeline and --plot write through a symlink, never replace it" {
	local t=$BATS_TEST_TMPDIR
	cp "$EXPECTED/replay-ramp-timeline.csv" "$t/real.csv"
	echo old >"$t/real.svg"
	ln -s real.csv "$t/link.csv"
	ln -s real.svg "$t/link.svg"
	rp replay -q --timeline "$t/link.csv" --plot "$t/link.svg" decay.bqlt
	[ "$status" -eq 0 ]
	[ -L "$t/link.csv" ] && [ -L "$t/link.svg" ]
	[ "$(head -1 "$t/real.csv")" = "line,t_ns,queue,event,bytes,inflight,limit" ]
	[ "$(wc -l <"$t/real.csv")" -eq "$(($(grep -c ' C ' "$EXAMPLES/decay.bqlt") + 1))" ]
	xmllint --noout "$t/real.svg"
	# what --timeline /dev/stdout is when standard output is a file
	ln -s /proc/self/fd/1 "$t/out"
	run bash -c "cd '$EXAMPLES' && '$BQLTOOL' replay -q --timeline '$t/out' ramp.bqlt >'$t/out.csv'"
	[ "$status" -eq 0 ]
	[ -L "$t/out" ]
	diff -u "$EXPECTED/replay-ramp-timeline.csv" "$t/out.csv"
	# and no temporary file is left
	[ -z "$(ls "$t" | grep -E '\.(csv|svg)\.')" ]
}

@test "replay: --plot refuses a name that is not .svg, .png or .pdf, writes nothing" {
	for name in out.gif out.csv out; do
		rp replay --plot "$BATS_TEST_TMPDIR/$name" ramp.bqlt
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "bqltool: replay: --plot: '$BATS_TEST_TMPDIR/$name': the plot is SVG, PNG or PDF; give a name ending in .svg, .png or .pdf (or /dev/stdout)"* ]]
		[ ! -e "$BATS_TEST_TMPDIR/$name" ]
	done
	rp replay -q --plot "$BATS_TEST_TMPDIR/UP.SVG" ramp.bqlt
	[ "$status" -eq 0 ]
}

@test "replay: --plot draws limits and inflight in steps and labels the axis in KiB" {
	rp replay -q --plot "$BATS_TEST_TMPDIR/s.svg" decay.bqlt
	[ "$status" -eq 0 ]
	local q n pts
	q=$(xmllint --xpath "string((//*[local-name()='polyline'])[1]/@data-name)" "$BATS_TEST_TMPDIR/s.svg")
	q=${q% *}
	# a step line draws 2n-1 corners for n points, a sloped one n
	n=$(svg_xy "$BATS_TEST_TMPDIR/s.svg" "$q limit" | wc -l)
	pts=$(xmllint --xpath "string(//*[local-name()='polyline'][@data-name='$q limit']/@points)" \
		"$BATS_TEST_TMPDIR/s.svg" | wc -w)
	[ "$n" -gt 2 ]
	[ "$pts" -eq $((2 * n - 1)) ]
	# the inflight band's outline: only horizontal and vertical steps
	xmllint --xpath "string(//*[@data-name='$q inflight'][@class='band']/@d)" "$BATS_TEST_TMPDIR/s.svg" |
		grep -qE '^M[0-9.]+ [0-9.]+( [HV][0-9.]+)+ ?Z$'
	grep -qE '>[0-9.]+ KiB</text>' "$BATS_TEST_TMPDIR/s.svg"
	! grep -qE '>[0-9.]+k</text>' "$BATS_TEST_TMPDIR/s.svg"
}

@test "replay: --kernel says which DQL semantics it chose" {
	rp replay --kernel 5.15 completion-only.bqlt
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "completion-only.bqlt: hz 1000, kernel 5.15 (DQL as in 3.5-6.0; limit_max wins when limit_min > limit_max; no stall detector; reset leaves limit at 0), 1 queue" ]]
	rp replay completion-only.bqlt
	[[ "${lines[0]}" == "completion-only.bqlt: hz 1000, kernel newest (DQL as in 6.15 and later), 1 queue" ]]
	rp -j replay --kernel 6.12.3-amd64 completion-only.bqlt
	[ "$(jq -r '.queues[0] | "\(.kernel) \(.semantics)"' <<<"$output")" = "6.12.3-amd64 6.10-6.14" ]
}

# issue #37 (questionable, decided): --set KEY twice (set refuses it),
# stall_thrs with a --kernel that has no stall detector, and an --hz no
# kernel can have (sim and BQLTOOL_HZ stop at 12287) are usage errors
@test "replay: --set KEY twice, --kernel 3.3 --set stall_thrs, --hz 100000: usage errors" {
	rp replay --set hold_time=1 --set hold_time=2 "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 2 ] && [ -z "$output" ]
	assert_regex "$stderr" "replay: --set hold_time: given twice \\('hold_time=1', then 'hold_time=2'\\)"
	for args in "--kernel 3.3 --set stall_thrs=10" "--set stall_thrs=10 --kernel 6.1"; do
		# shellcheck disable=SC2086
		rp replay $args "$EXAMPLES/ramp.bqlt"
		[ "$status" -eq 2 ]
		assert_regex "$stderr" "replay: --set stall_thrs=10: the kernel of --kernel [0-9.]+ has no stall detector \\(Linux 6\\.9 and later\\)"
	done
	rp replay --kernel 6.9 --set stall_thrs=10 "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
	rp replay --hz 100000 "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 2 ]
	assert_regex "$stderr" "replay: --hz: '100000': expected 12\\.\\.12287 \\(100, 250, 300, 1000\\)"
	rp replay --hz 12287 "$EXAMPLES/ramp.bqlt"
	[ "$status" -eq 0 ]
}
