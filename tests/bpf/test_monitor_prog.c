// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf/monitor.bpf.c on its own: its skeleton loaded and attached (tp_btf
 * sys_enter, sched_process_fork/exec/exit, sched_switch, rss_stat), a
 * scratch cgroup registered in rf_mon_acct the way ringfence-monitor does
 * (an entry with the live process count, BPF_NOEXIST), a child moved into
 * it that forks and execs this binary again, and assertions on the
 * per-sandbox accounting and the ring-buffer records. Syscalls are taken
 * at sys_exit (exit and exit_group at sched_process_exit), so a call a seccomp
 * filter refused, which never reaches sys_enter, is recorded too.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "bpftest.h"
#include "rf_abi.h"
#include "monitor.skel.h"

#define MAX_EVENTS 1024
#define CHILD_EXIT 3            /* the exec'd child's exit status */
#define RSS_TOUCH (16u << 20)

static struct {
	struct monitor_bpf *skel;
	struct bt_cgroup cg, sb, sb_inner, other;  /* cg: parent of the rest */
	struct ring_buffer *rb;
	struct rf_mon_event events[MAX_EVENTS];
	int n_events;
	char self[512];         /* this binary, exec'd by the children */
	volatile pid_t *shared; /* MAP_SHARED: the grandchild's pid, from the child */
} T = { .cg.fd = -1, .sb.fd = -1, .sb_inner.fd = -1, .other.fd = -1 };

/* ---- the exec'd side: argv[1] "--child", argv[2] what to do ---- */

/* A filter of the child's own: sysinfo answers EPERM, the rest runs. */
static int refuse_sysinfo(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sysinfo, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int child_main(const char *what)
{
	struct sysinfo si;
	struct timespec t0, t;

	if (!strcmp(what, "sysinfo"))
		syscall(SYS_sysinfo, &si);
	if (!strcmp(what, "killed")) {
		kill(getpid(), SIGKILL);        /* dies on the way out of kill() */
		pause();
	}
	if (!strcmp(what, "refused-sysinfo")) {
		if (refuse_sysinfo())
			return 98;
		if (syscall(SYS_sysinfo, &si) != -1 || errno != EPERM)
			return 99;      /* the filter must have refused it */
	}
	/* 20 ms on a CPU (not of wall time: the host may be busy) for
	 * sched_switch to account. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
	if (!strcmp(what, "sys-exit"))
		syscall(SYS_exit, CHILD_EXIT);  /* the one thread: the process ends */
	return CHILD_EXIT;
}

/* ---- maps and records ---- */

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	assert_int_equal(size, sizeof(struct rf_mon_event));
	if (T.n_events < MAX_EVENTS)
		memcpy(&T.events[T.n_events], data, sizeof(struct rf_mon_event));
	T.n_events++;
	return 0;
}

static void events_drain(void)
{
	assert_true(ring_buffer__consume(T.rb) >= 0);
	assert_true(T.n_events <= MAX_EVENTS);
}

/* The records of kind (and pid, when not 0) of cgroup cgid. */
static int events_of(uint64_t cgid, uint32_t kind, pid_t pid, struct rf_mon_event **ret)
{
	int n = 0;

	for (int i = 0; i < T.n_events; i++) {
		struct rf_mon_event *e = &T.events[i];

		if (e->cgroup_id == cgid && e->kind == kind && (!pid || e->pid == (uint32_t)pid)) {
			if (ret && !n)
				*ret = e;
			n++;
		}
	}
	return n;
}

/* The SYSCALL record of nr in cgroup cgid (exactly one), or NULL. */
static struct rf_mon_event *syscall_event(uint64_t cgid, int nr)
{
	struct rf_mon_event *found = NULL;

	for (int i = 0; i < T.n_events; i++) {
		struct rf_mon_event *e = &T.events[i];

		if (e->cgroup_id == cgid && e->kind == RF_MON_EV_SYSCALL && e->nr == nr) {
			assert_null(found);
			found = e;
		}
	}
	return found;
}

static int acct_fd(void)
{
	return bpf_map__fd(T.skel->maps.rf_mon_acct);
}

/* As sensors__add: the live count it found, armed or not. */
static void acct_register(const struct bt_cgroup *cg, int64_t procs)
{
	struct rf_mon_acct a = { .procs = procs, .procs_peak = procs,
				 .peak_epoch = T.skel->bss->rf_epoch };

	assert_int_equal(bpf_map_update_elem(acct_fd(), &cg->id, &a, BPF_NOEXIST), 0);
}

static struct rf_mon_acct acct_get(const struct bt_cgroup *cg)
{
	struct rf_mon_acct a;

	assert_int_equal(bpf_map_lookup_elem(acct_fd(), &cg->id, &a), 0);
	return a;
}

static bool seen(const struct rf_mon_acct *a, int nr)
{
	return (a->seen[nr / 64] >> (nr % 64)) & 1;
}

static uint64_t popcount_seen(const struct rf_mon_acct *a)
{
	uint64_t n = 0;

	for (int w = 0; w < RF_MON_SYSCALL_WORDS; w++)
		n += (uint64_t)__builtin_popcountll(a->seen[w]);
	return n;
}

static uint64_t stat_of(uint32_t idx)
{
	return bt_percpu_sum(bpf_map__fd(T.skel->maps.rf_mon_stats), idx);
}

/* ---- what the first child (moved into the cgroup) does ---- */

/* Fork; the grandchild execs this binary with "--child what". Returns 0
 * when it exited CHILD_EXIT; the pipe tells the parent its pid. */
static int act_fork_exec(void *arg)
{
	const char *what = arg;
	char *argv[] = { T.self, "--child", (char *)what, NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		execv(T.self, argv);
		_exit(127);
	}
	*T.shared = pid;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == CHILD_EXIT ? 0 : 100;
}

/* As act_fork_exec, for a grandchild that a signal ends: 0 when it did. */
static int act_fork_exec_killed(void *arg)
{
	char *argv[] = { T.self, "--child", "killed", NULL };
	int status;
	pid_t pid = fork();

	(void)arg;
	if (pid < 0)
		return errno;
	if (pid == 0) {
		execv(T.self, argv);
		_exit(127);
	}
	*T.shared = pid;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 100;
}

static int act_sysinfo(void *arg)
{
	struct sysinfo si;

	(void)arg;
	return syscall(SYS_sysinfo, &si) ? errno : 0;
}


/* ---- fixtures ---- */

static int group_teardown(void **state)
{
	(void)state;
	ring_buffer__free(T.rb);
	T.rb = NULL;
	if (T.shared)
		munmap((void *)T.shared, sizeof(*T.shared));
	T.shared = NULL;
	monitor_bpf__destroy(T.skel);   /* detaches every program */
	T.skel = NULL;
	bt_cgroup_remove(&T.sb_inner);
	bt_cgroup_remove(&T.sb);
	bt_cgroup_remove(&T.other);
	bt_cgroup_remove(&T.cg);
	return 0;
}

static int group_setup(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t shift = 0;
	ssize_t n;
	int err;

	(void)state;
	n = readlink("/proc/self/exe", T.self, sizeof(T.self) - 1);
	if (n <= 0)
		return -1;
	T.self[n] = '\0';
	T.shared = mmap(NULL, sizeof(*T.shared), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (T.shared == MAP_FAILED) {
		T.shared = NULL;
		return -1;
	}
	if (bt_cgroup_scratch(&T.cg) || bt_cgroup_make(T.cg.path, "sb", &T.sb) ||
	    bt_cgroup_make(T.sb.path, "inner", &T.sb_inner) ||
	    bt_cgroup_make(T.cg.path, "other", &T.other)) {
		fprintf(stderr, "scratch cgroups: %s\n", strerror(errno));
		group_teardown(state);
		return -1;
	}
	T.skel = monitor_bpf__open();
	if (!T.skel) {
		group_teardown(state);
		return -1;
	}
	while ((1L << shift) < page)
		shift++;
	T.skel->rodata->rf_page_shift = shift;
	err = monitor_bpf__load(T.skel);
	if (!err)
		err = monitor_bpf__attach(T.skel);  /* sched_switch included */
	if (err) {
		fprintf(stderr, "load/attach monitor.bpf.c: %s\n", strerror(-err));
		group_teardown(state);
		return -1;
	}
	T.rb = ring_buffer__new(bpf_map__fd(T.skel->maps.rf_mon_events), on_event, NULL, NULL);
	if (!T.rb) {
		group_teardown(state);
		return -1;
	}
	return 0;
}

static int test_setup(void **state)
{
	(void)state;
	T.skel->bss->rf_parent_cgid = 0;
	T.skel->bss->rf_epoch = 0;
	bt_map_clear(acct_fd(), sizeof(uint64_t));
	bt_map_clear(bpf_map__fd(T.skel->maps.rf_mon_procs), sizeof(uint32_t));
	bt_percpu_zero(bpf_map__fd(T.skel->maps.rf_mon_stats), RF_MON_STAT_MAX);
	assert_true(ring_buffer__consume(T.rb) >= 0);
	T.n_events = 0;
	*T.shared = 0;
	return 0;
}

/* ---- tests ---- */

/* Registered with the child as its one live process: the child forks, the
 * grandchild execs this binary, calls sysinfo and exits CHILD_EXIT. */
static void fork_exec_syscall_accounted(void **state)
{
	struct rf_mon_event *e = NULL;
	struct rf_mon_acct a;
	pid_t child, gc;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_fork_exec, "sysinfo"), 0);
	child = bt_last_pid;
	gc = *T.shared;
	assert_true(gc > 0);
	events_drain();

	a = acct_get(&T.sb);
	assert_int_equal(a.flags, RF_MON_ACCT_ARMED);  /* not AUTO: user space made it */
	assert_int_equal(a.forks, 1);
	assert_int_equal(a.execs, 1);
	assert_int_equal(a.exits, 2);
	assert_int_equal(a.procs, 0);
	assert_int_equal(a.procs_peak, 2);
	assert_true(seen(&a, SYS_sysinfo));
	assert_true(seen(&a, SYS_exit_group));
	assert_int_equal(a.syscalls_seen, popcount_seen(&a));
	assert_true(a.cpu_ns >= 10000000);      /* the grandchild spun 20 ms */

	assert_int_equal(events_of(T.sb.id, RF_MON_EV_FORK, 0, &e), 1);
	assert_int_equal(e->pid, gc);
	assert_int_equal(e->tid, gc);
	assert_int_equal(e->ppid, child);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXEC, 0, &e), 1);
	assert_int_equal(e->pid, gc);
	assert_int_equal(e->ppid, child);
	assert_int_equal(e->path_len, strlen(T.self));
	assert_string_equal(e->path, T.self);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXIT, gc, &e), 1);
	assert_int_equal(e->code, CHILD_EXIT << 8);
	assert_int_equal(e->ppid, child);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXIT, child, &e), 1);
	assert_int_equal(e->code, 0);
	assert_int_equal(e->ppid, getpid());
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXIT, 0, NULL), 2);

	/* One SYSCALL record per distinct number; sysinfo's is the grandchild's. */
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_SYSCALL, 0, NULL), (int)a.syscalls_seen);
	for (int i = 0; i < T.n_events; i++)
		if (T.events[i].kind == RF_MON_EV_SYSCALL && T.events[i].nr == SYS_sysinfo) {
			assert_int_equal(T.events[i].pid, gc);
			assert_int_equal(T.events[i].cgroup_id, T.sb.id);
		}
	assert_int_equal(stat_of(RF_MON_STAT_EVENTS), T.n_events);
	assert_int_equal(stat_of(RF_MON_STAT_RINGBUF_LOST), 0);
	assert_int_equal(stat_of(RF_MON_STAT_ACCT_FULL), 0);
	/* Taken at the return: sysinfo succeeded; the exec that armed the
	 * sandbox returns into the new image; exit_group (at entry) has none. */
	e = syscall_event(T.sb.id, SYS_sysinfo);
	assert_non_null(e);
	assert_int_equal(e->ret, 0);
	assert_true(seen(&a, SYS_execve));
	e = syscall_event(T.sb.id, SYS_execve);
	assert_non_null(e);
	assert_int_equal(e->pid, gc);
	assert_int_equal(e->ret, 0);
	e = syscall_event(T.sb.id, SYS_exit_group);
	assert_non_null(e);
	assert_int_equal(e->ret, 0);
}

/* A call refused by a seccomp filter never reaches sys_enter: it is
 * recorded at sys_exit, with the filter's -EPERM as its value. */
static void seccomp_refused_syscall_recorded(void **state)
{
	struct rf_mon_event *e;
	struct rf_mon_acct a;
	pid_t gc;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_fork_exec, "refused-sysinfo"), 0);
	gc = *T.shared;
	assert_true(gc > 0);
	events_drain();
	a = acct_get(&T.sb);
	assert_true(seen(&a, SYS_seccomp));
	assert_true(seen(&a, SYS_sysinfo));
	assert_int_equal(a.syscalls_seen, popcount_seen(&a));
	e = syscall_event(T.sb.id, SYS_seccomp);
	assert_non_null(e);
	assert_int_equal(e->ret, 0);
	e = syscall_event(T.sb.id, SYS_sysinfo);
	assert_non_null(e);
	assert_int_equal(e->pid, gc);
	assert_int_equal(e->tid, gc);
	assert_int_equal(e->ret, -EPERM);
	assert_int_equal(stat_of(RF_MON_STAT_RINGBUF_LOST), 0);
}

/* exit_group is taken from the exiting thread's registers: a process a
 * signal ended made no exit_group (its parent, which returns, did). */
static void killed_process_made_no_exit_group(void **state)
{
	struct rf_mon_event *e;
	pid_t gc;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_fork_exec_killed, NULL), 0);
	gc = *T.shared;
	assert_true(gc > 0);
	events_drain();
	e = syscall_event(T.sb.id, SYS_kill);
	assert_non_null(e);
	assert_int_equal(e->pid, gc);
	e = syscall_event(T.sb.id, SYS_exit_group);
	assert_non_null(e);
	assert_int_equal(e->pid, bt_last_pid);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXIT, gc, NULL), 1);
}

/* exit (not exit_group) is seen too, from the thread that made it. */
static void exit_syscall_recorded(void **state)
{
	struct rf_mon_event *e;
	pid_t gc;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_fork_exec, "sys-exit"), 0);
	gc = *T.shared;
	events_drain();
	e = syscall_event(T.sb.id, SYS_exit);
	assert_non_null(e);
	assert_int_equal(e->pid, gc);
	assert_int_equal(e->ret, 0);
	e = syscall_event(T.sb.id, SYS_exit_group);
	assert_non_null(e);
	assert_int_equal(e->pid, bt_last_pid);
}

/* The twin without the distinctive syscall: its bit stays clear. */
static void exec_without_sysinfo_leaves_its_bit(void **state)
{
	struct rf_mon_acct a;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_fork_exec, "quiet"), 0);
	events_drain();
	a = acct_get(&T.sb);
	assert_int_equal(a.flags, RF_MON_ACCT_ARMED);
	assert_int_equal(a.execs, 1);
	assert_false(seen(&a, SYS_sysinfo));
	assert_true(seen(&a, SYS_exit_group));
	assert_int_equal(a.syscalls_seen, popcount_seen(&a));
	for (int i = 0; i < T.n_events; i++)
		assert_false(T.events[i].kind == RF_MON_EV_SYSCALL && T.events[i].nr == SYS_sysinfo);
}

/* Before the first exec the syscalls are the launcher's: not counted. */
static void syscalls_before_exec_not_counted(void **state)
{
	struct rf_mon_acct a;
	static const uint64_t zero[RF_MON_SYSCALL_WORDS];

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb, act_sysinfo, NULL), 0);
	events_drain();
	a = acct_get(&T.sb);
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.execs, 0);
	assert_int_equal(a.forks, 0);
	assert_int_equal(a.exits, 1);
	assert_int_equal(a.procs, 0);
	assert_int_equal(a.syscalls_seen, 0);
	assert_memory_equal(a.seen, zero, sizeof(zero));
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_SYSCALL, 0, NULL), 0);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXIT, bt_last_pid, NULL), 1);
}

/* A sub-cgroup of a sandbox counts for the sandbox; cgroups that are no
 * sandbox and processes outside count for nothing. */
static void only_registered_sandboxes_count(void **state)
{
	struct rf_mon_acct a;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(bt_run(&T.sb_inner, act_fork_exec, "sysinfo"), 0);
	assert_int_equal(bt_run(&T.other, act_fork_exec, "sysinfo"), 0);
	assert_int_equal(bt_run(NULL, act_fork_exec, "sysinfo"), 0);
	events_drain();
	a = acct_get(&T.sb);
	assert_int_equal(a.forks, 1);
	assert_int_equal(a.execs, 1);
	assert_int_equal(a.exits, 2);
	assert_true(seen(&a, SYS_sysinfo));
	assert_int_equal(bt_map_count(acct_fd(), sizeof(uint64_t)), 1);
	for (int i = 0; i < T.n_events; i++)
		assert_int_equal(T.events[i].cgroup_id, T.sb.id);
	assert_int_equal(events_of(T.sb.id, RF_MON_EV_EXEC, 0, NULL), 1);
}

/* With the parent cgroup named, its children are sandboxes on first sight
 * (AUTO), before any registry entry. */
static void parent_mode_makes_entries(void **state)
{
	struct rf_mon_acct a;
	uint64_t ids[4];
	int n = 0;

	(void)state;
	T.skel->bss->rf_parent_cgid = T.cg.id;
	assert_int_equal(bt_run(&T.other, act_fork_exec, "sysinfo"), 0);
	events_drain();
	a = acct_get(&T.other);
	assert_int_equal(a.flags, RF_MON_ACCT_AUTO | RF_MON_ACCT_ARMED);
	assert_int_equal(a.forks, 1);
	assert_int_equal(a.execs, 1);
	assert_int_equal(a.exits, 2);
	/* Moved in, not forked in: one exit more than forks seen. */
	assert_int_equal(a.procs, -1);
	assert_true(seen(&a, SYS_sysinfo));
	/* The parent itself is no sandbox; a grandchild cgroup counts for its
	 * child-of-parent ancestor. */
	assert_int_equal(bt_run(&T.cg, act_sysinfo, NULL), 0);
	assert_int_equal(bt_run(&T.sb_inner, act_sysinfo, NULL), 0);
	while (n < 4 && !bpf_map_get_next_key(acct_fd(), n ? &ids[n - 1] : NULL, &ids[n]))
		n++;
	assert_int_equal(n, 2);
	assert_int_equal(acct_get(&T.sb).flags, RF_MON_ACCT_AUTO);
	assert_int_equal(acct_get(&T.sb).exits, 1);
	assert_int_equal(bpf_map_lookup_elem(acct_fd(), &T.cg.id, &a), -ENOENT);
}

static int act_touch_and_wait(void *arg)
{
	int *fds = arg;
	char *p = malloc(RSS_TOUCH), c = 0;
	int r = 0;

	if (!p)
		return ENOMEM;
	memset(p, 1, RSS_TOUCH);
	if (write(fds[1], "r", 1) != 1 || read(fds[2], &c, 1) != 1)
		r = EIO;
	free(p);
	return r;
}

/* A process's resident memory is kept while it lives, gone at exit. */
static void rss_tracked_while_alive(void **state)
{
	struct rf_mon_proc proc;
	int up[2], down[2], fds[3];
	pid_t pid;
	char c;
	int status;

	(void)state;
	acct_register(&T.sb, 1);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	fds[1] = up[1];
	fds[2] = down[0];
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r = bt_enter(&T.sb);

		_exit(r ? r : act_touch_and_wait(fds));
	}
	close(up[1]);
	close(down[0]);
	/* The parent must always release the child, so assert after. */
	status = read(up[0], &c, 1) == 1 &&
		 !bpf_map_lookup_elem(bpf_map__fd(T.skel->maps.rf_mon_procs), &pid, &proc);
	if (write(down[1], "x", 1) != 1)
		status = 0;
	close(up[0]);
	close(down[1]);
	assert_int_equal(waitpid(pid, &fds[0], 0), pid);
	assert_true(WIFEXITED(fds[0]) && WEXITSTATUS(fds[0]) == 0);
	assert_true(status);
	assert_int_equal(proc.cgroup_id, T.sb.id);
	assert_true(proc.rss_bytes >= RSS_TOUCH);
	assert_true(proc.ts_ns > 0);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(T.skel->maps.rf_mon_procs), &pid, &proc),
			 -ENOENT);
	assert_int_equal(stat_of(RF_MON_STAT_PROCS_FULL), 0);
}

int main(int argc, char **argv)
{
#define T_(f) cmocka_unit_test_setup(f, test_setup)
	const struct CMUnitTest tests[] = {
		T_(fork_exec_syscall_accounted),
		T_(seccomp_refused_syscall_recorded),
		T_(killed_process_made_no_exit_group),
		T_(exit_syscall_recorded),
		T_(exec_without_sysinfo_leaves_its_bit),
		T_(syscalls_before_exec_not_counted),
		T_(only_registered_sandboxes_count),
		T_(parent_mode_makes_entries),
		T_(rss_tracked_while_alive),
	};

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(argv[2]);
	if (bt_require_root())
		return 0;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
