// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of the latency observer's cost (make bench, tests/tools/latfloor):
 * an empty program at each tracepoint the observer attaches to, and one that
 * reads the clock once, so that the bench can say how much of the
 * observer's run time any program at those tracepoints costs here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/net_dev_xmit")
int BPF_PROG(floor_xmit) { return 0; }
SEC("tp_btf/napi_poll")
int BPF_PROG(floor_napi) { return 0; }
SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(floor_enq) { return 0; }
SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(floor_deq) { return 0; }
SEC("tp_btf/kfree_skb")
int BPF_PROG(floor_drop) { return 0; }
SEC("tp_btf/softirq_raise")
int BPF_PROG(floor_raise) { return 0; }
SEC("tp_btf/softirq_entry")
int BPF_PROG(floor_sentry) { return 0; }
SEC("tp_btf/softirq_exit")
int BPF_PROG(floor_sexit) { return 0; }

/* one clock read, at the transmit: what the observer's timestamps cost */
SEC("tp_btf/net_dev_xmit")
int BPF_PROG(floor_xmit_clock) { return bpf_ktime_get_ns() == 0; }
