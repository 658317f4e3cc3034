#!/usr/bin/env bats
# Plots an engineer puts in a bug report (issue #38): layout facts of each
# plot kind, read back from the rendered SVG by tests/tools/svgfacts (text
# measured in the font the plot names): no text outside the canvas or over
# another, one colour per queue, ticks at whole 1-2-5 steps of their unit,
# panels when queues differ in scale; what-if plots titled as what-ifs with
# the recorded limit beside the what-if one; sim plots titled with their
# settings, stalls marked on the time axis; the same input, the same bytes.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	FACTS=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/svgfacts
	GEN=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$FACTS" ] || skip "svgfacts not built (make tools)"
	cd "$BATS_TEST_TMPDIR"
}

# facts SVG: well-formed, and svgfacts finds nothing wrong; its lines in $facts
facts() {
	xmllint --noout "$1"
	run "$FACTS" "$1"
	facts=$output
	[ "$status" -eq 0 ] || fail "$1: $output"
}

# fact KEY: the value of svgfacts' line "KEY VALUE"
fact() {
	sed -n "s/^$1 //p" <<<"$facts" | head -1
}

# the title's lines (16 px text)
title_lines() {
	grep -o '<text[^>]*font-size="16"[^>]*>[^<]*' "$1" | sed 's/.*>//'
}

# trace12: 12 queues with their recorded limits (limit=), as a recorder writes
trace12() {
	[ -x "$GEN" ] || skip "gentrace not built (make tools)"
	"$GEN" -q 12 -n 100000 -c -o q12.bqlt
}

@test "plots: replay --plot of each example: texts inside and apart, one colour per queue, 1-2-5 ticks" {
	for t in "$EXAMPLES"/*.bqlt; do
		bqx replay -q --plot p.svg "$t"
		assert_success
		facts p.svg
		# examples are milliseconds long: ms ticks, never 0.005 s
		grep -q '>time (ms)</text>' p.svg || fail "$t: $(grep -o '>time[^<]*' p.svg)"
		[[ "$(fact xticks)" != *.* ]] || fail "$t: $(fact xticks)"
	done
}

@test "plots: 12 queues: a panel per drawn queue, the total in its own, nine colours" {
	trace12
	bqx replay -q --plot p.svg q12.bqlt
	assert_success
	facts p.svg
	[ "$(fact panels)" = 9 ]
	# 8 queues and the total, each in a colour of its own
	[ "$(grep -c '^queue ' <<<"$facts")" = 9 ]
	[ "$(grep '^queue ' <<<"$facts" | awk '{ print $3 }' | sort -u | wc -l)" = 9 ]
	grep -q '>total inflight of all queues</text>' p.svg
	# the queues' panels share their y axis, the total has its own
	[ "$(grep -c '^yticks ' <<<"$facts")" = 9 ]
	[ "$(grep '^yticks ' <<<"$facts" | sort -u | wc -l)" = 2 ]
}

@test "plots: replay --set limit_max=8K --plot is a what-if: titled so, the recorded limit beside it" {
	trace12
	bqx replay -q --set limit_max=8K --plot w.svg q12.bqlt
	assert_success
	facts w.svg
	grep -q '<title>bqltool replay what-if (--set limit_max=8K): q12.bqlt: the 8 busiest of 12 queues, and the total</title>' w.svg
	[[ "$(title_lines w.svg | head -1)" == "bqltool replay what-if (--set limit_max=8K)"* ]]
	grep -q 'the inflight is the recorded traffic' w.svg
	for q in eth0:tx-0 eth0:tx-5; do
		# the what-if limit never above 8 KiB; the recorded one, from the trace, is
		hi=$(xmllint --xpath "string(//*[@data-name='$q limit']/@data-xy)" w.svg |
			tr ' ' '\n' | awk -F, '$2 > m { m = $2 } END { print m + 0 }')
		[ "$hi" -le 8192 ]
		rec=$(xmllint --xpath "string(//*[@data-name='$q recorded limit']/@data-xy)" w.svg |
			tr ' ' '\n' | awk -F, '$2 > m { m = $2 } END { print m + 0 }')
		[ "$rec" -gt 8192 ]
		# the recorded inflight above the what-if limit is hatched: it could not be
		grep -q "<path class=\"band-over\" data-name=\"$q inflight\"" w.svg
	done
	grep -q '>recorded inflight above the what-if limit: there the queue would have been stopped</text>' w.svg
	# a plain replay of the same trace: no what-if, nothing recorded beside it
	bqx replay -q --plot p.svg q12.bqlt
	facts p.svg
	! grep -q 'what-if' p.svg
	! grep -q 'recorded limit\|band-over' p.svg
}

@test "plots: sim with three traffics on four queues: the title wraps, nothing is cut" {
	bqx sim -q --traffic poisson:600M --traffic cbr:200M --traffic onoff:300M:10ms:20ms --size imix \
		--queues 4 --duration 0.2 --plot m.svg
	assert_success
	facts m.svg
	[ "$(title_lines m.svg | wc -l)" -ge 2 ]
	title_lines m.svg | tail -1 | grep -q 'onoff 300 Mbit/s imix -&gt; tx-1$'
	# busy and idle queues differ in scale: a panel each; the idle ones say so
	[ "$(fact panels)" = 4 ]
	[ "$(grep -c '>no completions</text>' m.svg)" = 2 ]
	[ "$(grep '^queue ' <<<"$facts" | awk '{ print $3 }' | sort -u | wc -l)" = 4 ]
}

@test "plots: sim --set and --stall are in the title, the stall is marked on the time axis" {
	bqx sim -q --set hold_time=10 --stall 50ms:2ms --duration 0.2 --plot s.svg
	assert_success
	facts s.svg
	grep -q '<title>bqltool sim: 1 Gbit/s link, 1 queue, seed 1, traffic bulk fixed:1514 -&gt; tx-0, --set hold_time=10, stall at 50 ms for 2 ms</title>' s.svg
	[ "$(grep -c '<rect class="mark"' s.svg)" = 1 ]
	grep -q '>stall: NAPI polls held 2 ms</text>' s.svg
	bqx sim -q --stall 50ms:2ms --duration 0.2 --plot n.svg
	assert_success
	[ "$(grep -o '<title>[^<]*' s.svg | head -1)" != "$(grep -o '<title>[^<]*' n.svg | head -1)" ]
	# --at changes are marked too
	bqx sim -q --at 100ms:limit_max=8000 --duration 0.2 --plot a.svg
	assert_success
	facts a.svg
	grep -q ', at 100 ms: limit_max=8000</title>' a.svg
	[ "$(grep -c '<line class="mark"' a.svg)" = 1 ]
}

@test "plots: a trace's settings changes (P records) are marked on the time axis" {
	bqx replay -q --plot p.svg "$EXAMPLES/decay.bqlt"
	assert_success
	facts p.svg
	[ "$(grep -c '<line class="mark"' p.svg)" = 1 ]
	[ "$(grep -c '>settings written (line 22)</text>' p.svg)" = 2 ]	# in the panel and the legend
	# many: the first 16 distinct times, and the title says so
	awk 'BEGIN { print "bqltrace 1"; print "queue a"; print "queue b"; t = 0
		for (i = 0; i < 40; i++) { t += 1000000; print t, "a P limit_max=" 20000 + i; print t, "b P limit_max=9000"
			print t + 10, "a Q 1514"; print t + 500, "a C 1514" } }' >p.bqlt
	bqx replay -q --plot m.svg p.bqlt
	assert_success
	facts m.svg
	[ "$(fact panels)" = 2 ]	# b has settings and no traffic
	[ "$(grep -c '<line class="mark"' m.svg)" = 32 ]	# in each panel
	grep -q '(the first 16 of 40 settings changes marked)</title>' m.svg
}

@test "plots: small inflight gets byte ticks (no 0.2 KiB), short traces ms or us" {
	awk 'BEGIN { print "bqltrace 1"; print "queue q"; t = 0
		for (i = 0; i < 200; i++) { t += 30000; print t, "q Q 300"; t += 40000; print t, "q C 300" } }' >small.bqlt
	bqx replay -q --plot p.svg small.bqlt
	assert_success
	facts p.svg
	[[ "$(fact yticks)" == *" B"* && "$(fact yticks)" != *KiB* ]] || fail "$(fact yticks)"
	grep -q '>time (ms)</text>' p.svg
	awk 'BEGIN { print "bqltrace 1"; print "queue q"; t = 0
		for (i = 0; i < 20; i++) { t += 300; print t, "q Q 1514"; t += 400; print t, "q C 1514" } }' >us.bqlt
	bqx replay -q --plot u.svg us.bqlt
	assert_success
	facts u.svg
	grep -q '>time (us)</text>' u.svg
}

@test "plots: queues of one scale share a panel and the legend names them in their colours" {
	awk 'BEGIN { print "bqltrace 1"; print "queue a"; print "queue b"; t = 0
		for (i = 0; i < 100; i++) { t += 1000; print t, "a Q 1514"; print t + 1, "b Q 1514"
			t += 9000; print t, "a C 1514"; print t + 1, "b C 1514" } }' >two.bqlt
	bqx replay -q --plot p.svg two.bqlt
	assert_success
	facts p.svg
	[ "$(fact panels)" = 1 ]
	grep -q 'fill="#1f77b4">a</text>' p.svg
	grep -q 'fill="#ff7f0e">b</text>' p.svg
}

@test "plots: the same input gives the same bytes" {
	trace12
	bqx replay -q --plot a.svg q12.bqlt
	bqx replay -q -J 2 --plot b.svg q12.bqlt
	cmp a.svg b.svg
	bqx sim -q --queues 2 --traffic bulk --duration 0.05 --stall 10ms:1ms --plot c.svg
	bqx sim -q --queues 2 --traffic bulk --duration 0.05 --stall 10ms:1ms --plot d.svg
	cmp c.svg d.svg
}

@test "plots: long and hostile queue names are fitted and escaped" {
	long=$(printf 'enp129s0f1np1-%.0s' {1..8})	# 112 bytes, the most is 128
	printf 'bqltrace 1\nqueue %s:tx-0\nqueue c\xc2\x9b31m\n1000 %s:tx-0 Q 1514\n2000 %s:tx-0 C 1514\n3000 c\xc2\x9b31m Q 100\n4000 c\xc2\x9b31m C 100\n' \
		"$long" "$long" "$long" >long.bqlt
	bqx replay -q --plot "p$long.svg" long.bqlt
	assert_success
	facts "p$long.svg"
	grep -q '>c\\u009b31m</text>' "p$long.svg"
}
