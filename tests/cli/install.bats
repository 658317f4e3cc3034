#!/usr/bin/env bats
# make install: the binary, man pages, completions, the systemd units that
# the man pages describe (bqltool-export(8)'s timer included) and examples/
# under the documentation directory; make uninstall removes them.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	DEST=$BATS_TEST_TMPDIR/root
	SAN=
	if [[ ${BUILD:-build} == *-san ]]; then SAN=SANITIZE=1; fi
}

@test "make install puts the export timer, its service and examples/ in place" {
	run make -s -C "$REPO" install DESTDIR="$DEST" PREFIX=/usr $SAN
	assert_success
	for u in bqltool-export.service bqltool-export.timer bqltool-export@.service \
		bqltool-export@.timer bqltool-apply.service; do
		[ -f "$DEST/usr/lib/systemd/system/$u" ] || fail "$u not installed"
	done
	for e in "$REPO"/examples/*; do
		cmp "$e" "$DEST/usr/share/doc/bqltool/examples/${e##*/}" || fail "${e##*/} not installed"
	done
	[ -f "$DEST/usr/share/doc/bqltool/README.md" ]
	# the timer and service are the ones bqltool-export(8) describes
	grep -qx 'OnUnitActiveSec=15s' "$DEST/usr/lib/systemd/system/bqltool-export.timer"
	grep -q '^ExecStart=bqltool export --textfile /var/lib/prometheus/node-exporter$' \
		"$DEST/usr/lib/systemd/system/bqltool-export.service"
	grep -q '^ExecStart=bqltool -n %i export --textfile ' \
		"$DEST/usr/lib/systemd/system/bqltool-export@.service"
	run make -s -C "$REPO" uninstall DESTDIR="$DEST" PREFIX=/usr $SAN
	assert_success
	[ -z "$(find "$DEST" -type f)" ] || fail "left behind: $(find "$DEST" -type f)"
}

@test "make install creates /etc/bqltool: README's persistence recipe runs as written (#38)" {
	run make -s -C "$REPO" install DESTDIR="$DEST" PREFIX=/usr $SAN
	assert_success
	[ -d "$DEST/etc/bqltool" ] || fail "no $DEST/etc/bqltool"
	assert_equal "$(stat -c %a "$DEST/etc/bqltool")" 755
	# the unit reads the profile there
	grep -q ' /etc/bqltool/profile.json' "$DEST/usr/lib/systemd/system/bqltool-apply.service"
	use_tree tuned
	bq save -o "$DEST/etc/bqltool/profile.json"
	assert_success
	bq apply --check "$DEST/etc/bqltool/profile.json"
	assert_success
	# uninstall keeps the administrator's profile and its directory ...
	run make -s -C "$REPO" uninstall DESTDIR="$DEST" PREFIX=/usr $SAN
	assert_success
	[ -f "$DEST/etc/bqltool/profile.json" ]
	# ... and removes the directory when it is empty
	rm "$DEST/etc/bqltool/profile.json"
	run make -s -C "$REPO" install DESTDIR="$DEST" PREFIX=/usr $SAN
	run make -s -C "$REPO" uninstall DESTDIR="$DEST" PREFIX=/usr $SAN
	assert_success
	[ ! -e "$DEST/etc/bqltool" ]
}
