// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the Prometheus exposition (cmd/prom.c) on snapshots built
 * by hand: the per-queue qstats counters that fake sysfs trees cannot give,
 * label escaping, unit conversion, and families never split.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/prom.c"

static void set_attr(struct snap_queue *q, enum bql_attr a, uint64_t v)
{
	q->bql.val[a] = v;
	q->bql.present |= 1u << a;
}

/* eth0: 2 queues with everything incl. qstats on queue 1; weird: 1 queue,
 * no stall files, a name that needs escaping. */
static void build(struct snapshot *s, struct snap_dev d[2], struct snap_queue q[3])
{
	memset(s, 0, sizeof(*s));
	memset(d, 0, 2 * sizeof(*d));
	memset(q, 0, 3 * sizeof(*q));
	for (int i = 0; i < 2; i++) {
		q[i].bql.index = (unsigned int)i;
		set_attr(&q[i], BQL_LIMIT, 3028 + 1514 * (uint64_t)i);
		set_attr(&q[i], BQL_LIMIT_MIN, 0);
		set_attr(&q[i], BQL_LIMIT_MAX, 1879048192);
		set_attr(&q[i], BQL_HOLD_TIME, i ? 1004 : 1000);
		set_attr(&q[i], BQL_INFLIGHT, 100 * (uint64_t)i);
		set_attr(&q[i], BQL_STALL_THRS, i ? 12 : 0);
		set_attr(&q[i], BQL_STALL_CNT, (uint64_t)i * 7);
		set_attr(&q[i], BQL_STALL_MAX, (uint64_t)i * 3);
	}
	q[1].qs_present = SQ_TX_BYTES | SQ_TX_PACKETS | SQ_TX_STOP | SQ_TX_WAKE;
	q[1].tx_bytes = 123456789012ull;
	q[1].tx_packets = 98765;
	q[1].tx_stop = 4;
	q[1].tx_wake = 5;
	snprintf(d[0].ifname, sizeof(d[0].ifname), "eth0");
	d[0].present = SD_IFINDEX | SD_OPERSTATE | SD_QDISC;
	d[0].ifindex = 2;
	snprintf(d[0].operstate, sizeof(d[0].operstate), "up");
	snprintf(d[0].qdisc, sizeof(d[0].qdisc), "mq");
	d[0].ntx = 2;
	d[0].nq = 2;
	d[0].q = &q[0];

	q[2].bql.index = 5;
	set_attr(&q[2], BQL_LIMIT, 1514);
	set_attr(&q[2], BQL_LIMIT_MIN, 0);
	set_attr(&q[2], BQL_LIMIT_MAX, 1879048192);
	set_attr(&q[2], BQL_HOLD_TIME, 1000);
	set_attr(&q[2], BQL_INFLIGHT, 0);
	snprintf(d[1].ifname, sizeof(d[1].ifname), "we\"ird\\x");
	d[1].ntx = 8;
	d[1].nq = 1;
	d[1].q = &q[2];
	s->dev = d;
	s->n = 2;
}

static char *expose(const struct snapshot *s)
{
	struct bql_ctx c;
	char *buf = NULL;
	size_t len = 0;

	bql_ctx_init(&c);
	c.out = open_memstream(&buf, &len);
	assert_non_null(c.out);
	assert_int_equal(cmd_print_prometheus(&c, s), BQL_EXIT_OK);
	fclose(c.out);
	return buf;
}

static int setup_hz(void **state)
{
	(void)state;
	setenv("BQLTOOL_HZ", "250", 1);
	hz_reset_cache();
	return 0;
}

static void test_qstats_and_units(void **state)
{
	struct snapshot s;
	struct snap_dev d[2];
	struct snap_queue q[3];
	char *out;

	(void)state;
	build(&s, d, q);
	out = expose(&s);
	assert_non_null(strstr(out, "# TYPE bql_queue_tx_bytes_total counter\n"
				    "bql_queue_tx_bytes_total{device=\"eth0\",queue=\"tx-1\"} 123456789012\n"
				    "# HELP bql_queue_tx_packets_total"));
	assert_non_null(strstr(out, "bql_queue_tx_packets_total{device=\"eth0\",queue=\"tx-1\"} 98765\n"));
	assert_non_null(strstr(out, "bql_queue_tx_stop_total{device=\"eth0\",queue=\"tx-1\"} 4\n"));
	assert_non_null(strstr(out, "bql_queue_tx_wake_total{device=\"eth0\",queue=\"tx-1\"} 5\n"));
	/* no counter the driver did not report, and no family without samples */
	assert_null(strstr(out, "bql_queue_tx_bytes_total{device=\"eth0\",queue=\"tx-0\"}"));
	assert_null(strstr(out, "tx_hw_drops"));
	/* ms and jiffies become exact decimal seconds (HZ 250: 3 jiffies = 12 ms) */
	assert_non_null(strstr(out, "bql_hold_time_seconds{device=\"eth0\",queue=\"tx-1\"} 1.004\n"));
	assert_non_null(strstr(out, "bql_stall_threshold_seconds{device=\"eth0\",queue=\"tx-1\"} 0.012\n"));
	assert_non_null(strstr(out, "bql_stall_max_seconds{device=\"eth0\",queue=\"tx-1\"} 0.012\n"));
	assert_non_null(strstr(out, "bql_stall_events_total{device=\"eth0\",queue=\"tx-1\"} 7\n"));
	assert_non_null(strstr(out, "bql_device_info{device=\"eth0\",ifindex=\"2\",operstate=\"up\",qdisc=\"mq\"} 1\n"));
	assert_non_null(strstr(out, "bql_kernel_hz{source=\"BQLTOOL_HZ\"} 250\n"));
	free(out);
}

static void test_escaping_and_grouping(void **state)
{
	struct snapshot s;
	struct snap_dev d[2];
	struct snap_queue q[3];
	char *out, *line, *save = NULL, last[64] = "";
	const char *seen[64];
	int nseen = 0;

	(void)state;
	build(&s, d, q);
	out = expose(&s);
	assert_non_null(strstr(out, "bql_limit_bytes{device=\"we\\\"ird\\\\x\",queue=\"tx-5\"} 1514\n"));
	assert_non_null(strstr(out, "bql_device_info{device=\"we\\\"ird\\\\x\"} 1\n"));
	assert_non_null(strstr(out, "bql_device_tx_queues{device=\"we\\\"ird\\\\x\"} 8\n"));
	/* the device without stall files has no stall samples */
	assert_null(strstr(out, "bql_stall_events_total{device=\"we"));
	/* every sample's family was announced just before, never twice */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (!strncmp(line, "# HELP ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			sscanf(line + 7, "%63s", last);
			for (int i = 0; i < nseen; i++)
				assert_string_not_equal(seen[i], line + 7);
			assert_true(nseen < 64);
			seen[nseen++] = line + 7;
			continue;
		}
		sscanf(line, "%63[^{ ]", name);
		assert_string_equal(name, last);
		assert_null(strchr(strchr(line, '}') + 2, ' '));	/* no timestamp */
	}
	free(out);
}

static void test_empty(void **state)
{
	struct snapshot s = { 0 };
	char *out;

	(void)state;
	out = expose(&s);
	assert_string_equal(out,
		"# HELP bql_kernel_hz Kernel HZ used to convert jiffies to seconds; "
		"source says where it came from.\n"
		"# TYPE bql_kernel_hz gauge\n"
		"bql_kernel_hz{source=\"BQLTOOL_HZ\"} 250\n");
	free(out);
}

static void test_ms_as_seconds(void **state)
{
	static const struct { uint64_t ms; const char *s; } v[] = {
		{ 0, "0" }, { 1, "0.001" }, { 10, "0.01" }, { 250, "0.25" },
		{ 1000, "1" }, { 1004, "1.004" }, { 4294967295u, "4294967.295" },
	};
	char buf[48];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		fmt_as_seconds(buf, sizeof(buf), v[i].ms, 1000);
		assert_string_equal(buf, v[i].s);
	}
	/* microseconds (tx-usecs) the same way */
	static const struct { uint64_t us; const char *s; } u[] = {
		{ 0, "0" }, { 50, "0.00005" }, { 1500000, "1.5" }, { 1000000, "1" },
		{ 123456, "0.123456" },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		fmt_as_seconds(buf, sizeof(buf), u[i].us, 1000000);
		assert_string_equal(buf, u[i].s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qstats_and_units),
		cmocka_unit_test(test_escaping_and_grouping),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ms_as_seconds),
	};

	return cmocka_run_group_tests(tests, setup_hz, NULL);
}
