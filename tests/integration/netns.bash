# Shared by tests/integration/*.bats: a network namespace of the test's own,
# with ifb devices; the host's devices are never written.
load ../cli/helpers

# netns_create NAME: export NS=bqlt-NAME-PID and create it. Fails quietly
# (so setup_file can stop adding devices) when not root or not possible;
# netns_require then skips every test with the reason.
netns_create() {
	export NS="bqlt-$1-$$"
	[ "$(id -u)" -eq 0 ] || return 1
	ip netns add "$NS" 2>/dev/null
}

netns_destroy() {
	ip netns del "$NS" 2>/dev/null || true
}

netns_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to create a network namespace"
	ip netns list | grep -qw "$NS" || skip "cannot create network namespaces here"
}

# nsr DEV Q ATTR: read a BQL file inside the namespace
nsr() {
	ip netns exec "$NS" cat "/sys/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}

# nsq DEV ATTR N: the values of queues 0..N-1, space separated
nsq() {
	local q out=""
	for ((q = 0; q < $3; q++)); do
		out+="$(nsr "$1" $q "$2") "
	done
	echo "${out% }"
}

# nsw DEV Q ATTR VALUE: write one (the test's own devices only)
nsw() {
	ip netns exec "$NS" sh -c "echo $4 > /sys/class/net/$1/queues/tx-$2/byte_queue_limits/$3"
}
