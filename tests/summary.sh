#!/usr/bin/env bash
# Print the closing line of `make check`: totals over every suite.
set -u
build=$1
p=0 f=0 s=0
for r in "$build"/results/unit "$build"/results/cli "$build"/results/integration; do
	[ -f "$r" ] || continue
	read -r _ rp rf rs < "$r"
	p=$((p + rp)); f=$((f + rf)); s=$((s + ${rs:-0}))
done
echo "check: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
