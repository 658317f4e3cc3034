#!/usr/bin/env bash
# Run every cmocka test binary; record pass/fail counts for tests/summary.sh.
# usage: run-unit.sh BUILD BIN...
set -u
build=$1; shift
mkdir -p "$build/results"
pass=0 fail=0 bad=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|  OK  |  ERROR |  SKIPPED) \]|FAILED|ERROR' | grep -v '^\[       OK \]' >/dev/null
	p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
	f=$(printf '%s\n' "$out" | grep -cE '^\[  (FAILED|ERROR)   \] [^0-9]')
	pass=$((pass + p)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then
		bad=$((bad + 1))
		[ "$f" -gt 0 ] || fail=$((fail + 1))
		printf '%s\n' "$out"
		echo "FAIL: $t (exit $rc)"
	else
		echo "  UNIT    $(basename "$t"): $p passed"
	fi
done
echo "unit $pass $fail" > "$build/results/unit"
echo "unit: $pass passed, $fail failed"
[ $bad -eq 0 ]
