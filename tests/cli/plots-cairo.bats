#!/usr/bin/env bats
# --plot FILE.png and FILE.pdf: the plots drawn with cairo (lib/io/svgplot_cairo.c).
# Each plot kind is rendered; the PNG's signature and size are read from its
# IHDR, the PDF's pages by pdfinfo; layout facts are read from the PNG's
# pixels by tests/tools/pngfacts: nothing but background within 4 pixels of
# the edges (no text cut), every panel a closed frame, one colour per queue,
# marks and hatching where they belong. Other endings are refused by name.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	FACTS=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/pngfacts
	GEN=${BUILD:-$(dirname "$BQLTOOL")}/tests/tools/gentrace
	[ -x "$FACTS" ] || skip "pngfacts not built (make tools)"
	cd "$BATS_TEST_TMPDIR"
}

# png FILE: a PNG (signature, IHDR); its width and height in $pw, $ph
png() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$1: not a PNG: $(head -c 16 "$1" | od -c)"
	[ "$(dd if="$1" bs=1 skip=12 count=4 2>/dev/null)" = IHDR ] || fail "$1: no IHDR"
	pw=$(od -An -tu1 -j16 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	ph=$(od -An -tu1 -j20 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
}

# facts PNG [#RRGGBB...]: pngfacts finds nothing wrong; its lines in $facts
facts() {
	run "$FACTS" "$@"
	facts=$output
	[ "$status" -eq 0 ] || fail "$1: $output"
	grep -qx 'border clean' <<<"$facts" || fail "$1: $facts"
	[ "$(fact canvas)" = "$pw $ph" ] || fail "$1: IHDR $pw x $ph, pixels $(fact canvas)"
}

fact() {
	sed -n "s/^$1 //p" <<<"$facts" | head -1
}

panels() {
	grep -c '^panel ' <<<"$facts"
}

# pdf FILE W H: a one-page PDF of W x H points
pdf() {
	[ "$(head -c 5 "$1")" = "%PDF-" ] || fail "$1: no %PDF- header"
	grep -aq '/Type /Page\b' "$1" || fail "$1: no page"
	if command -v pdfinfo >/dev/null; then
		run pdfinfo "$1"
		assert_success
		assert_line --regexp '^Pages: +1$'
		assert_line --regexp "^Page size: +$2 x $3 pts"
	fi
}

@test "plots-cairo: replay --plot x.png and x.pdf of each example: one panel, one colour, nothing cut" {
	for t in "$EXAMPLES"/*.bqlt; do
		bqx replay -q --plot p.png "$t"
		assert_success
		png p.png
		[ "$pw" = 960 ] && [ "$ph" -gt 300 ] || fail "$t: $pw x $ph"
		facts p.png '#fadbd8'
		[ "$(panels)" = 1 ] || fail "$t: $facts"
		[ "$(fact colours)" = 1 ] || fail "$t: $facts"
		# no what-if: nothing hatched
		[ "$(fact 'count #fadbd8')" = 0 ] || fail "$t: $facts"
		bqx replay -q --plot p.pdf "$t"
		assert_success
		pdf p.pdf "$pw" "$ph"
	done
}

@test "plots-cairo: replay --set (a what-if) as PNG and PDF: the inflight above the what-if limit hatched" {
	bqx replay -q --set limit_max=2K --plot w.png "$EXAMPLES/completion-only.bqlt"
	assert_success
	png w.png
	facts w.png '#fadbd8'
	[ "$(panels)" = 1 ]
	[ "$(fact colours)" = 1 ]
	# the hatch's light red (#f5b7b1 at half opacity on white)
	[ "$(fact 'count #fadbd8')" -gt 50 ] || fail "$facts"
	bqx replay -q --set limit_max=2K --plot w.pdf "$EXAMPLES/completion-only.bqlt"
	assert_success
	pdf w.pdf "$pw" "$ph"
	pdfinfo w.pdf | grep -q '^Title: *bqltool replay what-if (--set limit_max=2K)' ||
		fail "$(pdfinfo w.pdf)"
}

@test "plots-cairo: sim on four queues as PNG: a panel each in two columns, a colour per busy queue, the wrapped title inside" {
	bqx sim -q --traffic poisson:600M --traffic cbr:200M --traffic onoff:300M:10ms:20ms --size imix \
		--queues 4 --duration 0.2 --plot m.png
	assert_success
	png m.png
	facts m.png
	[ "$(panels)" = 4 ] || fail "$facts"
	# two columns: two panels start at one x, two at another
	[ "$(grep '^panel ' <<<"$facts" | awk '{ print $2 }' | sort -u | wc -l)" = 2 ]
	# three busy queues (the fourth has no completions: no line to colour)
	[ "$(fact colours)" = 3 ] || fail "$facts"
	bqx sim -q --traffic poisson:600M --traffic cbr:200M --traffic onoff:300M:10ms:20ms --size imix \
		--queues 4 --duration 0.2 --plot m.pdf
	assert_success
	pdf m.pdf "$pw" "$ph"
}

@test "plots-cairo: sim --stall as PNG and PDF: the stall shaded in the panel, nowhere without one" {
	bqx sim -q --queues 2 --traffic poisson:500M --traffic bulk --stall 10ms:5ms \
		--at 20ms:limit_max=8000 --duration 0.05 --plot s.png
	assert_success
	png s.png
	# the mark's shade: #f5b041 at 0.3 on white
	facts s.png '#fce7c6'
	[ "$(panels)" = 1 ]
	[ "$(fact colours)" = 2 ] || fail "$facts"
	# 5 of 50 ms of a ~870 pixel wide panel, ~370 high: some 30000 pixels
	n=$(fact 'count #fce7c6')
	[ "$n" -gt 20000 ] && [ "$n" -lt 40000 ] || fail "mark: $n pixels: $facts"
	bqx sim -q --stall 10ms:5ms --duration 0.05 --plot n.png
	assert_success
	png n.png
	facts n.png '#fce7c6'
	bqx sim -q --duration 0.05 --plot none.png
	assert_success
	png none.png
	facts none.png '#fce7c6'
	# the stall's shade is in the PNG with --stall only (under 100 pixels of legend sample without)
	[ "$(fact 'count #fce7c6')" -lt 100 ] || fail "no stall, yet: $facts"
	bqx sim -q --queues 2 --traffic poisson:500M --traffic bulk --stall 10ms:5ms \
		--at 20ms:limit_max=8000 --duration 0.05 --plot s.pdf
	assert_success
	png s.png
	pdf s.pdf "$pw" "$ph"
}

@test "plots-cairo: 12 queues as PNG: nine closed panels (the total full width), eight colours" {
	[ -x "$GEN" ] || skip "gentrace not built (make tools)"
	"$GEN" -q 12 -n 100000 -c -o q12.bqlt
	bqx replay -q --plot p.png q12.bqlt
	assert_success
	png p.png
	facts p.png
	[ "$(panels)" = 9 ] || fail "$facts"
	[ "$(fact colours)" = 8 ] || fail "$facts"
	# the total's panel is the widest, at the bottom
	last=$(grep '^panel ' <<<"$facts" | sort -k3n | tail -1)
	wide=$(grep '^panel ' <<<"$facts" | awk '{ print $4 - $2, $0 }' | sort -n | tail -1 | cut -d' ' -f2-)
	[ "$last" = "$wide" ] || fail "$facts"
}

@test "plots-cairo: long and hostile queue names, a title that wraps to its ellipsis: nothing outside the canvas" {
	long=$(printf 'WWWWWWWWWW%.0s' {1..12})
	{
		echo "bqltrace 1"
		echo "queue $long:tx-0"
		echo "queue a<b>&\"c':tx-1"
		for i in $(seq 1 200); do
			echo "$((i * 1000)) $long:tx-0 Q 1514"
			echo "$((i * 1000 + 10)) a<b>&\"c':tx-1 Q $((i % 7 * 300 + 60))"
			echo "$((i * 1000 + 500)) $long:tx-0 C 1514"
			echo "$((i * 1000 + 510)) a<b>&\"c':tx-1 C $((i % 7 * 300 + 60))"
		done
	} >names.bqlt
	bqx replay -q --plot n.png names.bqlt
	assert_success
	png n.png
	facts n.png
	[ "$(fact colours)" = 2 ] || fail "$facts"
	bqx sim -q --traffic poisson:100M --traffic cbr:200M --traffic onoff:300M:10ms:20ms \
		--traffic poisson:110M --traffic cbr:120M --traffic onoff:130M:10ms:20ms \
		--traffic poisson:140M --traffic cbr:150M --traffic onoff:160M:10ms:20ms \
		--size imix --queues 9 --set limit_max=64K --set hold_time=10 \
		--stall 5ms:1ms --duration 0.02 --plot t.png
	assert_success
	png t.png
	facts t.png
}

@test "plots-cairo: --plot refuses other endings and compressed PNG or PDF, naming what it writes" {
	run -2 "$BQLTOOL" replay --plot p.gif "$EXAMPLES/ramp.bqlt"
	assert_output --partial "--plot: 'p.gif': the plot is SVG, PNG or PDF; give a name ending in .svg, .png or .pdf"
	[ ! -e p.gif ]
	run -2 "$BQLTOOL" sim --plot p.jpeg --duration 0.01
	assert_output --partial "give a name ending in .svg, .png or .pdf"
	run -2 "$BQLTOOL" replay --plot p.png.gz "$EXAMPLES/ramp.bqlt"
	assert_output --partial "'p.png.gz': PNG is compressed already: give a name ending in .png"
	run -2 "$BQLTOOL" replay --plot p.pdf.zst "$EXAMPLES/ramp.bqlt"
	assert_output --partial "PDF is compressed already"
	ls -A | grep -q . && fail "files left: $(ls -A)"
	# an upper-case ending is the same format
	bqx replay -q --plot P.PNG "$EXAMPLES/ramp.bqlt"
	assert_success
	png P.PNG
}

@test "plots-cairo: an unwritable --plot x.png fails clearly, the old file is kept whole" {
	mkdir ro
	echo old >ro/p.png
	chmod 0555 ro
	if touch ro/probe 2>/dev/null; then
		rm -f ro/probe
		# root writes anyway: a directory that does not exist instead
		run -1 "$BQLTOOL" replay -q --plot nodir/p.png "$EXAMPLES/ramp.bqlt"
		assert_output --partial "nodir/p.png"
		[ ! -e nodir ]
	else
		run -1 "$BQLTOOL" replay -q --plot ro/p.png "$EXAMPLES/ramp.bqlt"
		assert_output --partial "ro/p.png"
	fi
	[ "$(cat ro/p.png)" = old ]
	# a full disk: the error is named and nothing is left behind
	if [ -w /dev/full ]; then
		run "$BQLTOOL" replay -q --plot /dev/full "$EXAMPLES/ramp.bqlt"
		[ "$status" -ne 0 ]
	fi
	chmod 0755 ro
}

@test "plots-cairo: the plot replaces an existing PNG only whole, and SVG stays the default for /dev/ names" {
	mkdir out && cd out
	bqx replay -q --plot p.png "$EXAMPLES/decay.bqlt"
	assert_success
	png p.png
	first=$(cksum <p.png)
	bqx replay -q --plot p.png "$EXAMPLES/decay.bqlt"
	assert_success
	# the same input, the same pixels (PNG has no date in it)
	[ "$(cksum <p.png)" = "$first" ]
	ls -A | grep -v '^p.png$' && fail "temporaries left"
	bqx replay -q --plot /dev/stdout "$EXAMPLES/decay.bqlt"
	assert_success
	assert_output --partial '<svg xmlns='
}
