#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0-only
#
# Traces of shapes gentrace does not make, for make bench (issue #14): an
# independent writer, so that the replay fast path is not timed only on
# its own generator's lines.
#
#   awk -v shape=S -v n=RECORDS [-v seed=N] -f shapegen.awk > trace
#
# shape=epoch	19-digit epoch nanoseconds, 8 queues named like
#		"enp59s0f1np1:tx-3" (17-18 bytes), Q and C, no j=, hz 1000
# shape=rec	as `bqltool record` writes: 14-digit monotonic ns, Q with j=,
#		C with j= nq= lo= limit=, 4 queues, hz 250
# shape=long	64-byte queue names, 16 queues, short timestamps, tabs
#		between fields, Q and C
# shape=one	one queue, 7..9-digit timestamps, Q and C with j=
# shape=manyq	-v queues=N (default 1000000) queues "qN" (up to 8 bytes),
#		all declared up front, then n records: a Q and its C for
#		each queue in turn, round after round (issue #23: the queue
#		table large against the records)
# shape=manyq-late	the same, each queue declared just before its first
#		record (queues declared mid-trace, as they appear)
BEGIN {
	if (shape == "manyq" || shape == "manyq-late") {
		manyq(shape == "manyq-late")
		exit
	}
	if (n == "") n = 1000000
	srand(seed == "" ? 1 : seed)
	split("60 66 590 1514 1514 1514 1514 9000 4096 128", sizes, " ")
	nq = shape == "epoch" ? 8 : shape == "rec" ? 4 : shape == "long" ? 16 : 1
	hz = shape == "rec" ? 250 : 1000
	print "bqltrace 1"
	print "# shapegen.awk shape=" shape " n=" n
	print "hz " hz
	for (q = 0; q < nq; q++) {
		if (shape == "epoch")
			name[q] = "enp59s0f1np1:tx-" q
		else if (shape == "long")
			name[q] = sprintf("%s-%02d", substr("veth-long-name-0123456789abcdef0123456789abcdef0123456789abcdef", 1, 61), q)
		else if (shape == "one")
			name[q] = "wlan0:tx-0"
		else
			name[q] = "eth0:tx-" q
		print "queue " name[q]
		inflight[q] = 0; pend[q] = 0; nqd[q] = 0; head[q] = 0
	}
	t = 0; j0 = 4294892296	# jiffies start near the 32-bit wrap, as the kernel's do
	for (i = 0; i < n; i++) {
		q = int(rand() * nq)
		t += 1 + int(rand() * 2500)
		if (pend[q] > 0 && (rand() < 0.45 || pend[q] > 40)) {
			k = 1 + int(rand() * pend[q])
			b = 0
			for (x = 0; x < k; x++) { b += obj[q, head[q]]; head[q]++ }
			pend[q] -= k
			inflight[q] -= b
			kind = "C"
		} else {
			b = sizes[1 + int(rand() * 10)]
			obj[q, head[q] + pend[q]] = b
			pend[q]++
			inflight[q] += b
			nqd[q] = (nqd[q] + b) % 4294967296
			last[q] = b
			kind = "Q"
		}
		# %.0f, not %d: mawk's %d stops at 2^31 - 1 (doubles are exact
		# to 2^53, far above these values)
		if (shape == "epoch") {
			printf "17%017.0f %s %s %d\n", t, name[q], kind, b
		} else if (shape == "rec") {
			j = j0 + int(t * hz / 1e9)
			if (kind == "Q")
				printf "%.0f %s Q %d j=%.0f\n", 10000000000000 + t, name[q], b, j
			else
				printf "%.0f %s C %d j=%.0f nq=%.0f lo=%d limit=%d\n", 10000000000000 + t,
					name[q], b, j, nqd[q], last[q], 30280
		} else if (shape == "long") {
			printf "%.0f\t%s\t%s\t%d\n", t, name[q], kind, b
		} else {
			printf "%.0f %s %s %d j=%.0f\n", 1000000 + t, name[q], kind, b, int((1000000 + t) / 1e6)
		}
	}
}

function manyq(late,	nq, i, q, t, b) {
	if (n == "") n = 1000000
	nq = queues == "" ? 1000000 : queues + 0
	print "bqltrace 1"
	print "# shapegen.awk shape=" shape " n=" n " queues=" nq
	print "hz 1000"
	if (!late)
		for (q = 0; q < nq; q++)
			print "queue q" q
	t = 1000000
	for (i = 0; i < n; i++) {
		q = int(i / 2) % nq
		t += 100
		if (late && i < 2 * nq && i % 2 == 0)
			print "queue q" q
		b = 60 + (q * 7 + int(i / (2 * nq)) * 13) % 1455
		printf "%.0f q%d %s %d\n", t, q, i % 2 ? "C" : "Q", b
	}
}
