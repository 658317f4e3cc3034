#!/usr/bin/env bats
# debian/ agrees with the Makefile: every Build-Depends is a package that
# `make deps` installs, the changelog's version is the Makefile's VERSION.
# The package itself is built, lintian-checked and its binary run by
# `make deb` in CI (.ci/run): too slow for make check.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

# make_var NAME: a variable of the Makefile, as make expands it
make_var() {
	make -s -C "$REPO" --no-print-directory --eval "print-var: ; @echo \$($1)" print-var
}

@test "debian/control: every Build-Depends is in the Makefile's DEBS" {
	debs=" $(make_var DEBS) "
	[ "${#debs}" -gt 100 ] || fail "DEBS not found: $debs"
	# the Build-Depends field, continuation lines included, one name a line
	bd=$(awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
		f && /^[ \t]/ { print; next } { f = 0 }' "$REPO/debian/control" |
		tr ',' '\n' | sed -E 's/\(.*\)//; s/<.*>//; s/\[.*\]//; s/^[ \t]+//; s/[ \t]+$//' | grep -v '^$')
	[ "$(wc -l <<<"$bd")" -ge 10 ] || fail "Build-Depends not parsed: $bd"
	for p in $bd; do
		[ "$p" = debhelper-compat ] && p=debhelper
		[[ $debs == *" $p "* ]] || fail "Build-Depends $p is not in DEBS (make deps)"
	done
}

@test "debian/changelog: the version is the Makefile's VERSION, native" {
	v=$(make_var VERSION)
	run head -1 "$REPO/debian/changelog"
	assert_output --regexp "^bqltool \\($v\\) "
	assert_equal "$(cat "$REPO/debian/source/format")" "3.0 (native)"
}

@test "make deb: MAINTAINER and HOMEPAGE are checked before anything is built" {
	local d="$BATS_TEST_TMPDIR/deb"
	run make -s -C "$REPO" deb DEB_DIR="$d" MAINTAINER='nobody'
	assert_failure 2
	assert_output --partial "make deb: MAINTAINER 'nobody' is not 'Name <address>'"
	run make -s -C "$REPO" deb DEB_DIR="$d" MAINTAINER='A | B <a@b.org>'
	assert_failure 2
	run make -s -C "$REPO" deb DEB_DIR="$d" DEBFULLNAME='Jane Doe' DEBEMAIL='not-an-address'
	assert_failure 2
	assert_output --partial "is not 'Name <address>'"
	run make -s -C "$REPO" deb DEB_DIR="$d" MAINTAINER='Jane Doe <jane@example.net>' HOMEPAGE='ftp://x'
	assert_failure 2
	assert_output --partial "make deb: HOMEPAGE 'ftp://x' is not an http(s) URL"
	[ ! -e "$d" ]
}
