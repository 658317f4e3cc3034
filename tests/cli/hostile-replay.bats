#!/usr/bin/env bats
# Hostile input to the trace commands (replay, sim, tune) and to the
# number parsers behind every command line: outputs that name an input or
# each other, numbers with signs, spaces, hex, exponents or a newline, and
# limits that messages must name as the option enforces them.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$EXAMPLES/ramp.bqlt" r.bqlt
	SUM=$(cksum <r.bqlt)
}

# the trace r.bqlt is still the example, byte for byte
intact() {
	[ "$(cksum <r.bqlt)" = "$SUM" ] || { echo "r.bqlt was changed"; return 1; }
}

# ------------------------------------------------ outputs that name an input

@test "clash: replay --timeline/--plot naming the trace is refused (2), the trace intact" {
	# (names the output rule takes, so that the clash is what refuses them)
	ln -s r.bqlt link.csv
	ln r.bqlt hard.csv
	ln r.bqlt hard.svg
	for a in "--timeline link.csv" "--timeline ./link.csv" "--timeline hard.csv" \
		"--plot hard.svg" "--timeline $PWD/hard.csv"; do
		# shellcheck disable=SC2086
		bqx replay -q $a r.bqlt
		[ "$status" -eq 2 ] || { echo "$a: status $status"; return 1; }
		[[ "$stderr" == *"refusing to overwrite the input"* ]]
		intact
	done
	# among several traces, and with -J
	bqx replay -J 2 -q --timeline hard.csv "$EXAMPLES/decay.bqlt" r.bqlt
	[ "$status" -eq 2 ]
	intact
}

@test "clash: replay - with standard input the --timeline file is refused" {
	ln r.bqlt hard.csv
	run --separate-stderr sh -c '"$1" replay -q --timeline hard.csv - <r.bqlt' sh "$BQLTOOL"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'hard.csv' is the trace read from standard input"* ]]
	intact
}

@test "clash: replay --timeline and --plot on one file: 2, neither written" {
	# x.svg is a link to the timeline's name (not there yet)
	ln -s x.csv x.svg
	bqx replay -q --timeline x.csv --plot x.svg r.bqlt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--plot: 'x.svg' is also the --timeline file"* ]]
	[ ! -e x.csv ]
	mkdir sub
	ln -s ../x.csv sub/y.svg
	bqx replay -q --timeline sub/../x.csv --plot sub/y.svg r.bqlt
	[ "$status" -eq 2 ]
	[ ! -e x.csv ]
}

@test "clash: outputs that differ, or are devices, still work" {
	bqx replay -q --timeline t.csv --plot t.svg r.bqlt
	[ "$status" -eq 0 ]
	[ -s t.csv ] && [ -s t.svg ]
	bqx replay -q --timeline /dev/null --plot /dev/null r.bqlt
	[ "$status" -eq 0 ]
	bqx sim -q --duration 10ms --trace /dev/null --timeline /dev/null --plot /dev/null
	[ "$status" -eq 0 ]
	# the same trace twice is two reads, not a clash
	bqx replay -q r.bqlt r.bqlt
	[ "$status" -eq 0 ]
}

@test "clash: replay - - is a usage error (standard input is read once)" {
	run --separate-stderr sh -c '"$1" replay - - <r.bqlt' sh "$BQLTOOL"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'-' given twice"* ]]
	[ -z "$output" ]
}

@test "clash: sim outputs on one file are refused (2), nothing written" {
	ln -s x.bqlt x.svg
	ln -s y.bqlt y.csv
	ln -s z.csv z.svg
	for a in "--trace x.bqlt --plot x.svg" "--trace y.bqlt --timeline ./y.csv" \
		"--timeline z.csv --plot z.svg"; do
		# shellcheck disable=SC2086
		bqx sim -q --duration 10ms $a
		[ "$status" -eq 2 ] || { echo "$a: status $status"; return 1; }
		[[ "$stderr" == *"each output needs a file of its own"* ]]
	done
	[ ! -e x.bqlt ] && [ ! -e y.bqlt ] && [ ! -e z.csv ]
}

# ------------------------------------------------ numbers typed on a command line

# num_case EXPECT ARGS...: bqltool ARGS with the value in place; EXPECT 0
# (accepted) or 2 (usage error, nothing on stdout, the value quoted back)
num_case() {
	local want=$1
	shift
	bqx "$@"
	if [ "$status" -ne "$want" ]; then
		echo "bqltool $*: status $status, want $want: $stderr"
		return 1
	fi
	if [ "$want" -eq 2 ]; then
		[ -z "$output" ] || { echo "bqltool $*: stdout: $output"; return 1; }
		[[ "$stderr" == *"Try 'bqltool help"* ]] || { echo "bqltool $*: $stderr"; return 1; }
	fi
}

# every way of typing a number: the same class, whatever the option
# (counts, threads, HZ, seeds, sizes, times, rates, fractions)
num_all() {
	local want=$1 v=$2
	# (|| return: a function called in a condition runs without set -e)
	num_case "$want" sim -q --duration 10ms --queues "$v" || return 1
	num_case "$want" sim -q --duration 10ms --ring "${v}00" || return 1
	num_case "$want" sim -q --duration 10ms --hz "${v}000" || return 1
	num_case "$want" sim -q --duration 10ms --seed "$v" || return 1
	num_case "$want" sim -q --duration "${v}0ms" || return 1
	num_case "$want" sim -q --duration 10ms --link "${v}G" || return 1
	num_case "$want" sim -q --duration 10ms --size "fixed:${v}000" || return 1
	num_case "$want" sim -q --duration 10ms --size "bimodal:64:1514:${v}" || return 1
	num_case "$want" sim -q --duration 10ms --set "limit_max=${v}M" || return 1
	num_case "$want" tune --duration 10ms --threads "$v" || return 1
	num_case "$want" tune --duration 10ms --keep "${v}" || return 1
	num_case "$want" tune --duration 10ms --min-gain "${v}" || return 1
	num_case "$want" replay -q -J "$v" r.bqlt || return 1
	num_case "$want" replay -q --hz "${v}000" r.bqlt || return 1
	num_case "$want" replay -q --set "hold_time=${v}s" r.bqlt
}

@test "numbers: plain and with a leading '+' are accepted by every option" {
	num_all 0 1 || return 1
	num_all 0 +1
}

@test "numbers: spaces, a newline, hex, exponents, a second sign: refused by every option (2)" {
	local v
	for v in " 1" "1 " $'1\n' $'+1\n' "0x1" "1e0" "++1" "+-1" "-1" "" "+" "inf" "nan"; do
		num_all 2 "$v" || { echo "value '$v'"; return 1; }
	done
}

@test "numbers: tune's fractions take no exponent, hex or space (strtod did)" {
	for v in 0x0.8 1e-1 5E-1 " 0.5" "0.5 " -0 "-0.0" infinity; do
		num_case 2 tune --duration 10ms --keep "$v"
		[[ "$stderr" == *"--keep: '$v': expected a fraction above 0, at most 1, like 0.995"* ]]
		num_case 2 tune --duration 10ms --min-gain "$v"
		# the message is --min-gain's own: its range and default
		[[ "$stderr" == *"--min-gain: '$v': expected a fraction from 0, at most 1, like 0.1"* ]]
		num_case 2 sim -q --duration 10ms --size "bimodal:64:1514:$v"
	done
	num_case 0 tune --duration 10ms --min-gain 0
	num_case 0 tune --duration 10ms --keep .5
}

@test "numbers: a time above what the option takes names the option's limit" {
	# above a day (what the unit parser takes at all) and above the option's
	# own limit give the same message: the option's limit
	for v in 3601 86401 99999999999999999999; do
		num_case 2 sim -q --duration "$v"
		[[ "$stderr" == *"--duration: '$v': at most 1 h"* ]] || { echo "$stderr"; return 1; }
		num_case 2 sim -q --duration 10ms --stall "1ms:$v"
		[[ "$stderr" == *"--stall DURATION: '$v': at most 1 h"* ]] || { echo "$stderr"; return 1; }
		num_case 2 sim -q --duration 10ms --traffic "onoff:1G:$v:1"
		[[ "$stderr" == *"--traffic ON: '$v': at most 1 h"* ]] || { echo "$stderr"; return 1; }
		num_case 2 sim -q --duration 10ms --irq-latency "1us:$v"
		[[ "$stderr" == *"--irq-latency JITTER: '$v': at most 1 s"* ]] || { echo "$stderr"; return 1; }
		num_case 2 check -i "$v"
		[[ "$stderr" == *"--interval: '$v' out of range (0 < SEC <= 3600)"* ]] || { echo "$stderr"; return 1; }
	done
}

# ------------------------------------------------ export: a target that is not a file

@test "export: a FIFO, a device or a descriptor as DIR/bqltool.prom is refused at once (1), no hang" {
	use_tree nic1
	mkdir ex
	mkfifo ex/bqltool.prom
	bq export -t ex
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ex/bqltool.prom: a FIFO, not a regular file: refused"* ]]
	[ -p ex/bqltool.prom ]
	rm ex/bqltool.prom
	ln -s /dev/null ex/bqltool.prom
	bq export -t ex
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"a character device, not a regular file"* ]]
	rm ex/bqltool.prom
	ln -s /dev/stdout ex/bqltool.prom
	bq export -t ex
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"names a file descriptor"* ]]
	# a link to a regular file (new or not) is written through, as before
	rm ex/bqltool.prom
	ln -s real.prom ex/bqltool.prom
	bq export -t ex
	[ "$status" -eq 0 ]
	[ -L ex/bqltool.prom ]
	grep -q '^bql_limit_bytes' ex/real.prom
	[ "$(find ex -name '.*' | wc -l)" -eq 0 ]
}

# ------------------------------------------------ fatal signals: no temporary left

# temps: the temporaries beside the outputs (".t.csv.XXXXXX")
temps() {
	find . -maxdepth 1 -name '.t.*'
}

# wait_temps: until the command (the last background job) has opened its
# outputs: a named temporary (BQLTOOL_NO_O_TMPFILE=1, or a filesystem
# without O_TMPFILE), or an unnamed one, which /proc shows as "DIR/#INODE
# (deleted)"
wait_temps() {
	local i pid=$!
	for ((i = 0; i < 200; i++)); do
		[ -z "$(temps)" ] || return 0
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$PWD/#" && return 0
		sleep 0.05
	done
	echo "no temporary appeared"
	return 1
}

# wait_file FILE: until FILE exists (10 s at most)
wait_file() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ ! -e "$1" ] || return 0
		sleep 0.05
	done
	echo "no $1 appeared"
	return 1
}

# replay_killed SIG...: replay writing --timeline and --plot from a FIFO,
# killed by each SIG mid-input: the status says which, and no temporary or
# output is left. replay starts with SIG's default action, whatever this
# shell came in with: under nohup(1), SIGHUP comes in ignored, and bqltool
# leaves an ignored signal ignored (the next test). The caller may set
# KILLED_ENV (an array of NAME=VALUE for replay) and KILLED_WAIT (the
# command that waits for the moment to kill; wait_temps by default).
replay_killed() {
	local sig pid rc
	[ -p in ] || mkfifo in
	for sig in "$@"; do
		rm -f cue
		env --default-signal="$sig" ${KILLED_ENV[@]+"${KILLED_ENV[@]}"} \
			"$BQLTOOL" replay -q --timeline t.csv --plot t.svg - <in 3>&- &
		pid=$!
		exec 4>in
		head -n 30 r.bqlt >&4
		${KILLED_WAIT:-wait_temps}
		kill -s "$sig" "$pid"
		# the end of the input, in case the signal did not end it
		exec 4>&-
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || { echo "$sig: status $rc"; return 1; }
		[ -z "$(temps)" ] || { echo "$sig: left $(temps)"; return 1; }
		[ ! -e t.csv ] && [ ! -e t.svg ]
	done
}

@test "signals: SIGTERM or SIGHUP during replay leaves no temporary and no output" {
	# (not SIGINT: a background job starts with it ignored, and keeps it so)
	replay_killed TERM HUP
}

@test "signals: a SIGHUP that replay comes in ignored with (nohup) stays ignored: it ends with its input" {
	local pid rc=0
	mkfifo in
	env --ignore-signal=HUP "$BQLTOOL" replay -q --timeline t.csv - <in 3>&- &
	pid=$!
	exec 4>in
	head -n 30 r.bqlt >&4
	wait_temps
	kill -s HUP "$pid"
	tail -n +31 r.bqlt >&4
	exec 4>&-
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { echo "status $rc"; return 1; }
	[ -z "$(temps)" ]
	# the whole timeline, as from the file
	[ "$(grep -c . t.csv)" -gt 1 ]
	"$BQLTOOL" replay -q --timeline whole.csv r.bqlt
	cmp t.csv whole.csv
}

@test "signals: SIGTERM during sim leaves no temporary; an existing output is kept" {
	local pid rc
	echo old >t.bqlt
	"$BQLTOOL" sim -q --duration 600 --link 1G --trace t.bqlt --timeline t.csv 3>&- &
	pid=$!
	wait_temps
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ -z "$(temps)" ]
	[ "$(cat t.bqlt)" = old ]
	[ ! -e t.csv ]
}

# every signal whose default action ends a process (signal(7) Term and
# Core), as a user, timeout(1), a resource limit or the program itself sends
# it; SIGXFSZ aside (bqltool ignores it: EFBIG is reported instead), and
# SIGINT and SIGQUIT (a background job starts with them ignored)
FATAL_SIGS="USR1 USR2 ALRM VTALRM PROF XCPU IO PWR ABRT SYS SEGV BUS RTMIN RTMIN+5 RTMAX"
# a sanitizer build's runtime takes SIGSEGV and SIGBUS itself: leave them to bqltool
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0

@test "signals: every fatal signal during replay leaves no temporary, the status says which" {
	ulimit -c 0
	replay_killed $FATAL_SIGS
	# and the named temporary of a filesystem without O_TMPFILE
	local KILLED_ENV=(BQLTOOL_NO_O_TMPFILE=1)
	replay_killed $FATAL_SIGS
}

# sim_killed SIG...: sim writing --trace over an existing t.bqlt,
# --timeline and --plot, killed by each SIG: the status says which, no
# temporary or new output is left, the old trace is kept. KILLED_ENV and
# KILLED_WAIT as for replay_killed.
sim_killed() {
	local sig pid rc
	echo old >t.bqlt
	for sig in "$@"; do
		rm -f cue
		env ${KILLED_ENV[@]+"${KILLED_ENV[@]}"} "$BQLTOOL" sim -q --duration 600 --link 1G \
			--trace t.bqlt --timeline t.csv --plot t.svg 3>&- &
		pid=$!
		${KILLED_WAIT:-wait_temps}
		kill -s "$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || { echo "sim $sig: status $rc"; return 1; }
		[ -z "$(temps)" ] || { echo "sim $sig: left $(temps)"; return 1; }
		[ "$(cat t.bqlt)" = old ]
		[ ! -e t.csv ] && [ ! -e t.svg ]
	done
}

@test "signals: every fatal signal during sim leaves no temporary; an existing output is kept" {
	ulimit -c 0
	sim_killed $FATAL_SIGS
	local KILLED_ENV=(BQLTOOL_NO_O_TMPFILE=1)
	sim_killed $FATAL_SIGS
}

# issue #37 class 4: the outputs are written into unnamed files (O_TMPFILE)
# named only at commit, so even SIGKILL, which nothing can catch, leaves no
# temporary (it did: round two's R39, documented); the old trace is kept
@test "signals: SIGKILL during sim or replay leaves no temporary where the filesystem has O_TMPFILE (#37 class 4)" {
	local pid rc
	[ "$(stat -f -c %T .)" != nfs ] || skip "NFS has no O_TMPFILE"
	echo old >t.bqlt
	"$BQLTOOL" sim -q --duration 600 --link 1G --trace t.bqlt --timeline t.csv --plot t.svg 3>&- &
	pid=$!
	wait_temps
	[ -z "$(temps)" ] || { echo "a named temporary: $(temps)"; return 1; }
	kill -KILL "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 137 ]
	[ -z "$(find . -maxdepth 1 -name '.*' ! -name .)" ] || { ls -A; return 1; }
	[ "$(cat t.bqlt)" = old ]
	[ ! -e t.csv ] && [ ! -e t.svg ]
	# replay, from a FIFO
	mkfifo in
	"$BQLTOOL" replay -q --timeline t.csv --plot t.svg - <in 3>&- &
	pid=$!
	exec 4>in
	head -n 30 r.bqlt >&4
	wait_temps
	kill -KILL "$pid"
	exec 4>&-
	wait "$pid" || true
	[ -z "$(find . -maxdepth 1 -name '.*' ! -name .)" ] || { ls -A; return 1; }
	[ ! -e t.csv ] && [ ! -e t.svg ]
}

# slowtemp.so holds the creation of the .t.svg temporary (2 s): a fatal
# signal sent then must still remove it. The timeline's writer thread runs
# by then (2 CPUs and up); it used to take the signal while the main thread,
# which held it, had not yet learnt the new temporary's name, and a SIGSEGV
# sent by kill was not held at all: .t.svg.XXXXXX was left.
@test "signals: a stop while a temporary is being created, with the timeline thread running, leaves nothing" {
	local shim="$BUILD/tests/preload/slowtemp.so"
	[ -f "$shim" ] || { echo "no $shim: make tools" >&2; return 1; }
	ulimit -c 0
	# the named temporaries (mkostemp), as on a filesystem without O_TMPFILE
	local KILLED_ENV=(LD_PRELOAD="$shim" SLOWTEMP_MATCH=.t.svg. SLOWTEMP_MARK=cue
			  SLOWTEMP_MS=2000 ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"
			  BQLTOOL_NO_O_TMPFILE=1)
	local KILLED_WAIT="wait_file cue"
	# SEGV and ABRT as kill(1) sends them: not held as stops are, but the
	# main thread holds every signal while it creates a temporary
	sim_killed USR1 TERM RTMIN SEGV ABRT
	# replay, from a FIFO
	replay_killed USR1 TERM RTMIN SEGV ABRT
}

@test "signals: a CPU time limit (ulimit -t, SIGXCPU) ending sim leaves no temporary" {
	local rc=0
	ulimit -c 0
	(ulimit -S -t 1 && exec "$BQLTOOL" sim -q --duration 600 --link 1G --trace t.bqlt \
		--timeline t.csv --plot t.svg) 3>&- || rc=$?
	[ "$rc" -eq $((128 + $(kill -l XCPU))) ] || { echo "status $rc"; return 1; }
	[ -z "$(temps)" ] || { echo "left $(temps)"; return 1; }
	[ ! -e t.bqlt ] && [ ! -e t.csv ] && [ ! -e t.svg ]
}

# ------------------------------------------------ check: a device vanishing meanwhile

@test "check -i: a named device that vanishes during the interval is named as such (1)" {
	use_tree nic64
	(sleep 1; rm -rf "$ROOT/class/net/ens1f0") 3>&- &
	bq check -i 3 ens1f0
	wait
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"check: second sample, after the --interval: ens1f0: no such device"* ]]
}

@test "check -i: an unnamed device that vanishes during the interval is left out, the rest checked" {
	use_tree multi
	(sleep 1; rm -rf "$ROOT/class/net/eth1") 3>&- &
	bq -j check -i 3
	wait
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: eth1: vanished during the --interval: not checked"* ]]
	[ "$(jq '[.queues[] | select(.ifname == "eth1")] | length' <<<"$output")" -eq 0 ]
	[ "$(jq '[.queues[] | select(.ifname == "eth0")] | length' <<<"$output")" -eq 4 ]
}

# issue #37 class 2: queue names written with \xHH escapes (bqltrace(5)),
# as record writes a device's name: replay reads the very bytes back
@test "hostile trace: names with \\xHH escapes replay as the bytes they spell (#37 class 2)" {
	local t=$BATS_TEST_TMPDIR/e.bqlt
	printf '%s\n' 'bqltrace 1' 'queue \x1b[31mRED:tx-0' 'queue a\x5cx41:tx-1' 'queue old\q:tx-0' \
		'1000 \x1b[31mRED:tx-0 Q 1514' '2000 \x1B\x5b31mRED:tx-0 C 1514 limit=0' \
		'3000 a\x5cx41:tx-1 Q 10' '4000 old\q:tx-0 Q 10' >"$t"
	run --separate-stderr "$BQLTOOL" replay "$t"
	assert_success
	! LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f]' <<<"$output"
	assert_output --partial '\x1b[31mRED:tx-0'
	assert_output --partial 'a\\x41:tx-1'
	run --separate-stderr "$BQLTOOL" -j replay "$t"
	assert_success
	[ "$(jq -r '.queues[0].ifname' <<<"$output")" = $'\e[31mRED' ]
	[ "$(jq -r '.queues[0].completions' <<<"$output")" = 1 ]
	[ "$(jq -r '.queues[1].name' <<<"$output")" = 'a\x41:tx-1' ]
	[ "$(jq -r '.queues[2].name' <<<"$output")" = 'old\q:tx-0' ]
	# a NUL is refused, naming the line
	printf 'bqltrace 1\nqueue a\\x00:tx-0\n' >"$t"
	run --separate-stderr "$BQLTOOL" replay "$t"
	assert_failure 1
	assert_regex "$stderr" 'e\.bqlt:2: queue: name .*: a NUL byte \(escape 00\) cannot be in a name$'
}
