#!/usr/bin/env bash
# Run a BATS suite with TAP output; record pass/fail/skip counts.
# usage: run-bats.sh BUILD NAME DIR
set -u
build=$1 name=$2 dir=$3
mkdir -p "$build/results"
export BATS_LIB_PATH=${BATS_LIB_PATH:-/usr/lib/bats}
shopt -s nullglob
files=("$dir"/*.bats)
if [ ${#files[@]} -eq 0 ]; then
	echo "$name 0 0 0" > "$build/results/$name"
	echo "$name: no test files"
	exit 0
fi
log="$build/results/$name.tap"
bats --tap "${files[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
pass=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
skip=$(grep -cE '^ok [0-9]+ .*# skip' "$log" | tr -d ' ')
fail=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
pass=$((pass - skip))
echo "$name $pass $fail $skip" > "$build/results/$name"
echo "$name: $pass passed, $fail failed, $skip skipped"
if [ "$skip" -gt 0 ]; then
	echo "$name: skipped tests and why:"
	grep -E '^ok [0-9]+ .*# skip' "$log" | sed 's/^/  /'
fi
[ "$rc" -eq 0 ]
