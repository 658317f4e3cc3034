// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency summaries of a recording (lib/io/tlatency.c): the lines
 * record --latency writes are folded, per kind, the highest p99 and max of
 * any queue; every other line, and a summary missing a field, out of
 * order or overflowing, is skipped; a file read plain and gzip-compressed
 * gives the same; standard input is not read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/io/tlatency.h"

static bool fold(const char *line, const char *kind, struct tlat_kind *k)
{
	return tlat_line(line, strlen(line), kind, k);
}

static void test_lines(void **state)
{
	struct tlat_kind k;

	(void)state;
	memset(&k, 0, sizeof(k));
	assert_true(fold("# latency eth0:tx-0 irq_delay p50=1000 p90=2000 p99=7000 max=90000 count=40",
			 "irq_delay", &k));
	assert_true(fold("# latency eth0:tx-1 irq_delay p50=1000 p90=2000 p99=5000 max=120000 count=2",
			 "irq_delay", &k));
	assert_int_equal(k.queues, 2);
	assert_int_equal(k.count, 42);
	assert_int_equal(k.p99_ns, 7000);
	assert_int_equal(k.max_ns, 120000);
	/* a queue with nothing measured counts for nothing */
	assert_true(fold("# latency eth0:tx-2 irq_delay p50=0 p90=0 p99=0 max=0 count=0",
			 "irq_delay", &k));
	assert_int_equal(k.queues, 2);
	/* other kinds, other lines */
	assert_false(fold("# latency eth0:tx-0 ring_time p50=1 p90=2 p99=3 max=4 count=5",
			  "irq_delay", &k));
	assert_true(fold("# latency eth0:tx-0 qdisc_wait p50=1 p90=2 p99=3 max=4 count=5 bypass=9",
			 "qdisc_wait", &(struct tlat_kind){ 0 }));
	assert_false(fold("# latency window_ns=2000000000 (bqltool latency's observer, times in ns)",
			  "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 stops bql=1 ring=2 both=0 xmit=3 sent=4 polls=5",
			  "irq_delay", &k));
	assert_false(fold("C eth0:tx-0 1 1514 limit=3028", "irq_delay", &k));
	assert_false(fold("#latency eth0:tx-0 irq_delay p99=1 max=2 count=3", "irq_delay", &k));
	/* malformed: skipped, never half taken */
	assert_false(fold("# latency eth0:tx-0 irq_delay p50=1 p90=2 max=4 count=5", "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 irq_delay p99=9 max=4 count=5", "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 irq_delay p99=1x max=4 count=5", "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 irq_delay p99=-1 max=4 count=5", "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 irq_delay p99=99999999999999999999 max=4 count=5",
			  "irq_delay", &k));
	assert_false(fold("# latency eth0:tx-0 irq_delays p99=1 max=4 count=5", "irq_delay", &k));
	assert_int_equal(k.queues, 2);
	assert_int_equal(k.p99_ns, 7000);
	/* the length given, not the string's: a summary cut short is none */
	{
		const char *l = "# latency eth0:tx-0 irq_delay p99=1 max=4 count=5";

		assert_false(tlat_line(l, strlen(l) - 8, "irq_delay", &k));
	}
}

static void test_read(void **state)
{
	char dir[] = "/tmp/test_tlatency.XXXXXX", path[128], cmd[320];
	struct tlat_kind k, kz;
	struct bql_err e;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.bqlt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("bqltrace v1 hz=250\n", f);
	for (int i = 0; i < 20000; i++)	/* more than one read's worth before the summaries */
		fprintf(f, "C eth0:tx-0 %d 1514 limit=3028\n", i);
	fprintf(f, "# %*s\n", 9000, "a long comment line");
	fputs("# latency eth0:tx-0 irq_delay p50=1000 p90=2000 p99=33000 max=90000 count=40\n", f);
	fputs("# latency eth0:tx-0 ring_time p50=1 p90=2 p99=3 max=4 count=5", f);	/* no newline */
	fclose(f);
	assert_int_equal(tlat_read(path, "irq_delay", &k, &e), 0);
	assert_int_equal(k.queues, 1);
	assert_int_equal(k.p99_ns, 33000);
	assert_int_equal(tlat_read(path, "ring_time", &k, &e), 0);
	assert_int_equal(k.queues, 1);
	assert_int_equal(k.max_ns, 4);
	/* compressed: the same */
	snprintf(cmd, sizeof(cmd), "gzip -k %s", path);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/t.bqlt.gz", dir);
	assert_int_equal(tlat_read(path, "irq_delay", &kz, &e), 0);
	assert_int_equal(kz.queues, 1);
	assert_int_equal(kz.count, 40);
	assert_int_equal(kz.p99_ns, 33000);
	assert_int_equal(kz.max_ns, 90000);
	/* standard input cannot be read twice: none */
	assert_int_equal(tlat_read("-", "irq_delay", &k, &e), 0);
	assert_int_equal(k.queues, 0);
	/* a missing file: named */
	snprintf(path, sizeof(path), "%s/none.bqlt", dir);
	assert_true(tlat_read(path, "irq_delay", &k, &e) < 0);
	assert_non_null(strstr(e.msg, "none.bqlt"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
