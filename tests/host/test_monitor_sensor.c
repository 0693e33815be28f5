// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * When ringfence-monitor's syscall sensor (tp_btf/sys_exit, which slows
 * every syscall of the host) is attached (privileged). Read from the
 * kernel's own list of BPF links:
 *   - a monitor alone, and with a sandbox without a syscalls profile
 *     live: not attached;
 *   - a sandbox with a profile live: attached, and detached again after
 *     it ended;
 *   - a monitor with --record (profiles are learnt from recordings):
 *     attached with no sandbox at all.
 */
#include <bpf/bpf.h>
#include "harness.h"
#include "links.h"

#define SENSOR "rf_mon_sys_exit"

static char *tmpdir_path, *mon_out, *mon_status, *mon_rec;
static pid_t mon_pid = -1;

/* Wait up to ms for h_raw_tp_links(SENSOR) == want; the count at the end. */
static int wait_sensor(int want, long ms)
{
	uint64_t end = h_now_ms() + (uint64_t)ms;
	int n;

	while ((n = h_raw_tp_links(SENSOR)) != want && h_now_ms() < end)
		h_sleep_ms(20);
	return n;
}

static void start_monitor(bool record)
{
	const char *args[] = { "--output", mon_out, "--state", "", "--interval", "250",
			       "--linger-ms", "500", record ? "--record" : NULL, mon_rec, NULL };

	mon_pid = h_monitor_start(mon_status, args, NULL);
}

static void stop_monitor(void)
{
	if (mon_pid <= 0)
		return;
	assert_int_equal(h_monitor_stop(mon_pid), 0);
	mon_pid = -1;
}

/* ringfence run of `rf-load sleep ms` under policy, in the background. */
static struct h_proc sandbox(const char *policy, long ms)
{
	char *path = h_tempfile("sensor", policy), arg[32];
	const char *argv[] = { h_tool("rf-load"), "sleep", arg, NULL };
	struct h_proc p;

	snprintf(arg, sizeof(arg), "%ld", ms);
	p = h_spawn(path, NULL, NULL, argv);
	/* the supervisor has read it by the time its command runs */
	h_sleep_ms(300);
	unlink(path);
	free(path);
	return p;
}

static void sandbox_end(struct h_proc p)
{
	assert_int_equal(h_wait(p, NULL, NULL), 0);
}

static const char plain[] =
	"{\"version\":1,\"id\":\"sensor-plain\",\"files\":\"unrestricted\","
	"\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}";
static const char profiled[] =
	"{\"version\":1,\"id\":\"sensor-profiled\",\"files\":\"unrestricted\","
	"\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
	"\"syscalls\":{\"on_violation\":\"alert\",\"allow\":[\"read\",\"write\"]}}";

static void test_only_for_profiles(void **state)
{
	struct h_proc p;

	(void)state;
	start_monitor(false);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	/* a sandbox without a profile: the monitor has seen it (its registry
	 * entry comes before the command) and still not attached */
	p = sandbox(plain, 1500);
	h_sleep_ms(500);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	sandbox_end(p);
	/* with a profile: attached while it lives */
	p = sandbox(profiled, 6000);
	assert_int_equal(wait_sensor(1, 5000), 1);
	sandbox_end(p);
	assert_int_equal(wait_sensor(0, 5000), 0);
	stop_monitor();
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
}

static void test_record_always(void **state)
{
	(void)state;
	start_monitor(true);
	assert_int_equal(h_raw_tp_links(SENSOR), 1);
	stop_monitor();
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
}

static int setup(void **state)
{
	char tpl[] = "/tmp/rf-sensor-XXXXXX";

	(void)state;
	if (harness_require_root())
		return -1;
	tmpdir_path = strdup(mkdtemp(tpl));
	assert_true(asprintf(&mon_out, "%s/alerts.ndjson", tmpdir_path) > 0);
	assert_true(asprintf(&mon_status, "%s/status.json", tmpdir_path) > 0);
	assert_true(asprintf(&mon_rec, "%s/rec.ndjson", tmpdir_path) > 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	if (mon_pid > 0) {
		kill(mon_pid, SIGKILL);
		waitpid(mon_pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir_path);
	if (system(cmd))
		return -1;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_for_profiles),
		cmocka_unit_test(test_record_always),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
