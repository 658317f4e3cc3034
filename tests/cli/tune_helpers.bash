# Helpers for the tune tests (tune-robust.bats, tune-fit.bats): the advice
# of the last `tn -j tune` held out against the true model, by sim.

# thr SIM-ARGS...: the throughput of `sim ARGS` in bit/s
thr() {
	"$BQLTOOL" -j sim "$@" | jq .throughput_bps
}

# advice_set: the recommendation of the last `tn -j tune` as sim --set options
advice_set() {
	jq -r '.recommended.settings | "--set limit_min=\(.limit_min) --set limit_max=\(.limit_max) --set hold_time=\(.hold_time)"' <<<"$output"
}

# held_out MODEL... -- PERTURBATION...: on MODEL with the perturbation, runs
# of 5 s (5 hold times of the defaults), the advice keeps 99% of the
# defaults' throughput under the same perturbation
held_out() {
	local model=() pert=() set d a
	while [ "$1" != -- ]; do model+=("$1"); shift; done
	shift
	pert=("$@")
	read -ra set <<<"$(advice_set)"
	d=$(thr "${model[@]}" "${pert[@]}" --duration 5)
	a=$(thr "${model[@]}" "${pert[@]}" --duration 5 "${set[@]}")
	jq -en --argjson a "$a" --argjson d "$d" '$a >= 0.99 * $d' >/dev/null ||
		fail "advice ${set[*]} on ${model[*]} under ${pert[*]:-no perturbation}: $a bit/s against the defaults' $d"
}

# flows N SPEC: N times --traffic SPEC
flows() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf -- '--traffic %s ' "$2"
	done
}
