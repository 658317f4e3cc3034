#!/usr/bin/env bash
# Lint every man page: mandoc -Tlint (warnings are errors) and groff -ww.
set -u
[ $# -gt 0 ] || { echo "  MAN     no pages yet"; exit 0; }
rc=0
for m in "$@"; do
	if command -v mandoc >/dev/null; then
		out=$(mandoc -Tlint -W warning "$m" 2>&1) || true
		# mandoc reports the page's own base name "not found" for .so-less SEE ALSO; keep all other findings
		if [ -n "$out" ]; then echo "$out"; rc=1; fi
	fi
	out=$(groff -man -ww -z "$m" 2>&1)
	if [ -n "$out" ]; then echo "$m: $out"; rc=1; fi
done
[ $rc -eq 0 ] && echo "  MAN     $# pages lint clean"
exit $rc
