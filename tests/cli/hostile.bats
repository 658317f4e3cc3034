#!/usr/bin/env bats
# Hostile input, issue #10 classes 1, 2, 3, 6 and 7: writes that fail after
# truncation, closed or failing standard descriptors, sysfs trees whose
# links lead out of the root or hold FIFOs and device nodes, values longer
# than a read, selectors that select nothing, and exit codes.
# Tree cases run with openat2 and with the fallback walk
# (BQLTOOL_NO_OPENAT2=1): both must refuse the same things.
bats_require_minimum_version 1.5.0
load helpers

P="$DATA/profiles"

tree_bytes() {
	(cd "$ROOT" && find . -type f -print0 | sort -z | xargs -0 -r tail -v -n +1)
}

# f DEV Q ATTR: one BQL file of the tree
f() {
	echo "$ROOT/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}

# outside: a directory beside the tree, with a file the tool must never
# read or write, and a device tree of its own (a BQL queue)
mk_outside() {
	OUT="$BATS_TEST_TMPDIR/outside"
	rm -rf "$OUT"
	mkdir -p "$OUT"
	echo "SECRET-4242" > "$OUT/secret"
	cp -a "$ROOT/class/net/eth1" "$OUT/evil"
	echo 777777 > "$OUT/evil/queues/tx-0/byte_queue_limits/limit_max"
	OUT_BEFORE=$(cd "$OUT" && find . -type f -print0 | sort -z | xargs -0 tail -v -n +1)
}

outside_unchanged() {
	assert_equal "$(cd "$OUT" && find . -type f -print0 | sort -z | xargs -0 tail -v -n +1)" \
		"$OUT_BEFORE"
}

# modes CMD...: run a test body once with openat2, once with the walk
modes() {
	local m
	for m in 0 1; do
		export BQLTOOL_NO_OPENAT2=$m
		"$@"
	done
	unset BQLTOOL_NO_OPENAT2
}

# ------------------------------------------------ class 1: failed writes

# ulimit -f 0: every write to a regular file fails with EFBIG (SIGXFSZ is
# ignored by bqltool); the file must keep its value, byte for byte. stderr
# goes through a pipe to a cat without the limit (bats keeps it in a file).
bq_fsize0() {
	run --separate-stderr timeout 10 bash -c \
		'set -o pipefail; { (ulimit -f 0; exec "$@") 2>&1 1>&3 3>&- | cat >&2; } 3>&1' \
		sh "$BQLTOOL" --sysfs-root "$ROOT" "$@"
}

@test "1: set under ulimit -f 0 fails with EFBIG and leaves the file intact" {
	use_tree multi
	before=$(tree_bytes)
	bq_fsize0 set eth1 limit_max=1000
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "eth1:tx-0: limit_max: cannot write 1000 to .*: File too large"
	assert_regex "$stderr" "nothing was changed"
	assert_equal "$(tree_bytes)" "$before"
	assert_equal "$(cat "$(f eth1 0 limit_max)")" 1879048192
}

@test "1: reset under ulimit -f 0: intact" {
	use_tree tuned
	before=$(tree_bytes)
	bq_fsize0 reset eth0
	assert_failure 1
	assert_regex "$stderr" "File too large"
	assert_equal "$(tree_bytes)" "$before"
}

@test "1: apply under ulimit -f 0: intact" {
	use_tree multi
	before=$(tree_bytes)
	bq_fsize0 apply "$P/save-tuned.json"
	assert_failure 1
	assert_regex "$stderr" "File too large"
	assert_equal "$(tree_bytes)" "$before"
}

@test "1: every key under ulimit -f 0: intact, exit 1, not killed by SIGXFSZ" {
	use_tree multi
	before=$(tree_bytes)
	for kv in limit_min=1 limit_max=9000 hold_time=500 stall_thrs=20ms limit=5000; do
		bq_fsize0 set 'eth*' "$kv"
		assert_failure 1
		assert_regex "$stderr" "${kv%%=*}: cannot write"
		assert_equal "$(tree_bytes)" "$before"
	done
}

@test "1: --dry-run and show under ulimit -f 0 still work (nothing is written)" {
	use_tree multi
	bq_fsize0 set --dry-run eth1 limit_max=1000
	assert_success
	assert_line "eth1:0-1 limit_max: max -> 1000 B"
	bq_fsize0 show eth1
	assert_success
}

@test "1: a shorter value replaces a longer one exactly (no stale tail)" {
	use_tree multi
	bq set eth1 limit_max=1000
	assert_success
	assert_equal "$(od -An -c "$(f eth1 0 limit_max)" | tr -s ' ')" " 1 0 0 0 \\n"
	bq set eth1 limit_max=max
	assert_success
	assert_equal "$(cat "$(f eth1 1 limit_max)")" 1879048192
}

@test "1: an attribute replaced by a dangling link is not created" {
	use_tree multi
	t=$(f eth1 0 limit_min)
	rm "$t"
	ln -s nothere "$t"
	bq set eth1 limit_min=100
	assert_failure 1
	assert [ ! -e "$(dirname "$t")/nothere" ]
}

# ------------------------------------------------ class 2: fds 0-2

@test "2: show with stdout closed: exit 1, write error" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" show >&-' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_regex "$stderr" "^bqltool: show: write error on standard output: Bad file descriptor$"
}

@test "2: every command with stdout closed: exit 1, one message" {
	use_tree multi
	for args in "show" "-j show" "show --format prometheus" "save" "check" \
		"set --dry-run eth0 limit_min=1" "reset --dry-run eth0" \
		"apply --dry-run $P/save-tuned.json" "top -b -c 1" "help" "help show" "-V"; do
		run --separate-stderr bash -c "\"\$0\" --sysfs-root \"\$1\" $args >&-" "$BQLTOOL" "$ROOT"
		assert_failure 1
		assert_regex "$stderr" "write error on standard output"
	done
}

@test "2: replay with stdout closed: exit 1" {
	run --separate-stderr bash -c '"$0" replay "$1" >&-' "$BQLTOOL" "$DATA/traces/mismatch.bqlt"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output"
}

@test "2: show without --sysfs-root, stdout closed: exit 1, nothing into a socket" {
	run --separate-stderr bash -c '"$0" show >&-' "$BQLTOOL"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output"
}

@test "2: a file written with stdout closed holds only its own content" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" save -o "$2" >&-' "$BQLTOOL" \
		"$ROOT" "$BATS_TEST_TMPDIR/p.json"
	assert_success
	jq -e .bqltool_profile "$BATS_TEST_TMPDIR/p.json"
}

@test "2: export with stdout closed: no stdout needed, exit 0" {
	use_tree multi
	mkdir "$BATS_TEST_TMPDIR/tf"
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" export --textfile "$2" >&-' \
		"$BQLTOOL" "$ROOT" "$BATS_TEST_TMPDIR/tf"
	assert_success
	grep -q '^bql_limit_bytes' "$BATS_TEST_TMPDIR/tf/"*.prom
}

@test "2: stderr closed: warnings never land in the --timeline file" {
	tl="$BATS_TEST_TMPDIR/tl.csv"
	run bash -c '"$0" replay --timeline "$1" "$2" 2>&- >/dev/null' "$BQLTOOL" "$tl" \
		"$DATA/traces/nq-disagree.bqlt"
	refute grep -q bqltool "$tl"
	assert_equal "$(head -1 "$tl")" "line,t_ns,queue,event,bytes,inflight,limit"
}

@test "2: stderr closed: the exit status is kept" {
	use_tree multi
	run bash -c '"$0" --sysfs-root "$1" show nosuch0 2>&-' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_output ""
	run bash -c '"$0" --sysfs-root "$1" show eth0: 2>&-' "$BQLTOOL" "$ROOT"
	assert_failure 2
	assert_output ""
}

@test "2: stderr closed, stdout fine: output intact" {
	use_tree multi
	run bash -c '"$0" --sysfs-root "$1" -j show eth1 2>&-' "$BQLTOOL" "$ROOT"
	assert_success
	json_ok
}

@test "2: stdin closed: apply - and replay - fail with a reason" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" apply - <&-' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_regex "$stderr" "standard input: cannot read: Bad file descriptor"
	run --separate-stderr bash -c '"$0" replay - <&-' "$BQLTOOL"
	assert_failure 1
	assert_regex "$stderr" "Bad file descriptor"
}

@test "2: all three closed: exit 1, the tree untouched" {
	use_tree multi
	before=$(tree_bytes)
	run bash -c '"$0" --sysfs-root "$1" show <&- >&- 2>&-' "$BQLTOOL" "$ROOT"
	assert_failure 1
	run bash -c '"$0" --sysfs-root "$1" set --dry-run eth0 limit_min=5 <&- >&- 2>&-' \
		"$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_equal "$(tree_bytes)" "$before"
}

@test "2: a full stdout (/dev/full) fails every command with ENOSPC" {
	[ -w /dev/full ] || skip "no /dev/full"
	use_tree multi
	for args in "show" "-p show" "save" "check" "top -b -c 1" "help" \
		"sim --duration 0.01" "-j sim --duration 0.01" "tune --duration 0.01" \
		"-j tune --duration 0.01"; do
		run --separate-stderr bash -c "\"\$0\" --sysfs-root \"\$1\" $args >/dev/full" \
			"$BQLTOOL" "$ROOT"
		assert_failure 1
		assert_regex "$stderr" "write error on standard output: No space left on device" ||
			fail "$args: $stderr"
	done
}

@test "2: a closed pipe with SIGPIPE ignored: exit 1, EPIPE named" {
	use_tree nic64
	# the pipe's read end is closed before bqltool starts (no race with a
	# reader that might still be there): perl-base is in every Debian
	run --separate-stderr perl -e 'pipe(my $r, my $w) or die; close $r;
		open(STDOUT, ">&", $w) or die; $SIG{PIPE} = "IGNORE"; exec @ARGV or die' \
		"$BQLTOOL" --sysfs-root "$ROOT" show
	assert_failure 1
	assert_regex "$stderr" "write error on standard output: Broken pipe"
}

# ------------------------------------------------ class 3: inside the root

_attr_link_abs() {
	use_tree multi
	mk_outside
	t=$(f eth1 0 limit_max)
	rm "$t"
	ln -s "$OUT/secret" "$t"
	bq show eth1
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "eth1:tx-0: limit_max: cannot open .*: it leads outside the sysfs root"
	refute_regex "$stderr" "SECRET"
	before=$(tree_bytes)
	bq set eth1 limit_max=1000
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
	outside_unchanged
	assert_equal "$(tree_bytes)" "$before"
}

@test "3: an attribute linked to a file outside the root: not read, not written" {
	modes _attr_link_abs
}

_attr_link_rel() {
	use_tree multi
	mk_outside
	t=$(f eth1 1 hold_time)
	rm "$t"
	ln -s ../../../../../../../outside/secret "$t"
	for cmd in "show eth1" "-j show eth1" "save" "check eth1" "top -b -c 1 eth1" \
		"set eth1 hold_time=500" "reset eth1"; do
		bq $cmd
		assert_failure 1
		assert_regex "$stderr" "outside the sysfs root"
		refute_output --partial SECRET
	done
	outside_unchanged
}

@test "3: a relative ../ link climbing out of the root: refused by every command" {
	modes _attr_link_rel
}

_dev_link_out() {
	use_tree multi
	mk_outside
	ln -s "$OUT/evil" "$ROOT/class/net/evil0"
	for cmd in "show evil0" "set evil0 limit_max=1000" "reset evil0" "save evil0" \
		"check evil0" "top -b -c 1 evil0"; do
		bq $cmd
		assert_failure 1
		assert_regex "$stderr" "evil0: cannot open .*/class/net/evil0: it leads outside the sysfs root"
		refute_output --partial 777777
	done
	bq check -a
	assert_line --regexp "^evil0 +no_bql +refused: its directory leads outside the sysfs root"
	outside_unchanged
}

@test "3: a device directory linked out of the root: not read, not written" {
	modes _dev_link_out
}

_dev_link_out_glob() {
	use_tree multi
	mk_outside
	ln -s ../../../outside/evil "$ROOT/class/net/evil0"
	bq -j show
	assert_success
	refute_output --partial evil0
	refute_output --partial 777777
	bq set '*' limit_max=5000
	assert_success
	refute_output --partial evil0
	outside_unchanged
}

@test "3: selecting everything skips a device that leads out; it is never written" {
	modes _dev_link_out_glob
}

_dev_link_in() {
	use_tree multi
	# real sysfs: class/net/X is a link to ../../devices/.../net/X
	mkdir -p "$ROOT/devices/pci0000:00/0000:00:03.0/net"
	mv "$ROOT/class/net/eth1" "$ROOT/devices/pci0000:00/0000:00:03.0/net/eth1"
	ln -s ../../devices/pci0000:00/0000:00:03.0/net/eth1 "$ROOT/class/net/eth1"
	bq -j show eth1
	assert_success
	assert_equal "$(jq '.[0].queues | length' <<<"$output")" 2
	bq set eth1 limit_max=64K
	assert_success
	assert_equal "$(cat "$ROOT/devices/pci0000:00/0000:00:03.0/net/eth1/queues/tx-1/byte_queue_limits/limit_max")" 65536
	bq top -b -c 1 eth1
	assert_success
}

@test "3: links that stay inside the root (as real sysfs has them) work" {
	modes _dev_link_in
}

_dir_links() {
	local what
	for what in queues tx-0 byte_queue_limits; do
		use_tree multi
		mk_outside
		case $what in
		queues) d="$ROOT/class/net/eth1/queues" src="$OUT/evil/queues" ;;
		tx-0) d="$ROOT/class/net/eth1/queues/tx-0" src="$OUT/evil/queues/tx-0" ;;
		byte_queue_limits) d="$ROOT/class/net/eth1/queues/tx-0/byte_queue_limits"
			src="$OUT/evil/queues/tx-0/byte_queue_limits" ;;
		esac
		rm -rf "$d"
		ln -s "$src" "$d"
		bq show eth1
		assert_failure 1
		refute_output --partial 777777
		bq set eth1 limit_max=1000
		assert_failure 1
		outside_unchanged
	done
}

@test "3: queues/, tx-N/ or byte_queue_limits/ linked out: refused" {
	modes _dir_links
}

_class_net_out() {
	use_tree multi
	mk_outside
	mkdir -p "$OUT/net"
	mv "$OUT/evil" "$OUT/net/eth0"
	OUT_BEFORE=$(cd "$OUT" && find . -type f -print0 | sort -z | xargs -0 tail -v -n +1)
	rm -rf "$ROOT/class/net"
	ln -s "$OUT/net" "$ROOT/class/net"
	bq show
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
	# top (its selection, then sysfs_list_names every tick): the same refusal
	bq top -b -c 1
	assert_failure 1
	assert_regex "$stderr" "network devices: cannot open .*/class/net: it leads outside the sysfs root"
	bq set '*' limit_max=1000
	assert_failure 1
	outside_unchanged
}

@test "3: class/net itself linked out: refused" {
	modes _class_net_out
}

_fifo_attr() {
	use_tree multi
	t=$(f eth1 0 limit)
	rm "$t"
	mkfifo "$t"
	for cmd in "show eth1" "save eth1" "check eth1" "top -b -c 1 eth1" "set eth1 limit_max=1000"; do
		bq $cmd
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: limit: cannot open .*: it is a FIFO, not a regular file: refused"
	done
}

@test "3: a FIFO as an attribute: refused at once, never a hang" {
	modes _fifo_attr
}

_fifo_write_target() {
	use_tree multi
	t=$(f eth1 1 limit_max)
	rm "$t"
	mkfifo "$t"
	# a reader on the FIFO: a write would succeed if it were opened
	(timeout 5 cat "$t" > "$BATS_TEST_TMPDIR/got" &)
	bq set eth1 limit_max=1000
	assert_failure 1
	assert_regex "$stderr" "FIFO"
	echo done > "$t" &
	wait
	refute grep -q 1000 "$BATS_TEST_TMPDIR/got"
}

@test "3: a FIFO with a reader is not written" {
	modes _fifo_write_target
}

_fifo_context() {
	use_tree multi
	for a in ifindex operstate mtu statistics/tx_bytes speed; do
		use_tree multi
		rm "$ROOT/class/net/eth1/$a"
		mkfifo "$ROOT/class/net/eth1/$a"
		bq show eth1
		# device context is optional: shown without it, never a hang
		[ "$status" -ne 124 ]
		bq top -b -c 1 eth1
		[ "$status" -ne 124 ]
		bq check eth1
		[ "$status" -ne 124 ]
	done
}

@test "3: FIFOs as device attributes (ifindex, operstate, stats): no hang" {
	modes _fifo_context
}

_devnode_attr() {
	use_tree multi
	t=$(f eth1 0 limit_min)
	rm "$t"
	mknod "$t" c 1 7 2>/dev/null || skip "cannot create device nodes here"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "it is a character device, not a regular file: refused"
	bq set eth1 limit_min=1
	assert_failure 1
	assert_regex "$stderr" "character device"
}

@test "3: a device node as an attribute: refused, never opened" {
	modes _devnode_attr
}

_dir_attr() {
	use_tree multi
	t=$(f eth1 0 hold_time)
	rm "$t"
	mkdir "$t"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "hold_time: cannot open .*: it is a directory"
	bq set eth1 hold_time=10
	assert_failure 1
}

@test "3: a directory as an attribute: refused" {
	modes _dir_attr
}

_loop() {
	use_tree multi
	t=$(f eth1 0 limit_max)
	rm "$t"
	ln -s limit_max2 "$t"
	ln -s limit_max "$(dirname "$t")/limit_max2"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "limit_max: cannot open .*: Too many levels of symbolic links"
}

@test "3: a symlink loop: ELOOP named" {
	modes _loop
}

_chain_in() {
	use_tree multi
	t=$(f eth1 0 limit_max)
	mv "$t" "$ROOT/real_limit_max"
	mkdir -p "$ROOT/a/b"
	ln -s ../../real_limit_max "$ROOT/a/b/l2"
	ln -s ../../../../../../a/b/l2 "$t"
	bq -j show eth1:0
	assert_success
	assert_equal "$(jq '.[0].queues[0].limit_max' <<<"$output")" 1879048192
	bq set eth1:0 limit_max=2000
	assert_success
	assert_equal "$(cat "$ROOT/real_limit_max")" 2000
}

@test "3: a chain of links inside the root is followed" {
	modes _chain_in
}

_abs_inside() {
	use_tree multi
	t=$(f eth1 0 limit_max)
	# absolute, even when it names a file inside the tree: out (BENEATH)
	rm "$t"
	ln -s "$ROOT/class/net/eth1/queues/tx-1/byte_queue_limits/limit_max" "$t"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
}

@test "3: an absolute link is refused even if it names a file in the tree" {
	modes _abs_inside
}

_apply_export_out() {
	use_tree multi
	mk_outside
	t=$(f eth0 0 limit_min)
	rm "$t"
	ln -s "$OUT/secret" "$t"
	bq apply "$P/save-tuned.json"
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
	mkdir -p "$BATS_TEST_TMPDIR/tf"
	bq export --textfile "$BATS_TEST_TMPDIR/tf"
	assert_failure 1
	bq save -o "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	assert [ ! -e "$BATS_TEST_TMPDIR/p.json" ]
	outside_unchanged
}

@test "3: apply, export and save refuse a tree with a link out" {
	modes _apply_export_out
}

@test "3: the root itself may be a symlink" {
	use_tree multi
	ln -s "$ROOT" "$BATS_TEST_TMPDIR/rootlink"
	run --separate-stderr "$BQLTOOL" --sysfs-root "$BATS_TEST_TMPDIR/rootlink" -j show eth1
	assert_success
	json_ok
	run --separate-stderr "$BQLTOOL" --sysfs-root "$BATS_TEST_TMPDIR/rootlink/" show eth1
	assert_success
}

# ------------------------------------------------ class 6: exact reads, selectors

_long_value() {
	use_tree multi
	t=$(f eth1 0 limit_max)
	printf '%064d\n' 123 > "$t"
	for cmd in "show eth1" "save eth1" "set eth1 limit_min=1" "check eth1" "top -b -c 1 eth1"; do
		bq $cmd
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: limit_max: .*longer than [0-9]+ bytes: refused"
		refute_output --partial "123"
	done
}

@test "6: a value longer than the read buffer is refused, never cut to a number" {
	modes _long_value
}

@test "6: a long value that fits is parsed, and garbage named as such" {
	use_tree multi
	t=$(f eth1 0 limit)
	printf '%062d\n' 5 > "$t"	# 63 bytes with the newline: fits
	bq -j show eth1:0
	assert_success
	assert_equal "$(jq '.[0].queues[0].limit' <<<"$output")" 5
	printf '%061dx\n' 5 > "$t"
	bq show eth1:0
	assert_failure 1
	assert_regex "$stderr" "invalid value"
	refute_regex "$stderr" "longer than"
}

@test "6: a 5000-byte value (more than a page) is refused" {
	use_tree multi
	head -c 5000 /dev/zero | tr '\0' 7 > "$(f eth1 1 hold_time)"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "eth1:tx-1: hold_time: .*longer than"
}

@test "6: '*:99' selects no queue: every selector command exits 1 naming it" {
	use_tree multi
	before=$(tree_bytes)
	mkdir -p "$BATS_TEST_TMPDIR/tf"
	for cmd in "show" "-j show" "save" "check" "top -b -c 1" \
		"export --textfile $BATS_TEST_TMPDIR/tf" "reset" "set limit_max=1000" \
		"set --dry-run limit_max=1000"; do
		bq $cmd '*:99'
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "'\\*:99': selects no TX queue \\(the devices it matches have at most 4: tx-0..tx-3\\)"
	done
	assert_equal "$(tree_bytes)" "$before"
	assert_equal "$(ls "$BATS_TEST_TMPDIR/tf")" ""
}

@test "6: a glob that selects nothing fails even beside one that selects" {
	use_tree multi
	before=$(tree_bytes)
	bq set eth0 'wl*:1' limit_max=1000
	assert_failure 1
	assert_regex "$stderr" "'wl\\*:1': selects no TX queue"
	assert_equal "$(tree_bytes)" "$before"
	bq show 'eth1*:2-3' eth0
	assert_failure 1
	assert_regex "$stderr" "'eth1\\*:2-3'"
}

@test "6: a glob selects a queue where it exists, if it exists somewhere" {
	use_tree multi
	bq -j show 'eth*:3'
	assert_success
	assert_equal "$(jq -c '[.[] | .ifname]' <<<"$output")" '["eth0"]'
	bq -j show '*:0'
	assert_success
	assert_equal "$(jq 'length' <<<"$output")" 3
}

@test "6: globs that match no BQL device, or nothing at all: exit 1 naming them" {
	use_tree multi
	for sel in 'lo*' 'veth*' 'zz*' 'eth[' '?' '*:0-3,99'; do
		bq show "$sel"
		if [ "$sel" = '*:0-3,99' ]; then
			assert_success	# 0-3 exist
			continue
		fi
		assert_failure 1
		assert_regex "$stderr" "'$(sed 's/[][*?]/\\&/g' <<<"$sel")': no device with BQL matches"
	done
}

# ------------------------------------------------ class 7: exit codes

@test "7: -n ../x, '', '.', '..', a/b are usage errors (2) with a message" {
	for ns in ../x "" . .. a/b /run/netns/x; do
		bqx -n "$ns" show
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" "invalid namespace name '$(sed 's/[.]/\\./g' <<<"$ns")'"
		assert_regex "$stderr" "Try 'bqltool help show'"
	done
}

@test "7: --netns=../x and a 300-byte name are usage errors too" {
	bqx --netns=../x set eth0 limit_max=1
	assert_failure 2
	bqx -n "$(printf 'a%.0s' {1..300})" show
	assert_failure 2
	assert_regex "$stderr" "invalid namespace name"
}

@test "7: an invalid -n wins over other checks: usage, never an attempt" {
	bqx -n .. --sysfs-root /nonexistent show
	assert_failure 2
	refute_regex "$stderr" "cannot open /run/netns"
}

@test "7: apply with a missing profile file is a runtime failure (1)" {
	use_tree multi
	before=$(tree_bytes)
	bq apply "$BATS_TEST_TMPDIR/none.json"
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "^bqltool: apply: .*none.json: cannot open: No such file or directory$"
	assert_equal "$(tree_bytes)" "$before"
	for mode in --check --dry-run; do
		bq apply $mode "$BATS_TEST_TMPDIR/none.json"
		assert_failure 1
	done
}

@test "7: apply with a directory or unreadable path: 1; a bad profile stays 2" {
	use_tree multi
	bq apply "$BATS_TEST_TMPDIR"
	assert_failure 1
	bq apply "$P/bad-syntax.json"
	assert_failure 2
}

@test "7: runtime failures are 1, usage errors are 2, across commands" {
	use_tree multi
	for c in "show nosuch0|1" "set nosuch0 limit_max=1|1" "show eth1:5|1" "show lo|1" \
		"check nosuch0|1" "top -b -c 1 nosuch0|1" "show eth0:|2" "show ''|2" \
		"set eth0 limit_max=abc|2" "set eth0|2" "reset|2" "top -b -c 0|2" \
		"export|2" "show --format yaml|2" "nosuchcmd|2" "save -o ''|2"; do
		args=${c%|*} want=${c##*|}
		eval "bq $args"
		[ "$status" -eq "$want" ] || fail "'$args': exit $status, expected $want: $stderr"
		[ -n "$stderr" ] || fail "'$args': no message"
	done
}

@test "7: a missing --sysfs-root is a runtime failure naming it" {
	run --separate-stderr "$BQLTOOL" --sysfs-root /nonexistent/bqlt show
	assert_failure 1
	assert_regex "$stderr" "/nonexistent/bqlt"
}

# ------------------------------------------------ more siblings

@test "1: a write the kernel refuses is not reported as restored, the rest are undone" {
	use_tree multi
	before=$(tree_bytes)
	bq_refusing "$(f eth0 1 hold_time)" set eth0 limit_min=3000 hold_time=500
	assert_failure 1
	assert_regex "$stderr" "eth0:tx-1: hold_time: cannot write 500 to .*: Invalid argument"
	refute_regex "$stderr" "the failed write changed it"
	assert_regex "$stderr" "undid the 3 earlier writes: nothing was changed"
	assert_equal "$(tree_bytes)" "$before"
}

@test "1: -j set under ulimit -f 0: stdout empty, the tree intact" {
	use_tree multi
	before=$(tree_bytes)
	bq_fsize0 -j set eth0 limit_min=5
	assert_failure 1
	assert_output ""
	assert_equal "$(tree_bytes)" "$before"
}

@test "2: stdout open read-only: exit 1, EBADF named" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" show 1</dev/null' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output: Bad file descriptor"
}

@test "2: stdin closed does not matter to commands that do not read it" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" -j show eth1 <&-' "$BQLTOOL" "$ROOT"
	assert_success
	json_ok
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" set eth1 limit_min=7 <&-' "$BQLTOOL" "$ROOT"
	assert_success
	assert_equal "$(cat "$(f eth1 0 limit_min)")" 7
}

@test "2: stderr closed: a failing set still rolls back and exits 1" {
	use_tree multi
	before=$(tree_bytes)
	run bash -c '"$0" --sysfs-root "$1" set eth1 limit_max=1000 2>&-' "$BQLTOOL" "$ROOT"
	assert_success
	run bash -c 'ulimit -f 0; "$0" --sysfs-root "$1" set eth0 limit_max=1000 2>&- | cat' \
		"$BQLTOOL" "$ROOT"
	refute_output --partial bqltool
	assert_equal "$(cat "$(f eth0 0 limit_max)")" 1879048192
}

@test "2: save to stdout closed: exit 1, no profile anywhere" {
	use_tree multi
	mkdir "$BATS_TEST_TMPDIR/cwd"
	run --separate-stderr bash -c 'cd "$2" && "$0" --sysfs-root "$1" save -o - >&-' "$BQLTOOL" "$ROOT" \
		"$BATS_TEST_TMPDIR/cwd"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/cwd")" ""
}

_magic_link() {
	use_tree multi
	t=$(f eth1 0 limit_max)
	rm "$t"
	ln -s /proc/self/fd/1 "$t"
	bq set eth1 limit_max=1000
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
	refute_output --partial 1000
}

@test "3: a magic link (/proc/self/fd/1) as an attribute: refused, nothing written to stdout" {
	modes _magic_link
}

_context_out() {
	use_tree multi
	mk_outside
	echo 99999 > "$OUT/num"
	OUT_BEFORE=$(cd "$OUT" && find . -type f -print0 | sort -z | xargs -0 tail -v -n +1)
	rm "$ROOT/class/net/eth1/statistics/tx_bytes" "$ROOT/class/net/eth1/mtu"
	ln -s "$OUT/num" "$ROOT/class/net/eth1/statistics/tx_bytes"
	ln -s ../../../../outside/num "$ROOT/class/net/eth1/mtu"
	for cmd in "-j show eth1" "top -b -c 1 -j eth1" "show --format prometheus eth1"; do
		bq $cmd
		refute_output --partial 99999
	done
	outside_unchanged
}

@test "3: device context files (mtu, statistics) linked out are never read" {
	modes _context_out
}

_socket_attr() {
	command -v python3 >/dev/null || skip "no python3 to make a socket"
	use_tree multi
	t=$(f eth1 0 limit_min)
	rm "$t"
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$t"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "it is a socket, not a regular file: refused"
}

@test "3: a socket as an attribute: refused" {
	modes _socket_attr
}

_env_root() {
	use_tree multi
	mk_outside
	t=$(f eth1 0 limit_max)
	rm "$t"
	ln -s "$OUT/secret" "$t"
	BQLTOOL_SYSFS_ROOT=$ROOT run --separate-stderr timeout 10 "$BQLTOOL" set eth1 limit_max=5
	assert_failure 1
	assert_regex "$stderr" "outside the sysfs root"
	outside_unchanged
}

@test "3: BQLTOOL_SYSFS_ROOT gets the same protection as --sysfs-root" {
	modes _env_root
}

_tx_link_in() {
	use_tree multi
	# tx-1 of eth1 is a link to tx-0 inside the tree: allowed, both read the same file
	rm -rf "$ROOT/class/net/eth1/queues/tx-1"
	ln -s tx-0 "$ROOT/class/net/eth1/queues/tx-1"
	bq -j show eth1
	assert_success
	assert_equal "$(jq '.[0].queues | length' <<<"$output")" 2
}

@test "3: a queue directory linked to another inside the root is followed" {
	modes _tx_link_in
}

_fifo_top_stats() {
	use_tree multi
	rm "$ROOT/class/net/eth1/statistics/tx_packets"
	mkfifo "$ROOT/class/net/eth1/statistics/tx_packets"
	bq top -b -c 2 -d 0.05 eth1
	assert_success
	assert_line --partial "eth1"
}

@test "3: top with a FIFO for a device statistic: runs, no hang" {
	modes _fifo_top_stats
}

@test "6: a long value in a read-only attribute (stall_cnt) is refused too" {
	use_tree multi
	printf '%070d\n' 1 > "$(f eth1 1 stall_cnt)"
	bq show eth1
	assert_failure 1
	assert_regex "$stderr" "eth1:tx-1: stall_cnt: .*longer than 63 bytes"
	bq -j show eth1
	assert_failure 1
	assert_output ""
}

@test "6: a long value read by top while it runs is an error, not a number" {
	use_tree multi
	coproc TOP { exec timeout 10 "$BQLTOOL" --sysfs-root "$ROOT" top -b -d 0.1 eth1 2>&1; }
	sleep 0.4
	printf '%064d\n' 123 > "$(f eth1 0 inflight)"
	wait "$TOP_PID" || rc=$?
	out=$(cat <&"${TOP[0]}" 2>/dev/null || true)
	[ "${rc:-0}" -eq 1 ] || fail "exit ${rc:-0}"
}

@test "6: every selector is checked, not only the first" {
	use_tree multi
	bq show eth0 eth1 '*:7'
	assert_failure 1
	assert_regex "$stderr" "'\\*:7': selects no TX queue"
	bq show '*:7' eth0
	assert_failure 1
}

@test "7: top -n ../x is a usage error (2) like the global -n" {
	use_tree multi
	bqx top -b -c 1 -n ../x
	assert_failure 2
	assert_regex "$stderr" "invalid namespace name '\\.\\./x'"
	bqx top -b -c 1 --netns ''
	assert_failure 2
}

@test "7: a command's own -n is checked as the global -n (record, top): 2, nothing tried" {
	for cmd in "record -d 1 eth0" "top -b -c 1"; do
		for ns in ../x "" . a/b; do
			run --separate-stderr "$BQLTOOL" $cmd -n "$ns"
			assert_failure 2
			assert_regex "$stderr" "invalid namespace name '"
		done
	done
}

@test "7: BQLTOOL_SYSFS_ROOT pointing nowhere is a runtime failure" {
	BQLTOOL_SYSFS_ROOT=/nonexistent/bqlt run --separate-stderr "$BQLTOOL" show
	assert_failure 1
	assert_regex "$stderr" "/nonexistent/bqlt"
}

@test "7: a write error on stdout is 1 even when the command succeeded otherwise" {
	[ -w /dev/full ] || skip "no /dev/full"
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" set eth1 limit_min=9 >/dev/full' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output"
}

_apply_dev_out() {
	use_tree multi
	mk_outside
	ln -s "$OUT/evil" "$ROOT/class/net/evil0"
	echo '{"bqltool_profile":1,"devices":{"evil0":{"all":{"limit_max":5000}}}}' > "$BATS_TEST_TMPDIR/p.json"
	for mode in "" --missing=skip --dry-run --check; do
		bq apply $mode "$BATS_TEST_TMPDIR/p.json"
		assert_failure 1
		assert_regex "$stderr" "evil0: cannot open .*: it leads outside the sysfs root"
	done
	outside_unchanged
}

@test "3: apply to a device that leads out: refused, even with --missing=skip" {
	modes _apply_dev_out
}

_nul_value() {
	use_tree multi
	printf '123\0999\n' > "$(f eth1 0 limit_max)"
	for cmd in "-j show eth1" "save eth1" "check eth1" "top -b -c 1 -j eth1" "set eth1 limit_min=1"; do
		bq $cmd
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: limit_max: .*contains a NUL byte: refused"
		refute_output --partial '"limit_max":123'
	done
}

@test "6: a value with a NUL byte inside is refused, never read as its first part" {
	modes _nul_value
}

@test "2: stdout to a file under ulimit -f 0: EFBIG reported, exit 1, not killed" {
	use_tree multi
	run --separate-stderr bash -c \
		'{ (ulimit -f 0; exec "$0" --sysfs-root "$1" show > "$2") 2>&1 | cat >&2; } ; exit ${PIPESTATUS[0]}' \
		"$BQLTOOL" "$ROOT" "$BATS_TEST_TMPDIR/out"
	assert_failure 1
	assert_regex "$stderr" "write error on standard output: File too large"
}

@test "2: stdin a directory: apply - fails with the reason (1)" {
	use_tree multi
	run --separate-stderr bash -c '"$0" --sysfs-root "$1" apply - < /' "$BQLTOOL" "$ROOT"
	assert_failure 1
	assert_regex "$stderr" "standard input: cannot read: Is a directory"
}
