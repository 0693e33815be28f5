// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Detectors and roll-up on synthetic inputs in virtual time (cmocka). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "detect.h"

#define MS 1000000ULL
#define T0 (1000ULL * 1000 * MS)    /* 1000 s after boot */
#define CG 4242

struct sink {
	struct rf_alert *v;
	size_t n, cap;
};

static void collect(const struct rf_alert *a, void *ctx)
{
	struct sink *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n++] = *a;
}

struct fx {
	struct rf_detect *d;
	struct sink sink;
};

static struct fx *fx_new(const struct rf_detect_opts *o)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(detect__new(o, collect, &f->sink, &f->d), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	detect__free(f->d);
	free(f->sink.v);
	free(f);
}

static void in_sandbox(struct fx *f, uint64_t t, uint64_t cg, const char *name,
		       uint64_t burst_n, uint64_t burst_w, const char *const *allow)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = t, .type = RF_IN_SANDBOX, .cgroup_id = cg };
	char *names[64];
	size_t n = 0;

	snprintf(si.sandbox, sizeof(si.sandbox), "%s", name);
	snprintf(si.policy_id, sizeof(si.policy_id), "pol");
	si.cgroup_id = cg;
	si.burst_count = burst_n;
	si.burst_window_ms = burst_w;
	if (allow) {
		for (; allow[n]; n++)
			names[n] = (char *)allow[n];
		si.has_profile = true;
		si.alert_only = true;
		si.allow = names;
		si.n_allow = n;
	}
	in.u.sb = &si;
	detect__input(f->d, &in);
}

static void in_thresholds(struct fx *f, uint64_t t, uint64_t cg, const char *name,
			  uint64_t cpu, uint64_t mem_mb, uint64_t pids)
{
	struct rf_sandbox_info si = { 0 };
	struct rf_input in = { .t_ns = t, .type = RF_IN_SANDBOX, .cgroup_id = cg };

	snprintf(si.sandbox, sizeof(si.sandbox), "%s", name);
	si.cgroup_id = cg;
	si.cpu_percent = cpu;
	si.memory_mb = mem_mb;
	si.pids = pids;
	in.u.sb = &si;
	detect__input(f->d, &in);
}

static void in_deny(struct fx *f, uint64_t t, uint64_t cg, uint32_t class, const char *ip,
		    uint16_t port, uint32_t pid)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_DECISION, .cgroup_id = cg };
	struct rf_event *ev = &in.u.decision;

	ev->ts_boot_ns = t;
	ev->cgroup_id = cg;
	ev->kind = RF_EV_DECISION;
	ev->pid = ev->tid = pid;
	ev->class = class;
	ev->verdict = RF_VERDICT_DENIED;
	ev->reason = RF_REASON_NO_RULE;
	snprintf(ev->comm, sizeof(ev->comm), "rf-net");
	if (class == RF_CLASS_NET) {
		ev->op = RF_OP_CONNECT4;
		ev->family = AF_INET;
		ev->protocol = 6;
		ev->port = port;
		inet_pton(AF_INET, ip, ev->addr);
	} else {
		snprintf(ev->path, sizeof(ev->path), "%s", ip);
		ev->path_len = (uint32_t)strlen(ip);
	}
	detect__input(f->d, &in);
}

static void in_tick(struct fx *f, uint64_t t)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_TICK };

	detect__input(f->d, &in);
}

/* Ticks every 250 ms in (from, to]. */
static void ticks(struct fx *f, uint64_t from, uint64_t to)
{
	uint64_t t;

	for (t = from + 250 * MS; t <= to; t += 250 * MS)
		in_tick(f, t);
}

static void in_proc(struct fx *f, enum rf_in_type type, uint64_t t, uint64_t cg, uint32_t pid,
		    uint32_t ppid, const char *comm, const char *path, const char *sys, int nr)
{
	struct rf_input in = { .t_ns = t, .type = type, .cgroup_id = cg };

	in.u.proc.pid = in.u.proc.tid = pid;
	in.u.proc.ppid = ppid;
	in.u.proc.nr = nr;
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "%s", comm);
	snprintf(in.u.proc.path, sizeof(in.u.proc.path), "%s", path ? path : "");
	snprintf(in.u.proc.name, sizeof(in.u.proc.name), "%s", sys ? sys : "");
	detect__input(f->d, &in);
}

static void in_sample(struct fx *f, uint64_t t, uint64_t cg, uint64_t cpu_ns, uint64_t mem,
		      int64_t procs)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_SAMPLE, .cgroup_id = cg };

	in.u.sample.cpu_ns = cpu_ns;
	in.u.sample.mem_bytes = mem;
	in.u.sample.procs = procs;
	in.u.sample.procs_peak = procs;
	detect__input(f->d, &in);
}

static void in_lost(struct fx *f, uint64_t t, uint32_t hop, uint64_t n)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_LOST };

	in.u.lost.hop = hop;
	in.u.lost.count = n;
	detect__input(f->d, &in);
}

/* Records of a rule; distinct alert ids among them. */
static size_t n_records(struct fx *f, enum rf_rule rule)
{
	size_t i, n = 0;

	for (i = 0; i < f->sink.n; i++)
		n += f->sink.v[i].rule == rule;
	return n;
}

static size_t n_alerts(struct fx *f, enum rf_rule rule)
{
	size_t i, j, n = 0;

	for (i = 0; i < f->sink.n; i++) {
		bool seen = false;

		if (f->sink.v[i].rule != rule)
			continue;
		for (j = 0; j < i; j++)
			seen |= f->sink.v[j].rule == rule && !strcmp(f->sink.v[j].uid, f->sink.v[i].uid);
		n += !seen;
	}
	return n;
}

static const struct rf_alert *last_of(struct fx *f, enum rf_rule rule)
{
	size_t i;

	for (i = f->sink.n; i > 0; i--)
		if (f->sink.v[i - 1].rule == rule)
			return &f->sink.v[i - 1];
	return NULL;
}

static const struct rf_alert *first_of(struct fx *f, enum rf_rule rule)
{
	size_t i;

	for (i = 0; i < f->sink.n; i++)
		if (f->sink.v[i].rule == rule)
			return &f->sink.v[i];
	return NULL;
}

/* 50 denials in one second: one alert, opened at the 10th, closed with 50. */
static void test_burst_one_alert(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 10, 1000, NULL);
	for (i = 0; i < 50; i++)
		in_deny(f, T0 + MS + i * 20 * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + 10000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 1);
	assert_int_equal(n_records(f, RF_RULE_DENY_BURST), 2);
	a = first_of(f, RF_RULE_DENY_BURST);
	assert_int_equal(a->phase, RF_PHASE_OPEN);
	assert_int_equal(a->count, 10);
	assert_int_equal(a->time_ns, T0 + MS + 9 * 20 * MS);
	a = last_of(f, RF_RULE_DENY_BURST);
	assert_int_equal(a->phase, RF_PHASE_CLOSE);
	assert_int_equal(a->count, 50);
	assert_int_equal(a->suppressed, 40);
	assert_int_equal(a->first_ns, T0 + MS);
	assert_int_equal(a->last_ns, T0 + MS + 49 * 20 * MS);
	assert_string_equal(a->sandbox, "sb-a");
	assert_string_equal(a->key, "network");
	assert_string_equal(a->close_reason, "quiet");
	assert_int_equal(a->threshold, 10);
	assert_int_equal(a->window_ms, 1000);
	assert_int_equal(a->n_dests, 1);
	assert_string_equal(a->dests[0].key, "127.0.0.1:9/tcp");
	assert_int_equal(a->dests[0].count, 50);
	assert_int_equal(n_records(f, RF_RULE_LOST), 0);
	fx_free(f);
}

static void test_burst_below_threshold(void **state)
{
	struct fx *f = fx_new(NULL);
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 10, 1000, NULL);
	/* 9 in a window, then 9 more spread thinly: never 10 within 1 s */
	for (i = 0; i < 9; i++)
		in_deny(f, T0 + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	for (i = 0; i < 9; i++)
		in_deny(f, T0 + 1100 * MS + i * 200 * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + 10000 * MS);
	assert_int_equal(f->sink.n, 0);
	fx_free(f);
}

/* The window is sliding: 10 within any 1000 ms, across a bucket edge. */
static void test_burst_sliding_window(void **state)
{
	struct fx *f = fx_new(NULL);
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 10, 1000, NULL);
	for (i = 0; i < 5; i++)
		in_deny(f, T0 + 900 * MS + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	for (i = 0; i < 5; i++)
		in_deny(f, T0 + 1100 * MS + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + 8000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 1);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, 10);
	fx_free(f);
}

/* A steady stream over 25 s: one alert, periodic updates, one close. */
static void test_burst_rollup_updates(void **state)
{
	struct rf_detect_opts o = { .update_ms = 10000, .linger_ms = 3000 };
	struct fx *f = fx_new(&o);
	uint64_t t;
	size_t i, updates = 0;
	int n = 0;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 10, 1000, NULL);
	for (t = T0; t < T0 + 25000 * MS; t += 50 * MS) {
		in_deny(f, t, CG, RF_CLASS_NET, "10.0.0.1", 443, 100);
		n++;
		if ((t - T0) % (250 * MS) == 0)
			in_tick(f, t);
	}
	ticks(f, t, t + 10000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 1);
	for (i = 0; i < f->sink.n; i++)
		updates += f->sink.v[i].phase == RF_PHASE_UPDATE;
	assert_int_equal(updates, 2);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->phase, RF_PHASE_CLOSE);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, n);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->suppressed, n - 10);
	fx_free(f);
}

/* Two bursts far apart are two alerts; one within the linger folds. */
static void test_burst_fold_and_separate(void **state)
{
	struct rf_detect_opts o = { .linger_ms = 3000 };
	struct fx *f = fx_new(&o);
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 5, 500, NULL);
	for (i = 0; i < 5; i++)
		in_deny(f, T0 + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + 1500 * MS);   /* ended, lingering */
	for (i = 0; i < 5; i++)
		in_deny(f, T0 + 1500 * MS + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0 + 1500 * MS, T0 + 20000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 1);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, 10);
	for (i = 0; i < 5; i++)
		in_deny(f, T0 + 30000 * MS + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0 + 30000 * MS, T0 + 40000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 2);
	fx_free(f);
}

static void test_burst_destinations(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;
	char ip[32];
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 10, 1000, NULL);
	for (i = 0; i < 30; i++)
		in_deny(f, T0 + i * MS, CG, RF_CLASS_NET, "10.0.0.1", 22, 100);
	for (i = 0; i < 20; i++)
		in_deny(f, T0 + 30 * MS + i * MS, CG, RF_CLASS_NET, "10.0.0.2", 22, 100);
	/* a scan: 12 more distinct hosts overflow the 8 named ones */
	for (i = 0; i < 12; i++) {
		snprintf(ip, sizeof(ip), "10.0.1.%d", i);
		in_deny(f, T0 + 60 * MS + i * MS, CG, RF_CLASS_NET, ip, 22, 100);
	}
	ticks(f, T0, T0 + 6000 * MS);
	a = last_of(f, RF_RULE_DENY_BURST);
	assert_int_equal(a->count, 62);
	assert_int_equal(a->n_dests, RF_ALERT_DESTS);
	assert_string_equal(a->dests[0].key, "10.0.0.1:22/tcp");
	assert_int_equal(a->dests[0].count, 30);
	assert_string_equal(a->dests[1].key, "10.0.0.2:22/tcp");
	assert_int_equal(a->dests[1].count, 20);
	assert_int_equal(a->other_dests, 6);
	fx_free(f);
}

/* A burst larger than the exact ring: bucketed, still one alert with the
 * full count. */
static void test_burst_large_threshold(void **state)
{
	struct fx *f = fx_new(NULL);
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-a", 5000, 1000, NULL);
	for (i = 0; i < 4000; i++)
		in_deny(f, T0 + (uint64_t)i * 100000, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + 3000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 0);
	for (i = 0; i < 6000; i++)
		in_deny(f, T0 + 5000 * MS + (uint64_t)i * 100000, CG, RF_CLASS_NET, "127.0.0.1", 9,
			100);
	ticks(f, T0 + 5000 * MS, T0 + 12000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 1);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, 6000);
	fx_free(f);
}

static void test_failed_ops_file(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-f", 0, 0, NULL);    /* defaults: 20 in 1000 ms */
	for (i = 0; i < 25; i++)
		in_deny(f, T0 + i * MS, CG, RF_CLASS_FILE, "/etc/shadow", 0, 100);
	ticks(f, T0, T0 + 6000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_FAILED_OPS), 1);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 0);
	a = last_of(f, RF_RULE_FAILED_OPS);
	assert_string_equal(a->key, "file");
	assert_int_equal(a->count, 25);
	assert_int_equal(a->threshold, 20);
	assert_string_equal(a->dests[0].key, "file:/etc/shadow");
	fx_free(f);
}

/* A boundary operation has no address or path: its destination names the
 * operation (process:kill), never a raw number. */
static void test_failed_ops_process_names_the_op(void **state)
{
	struct fx *f = fx_new(NULL);
	struct rf_input in = { .type = RF_IN_DECISION, .cgroup_id = CG };
	struct rf_event *ev = &in.u.decision;
	const struct rf_alert *a;
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-p", 0, 0, NULL);
	ev->cgroup_id = CG;
	ev->kind = RF_EV_DECISION;
	ev->pid = ev->tid = 100;
	ev->class = RF_CLASS_PROCESS;
	ev->op = RF_OP_KILL;
	ev->verdict = RF_VERDICT_AUDITED;
	ev->reason = RF_REASON_BOUNDARY;
	for (i = 0; i < 25; i++) {
		in.t_ns = ev->ts_boot_ns = T0 + i * MS;
		detect__input(f->d, &in);
	}
	ticks(f, T0, T0 + 6000 * MS);
	a = last_of(f, RF_RULE_FAILED_OPS);
	assert_non_null(a);
	assert_string_equal(a->key, "process");
	assert_string_equal(a->verdict, "audited");
	assert_string_equal(a->dests[0].key, "process:kill");
	fx_free(f);
}

static void test_syscall_outside_profile(void **state)
{
	static const char *const allow[] = { "read", "write", "exit_group", NULL };
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;

	(void)state;
	in_sandbox(f, T0, CG, "sb-s", 0, 0, allow);
	in_proc(f, RF_IN_EXEC, T0, CG, 300, 299, "rf-load", "/usr/bin/rf-load", NULL, 0);
	in_proc(f, RF_IN_SYSCALL, T0 + MS, CG, 300, 0, "rf-load", NULL, "read", 0);
	in_proc(f, RF_IN_SYSCALL, T0 + 2 * MS, CG, 300, 0, "rf-load", NULL, "uname", 63);
	in_proc(f, RF_IN_SYSCALL, T0 + 3 * MS, CG, 300, 0, "rf-load", NULL, "uname", 63);
	in_proc(f, RF_IN_SYSCALL, T0 + 4 * MS, CG, 300, 0, "rf-load", NULL, "write", 1);
	/* implicitly allowed, as by the seccomp allowlist */
	in_proc(f, RF_IN_SYSCALL, T0 + 5 * MS, CG, 300, 0, "rf-load", NULL, "exit", 60);
	in_proc(f, RF_IN_SYSCALL, T0 + 6 * MS, CG, 300, 0, "rf-load", NULL, "execve", 59);
	ticks(f, T0, T0 + 6000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_SYSCALL), 1);
	a = first_of(f, RF_RULE_SYSCALL);
	assert_int_equal(a->phase, RF_PHASE_OPEN);
	assert_int_equal(a->time_ns, T0 + 2 * MS);
	assert_string_equal(a->syscall, "uname");
	assert_int_equal(a->syscall_nr, 63);
	assert_int_equal(a->proc.pid, 300);
	assert_string_equal(a->proc.path, "/usr/bin/rf-load");
	assert_int_equal(last_of(f, RF_RULE_SYSCALL)->phase, RF_PHASE_CLOSE);
	assert_int_equal(last_of(f, RF_RULE_SYSCALL)->count, 1);
	fx_free(f);
}

static void test_syscall_no_profile(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	in_sandbox(f, T0, CG, "sb-s", 0, 0, NULL);
	in_proc(f, RF_IN_SYSCALL, T0 + MS, CG, 300, 0, "x", NULL, "uname", 63);
	ticks(f, T0, T0 + 6000 * MS);
	assert_int_equal(f->sink.n, 0);
	fx_free(f);
}

/* First calls that arrive before the registry entry are judged when it
 * arrives. */
static void test_syscall_before_registry(void **state)
{
	static const char *const allow[] = { "read", NULL };
	struct fx *f = fx_new(NULL);

	(void)state;
	in_proc(f, RF_IN_SYSCALL, T0, CG, 300, 0, "x", NULL, "read", 0);
	in_proc(f, RF_IN_SYSCALL, T0 + MS, CG, 300, 0, "x", NULL, "ptrace", 101);
	assert_int_equal(f->sink.n, 0);
	in_sandbox(f, T0 + 2 * MS, CG, "sb-late", 0, 0, allow);
	assert_int_equal(n_alerts(f, RF_RULE_SYSCALL), 1);
	assert_string_equal(first_of(f, RF_RULE_SYSCALL)->syscall, "ptrace");
	assert_string_equal(first_of(f, RF_RULE_SYSCALL)->sandbox, "sb-late");
	fx_free(f);
}

/* A first call that failed: the alert says whether it was refused (EPERM,
 * EACCES) and with which errno; one alert per syscall, whatever later
 * calls do; an allowed call that was refused raises nothing. */
static void in_syscall_err(struct fx *f, uint64_t t, const char *sys, int nr, int32_t err)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_SYSCALL, .cgroup_id = CG };

	in.u.proc.pid = in.u.proc.tid = 300;
	in.u.proc.nr = nr;
	in.u.proc.err = err;
	snprintf(in.u.proc.comm, sizeof(in.u.proc.comm), "rf-sys");
	snprintf(in.u.proc.name, sizeof(in.u.proc.name), "%s", sys);
	detect__input(f->d, &in);
}

static const struct rf_alert *syscall_alert(struct fx *f, const char *sys)
{
	for (size_t i = 0; i < f->sink.n; i++)
		if (f->sink.v[i].rule == RF_RULE_SYSCALL && !strcmp(f->sink.v[i].syscall, sys))
			return &f->sink.v[i];
	return NULL;
}

/* sys_exit's return value: an errno only for -1..-4095, never rt_sigreturn's. */
static void test_syscall_errno(void **state)
{
	(void)state;
	assert_int_equal(rf_syscall_errno("ptrace", -EPERM), EPERM);
	assert_int_equal(rf_syscall_errno("open", -ENOENT), ENOENT);
	assert_int_equal(rf_syscall_errno("getpid", 4242), 0);
	assert_int_equal(rf_syscall_errno("mmap", -4096), 0);  /* an address */
	assert_int_equal(rf_syscall_errno("rt_sigreturn", -EPERM), 0);
	assert_true(rf_syscall_refused(EPERM));
	assert_true(rf_syscall_refused(EACCES));
	assert_false(rf_syscall_refused(ENOENT));
	assert_false(rf_syscall_refused(0));
}

static void test_syscall_refused(void **state)
{
	static const char *const allow[] = { "gettid", "read", NULL };
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;

	(void)state;
	in_sandbox(f, T0, CG, "sb-r", 0, 0, allow);
	in_syscall_err(f, T0 + MS, "ptrace", 101, EPERM);
	in_syscall_err(f, T0 + 2 * MS, "open_by_handle_at", 304, EACCES);
	in_syscall_err(f, T0 + 3 * MS, "mkdirat", 258, ENOENT);
	in_syscall_err(f, T0 + 4 * MS, "getcpu", 309, 0);
	in_syscall_err(f, T0 + 5 * MS, "gettid", 186, EPERM);
	in_syscall_err(f, T0 + 6 * MS, "ptrace", 101, 0);
	ticks(f, T0, T0 + 6000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_SYSCALL), 4);
	a = syscall_alert(f, "ptrace");
	assert_non_null(a);
	assert_true(a->refused);
	assert_int_equal(a->syscall_err, EPERM);
	assert_int_equal(rf_alert_severity(a), 5);
	a = syscall_alert(f, "open_by_handle_at");
	assert_true(a && a->refused && a->syscall_err == EACCES);
	a = syscall_alert(f, "mkdirat");
	assert_true(a && !a->refused && a->syscall_err == ENOENT);
	assert_int_equal(rf_alert_severity(a), 4);
	a = syscall_alert(f, "getcpu");
	assert_true(a && !a->refused && !a->syscall_err);
	assert_int_equal(rf_alert_severity(a), 4);
	assert_null(syscall_alert(f, "gettid"));
	fx_free(f);
}

static void test_resource_memory(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;

	(void)state;
	in_thresholds(f, T0, CG, "sb-m", 0, 64, 0);
	in_sample(f, T0 + 1000 * MS, CG, 0, 10 << 20, 1);
	in_sample(f, T0 + 2000 * MS, CG, 0, 100 << 20, 1);
	a = last_of(f, RF_RULE_RESOURCE);
	assert_non_null(a);
	assert_int_equal(a->phase, RF_PHASE_OPEN);
	assert_string_equal(a->key, "memory");
	assert_int_equal(a->value, 100 << 20);
	assert_int_equal(a->threshold, 64ULL << 20);
	in_sample(f, T0 + 3000 * MS, CG, 0, 120 << 20, 1);
	in_sample(f, T0 + 4000 * MS, CG, 0, 60 << 20, 1);  /* above 90 %: still on */
	in_sample(f, T0 + 5000 * MS, CG, 0, 10 << 20, 1);
	ticks(f, T0 + 5000 * MS, T0 + 12000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_RESOURCE), 1);
	a = last_of(f, RF_RULE_RESOURCE);
	assert_int_equal(a->phase, RF_PHASE_CLOSE);
	assert_int_equal(a->count, 2);
	assert_int_equal(a->value, 120 << 20);
	fx_free(f);
}

static void test_resource_pids_and_cpu(void **state)
{
	struct fx *f = fx_new(NULL);
	size_t i;
	bool pids = false, cpu = false;

	(void)state;
	in_thresholds(f, T0, CG, "sb-p", 50, 0, 50);
	in_sample(f, T0 + 1000 * MS, CG, 0, 0, 1);
	in_sample(f, T0 + 2000 * MS, CG, 800 * MS, 0, 101);
	for (i = 0; i < f->sink.n; i++) {
		if (!strcmp(f->sink.v[i].key, "pids")) {
			pids = true;
			assert_int_equal(f->sink.v[i].value, 101);
			assert_int_equal(f->sink.v[i].threshold, 50);
		}
		if (!strcmp(f->sink.v[i].key, "cpu")) {
			cpu = true;
			assert_int_equal(f->sink.v[i].value, 80);
		}
	}
	assert_true(pids);
	assert_true(cpu);
	fx_free(f);
}

static void test_resource_rise(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	in_thresholds(f, T0, CG, "sb-r", 0, 0, 0);
	in_sample(f, T0 + 1000 * MS, CG, 0, 10 << 20, 1);
	in_sample(f, T0 + 2000 * MS, CG, 0, 10 << 20, 1);
	in_sample(f, T0 + 3000 * MS, CG, 0, 10 << 20, 1);
	in_sample(f, T0 + 4000 * MS, CG, 0, 400 << 20, 1);
	assert_int_equal(n_alerts(f, RF_RULE_RESOURCE), 1);
	assert_string_equal(first_of(f, RF_RULE_RESOURCE)->key, "memory-rise");
	assert_true(first_of(f, RF_RULE_RESOURCE)->rise);
	assert_int_equal(first_of(f, RF_RULE_RESOURCE)->baseline, 10 << 20);
	fx_free(f);
}

static void test_lost_events(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;

	(void)state;
	in_lost(f, T0, RF_HOP_KERNEL_DECISIONS, 5);
	in_lost(f, T0 + 1000 * MS, RF_HOP_KERNEL_DECISIONS, 7);
	ticks(f, T0, T0 + 12000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_LOST), 1);
	a = last_of(f, RF_RULE_LOST);
	assert_int_equal(a->phase, RF_PHASE_CLOSE);
	assert_int_equal(a->count, 12);
	assert_int_equal(a->lost_total, 12);
	assert_string_equal(a->key, "kernel-decisions");
	assert_string_equal(a->sandbox, "");
	in_lost(f, T0 + 20000 * MS, RF_HOP_KERNEL_DECISIONS, 3);
	a = last_of(f, RF_RULE_LOST);
	assert_int_equal(n_alerts(f, RF_RULE_LOST), 2);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->lost_total, 15);
	fx_free(f);
}

/* The end of a sandbox closes its alerts within a second. */
static void test_sandbox_end_closes(void **state)
{
	struct fx *f = fx_new(NULL);
	struct rf_input end = { .type = RF_IN_SANDBOX_END, .cgroup_id = CG };
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-e", 10, 1000, NULL);
	for (i = 0; i < 30; i++)
		in_deny(f, T0 + i * MS, CG, RF_CLASS_NET, "127.0.0.1", 9, 100);
	end.t_ns = T0 + 40 * MS;
	detect__input(f->d, &end);
	ticks(f, T0 + 40 * MS, T0 + 1500 * MS);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->phase, RF_PHASE_CLOSE);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, 30);
	assert_string_equal(last_of(f, RF_RULE_DENY_BURST)->close_reason, "sandbox-ended");
	ticks(f, T0 + 1500 * MS, T0 + 3000 * MS);
	assert_int_equal(detect__n_sandboxes(f->d), 0);
	fx_free(f);
}

/* Lineage: the alert names the process, its file and its parent. */
static void test_lineage(void **state)
{
	struct fx *f = fx_new(NULL);
	const struct rf_alert *a;
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-l", 3, 1000, NULL);
	in_proc(f, RF_IN_EXEC, T0, CG, 500, 1, "sh", "/bin/sh", NULL, 0);
	in_proc(f, RF_IN_FORK, T0 + MS, CG, 501, 500, "sh", NULL, NULL, 0);
	in_proc(f, RF_IN_EXEC, T0 + 2 * MS, CG, 501, 500, "curl", "/usr/bin/curl", NULL, 0);
	for (i = 0; i < 3; i++)
		in_deny(f, T0 + 3 * MS + i * MS, CG, RF_CLASS_NET, "1.2.3.4", 80, 501);
	a = first_of(f, RF_RULE_DENY_BURST);
	assert_non_null(a);
	assert_int_equal(a->proc.pid, 501);
	assert_string_equal(a->proc.name, "curl");
	assert_string_equal(a->proc.path, "/usr/bin/curl");
	assert_int_equal(a->proc.ppid, 500);
	assert_true(a->proc.parent_known);
	assert_string_equal(a->proc.parent_name, "sh");
	assert_string_equal(a->proc.parent_path, "/bin/sh");
	fx_free(f);
}

/* Bounded tables: more distinct alerts than slots are shed and counted,
 * and the count is itself reported as lost events. */
static void test_bounded_alerts(void **state)
{
	static const char *const allow[] = { "read", NULL };
	struct rf_detect_opts o = { .max_alerts = 4 };
	struct fx *f = fx_new(&o);
	const struct rf_alert *a;
	char name[32];
	int i;

	(void)state;
	in_sandbox(f, T0, CG, "sb-b", 0, 0, allow);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "call%d", i);
		in_proc(f, RF_IN_SYSCALL, T0 + MS * (uint64_t)i, CG, 1, 0, "x", NULL, name, 100 + i);
	}
	in_tick(f, T0 + 100 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_SYSCALL), 4);
	assert_int_equal(detect__shed(f->d), 6);
	a = last_of(f, RF_RULE_LOST);
	assert_non_null(a);
	assert_string_equal(a->key, "monitor-tables");
	assert_int_equal(a->count, 6);
	fx_free(f);
}

/* A flood of processes stays within the process table's bound. */
static void test_bounded_procs(void **state)
{
	struct rf_detect_opts o = { .max_procs = 64 };
	struct fx *f = fx_new(&o);
	uint32_t pid;

	(void)state;
	in_sandbox(f, T0, CG, "sb-f", 0, 0, NULL);
	for (pid = 1000; pid < 1200; pid++) {
		in_proc(f, RF_IN_FORK, T0 + pid, CG, pid, 1, "x", NULL, NULL, 0);
		if (pid % 2)
			in_proc(f, RF_IN_EXIT, T0 + pid, CG, pid, 1, "x", NULL, NULL, 0);
	}
	assert_true(detect__shed(f->d) > 0);     /* live ones had to go */
	assert_true(detect__shed(f->d) < 200);   /* exited ones went first */
	fx_free(f);
}

static void test_finish_closes_all(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	in_lost(f, T0, RF_HOP_OUTPUT, 1);
	detect__finish(f->d, T0 + MS);
	assert_int_equal(last_of(f, RF_RULE_LOST)->phase, RF_PHASE_CLOSE);
	assert_string_equal(last_of(f, RF_RULE_LOST)->close_reason, "shutdown");
	fx_free(f);
}


/* ---- the sandbox table ------------------------------------------------------ */

static void in_end(struct fx *f, uint64_t t, uint64_t cg)
{
	struct rf_input in = { .t_ns = t, .type = RF_IN_SANDBOX_END, .cgroup_id = cg };

	detect__input(f->d, &in);
}

static struct rf_table_stats table_of(struct fx *f)
{
	struct rf_table_stats ts;

	detect__table_stats(f->d, &ts);
	return ts;
}

/* Dead sandboxes (a decision, then the end their cgroup's removal makes)
 * leave the table within the grace period, and never count as shed, even
 * when there are many more of them than slots and no tick in between. */
static void test_table_dead_entries_leave(void **state)
{
	struct rf_detect_opts o = { .max_sandboxes = 64 };
	struct fx *f = fx_new(&o);
	struct rf_table_stats ts;
	uint64_t cg;

	(void)state;
	for (cg = 1000; cg < 1150; cg++) {
		in_deny(f, T0 + cg * MS, cg, RF_CLASS_NET, "127.0.0.1", 9, (uint32_t)cg);
		in_end(f, T0 + 2000 * MS, cg);
	}
	ts = table_of(f);
	assert_int_equal(ts.entries, 64);
	assert_int_equal(ts.shed, 0);
	assert_int_equal(ts.ended_freed, 150 - 64);
	assert_int_equal(n_alerts(f, RF_RULE_SHED), 0);
	/* the grace period (1 s virtual) later, all gone */
	ticks(f, T0 + 2000 * MS, T0 + 3250 * MS);
	ts = table_of(f);
	assert_int_equal(ts.entries, 0);
	assert_int_equal(ts.ended_freed, 150);
	assert_int_equal(detect__shed(f->d), 0);
	assert_int_equal(n_alerts(f, RF_RULE_LOST), 0);
	fx_free(f);
}

/* Entries of cgroups the registry never named, and no end ever came (no
 * liveness check, or a replay): idle 30 s with empty windows, they leave;
 * a registered sandbox idle as long stays. */
static void test_table_unregistered_idle_leave(void **state)
{
	struct fx *f = fx_new(NULL);
	struct rf_table_stats ts;

	(void)state;
	in_sandbox(f, T0, CG, "sb-reg", 0, 0, NULL);
	in_deny(f, T0, CG + 1, RF_CLASS_NET, "127.0.0.1", 9, 100);
	ticks(f, T0, T0 + (RF_UNREG_IDLE_MS - 250) * MS);
	assert_int_equal(table_of(f).entries, 2);
	assert_true(detect__has(f->d, CG + 1));
	ticks(f, T0 + (RF_UNREG_IDLE_MS - 250) * MS, T0 + (RF_UNREG_IDLE_MS + 250) * MS);
	ts = table_of(f);
	assert_int_equal(ts.entries, 1);
	assert_int_equal(ts.idle_freed, 1);
	assert_false(detect__has(f->d, CG + 1));
	assert_true(detect__has(f->d, CG));
	assert_int_equal(ts.shed, 0);
	fx_free(f);
}

/* A full table of live sandboxes: ended entries go first, then entries
 * outside the registry, then the one idle longest; each live one shed is
 * counted, and one table-shed alert covers the whole burst of shedding. */
static void test_table_eviction_order(void **state)
{
	struct rf_detect_opts o = { .max_sandboxes = 4, .linger_ms = 1000 };
	struct fx *f = fx_new(&o);
	const struct rf_alert *a;
	struct rf_table_stats ts;

	(void)state;
	in_sandbox(f, T0 + 1 * MS, 1, "sb-1", 0, 0, NULL);
	in_sandbox(f, T0 + 2 * MS, 2, "sb-2", 0, 0, NULL);
	in_sandbox(f, T0 + 3 * MS, 3, "sb-3", 0, 0, NULL);
	in_deny(f, T0 + 4 * MS, 4, RF_CLASS_NET, "127.0.0.1", 9, 100);  /* unregistered */
	in_deny(f, T0 + 5 * MS, 1, RF_CLASS_NET, "127.0.0.1", 9, 101);  /* sb-1 active */
	in_end(f, T0 + 6 * MS, 3);                                       /* sb-3 ended */

	in_sandbox(f, T0 + 10 * MS, 5, "sb-5", 0, 0, NULL);  /* the ended one goes */
	assert_false(detect__has(f->d, 3));
	assert_int_equal(table_of(f).shed, 0);
	in_sandbox(f, T0 + 11 * MS, 6, "sb-6", 0, 0, NULL);  /* then the unregistered */
	assert_false(detect__has(f->d, 4));
	assert_int_equal(table_of(f).shed, 1);
	in_sandbox(f, T0 + 12 * MS, 7, "sb-7", 0, 0, NULL);  /* then the idlest: sb-2 */
	assert_false(detect__has(f->d, 2));
	assert_true(detect__has(f->d, 1));
	in_deny(f, T0 + 13 * MS, 8, RF_CLASS_NET, "127.0.0.1", 9, 102); /* then sb-1 */
	assert_false(detect__has(f->d, 1));
	assert_true(detect__has(f->d, 5) && detect__has(f->d, 6) && detect__has(f->d, 7) &&
		    detect__has(f->d, 8));
	ts = table_of(f);
	assert_int_equal(ts.entries, 4);
	assert_int_equal(ts.shed, 3);
	assert_int_equal(ts.ended_freed, 1);
	/* shed entries are not lost events: each input found its slot */
	assert_int_equal(detect__shed(f->d), 0);

	ticks(f, T0 + 13 * MS, T0 + 3000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_SHED), 1);
	a = first_of(f, RF_RULE_SHED);
	assert_int_equal(a->phase, RF_PHASE_OPEN);
	assert_int_equal(a->count, 1);
	assert_string_equal(a->last_shed, "cgroup-4");
	a = last_of(f, RF_RULE_SHED);
	assert_int_equal(a->phase, RF_PHASE_CLOSE);
	assert_string_equal(a->close_reason, "quiet");
	assert_int_equal(a->count, 3);
	assert_int_equal(a->shed_total, 3);
	assert_int_equal(a->capacity, 4);
	assert_string_equal(a->last_shed, "sb-1");
	assert_string_equal(a->sandbox, "");
	assert_int_equal(rf_alert_severity(a), 4);

	/* a later burst of shedding is a new alert */
	in_sandbox(f, T0 + 4000 * MS, 9, "sb-9", 0, 0, NULL);
	ticks(f, T0 + 4000 * MS, T0 + 6000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_SHED), 2);
	assert_int_equal(last_of(f, RF_RULE_SHED)->count, 1);
	assert_int_equal(last_of(f, RF_RULE_SHED)->shed_total, 4);
	fx_free(f);
}

/* A shed sandbox's open alert closes (reason shed) rather than dangling. */
static void test_table_shed_closes_alerts(void **state)
{
	struct rf_detect_opts o = { .max_sandboxes = 2 };
	struct fx *f = fx_new(&o);
	int i;

	(void)state;
	in_sandbox(f, T0, 1, "sb-1", 10, 1000, NULL);
	for (i = 0; i < 12; i++)
		in_deny(f, T0 + (uint64_t)i * MS, 1, RF_CLASS_NET, "127.0.0.1", 9, 100);
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->phase, RF_PHASE_OPEN);
	in_sandbox(f, T0 + 20 * MS, 2, "sb-2", 0, 0, NULL);
	in_sandbox(f, T0 + 30 * MS, 3, "sb-3", 0, 0, NULL);    /* sb-1: idle longest */
	assert_false(detect__has(f->d, 1));
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->phase, RF_PHASE_CLOSE);
	assert_string_equal(last_of(f, RF_RULE_DENY_BURST)->close_reason, "shed");
	assert_int_equal(last_of(f, RF_RULE_DENY_BURST)->count, 12);
	fx_free(f);
}

/* The observed failure, in virtual time: a table full of the dead that no
 * end ever reached (no liveness check at all) still watches 20 new
 * sandboxes, and each of their bursts alerts. */
static void test_table_full_of_dead_still_alerts(void **state)
{
	struct rf_detect_opts o = { .max_sandboxes = 64 };
	struct fx *f = fx_new(&o);
	char name[32];
	uint64_t cg, t = T0 + 10000 * MS;
	int i;

	(void)state;
	for (cg = 1000; cg < 1150; cg++)
		in_deny(f, T0 + cg * MS, cg, RF_CLASS_NET, "127.0.0.1", 9, (uint32_t)cg);
	assert_int_equal(table_of(f).entries, 64);
	for (cg = 1; cg <= 20; cg++) {
		snprintf(name, sizeof(name), "new-%d", (int)cg);
		in_sandbox(f, t, cg, name, 0, 0, NULL);
	}
	for (cg = 1; cg <= 20; cg++)
		for (i = 0; i < 30; i++)
			in_deny(f, t + cg * 10 * MS + (uint64_t)i * MS, cg, RF_CLASS_NET,
				"127.0.0.1", 9, (uint32_t)cg);
	ticks(f, t, t + 5000 * MS);
	assert_int_equal(n_alerts(f, RF_RULE_DENY_BURST), 20);
	for (cg = 1; cg <= 20; cg++)
		assert_true(detect__has(f->d, cg));
	/* Nothing said the dead were gone: every one pushed out is counted as
	 * shed, 86 by the later dead, then 20 (unregistered first) by the new. */
	assert_int_equal(table_of(f).shed, (150 - 64) + 20);
	assert_int_equal(n_alerts(f, RF_RULE_SHED), 1);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_one_alert),
		cmocka_unit_test(test_burst_below_threshold),
		cmocka_unit_test(test_burst_sliding_window),
		cmocka_unit_test(test_burst_rollup_updates),
		cmocka_unit_test(test_burst_fold_and_separate),
		cmocka_unit_test(test_burst_destinations),
		cmocka_unit_test(test_burst_large_threshold),
		cmocka_unit_test(test_failed_ops_file),
		cmocka_unit_test(test_failed_ops_process_names_the_op),
		cmocka_unit_test(test_syscall_outside_profile),
		cmocka_unit_test(test_syscall_no_profile),
		cmocka_unit_test(test_syscall_before_registry),
		cmocka_unit_test(test_syscall_refused),
		cmocka_unit_test(test_syscall_errno),
		cmocka_unit_test(test_resource_memory),
		cmocka_unit_test(test_resource_pids_and_cpu),
		cmocka_unit_test(test_resource_rise),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_sandbox_end_closes),
		cmocka_unit_test(test_lineage),
		cmocka_unit_test(test_bounded_alerts),
		cmocka_unit_test(test_bounded_procs),
		cmocka_unit_test(test_finish_closes_all),
		cmocka_unit_test(test_table_dead_entries_leave),
		cmocka_unit_test(test_table_unregistered_idle_leave),
		cmocka_unit_test(test_table_eviction_order),
		cmocka_unit_test(test_table_shed_closes_alerts),
		cmocka_unit_test(test_table_full_of_dead_still_alerts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
