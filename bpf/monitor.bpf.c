// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence-monitor's own sensors: BTF tracepoints filtered in the kernel
 * to sandbox cgroups. Nothing here denies anything.
 *
 *   sys_exit             (attached with --record only: every syscall of the
 *                        host pays for it; profiles get their reports from
 *                        the supervisor's seccomp listener)
 *                        first call of each syscall number per sandbox, with
 *                        its return value (a per-sandbox bitmap; later calls
 *                        cost a bit test); calls a seccomp filter refused
 *                        included, as they skip sys_enter but not sys_exit
 *                        (exit and exit_group, which never return, are
 *                        taken at sched_process_exit)
 *   sched_process_fork   new processes: live count, lineage
 *   sched_process_exec   what ran; arms the syscall set (the launcher's own
 *                        set-up before its exec is not the command's)
 *   sched_process_exit   live count; forgets the process's memory; the exit
 *                        or exit_group call of the exiting thread
 *   sched_switch         on-CPU time per sandbox (cgroup v2 cpu.stat may be
 *                        missing on hybrid hosts)
 *   rss_stat             resident memory per process (memory.current too)
 *
 * A task belongs to a sandbox when its cgroup or an ancestor is one. When
 * user space names the ringfence parent cgroup (rf_parent_cgid), every
 * child of it is a sandbox, created here on first sight, so nothing a
 * sandbox does before the monitor reads its registry entry is missed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rf_abi.h"
#include "rf_util.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PF_EXITING 0x00000004

/* The syscall number at sys_exit (the tracepoint passes only the regs). */
#if defined(__TARGET_ARCH_x86)
#define RF_SYSCALL_NR(r) ((r)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
#define RF_SYSCALL_NR(r) ((r)->syscallno)
#else
#error "monitor.bpf.c: syscall number at sys_exit unknown for this architecture"
#endif
#define RSS_MIN_DELTA (256 * 1024)  /* smaller rss changes are not written */

const volatile __u32 rf_page_shift = 12;

/* Set by user space after load (mmapped .bss). */
__u64 rf_parent_cgid = 0;           /* the ringfence cgroup, 0: unknown */
__u64 rf_epoch = 0;                 /* sample period, for procs_peak */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct rf_mon_acct);
} rf_mon_acct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct rf_mon_proc);
} rf_mon_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_mon_oncpu);
} rf_mon_oncpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} rf_mon_events SEC(".maps");

RF_PERCPU_COUNTERS(rf_mon_stats, RF_MON_STAT_MAX);

static __always_inline void stat_inc(__u32 idx)
{
	counter_inc(&rf_mon_stats, idx);
}

/* The sandbox entry of cgroup id, made on first sight when create. */
static __always_inline struct rf_mon_acct *acct_of(__u64 id, bool create)
{
	struct rf_mon_acct *a = bpf_map_lookup_elem(&rf_mon_acct, &id);
	struct rf_mon_acct fresh = {};

	if (a || !create)
		return a;
	fresh.flags = RF_MON_ACCT_AUTO;
	if (bpf_map_update_elem(&rf_mon_acct, &id, &fresh, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&rf_mon_acct, &id)) {
		stat_inc(RF_MON_STAT_ACCT_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&rf_mon_acct, &id);
}

/*
 * One step of the walk down from the root: id is the ancestor at this
 * level. With the parent known, only its child can be a sandbox (no map
 * lookups for the rest of the host); otherwise any entry in the map.
 * Returns true when the walk ends; *ret is the sandbox or NULL.
 */
static __always_inline bool sandbox_step(__u64 id, __u64 parent, bool *below,
					 __u64 *ret_cgid, struct rf_mon_acct **ret)
{
	struct rf_mon_acct *a = NULL;
	bool stop = false;

	if (!id) {
		stop = true;    /* deeper than the task's own cgroup */
	} else if (parent) {
		if (id == parent) {
			*below = true;
		} else if (*below) {
			a = acct_of(id, true);
			stop = true;
		}
	} else {
		a = acct_of(id, false);
	}
	if (a) {
		*ret_cgid = id;
		stop = true;
	}
	*ret = a;
	return stop;
}

/* The sandbox of the current task, or NULL. */
static __always_inline struct rf_mon_acct *sandbox_current(__u64 *ret_cgid)
{
	__u64 parent = rf_parent_cgid;
	struct rf_mon_acct *a = NULL;
	bool below = false;

	for (int lvl = 1; lvl < RF_MAX_LEVEL; lvl++) {
		__u64 id = bpf_get_current_ancestor_cgroup_id(lvl);

		if (sandbox_step(id, parent, &below, ret_cgid, &a))
			return a;
	}
	return NULL;
}

/* The sandbox of another task (fork's child, the task switched in). */
static __always_inline struct rf_mon_acct *sandbox_task(struct task_struct *t, __u64 *ret_cgid)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	__u64 parent = rf_parent_cgid;
	struct rf_mon_acct *a = NULL;
	bool below = false;
	int level;

	if (!cg)
		return NULL;
	level = BPF_CORE_READ(cg, level);
	for (int lvl = 1; lvl < RF_MAX_LEVEL; lvl++) {
		struct cgroup *anc = NULL;
		__u64 id = 0;

		if (lvl <= level) {
			bpf_core_read(&anc, sizeof(anc), &cg->ancestors[lvl]);
			if (anc)
				id = BPF_CORE_READ(anc, kn, id);
		}
		if (sandbox_step(id, parent, &below, ret_cgid, &a))
			return a;
	}
	return NULL;
}

static __always_inline struct rf_mon_event *event_new(__u32 kind, __u64 cgid)
{
	struct rf_mon_event *e = bpf_ringbuf_reserve(&rf_mon_events, sizeof(*e), 0);

	if (!e) {
		stat_inc(RF_MON_STAT_RINGBUF_LOST);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	RF_EVENT_TASK(e, cgid, kind);
	return e;
}

static __always_inline void event_submit(struct rf_mon_event *e)
{
	stat_inc(RF_MON_STAT_EVENTS);
	bpf_ringbuf_submit(e, 0);
}

/*
 * Record syscall nr for the current task's sandbox the first time it is
 * seen there. Every other task returns after the cgroup walk; a later call
 * of a known number costs one bit test.
 */
static __always_inline void syscall_note(long nr, long ret)
{
	struct rf_mon_acct *a;
	struct rf_mon_event *e;
	__u64 cgid, bit, old;
	__u32 w;

	a = sandbox_current(&cgid);
	if (!a || !(a->flags & RF_MON_ACCT_ARMED))
		return;
	if (nr < 0 || nr >= RF_MON_SYSCALL_MAX) {
		stat_inc(RF_MON_STAT_SYSCALL_RANGE);
		return;
	}
	w = ((__u32)nr / 64) & (RF_MON_SYSCALL_WORDS - 1);
	bit = 1ULL << ((__u32)nr % 64);
	if (a->seen[w] & bit)
		return;
	old = __sync_fetch_and_or(&a->seen[w], bit);
	if (old & bit)
		return;         /* another CPU was first */
	__sync_fetch_and_add(&a->syscalls_seen, 1);
	e = event_new(RF_MON_EV_SYSCALL, cgid);
	if (!e)
		return;
	e->nr = (__s32)nr;
	e->ret = ret;
	event_submit(e);
}

/*
 * Syscalls are recorded at their return: a seccomp filter runs before the
 * sys_enter tracepoint, so a call the sandbox's boundary refused (ERRNO)
 * never reaches sys_enter, but it does return through sys_exit, with its
 * number still in orig_ax and -errno as its value.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(rf_mon_sys_exit, struct pt_regs *regs, long ret)
{
	syscall_note((long)RF_SYSCALL_NR(regs), ret);
	return 0;
}

static __always_inline void procs_add(struct rf_mon_acct *a, __s64 d)
{
	__s64 now = __sync_fetch_and_add(&a->procs, d) + d;
	__u64 epoch = rf_epoch;

	if (a->peak_epoch != epoch) {
		a->peak_epoch = epoch;
		a->procs_peak = now;
	} else if (now > a->procs_peak) {
		a->procs_peak = now;    /* racy max: a sample, not a count */
	}
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(rf_mon_fork, struct task_struct *parent, struct task_struct *child)
{
	struct rf_mon_acct *a;
	struct rf_mon_event *e;
	__u64 cgid;

	if (child->pid != child->tgid)
		return 0;       /* a thread */
	a = sandbox_task(child, &cgid);
	if (!a)
		return 0;
	procs_add(a, 1);
	__sync_fetch_and_add(&a->forks, 1);
	e = event_new(RF_MON_EV_FORK, cgid);
	if (!e)
		return 0;
	e->pid = child->tgid;
	e->tid = child->pid;
	e->ppid = parent->tgid;
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), child->comm);
	event_submit(e);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(rf_mon_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct rf_mon_acct *a;
	struct rf_mon_event *e;
	const char *filename;
	__u64 cgid;
	long n;

	a = sandbox_current(&cgid);
	if (!a)
		return 0;
	if (!(a->flags & RF_MON_ACCT_ARMED))
		__sync_fetch_and_or(&a->flags, (__u64)RF_MON_ACCT_ARMED);
	__sync_fetch_and_add(&a->execs, 1);
	e = event_new(RF_MON_EV_EXEC, cgid);
	if (!e)
		return 0;
	e->ppid = BPF_CORE_READ(p, real_parent, tgid);
	filename = BPF_CORE_READ(bprm, filename);
	n = bpf_probe_read_kernel_str(e->path, sizeof(e->path), filename);
	e->path_len = n > 0 ? (__u32)(n - 1) : 0;
	event_submit(e);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(rf_mon_exit, struct task_struct *p)
{
	struct rf_mon_acct *a;
	struct rf_mon_event *e;
	__u32 tgid;
	__u64 cgid;
	long nr;

	/* Calls that never return to sys_exit are taken here, where the
	 * exiting thread's registers still name the call it died in: exit and
	 * exit_group, and any call a signal killed the thread in (a sleep, a
	 * read); -1 when it was not in a syscall. The call ran: ret 0. */
	nr = (long)RF_SYSCALL_NR((struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()));
	if (nr >= 0)
		syscall_note(nr, 0);
	/* The group is dead when its live count reached zero (this works
	 * with and without the tracepoint's group_dead argument). */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	a = sandbox_current(&cgid);
	if (!a)
		return 0;
	tgid = p->tgid;
	bpf_map_delete_elem(&rf_mon_procs, &tgid);
	procs_add(a, -1);
	__sync_fetch_and_add(&a->exits, 1);
	e = event_new(RF_MON_EV_EXIT, cgid);
	if (!e)
		return 0;
	e->pid = tgid;
	e->ppid = BPF_CORE_READ(p, real_parent, tgid);
	e->code = p->exit_code;
	event_submit(e);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rf_mon_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct rf_mon_oncpu *c;
	struct rf_mon_acct *a;
	__u32 zero = 0;
	__u64 now, cgid = 0;

	c = bpf_map_lookup_elem(&rf_mon_oncpu, &zero);
	if (!c)
		return 0;
	now = bpf_ktime_get_ns();
	if (c->cgroup_id && now > c->since_ns) {
		a = bpf_map_lookup_elem(&rf_mon_acct, &c->cgroup_id);
		if (a)
			__sync_fetch_and_add(&a->cpu_ns, now - c->since_ns);
	}
	c->since_ns = now;
	c->cgroup_id = 0;
	if (!next->pid)
		return 0;       /* idle */
	if (sandbox_task(next, &cgid))
		c->cgroup_id = cgid;
	return 0;
}

/* Linux before 6.2 (Debian 12's 6.1): the counters are one struct of
 * atomics, not an array of per-CPU counters. CO-RE picks the layout of the
 * running kernel; the other branch is never loaded. */
struct mm_rss_stat___pre62 {
	atomic_long_t count[NR_MM_COUNTERS];
} __attribute__((preserve_access_index));
struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

/* Resident pages of mm: file, anon and shmem. */
static __always_inline __s64 rss_pages(struct mm_struct *mm)
{
	/* A field check, not bpf_core_type_exists(): a type this kernel lacks
	 * makes libbpf search module BTFs, which needs CAP_SYS_ADMIN (the
	 * monitor's unit has CAP_BPF and CAP_PERFMON only). */
	if (bpf_core_field_exists(struct mm_struct___pre62, rss_stat)) {
		struct mm_struct___pre62 *old = (void *)mm;

		return BPF_CORE_READ(old, rss_stat.count[MM_FILEPAGES].counter) +
		       BPF_CORE_READ(old, rss_stat.count[MM_ANONPAGES].counter) +
		       BPF_CORE_READ(old, rss_stat.count[MM_SHMEMPAGES].counter);
	}
	return mm->rss_stat[MM_FILEPAGES].count + mm->rss_stat[MM_ANONPAGES].count +
	       mm->rss_stat[MM_SHMEMPAGES].count;
}

SEC("tp_btf/rss_stat")
int BPF_PROG(rf_mon_rss, struct mm_struct *mm, int member)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rf_mon_proc v = {}, *old;
	struct rf_mon_acct *a;
	__s64 pages;
	__u64 cgid;
	__u32 tgid;

	/* Only the process's own changes (not reclaim by another task),
	 * and not its teardown: exit forgets the process. */
	if (t->mm != mm || (t->flags & PF_EXITING))
		return 0;
	a = sandbox_current(&cgid);
	if (!a)
		return 0;
	pages = rss_pages(mm);
	if (pages < 0)
		pages = 0;
	v.cgroup_id = cgid;
	v.rss_bytes = (__u64)pages << (rf_page_shift & 31);
	v.ts_ns = bpf_ktime_get_ns();
	tgid = t->tgid;
	old = bpf_map_lookup_elem(&rf_mon_procs, &tgid);
	if (old && old->cgroup_id == cgid) {
		__u64 d = old->rss_bytes > v.rss_bytes ? old->rss_bytes - v.rss_bytes :
							 v.rss_bytes - old->rss_bytes;

		if (d < RSS_MIN_DELTA)
			return 0;
	}
	if (bpf_map_update_elem(&rf_mon_procs, &tgid, &v, BPF_ANY))
		stat_inc(RF_MON_STAT_PROCS_FULL);
	return 0;
}
