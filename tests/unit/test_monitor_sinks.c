// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sinks' formats and address parsing (monitor/sink_fmt.c), and the
 * delivery core against a receiver that is down: spool, exact counts,
 * hand-over to the next start (cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "sink.h"
#include "sinks.h"

static const char REC[] =
	"{\"metadata\":{\"uid\":\"u-1\"},\"class_uid\":2004,\"class_name\":\"Detection Finding\","
	"\"activity_name\":\"Create\",\"time\":1795000000123,\"severity_id\":4,"
	"\"message\":\"sandbox sb: ptrace\",\"finding_info\":{\"uid\":\"f-1\"},"
	"\"device\":{\"hostname\":\"h1\"},\"unmapped\":{\"rule\":\"unexpected-syscall\","
	"\"sandbox\":\"s\\\"b]\"}}";

static void test_syslog_addr(void **state)
{
	struct sink_syslog_addr a;
	char why[256];

	(void)state;
	assert_int_equal(sink__parse_syslog("udp://127.0.0.1:514", &a, why, sizeof(why)), 0);
	assert_int_equal(a.net, SINK_UDP);
	assert_string_equal(a.host, "127.0.0.1");
	assert_string_equal(a.port, "514");
	assert_int_equal(sink__parse_syslog("tcp://[::1]:6514", &a, why, sizeof(why)), 0);
	assert_int_equal(a.net, SINK_TCP);
	assert_string_equal(a.host, "::1");
	assert_int_equal(sink__parse_syslog("unix:/dev/log", &a, why, sizeof(why)), 0);
	assert_string_equal(a.path, "/dev/log");
	assert_int_equal(sink__parse_syslog("udp://h", &a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "--syslog"));
	assert_int_equal(sink__parse_syslog("udp://h:0", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("udp://h:65536", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("udp://h:1x", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("udp://::1:514", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("udp://:514", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("unix:rel", &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_syslog("syslog://h:514", &a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "unknown scheme"));
}

static void test_urls(void **state)
{
	char why[256], *u;

	(void)state;
	assert_int_equal(sink__parse_url("--otlp", "http://127.0.0.1:4318", why, sizeof(why)), 0);
	assert_int_equal(sink__parse_url("--webhook", "https://h/x?y", why, sizeof(why)), 0);
	assert_int_equal(sink__parse_url("--webhook", "ftp://h/", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "--webhook ftp://h/: unknown scheme"));
	assert_int_equal(sink__parse_url("--otlp", "http:///x", why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_url("--otlp", "http://u@h/", why, sizeof(why)), -EINVAL);
	assert_int_equal(sink__parse_url("--otlp", "http://h/a b", why, sizeof(why)), -EINVAL);
	u = sink__otlp_url("http://c:4318");
	assert_string_equal(u, "http://c:4318/v1/logs");
	free(u);
	u = sink__otlp_url("http://c:4318/");
	assert_string_equal(u, "http://c:4318/v1/logs");
	free(u);
	u = sink__otlp_url("http://c:4318/custom/logs");
	assert_string_equal(u, "http://c:4318/custom/logs");
	free(u);
}

static void test_traceparent(void **state)
{
	struct sink_trace t;

	(void)state;
	assert_int_equal(sink__traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					   &t), 0);
	assert_string_equal(t.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
	assert_string_equal(t.span_id, "00f067aa0ba902b7");
	assert_int_equal(t.flags, 1);
	/* a later version may append fields */
	assert_int_equal(sink__traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-x",
					   &t), 0);
	static const char *bad[] = {
		"", "00-zz", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sink__traceparent(bad[i], &t), -EINVAL);
}

static void test_severity_and_ids(void **state)
{
	struct sink_rec r;
	const char *text;

	(void)state;
	assert_int_equal(sink__syslog_severity(1), 6);
	assert_int_equal(sink__syslog_severity(3), 4);
	assert_int_equal(sink__syslog_severity(5), 2);
	assert_int_equal(sink__syslog_severity(99), 5);
	assert_int_equal(sink__otlp_severity(4, &text), 17);
	assert_string_equal(text, "ERROR");
	assert_int_equal(sink__otlp_severity(99, &text), 0);
	assert_int_equal(sink__rec_parse(REC, strlen(REC), &r), 0);
	assert_string_equal(sink__message_id(&r), "e4ffe52ea73644e987da9c546dad3a86");
	r.rule = "lost-events";
	assert_string_equal(sink__message_id(&r), "2b0c80adfb89421f85cb4abe7bb72220");
	r.rule = NULL;
	r.class_uid = 4003;
	assert_string_equal(sink__message_id(&r), "3a973fc22ec84780a64dd3d5189a0e87");
	r.class_uid = 1;
	assert_string_equal(sink__message_id(&r), "7d229fe66c384d679fdb01e66ed8f7e5");
	sink__rec_free(&r);
	assert_int_equal(sink__rec_parse("[1]", 3, &r), -EINVAL);
	assert_int_equal(sink__rec_parse("{", 1, &r), -EINVAL);
}

static void test_rfc5424(void **state)
{
	struct sink_rec r;
	char *m;

	(void)state;
	assert_int_equal(sink__rec_parse(REC, strlen(REC), &r), 0);
	m = sink__rfc5424(&r, "fallback", 42);
	assert_non_null(m);
	/* PRI 13*8+3, version 1, UTC ms time, the record's host, app, pid, msgid */
	assert_true(!strncmp(m, "<107>1 2026-11-18T", 18));
	assert_non_null(strstr(m, ".123Z h1 ringfence-monitor 42 unexpected-syscall "
				  "[ringfence@32473 uid=\"u-1\" finding=\"f-1\" "
				  "rule=\"unexpected-syscall\" sandbox=\"s\\\"b\\]\" severity_id=\"4\" "
				  "activity=\"Create\"] {"));
	assert_non_null(strstr(m, REC));
	free(m);
	sink__rec_free(&r);
}

static void test_otlp_json(void **state)
{
	struct sink_trace t;
	struct sink_rec r, *rp = &r;
	json_t *o, *lr;
	char *s;

	(void)state;
	assert_int_equal(sink__traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					   &t), 0);
	assert_int_equal(sink__rec_parse(REC, strlen(REC), &r), 0);
	s = sink__otlp_json(&rp, 1, "h1", &t);
	assert_non_null(s);
	o = json_loads(s, 0, NULL);
	assert_non_null(o);
	lr = json_array_get(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(o, "resourceLogs"), 0), "scopeLogs"), 0),
		"logRecords"), 0);
	assert_non_null(lr);
	assert_string_equal(json_string_value(json_object_get(lr, "timeUnixNano")),
			    "1795000000123000000");
	assert_int_equal(json_integer_value(json_object_get(lr, "severityNumber")), 17);
	assert_string_equal(json_string_value(json_object_get(lr, "traceId")), t.trace_id);
	assert_string_equal(json_string_value(json_object_get(lr, "spanId")), t.span_id);
	assert_string_equal(json_string_value(json_object_get(json_object_get(lr, "body"),
							      "stringValue")), REC);
	json_decref(o);
	free(s);
	sink__rec_free(&r);
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* A webhook on a port nothing listens on: every record spooled, counts
 * exact, the spool handed to the next start intact. The retries at close
 * (a second of them) wait between attempts: they take no CPU to speak of
 * (a wait that ended at once spun a whole CPU: a condvar on the wrong
 * clock). */
static void test_spool_down(void **state)
{
	char dir[] = "/tmp/rf-sinks-unit-XXXXXX", path[300];
	struct rf_sinks_opts o = { .spool_bytes = 1 << 20, .queue_bytes = 1 << 20 };
	struct rf_sink_stats st[RF_SINK_MAX];
	struct rf_sinks *s;
	struct rf_error e = { 0 };
	struct stat sb;
	double cpu;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	o.spool_dir = dir;
	o.addr[RF_SINK_WEBHOOK] = "http://127.0.0.1:1/hook";
	assert_int_equal(sinks__open(&o, "h1", &s, &e), 0);
	for (i = 0; i < 10; i++)
		sinks__push(s, REC);
	sinks__push(s, "not json\n");
	o.drain_ms = 1000;
	cpu = cpu_s();
	sinks__close(s, st);
	cpu = cpu_s() - cpu;
	assert_true(cpu < 0.3);
	o.drain_ms = 0;
	assert_true(st[RF_SINK_WEBHOOK].on);
	assert_false(st[RF_SINK_SYSLOG].on);
	assert_int_equal(st[RF_SINK_WEBHOOK].queued, 11);
	assert_int_equal(st[RF_SINK_WEBHOOK].delivered, 0);
	/* the record that is not JSON is dropped once its turn comes: it
	 * was spooled first (the receiver was down), so at the next start */
	assert_int_equal(st[RF_SINK_WEBHOOK].spooled + st[RF_SINK_WEBHOOK].dropped, 11);
	assert_int_equal(st[RF_SINK_WEBHOOK].pending, st[RF_SINK_WEBHOOK].spooled);
	snprintf(path, sizeof(path), "%s/webhook.ndjson", dir);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(st[RF_SINK_WEBHOOK].spool_bytes, (uint64_t)sb.st_size);
	/* the next start finds them pending */
	assert_int_equal(sinks__open(&o, "h1", &s, &e), 0);
	sinks__stats(s, st);
	assert_int_equal(st[RF_SINK_WEBHOOK].pending, 11);
	sinks__close(s, NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/webhook.offset", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syslog_addr),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_traceparent),
		cmocka_unit_test(test_severity_and_ids),
		cmocka_unit_test(test_rfc5424),
		cmocka_unit_test(test_otlp_json),
		cmocka_unit_test(test_spool_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
