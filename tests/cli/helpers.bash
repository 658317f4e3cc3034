# Shared BATS helpers for tests/cli and tests/integration.
# $BQLTOOL is set by the Makefile (absolute path of the build's binary).

bats_load_library bats-support
bats_load_library bats-assert

: "${BQLTOOL:=$BATS_TEST_DIRNAME/../../build/bqltool}"
export BQLTOOL_HZ=250	# golden files assume HZ=250 whatever the host runs
DATA="$BATS_TEST_DIRNAME/../data"
EXAMPLES="$BATS_TEST_DIRNAME/../../examples"

# use_tree CASE: copy tests/data/sysfs/CASE to a private, writable tree
# (fixtures are never written) and point ROOT at it.
use_tree() {
	ROOT="$BATS_TEST_TMPDIR/sysfs"
	rm -rf "$ROOT"
	mkdir -p "$ROOT"
	cp -a "$DATA/sysfs/$1/." "$ROOT/"
}

# bq ARGS...: run bqltool on $ROOT with separate stderr and a timeout.
bq() {
	run --separate-stderr timeout 10 "$BQLTOOL" --sysfs-root "$ROOT" "$@"
}

# bqx ARGS...: run bqltool without --sysfs-root (replay, help, ...).
bqx() {
	run --separate-stderr timeout 20 "$BQLTOOL" "$@"
}

# bq_refusing FILE ARGS...: run bqltool on $ROOT with FILE turned into one
# that reads a number but refuses every write with EINVAL, as a kernel
# store does: its own /proc/PID/oom_score bind-mounted over it in a private mount
# namespace (a symbolic link out of the tree would be refused). Root only:
# in a user namespace the write fails with EIO, not the kernel's EINVAL.
bq_refusing() {
	local file=$1
	shift
	[ "$(id -u)" -eq 0 ] || skip "needs root for a private mount namespace"
	unshare -m true 2>/dev/null || skip "cannot create a mount namespace here"
	run --separate-stderr timeout 10 unshare -m sh -c \
		'mount --bind /proc/$$/oom_score "$1" || exit 99; shift; exec "$@"' \
		sh "$file" "$BQLTOOL" --sysfs-root "$ROOT" "$@"
}

# tree_digest: a listing of every file and its content, to prove that a
# failed write changed nothing.
tree_digest() {
	(cd "$ROOT" && find . -type f -print0 | sort -z | xargs -0 -r sh -c \
		'for f; do printf "%s=" "$f"; cat "$f" 2>/dev/null; echo; done' sh)
}

# json_ok: the output of the last run parses as JSON.
json_ok() {
	jq -e . >/dev/null <<<"$output"
}

# need_tool CMD PACKAGE: skip, naming the Debian package, when CMD is not
# installed. Under CI (CI=true), where `make deps` installed it, fail
# instead: a skip there would hide a broken install.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "${CI:-}" = true ]; then
		fail "$1 not installed (Debian package $2, which make deps installs)"
	fi
	skip "$1 not installed (Debian package $2; make deps installs it)"
}

# promtool_ok FILE WHAT: FILE holds at least one sample and
# `promtool check metrics` accepts it without a single lint message.
promtool_ok() {
	grep -q '^[a-z]' "$1" || fail "$2: no samples"
	run promtool check metrics < "$1"
	[ "$status" -eq 0 ] && [ -z "$output" ] ||
		fail "$2: promtool check metrics exit $status: $output"
}
