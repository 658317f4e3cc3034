#!/usr/bin/env bats
# The fleet view end to end: bqltool exports a namespace of our own (ifb
# devices with BQL settings written by the test, traffic sent into them
# with AF_PACKET), the host (read only) and a fake sysfs tree with stalls
# (a "second host"); two real node_exporters serve the files on 127.0.0.1;
# a real Prometheus on 127.0.0.1 scrapes both with contrib/prometheus's
# rules loaded. Then every recording rule, every alert expression and every
# query of contrib/grafana's dashboard (its variables substituted) goes
# through Prometheus' HTTP API and must return what the test set up.
# Every process is stopped and the namespace removed at the end, also on
# failure (teardown_file).
bats_require_minimum_version 1.5.0
load netns

NODE_EXPORTER=prometheus-node-exporter	# Debian's name for node_exporter
# Frames of 65000 bytes per busy device: 130 MB. rate(x[5m]) extrapolates
# the increase it sees and divides by the 300 s of the range, so with a
# sample from before the traffic still in the range (the test takes far less
# than 5 minutes) it is at least 130 MB / 300 s = 433 kB/s, above the rules'
# busy threshold of 125000 B/s however the samples fall: no timing involved.
BUSY_FRAMES=2000

setup_file() {
	export REPO RULES DASH F
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	RULES=$REPO/contrib/prometheus/bqltool.rules.yml
	DASH=$REPO/contrib/grafana/bqltool-dashboard.json
	F=$BATS_FILE_TMPDIR
	netns_create fleet || return 0
	local t
	for t in "promtool prometheus" "prometheus prometheus" "$NODE_EXPORTER prometheus-node-exporter" \
		"curl curl" "jq jq" "python3 python3"; do
		set -- $t
		command -v "$1" >/dev/null 2>&1 || { echo "$1 not installed (Debian package $2)" > "$F/missing"; return 0; }
	done
	# no IPv6 chatter: the qdisc counters count only the test's frames
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
	fleet_devices
	fake_tree
	mkdir "$F/tf-a" "$F/tf-b"
	fleet_export
	start_node_exporter a "$F/tf-a"
	start_node_exporter b "$F/tf-b"
	start_prometheus
	# the first samples, before any traffic
	wait_for "first scrape of both node_exporters" 60 \
		has_value "count(up{job=\"node\"} == 1)" 2
	wait_for "the namespace's series in Prometheus" 30 \
		has_value "count(bql_limit_bytes{netns=\"$NS\"})" 8
	wait_for "the fake host's stall count 3" 30 \
		has_value "bql_stall_events_total{instance=\"$INST_B\",queue=\"tx-0\"}" 3
	fleet_traffic
	# the fake host counts two more stalls, and its export is left stale
	echo 5 > "$F/sysfs/class/net/st0/queues/tx-0/byte_queue_limits/stall_cnt"
	fleet_export
	touch -d '-2 hours' "$F/tf-b/bqltool.prom"
	wait_for "the namespace's traffic in Prometheus" 30 \
		has_value "count(bql_qdisc_sent_bytes_total{netns=\"$NS\"} >= 130000000)" 3
	wait_for "the tbf's drops in Prometheus" 30 \
		has_value "bql_qdisc_drops_total{netns=\"$NS\",device=\"drop0\"}" 996
	wait_for "the fake host's stall count 5" 30 \
		has_value "bql_stall_events_total{instance=\"$INST_B\",queue=\"tx-0\"}" 5
	wait_for "the fake host's file 2 hours old" 30 \
		has_value "count(time() - node_textfile_mtime_seconds{instance=\"$INST_B\"} > 7000)" 1
	wait_for "the recording rules over the new samples" 30 \
		has_value "count(queue:bql_busy:rate5m{netns=\"$NS\"})" 3
	touch "$F/ready"
}

teardown_file() {
	local p pid
	for p in prometheus ne-b ne-a; do
		[ -f "$F/$p.pid" ] || continue
		pid=$(cat "$F/$p.pid")
		stop_pid "$pid"
	done
	netns_destroy
}

setup() {
	netns_require
	[ ! -f "$F/missing" ] || {
		[ "${CI:-}" != true ] || fail "$(cat "$F/missing"), which make deps installs"
		skip "$(cat "$F/missing"); make deps installs it"
	}
	[ -f "$F/ready" ] || fail "setup_file did not finish"
	read -r PROM_PORT < "$F/prometheus.port"
	read -r INST_A < "$F/inst-a"
	read -r INST_B < "$F/inst-b"
}

# ---- set-up -----------------------------------------------------------------

# The namespace's devices, all ifb (real BQL directories; the kernel's DQL
# never runs on them, so every value written stays as written):
#   i0    4 queues, idle: limits 10000..40000, tx-3 pinned at its limit_max,
#         hold_time 500 ms on tx-1, stall_thrs 20 ms on tx-0
#   pin0  busy, limit = limit_max = 50000        (the cap binds)
#   min0  busy, limit = limit_min = 30000        (the floor holds)
#   off0  busy, limit 0                          (BQL inactive)
#   drop0 tbf at 8 bit/s, limit 3000 B: 1000 frames of 1000 B give 1 sent,
#         3 waiting (3000 B) and 996 dropped
fleet_devices() {
	local d q
	ip -n "$NS" link add i0 numtxqueues 4 type ifb
	for d in pin0 min0 off0 drop0; do
		ip -n "$NS" link add "$d" numtxqueues 1 type ifb
		ip -n "$NS" link set "$d" mtu 65000
	done
	for d in i0 pin0 min0 off0 drop0; do
		ip -n "$NS" link set "$d" up
	done
	ip netns exec "$NS" tc qdisc add dev drop0 root handle 1: tbf rate 8bit burst 1600 limit 3000
	for q in 0 1 2 3; do
		nsw i0 $q limit $((10000 * (q + 1)))
	done
	nsw i0 3 limit_max 40000
	nsw i0 1 hold_time 500
	nsw i0 0 stall_thrs 20
	nsw pin0 0 limit_max 50000
	nsw pin0 0 limit 50000
	nsw min0 0 limit_min 30000
	nsw min0 0 limit 30000
}

fleet_traffic() {
	local d
	for d in pin0 min0 off0; do
		ip netns exec "$NS" python3 "$REPO/tests/tools/pktsend.py" "$d" 1 "$BUSY_FRAMES" 65000
	done
	ip netns exec "$NS" python3 "$REPO/tests/tools/pktsend.py" drop0 1 1000 1000
}

# A sysfs tree of a host the test cannot make stall: st0, 2 queues, 3 stalls
# on tx-0 (then 5), stall_max 25 jiffies (0.1 s at HZ=250)
fake_tree() {
	local r=$F/sysfs/class/net/st0 q b
	mkdir -p "$r/statistics"
	echo up > "$r/operstate"
	echo 1500 > "$r/mtu"
	echo 1000 > "$r/tx_queue_len"
	echo 7 > "$r/ifindex"
	for q in tx_bytes tx_packets tx_errors tx_dropped; do echo 0 > "$r/statistics/$q"; done
	for q in 0 1; do
		b=$r/queues/tx-$q/byte_queue_limits
		mkdir -p "$b"
		echo 0 > "$b/limit_min"
		echo 1879048192 > "$b/limit_max"
		echo 1000 > "$b/hold_time"
		echo 20 > "$b/stall_thrs"
	done
	b=$r/queues/tx-0/byte_queue_limits
	echo 3028 > "$b/limit"; echo 1514 > "$b/inflight"; echo 3 > "$b/stall_cnt"; echo 25 > "$b/stall_max"
	b=$r/queues/tx-1/byte_queue_limits
	echo 4542 > "$b/limit"; echo 0 > "$b/inflight"; echo 0 > "$b/stall_cnt"; echo 0 > "$b/stall_max"
}

# the namespace's and the host's files for node_exporter a, the fake host's for b
fleet_export() {
	"$BQLTOOL" -n "$NS" export --textfile "$F/tf-a" || fail "export -n $NS failed"
	"$BQLTOOL" export --textfile "$F/tf-a" || fail "export of the host failed"
	BQLTOOL_HZ=250 "$BQLTOOL" --sysfs-root "$F/sysfs" export --textfile "$F/tf-b" ||
		fail "export of the fake tree failed"
}

# free_port: a port nothing listens on (the caller retries if it is taken
# before its daemon binds it)
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		[ -n "$(ss -Hltn "sport = :$p")" ] || { echo "$p"; return; }
	done
}

# stop_pid PID: TERM, up to 10 s, then KILL
stop_pid() {
	local i
	kill "$1" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# start_daemon NAME URL CMD...: run CMD (its listen port in $PORT) in the
# background until URL answers; up to 5 ports, 10 s each
start_daemon() {
	local name=$1 url=$2 try i pid
	shift 2
	for try in 1 2 3 4 5; do
		PORT=$(free_port)
		PORT=$PORT "$@" >"$F/$name.log" 2>&1 3>&- &
		pid=$!
		echo "$pid" > "$F/$name.pid"
		for ((i = 0; i < 100; i++)); do
			curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$PORT$url" 2>/dev/null && return 0
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		stop_pid "$pid"
		rm -f "$F/$name.pid"
	done
	fail "$name did not start: $(tail -5 "$F/$name.log")"
}

# start_node_exporter a|b DIR: only the textfile collector, on 127.0.0.1
start_node_exporter() {
	local PORT
	start_daemon "ne-$1" /metrics sh -c 'exec "$0" --web.listen-address="127.0.0.1:$PORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1"' "$NODE_EXPORTER" "$2"
	echo "127.0.0.1:$PORT" > "$F/inst-$1"
}

# Prometheus scraping both every second, evaluating the rules every second
start_prometheus() {
	local PORT
	INST_A=$(cat "$F/inst-a") INST_B=$(cat "$F/inst-b")
	cat > "$F/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
	rule_files:
	  - $RULES
	scrape_configs:
	  - job_name: node
	    static_configs:
	      - targets: ['$INST_A', '$INST_B']
	EOF
	mkdir "$F/tsdb"
	start_daemon prometheus /-/ready sh -c 'exec prometheus --config.file="$0" \
		--storage.tsdb.path="$1" --web.listen-address="127.0.0.1:$PORT" \
		--log.level=warn' "$F/prometheus.yml" "$F/tsdb"
	echo "$PORT" > "$F/prometheus.port"
	PROM_PORT=$PORT
	export INST_A INST_B PROM_PORT
}

# ---- queries ----------------------------------------------------------------

# api PATH ARGS...: GET Prometheus' API, the JSON on stdout; fails on an error
api() {
	local path=$1 out
	shift
	out=$(curl -sS --max-time 10 -G "http://127.0.0.1:$PROM_PORT/api/v1/$path" "$@") ||
		{ echo "curl $path failed: $out" >&2; return 1; }
	jq -e '.status == "success"' >/dev/null <<<"$out" ||
		{ echo "$path: $out" >&2; return 1; }
	printf '%s\n' "$out"
}

# series EXPR: one line per series of the instant vector, sorted:
# "instance netns device queue extra value", "-" for an absent label; extra
# is the qdisc, source or file (its base name) label
series() {
	api query --data-urlencode "query=$1" | jq -r '
		if .data.resultType != "vector" then error("not a vector: \(.data.resultType)") else . end |
		.data.result[] | .metric as $m |
		[$m.instance // "-", $m.netns // "-", $m.device // "-", $m.queue // "-",
		 ($m.qdisc // $m.source // ($m.file // "-" | split("/") | last)), .value[1]] | join(" ")' |
		LC_ALL=C sort
}

# has_value EXPR VALUE: EXPR is one sample equal to VALUE
has_value() {
	local s
	s=$(series "$1" 2>&1) || { LAST=$s; return 1; }
	LAST=$s
	[ "$(wc -l <<<"$s")" -eq 1 ] && awk -v v="$2" '{ exit !($NF + 0 == v + 0) }' <<<"$s"
}

# wait_for WHAT SECONDS CMD...: until CMD succeeds, or fail naming WHAT
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	fail "timed out after ${secs}s waiting for $what ($*); last seen: ${LAST:-}; prometheus log: $(tail -3 "$F/prometheus.log")"
}

# check WHAT SCOPE EXPECTED < SERIES: the series of SCOPE (ns: netns $NS,
# fake: instance $INST_B, host: instance $INST_A without netns) as
# "device queue extra value" lines equal EXPECTED, one "device queue extra
# PRED" a line, PRED a number, >N, >=N or <N, "-" for an absent label
check() {
	local what=$1 scope=$2 expected=$3 got
	got=$(awk -v s="$scope" -v ns="$NS" -v a="$INST_A" -v b="$INST_B" '
		(s == "ns" && $2 == ns) || (s == "fake" && $1 == b) || (s == "host" && $1 == a && $2 == "-") {
			print $3, $4, $5, $6 }')
	# FLEET_LOG=FILE keeps every result, for a human to read
	[ -z "${FLEET_LOG:-}" ] || printf '%s (%s):\n%s\n' "$what" "$scope" "$(sed 's/^/    /' <<<"$got")" >> "$FLEET_LOG"
	paste -d '|' <(awk 'NF' <<<"$expected" | LC_ALL=C sort) <(awk 'NF' <<<"$got" | LC_ALL=C sort) |
	awk -F'|' -v what="$what ($scope)" '
		{
			n = split($1, e, " "); m = split($2, g, " ")
			if (n != 4 || m != 4 || e[1] != g[1] || e[2] != g[2] || e[3] != g[3]) { bad = 1; next }
			p = e[4]; v = g[4] + 0
			if (p ~ /^>=/) ok = v >= substr(p, 3) + 0
			else if (p ~ /^>/) ok = v > substr(p, 2) + 0
			else if (p ~ /^</) ok = v < substr(p, 2) + 0
			else ok = v == p + 0
			if (!ok) bad = 1
		}
		END { exit bad }' || fail "$what ($scope): expected
$(awk 'NF' <<<"$expected" | LC_ALL=C sort)
got
$got"
}

# The per-queue values the namespace was set up with, as "device queue - VALUE"
NS_QUEUES="i0 tx-0 i0 tx-1 i0 tx-2 i0 tx-3 pin0 tx-0 min0 tx-0 off0 tx-0 drop0 tx-0"
ns_all() {
	local v=$1
	set -- $NS_QUEUES
	while [ $# -gt 0 ]; do
		echo "$1 $2 - $v"
		shift 2
	done
}
ns_dev_all() {
	local d
	for d in drop0 i0 min0 off0 pin0; do echo "$d - - $1"; done
}

# ---- recording rules and alerts, as Prometheus loaded them -------------------

@test "fleet: Prometheus and both node_exporters listen on 127.0.0.1 only" {
	local p pid
	for p in prometheus ne-a ne-b; do
		pid=$(cat "$F/$p.pid")
		run ss -Hltnp
		assert_success
		got=$(grep "pid=$pid," <<<"$output" | awk '{ print $4 }')
		[ -n "$got" ] || fail "$p (pid $pid) listens nowhere: $output"
		run grep -v '^127\.0\.0\.1:' <<<"$got"
		assert_output ""
	done
}

@test "fleet: Prometheus loaded every rule of the file, and each evaluates without error" {
	run api rules
	assert_success
	rules=$output
	# the names Prometheus has are the names in the file
	got=$(jq -r '.data.groups[].rules[].name' <<<"$rules" | LC_ALL=C sort)
	want=$(sed -nE 's/^ *- (record|alert): *//p' "$RULES" | LC_ALL=C sort)
	assert_equal "$got" "$want"
	[ "$(wc -l <<<"$want")" -ge 20 ] || fail "only $(wc -l <<<"$want") rules in $RULES"
	run jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.health) \(.lastError)"' <<<"$rules"
	assert_output ""
}

# expected result of each recording rule: "scope|device queue extra pred;..."
record_expect() {
	case $1 in
	queue:bql_tx_bytes:rate5m)
		echo "ns|i0 tx-0 - <125000;i0 tx-1 - <125000;i0 tx-2 - <125000;i0 tx-3 - <125000;pin0 tx-0 - >125000;min0 tx-0 - >125000;off0 tx-0 - >125000;drop0 tx-0 - <125000"
		echo "fake|" ;;	# no qstats, no qdisc: nothing measures it
	queue:bql_busy:rate5m)
		echo "ns|pin0 tx-0 - >125000;min0 tx-0 - >125000;off0 tx-0 - >125000" ;;
	device:bql_tx_bytes:rate5m)
		echo "ns|i0 - - <125000;pin0 - - >125000;min0 - - >125000;off0 - - >125000;drop0 - - <125000" ;;
	device:bql_busy:rate5m)
		echo "ns|pin0 - - >125000;min0 - - >125000;off0 - - >125000" ;;
	device:bql_limit_bytes:sum)
		echo "ns|i0 - - 100000;pin0 - - 50000;min0 - - 30000;off0 - - 0;drop0 - - 0"
		echo "fake|st0 - - 7570" ;;
	device:bql_inflight_bytes:sum)
		echo "ns|$(ns_dev_all 0 | paste -sd';')"
		echo "fake|st0 - - 1514" ;;
	device:bql_qdisc_backlog_bytes:sum)
		echo "ns|i0 - - 0;pin0 - - 0;min0 - - 0;off0 - - 0;drop0 - - 3000" ;;
	device:bql_queues_at_limit_max:count)
		echo "ns|i0 - - 1;pin0 - - 1;min0 - - 0;off0 - - 0;drop0 - - 0"
		echo "fake|st0 - - 0" ;;
	device:bql_stall_events:increase1h)
		echo "ns|$(ns_dev_all 0 | paste -sd';')"
		echo "fake|st0 - - >=2" ;;
	device:bql_stall_max_seconds:max)
		echo "ns|$(ns_dev_all 0 | paste -sd';')"
		echo "fake|st0 - - 0.1" ;;
	device:bql_queue_tx_stop:rate5m|device:bql_queue_tx_hw_drops:rate5m)
		echo "ns|"	# ifb has no qstats
		echo "fake|" ;;
	device:bql_qdisc_drops:rate5m)
		# 996 drops between two samples: at least 996/300 per second
		echo "ns|i0 - - 0;pin0 - - 0;min0 - - 0;off0 - - 0;drop0 - - >3.3" ;;
	BQLStallsDetected)
		echo "ns|"
		echo "fake|st0 tx-0 - >=2" ;;
	BQLLimitPinnedAtMax)
		# i0 tx-3 is pinned too, but idle
		echo "ns|pin0 tx-0 - 50000" ;;
	BQLLimitStuckAtMin)
		echo "ns|min0 tx-0 - 30000" ;;
	BQLInactive)
		# i0 and drop0 have limit 0 too, but are not busy
		echo "ns|off0 - - 0" ;;
	BQLRingFullStops)
		echo "ns|"
		echo "fake|" ;;
	BQLQdiscDrops)
		echo "ns|drop0 tx-0 - >3.3" ;;
	BQLExportStale)
		# the fake host's file was touched 2 hours back; its timestamp
		# gauge and the namespace's export are fresh
		echo "ns|"
		echo "fake|- - bqltool.prom >=7200" ;;
	*)
		return 1 ;;
	esac
}

# run_rules_of TYPE: every rule of that type through /api/v1/query; sets N
# (no command substitution: bash clears set -e inside it, and a failed
# check would go unnoticed)
run_rules_of() {
	local rules name query line scope exp n=0
	rules=$(api rules --data-urlencode "type=$1") || fail "rules API"
	while IFS=$'\t' read -r name query; do
		exp=$(record_expect "$name") || fail "no expectation for rule $name"
		out=$(series "$query") || fail "$name: query failed: $query"
		while IFS='|' read -r scope line; do
			check "$name" "$scope" "$(tr ';' '\n' <<<"$line")" <<<"$out"
		done <<<"$exp"
		n=$((n + 1))
	done < <(jq -r '.data.groups[].rules[] | [.name, .query] | @tsv' <<<"$rules")
	N=$n
}

@test "fleet: every recording rule returns what the namespace and the fake host were set up with" {
	run_rules_of record
	[ "$N" -eq "$(grep -c '^ *- record:' "$RULES")" ] || fail "$N recording rules run"
}

@test "fleet: every alert expression selects exactly the queues set up to trip it" {
	run_rules_of alert
	[ "$N" -eq "$(grep -c '^ *- alert:' "$RULES")" ] || fail "$N alerts run"
	# and Prometheus itself holds them pending (or firing once for: passed)
	run api alerts
	assert_success
	got=$(jq -r --arg ns "$NS" --arg b "$INST_B" '.data.alerts[] |
		select(.labels.netns == $ns or .labels.instance == $b) |
		select(.state == "pending" or .state == "firing") |
		"\(.labels.alertname) \(.labels.device // .labels.file | split("/") | last)"' <<<"$output" | LC_ALL=C sort)
	assert_equal "$got" "$(printf '%s\n' "BQLExportStale bqltool.prom" "BQLInactive off0" \
		"BQLLimitPinnedAtMax pin0" "BQLLimitStuckAtMin min0" "BQLQdiscDrops drop0" \
		"BQLStallsDetected st0" | LC_ALL=C sort)"
}

# ---- the dashboard -------------------------------------------------------------

# subst SCOPE EXPR: the dashboard's variables as Grafana fills them for scope
subst() {
	local inst netns
	case $1 in
	ns)   inst=$INST_A netns=$NS ;;
	fake) inst=$INST_B netns='.*' ;;
	host) inst=$INST_A netns='' ;;
	esac
	# $__rate_interval: 5m, as Grafana picks for a long scrape interval,
	# so that rates over the test's samples have a known lower bound
	sed -e "s/\\\$__rate_interval/5m/g" -e "s/\\\$instance/$inst/g" -e "s/\\\$netns/$netns/g" \
		-e 's/\$device/.*/g' -e 's/\$queue/.*/g' <<<"$2"
}

# host_expect TITLE REF: what the host's devices give, from `bqltool -j show`
host_expect() {
	local sh
	sh=$("$BQLTOOL" -j show) || return 1
	case "$1|$2" in
	"TX ring and interrupt coalescing per device|A")
		jq -r '.[] | select(.ring.tx != null) | "\(.ifname) - - \(.ring.tx)"' <<<"$sh" ;;
	"TX ring and interrupt coalescing per device|B")
		jq -r '.[] | select(.ring.tx_max != null) | "\(.ifname) - - \(.ring.tx_max)"' <<<"$sh" ;;
	"TX ring and interrupt coalescing per device|C")
		jq -r '.[] | select(.coalesce.tx_usecs != null) | "\(.ifname) - - \(.coalesce.tx_usecs / 1000000)"' <<<"$sh" ;;
	"TX ring and interrupt coalescing per device|D")
		jq -r '.[] | select(.coalesce.tx_max_frames != null) | "\(.ifname) - - \(.coalesce.tx_max_frames)"' <<<"$sh" ;;
	"Ring-full stops and wakes per second|A")
		jq -r '.[] | .queues[] | select(.stats.tx_stop != null) | "\(.ifname) tx-\(.queue) - >=0"' <<<"$sh" ;;
	"Ring-full stops and wakes per second|B")
		jq -r '.[] | .queues[] | select(.stats.tx_wake != null) | "\(.ifname) tx-\(.queue) - >=0"' <<<"$sh" ;;
	*)
		return 1 ;;
	esac
}

# panel_expect TITLE REF: "scope|device queue extra pred;..." lines
panel_expect() {
	local ns_q hz
	ns_q() { ns_all "$1" | paste -sd';'; }
	case "$1|$2" in
	"Limit and inflight per queue|A"|"BQL settings per queue|A")
		echo "ns|i0 tx-0 - 10000;i0 tx-1 - 20000;i0 tx-2 - 30000;i0 tx-3 - 40000;pin0 tx-0 - 50000;min0 tx-0 - 30000;off0 tx-0 - 0;drop0 tx-0 - 0"
		echo "fake|st0 tx-0 - 3028;st0 tx-1 - 4542" ;;
	"Limit and inflight per queue|B")
		echo "ns|$(ns_q 0)"
		echo "fake|st0 tx-0 - 1514;st0 tx-1 - 0" ;;
	"BQL settings per queue|B")
		echo "ns|$(ns_q 0 | sed 's/min0 tx-0 - 0/min0 tx-0 - 30000/')"
		echo "fake|st0 tx-0 - 0;st0 tx-1 - 0" ;;
	"BQL settings per queue|C")
		echo "ns|$(ns_q 1879048192 | sed 's/i0 tx-3 - [0-9]*/i0 tx-3 - 40000/; s/pin0 tx-0 - [0-9]*/pin0 tx-0 - 50000/')"
		echo "fake|st0 tx-0 - 1879048192;st0 tx-1 - 1879048192" ;;
	"BQL settings per queue|D")
		echo "ns|$(ns_q 1 | sed 's/i0 tx-1 - 1/i0 tx-1 - 0.5/')"
		echo "fake|st0 tx-0 - 1;st0 tx-1 - 1" ;;
	"BQL settings per queue|E")
		echo "ns|$(ns_q 0 | sed 's/i0 tx-0 - 0/i0 tx-0 - 0.02/')"
		echo "fake|st0 tx-0 - 0.02;st0 tx-1 - 0.02" ;;
	"Limit and inflight per device|A")
		record_expect device:bql_limit_bytes:sum ;;
	"Limit and inflight per device|B")
		record_expect device:bql_inflight_bytes:sum ;;
	"Queues with the limit at limit_max|A")
		record_expect device:bql_queues_at_limit_max:count ;;
	"Sent per queue|A")
		record_expect queue:bql_tx_bytes:rate5m ;;
	"Ring-full stops and wakes per second|"[AB])
		echo "ns|"
		echo "fake|"
		echo "host|$(host_expect "$1" "$2" | paste -sd';')" ;;
	"Drops and requeues per second|A")
		echo "ns|$(ns_q 0 | sed 's/drop0 tx-0 - 0/drop0 tx-0 - >3.3/')"
		echo "fake|" ;;
	"Drops and requeues per second|B")
		echo "ns|$(ns_q 0)" ;;
	"Drops and requeues per second|C")
		echo "ns|"
		echo "fake|" ;;
	"Qdisc backlog|A")
		echo "ns|$(ns_q 0 | sed 's/drop0 tx-0 - 0/drop0 tx-0 - 3000/')"
		echo "fake|" ;;
	"TX ring and interrupt coalescing per device|"[ABCD])
		echo "ns|"	# ifb reports no ring and no coalescing
		echo "host|$(host_expect "$1" "$2" | paste -sd';')" ;;
	"TX ring and interrupt coalescing per device|E")
		echo "ns|i0 - - 4;pin0 - - 1;min0 - - 1;off0 - - 1;drop0 - - 1"
		echo "fake|st0 - - 2" ;;
	"Devices|A")
		# the root qdisc: mq over i0's 4 queues, the test's tbf on drop0
		echo "ns|i0 - mq 1;pin0 - $(nsqdisc pin0) 1;min0 - $(nsqdisc min0) 1;off0 - $(nsqdisc off0) 1;drop0 - tbf 1"
		echo "fake|st0 - - 1" ;;
	"Stalls per queue|A")
		echo "ns|$(ns_q 0)"
		echo "fake|st0 tx-0 - >=2;st0 tx-1 - 0" ;;
	"Stall count and longest stall|A")
		echo "ns|$(ns_q 0)"
		echo "fake|st0 tx-0 - 5;st0 tx-1 - 0" ;;
	"Stall count and longest stall|B")
		echo "ns|$(ns_q 0)"
		echo "fake|st0 tx-0 - 0.1;st0 tx-1 - 0" ;;
	"Export age|A")
		echo "ns|- - - >=0"
		echo "fake|- - - >=0" ;;
	"Export age|B")
		# no netns label on node_textfile_mtime_seconds: the host's scope
		# shows both files of node_exporter a; the fake host's is 2 h old
		echo "host|- - bqltool.prom >=0;- - bqltool-netns-$NS.prom >=0"
		echo "fake|- - bqltool.prom >=7200" ;;
	"Kernel HZ|A")
		hz=$(grep '^bql_kernel_hz' "$F/tf-a/bqltool-netns-$NS.prom" |
			sed -E 's/.*source="([^"]*)".* ([0-9]+)$/\1 \2/')
		echo "ns|- - ${hz% *} ${hz#* }"
		echo "fake|- - BQLTOOL_HZ 250" ;;
	*)
		return 1 ;;
	esac
}

# the root qdisc kind of a namespace device, as tc reports it
nsqdisc() {
	ip netns exec "$NS" tc -j qdisc show dev "$1" root | jq -r '.[0].kind'
}

@test "fleet: every dashboard query, its variables filled in, returns what the test set up" {
	local title ref expr exp scope line q n=0
	run jq -e '[.panels[] | select(.type != "row")] | length > 10' "$DASH"
	assert_success
	while IFS=$'\t' read -r title ref expr; do
		exp=$(panel_expect "$title" "$ref") || fail "no expectation for panel \"$title\" $ref: $expr"
		while IFS='|' read -r scope line; do
			q=$(subst "$scope" "$expr")
			[[ $q != *'$'* ]] || fail "\"$title\" $ref: a variable left in $q"
			out=$(series "$q") || fail "\"$title\" $ref: query failed: $q"
			check "\"$title\" $ref" "$scope" "$(tr ';' '\n' <<<"$line")" <<<"$out"
		done <<<"$exp"
		n=$((n + 1))
	done < <(jq -r '.. | objects | select(has("targets")) | .title as $t |
		.targets[] | [$t, .refId, .expr] | @tsv' "$DASH")
	[ "$n" -ge 25 ] || fail "only $n panel queries found"
}

@test "fleet: the dashboard's variables list the instances, the namespace, its devices and queues" {
	# label_values(METRIC{SEL}, LABEL) as Grafana asks Prometheus for it
	values() {
		local def sel label
		def=$(jq -r --arg v "$1" '.templating.list[] | select(.name == $v) | .definition' "$DASH")
		[[ $def =~ ^label_values\((.*),\ *([a-z_]+)\)$ ]] || fail "variable $1: $def"
		sel=${BASH_REMATCH[1]} label=${BASH_REMATCH[2]}
		sel=$(sed -e "s/\\\$instance/$2/g" -e "s/\\\$netns/$3/g" -e "s/\\\$device/$4/g" <<<"$sel")
		api "label/$label/values" --data-urlencode "match[]=$sel" | jq -r '.data[]' | LC_ALL=C sort
	}
	assert_equal "$(values instance)" "$(printf '%s\n' "$INST_A" "$INST_B" | LC_ALL=C sort)"
	assert_equal "$(values netns '.*')" "$NS"
	assert_equal "$(values device "$INST_A" "$NS")" "$(printf '%s\n' drop0 i0 min0 off0 pin0)"
	assert_equal "$(values device "$INST_B" '.*')" st0
	assert_equal "$(values queue "$INST_A" "$NS" i0)" "$(printf 'tx-%s\n' 0 1 2 3)"
	# every panel queries the data source the dashboard's variable names
	run jq -r '[.. | objects | select(has("targets")) | .datasource.uid, .targets[].datasource.uid] | unique | .[]' "$DASH"
	assert_output '${datasource}'
}
