#!/usr/bin/env bats
# The fleet view's files, without a server: promtool accepts the Prometheus
# rules, and `promtool test rules` fires each alert on synthetic series of
# its cause and keeps it silent on their look-alikes; the rules and the
# Grafana dashboard query only series that bqltool exports (or the rules
# record); the dashboard is JSON whose variables and panels fit together.
# tests/integration/fleet.bats runs all of it through a real Prometheus.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	RULES=$REPO/contrib/prometheus/bqltool.rules.yml
	DASH=$REPO/contrib/grafana/bqltool-dashboard.json
	UT=$DATA/prometheus/rules.test.yml
}

# rule_exprs: every expr of the rules file, one a line (block scalars joined)
rule_exprs() {
	awk '
		function flush() { if (e != "") print e; e = ""; blk = 0 }
		blk && (match($0, /^ */) && RLENGTH > ind) { e = e " " substr($0, RLENGTH + 1); next }
		blk { flush() }
		/^ *expr: *\|/ { blk = 1; match($0, /^ */); ind = RLENGTH; next }
		/^ *expr: / { sub(/^ *expr: */, ""); print; next }
		END { flush() }' "$RULES"
}

# metrics EXPR...: the metric names the PromQL expressions read (strings,
# label matchers, grouping clauses, ranges, functions and keywords removed)
metrics() {
	printf '%s\n' "$@" | sed -E -e 's/"[^"]*"//g' -e 's/\{[^}]*\}//g' -e 's/\[[^]]*\]//g' \
		-e 's/(without|by|ignoring|on)[[:space:]]*\([^)]*\)//g' |
		grep -oE '[a-zA-Z_:][a-zA-Z0-9_:]*[[:space:]]*\(?' | grep -v '($' | sed 's/[[:space:]]*$//' |
		grep -vxE 'and|or|unless|bool|offset' | LC_ALL=C sort -u
}

@test "fleet rules: promtool check rules accepts them all" {
	need_tool promtool prometheus
	run promtool check rules "$RULES"
	assert_success
	n=$(grep -cE '^ *- (record|alert):' "$RULES")
	[ "$n" -ge 20 ] || fail "only $n rules"
	assert_output --partial "SUCCESS: $n rules found"
}

@test "fleet rules: promtool test rules fires every alert and keeps it silent on look-alikes" {
	need_tool promtool prometheus
	run promtool test rules "$UT"
	assert_success
	assert_output --partial SUCCESS
	refute_output --partial FAILED
	# each alert has a case that fires and one that does not, each
	# recording rule a test of its values
	for a in $(sed -nE 's/^ *- alert: *//p' "$RULES"); do
		awk -v a="$a" '
			/alertname:/ { cur = $2; next }
			/exp_alerts: *\[\]/ { if (cur == a) silent++; cur = ""; next }
			/exp_alerts: *$/ { if (cur == a) fire++; cur = ""; next }
			END { exit !(fire && silent) }' "$UT" || fail "$a: no firing or no silent case in $UT"
	done
	for r in $(sed -nE 's/^ *- record: *//p' "$RULES"); do
		awk -v r="$r" '/- expr:/ && index($0, r) { f = 1 } END { exit !f }' "$UT" ||
			fail "$r: no promql_expr_test in $UT"
	done
}

@test "fleet rules: every alert has a severity, a for:, a summary and a description naming a bqltool command" {
	run awk '
		function done() {
			if (name == "") return
			if (!f || !sev || !sum || !desc || !cmd) { print name ": for " f " severity " sev " summary " sum " description " desc " bqltool command " cmd; bad = 1 }
		}
		/^ *- (alert|record):/ { done(); name = ($2 == "alert:") ? $3 : ""; f = sev = sum = desc = cmd = 0; next }
		/^ *for: *[0-9]+[smh]/ { f = 1 }
		/^ *severity: *(warning|info|critical)$/ { sev = 1 }
		/^ *summary: / { sum = 1 }
		/^ *description: / { desc = 1 }
		/`bqltool[^`]* (show|check|top|export|set)/ { cmd = 1 }
		END { done(); exit bad }' "$RULES"
	assert_success
	[ "$(grep -c '^ *- alert:' "$RULES")" -ge 7 ]
}

@test "fleet: the rules and the dashboard read only series that export writes or the rules record" {
	# what bqltool writes (cmd/prom.c), what the rules record, node_exporter's mtime
	known=$( { grep -oE '"bql_[a-z_]+"' "$REPO/cmd/prom.c" | tr -d '"'
		sed -nE 's/^ *- record: *//p' "$RULES"
		echo node_textfile_mtime_seconds; } | LC_ALL=C sort -u)
	# functions the expressions may use
	fns="rate increase sum max min max_over_time time round count"
	mapfile -t rexprs < <(rule_exprs)
	[ "${#rexprs[@]}" -eq "$(grep -cE '^ *- (record|alert):' "$RULES")" ] ||
		fail "found ${#rexprs[@]} exprs: ${rexprs[*]}"
	mapfile -t dexprs < <(jq -r '.. | objects | select(has("targets")) | .targets[].expr' "$DASH")
	[ "${#dexprs[@]}" -ge 25 ] || fail "only ${#dexprs[@]} panel queries"
	for m in $(metrics "${rexprs[@]}" "${dexprs[@]}"); do
		grep -qxF "$m" <<<"$known" || fail "unknown series $m (neither exported nor recorded)"
	done
	# and every function they call is one we meant
	for f in $(printf '%s\n' "${rexprs[@]}" "${dexprs[@]}" | sed -E 's/"[^"]*"//g' |
		grep -oE '[a-z_]+[[:space:]]*\(' | tr -d '( ' | LC_ALL=C sort -u); do
		[[ " $fns without by ignoring on " == *" $f "* ]] || fail "unexpected function $f"
	done
	# the families the rules rest on are the documented ones
	for m in bql_limit_bytes bql_limit_max_bytes bql_limit_min_bytes bql_stall_events_total \
		bql_stall_max_seconds bql_queue_tx_stop_total bql_qdisc_drops_total \
		bql_qdisc_sent_bytes_total bql_queue_tx_bytes_total bql_export_timestamp_seconds; do
		grep -qF "$m" "$REPO/man/bqltool-export.8" || fail "$m not in bqltool-export(8)"
	done
}

@test "fleet dashboard: importable JSON; variables, data source and panels fit together" {
	run jq -e '.title != "" and .uid != "" and (.schemaVersion | type) == "number"
		and (.panels | length) > 10' "$DASH"
	assert_success
	# the variables, in order: data source, then instance > netns > device > queue
	run jq -r '.templating.list[] | "\(.name) \(.type)"' "$DASH"
	assert_output "$(printf '%s\n' 'datasource datasource' 'instance query' 'netns query' \
		'device query' 'queue query')"
	# All means .*: it keeps the host's series, which have no netns label
	run jq -r '.templating.list[] | select(.type == "query") |
		select(.allValue != ".*" or .includeAll != true or .multi != true) | .name' "$DASH"
	assert_output ""
	# the query Grafana runs is the one it shows (the string form every
	# Grafana version reads)
	run jq -r '.templating.list[] | select(.type == "query") | select(.query != .definition) | .name' "$DASH"
	assert_output ""
	# each query variable narrows by the ones before it
	run jq -r '.templating.list[] | select(.name == "queue") | .definition' "$DASH"
	assert_output --partial 'instance=~"$instance",netns=~"$netns",device=~"$device"'
	# panels: unique ids, a description, a position; targets: refIds unique per
	# panel, the dashboard's data source, and the instance filter
	run jq -r '[.panels[].id] | (length == (unique | length))' "$DASH"
	assert_output true
	run jq -r '.panels[] | select(.type != "row") |
		select((.description // "") == "" or .gridPos.w == null or (.targets | length) == 0 or
			([.targets[].refId] | length != (unique | length)) or
			.datasource.uid != "${datasource}" or
			any(.targets[]; .datasource.uid != "${datasource}" or (.expr | contains("$instance") | not)))
		| .title' "$DASH"
	assert_output ""
	# per-queue series are filtered by every variable
	run jq -r '.. | objects | select(has("targets")) | .targets[].expr |
		select(test("(^|[^:])bql_(limit|inflight|stall|qdisc|queue|hold)_")) |
		select(contains("$netns") and contains("$device") and contains("$queue") | not)' "$DASH"
	assert_output ""
}
