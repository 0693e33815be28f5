// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* monitor.exec (unexpected-exec through the detectors) and monitor.on_alert
 * (respond.c against a cgroup directory of plain files, monaction.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <cmocka.h>

#include "detect.h"
#include "monaction.h"
#include "resources.h"
#include "respond.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)
#define CG 991

struct sink {
	struct rf_alert v[32];
	size_t n;
};

static void collect(const struct rf_alert *a, void *ctx)
{
	struct sink *s = ctx;

	if (s->n < 32)
		s->v[s->n++] = *a;
}

static void feed_sandbox(struct rf_detect *d, uint64_t t, const char *const *exec, size_t n)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = t, .type = RF_IN_SANDBOX, .cgroup_id = CG };

	snprintf(si.sandbox, sizeof(si.sandbox), "sb-exec");
	snprintf(si.policy_id, sizeof(si.policy_id), "pol");
	si.cgroup_id = CG;
	si.has_exec = true;
	si.exec = (char **)exec;
	si.n_exec = n;
	si.on_alert = RF_RESP_KILL;
	in.u.sb = &si;
	detect__input(d, &in);
}

static void feed_proc(struct rf_detect *d, enum rf_in_type type, uint64_t t, uint32_t pid,
		      uint32_t ppid, const char *comm, const char *path)
{
	struct rf_input in = { .t_ns = t, .type = type, .cgroup_id = CG };

	in.u.proc.pid = in.u.proc.tid = pid;
	in.u.proc.ppid = ppid;
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "%s", comm);
	snprintf(in.u.proc.path, sizeof(in.u.proc.path), "%s", path);
	detect__input(d, &in);
}

static const struct rf_alert *only_exec_alert(const struct sink *s)
{
	const struct rf_alert *a = NULL;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].rule == RF_RULE_EXEC && s->v[i].phase == RF_PHASE_OPEN) {
			assert_null(a);
			a = &s->v[i];
		}
	return a;
}

/* python3 expected; git run by it is the alert, naming git and python3. */
static void test_unexpected_program(void **state)
{
	static const char *const exec[] = { "python3", "/opt/tool/bin/run" };
	struct sink s = { .n = 0 };
	const struct rf_alert *a;
	struct rf_detect *d;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_sandbox(d, T0, exec, 2);
	feed_proc(d, RF_IN_EXEC, T0 + 1 * MS, 100, 90, "python3", "/usr/bin/python3");
	feed_proc(d, RF_IN_EXEC, T0 + 2 * MS, 100, 90, "run", "/opt/tool/bin/run");
	feed_proc(d, RF_IN_FORK, T0 + 3 * MS, 101, 100, "python3", "");
	assert_null(only_exec_alert(&s));
	feed_proc(d, RF_IN_EXEC, T0 + 4 * MS, 101, 100, "git", "/usr/bin/git");
	a = only_exec_alert(&s);
	assert_non_null(a);
	assert_string_equal(a->key, "/usr/bin/git");
	assert_string_equal(a->proc.path, "/usr/bin/git");
	assert_int_equal(a->proc.pid, 101);
	assert_int_equal(a->proc.ppid, 100);
	assert_true(a->proc.parent_known);
	assert_string_equal(a->proc.parent_name, "run");
	assert_string_equal(a->sandbox, "sb-exec");
	assert_int_equal(a->response, RF_RESP_KILL);
	assert_false(a->responded);     /* the detectors never act */
	/* a path entry is the whole name: another "run" is not it */
	feed_proc(d, RF_IN_EXEC, T0 + 5 * MS, 102, 100, "run", "/tmp/run");
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[1].key, "/tmp/run");
	detect__free(d);
}

/* An exec seen before the registry entry is judged when it comes. */
static void test_exec_before_registry(void **state)
{
	static const char *const exec[] = { "python3" };
	struct sink s = { .n = 0 };
	struct rf_detect *d;

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	feed_proc(d, RF_IN_EXEC, T0, 200, 1, "curl", "/usr/bin/curl");
	assert_int_equal(s.n, 0);
	feed_sandbox(d, T0 + MS, exec, 1);
	assert_non_null(only_exec_alert(&s));
	assert_string_equal(only_exec_alert(&s)->key, "/usr/bin/curl");
	detect__free(d);
}

/* No monitor.exec: nothing is unexpected. */
static void test_no_list_no_alert(void **state)
{
	struct sink s = { .n = 0 };
	struct rf_detect *d;
	struct rf_sandbox_info si = { .cgroup_id = CG };
	struct rf_input in = { .t_ns = T0, .type = RF_IN_SANDBOX, .cgroup_id = CG, .u.sb = &si };

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	snprintf(si.sandbox, sizeof(si.sandbox), "sb-free");
	detect__input(d, &in);
	feed_proc(d, RF_IN_EXEC, T0 + MS, 300, 1, "git", "/usr/bin/git");
	assert_int_equal(s.n, 0);
	detect__free(d);
}

/* monitor.disk_write_mb: bytes written above it are a resource alert
 * (disk_write), only from a sample that measured them. */
static void test_disk_write(void **state)
{
	struct sink s = { .n = 0 };
	struct rf_detect *d;
	struct rf_sandbox_info si = { .cgroup_id = CG, .disk_write_mb = 1 };
	struct rf_input in = { .t_ns = T0, .type = RF_IN_SANDBOX, .cgroup_id = CG, .u.sb = &si };
	struct rf_input sm = { .type = RF_IN_SAMPLE, .cgroup_id = CG };

	(void)state;
	assert_int_equal(detect__new(NULL, collect, &s, &d), 0);
	snprintf(si.sandbox, sizeof(si.sandbox), "sb-disk");
	detect__input(d, &in);
	sm.t_ns = T0 + 1000 * MS;
	sm.u.sample.disk_write_bytes = 5ULL << 20;      /* not measured: no src bit */
	detect__input(d, &sm);
	assert_int_equal(s.n, 0);
	sm.t_ns = T0 + 2000 * MS;
	sm.u.sample.disk_write_bytes = 512ULL << 10;
	sm.u.sample.src = RF_SRC_DISK_KNOWN;
	detect__input(d, &sm);
	assert_int_equal(s.n, 0);
	sm.t_ns = T0 + 3000 * MS;
	sm.u.sample.disk_write_bytes = 3ULL << 20;
	detect__input(d, &sm);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].rule, RF_RULE_RESOURCE);
	assert_string_equal(s.v[0].key, "disk_write");
	assert_int_equal(s.v[0].value, 3ULL << 20);
	assert_int_equal(s.v[0].threshold, 1ULL << 20);
	assert_false(s.v[0].rise);
	detect__free(d);
}

/* ---- on_alert against a directory standing in for the cgroup ---------------- */

static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *dir, const char *file, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void test_kill_records_then_kills(void **state)
{
	char cg[] = "/tmp/rf-respond-XXXXXX", acts[] = "/tmp/rf-actions-XXXXXX", buf[64], pid[32];
	struct rf_alert a = { .rule = RF_RULE_EXEC, .phase = RF_PHASE_OPEN,
			      .response = RF_RESP_KILL };
	struct rf_mon_action m;

	(void)state;
	assert_non_null(mkdtemp(cg));
	assert_non_null(mkdtemp(acts));
	snprintf(a.sandbox, sizeof(a.sandbox), "sb-kill");
	snprintf(a.uid, sizeof(a.uid), "rf-0123456789abcdef");
	put(cg, "cgroup.freeze", "");
	put(cg, "cgroup.kill", "");
	put(cg, "cgroup.events", "populated 1\nfrozen 1\n");
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	put(cg, "cgroup.procs", pid);
	respond__act(&a, cg, acts);
	assert_true(a.responded);
	assert_true(a.response_ok);
	assert_string_equal(a.response_result, "killed");
	get(cg, "cgroup.freeze", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	get(cg, "cgroup.kill", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	snprintf(buf, sizeof(buf), "%d %d ", getpid(), getppid());
	assert_memory_equal(a.response_tree, buf, strlen(buf));
	/* the supervisor's side */
	assert_int_equal(monaction__read(acts, "sb-kill", &m), 0);
	assert_string_equal(m.action, "kill");
	assert_string_equal(m.rule, "unexpected-exec");
	assert_string_equal(m.result, "killed");
	assert_true(m.ok);
	monaction__remove(acts, "sb-kill");
	assert_int_equal(monaction__read(acts, "sb-kill", &m), -ENOENT);
	assert_int_equal(monaction__read(acts, "../x", &m), -EINVAL);
	rmdir(acts);
	snprintf(buf, sizeof(buf), "rm -rf %s", cg);
	assert_int_equal(system(buf), 0);
}

/* A freeze that never shows in cgroup.events fails, said so; alert-only
 * sandboxes and the monitor's health alerts are never acted on. */
static void test_freeze_fails_and_health_untouched(void **state)
{
	char cg[] = "/tmp/rf-respond-XXXXXX", acts[] = "/tmp/rf-actions-XXXXXX", buf[64];
	struct rf_alert a = { .rule = RF_RULE_DNS_TUNNEL, .phase = RF_PHASE_OPEN,
			      .response = RF_RESP_FREEZE };
	struct rf_alert lost = { .rule = RF_RULE_LOST, .phase = RF_PHASE_OPEN,
				 .response = RF_RESP_KILL };
	struct rf_alert plain = { .rule = RF_RULE_EXEC, .phase = RF_PHASE_OPEN };

	(void)state;
	assert_non_null(mkdtemp(cg));
	assert_non_null(mkdtemp(acts));
	snprintf(a.sandbox, sizeof(a.sandbox), "sb-frz");
	snprintf(lost.sandbox, sizeof(lost.sandbox), "sb-frz");
	snprintf(plain.sandbox, sizeof(plain.sandbox), "sb-frz");
	put(cg, "cgroup.freeze", "0\n");
	put(cg, "cgroup.events", "populated 1\nfrozen 0\n");
	respond__act(&a, cg, acts);
	assert_true(a.responded);
	assert_false(a.response_ok);
	assert_non_null(strstr(a.response_result, "freeze failed"));
	respond__act(&lost, cg, acts);
	respond__act(&plain, cg, acts);
	assert_false(lost.responded);
	assert_false(plain.responded);
	snprintf(buf, sizeof(buf), "rm -rf %s %s", cg, acts);
	assert_int_equal(system(buf), 0);
}

/* The disk-write reading: io.stat's wbytes summed over devices; without
 * it, /proc/PID/io of the cgroup's processes (this one, which writes 2 MiB
 * to a file and syncs it). */
static void test_disk_write_reading(void **state)
{
	char cg[] = "/tmp/rf-diskcg-XXXXXX", file[] = "/tmp/rf-diskw-XXXXXX", pid[32], cmd[96];
	static char block[1 << 20];
	uint64_t w0, w1;
	bool from_cg;
	int fd, i;

	(void)state;
	assert_non_null(mkdtemp(cg));
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	put(cg, "cgroup.procs", pid);
	assert_int_equal(resources__disk_write(cg, &w0, &from_cg), 0);
	assert_false(from_cg);
	fd = mkstemp(file);
	assert_true(fd >= 0);
	memset(block, 'x', sizeof(block));
	for (i = 0; i < 2; i++)
		assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	assert_int_equal(fsync(fd), 0);
	close(fd);
	unlink(file);
	assert_int_equal(resources__disk_write(cg, &w1, &from_cg), 0);
	/* writes to tmpfs reach no storage: counted only where /tmp is a disk */
	{
		struct statfs sf;

		if (statfs("/tmp", &sf) == 0 && sf.f_type != TMPFS_MAGIC)
			assert_true(w1 - w0 >= 2ULL << 20);
	}
	put(cg, "io.stat", "8:0 rbytes=1 wbytes=100 rios=1 wios=2\n8:16 rbytes=0 wbytes=23\n");
	assert_int_equal(resources__disk_write(cg, &w1, &from_cg), 0);
	assert_true(from_cg);
	assert_int_equal(w1, 123);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", cg);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unexpected_program),
		cmocka_unit_test(test_exec_before_registry),
		cmocka_unit_test(test_no_list_no_alert),
		cmocka_unit_test(test_disk_write),
		cmocka_unit_test(test_disk_write_reading),
		cmocka_unit_test(test_kill_records_then_kills),
		cmocka_unit_test(test_freeze_fails_and_health_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
