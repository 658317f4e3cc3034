#!/usr/bin/env bats
# Hostile input to the device-side commands (show, set, reset, save, apply,
# top -b, record's arguments, -n, --sysfs-root), second pass: classes the
# first pass (hostile.bats, hostile-output.bats) did not cover.
bats_require_minimum_version 1.5.0
load helpers

# ---------------------------------------------------------------- profiles

# apply_refuses "PROFILE|REGEX" MODE...: apply (with each MODE: "" or an
# option) refuses PROFILE with a usage error matching REGEX, printing nothing
apply_refuses() {
	local c=$1 mode
	shift
	printf '%s' "${c%%|*}" >"$BATS_TEST_TMPDIR/p.json"
	for mode in "$@"; do
		bq apply $mode "$BATS_TEST_TMPDIR/p.json"
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" "${c#*|}"
	done
}

@test "profile: a \\u0000 in a device name is refused, never read as the name before it" {
	use_tree multi
	before=$(tree_digest)
	apply_refuses '{"bqltool_profile":1,"devices":{"eth0\u0000x":{"all":{"limit_max":5000}}}}|p.json: devices: a NUL character \(U\+0000\) in a key at line 1, column 38' \
		"" --check --dry-run
	[ "$(tree_digest)" = "$before" ]
}

@test "profile: a \\u0000 in a setting, the version or a queues key is refused" {
	use_tree multi
	before=$(tree_digest)
	local -a cases=(
		'{"bqltool_profile":1,"devices":{"eth0":{"queues":[{"queue":0,"limit_max\u0000x":5000}]}}}|devices.eth0.queues\[0\]: a NUL character \(U\+0000\) in a key'
		'{"bqltool_profile\u0000":1,"devices":{"eth0":{"all":{"limit_max":5000}}}}|p.json: a NUL character \(U\+0000\) in a key at line 1, column 18'
		'{"bqltool_profile":1,"devices":{"eth0":{"all\u0000":{"limit_max":5000}}}}|devices.eth0: a NUL character'
		'{"bqltool_profile":1,"kernel":"6.1\u0000","devices":{}}|kernel: a NUL character \(U\+0000\) in a string'
	)
	for c in "${cases[@]}"; do
		apply_refuses "$c" ""
	done
	[ "$(tree_digest)" = "$before" ]
}

@test "profile: \"eth0\\u0000\" beside eth0 does not silently replace eth0's entry" {
	use_tree multi
	before=$(tree_digest)
	printf '{"bqltool_profile":1,"devices":{"eth0":{"queues":[{"queue":0,"limit_max":5000}]},"eth0\\u0000":{"queues":[{"queue":1,"limit_max":5000}]}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'NUL character'
	[ "$(tree_digest)" = "$before" ]
}

# ---------------------------------------------------------------- sysfs values

# bqf DEV Q ATTR: one BQL file of the tree
bqf() {
	echo "$ROOT/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}

@test "sysfs: a value no kernel can hold is refused by show, save, set, check and top -b" {
	local -a cases=(
		'limit_max 18446744073709551615 1879048192'
		'limit_min 1879048193 1879048192'
		'limit 4294967296 1879048192'
		'hold_time 4294967296 4294967295'
		'inflight 99999999999 4294967295'
	)
	for c in "${cases[@]}"; do
		set -- $c
		use_tree multi
		echo "$2" >"$(bqf eth1 0 "$1")"
		before=$(tree_digest)
		bq show eth1
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "eth1:tx-0: $1: value $2 in .*/$1 is above what the kernel can hold \(at most $3\)"
		bq save -o "$BATS_TEST_TMPDIR/p.json" eth1
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: $1: value $2 "
		[ ! -e "$BATS_TEST_TMPDIR/p.json" ]
		bq set eth1 hold_time=500
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: $1: value $2 "
		bq check eth1
		assert_failure
		bq top -b -c 1 eth1
		assert_failure 1
		assert_regex "$stderr" "eth1:tx-0: $1: value $2 is above what the kernel can hold \(at most $3\)"
		[ "$(tree_digest)" = "$before" ]
	done
}

@test "sysfs: the largest values a kernel shows are accepted and round-trip" {
	use_tree multi
	echo 1879048192 >"$(bqf eth1 0 limit_min)"
	echo 4294967295 >"$(bqf eth1 0 inflight)"
	echo 18446744073709551615 >"$(bqf eth1 0 stall_cnt)"
	bq -j show eth1:0
	assert_success
	json_ok
	assert_output --partial '"stall_cnt":18446744073709551615'	# jq would round it
	bq save -o "$BATS_TEST_TMPDIR/p.json" eth1
	assert_success
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
}

# ---------------------------------------------------------------- top -b

@test "top: -n 5 (procps top's sample count) is a usage error pointing at -c" {
	[ ! -e /run/netns/5 ] || skip "a namespace named 5 exists here"
	use_tree multi
	bq top -b -n 5
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "top: -n 5: no network namespace '5': -n names one .*the number of samples is -c \(top -b -c 5\)"
	bqx top -b -n 5
	assert_failure 2
	assert_regex "$stderr" "the number of samples is -c"
}

# ---------------------------------------------------------------- selectors

@test "selectors: a ':' inside a glob's bracket expression is the glob's ([[:alpha:]]*:1)" {
	use_tree multi
	bq -j show '[[:alpha:]]*:1'
	assert_success
	[ "$(jq -c '[.[] | [.ifname, [.queues[].queue]]]' <<<"$output")" = '[["eth0",[1]],["eth1",[1]]]' ]
	bq -j show 'eth[[:digit:]]'
	assert_success
	[ "$(jq -c '[.[].ifname]' <<<"$output")" = '["eth0","eth1"]' ]
}

@test "selectors: a glob longer than 15 bytes is a glob, not a too-long name" {
	use_tree multi
	bq -j show '[e][t][h][0123456789]*:0'
	assert_success
	[ "$(jq -c '[.[].ifname]' <<<"$output")" = '["eth0","eth1"]' ]
	bq set --dry-run '[e][t][h][123456789]*' limit_min=1K
	assert_success
	assert_output --partial 'eth1:tx-0..1 limit_min'
	# a plain name over 15 bytes is still refused as one
	bq show abcdefghijklmnop
	assert_failure 2
	assert_regex "$stderr" "device name longer than 15 bytes"
}

@test "selectors: a huge selector is cut in the message, which keeps its reason" {
	use_tree multi
	bq show "eth0:$(printf '1,%.0s' {1..600})x"
	assert_failure 2
	assert_regex "$stderr" "selector 'eth0:1,1,1.*\.\.\.': bad queue list '1,1.*\.\.\.' \(expected N, tx-N, N-M or a comma list\)"
	[ "${#stderr}" -lt 300 ]
	bq show "$(printf 'e%.0s' {1..400})*"
	assert_failure 2
	assert_regex "$stderr" "device pattern longer than 255 bytes"
	bq show "$(printf 'x%.0s' {1..400})"
	assert_failure 2
	assert_regex "$stderr" "device name longer than 15 bytes"
	bq show "nosuch$(printf '?%.0s' {1..200})"
	assert_failure 1
	assert_regex "$stderr" "no device with BQL matches"
}

# ---------------------------------------------------------------- set values

@test "set: stall_thrs=off, as show prints 0, turns the detector off" {
	use_tree multi
	echo 4 >"$(bqf eth0 0 stall_thrs)"
	bq set eth0:0 stall_thrs=off
	assert_success
	assert_output "eth0:tx-0 stall_thrs: 4 ms -> off"
	[ "$(cat "$(bqf eth0 0 stall_thrs)")" = 0 ]
	# only stall_thrs has an 'off'
	bq set eth0:0 hold_time=off
	assert_failure 2
	assert_regex "$stderr" "hold_time: invalid value 'off'"
}

# ---------------------------------------------------------------- stops

# big_tree N: a tree with one device, d0, of N TX queues (the five files
# every kernel has), made with shell builtins only
big_tree() {
	ROOT="$BATS_TEST_TMPDIR/big"
	rm -rf "$ROOT"
	local d="$ROOT/class/net/d0" q b
	mkdir -p "$d/queues"
	echo 5 >"$d/ifindex"
	echo 1500 >"$d/mtu"
	local -a dirs=()
	for ((q = 0; q < $1; q++)); do
		dirs+=("$d/queues/tx-$q/byte_queue_limits")
	done
	mkdir -p "${dirs[@]}"
	for b in "${dirs[@]}"; do
		echo 0 >"$b/limit"
		echo 0 >"$b/limit_min"
		echo 1879048192 >"$b/limit_max"
		echo 1000 >"$b/hold_time"
		echo 0 >"$b/inflight"
	done
}

# stop_mid SIG ARGS...: run bqltool ARGS on $ROOT and send SIG as soon as
# d0:tx-0's limit_min changes (the first write), while the rest are written
stop_mid() {
	local sig=$1 f="$ROOT/class/net/d0/queues/tx-0/byte_queue_limits/limit_min" v pid
	shift
	"$BQLTOOL" --sysfs-root "$ROOT" "$@" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for ((;;)); do
		read -r v <"$f" || v=0
		[ "$v" = 0 ] || break
		kill -0 "$pid" 2>/dev/null || break
	done
	kill -s "$sig" "$pid" 2>/dev/null || true
	status=0
	wait "$pid" || status=$?
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

@test "stops: SIGTERM or SIGHUP half-way through set/apply undoes the writes, never a mix" {
	big_tree 500
	for sig in TERM HUP; do
		for how in set apply; do
			if [ $how = set ]; then
				stop_mid $sig set d0 limit_min=2K -q
			else
				printf '{"bqltool_profile":1,"devices":{"d0":{"all":{"limit_min":2048}}}}' >"$BATS_TEST_TMPDIR/p.json"
				stop_mid $sig apply -q "$BATS_TEST_TMPDIR/p.json"
			fi
			vals=$(cat "$ROOT"/class/net/d0/queues/tx-*/byte_queue_limits/limit_min | sort -u)
			if [ "$status" -eq 1 ]; then
				# interrupted: every write undone, and said so
				assert_regex "$stderr" "interrupted by SIG$sig after [0-9]+ of 500 writes"
				assert_regex "$stderr" "nothing was changed"
				[ "$vals" = 0 ]
			else
				# the stop came after the last write: all of them
				[ "$vals" = 2048 ]
			fi
			# back to the start for the next round
			run "$BQLTOOL" --sysfs-root "$ROOT" set d0 limit_min=0 -q
			assert_success
		done
	done
}

@test "stops: SIGTERM while save -o works leaves no temporary and no half profile" {
	big_tree 500
	local out="$BATS_TEST_TMPDIR/out" pid t
	for sig in TERM INT HUP; do
		rm -rf "$out"
		mkdir "$out"
		# set -m: a background job keeps SIGINT (bash ignores it otherwise)
		set -m
		"$BQLTOOL" --sysfs-root "$ROOT" save -o "$out/p.json" 2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		set +m
		for ((t = 0; t < 200000; t++)); do
			compgen -G "$out/.p.json.*" >/dev/null && break
			kill -0 "$pid" 2>/dev/null || break
		done
		kill -s "$sig" "$pid" 2>/dev/null || true
		status=0
		wait "$pid" || status=$?
		# never a temporary left behind
		run ls -A "$out"
		refute_output --partial ".p.json."
		if [ "$status" -eq 1 ]; then
			assert_regex "$(cat "$BATS_TEST_TMPDIR/err")" "save: interrupted by SIG$sig: no profile written"
			[ ! -e "$out/p.json" ]
		elif [ -e "$out/p.json" ]; then
			jq -e '.devices.d0.all // .devices.d0.queues' "$out/p.json" >/dev/null
		fi
	done
}

# ------------------------------------------------------ one writer at a time

@test "lock: a second writer while one writes is refused naming it; --wait waits; no mix, no file left" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
	use_tree multi
	export BQLTOOL_LOCK_DIR="$BATS_TEST_TMPDIR/lk"
	local pid holder i q rc=0
	# the first writer's first write takes 2 s: it holds the lock meanwhile
	# (LeakSanitizer cannot run under ptrace: off for the traced writer of a sanitizer build)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -o /dev/null -e trace=write -e inject=write:delay_enter=2000000:when=1 \
		"$BQLTOOL" --sysfs-root "$ROOT" set eth0 limit_min=1000 >/dev/null 2>&1 3>&- &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		holder=$(cat "$BQLTOOL_LOCK_DIR"/*.lock 2>/dev/null) || true
		[ -z "$holder" ] || break
		sleep 0.05
	done
	[[ "$holder" =~ ^[0-9]+\ set$ ]] || { echo "lock file: '$holder'"; return 1; }
	for how in "set eth0 limit_min=2000" "reset eth0"; do
		# shellcheck disable=SC2086
		bq $how
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "^bqltool: (re)?set: another bqltool is writing BQL settings in this sysfs tree \(pid ${holder% *}, set; lock .*/lk/root-[0-9a-f]+\.lock\): nothing was written \(--wait waits for it\)$"
	done
	# a dry run reads only: no lock
	bq set eth0 limit_min=2000 --dry-run
	assert_success
	bq set --wait eth0 limit_min=2000
	assert_success
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	for q in 0 1 2 3; do
		assert_equal "$(cat "$ROOT/class/net/eth0/queues/tx-$q/byte_queue_limits/limit_min")" 2000
	done
	[ -z "$(ls -A "$BQLTOOL_LOCK_DIR")" ]
}

# issue #37 class 7: a device deleted while a writer waits for the lock is
# found missing when the old values are read again under it: set, reset
# and apply (and tune --apply, which shares cmd_plan_commit()) say that
# nothing was written
@test "lock: a device that vanishes while a writer waits for the lock: named, nothing was written (#37 class 7)" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
	export BQLTOOL_LOCK_DIR="$BATS_TEST_TMPDIR/lk"
	local pid wpid holder i how rc
	printf '{"bqltool_profile":1,"devices":{"eth1":{"all":{"limit_max":70000}}}}' >"$BATS_TEST_TMPDIR/p.json"
	for how in "set --wait eth1 limit_max=64K" "reset --wait eth1" "apply --wait $BATS_TEST_TMPDIR/p.json"; do
		use_tree multi
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -o /dev/null -e trace=write -e inject=write:delay_enter=1500000:when=1 \
			"$BQLTOOL" --sysfs-root "$ROOT" set eth0 limit_min=1000 >/dev/null 2>&1 3>&- &
		pid=$!
		for ((i = 0; i < 100; i++)); do
			holder=$(cat "$BQLTOOL_LOCK_DIR"/*.lock 2>/dev/null) || true
			[ -z "$holder" ] || break
			sleep 0.05
		done
		[[ "$holder" =~ ^[0-9]+\ set$ ]] || { echo "lock file: '$holder'"; return 1; }
		# shellcheck disable=SC2086
		"$BQLTOOL" --sysfs-root "$ROOT" $how >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
		wpid=$!
		sleep 0.4	# its first read is done: it waits for the lock
		rm -rf "$ROOT/class/net/eth1"
		wait "$pid"
		rc=0
		wait "$wpid" || rc=$?
		[ "$rc" -eq 1 ] || { echo "$how: status $rc: $(cat "$BATS_TEST_TMPDIR/err")"; return 1; }
		[ ! -s "$BATS_TEST_TMPDIR/out" ]
		assert_regex "$(cat "$BATS_TEST_TMPDIR/err")" "^bqltool: (set|reset|apply): eth1.*; nothing was written$"
	done
}

# ------------------------------------------------------ refused as root

@test "root: an immutable file (chattr +i) is named as such, not as 'needs root'; nothing written" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (as root, EPERM is not about permissions)"
	use_tree multi
	local f="$ROOT/class/net/eth0/queues/tx-1/byte_queue_limits/limit_min" before
	chattr +i "$f" 2>/dev/null || skip "chattr +i is not supported on $BATS_TEST_TMPDIR"
	before=$(tree_digest)
	bq set eth0 limit_min=3000
	local st=$status err=$stderr after
	after=$(tree_digest)
	chattr -i "$f"
	[ "$st" -eq 1 ]
	[[ "$err" == *"eth0:tx-1: limit_min: operation not permitted ($f), although running as root: the file is immutable (chattr +i; chattr -i allows writing it); nothing was written"* ]]
	[[ "$err" != *"needs root"* ]]
	[ "$after" = "$before" ]
}

@test "root: an immutable output file (save -o, sim --trace) is named as such, as set names one" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (as root, EPERM is not about permissions)"
	use_tree multi
	local f=$BATS_TEST_TMPDIR/p.json t=$BATS_TEST_TMPDIR/t.bqlt st1 err1 st2 err2
	echo old >"$f"
	echo old >"$t"
	chattr +i "$f" "$t" 2>/dev/null || skip "chattr +i is not supported on $BATS_TEST_TMPDIR"
	bq save -o "$f"
	st1=$status err1=$stderr
	bqx sim -q --duration 0.01 --trace "$t"
	st2=$status err2=$stderr
	chattr -i "$f" "$t"
	[ "$st1" -eq 1 ] && [ "$st2" -eq 1 ]
	[[ "$err1" == *"$f: Operation not permitted: the file is immutable (chattr +i; chattr -i allows writing it)"* ]] || fail "$err1"
	[[ "$err2" == *"$t: Operation not permitted: the file is immutable (chattr +i"* ]] || fail "$err2"
	[ "$(cat "$f")" = old ] && [ "$(cat "$t")" = old ]
}

# ------------------------------------------------------ rollback that fails

@test "rollback: writes that cannot be undone are one line per device with the count; -v lists each" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
	use_tree nic64
	local f
	# the 33rd write fails, and so do the 32 restores (a device deleted meanwhile)
	f="$(printf '%s ' -f -o /dev/null -e trace=write -e inject=write:error=EIO:when=33..65)"
	# shellcheck disable=SC2086
	run --separate-stderr strace $f "$BQLTOOL" --sysfs-root "$ROOT" set ens1f0 limit_min=2000
	assert_failure 1
	assert_output ""
	assert_equal "$(grep -c 'rollback failed' <<<"$stderr")" 1
	assert_regex "$stderr" "set: rollback failed: ens1f0:tx-0\.\.31: 32 writes \(limit_min\) could not be undone; the first, ens1f0:tx-0: limit_min is now 1.95 KiB, was 0 B: .*Input/output error \(-v lists each\)"
	assert_regex "$stderr" "32 of 32 writes could not be undone"
	use_tree nic64
	# shellcheck disable=SC2086
	run --separate-stderr strace $f "$BQLTOOL" --sysfs-root "$ROOT" -v set ens1f0 limit_min=2000
	assert_failure 1
	assert_equal "$(grep -c 'rollback failed' <<<"$stderr")" 32
	assert_regex "$stderr" "rollback failed: ens1f0:tx-31: limit_min is now 1.95 KiB, was 0 B"
}

# ---------------------------------------------------------------- vanished

@test "vanished: a TX queue gone after the listing is named as gone, not as 'does not use BQL'" {
	use_tree multi
	# a dangling link: listed as tx-1, gone when read (ethtool -L meanwhile)
	rm -rf "$ROOT/class/net/eth1/queues/tx-1"
	ln -s gone "$ROOT/class/net/eth1/queues/tx-1"
	before=$(tree_digest)
	for cmd in "show eth1" "set eth1 limit_min=1K" "reset eth1" "save eth1"; do
		bq $cmd
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" "eth1:tx-1: no such TX queue \(no .*/eth1/queues/tx-1; its queues changed since it was listed\?\)"
		refute_regex "$stderr" "does not use BQL"
	done
	[ "$(tree_digest)" = "$before" ]
}

@test "reset: --force (set's option, not reset's) is a usage error and writes nothing" {
	use_tree multi
	before=$(tree_digest)
	bq reset eth0 --force
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "reset: --force: not an option of reset"
	[ "$(tree_digest)" = "$before" ]
}

@test "profile: what json-c takes beyond JSON ('quotes', NaN, Infinity) is refused" {
	use_tree multi
	before=$(tree_digest)
	local -a cases=(
		"{'bqltool_profile':1,'devices':{}}|p.json: line 1, column 2: invalid JSON: a string in single quotes"
		'{"bqltool_profile":1,"devices":{'"'"'eth0'"'"':{"all":{"limit_max":1000}},"eth0":{"all":{"limit_max":3000}}}}|line 1, column 33: invalid JSON: a string in single quotes'
		'{"bqltool_profile":1,"devices":{"eth0":{"all":{"limit_max":NaN}}}}|devices.eth0.all.limit_max: NaN at line 1, column 60 is not a JSON value'
		'{"bqltool_profile":1,"devices":{"eth0":{"all":{"hold_time":-Infinity}}}}|devices.eth0.all.hold_time: Infinity at line 1, column 61 is not a JSON value'
	)
	for c in "${cases[@]}"; do
		apply_refuses "$c" "" --check
	done
	[ "$(tree_digest)" = "$before" ]
}

@test "counts on the command line share one grammar: top -c and record -c take +N, refuse N followed by a newline" {
	use_tree multi
	bq top -b -c +1 -d 0.01 eth0
	assert_success
	bq top -b -c $'1\n' -d 0.01 eth0
	assert_failure 2
	assert_regex "$stderr" "-c: invalid count"
	bq record -c $'1\n' eth0 -o "$BATS_TEST_TMPDIR/t.bqlt"
	assert_failure 2
	assert_regex "$stderr" "-c: invalid count"
	[ ! -e "$BATS_TEST_TMPDIR/t.bqlt" ]
	bq set --dry-run eth0 stall_max=$'0\n'
	assert_failure 2
	assert_regex "$stderr" "stall_max can only be cleared"
}

# issue #37 (questionable, decided): a lock that cannot be made (its
# directory a file, a symlink at its path) let set write silently; it
# writes, and always warns
@test "lock: no lock can be made (the lock directory is a file): set writes and warns, without -v" {
	use_tree multi
	export BQLTOOL_LOCK_DIR="$BATS_TEST_TMPDIR/lkfile"
	echo x >"$BQLTOOL_LOCK_DIR"
	bq set eth0 limit_min=3000
	assert_success
	assert_regex "$stderr" "^bqltool: warning: write lock: .*lkfile.*: writing without the lock \\(another bqltool writing now could leave a mix\\)$"
	assert_equal "$(cat "$ROOT/class/net/eth0/queues/tx-0/byte_queue_limits/limit_min")" 3000
}
