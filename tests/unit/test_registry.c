// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* lib/registry: write -> read round trips in a scratch directory, the exact
 * bytes of an entry file, malformed files refused without crashing, the
 * policy sections the supervisor fills (cmocka, no root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "policy/policy.h"
#include "registry.h"
#include "run/registry_fill.h"

static char *allow_names[] = { "read", "write", "exit_group" };

static void full_entry(struct rf_registry_entry *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->sandbox, sizeof(e->sandbox), "t-reg-0123abcd");
	snprintf(e->policy_id, sizeof(e->policy_id), "t-reg");
	snprintf(e->digest, sizeof(e->digest), "%064d", 7);
	snprintf(e->mode, sizeof(e->mode), "audit");
	snprintf(e->cgroup_path, sizeof(e->cgroup_path), "/sys/fs/cgroup/ringfence/t-reg-0123abcd");
	e->cgroup_id = 4242;
	e->supervisor_pid = 100;
	e->supervisor_start = 123456789ULL;
	e->child_pid = 101;
	snprintf(e->started, sizeof(e->started), "2026-12-01T12:00:00.000000001Z");
	e->monitor.present = true;
	e->monitor.burst_count = (struct rf_reg_u64){ true, 5 };
	e->monitor.burst_window_ms = (struct rf_reg_u64){ true, 100 };
	e->monitor.memory_mb = (struct rf_reg_u64){ true, 900 };
	e->syscalls.present = true;
	e->syscalls.alert = true;
	e->syscalls.allow = allow_names;  /* lent: never cleared */
	e->syscalls.n_allow = 3;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void assert_same(const struct rf_registry_entry *a, const struct rf_registry_entry *b)
{
	size_t i;

	assert_string_equal(a->sandbox, b->sandbox);
	assert_string_equal(a->policy_id, b->policy_id);
	assert_string_equal(a->digest, b->digest);
	assert_string_equal(a->mode, b->mode);
	assert_string_equal(a->cgroup_path, b->cgroup_path);
	assert_string_equal(a->started, b->started);
	assert_int_equal(a->cgroup_id, b->cgroup_id);
	assert_int_equal(a->supervisor_pid, b->supervisor_pid);
	assert_int_equal(a->supervisor_start, b->supervisor_start);
	assert_int_equal(a->child_pid, b->child_pid);
	assert_int_equal(a->keep_running, b->keep_running);
	assert_memory_equal(&a->monitor, &b->monitor, sizeof(a->monitor));
	assert_int_equal(a->syscalls.present, b->syscalls.present);
	assert_int_equal(a->syscalls.alert, b->syscalls.alert);
	assert_int_equal(a->syscalls.n_allow, b->syscalls.n_allow);
	for (i = 0; i < a->syscalls.n_allow; i++)
		assert_string_equal(a->syscalls.allow[i], b->syscalls.allow[i]);
}

/* add_in -> list_in and read_file give back what was written; remove_in. */
static void test_round_trip(void **state)
{
	char dir[] = "/tmp/rf-reg-test-XXXXXX", path[512];
	struct rf_registry_entry e, plain, back, *v = NULL;
	size_t n = 0, i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	full_entry(&e);
	memset(&plain, 0, sizeof(plain));
	snprintf(plain.sandbox, sizeof(plain.sandbox), "t-plain-00000001");
	plain.cgroup_id = 7;
	plain.keep_running = true;        /* "on_supervisor_exit": "keep-running" */
	assert_int_equal(registry__add_in(dir, &e), 0);
	assert_int_equal(registry__add_in(dir, &plain), 0);
	put(dir, "t-half-00000002.json.tmp", "{\"sandbox\":");   /* a writer's temp file */

	assert_int_equal(registry__list_in(dir, &v, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		assert_same(v[i].cgroup_id == 4242 ? &e : &plain, &v[i]);
	registry__list_free(v, n);

	snprintf(path, sizeof(path), "%s/t-reg-0123abcd.json", dir);
	assert_int_equal(registry__read_file(path, &back), 0);
	assert_same(&e, &back);
	registry__entry_clear(&back);
	assert_int_equal(back.syscalls.allow, NULL);

	assert_int_equal(registry__remove_in(dir, "t-reg-0123abcd"), 0);
	assert_int_equal(registry__remove_in(dir, "t-reg-0123abcd"), 0);  /* gone is fine */
	assert_int_equal(registry__read_file(path, &back), -ENOENT);
	assert_int_equal(registry__list_in(dir, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].sandbox, "t-plain-00000001");
	assert_false(v[0].monitor.present);
	assert_false(v[0].syscalls.present);
	registry__list_free(v, n);
	rm_dir(dir);

	/* No directory: no entries. */
	assert_int_equal(registry__list_in(dir, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
}

/* An update (the child's pid after the launch) replaces the entry in one
 * step: the new content under the name, a new file (readers reload by
 * inode), no temporary file left, in a directory on the host's /run
 * filesystem and on a tmpfs alike. */
static void update_in(const char *base)
{
	char dir[256], path[512];
	struct rf_registry_entry e, back;
	struct stat st1, st2;
	struct dirent *de;
	DIR *d;
	int files = 0;

	snprintf(dir, sizeof(dir), "%s/rf-reg-test-XXXXXX", base);
	assert_non_null(mkdtemp(dir));
	full_entry(&e);
	e.child_pid = 0;
	assert_int_equal(registry__add_in(dir, &e), 0);
	snprintf(path, sizeof(path), "%s/t-reg-0123abcd.json", dir);
	assert_int_equal(stat(path, &st1), 0);
	e.child_pid = 4321;
	assert_int_equal(registry__add_in(dir, &e), 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st1.st_ino != st2.st_ino);
	assert_int_equal(registry__read_file(path, &back), 0);
	assert_int_equal(back.child_pid, 4321);
	registry__entry_clear(&back);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			files++;
	closedir(d);
	assert_int_equal(files, 1);
	rm_dir(dir);
}

static void test_update_replaces(void **state)
{
	(void)state;
	update_in("/tmp");
	update_in("/dev/shm");
}

/* The file format is a contract with ringfence-monitor and the schema:
 * keys, order and values exactly as before lib/registry. */
static void test_exact_bytes(void **state)
{
	char dir[] = "/tmp/rf-reg-test-XXXXXX", path[512];
	struct rf_registry_entry e;
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	full_entry(&e);
	assert_int_equal(registry__add_in(dir, &e), 0);
	snprintf(path, sizeof(path), "%s/t-reg-0123abcd.json", dir);
	text = slurp(path);
	assert_string_equal(text,
		"{\"sandbox\":\"t-reg-0123abcd\",\"policy_id\":\"t-reg\",\"policy_sha256\":"
		"\"0000000000000000000000000000000000000000000000000000000000000007\","
		"\"mode\":\"audit\",\"cgroup_path\":\"/sys/fs/cgroup/ringfence/t-reg-0123abcd\","
		"\"cgroup_id\":4242,\"supervisor_pid\":100,\"supervisor_start\":123456789,"
		"\"pid\":101,\"started\":\"2026-12-01T12:00:00.000000001Z\","
		"\"on_supervisor_exit\":\"kill\","
		"\"monitor\":{\"deny_burst\":{\"count\":5,\"window_ms\":100},\"memory_mb\":900},"
		"\"syscalls\":{\"allow\":[\"read\",\"write\",\"exit_group\"],"
		"\"on_violation\":\"alert\"}}");
	free(text);
	rm_dir(dir);
}

/* Each must be refused (-EINVAL), never half-read. */
static const char *const malformed[] = {
	"",
	"not json",
	"[1]",
	"{}",
	"{\"cgroup_id\":1}",                                    /* no sandbox */
	"{\"sandbox\":\"a\"}",                                  /* no cgroup_id */
	"{\"sandbox\":\"\",\"cgroup_id\":1}",
	"{\"sandbox\":\"a\",\"cgroup_id\":0}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"on_supervisor_exit\":\"maybe\"}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"on_supervisor_exit\":true}",
	"{\"sandbox\":1,\"cgroup_id\":1}",
	"{\"sandbox\":\"a\",\"cgroup_id\":\"1\"}",
	"{\"sandbox\":\"a\",\"cgroup_id\":-1}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1.5}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pid\":-3}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pid\":4294967296}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"started\":null}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"extra\":true}",    /* unknown key */
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"monitor\":[]}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"monitor\":{\"pids\":\"3\"}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"monitor\":{\"burst\":1}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"monitor\":{\"deny_burst\":{\"count\":5}}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"monitor\":{\"deny_burst\":{\"count\":5,"
		"\"window_ms\":1,\"x\":1}}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"syscalls\":{}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"syscalls\":{\"allow\":\"read\"}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"syscalls\":{\"allow\":[\"read\",7]}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"syscalls\":{\"allow\":[],\"on_violation\":\"kill\"}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"syscalls\":{\"allow\":[],\"why\":1}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"cgroup_placement\":7}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pin_set\":\"\"}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pin_set\":\"../../../tmp/xxxxxx\"}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pin_set\":\"0123456789ABCDEF\"}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"pin_set\":7}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"limit_exceeded\":{}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"limit_exceeded\":{\"limit\":\"pids\","
		"\"value\":9,\"threshold\":8}}",                   /* no unit */
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"limit_exceeded\":{\"limit\":\"pids\","
		"\"value\":-9,\"threshold\":8,\"unit\":\"processes\"}}",
	"{\"sandbox\":\"a\",\"cgroup_id\":1,\"limit_exceeded\":{\"limit\":\"pids\","
		"\"value\":9,\"threshold\":8,\"unit\":\"processes\",\"x\":1}}",
};

/* What a limit-ended run and a delegated place add: read back exactly. */
static void test_limit_and_placement(void **state)
{
	static const char text[] =
		"{\"sandbox\":\"a\",\"cgroup_path\":\"/cg/system.slice/x.scope/ringfence/a\","
		"\"cgroup_placement\":\"systemd-scope\",\"cgroup_id\":1,"
		"\"pin_set\":\"0123456789abcdef\","
		"\"limit_exceeded\":{\"limit\":\"wall_seconds\",\"value\":2,\"threshold\":1,"
		"\"unit\":\"seconds\"}}";
	struct rf_registry_entry e;
	json_t *j;
	char *back;

	(void)state;
	assert_int_equal(registry__parse(text, &e), 0);
	assert_string_equal(e.cgroup_placement, "systemd-scope");
	assert_string_equal(e.pin_set, "0123456789abcdef");
	assert_true(e.limit_exceeded.present);
	assert_string_equal(e.limit_exceeded.limit, "wall_seconds");
	assert_int_equal(e.limit_exceeded.value, 2);
	assert_int_equal(e.limit_exceeded.threshold, 1);
	assert_string_equal(e.limit_exceeded.unit, "seconds");
	j = registry__to_json(&e);
	back = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_non_null(strstr(back, "\"cgroup_placement\":\"systemd-scope\""));
	assert_non_null(strstr(back, "\"cgroup_id\":1,\"pin_set\":\"0123456789abcdef\""));
	assert_non_null(strstr(back, "\"limit_exceeded\":{\"limit\":\"wall_seconds\",\"value\":2,"
				     "\"threshold\":1,\"unit\":\"seconds\"}"));
	free(back);
	json_decref(j);
	registry__entry_clear(&e);
	/* absent: not written */
	assert_int_equal(registry__parse("{\"sandbox\":\"a\",\"cgroup_id\":1}", &e), 0);
	j = registry__to_json(&e);
	back = json_dumps(j, JSON_COMPACT);
	assert_null(strstr(back, "cgroup_placement"));
	assert_null(strstr(back, "pin_set"));
	assert_null(strstr(back, "limit_exceeded"));
	free(back);
	json_decref(j);
}

static void test_malformed(void **state)
{
	struct rf_registry_entry e;
	char big[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int err = registry__parse(malformed[i], &e);

		if (err != -EINVAL)
			fail_msg("accepted (%d): %s", err, malformed[i]);
		assert_null(e.syscalls.allow);
		assert_int_equal(e.sandbox[0], 0);
	}
	/* A string longer than its field is refused, not cut. */
	memset(big, 0, sizeof(big));
	snprintf(big, sizeof(big), "{\"sandbox\":\"%0200d\",\"cgroup_id\":1}", 0);
	assert_int_equal(registry__parse(big, &e), -EINVAL);
	/* The smallest entry the monitor accepts. */
	assert_int_equal(registry__parse("{\"sandbox\":\"a\",\"cgroup_id\":1}", &e), 0);
	assert_false(e.monitor.present);
	registry__entry_clear(&e);
}

/* Files: too large, not regular, not JSON; list_in skips them. */
static void test_bad_files(void **state)
{
	char dir[] = "/tmp/rf-reg-test-XXXXXX", path[512];
	struct rf_registry_entry e, *v = NULL;
	size_t n = 0;
	FILE *f;
	long i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* A valid entry padded past the limit. */
	snprintf(path, sizeof(path), "%s/huge-1.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"sandbox\":\"huge-1\",\"cgroup_id\":1}", f);
	for (i = 0; i < RF_REGISTRY_MAX_BYTES; i++)
		fputc(' ', f);
	fclose(f);
	assert_int_equal(registry__read_file(path, &e), -EFBIG);
	snprintf(path, sizeof(path), "%s/dir-1.json", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(registry__read_file(path, &e), -EINVAL);
	put(dir, "trunc-1.json", "{\"sandbox\":\"trunc-1\",\"cgroup_id\":");
	put(dir, "type-1.json", "{\"sandbox\":\"type-1\",\"cgroup_id\":\"1\"}");
	put(dir, "good-1.json", "{\"sandbox\":\"good-1\",\"cgroup_id\":3}");
	put(dir, "notes.txt", "{\"sandbox\":\"notes\",\"cgroup_id\":4}");
	snprintf(path, sizeof(path), "%s/trunc-1.json", dir);
	assert_int_equal(registry__read_file(path, &e), -EINVAL);
	assert_int_equal(registry__list_in(dir, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].sandbox, "good-1");
	assert_int_equal(v[0].cgroup_id, 3);
	registry__list_free(v, n);
	rm_dir(dir);
}

static void test_supervisor_alive(void **state)
{
	struct rf_registry_entry e = { .supervisor_pid = getpid() };

	(void)state;
	e.supervisor_start = registry__proc_start(getpid());
	assert_true(e.supervisor_start > 0);
	assert_true(registry__supervisor_alive(&e));
	e.supervisor_start++;           /* the pid was reused */
	assert_false(registry__supervisor_alive(&e));
	e.supervisor_pid = 0;
	assert_false(registry__supervisor_alive(&e));
}

/* A supervisor killed but not yet reaped by its parent (a zombie) has
 * exited: the reaper and gc must not take it for a live one. */
static void test_zombie_is_not_alive(void **state)
{
	struct rf_registry_entry e = { 0 };
	int fds[2];
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	e.supervisor_pid = pid;
	e.supervisor_start = registry__proc_start(pid);
	assert_true(e.supervisor_start > 0);
	assert_true(registry__supervisor_alive(&e));
	assert_int_equal(kill(pid, SIGKILL), 0);
	/* a zombie until waited for: poll until the kernel says Z */
	for (int i = 0; i < 500 && registry__proc_start(pid); i++)
		usleep(2000);
	assert_int_equal(registry__proc_start(pid), 0);
	assert_false(registry__supervisor_alive(&e));
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* What the supervisor copies from its policy: thresholds as given, the
 * profile when there is one, "monitor" always. */
static void test_fill_from_policy(void **state)
{
	struct rf_registry_entry e;
	struct rf_policy *p;
	struct rf_error err;
	json_t *o;
	char *s;

	(void)state;
	assert_int_equal(policy__load_string(
		"{\"version\":1,\"id\":\"t-fill\",\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
		"\"monitor\":{\"pids\":3,\"deny_burst\":{\"count\":5,\"window_ms\":100}},"
		"\"syscalls\":{\"allow\":[\"read\",\"write\"]}}", &p, &err), 0);
	memset(&e, 0, sizeof(e));
	registry_fill__policy(&e, p);
	assert_true(e.monitor.present);
	assert_true(e.monitor.pids.set);
	assert_int_equal(e.monitor.pids.v, 3);
	assert_false(e.monitor.cpu_percent.set);
	assert_int_equal(e.monitor.burst_window_ms.v, 100);
	assert_true(e.syscalls.present);
	assert_false(e.syscalls.alert);
	assert_int_equal(e.syscalls.n_allow, 2);
	o = registry__monitor_to_json(&e.monitor);
	s = json_dumps(o, JSON_COMPACT);
	assert_string_equal(s, "{\"deny_burst\":{\"count\":5,\"window_ms\":100},\"pids\":3}");
	free(s);
	json_decref(o);
	policy__free(p);

	assert_int_equal(policy__load_string(
		"{\"version\":1,\"id\":\"t-fill\",\"files\":\"unrestricted\",\"exec\":\"unrestricted\"}",
		&p, &err), 0);
	registry_fill__policy(&e, p);
	assert_true(e.monitor.present);
	assert_false(e.monitor.burst_count.set);
	assert_false(e.syscalls.present);
	policy__free(p);

	/* the detectors' new thresholds, the programs and on_alert: written,
	 * read back (the reader's copy is its own) */
	assert_int_equal(policy__load_string(
		"{\"version\":1,\"id\":\"t-fill\",\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
		"\"monitor\":{\"dns_names\":{\"count\":7,\"window_ms\":9},\"dns_label_len\":30,"
		"\"disk_write_mb\":5,\"egress_bytes\":1000,\"egress_window_ms\":20,"
		"\"exec\":[\"python3\"],\"on_alert\":\"freeze\"}}", &p, &err), 0);
	memset(&e, 0, sizeof(e));
	registry_fill__policy(&e, p);
	o = registry__monitor_to_json(&e.monitor);
	s = json_dumps(o, JSON_COMPACT);
	assert_string_equal(s, "{\"dns_names\":{\"count\":7,\"window_ms\":9},\"dns_label_len\":30,"
			    "\"disk_write_mb\":5,\"egress_bytes\":1000,\"egress_window_ms\":20,"
			    "\"exec\":[\"python3\"],\"on_alert\":\"freeze\"}");
	free(s);
	{
		struct rf_reg_monitor back;

		assert_int_equal(registry__monitor_from_json(o, &back), 0);
		assert_int_equal(back.dns_names_count.v, 7);
		assert_int_equal(back.dns_names_window_ms.v, 9);
		assert_int_equal(back.dns_label_len.v, 30);
		assert_int_equal(back.disk_write_mb.v, 5);
		assert_int_equal(back.egress_bytes.v, 1000);
		assert_int_equal(back.egress_window_ms.v, 20);
		assert_true(back.has_exec);
		assert_int_equal(back.n_exec, 1);
		assert_string_equal(back.exec[0], "python3");
		assert_string_equal(back.on_alert, "freeze");
		assert_true(back.exec != p->monitor.exec);
		registry__monitor_clear(&back);
	}
	json_decref(o);
	o = json_pack("{s:s}", "on_alert", "explode");
	{
		struct rf_reg_monitor bad;

		assert_int_equal(registry__monitor_from_json(o, &bad), -EINVAL);
		registry__monitor_clear(&bad);
	}
	json_decref(o);
	policy__free(p);
}

/* Correlation labels and the W3C traceparent: validated, written, read back. */
static void test_labels(void **state)
{
	static const char *const bad[] = {
		"novalue", "=x", "Upper=x", "-lead=x", "sp ace=x", "k=tab\there", "k=quo\"te",
		"k=back\\slash", "k=\xc3\xa9",
		"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=x",
	};
	struct rf_registry_entry e = { .cgroup_id = 5 }, back;
	json_t *o;
	char *text;
	size_t i;

	(void)state;
	assert_null(registry__label_invalid("job=ci-42"));
	assert_null(registry__label_invalid("tool.call_id=abc 123/x:y"));
	assert_null(registry__label_invalid("empty="));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_non_null(registry__label_invalid(bad[i]));
	assert_true(registry__traceparent_valid(
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
	assert_false(registry__traceparent_valid(
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01"));    /* zero id */
	assert_false(registry__traceparent_valid(
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"));    /* upper case */
	assert_false(registry__traceparent_valid(
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));    /* version */
	assert_false(registry__traceparent_valid("00-4bf92f35-00f067aa0ba902b7-01"));

	snprintf(e.sandbox, sizeof(e.sandbox), "lab-0000abcd");
	e.labels.n = 2;
	snprintf(e.labels.v[0], RF_LABEL_LEN, "job=ci-42");
	snprintf(e.labels.v[1], RF_LABEL_LEN, "tool=fetch url");
	snprintf(e.traceparent, sizeof(e.traceparent),
		 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
	o = registry__to_json(&e);
	text = json_dumps(o, JSON_COMPACT);
	assert_non_null(strstr(text, "\"labels\":{\"job\":\"ci-42\",\"tool\":\"fetch url\"},"
			       "\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-"));
	assert_int_equal(registry__parse(text, &back), 0);
	assert_int_equal(back.labels.n, 2);
	assert_string_equal(back.labels.v[1], "tool=fetch url");
	assert_string_equal(back.traceparent, e.traceparent);
	registry__entry_clear(&back);
	free(text);
	json_decref(o);
	/* the reader refuses what the writer never writes */
	assert_int_equal(registry__parse("{\"sandbox\":\"x\",\"cgroup_id\":1,"
					 "\"labels\":{\"Bad\":\"x\"}}", &back), -EINVAL);
	assert_int_equal(registry__parse("{\"sandbox\":\"x\",\"cgroup_id\":1,"
					 "\"labels\":{\"k\":1}}", &back), -EINVAL);
	assert_int_equal(registry__parse("{\"sandbox\":\"x\",\"cgroup_id\":1,"
					 "\"traceparent\":\"nope\"}", &back), -EINVAL);
	/* a value too long is refused, not cut */
	assert_int_equal(registry__parse("{\"sandbox\":\"x\",\"cgroup_id\":1,\"labels\":"
		"{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\":"
		"\"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\"}}", &back),
		-EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_exact_bytes),
		cmocka_unit_test(test_update_replaces),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_limit_and_placement),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_supervisor_alive),
		cmocka_unit_test(test_zombie_is_not_alive),
		cmocka_unit_test(test_fill_from_policy),
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
