// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor's syscall sensor (tp_btf/sys_exit, which slows every
 * syscall of the host) is attached only with --record; calls outside a
 * sandbox's syscalls profile reach the monitor from the supervisor's
 * seccomp listener instead (privileged). Links read from the kernel's
 * own list:
 *   - a monitor alone, with a sandbox without a profile, and with a
 *     sandbox with one live: never attached;
 *   - an "alert" profile: a call outside it, made three times, succeeds,
 *     and the monitor raises rf-unexpected-syscall for it exactly once
 *     (outcome unknown: the listener let it through, source the listener);
 *   - a "deny" profile: the call fails EPERM, the trace has its kernel.deny
 *     (class syscalls, op syscall), the alert is refused and Critical;
 *   - a monitor with --record (profiles are learnt from recordings):
 *     attached with no sandbox at all.
 */
#include <bpf/bpf.h>
#include "harness.h"
#include "links.h"

#define SENSOR "rf_mon_sys_exit"

static char *tmpdir_path, *mon_out, *mon_status, *mon_rec;
static pid_t mon_pid = -1;

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

static void test_not_for_profiles(void **state)
{
	struct h_proc p;

	(void)state;
	start_monitor(false);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	/* a sandbox without a profile: the monitor has seen it (its registry
	 * entry comes before the command) and not attached */
	p = sandbox(plain, 1500);
	h_sleep_ms(500);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	sandbox_end(p);
	/* with a profile: not attached either (the listener reports) */
	p = sandbox(profiled, 1500);
	h_sleep_ms(500);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	sandbox_end(p);
	stop_monitor();
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
}

/* What rf-load needs to start and sleep here; getcpu is not in it. */
#define LOADER_SYSCALLS                                                              \
	"\"read\",\"write\",\"brk\",\"mmap\",\"munmap\",\"mprotect\",\"openat\",\"close\","    \
	"\"fstat\",\"newfstatat\",\"pread64\",\"arch_prctl\",\"set_tid_address\","          \
	"\"set_robust_list\",\"rseq\",\"prlimit64\",\"getrandom\",\"access\",\"futex\","     \
	"\"rt_sigaction\",\"rt_sigprocmask\",\"clock_nanosleep\",\"nanosleep\",\"lseek\","   \
	"\"ioctl\""

/* The open-phase rf-unexpected-syscall records of policy id for syscall
 * name, waiting up to ms for at least one. */
static json_t *syscall_alerts(const char *id, const char *name, long ms)
{
	uint64_t end = h_now_ms() + (uint64_t)ms;
	json_t *all = NULL, *sel;

	for (;;) {
		size_t i;
		json_t *o;

		json_decref(all);
		all = h_monitor_records(mon_out);
		sel = json_array();
		json_array_foreach(all, i, o) {
			json_t *um = json_object_get(o, "unmapped");
			const char *rule = json_string_value(json_object_get(um, "rule"));
			const char *pid = json_string_value(json_object_get(um, "policy_id"));
			const char *sc = json_string_value(json_object_get(um, "syscall"));
			const char *ph = json_string_value(json_object_get(um, "phase"));

			if (rule && !strcmp(rule, "unexpected-syscall") && pid && !strcmp(pid, id) &&
			    sc && !strcmp(sc, name) && ph && !strcmp(ph, "open"))
				json_array_append(sel, o);
		}
		if (json_array_size(sel) || h_now_ms() >= end)
			break;
		json_decref(sel);
		h_sleep_ms(100);
	}
	json_decref(all);
	return sel;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static const char *um_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(json_object_get(o, "unmapped"), k));
}

/* rf-load getcpu three times under a profile without it (mode alert or
 * deny), the monitor without --record: its output, the trace in *ret_trace,
 * the sensor's links counted while the sandbox lived. */
static char *profiled_run(const char *id, const char *mode, json_t **ret_trace)
{
	const char *argv[] = { h_tool("rf-load"), "syscall", "getcpu", "syscall", "getcpu",
			       "sleep", "800", "syscall", "getcpu", NULL };
	char policy[2048], *path, *trace, *out = NULL;
	struct h_proc p;

	snprintf(policy, sizeof(policy), "{\"version\":1,\"id\":\"%s\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
		 "\"syscalls\":{\"on_violation\":\"%s\",\"allow\":[" LOADER_SYSCALLS "]}}",
		 id, mode);
	path = h_tempfile("sensor", policy);
	assert_true(asprintf(&trace, "%s/%s.trace", tmpdir_path, id) > 0);
	p = h_spawn(path, trace, NULL, argv);
	h_sleep_ms(400);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);    /* while it lives */
	assert_int_equal(h_wait(p, &out, NULL), 0);
	*ret_trace = h_trace(trace);
	unlink(path);
	free(path);
	free(trace);
	return out;
}

static void test_alert_profile_from_listener(void **state)
{
	json_t *trace, *sel, *o;
	char *out;

	(void)state;
	start_monitor(false);
	out = profiled_run("sensor-alert", "alert", &trace);
	/* let through: it ran, all three times */
	assert_int_equal(count_of(out, "syscall getcpu ok\n"), 3);
	assert_null(strstr(out, "EPERM"));
	assert_null(strstr(out, "ENOSYS"));
	sel = syscall_alerts("sensor-alert", "getcpu", 5000);
	h_sleep_ms(1000);       /* a second record would have come by now */
	json_decref(sel);
	sel = syscall_alerts("sensor-alert", "getcpu", 0);
	assert_int_equal(json_array_size(sel), 1);
	o = json_array_get(sel, 0);
	assert_string_equal(um_str(o, "outcome"), "unknown");
	assert_string_equal(um_str(o, "source"), "seccomp-listener");
	assert_null(um_str(o, "errno"));
	assert_true(json_is_false(json_object_get(json_object_get(o, "unmapped"), "refused")));
	assert_int_equal(json_integer_value(json_object_get(o, "severity_id")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "count")), 1);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	json_decref(sel);
	json_decref(trace);
	free(out);
	stop_monitor();
}

static void test_deny_profile_from_listener(void **state)
{
	json_t *trace, *sel, *o, *ev;
	size_t i, n = 0;
	char *out;

	(void)state;
	start_monitor(false);
	out = profiled_run("sensor-deny", "deny", &trace);
	/* refused: EPERM each time, the loader's own calls work */
	assert_int_equal(count_of(out, "syscall getcpu EPERM\n"), 3);
	json_array_foreach(trace, i, ev) {
		json_t *dst = json_object_get(ev, "destination");
		const char *sc = json_string_value(json_object_get(dst, "syscall"));

		if (strcmp(json_string_value(json_object_get(ev, "event")), "kernel.deny") ||
		    !sc || strcmp(sc, "getcpu"))
			continue;
		n++;
		assert_string_equal(json_string_value(json_object_get(ev, "class")), "syscalls");
		assert_string_equal(json_string_value(json_object_get(ev, "op")), "syscall");
		assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "denied");
		assert_string_equal(json_string_value(json_object_get(ev, "backend")), "seccomp");
	}
	assert_int_equal(n, 1);         /* the first call of it */
	sel = syscall_alerts("sensor-deny", "getcpu", 5000);
	h_sleep_ms(1000);
	json_decref(sel);
	sel = syscall_alerts("sensor-deny", "getcpu", 0);
	assert_int_equal(json_array_size(sel), 1);
	o = json_array_get(sel, 0);
	assert_string_equal(um_str(o, "outcome"), "refused");
	assert_string_equal(um_str(o, "errno"), "EPERM");
	assert_true(json_is_true(json_object_get(json_object_get(o, "unmapped"), "refused")));
	assert_int_equal(json_integer_value(json_object_get(o, "severity_id")), 5);
	assert_int_equal(h_raw_tp_links(SENSOR), 0);
	json_decref(sel);
	json_decref(trace);
	free(out);
	stop_monitor();
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
		cmocka_unit_test(test_not_for_profiles),
		cmocka_unit_test(test_alert_profile_from_listener),
		cmocka_unit_test(test_deny_profile_from_listener),
		cmocka_unit_test(test_record_always),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
