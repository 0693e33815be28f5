// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Visibility for the classes Landlock and seccomp enforce: neither keeps
 * a record of what it refused, so these programs watch the syscalls of
 * sandboxed tasks and report the ones that failed with EACCES/EPERM (and,
 * for an audit sandbox, the path syscalls that succeeded). The records are
 * inferred (RF_EVF_INFERRED) candidates, not decisions: a file mode or a
 * missing capability fails a syscall the policy allows. So they go to the
 * supervisor's queue (rf_obs_access) only, never to rf_samples or the
 * monitor's ring buffer, and never count in rf_sandbox.denials. The
 * supervisor matches each against the policy and hands the ones the
 * policy refuses back through rf_obs_verdict, which publishes them on the
 * ring buffer: the monitor sees verdicts, not guesses.
 *
 * sys_exit makes every record from the user registers, which still hold
 * the arguments, and reads the path then (the kernel has just copied it,
 * so it is paged in); scratch memory (task storage) is taken only for a
 * call that failed. A successful execve's memory is gone by then: for an
 * audit sandbox, sys_enter reads its path first (that program is attached
 * only while one is live). A syscall seccomp refused never reaches
 * sys_enter, but does reach sys_exit with its registers intact.
 *
 * Shares rf_sandboxes, rf_samples, rf_events and rf_stats with the
 * network object (user space hands their fds over before loading).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rf_common.bpf.h"
#include "rf_path.bpf.h"
#include "rf_ledger_unix.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EPERM 1
#define EACCES 13
#define EROFS 30
#define AT_FDCWD -100

/* Which syscalls to watch and what to keep of them: user space fills it
 * once at load, by name, so the numbers are this architecture's. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RF_OBS_SYSCALL_MAX);
	__type(key, __u32);
	__type(value, struct rf_obs_syscall);
} rf_obs_syscalls SEC(".maps");

/* [0]: the ringfence cgroup (see lsm.bpf.c's rf_parent): one helper call
 * tells the tasks outside every sandbox apart. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rf_obs_parent SEC(".maps");

/* Per sandbox: inferred counts (never the kernel's exact ones). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct rf_obs_sandbox);
} rf_observe SEC(".maps");

/* Candidates (failed syscalls; audit: successful accesses): a queue the
 * supervisor drains and deletes from; keyed like rf_samples, its seq from
 * rf_obs_sandbox.access_seq. */
RF_MAP_NO_PREALLOC(rf_obs_access, BPF_MAP_TYPE_HASH, 16384, struct rf_sample_key,
		   struct rf_event);

/* Components of a directory walk (its depth limit). */
#define RF_OBS_WALK_MAX 64
#define RF_OBS_NAME_READ 256

/* One task's syscall in flight. */
struct rf_obs_task {
	struct rf_event ev;             /* built at sys_enter, finished at sys_exit */
	__u64 ptr;                      /* the path arguments (user pointers) */
	__u64 ptr2;
	__u64 cgid;
	__s32 dirfd2;
	__u32 nr;
	__u32 pending;
	__u32 _pad;
	struct rf_walk w;
	__u64 comps[RF_OBS_WALK_MAX];   /* dentries, leaf first */
	/* dir + "/" + the relative name; room for a read at any offset
	 * below RF_EVENT_PATH_LEN */
	char buf[RF_EVENT_PATH_LEN + RF_OBS_NAME_READ];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rf_obs_task);
} rf_obs_task_map SEC(".maps");

/* Argument i (1-based) of the syscall, from the saved user registers. */
static __always_inline __u64 sys_arg(struct pt_regs *regs, __u32 i)
{
#if defined(__TARGET_ARCH_x86)
	switch (i) {
	case 1: return BPF_CORE_READ(regs, di);
	case 2: return BPF_CORE_READ(regs, si);
	case 3: return BPF_CORE_READ(regs, dx);
	case 4: return BPF_CORE_READ(regs, r10);
	case 5: return BPF_CORE_READ(regs, r8);
	case 6: return BPF_CORE_READ(regs, r9);
	}
	return 0;
#else
#error "observe.bpf.c: add this architecture's syscall argument registers"
#endif
}

/* Runs for every syscall of every task while attached: a direct load of
 * the BTF-typed regs, no helper call. */
static __always_inline __u32 sys_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (__u32)regs->orig_ax;
#endif
}

static __always_inline const struct rf_obs_syscall *watched(long nr)
{
	__u32 key = (__u32)nr;

	if (nr < 0 || nr >= RF_OBS_SYSCALL_MAX)
		return NULL;
	return bpf_map_lookup_elem(&rf_obs_syscalls, &key);
}

/* The sandbox of the current task when it asks for any of want. */
static __always_inline struct rf_sandbox *observed_sandbox(__u32 want, __u64 *cgid)
{
	struct rf_sandbox *sb;

	/* 0: certainly outside; an error (slot unset) takes the full walk. */
	if (bpf_current_task_under_cgroup(&rf_obs_parent, 0) == 0)
		return NULL;
	sb = current_sandbox(cgid);
	return sb && (sb->flags & want) ? sb : NULL;
}

static __always_inline struct rf_obs_task *task_scratch(bool create)
{
	return bpf_task_storage_get(&rf_obs_task_map, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The scratch of a task in a sandbox observing want, its record zeroed;
 * NULL outside one (*ret_sb NULL) or without memory (counted). */
static __always_inline struct rf_obs_task *observed_task(__u32 want, struct rf_sandbox **ret_sb,
							 __u64 *cgid)
{
	struct rf_sandbox *sb = observed_sandbox(want, cgid);
	struct rf_obs_task *t;

	*ret_sb = sb;
	if (!sb)
		return NULL;
	t = task_scratch(true);
	if (!t) {
		stat_inc(RF_STAT_SCRATCH_LOST);
		return NULL;
	}
	__builtin_memset(&t->ev, 0, sizeof(t->ev));
	return t;
}

static __always_inline void read_path(struct rf_event *ev, __u64 ptr)
{
	long n = bpf_probe_read_user_str(ev->path, sizeof(ev->path), (const void *)ptr);

	ev->path_len = n > 0 ? n - 1 : 0;
	if (n <= 0)
		ev->path[0] = 0;
}

/* ---- relative names: the directory they are relative to ---- */

struct walk_ctx {
	struct rf_obs_task *t;
};

/* One step up (rf_path.bpf.h), as lsm.bpf.c's walk_up. */
static long dir_up(__u32 i, void *vctx)
{
	struct rf_obs_task *t = ((struct walk_ctx *)vctx)->t;

	return walk_up_step(&t->w, t->comps, RF_OBS_WALK_MAX, RF_EVENT_PATH_LEN - 1);
}

/* The collected components into buf, root first: "/a/b". */
static long dir_emit(__u32 i, void *vctx)
{
	struct rf_obs_task *t = ((struct walk_ctx *)vctx)->t;

	return walk_emit_step(&t->w, t->comps, RF_OBS_WALK_MAX, i, t->buf,
			      RF_EVENT_PATH_LEN - 1, RF_OBS_NAME_READ);
}

/* The open file behind fd of the current task, or NULL. */
static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

/*
 * A relative name in ev.path: make it absolute against the directory it
 * is relative to (the cwd, or dirfd's file) while the task still has it.
 * On failure ev.path stays relative (user space says so).
 */
static __always_inline void absolute_path(struct rf_obs_task *t, __s32 dirfd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct walk_ctx c = { .t = t };
	struct rf_walk *w = &t->w;
	__u32 off, len = t->ev.path_len;
	struct dentry *dentry;
	void *vfsmnt;
	long r;

	if (dirfd == AT_FDCWD) {
		dentry = BPF_CORE_READ(task, fs, pwd.dentry);
		vfsmnt = BPF_CORE_READ(task, fs, pwd.mnt);
	} else {
		struct file *f = fd_file(dirfd);

		if (!f)
			return;
		dentry = BPF_CORE_READ(f, f_path.dentry);
		vfsmnt = BPF_CORE_READ(f, f_path.mnt);
	}
	if (!dentry || !vfsmnt)
		return;
	walk_start(w, vfsmnt, dentry);
	bpf_loop(RF_OBS_WALK_MAX + 16, dir_up, &c, 0);
	if (w->reason || !w->done)
		return;
	bpf_loop(RF_OBS_WALK_MAX, dir_emit, &c, 0);
	off = w->off;
	if (w->reason || off + 1 + len >= RF_EVENT_PATH_LEN)
		return;  /* does not fit the record: stays relative */
	t->buf[off & (RF_EVENT_PATH_LEN - 1)] = '/';
	off++;
	r = bpf_probe_read_kernel_str(&t->buf[off & (RF_EVENT_PATH_LEN - 1)], RF_OBS_NAME_READ,
				      t->ev.path);
	if (r < 1)
		return;
	off += r - 1;
	if (off >= RF_EVENT_PATH_LEN)
		return;
	__builtin_memcpy(t->ev.path, t->buf, RF_EVENT_PATH_LEN);
	t->ev.path[RF_EVENT_PATH_LEN - 1] = 0;
	t->ev.path_len = off;
}

/*
 * Queue one candidate for the supervisor: a failed syscall, or (access)
 * a successful one of an audit sandbox. It judges them against the policy
 * (supervisor/observe/observe.c); nothing here is a decision yet.
 */
static __always_inline void record(__u64 cgid, struct rf_event *ev, bool access)
{
	struct rf_obs_sandbox *obs = bpf_map_lookup_elem(&rf_observe, &cgid);
	struct rf_sample_key skey = { .cgroup_id = cgid };
	__u32 class = ev->class;

	if (!obs) {
		/* written before the sandbox entry: being removed */
		stat_inc(RF_STAT_OBSERVE_UNKEYED);
		return;
	}
	RF_EVENT_TASK(ev, cgid, RF_EV_DECISION);
	ev->verdict = 0;  /* the supervisor's to give */
	if (access)
		ev->flags |= RF_EVF_ACCESS;
	else if (class < RF_CLASS_KERNEL_MAX)
		__sync_fetch_and_add(&obs->inferred[class], 1);
	ev->seq = __sync_fetch_and_add(&obs->access_seq, 1);
	skey.seq = ev->seq;
	if (bpf_map_update_elem(&rf_obs_access, &skey, ev, BPF_NOEXIST))
		__sync_fetch_and_add(&obs->access_lost, 1);
}

/*
 * The arguments of path syscall nr (description d) into t's record, from
 * the user registers: the same at sys_enter and at sys_exit (the kernel
 * leaves the argument registers as the caller set them).
 */
static __always_inline void fill_args(struct rf_obs_task *t, struct pt_regs *regs,
				      const struct rf_obs_syscall *d, __u32 nr, __u64 cgid)
{
	__u64 a;

	t->nr = nr;
	t->cgid = cgid;
	t->ev.op = d->op;
	t->ev.class = d->class & ~RF_OBS_ARG_HOW;
	t->ev.syscall = (__u16)nr;
	t->ev.flags = RF_EVF_INFERRED | RF_EVF_SYSCALL;
	t->ptr = sys_arg(regs, d->path);
	t->ptr2 = d->path2 ? sys_arg(regs, d->path2) : 0;
	t->ev.target_pid = d->dirfd ? (__u32)sys_arg(regs, d->dirfd) : (__u32)AT_FDCWD;
	t->dirfd2 = d->dirfd2 ? (__s32)sys_arg(regs, d->dirfd2) : AT_FDCWD;
	if (d->arg) {
		a = sys_arg(regs, d->arg);
		if ((d->class & RF_OBS_ARG_HOW) && bpf_probe_read_user(&a, sizeof(a), (void *)a))
			a = 0;
		t->ev.arg = (__u32)a;
	}
}

/*
 * Attached only while an audit sandbox (RF_SB_OBSERVE_ACCESS) is live: a
 * successful execve replaces the memory its path is in, so that name is
 * read before. Every other record is made at sys_exit alone, so a
 * sandbox that only infers denials costs the host one program per
 * syscall, and its tasks need scratch memory only when a call fails.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(rf_obs_enter, struct pt_regs *regs, long id)
{
	const struct rf_obs_syscall *d = watched(id);
	struct rf_sandbox *sb;
	struct rf_obs_task *t;
	__u64 cgid;

	if (!d || !d->op || !d->path || (d->class & ~RF_OBS_ARG_HOW) != RF_CLASS_EXEC)
		return 0;
	t = observed_task(RF_SB_OBSERVE_ACCESS, &sb, &cgid);
	if (!t)
		return 0;
	fill_args(t, regs, d, (__u32)id, cgid);
	t->pending = 1;
	read_path(&t->ev, t->ptr);
	return 0;
}

/* Record ev, its name made absolute first when it is relative; one that
 * stays relative keeps RF_EVF_DIRFD (target_pid: the dirfd). */
static __always_inline void relative_record(struct rf_obs_task *t, __u64 cgid, __s32 dirfd,
					    bool access)
{
	t->ev.flags &= ~RF_EVF_DIRFD;
	if (t->ev.path_len && t->ev.path[0] != '/')
		absolute_path(t, dirfd);
	if (t->ev.path[0] != '/')
		t->ev.flags |= RF_EVF_DIRFD;
	record(cgid, &t->ev, access);
}

/* The record of a path syscall that returned ret: a successful execve's
 * as sys_enter read it (its memory is gone now), any other built here;
 * NULL when there is nothing to record. */
static __always_inline struct rf_obs_task *path_record(struct pt_regs *regs,
						       const struct rf_obs_syscall *d, __u32 nr,
						       bool denied, __u64 *cgid)
{
	struct rf_obs_task *t;
	struct rf_sandbox *sb;

	if ((d->class & ~RF_OBS_ARG_HOW) == RF_CLASS_EXEC && !denied) {
		t = task_scratch(false);
		if (!t || !t->pending)
			return NULL;
		t->pending = 0;
		*cgid = t->cgid;
		return t->nr == nr ? t : NULL;
	}
	t = observed_task(denied ? RF_SB_OBSERVE_PATHS : RF_SB_OBSERVE_ACCESS, &sb, cgid);
	if (!t) {
		/* a sandbox's call not observed: said in its sandbox.exit */
		struct rf_obs_sandbox *obs = sb ? bpf_map_lookup_elem(&rf_observe, cgid) : NULL;

		if (obs)
			__sync_fetch_and_add(&obs->scratch_lost, 1);
		return NULL;
	}
	t->pending = 0;
	fill_args(t, regs, d, nr, *cgid);
	read_path(&t->ev, t->ptr);
	return t;
}

/* A path syscall of a sandboxed task returns. */
static __always_inline int path_exit(struct pt_regs *regs, const struct rf_obs_syscall *d,
				     __u32 nr, long ret)
{
	/* EROFS: the read-only mount tree of a Landlock sandbox with write
	 * rules (plan.install.ro_tree) answers writes outside them first */
	bool denied = ret == -EACCES || ret == -EPERM || ret == -EROFS;
	struct rf_obs_task *t;
	__u64 cgid = 0;

	if (!denied && ret < 0)
		return 0;
	t = path_record(regs, d, nr, denied, &cgid);
	if (!t)
		return 0;
	if (ret == -EPERM)
		t->ev.flags |= RF_EVF_ERRNO_EPERM;
	relative_record(t, cgid, (__s32)t->ev.target_pid, !denied);
	if (!t->ptr2)
		return 0;
	/* rename, link: the second name is a record of its own. */
	read_path(&t->ev, t->ptr2);
	t->ev.target_pid = (__u32)t->dirfd2;
	relative_record(t, cgid, t->dirfd2, !denied);
	return 0;
}

/* A syscall of the seccomp boundary returned EPERM in a sandbox. */
static __always_inline int boundary_exit(struct pt_regs *regs, const struct rf_obs_syscall *d,
					 __u32 nr)
{
	struct rf_obs_task *t;
	struct rf_sandbox *sb;
	__u64 cgid;

	t = observed_task(RF_SB_OBSERVE_BOUNDARY, &sb, &cgid);
	if (!t)
		return 0;
	t->ev.op = d->op;
	t->ev.class = d->class & ~RF_OBS_ARG_HOW;
	t->ev.reason = RF_REASON_BOUNDARY;
	t->ev.syscall = (__u16)nr;
	t->ev.flags = RF_EVF_INFERRED | RF_EVF_SYSCALL | RF_EVF_ERRNO_EPERM;
	if (d->arg)
		t->ev.arg = (__u32)sys_arg(regs, d->arg);
	if (d->target)
		t->ev.target_pid = (__u32)sys_arg(regs, d->target);
	record(cgid, &t->ev, false);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(rf_obs_exit, struct pt_regs *regs, long ret)
{
	__u32 nr = sys_nr(regs);
	const struct rf_obs_syscall *d = watched(nr);

	if (!d || !d->op)
		return 0;
	if (d->path)
		return path_exit(regs, d, nr, ret);
	return ret == -EPERM ? boundary_exit(regs, d, nr) : 0;
}

/*
 * exec.loader: the dynamic loader run as the program (`ld.so FILE`) maps
 * FILE itself, past Landlock's execute right, which judges execve only.
 * Killed before its first instruction, as Tetragon enforces it. As a
 * program's interpreter (PT_INTERP) it is never bprm->file: that stays
 * allowed. Known by its name (rf_loader_name).
 */
#define RF_SIGKILL 9

SEC("tp_btf/sched_process_exec")
int BPF_PROG(rf_obs_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	const unsigned char *name = BPF_CORE_READ(bprm, file, f_path.dentry, d_name.name);
	struct rf_obs_task *t;
	struct rf_sandbox *sb;
	char head[16] = {};
	__u64 cgid;
	long n;

	/* the name first: an audit sandbox's exec record in flight
	 * (rf_obs_enter's) stays untouched unless this is the loader */
	if (!observed_sandbox(RF_SB_OBSERVE_LOADER, &cgid) ||
	    bpf_probe_read_kernel_str(head, sizeof(head), name) <= 0 || !rf_loader_name(head))
		return 0;
	t = observed_task(RF_SB_OBSERVE_LOADER, &sb, &cgid);
	if (!t)
		return 0;
	n = bpf_probe_read_kernel_str(t->ev.path, sizeof(t->ev.path), name);
	if (n <= 0)
		return 0;
	t->ev.path_len = n - 1;
	t->ev.op = RF_OP_EXEC;
	t->ev.reason = RF_REASON_LOADER;
	t->ev.need = RF_ACC_EXEC;
	if (decide(sb, cgid, &t->ev, RF_CLASS_EXEC) == DENY)
		bpf_send_signal(RF_SIGKILL);
	return 0;
}

/*
 * The ledger's unix bytes (issue 22; group RF_OBS_UNIX_BYTES, attached
 * while a ledgered sandbox is live). These fire for every socket send and
 * receive on the host: the family is one load, and a socket no sandbox
 * keyed has no storage (one pointer test), so a host process pays the
 * tracepoint's call and little more. The flow is the sandbox's only while
 * its ledger entry exists: after its end nothing is made again.
 */
#define RF_MSG_PEEK 2

/* sockets the sandbox did not connect: counted from their first byte */
#include "rf_ledger_unix_own.bpf.h"

static __always_inline void unix_count(const struct rf_unix_flow_key *k, int ret, bool sent)
{
	struct rf_ledger *l;

	if (ret <= 0)
		return;
	l = bpf_map_lookup_elem(&rf_ledger, &k->cgroup_id);
	if (l)
		flow_add_in(&rf_unix_flows, l, k, 0, sent ? ret : 0, sent ? 0 : ret);
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(rf_obs_unix_sent, struct sock *sk, int ret, int flags)
{
	struct rf_unix_sk *u = unix_own_sk(sk, ret);
	bool to;

	if (!u)
		return 0;
	/* the send a sendto() hook keyed, failed or not: the next one is the
	 * connected peer's again */
	to = u->to_next;
	u->to_next = 0;
	if (to)
		unix_count(&u->to, ret, true);
	else if (u->has_conn)
		unix_count(&u->conn, ret, true);
	return 0;
}

/* What it receives: from its connected peer, else from the name it sent
 * to last (a datagram socket's answers). A peek is read again later. */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(rf_obs_unix_received, struct sock *sk, int ret, int flags)
{
	struct rf_unix_sk *u;

	if (flags & RF_MSG_PEEK)
		return 0;
	u = unix_own_sk(sk, ret);
	if (!u)
		return 0;
	if (u->has_conn)
		unix_count(&u->conn, ret, false);
	else if (u->has_to)
		unix_count(&u->to, ret, false);
	return 0;
}

/*
 * The same before Linux 6.7 (no cgroup unix hooks to key a socket; group
 * RF_OBS_UNIX_BYTES too, loaded instead of the tracepoints where the
 * kernel takes fexit programs: enforcer.c's obs_select): fexit programs on
 * af_unix's own connect, sendmsg and recvmsg (only unix sockets pay). A
 * connect or an addressed datagram the kernel did not refuse with EPERM
 * (BPF-LSM's network.unix, or another LSM) is a connection to the name as
 * the sandbox gave it, as the cgroup hooks name it; the return values are
 * the payload bytes the tracepoints would see. seqpacket sockets connect
 * through unix_stream_connect and send and receive through the datagram
 * functions (with no address); sendfile and splice into a stream socket go
 * through unix_stream_sendpage before 6.5 (optional: gone since).
 */
#define RF_EPERM_RET (-1)
#define RF_SUN_PATH_OFF 2               /* offsetof(struct sockaddr_un, sun_path) */
#define RF_SOCKADDR_UN_LEN 110          /* sizeof(struct sockaddr_un) */

/* The ledger of the current task's sandbox while its unix bytes are
 * counted; NULL outside one (one helper call for the host's tasks). */
static __always_inline struct rf_ledger *unix_ledger(__u64 *cgid)
{
	struct rf_ledger *l;

	if (bpf_current_task_under_cgroup(&rf_obs_parent, 0) == 0 || !current_sandbox(cgid))
		return NULL;
	l = bpf_map_lookup_elem(&rf_ledger, cgid);
	return l && (l->flags & RF_LEDGER_UNIX_BYTES) ? l : NULL;
}

/* A connection to the name at uaddr (alen bytes, as unix_validate_addr
 * takes it) of a sandbox's socket, with sent payload bytes; keyed for what
 * it sends (connect) and receives, unless it cannot carry any (a connect
 * that failed: no socket storage made and freed for it). */
static __always_inline void unix_fx_name(struct socket *sock, const void *uaddr, int alen,
					 __u64 sent, bool connect, bool key)
{
	struct rf_unix_flow_key k;
	struct rf_ledger *l;
	__u16 family = 0;
	__u32 len;
	__u64 cgid;

	if (alen <= RF_SUN_PATH_OFF || alen > RF_SOCKADDR_UN_LEN ||
	    bpf_probe_read_kernel(&family, sizeof(family), uaddr) || family != AF_UNIX)
		return;
	/* bounded where the verifier sees it: clang knows the checks above
	 * and drops ledger_unix's clamp, the 6.1 verifier tracks only the
	 * copy it sign-extended */
	len = (__u32)alen - RF_SUN_PATH_OFF;
	asm volatile("%0 &= 0x7f" : "+r"(len));
	l = unix_ledger(&cgid);
	if (l && ledger_unix(l, &k, cgid, (const __u8 *)uaddr + RF_SUN_PATH_OFF, len,
			     sock->type, sent) && key)
		ledger_unix_sk(sock->sk, &k, connect);
}

/* Bytes of a keyed socket: sent to its connected peer; received from it,
 * else from the name it last sent to. */
static __always_inline void unix_fx_bytes(struct socket *sock, int ret, bool sent)
{
	struct rf_unix_sk *u;

	if (ret <= 0)
		return;
	u = unix_own_sk(sock->sk, ret);
	if (!u)
		return;
	if (u->has_conn)
		unix_count(&u->conn, ret, sent);
	else if (!sent && u->has_to)
		unix_count(&u->to, ret, false);
}

static __always_inline int unix_fx_connect(struct socket *sock, struct sockaddr *uaddr, int alen,
					   int ret)
{
	if (ret != RF_EPERM_RET)
		unix_fx_name(sock, uaddr, alen, 0, true, ret == 0);
	return 0;
}

SEC("fexit/unix_stream_connect")
int BPF_PROG(rf_obs_unix_fx_connect, struct socket *sock, struct sockaddr *uaddr, int alen,
	     int flags, int ret)
{
	return unix_fx_connect(sock, uaddr, alen, ret);
}

SEC("fexit/unix_dgram_connect")
int BPF_PROG(rf_obs_unix_fx_dconnect, struct socket *sock, struct sockaddr *uaddr, int alen,
	     int flags, int ret)
{
	return unix_fx_connect(sock, uaddr, alen, ret);
}

/*
 * 6.7+ where the kernel takes fexit programs (RF_LEDGER_UNIX_KEY_LATE;
 * loaded with the tracepoints): the cgroup connect hook counted the
 * connect before its outcome; its socket is keyed here for that flow once
 * it succeeded, so a refused connect makes (and frees) no socket storage.
 * The refused one pays the trampoline and the test of ret.
 */
static __always_inline int unix_cx_key(struct socket *sock, const void *uaddr, int alen, int ret)
{
	struct rf_unix_flow_key k;
	struct rf_ledger *l;
	__u16 family = 0;
	__u64 cgid, bound;
	__u32 len;

	if (ret || alen <= RF_SUN_PATH_OFF || alen > RF_SOCKADDR_UN_LEN ||
	    bpf_probe_read_kernel(&family, sizeof(family), uaddr) || family != AF_UNIX)
		return 0;
	/* bounded where the verifier sees it, in the register itself: clang
	 * drops a clamp it finds redundant, and the verifier does not carry
	 * a compare of a copy over to it */
	bound = (__u32)alen - RF_SUN_PATH_OFF;
	asm volatile("%0 &= 0x7f\n\tif %0 <= 108 goto +1\n\t%0 = 108" : "+r"(bound));
	len = (__u32)bound;
	l = unix_ledger(&cgid);
	/* the hook's flow: there unless the hook did not count this name */
	if (l && (l->flags & RF_LEDGER_UNIX_KEY_LATE) &&
	    ledger_unix_key(&k, cgid, (const __u8 *)uaddr + RF_SUN_PATH_OFF, len, sock->type) &&
	    bpf_map_lookup_elem(&rf_unix_flows, &k))
		ledger_unix_sk(sock->sk, &k, true);
	return 0;
}

SEC("fexit/unix_stream_connect")
int BPF_PROG(rf_obs_unix_cx_connect, struct socket *sock, struct sockaddr *uaddr, int alen,
	     int flags, int ret)
{
	return unix_cx_key(sock, uaddr, alen, ret);
}

SEC("fexit/unix_dgram_connect")
int BPF_PROG(rf_obs_unix_cx_dconnect, struct socket *sock, struct sockaddr *uaddr, int alen,
	     int flags, int ret)
{
	return unix_cx_key(sock, uaddr, alen, ret);
}

SEC("fexit/unix_stream_sendmsg")
int BPF_PROG(rf_obs_unix_fx_send, struct socket *sock, struct msghdr *msg, size_t len, int ret)
{
	unix_fx_bytes(sock, ret, true);
	return 0;
}

/* An addressed datagram: a connection to that name with its bytes (the
 * socket's connected peer, if any, is not the one it went to). */
SEC("fexit/unix_dgram_sendmsg")
int BPF_PROG(rf_obs_unix_fx_dsend, struct socket *sock, struct msghdr *msg, size_t len, int ret)
{
	int alen = msg->msg_namelen;

	if (!alen)
		unix_fx_bytes(sock, ret, true);
	else if (ret != RF_EPERM_RET)
		unix_fx_name(sock, msg->msg_name, alen, ret > 0 ? ret : 0, false, true);
	return 0;
}

SEC("fexit/unix_stream_recvmsg")
int BPF_PROG(rf_obs_unix_fx_recv, struct socket *sock, struct msghdr *msg, size_t size,
	     int flags, int ret)
{
	if (!(flags & RF_MSG_PEEK))
		unix_fx_bytes(sock, ret, false);
	return 0;
}

SEC("fexit/unix_dgram_recvmsg")
int BPF_PROG(rf_obs_unix_fx_drecv, struct socket *sock, struct msghdr *msg, size_t size,
	     int flags, int ret)
{
	if (!(flags & RF_MSG_PEEK))
		unix_fx_bytes(sock, ret, false);
	return 0;
}

/* splice and sendfile out of a stream socket (af_unix's own splice_read:
 * no recvmsg, no length tracepoint; optional, as the kernel has it) */
SEC("fexit/unix_stream_splice_read")
int BPF_PROG(rf_obs_unix_fx_splice, struct socket *sock, loff_t *ppos, void *pipe, size_t size,
	     unsigned int flags, long ret)
{
	unix_fx_bytes(sock, ret > 0x7fffffff ? 0x7fffffff : (int)ret, false);
	return 0;
}

SEC("fexit/unix_stream_sendpage")
int BPF_PROG(rf_obs_unix_fx_page, struct socket *sock, struct page *page, int offset,
	     size_t size, int flags, long ret)
{
	unix_fx_bytes(sock, ret > 0x7fffffff ? 0x7fffffff : (int)ret, true);
	return 0;
}

/* The record rf_obs_verdict works on: too large for the stack next to
 * publish()'s. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rf_event);
} rf_obs_pub SEC(".maps");

/* A refusal the supervisor's seccomp listener answered (notify.c), or a
 * call it let through (an alert-mode syscalls profile): made the decision
 * record a hook would have made (stamped, numbered in the sandbox's
 * sequence) and published like one: sample slot, counters, ring buffer. */
static __always_inline int listener_refusal(struct rf_event *ev)
{
	__u64 cgid = ev->cgroup_id;
	struct rf_sandbox *sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);

	if (!sb)
		return 3;
	ev->ts_boot_ns = bpf_ktime_get_boot_ns();
	ev->kind = RF_EV_DECISION;
	/* audited: an alert-mode syscalls profile's call, let through */
	if (ev->verdict != RF_VERDICT_AUDITED)
		ev->verdict = RF_VERDICT_DENIED;
	ev->seq = __sync_fetch_and_add(&sb->deny_seq, 1);
	publish(sb, cgid, ev);
	return 0;
}

/*
 * The one way the supervisor's records reach the monitor's decision
 * stream (the ring buffer), run with BPF_PROG_TEST_RUN, the record as its
 * context; pinned, never attached:
 *  - its verdict on a candidate it judged a policy denial (or, audit, an
 *    access the policy would refuse): onto the ring buffer as given, like
 *    the deciding programs' own records;
 *  - a refusal its seccomp listener answered (RF_EVF_LISTENER): see
 *    listener_refusal.
 * Returns 0 published, 1 a verdict did not fit the ring buffer (counted
 * as ringbuf_lost, as is a listener's refusal that does not), 2 not a
 * decision, 3 no such sandbox (or no scratch).
 */
SEC("syscall")
int rf_obs_verdict(struct rf_event *ctx)
{
	struct rf_event *ev;
	__u32 zero = 0;

	ev = bpf_map_lookup_elem(&rf_obs_pub, &zero);
	if (!ev)
		return 3;
	__builtin_memcpy(ev, ctx, sizeof(*ev));
	if (ev->flags & RF_EVF_LISTENER)
		return listener_refusal(ev);
	if (ev->kind != RF_EV_DECISION || !ev->verdict || ev->verdict >= RF_VERDICT_MAX)
		return 2;
	stat_inc(RF_STAT_DECISIONS);
	if (bpf_ringbuf_output(&rf_events, ev, sizeof(*ev), 0)) {
		stat_inc(RF_STAT_RINGBUF_LOST);
		return 1;
	}
	return 0;
}
