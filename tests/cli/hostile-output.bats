#!/usr/bin/env bats
# Hostile input against every printer (issue #10, classes 4-6): device
# names, sysfs contents, profile keys and trace queue names holding ESC, C1
# controls (U+009B), invalid UTF-8, direction overrides; what reaches the
# terminal is escaped and JSON stays valid. Plus bounded memory and output
# (profiles, plots, JSON under a memory limit, intervals) and profiles that
# say exactly what is wrong (duplicate keys, numbers as written).
bats_require_minimum_version 1.5.0
load helpers

P="$DATA/profiles"

# The names and how text output spells them.
N_ESC=$'e\e[2Jx'	T_ESC='e\x1b[2Jx'
N_C1=$'c\xc2\x9b31m'	T_C1='c\u009b31m'
N_BAD=$'b\xff\xfed'	T_BAD='b\xff\xfed'
N_BIDI=$'r\xe2\x80\xaeo'	T_BIDI='r\u202eo'
N_OSC=$'t\a\e]0;x\a'	T_OSC='t\x07\x1b]0;x\x07'
N_BS='a\b'		T_BS='a\\b'

# hostile_tree NAME: nic1 with its BQL device eth0 renamed to NAME
hostile_tree() {
	use_tree nic1
	mv "$ROOT/class/net/eth0" "$ROOT/class/net/$1"
}

# clean TEXT: no raw control character but newline, no C1 or direction
# character, valid UTF-8
clean() {
	if LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbb\xbf|\xd8\x9c' <<<"$1"; then
		echo "raw control characters in:" >&2
		od -c <<<"$1" | head -20 >&2
		return 1
	fi
	if ! iconv -f UTF-8 -t UTF-8 <<<"$1" >/dev/null 2>&1; then
		echo "invalid UTF-8 in: $1" >&2
		return 1
	fi
}

# json_strict TEXT: clean, and one JSON document (or JSON lines) jq accepts
json_strict() {
	clean "$1" && jq -e . >/dev/null <<<"$1"
}

# both_clean: stdout and stderr of the last run
both_clean() {
	clean "$output" && clean "$stderr"
}

# ---------------------------------------------------------------- show

@test "hostile names: show escapes ESC in the device name" {
	hostile_tree "$N_ESC"
	bq show
	assert_success
	both_clean
	assert_output --partial "$T_ESC: ifindex 2"
}

@test "hostile names: show escapes a C1 CSI (U+009B)" {
	hostile_tree "$N_C1"
	bq show
	assert_success
	both_clean
	assert_output --partial "$T_C1: ifindex 2"
}

@test "hostile names: show escapes invalid UTF-8" {
	hostile_tree "$N_BAD"
	bq show
	assert_success
	both_clean
	assert_output --partial "$T_BAD: ifindex 2"
}

@test "hostile names: show escapes a right-to-left override" {
	hostile_tree "$N_BIDI"
	bq show
	assert_success
	both_clean
	assert_output --partial "$T_BIDI: ifindex 2"
}

@test "hostile names: show escapes BEL and an OSC title sequence" {
	hostile_tree "$N_OSC"
	bq show
	assert_success
	both_clean
	assert_output --partial "$T_OSC: ifindex 2"
}

@test "hostile names: a backslash is doubled so escapes stay unambiguous" {
	hostile_tree "$N_BS"
	bq show
	assert_success
	assert_output --partial "$T_BS: ifindex 2"
}

@test "hostile names: show with --color keeps its colours and escapes the name" {
	hostile_tree "$N_ESC"
	bq --color=always show
	assert_success
	assert_output --partial $'\e[1m'"$T_ESC"$'\e[0m:'
	[[ "$output" != *$'\e[2J'* ]]
}

@test "hostile names: show -j is valid JSON, ESC as \\u001b" {
	hostile_tree "$N_ESC"
	bq -j show
	assert_success
	json_strict "$output"
	[ "$(jq -r '.[0].ifname' <<<"$output")" = "$N_ESC" ]
	assert_output --partial '"ifname":"e\u001b[2Jx"'
}

@test "hostile names: show -j escapes C1 as \\u009b" {
	hostile_tree "$N_C1"
	bq -j show
	assert_success
	json_strict "$output"
	assert_output --partial '"ifname":"c\u009b31m"'
	[ "$(jq -r '.[0].ifname' <<<"$output")" = "$N_C1" ]
}

@test "hostile names: show -j turns each invalid byte 0xHH into U+EFHH, one per byte" {
	hostile_tree "$N_BAD"
	bq -j show
	assert_success
	json_strict "$output"
	assert_output --partial '"ifname":"b\uefff\ueffed"'
}

@test "hostile names: show -p (pretty) is valid JSON too" {
	hostile_tree "$N_BIDI"
	bq -p show
	assert_success
	json_strict "$output"
	assert_output --partial '"ifname": "r\u202eo"'
}

@test "hostile names: show --format prometheus keeps label values valid" {
	hostile_tree "$N_ESC"
	bq show --format prometheus
	assert_success
	both_clean
	assert_output --partial 'bql_limit_bytes{device="e\\x1b[2Jx",queue="tx-0"} 3028'
}

@test "hostile names: prometheus labels with C1 and invalid UTF-8" {
	for n in "$N_C1" "$N_BAD"; do
		hostile_tree "$n"
		bq show --format prometheus
		assert_success
		both_clean
	done
	assert_output --partial 'device="b\\xff\\xfed"'
}

@test "hostile names: a quote and a backslash in a prometheus label" {
	hostile_tree 'q"u\o'
	bq show --format prometheus
	assert_success
	assert_output --partial 'device="q\"u\\o"'
}

@test "hostile names: export --textfile writes valid escaped labels" {
	hostile_tree "$N_C1"
	mkdir "$BATS_TEST_TMPDIR/tf"
	bq export --textfile "$BATS_TEST_TMPDIR/tf"
	assert_success
	body=$(cat "$BATS_TEST_TMPDIR"/tf/*.prom)
	clean "$body"
	[[ "$body" == *'device="c\\u009b31m"'* ]]
}

@test "hostile names: an error naming the device is escaped" {
	hostile_tree "$N_C1"
	bq show "$N_C1:9"
	assert_failure 1
	assert_output ""
	clean "$stderr"
	assert_regex "$stderr" "^bqltool: show: c\\\\u009b31m: no TX queue 9"
}

@test "hostile names: a selector that is not a device name is quoted escaped" {
	use_tree nic1
	bq show $'x\n\e[2Jy'
	assert_failure
	clean "$stderr"
	assert_regex "$stderr" "x\\\\n\\\\x1b\\[2Jy"
}

@test "hostile names: a name with a newline is skipped, never printed raw" {
	hostile_tree $'n\nl'
	bq show
	both_clean
	bq -j show
	json_strict "$output"
}

@test "hostile names: show by an exact hostile name selects the device" {
	hostile_tree "$N_C1"
	bq show "$N_C1"
	assert_success
	both_clean
	assert_output --partial "$T_C1: ifindex 2"
}

@test "hostile names: a glob selecting a hostile name" {
	hostile_tree "$N_BAD"
	bq -j show 'b*'
	assert_success
	json_strict "$output"
	[ "$(jq length <<<"$output")" = 1 ]
}

# ---------------------------------------------------------------- check

@test "hostile names: check escapes the device name and keeps alignment" {
	hostile_tree "$N_ESC"
	bq check
	both_clean
	assert_output --partial "$T_ESC:tx-0  ok"
}

@test "hostile names: check with C1 and invalid UTF-8" {
	for n in "$N_C1" "$N_BAD" "$N_BIDI" "$N_OSC"; do
		hostile_tree "$n"
		bq check
		both_clean
	done
}

@test "hostile names: check -j is valid JSON" {
	for n in "$N_ESC" "$N_C1" "$N_BAD" "$N_BIDI" "$N_OSC"; do
		hostile_tree "$n"
		bq -j check
		json_strict "$output"
		clean "$stderr"
	done
}

@test "hostile names: check --color escapes and colours" {
	hostile_tree "$N_OSC"
	bq --color=always check
	[[ "$output" == *$'\e[32mok\e[0m'* ]]
	[[ "$output" != *$'\a'* ]]
	assert_output --partial "$T_OSC"
}

# ---------------------------------------------------------------- top -b

@test "hostile names: top -b text escapes names" {
	for n in "$N_ESC" "$N_C1" "$N_BAD" "$N_BIDI"; do
		hostile_tree "$n"
		bq top -b -c 1
		assert_success
		both_clean
	done
	assert_output --partial "$T_BIDI"
}

@test "hostile names: top -b -j lines are valid JSON" {
	for n in "$N_ESC" "$N_C1" "$N_BAD" "$N_OSC"; do
		hostile_tree "$n"
		bq -j top -b -c 2 -d 0.05
		assert_success
		json_strict "$output"
		[ "${#lines[@]}" = 2 ]
	done
	assert_output --partial '"ifname":"t\u0007\u001b]0;x\u0007"'
}

@test "hostile names: a device appearing during top -b is escaped in its event" {
	use_tree nic1
	(
		sleep 0.3
		cp -a "$ROOT/class/net/eth0" "$ROOT/class/net/$N_ESC"
	) &
	bq top -b -c 20 -d 0.1
	wait
	assert_success
	both_clean
	assert_output --partial "event: $T_ESC:"
}

# ---------------------------------------------------------------- set / reset

@test "hostile names: set --dry-run lines are escaped" {
	for n in "$N_ESC" "$N_C1" "$N_BAD"; do
		hostile_tree "$n"
		bq set "$n" limit_max=64K --dry-run
		assert_success
		both_clean
	done
	assert_output --partial "$T_BAD:tx-0 limit_max: max -> 64.0 KiB"
}

@test "hostile names: set writes and prints escaped lines" {
	hostile_tree "$N_C1"
	bq set "$N_C1" limit_max=64K
	assert_success
	both_clean
	[ "$(cat "$ROOT/class/net/$N_C1/queues/tx-0/byte_queue_limits/limit_max")" = 65536 ]
}

@test "hostile names: set -j is valid JSON" {
	hostile_tree "$N_BAD"
	bq -j set "$N_BAD" limit_max=64K --dry-run
	assert_success
	json_strict "$output"
}

@test "hostile names: reset --dry-run escapes" {
	hostile_tree "$N_OSC"
	bq reset "$N_OSC" --dry-run
	assert_success
	both_clean
}

# issue #37 class 1: the lines that bypassed cmd_*() printed names raw
@test "hostile names: set's refusal of what check fails names the queue escaped (#37 class 1)" {
	hostile_tree "$N_OSC"
	bq set "$N_OSC" limit_min=100000 limit_max=1000
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" "set: $(sed 's/[][\\.]/\\&/g' <<<"$T_OSC"):tx-0: limit_min .* is refused"
}

@test "hostile path: apply --check of a profile whose name holds controls says it matches, escaped (#37 class 1)" {
	use_tree nic1
	local p="$BATS_TEST_TMPDIR/"$'\e]0;PWN\a.json'
	bq save -o "$p"
	assert_success
	bq apply --check "$p"
	assert_success
	clean "$stderr"
	assert_regex "$stderr" 'the live state matches .*\\x1b\]0;PWN\\x07\.json: every value in place'
}

@test "hostile values: a bad set value is quoted escaped" {
	use_tree nic1
	bq set eth0 $'limit_max=1\e[2J'
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" "1\\\\x1b\\[2J"
}

@test "hostile values: an unknown set key is quoted escaped" {
	use_tree nic1
	bq set eth0 $'lim\xc2\x9bit=1'
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" 'lim\\u009bit'
}

# ---------------------------------------------------------------- sysfs contents

@test "hostile sysfs: a garbage limit with controls is quoted escaped" {
	use_tree nic1
	printf '12\e[2J\xc2\x9b\xff' >"$ROOT/class/net/eth0/queues/tx-0/byte_queue_limits/limit"
	for cmd in show check save "top -b -c 1"; do
		bq $cmd
		assert_failure 1
		assert_output ""
		clean "$stderr"
		assert_regex "$stderr" "limit: invalid value '12\\\\x1b\\[2J\\\\u009b\\\\xff'"
	done
}

@test "hostile sysfs: -j with a garbage value prints no JSON and a clean error" {
	use_tree nic1
	printf '\e]0;owned\a' >"$ROOT/class/net/eth0/queues/tx-0/byte_queue_limits/limit_max"
	bq -j show
	assert_failure 1
	assert_output ""
	clean "$stderr"
}

@test "hostile sysfs: an operstate with an escape sequence" {
	use_tree nic1
	printf 'u\e[31mp\n' >"$ROOT/class/net/eth0/operstate"
	bq show
	assert_success
	both_clean
	assert_output --partial 'state u\x1b[31mp'
	bq -j show
	json_strict "$output"
}

@test "hostile sysfs: a qdisc-like text field in JSON and text" {
	use_tree nic1
	printf 'do\xffwn\n' >"$ROOT/class/net/eth0/operstate"
	bq show
	both_clean
	bq -j show
	json_strict "$output"
	[ "$(jq -r '.[0].operstate' <<<"$output")" = $'do\xee\xbf\xbfwn' ]
}

@test "hostile sysfs: a speed of u64 max is unknown, not clamped" {
	use_tree nic1
	echo 18446744073709551615 >"$ROOT/class/net/eth0/speed"
	bq show
	assert_success
	refute_output --partial "speed"
	refute_output --partial "9223372036854775807"
	bq -j show
	[ "$(jq '.[0] | has("speed")' <<<"$output")" = false ]
}

@test "hostile sysfs: speeds the kernel cannot print are unknown" {
	use_tree nic1
	for s in 4294967295 2147483648 99999999999999999999999 -1 0 1e3; do
		echo "$s" >"$ROOT/class/net/eth0/speed"
		bq show
		assert_success
		refute_output --partial "speed"
	done
	echo 2147483647 >"$ROOT/class/net/eth0/speed"
	bq show
	assert_output --partial "speed 2147483647Mb/s"
}

# ---------------------------------------------------------------- save / apply

@test "hostile names: save to stdout is valid, escaped JSON" {
	for n in "$N_ESC" "$N_C1" "$N_BIDI" "$N_OSC"; do
		hostile_tree "$n"
		bq save
		assert_success
		json_strict "$output"
	done
	assert_output --partial '"t\u0007\u001b]0;x\u0007": {'
}

@test "hostile names: save refuses a named device whose name is not UTF-8 (JSON cannot hold it)" {
	hostile_tree "$N_BAD"
	bq save "$N_BAD"
	assert_failure 1
	assert_output ""
	clean "$stderr"
	assert_regex "$stderr" "^bqltool: save: b\\\\xff\\\\xfed: the device name is not valid UTF-8"
	bq save -o "$BATS_TEST_TMPDIR/p.json" "$N_BAD"
	assert_failure 1
	[ ! -e "$BATS_TEST_TMPDIR/p.json" ]
}

# issue #37 (questionable, decided): a whole-namespace save failed for one
# device whose name is not UTF-8; it is left out with a warning, the rest saved
@test "hostile names: save of every device leaves out one whose name is not UTF-8, with a warning" {
	use_tree multi
	mv "$ROOT/class/net/eth1" "$ROOT/class/net/$N_BAD"
	for sel in "" "*"; do
		# shellcheck disable=SC2086
		bq save -o "$BATS_TEST_TMPDIR/p.json" ${sel:+"$sel"}
		assert_success
		clean "$stderr"
		assert_regex "$stderr" "^bqltool: warning: b\\\\xff\\\\xfed: the device name is not valid UTF-8, which a JSON profile cannot hold: left out"
		[ "$(jq -r '.devices | keys | join(" ")' "$BATS_TEST_TMPDIR/p.json")" = "eth0 wlan0" ]
	done
}

@test "hostile names: save then apply round-trips an ESC/C1 name" {
	for n in "$N_ESC" "$N_C1" "$N_BIDI"; do
		hostile_tree "$n"
		bq save -o "$BATS_TEST_TMPDIR/p.json"
		assert_success
		clean "$(cat "$BATS_TEST_TMPDIR/p.json")"
		bq apply --check "$BATS_TEST_TMPDIR/p.json"
		assert_success
		both_clean
	done
}

@test "hostile names: apply --check differences name the device escaped" {
	hostile_tree "$N_C1"
	printf '{"bqltool_profile":1,"devices":{"c\\u009b31m":{"all":{"limit_max":1000}}}}' \
		>"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	both_clean
	assert_output --partial "$T_C1:tx-0 limit_max: max, profile 1000"
}

@test "hostile profile: an unknown key with controls is quoted escaped" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"\\u001b[2J":1}}}}' \
		>"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" 'devices.eth0.all.\\x1b\[2J: unknown key'
}

@test "hostile profile: a device key with controls is quoted escaped" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"e\\u009bx\\u001b":{"all":{}}}}' \
		>"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure
	clean "$stderr"
	assert_regex "$stderr" 'e\\u009bx\\x1b'
}

@test "hostile profile: a profile that is not UTF-8 is refused at the byte" {
	use_tree nic1
	printf '{"bqltool_profile":1,\n"kernel":"k\xff","devices":{}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" 'p.json: line 2, column 12: byte 0xff is not UTF-8'
}

@test "hostile profile: a lone surrogate escape in a device name reads as U+FFFD" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"e\\udc00":{"all":{}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure 1
	clean "$stderr"
	assert_regex "$stderr" $'devices\\["e\xef\xbf\xbd"\\]: no such device'
}

@test "hostile path: a profile path with controls is quoted escaped" {
	use_tree nic1
	bq apply "$BATS_TEST_TMPDIR/"$'\e[2Jnone.json'
	assert_failure
	clean "$stderr"
	assert_regex "$stderr" '\\x1b\[2Jnone.json: cannot open'
}

# ---------------------------------------------------------------- replay

hostile_trace() {
	T="$BATS_TEST_TMPDIR/h.bqlt"
	printf 'bqltrace 1\nqueue c\xc2\x9b31m\nqueue b\xff\xfe\nqueue r\xe2\x80\xaeo\n1000 c\xc2\x9b31m Q 1514\n2000 c\xc2\x9b31m C 1514 limit=1514\n3000 b\xff\xfe Q 100\n3500 b\xff\xfe C 100\n4000 r\xe2\x80\xaeo Q 10\n' >"$T"
}

@test "hostile trace: replay summary escapes C1, invalid UTF-8, RLO" {
	hostile_trace
	bqx replay "$T"
	assert_success
	both_clean
	assert_output --partial 'c\u009b31m'
	assert_output --partial 'b\xff\xfe'
	assert_output --partial 'r\u202eo'
}

@test "hostile trace: replay -j is valid JSON" {
	hostile_trace
	bqx -j replay "$T"
	assert_success
	json_strict "$output"
	[ "$(jq -r '.queues[0].name' <<<"$output")" = "$N_C1" ]
	[ "$(jq -r '.queues[1].name' <<<"$output")" = $'b\xee\xbf\xbf\xee\xbf\xbe' ]
}

@test "hostile trace: -j replay keeps names that differ only in invalid bytes apart" {
	T="$BATS_TEST_TMPDIR/two.bqlt"
	printf 'bqltrace 1\nqueue b\xff\nqueue b\xfe\n1000 b\xff Q 100\n1500 b\xff C 100\n2000 b\xfe Q 200\n2500 b\xfe C 200\n' >"$T"
	bqx -j replay "$T"
	assert_success
	json_strict "$output"
	[ "$(jq '[.queues[].name] | unique | length' <<<"$output")" = 2 ]
	assert_output --partial '"b\uefff"'
	assert_output --partial '"b\ueffe"'
}

@test "hostile trace: replay --timeline JSONL lines are valid JSON" {
	hostile_trace
	bqx replay --all-events --timeline "$BATS_TEST_TMPDIR/t.jsonl" "$T"
	assert_success
	body=$(cat "$BATS_TEST_TMPDIR/t.jsonl")
	json_strict "$body"
	[ "$(jq -s length <<<"$body")" = 5 ]
	[[ "$body" == *'"queue":"c\u009b31m"'* ]]
	[[ "$body" == *'"queue":"b\uefff\ueffe"'* ]]
}

@test "hostile trace: replay --timeline CSV is valid UTF-8 and escaped" {
	hostile_trace
	bqx replay --all-events --timeline "$BATS_TEST_TMPDIR/t.csv" "$T"
	assert_success
	body=$(cat "$BATS_TEST_TMPDIR/t.csv")
	clean "$body"
	[[ "$body" == *'2000,c\u009b31m,C,1514'* ]]
}

@test "hostile trace: replay --plot is well-formed XML with escaped names" {
	hostile_trace
	bqx replay --plot "$BATS_TEST_TMPDIR/p.svg" "$T"
	assert_success
	xmllint --noout "$BATS_TEST_TMPDIR/p.svg"
	clean "$(cat "$BATS_TEST_TMPDIR/p.svg")"
	grep -q 'data-name="c\\u009b31m limit"' "$BATS_TEST_TMPDIR/p.svg"
	# the panels' titles are the names in their printed form
	grep -q '>c\\u009b31m</text>' "$BATS_TEST_TMPDIR/p.svg"
	grep -q '>b\\xff\\xfe</text>' "$BATS_TEST_TMPDIR/p.svg"
}

@test "hostile trace: a verify mismatch names the queue escaped" {
	T="$BATS_TEST_TMPDIR/m.bqlt"
	printf 'bqltrace 1\nqueue c\xc2\x9b\n1000 c\xc2\x9b Q 1514\n2000 c\xc2\x9b C 1514 limit=7\n' >"$T"
	bqx replay --verify "$T"
	assert_failure 3
	clean "$stderr"
	assert_regex "$stderr" 'queue c\\u009b: limit observed 7'
}

@test "hostile trace: parse errors quote the name escaped" {
	T="$BATS_TEST_TMPDIR/e.bqlt"
	printf 'bqltrace 1\nqueue c\xc2\x9b\nqueue c\xc2\x9b\n' >"$T"
	bqx replay "$T"
	assert_failure
	clean "$stderr"
	assert_regex "$stderr" 'queue c\\u009b: declared twice'
	printf 'bqltrace 1\nqueue a\n1 z\xff\xc2\x85 Q 1\n' >"$T"
	bqx replay "$T"
	assert_failure
	clean "$stderr"
	assert_regex "$stderr" "queue 'z\\\\xff\\\\u0085' is not declared"
}

@test "hostile trace: a trace path with controls is quoted escaped" {
	hostile_trace
	cp "$T" "$BATS_TEST_TMPDIR/"$'\e]0;t\a.bqlt'
	bqx replay "$BATS_TEST_TMPDIR/"$'\e]0;t\a.bqlt'
	assert_success
	both_clean
	bqx replay "$BATS_TEST_TMPDIR/"$'\e[2Jmissing'
	assert_failure
	clean "$stderr"
}

# ---------------------------------------------------------------- arguments

@test "hostile args: an unknown command is quoted escaped" {
	bqx $'sh\e[2Jow'
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" "unknown command 'sh\\\\x1b\\[2Jow'"
}

@test "hostile args: an unknown option is quoted escaped" {
	use_tree nic1
	bq show $'--\xc2\x9bx'
	assert_failure 2
	clean "$stderr"
}

@test "hostile args: an unknown --format is quoted escaped" {
	use_tree nic1
	bq show --format $'t\e[5mext'
	assert_failure 2
	clean "$stderr"
	assert_regex "$stderr" "unknown format 't\\\\x1b\\[5mext'"
}

@test "hostile args: help for an unknown command is quoted escaped" {
	bqx help $'x\xff\e'
	assert_failure
	clean "$stderr"
}

@test "hostile args: --sysfs-root with controls in an error" {
	bqx --sysfs-root "$BATS_TEST_TMPDIR/"$'\e[2Jno' show
	assert_failure
	clean "$stderr"
}

@test "hostile args: -v notes are escaped too" {
	hostile_tree "$N_C1"
	bq -v show
	assert_success
	both_clean
}

# ---------------------------------------------------------------- class 5: bounded

@test "bounded: a profile over 16 MiB is refused before it is read, naming the cap" {
	use_tree nic1
	truncate -s 100M "$BATS_TEST_TMPDIR/big.json"
	bq apply "$BATS_TEST_TMPDIR/big.json"
	[[ $status == 1 || $status == 2 ]]
	assert_output ""
	assert_regex "$stderr" "big.json: 104857600 bytes, larger than the 16 MiB a profile may have"
}

@test "bounded: a profile over 16 MiB on stdin is refused, naming the cap" {
	use_tree nic1
	run --separate-stderr bash -c "head -c 20000000 /dev/zero | tr '\\0' ' ' | timeout 10 '$BQLTOOL' --sysfs-root '$ROOT' apply -"
	[[ $status == 1 || $status == 2 ]]
	assert_regex "$stderr" "standard input: larger than the 16 MiB a profile may have"
}

@test "bounded: 65536 queue entries parse (a linear duplicate check)" {
	use_tree nic1
	awk 'BEGIN { printf "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"queues\":[";
		for (i = 65535; i >= 0; i--) printf "%s{\"queue\":%d,\"limit_max\":65536}", i < 65535 ? "," : "", i;
		print "]}}}" }' >"$BATS_TEST_TMPDIR/q.json"
	bq apply --check --missing=skip "$BATS_TEST_TMPDIR/q.json"
	assert_failure 1	# tx-0 differs; tx-1.. are absent
	assert_line --partial "eth0:tx-65535: not present"
	assert_line --partial "eth0:tx-0 limit_max: max, profile 64.0 KiB"
}

@test "bounded: the same queue twice among 65536 entries is named with both places" {
	use_tree nic1
	awk 'BEGIN { printf "{\"bqltool_profile\":1,\"devices\":{\"eth0\":{\"queues\":[";
		for (i = 0; i < 65536; i++) printf "%s{\"queue\":%d}", i ? "," : "", i == 65535 ? 3 : i;
		print "]}}}" }' >"$BATS_TEST_TMPDIR/q.json"
	bq apply --check "$BATS_TEST_TMPDIR/q.json"
	assert_failure 2
	assert_regex "$stderr" 'devices.eth0.queues\[65535\]: queue 3 is also at devices.eth0.queues\[3\]'
}

@test "bounded: top -d beyond one day is refused (it overflowed)" {
	use_tree nic1
	for d in 18446744073 86401 99999999999999999999; do
		bq top -b -c 1 -d "$d"
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" "^bqltool: top: -d: invalid value '$d': too large"
	done
	bq top -b -c 1 -d 18446744073
	assert_regex "$stderr" "at most 86400 s"
}

@test "bounded: check --interval beyond the cap is refused" {
	use_tree nic1
	bq check --interval 18446744073
	assert_failure 2
	# the option's own cap (an hour), not the unit parser's day
	assert_regex "$stderr" "'18446744073' out of range \\(0 < SEC <= 3600\\)"
}

# a trace with N queues, each with some records; queue 3 and N-1 busiest
many_queue_trace() {
	T="$BATS_TEST_TMPDIR/many.bqlt"
	awk -v n="$1" 'BEGIN { print "bqltrace 1"; for (i = 0; i < n; i++) print "queue q" i;
		t = 1000; for (i = 0; i < n; i++) { r = (i == 3 || i == n - 1) ? 20 : 1;
		for (k = 0; k < r; k++) { t += 10; print t, "q" i, "Q 1514"; t += 10; print t, "q" i, "C 1514" } } }' >"$T"
}

@test "bounded: replay --plot of 2000 queues draws 8 busiest and the total, and says so" {
	many_queue_trace 2000
	bqx replay --plot "$BATS_TEST_TMPDIR/p.svg" "$T"
	assert_success
	xmllint --noout "$BATS_TEST_TMPDIR/p.svg"
	# 8 queues: a limit line and an inflight band each; the total's band
	[ "$(grep -c '<polyline class="series"' "$BATS_TEST_TMPDIR/p.svg")" = 8 ]
	[ "$(grep -c '<path class="band"' "$BATS_TEST_TMPDIR/p.svg")" = 9 ]
	grep -q 'data-name="total inflight"' "$BATS_TEST_TMPDIR/p.svg"
	grep -q 'data-name="q3 limit"' "$BATS_TEST_TMPDIR/p.svg"
	grep -q 'the 8 busiest of 2000 queues (of the first 64 declared), and the total' "$BATS_TEST_TMPDIR/p.svg"
	assert_regex "$stderr" "--plot: 2000 queues: drawing the 8 busiest of the first 64 declared"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/p.svg")" -lt 400000 ]
}

@test "bounded: replay --plot of 8 queues or fewer draws them all, no total" {
	many_queue_trace 8
	bqx replay --plot "$BATS_TEST_TMPDIR/p.svg" "$T"
	assert_success
	[ "$(grep -c '<polyline class="series"' "$BATS_TEST_TMPDIR/p.svg")" = 8 ]
	[ "$(grep -c '<path class="band"' "$BATS_TEST_TMPDIR/p.svg")" = 8 ]
	! grep -q 'total inflight' "$BATS_TEST_TMPDIR/p.svg"
	assert_equal "$stderr" ""
}

@test "bounded: replay --plot of 12 queues keeps the busiest two among them" {
	many_queue_trace 12
	bqx replay --plot "$BATS_TEST_TMPDIR/p.svg" "$T"
	assert_success
	grep -q 'data-name="q3 limit"' "$BATS_TEST_TMPDIR/p.svg"
	grep -q 'data-name="q11 limit"' "$BATS_TEST_TMPDIR/p.svg"
	grep -q 'the 8 busiest of 12 queues, and the total' "$BATS_TEST_TMPDIR/p.svg"
}

@test "bounded: replay -j of 20000 queues streams in flat memory, the same document" {
	[[ "${BUILD:-}" != *san* ]] || skip "address space limits do not apply under ASan"
	many_queue_trace 20000
	# a json-c tree of it needed more than this; the streamed document does not
	run --separate-stderr bash -c "ulimit -v 70000; '$BQLTOOL' -j replay '$T' >'$BATS_TEST_TMPDIR/o.json'"
	assert_success
	"$BQLTOOL" -j replay "$T" >"$BATS_TEST_TMPDIR/free.json"
	cmp "$BATS_TEST_TMPDIR/o.json" "$BATS_TEST_TMPDIR/free.json"
	n=$(jq '.queues | length' "$BATS_TEST_TMPDIR/o.json")
	[ "$n" = 20000 ]
	[ "$(jq -r '.queues[19999].name' "$BATS_TEST_TMPDIR/o.json")" = q19999 ]
}

# ---------------------------------------------------------------- class 6: exact

@test "exact: a duplicate setting in a profile is refused, naming both places" {
	use_tree nic1
	printf '{"bqltool_profile":1,\n "devices":{"eth0":{"all":{"limit_max":1000,\n  "limit_max":2000}}}}\n' >"$BATS_TEST_TMPDIR/p.json"
	for mode in "" --check --dry-run; do
		bq apply $mode "$BATS_TEST_TMPDIR/p.json"
		assert_failure 2
		assert_output ""
		assert_regex "$stderr" 'p.json: devices.eth0.all: duplicate key "limit_max" at line 3, column 3 \(first at line 2, column 28\)'
	done
}

@test "exact: a duplicate device in a profile is refused" {
	use_tree nic1
	before=$(tree_digest)
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"limit_max":1000}},"eth0":{"all":{"limit_max":3000}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'devices: duplicate key "eth0" at line 1, column 67 \(first at line 1, column 33\)'
	[ "$(tree_digest)" = "$before" ]
}

@test "exact: a duplicate spelled with \\u escapes is still a duplicate" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{}},"\\u0065th0":{"all":{}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'devices: duplicate key "eth0"'
}

@test "exact: a duplicate queue key, top-level key and queues key" {
	use_tree nic1
	local -a cases=(
		'{"bqltool_profile":1,"devices":{"eth0":{"queues":[{"queue":0,"queue":1}]}}}|devices.eth0.queues\[0\]: duplicate key "queue"'
		'{"bqltool_profile":1,"bqltool_profile":1,"devices":{}}|^bqltool: apply: .*p.json: duplicate key "bqltool_profile"'
		'{"bqltool_profile":1,"devices":{"eth0":{"queues":[],"queues":[]}}}|devices.eth0: duplicate key "queues"'
		'{"bqltool_profile":1,"devices":{},"devices":{"eth0":{"all":{}}}}|duplicate key "devices"'
		'{"bqltool_profile":1,"hz":250,"hz":100,"devices":{}}|duplicate key "hz"'
	)
	for c in "${cases[@]}"; do
		printf '%s' "${c%%|*}" >"$BATS_TEST_TMPDIR/p.json"
		bq apply --check "$BATS_TEST_TMPDIR/p.json"
		assert_failure 2
		assert_regex "$stderr" "${c#*|}"
	done
}

@test "exact: a value beyond 64 bits is quoted as written, not as 18446744073709551615" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"limit_max":99999999999999999999}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'devices.eth0.all.limit_max: 99999999999999999999 at line 1, column 60 is out of range'
	refute_regex "$stderr" '18446744073709551615 bytes'
}

@test "exact: 2^64 and a huge negative are quoted as written" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"hold_time":18446744073709551616}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'hold_time: 18446744073709551616 at'
	printf '{"bqltool_profile":1,"devices":{"eth0":{"queues":[{"queue":-99999999999999999999}]}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'queue: -99999999999999999999 at line 1'
}

@test "exact: a 400-digit number is cut in the message, not the terminal" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"limit_max":%s}}}}' "$(printf '9%.0s' {1..400})" >"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" 'limit_max: 9{40}\.\.\. at line 1'
	[ "${#stderr}" -lt 400 ]
}

@test "exact: the largest value that fits is reported as the kernel range error" {
	use_tree nic1
	printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{"limit_max":18446744073709551615}}}}' >"$BATS_TEST_TMPDIR/p.json"
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_failure 2
	assert_regex "$stderr" "limit_max: 18446744073709551615 bytes is above the kernel's maximum"
}

@test "exact: equal keys in different objects are fine" {
	use_tree multi
	bq save -o "$BATS_TEST_TMPDIR/p.json"
	assert_success
	bq apply --check "$BATS_TEST_TMPDIR/p.json"
	assert_success
}
