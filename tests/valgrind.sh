#!/usr/bin/env bash
# make check-valgrind: representative runs of every command, and the unit
# tests, under valgrind; any error or definite leak fails.
# usage: valgrind.sh BQLTOOL BUILD
set -u
bin=$1 build=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$here/data/sysfs/tuned" "$tmp/tuned"
cp -a "$here/data/sysfs/multi" "$tmp/multi"
export BQLTOOL_HZ=250
vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite "$@" >/dev/null 2>"$tmp/vg.log"
	if [ $? -eq 99 ]; then
		echo "valgrind: errors in: $*"; cat "$tmp/vg.log"; fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}
pass=0 fail=0
R="--sysfs-root $tmp/multi"
T="--sysfs-root $tmp/tuned"
vg "$bin" $R show
vg "$bin" $R -p show eth0:1-2 'wl*'
vg "$bin" $R show --format prometheus
vg "$bin" $R show nosuchdev
vg "$bin" $R check -a
vg "$bin" $R -j check
vg "$bin" $R export --textfile "$tmp"
vg "$bin" $R top -b -c 3 -d 0.05
vg "$bin" $R -j top -b -c 3 -d 0.05
vg "$bin" $T set --dry-run eth0 limit_max=64K hold_time=250ms
vg "$bin" $T set eth1 limit_min=3000 stall_thrs=20
vg "$bin" $T set eth1 limit_min=3000 stall_thrs=1
vg "$bin" $T save -o "$tmp/p.json"
vg "$bin" $T reset eth0
vg "$bin" $T apply "$tmp/p.json"
vg "$bin" $T apply --check "$tmp/p.json"
vg "$bin" replay "$here/../examples/ramp.bqlt" "$here/../examples/decay.bqlt"
vg "$bin" -j replay --verify --plot "$tmp/p.svg" --timeline "$tmp/t.csv" \
	"$here/../examples/completion-only.bqlt"
vg "$bin" replay "$here/data/traces/bad-overcomplete.bqlt"
# compressed input (decompressed in a thread) and compressed output
gzip -c "$here/../examples/decay.bqlt" >"$tmp/d.bqlt.gz"
vg "$bin" replay --timeline "$tmp/t.csv.zst" "$tmp/d.bqlt.gz"
head -c 300 "$tmp/d.bqlt.gz" >"$tmp/cut.gz"
vg "$bin" replay "$tmp/cut.gz"
vg "$bin" replay --verify "$here/data/traces/mismatch.bqlt"
# a what-if plot: the recorded limit beside it, the inflight above it hatched
vg "$bin" replay -q --set limit_max=2K --plot "$tmp/w.svg" "$here/../examples/completion-only.bqlt"
# PNG and PDF through cairo: fontconfig loses a block parsing its configuration (suppressed)
vg --suppressions="$here/valgrind-fontconfig.supp" "$bin" replay -q --set limit_max=2K --plot "$tmp/w.png" "$here/../examples/completion-only.bqlt"
vg --suppressions="$here/valgrind-fontconfig.supp" "$bin" sim --duration 0.02 --queues 2 \
	--traffic bulk --traffic poisson:100M --stall 5ms:1ms \
	--plot "$tmp/s.pdf" -q
# -J: threads scanning chunks of a few bytes; an error in a scanned chunk;
# a compressed input; a re-cloned parser (a queue declared late)
BQLTOOL_REPLAY_CHUNK=64 vg "$bin" -j replay -J 3 --verify --plot "$tmp/p.svg" \
	--timeline "$tmp/t.jsonl" "$here/../examples/completion-only.bqlt"
BQLTOOL_REPLAY_CHUNK=40 vg "$bin" replay -J 2 "$here/data/traces/bad-time.bqlt"
awk 'BEGIN { print "bqltrace 1"; print "queue a"; for (i = 0; i < 400; i++) {
	if (i == 100) print "queue b"; print 1000 + i, (i > 100 && i % 2 ? "b" : "a"), "Q 1514" } }' >"$tmp/late.bqlt"
BQLTOOL_REPLAY_CHUNK=100 vg "$bin" replay -J 4 "$tmp/d.bqlt.gz" "$tmp/late.bqlt"
BQLTOOL_REPLAY_CHUNK=300 vg "$bin" replay -J 2 "$tmp/cut.gz"
vg "$bin" sim --duration 0.05 --queues 2 --traffic poisson:500M --traffic bulk --stall 10ms:5ms \
	--at 20ms:limit_max=8000 --trace "$tmp/s.bqlt" --timeline "$tmp/s.csv" --plot "$tmp/s.svg"
vg "$bin" -j sim --duration 0.02 --set limit_max=3000
vg "$bin" sim --set stall_thrs=1
vg "$bin" tune --coalesce-usecs 500 --duration 0.02 --threads 2
vg "$bin" -j tune --from "$tmp/s.bqlt" --duration 0.01
vg "$bin" $R tune eth0 --duration 0.01
vg "$bin" tune --keep 2
vg "$bin" help set
vg "$bin" record -d 1 -c 1 eth0
vg "$bin" record nosuchdev -d 1
# a real capture (root, BPF): libbpf's own bpf(2) calls need suppressions
if [ "$(id -u)" -eq 0 ] && [ -d /sys/class/net/eth0/queues/tx-0/byte_queue_limits ] &&
	"$bin" record eth0 -d 0.2 -o "$tmp/probe.bqt" 2>/dev/null; then
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" record eth0 -d 1 -o "$tmp/r.bqt"
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" record --queued eth0 -d 1
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" latency eth0 -d 1 --hist
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" -j latency eth0 -d 1.2 -i 0.5
	# the observer beside top, check -i, export and record
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" -j top -b -c 2 -d 0.3 eth0
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" check -i 0.5 eth0
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" export --textfile "$tmp" --latency 0.5 eth0
	vg --suppressions="$here/valgrind-libbpf.supp" "$bin" record --latency eth0 -d 1 -o "$tmp/l.bqt"
fi
vg "$bin" latency --from "$here/data/traces/ringtime.bqlt" --hist
vg "$bin" -j latency --from "$here/../examples/completion-only.bqlt"
vg "$bin" latency nosuchdev -d 1
# hostile names, duplicate keys, a plot that must choose its queues
cp -a "$here/data/sysfs/nic1" "$tmp/hostile"
mv "$tmp/hostile/class/net/eth0" "$tmp/hostile/class/net/"$'e\e[2J\xc2\x9b\xff'
vg "$bin" --sysfs-root "$tmp/hostile" show
vg "$bin" --sysfs-root "$tmp/hostile" -j check
printf '{"bqltool_profile":1,"devices":{"eth0":{"all":{}},"eth0":{"all":{}}}}' >"$tmp/dup.json"
vg "$bin" $T apply --check "$tmp/dup.json"
awk 'BEGIN { print "bqltrace 1"; for (i = 0; i < 100; i++) print "queue q" i;
	for (i = 0; i < 100; i++) print 1000 + i, "q" i, "Q 1514" }' >"$tmp/many.bqlt"
vg "$bin" replay --plot "$tmp/many.svg" --timeline "$tmp/many.jsonl" "$tmp/many.bqlt"
vg "$bin" -j -p replay "$tmp/many.bqlt"
# a timeline of several MB: the writer thread's buffers go round; then one
# whose replay fails at its end (the thread stops, its file is dropped)
awk 'BEGIN { print "bqltrace 1"; print "queue q"; for (i = 0; i < 150000; i++) {
	print 1000 + 2 * i, "q Q 1514"; print 1001 + 2 * i, "q C 1514" } }' >"$tmp/long.bqlt"
vg "$bin" replay -q --all-events --timeline "$tmp/long.csv" "$tmp/long.bqlt"
echo "5 q C 1" >>"$tmp/long.bqlt"
vg "$bin" replay -q --all-events --timeline "$tmp/long2.jsonl.gz" "$tmp/long.bqlt"
vg "$bin" $R help --devices
vg "$bin" $R show -j eth1 -v
vg "$bin" $T set --force eth0:0 limit_min=5000 limit_max=3000 stall_max=0
vg "$bin" $T set -q eth0:1 limit_max=1000
for t in test_dql test_trace test_replay test_sim test_tune test_sel test_units test_profile test_out \
	test_ofile test_tinput test_recwriter test_esc test_jscan test_svgplot test_sampler test_topmodel \
	test_jsonw test_replay_series test_lat; do
	[ -x "$build/tests/unit/$t" ] && vg "$build/tests/unit/$t"
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
