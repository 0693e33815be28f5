// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF-LSM enforcement: files.read/write, exec, network.unix and the
 * process boundary, keyed by the sandbox's cgroup id like net.bpf.c (and
 * sharing its maps: user space hands the network object's map fds to this
 * one before it loads).
 *
 * Each program judges only the classes whose RF_SB_LSM_* flag the sandbox
 * has; everything else passes. Paths are the kernel's resolved paths:
 * bpf_d_path() where the kernel allows it (file_open, bprm_check_security,
 * mmap_file), elsewhere a walk over d_parent and the mount chain like the
 * kernel's prepend_path(). A path that does not fit RF_PATH_MAX, a walk
 * that does not reach the root, a file with no name (memfd, deleted, a
 * pseudo filesystem) or a mount outside the task's mount namespace is
 * denied and counted, never allowed.
 *
 * One LPM lookup answers: user space gives each rf_paths entry the union
 * of the access bits of every policy entry covering it.
 *
 * Written against Linux 6.1's hook signatures (the BPF_PROG arguments are
 * positional; the last is the previous BPF program's verdict). Hooks whose
 * arguments changed since have one program per signature, named _vNN after
 * the release that changed it; user space loads the one that matches the
 * running kernel's BTF (enforcer.c, lsm_select) and refuses to load when
 * none does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rf_common.bpf.h"
#include "rf_path.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EPERM 1
#define ENAMETOOLONG 36

#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define FMODE_EXEC 0x20
#define __FMODE_EXEC 0x20  /* in f_flags: 6.1 sets FMODE_EXEC in f_flags only */
#define O_TRUNC 01000
#define PROT_EXEC 0x4
#define S_IFMT 00170000
#define S_IFREG 0100000
#define S_IFBLK 0060000
#define S_IFCHR 0020000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFDIR 0040000
#define RENAME_EXCHANGE (1 << 1)
#define CLONE_INTO_CGROUP 0x200000000ULL
#define ATTR_MODE (1 << 0)
#define ATTR_UID (1 << 1)
#define ATTR_GID (1 << 2)
#define ATTR_SIZE (1 << 3)
#define ATTR_ATIME (1 << 4)
#define ATTR_MTIME (1 << 5)

#define CGROUP_SUPER_MAGIC 0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define BPF_FS_MAGIC 0xcafe4a11
#define PIPEFS_MAGIC 0x50495045
#define SOCKFS_MAGIC 0x534F434B

/* Steps of one path walk (components plus mount crossings). */
#define RF_WALK_MAX 128
/* Bytes read per component name; the buffer behind the key has room. */
#define RF_NAME_READ 256

RF_SB_MAP(rf_paths, BPF_MAP_TYPE_LPM_TRIE, struct rf_path_key, __u32);

/*
 * [0]: the ringfence parent cgroup, set by the loader before attaching.
 * These hooks run for every task on the host: one helper call tells the
 * many tasks outside every sandbox apart before any per-level lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rf_parent SEC(".maps");

/*
 * Per-task scratch (task storage, not per-CPU: these programs can be
 * preempted, and two tasks must never share a half-built path).
 */
struct rf_lsm_scratch {
	struct rf_event ev;
	struct rf_unix_key ukey;
	struct scan_state scan;
	struct rf_walk w;
	__u32 plen;                     /* bytes of key.path the resolver left */
	__u32 _pad;
	__u64 comps[RF_WALK_MAX];       /* dentries, leaf first */
	struct rf_path_key key;
	__u8 key_tail[RF_NAME_READ + 8]; /* a name read at the last offset */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rf_lsm_scratch);
} rf_lsm_scratch_map SEC(".maps");

static __always_inline struct rf_lsm_scratch *scratch(void)
{
	return bpf_task_storage_get(&rf_lsm_scratch_map, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void ev_reset(struct rf_lsm_scratch *s)
{
	__builtin_memset(&s->ev, 0, sizeof(s->ev));
}

/* No scratch memory: count the denial (no record), deny unless auditing. */
static __always_inline int no_scratch(struct rf_sandbox *sb, __u32 class)
{
	if (class < RF_CLASS_KERNEL_MAX)
		__sync_fetch_and_add(&sb->denials[class], 1);
	stat_inc(RF_STAT_SCRATCH_LOST);
	return fallback_verdict(sb);
}

static __always_inline int verdict(int v)
{
	return v == ALLOW ? 0 : -EPERM;
}

/* ---- paths ---- */

/* The mount is in the caller's mount namespace (not an internal, detached
 * or cloned tree, and not another namespace's). */
static __always_inline bool mount_reachable(void *vfsmnt)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct mount *m = real_mount(vfsmnt);
	struct mnt_namespace *ns = BPF_CORE_READ(m, mnt_ns);

	return ns && ns == BPF_CORE_READ(t, nsproxy, mnt_ns);
}

/* d_unlinked(): removed from the tree (deleted, or never in it). */
static __always_inline bool dentry_unlinked(struct dentry *d)
{
	return !BPF_CORE_READ(d, d_hash.pprev) && BPF_CORE_READ(d, d_parent) != d;
}

/* bpf_loop's context must be on the stack: only the scratch pointer. */
struct walk_ctx {
	struct rf_lsm_scratch *s;
};

/* One step up (rf_path.bpf.h). */
static long walk_up(__u32 i, void *vctx)
{
	struct rf_lsm_scratch *s = ((struct walk_ctx *)vctx)->s;

	return walk_up_step(&s->w, s->comps, RF_WALK_MAX, RF_PATH_MAX);
}

/* Write the collected components root first: "/a/b/c". */
static long walk_emit(__u32 i, void *vctx)
{
	struct rf_lsm_scratch *s = ((struct walk_ctx *)vctx)->s;

	return walk_emit_step(&s->w, s->comps, RF_WALK_MAX, i, (char *)s->key.path,
			      RF_PATH_MAX, RF_NAME_READ);
}

/*
 * The resolved path of (vfsmnt, dentry) into s->key.path, 0-terminated,
 * s->plen its length; 0 or an rf_reason. existing: the dentry must still
 * be linked (not for the new name of a create, link or rename).
 */
static __always_inline __u32 walk_path_ns(struct rf_lsm_scratch *s, void *vfsmnt,
					  struct dentry *dentry, bool existing, bool same_ns)
{
	struct walk_ctx c = { .s = s };
	struct rf_walk *w = &s->w;
	__u32 off;

	s->plen = 0;
	if (!vfsmnt || !dentry || (same_ns && !mount_reachable(vfsmnt)))
		return RF_REASON_BAD_PATH;
	if (existing && dentry_unlinked(dentry))
		return RF_REASON_BAD_PATH;
	walk_start(w, vfsmnt, dentry);
	bpf_loop(RF_WALK_MAX + 16, walk_up, &c, 0);
	if (!w->reason && !w->done)
		w->reason = RF_REASON_TOO_LONG;
	if (w->reason)
		return w->reason;
	bpf_loop(RF_WALK_MAX, walk_emit, &c, 0);
	if (w->reason)
		return w->reason;
	off = w->off;
	if (off == 0) {
		s->key.path[0] = '/';
		off = 1;
	}
	if (off > RF_PATH_MAX)
		return RF_REASON_TOO_LONG;
	s->key.path[off] = 0;
	s->plen = off;
	return 0;
}

/* A name in the caller's mount namespace. */
static __always_inline __u32 walk_path(struct rf_lsm_scratch *s, void *vfsmnt,
				       struct dentry *dentry, bool existing)
{
	return walk_path_ns(s, vfsmnt, dentry, existing, true);
}

/* mount_reachable and dentry_unlinked for a hook's own file (a trusted
 * BTF pointer): direct loads instead of a probe-read helper call each,
 * on every open of a sandboxed task. */
static __always_inline bool file_reachable(struct file *file)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct dentry *d = file->f_path.dentry;
	struct mount *m = real_mount(file->f_path.mnt);
	struct mnt_namespace *ns = BPF_CORE_READ(m, mnt_ns);

	if (!ns || ns != t->nsproxy->mnt_ns)
		return false;
	return d->d_hash.pprev || d->d_parent == d;
}

/* The same through bpf_d_path(), where the kernel allows it. */
static __always_inline __u32 dpath_file(struct rf_lsm_scratch *s, struct file *file)
{
	long r;

	s->plen = 0;
	r = bpf_d_path((struct path *)&file->f_path, (char *)s->key.path, RF_PATH_KEY_LEN);
	if (r == -ENAMETOOLONG)
		return RF_REASON_TOO_LONG;
	if (r < 1 || r > RF_PATH_KEY_LEN)
		return RF_REASON_BAD_PATH;
	s->plen = r - 1;
	if (s->key.path[0] != '/')
		return RF_REASON_BAD_PATH;  /* "pipe:[..]", "anon_inode:..." */
	if (!file_reachable(file))
		return RF_REASON_BAD_PATH;  /* memfd, deleted, detached tree */
	return 0;
}

/*
 * Judge the path the resolver left in s (reason: the resolver's result):
 * allowed when the longest matching rule grants every bit of need.
 * Otherwise a decision record with the path, the access needed and the
 * rule's bits; the verdict follows the sandbox's mode.
 */
/* The access bits of the longest rule matching s->key.path (NULL: none). */
static __always_inline __u32 *path_rule(const struct rf_sandbox *sb, struct rf_lsm_scratch *s,
					 __u64 cgid)
{
	s->key.cgroup_id = cgid;
	s->key.prefixlen = 64 + 8 * ((s->plen & 0xff) + 1);
	return rf_sb_lookup(&rf_paths, sb, cgid, &s->key);
}

static __always_inline int judge(struct rf_sandbox *sb, __u64 cgid, struct rf_lsm_scratch *s,
				 __u32 reason, __u32 need, __u32 class, __u32 op)
{
	__u32 have = 0, *v;
	__u32 plen = s->plen;

	if (!reason) {
		v = path_rule(sb, s, cgid);
		if (v)
			have = *v;
		if ((have & need) == need)
			return ALLOW;
		reason = v ? RF_REASON_ACCESS : RF_REASON_NO_RULE;
	}
	ev_reset(s);
	s->ev.op = op;
	s->ev.reason = reason;
	s->ev.need = need;
	s->ev.have = have;
	if (plen > RF_PATH_MAX)
		plen = RF_PATH_MAX;
	/* key.path is 0-terminated at plen; ev was zeroed */
	if (plen)
		bpf_probe_read_kernel(s->ev.path, RF_PATH_KEY_LEN, s->key.path);
	s->ev.path_len = plen;
	return decide(sb, cgid, &s->ev, class);
}

/* Judge an open file by its name (a NULL file has none); the hook's verdict. */
static __always_inline int judge_file(struct rf_sandbox *sb, __u64 cgid, struct file *file,
				      __u32 need, __u32 class, __u32 op)
{
	struct rf_lsm_scratch *s = scratch();

	if (!s)
		return verdict(no_scratch(sb, class));
	return verdict(judge(sb, cgid, s, file ? dpath_file(s, file) : RF_REASON_BAD_PATH,
			     need, class, op));
}

/* A process-boundary decision: always a denial (or an audit record). */
static __always_inline int boundary(struct rf_sandbox *sb, __u64 cgid, __u32 op,
				    __u32 target_pid, __u32 arg)
{
	struct rf_lsm_scratch *s = scratch();

	if (!s)
		return no_scratch(sb, RF_CLASS_PROCESS);
	ev_reset(s);
	s->ev.op = op;
	s->ev.reason = RF_REASON_BOUNDARY;
	s->ev.target_pid = target_pid;
	s->ev.arg = arg;
	return decide(sb, cgid, &s->ev, RF_CLASS_PROCESS);
}

/* The sandbox of the current task when it judges any of want. */
static __always_inline struct rf_sandbox *sandbox_for(__u32 want, __u64 *cgid)
{
	struct rf_sandbox *sb;

	/* 0: certainly outside; an error (slot unset) falls through to the
	 * full walk, so a missing fast path never lets a sandbox out. */
	if (bpf_current_task_under_cgroup(&rf_parent, 0) == 0) {
		*cgid = 0;
		return NULL;
	}
	sb = current_sandbox(cgid);

	if (!sb || !(sb->flags & want))
		return NULL;
	return sb;
}

/*
 * The opening of a hook that judges a path: the sandbox of the current
 * task when it judges want (*ret_sb), and the task's scratch. NULL when
 * there is nothing to judge with, *ret_v then the hook's answer: 0 outside
 * a sandbox, the fallback verdict without scratch memory.
 */
static __always_inline struct rf_lsm_scratch *hook_scratch(__u32 want, __u32 class,
							   struct rf_sandbox **ret_sb,
							   __u64 *cgid, int *ret_v)
{
	struct rf_sandbox *sb = sandbox_for(want, cgid);
	struct rf_lsm_scratch *s;

	*ret_sb = sb;
	*ret_v = 0;
	if (!sb)
		return NULL;
	s = scratch();
	if (!s)
		*ret_v = verdict(no_scratch(sb, class));
	return s;
}

/* The process boundary holds once the sandbox ran its first execve. */
static __always_inline struct rf_sandbox *boundary_sandbox(__u64 *cgid)
{
	struct rf_sandbox *sb = sandbox_for(RF_SB_LSM_PROCESS, cgid);

	if (!sb || !(sb->state & RF_SBS_ARMED))
		return NULL;
	return sb;
}

/* A hook that is a boundary denial for every armed sandbox: keep an
 * earlier LSM's verdict, else deny (or audit) when the task is in one. */
static __always_inline int boundary_hook(int ret, __u32 op, __u32 arg)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret)
		return ret;
	sb = boundary_sandbox(&cgid);
	return sb ? verdict(boundary(sb, cgid, op, 0, arg)) : 0;
}

static __always_inline unsigned long sb_magic_of(struct dentry *d)
{
	return BPF_CORE_READ(d, d_sb, s_magic);
}

static __always_inline bool pseudo_fs_protected(unsigned long magic)
{
	return magic == CGROUP2_SUPER_MAGIC || magic == CGROUP_SUPER_MAGIC ||
	       magic == BPF_FS_MAGIC;
}

/* ---- files and exec ---- */

/* An open for writing in cgroupfs: a boundary denial (the path only
 * names it in the record). */
static __always_inline int cgroup_write(struct rf_sandbox *sb, __u64 cgid, struct file *file)
{
	struct rf_lsm_scratch *s = scratch();

	if (!s)
		return verdict(no_scratch(sb, RF_CLASS_PROCESS));
	dpath_file(s, file);
	ev_reset(s);
	s->ev.op = RF_OP_CGROUP_WRITE;
	s->ev.reason = RF_REASON_BOUNDARY;
	s->ev.need = RF_ACC_WRITE;
	if (s->plen && s->plen <= RF_PATH_MAX) {
		bpf_probe_read_kernel(s->ev.path, RF_PATH_KEY_LEN, s->key.path);
		s->ev.path_len = s->plen;
	}
	return verdict(decide(sb, cgid, &s->ev, RF_CLASS_PROCESS));
}

SEC("lsm/file_open")
int BPF_PROG(rf_file_open, struct file *file, int ret)
{
	struct rf_sandbox *sb;
	unsigned long magic;
	__u32 need, class, op = RF_OP_FILE_OPEN;
	unsigned int fmode, fflags;
	__u64 cgid;

	if (ret)
		return ret;
	sb = sandbox_for(RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_PROCESS, &cgid);
	if (!sb)
		return 0;
	/* direct loads: the hook's file is a trusted pointer */
	fmode = file->f_mode;
	fflags = file->f_flags;
	magic = file->f_inode->i_sb->s_magic;

	/* No moving to another cgroup, no cgroup knobs: the boundary. */
	if ((magic == CGROUP2_SUPER_MAGIC || magic == CGROUP_SUPER_MAGIC) &&
	    (fmode & FMODE_WRITE) && (sb->flags & RF_SB_LSM_PROCESS) &&
	    (sb->state & RF_SBS_ARMED))
		return cgroup_write(sb, cgid, file);

	if ((fmode & FMODE_EXEC) || (fflags & __FMODE_EXEC)) {
		/* execve's own open of the binary or its interpreter */
		if (!(sb->flags & RF_SB_LSM_EXEC))
			return 0;
		need = RF_ACC_EXEC;
		class = RF_CLASS_EXEC;
		op = RF_OP_EXEC;
	} else {
		if (!(sb->flags & RF_SB_LSM_FILES))
			return 0;
		/* Pipes and sockets reopened through /proc/self/fd: IPC, not files. */
		if (magic == PIPEFS_MAGIC || magic == SOCKFS_MAGIC)
			return 0;
		need = 0;
		if (fmode & FMODE_READ)
			need |= RF_ACC_READ;
		if ((fmode & FMODE_WRITE) || (fflags & O_TRUNC))
			need |= RF_ACC_WRITE;
		if (!need)
			need = RF_ACC_READ;  /* O_WRONLY|O_RDWR "ioctl only" opens */
		class = RF_CLASS_FILE;
	}
	return judge_file(sb, cgid, file, need, class, op);
}

static __always_inline bool loader_run(struct linux_binprm *bprm)
{
	char n[16] = {};

	bpf_probe_read_kernel_str(n, sizeof(n), BPF_CORE_READ(bprm, file, f_path.dentry,
							      d_name.name));
	return rf_loader_name(n);
}

static __always_inline int loader_refusal(struct rf_sandbox *sb, __u64 cgid)
{
	struct rf_lsm_scratch *s = scratch();

	if (!s)
		return no_scratch(sb, RF_CLASS_EXEC);
	ev_reset(s);
	s->ev.op = RF_OP_EXEC;
	s->ev.reason = RF_REASON_LOADER;
	s->ev.need = RF_ACC_EXEC;
	return decide(sb, cgid, &s->ev, RF_CLASS_EXEC);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(rf_bprm_check, struct linux_binprm *bprm, int ret)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	sb = current_sandbox(&cgid);
	if (!sb)
		return ret;
	/* The launcher's work is done: the process boundary holds from here. */
	if (!(sb->state & RF_SBS_ARMED))
		sb->state |= RF_SBS_ARMED;  /* its only bit; no 32-bit atomics before -mcpu=v3 */
	if (ret)
		return ret;
	if (!(sb->flags & RF_SB_LSM_EXEC))
		return 0;
	/* `ld.so FILE` as the program: refused (mmap_file would judge FILE,
	 * but the loader as a program is the same refusal on every backend);
	 * as a PT_INTERP it is never bprm->file. */
	if (loader_run(bprm))
		return verdict(loader_refusal(sb, cgid));
	return judge_file(sb, cgid, bprm->file, RF_ACC_EXEC, RF_CLASS_EXEC, RF_OP_EXEC);
}

SEC("lsm/mmap_file")
int BPF_PROG(rf_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret)
		return ret;
	if (!file || !(prot & PROT_EXEC))
		return 0;
	sb = sandbox_for(RF_SB_LSM_EXEC, &cgid);
	if (!sb)
		return 0;
	return judge_file(sb, cgid, file, RF_ACC_EXEC, RF_CLASS_EXEC, RF_OP_MMAP_EXEC);
}

/* A hook judging an open file where bpf_d_path may not be called: its
 * path by the walk, for the tasks of a sandbox that judges want. */
static __always_inline int judge_walked(struct file *file, __u32 want, __u32 need,
					__u32 class, __u32 op)
{
	struct rf_lsm_scratch *s;
	struct rf_sandbox *sb;
	__u32 reason;
	__u64 cgid;
	int v;

	s = hook_scratch(want, class, &sb, &cgid, &v);
	if (!s)
		return v;
	reason = walk_path(s, BPF_CORE_READ(file, f_path.mnt), BPF_CORE_READ(file, f_path.dentry),
			   true);
	return verdict(judge(sb, cgid, s, reason, need, class, op));
}

SEC("lsm/file_mprotect")
int BPF_PROG(rf_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct file *file;

	if (ret)
		return ret;
	if (!(prot & PROT_EXEC))
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file)
		return 0;
	return judge_walked(file, RF_SB_LSM_EXEC, RF_ACC_EXEC, RF_CLASS_EXEC, RF_OP_MPROTECT_EXEC);
}

/*
 * Write-class operations on one name: (dir's mount, dentry) must be under
 * files.write. In cgroupfs and bpffs nothing is created, removed or
 * renamed from a sandbox (the boundary: unpinning would detach the
 * enforcer). Returns the hook's verdict.
 */
static __always_inline int write_op(const struct path *dir, struct dentry *dentry, __u32 op,
				    bool existing)
{
	struct rf_lsm_scratch *s;
	struct rf_sandbox *sb;
	__u64 cgid;

	sb = sandbox_for(RF_SB_LSM_FILES | RF_SB_LSM_PROCESS, &cgid);
	if (!sb)
		return 0;
	if ((sb->flags & RF_SB_LSM_PROCESS) && (sb->state & RF_SBS_ARMED) &&
	    pseudo_fs_protected(sb_magic_of(dentry)))
		return verdict(boundary(sb, cgid, RF_OP_PSEUDO_FS_WRITE, 0, op));
	if (!(sb->flags & RF_SB_LSM_FILES))
		return 0;
	s = scratch();
	if (!s)
		return verdict(no_scratch(sb, RF_CLASS_FILE));
	return verdict(judge(sb, cgid, s, walk_path(s, BPF_CORE_READ(dir, mnt), dentry, existing),
			     RF_ACC_WRITE, RF_CLASS_FILE, op));
}

/* The same for hooks that name one existing object by its path. */
static __always_inline int write_op_path(const struct path *path, __u32 op)
{
	return write_op(path, BPF_CORE_READ(path, dentry), op, true);
}

/*
 * Removing or replacing a name changes its directory (h13b): the directory
 * must be writable too, or a write rule's own directory (/data/out/ under
 * a read-only /data/) could be removed, or replaced by a symlink, through
 * the one name that lives in the read-only parent. Like Landlock's
 * REMOVE_* rights, which are rights on the directory. The name first, so a
 * denial names it when it alone is not writable.
 */
static __always_inline int remove_op(const struct path *dir, struct dentry *dentry, __u32 op)
{
	int r = write_op(dir, dentry, op, true);

	return r ? r : write_op_path(dir, op);
}

/*
 * unix.rebind: an allowed unix pathname is its server's alone. A client
 * outside the sandbox that connects to the name is judged by nothing, so
 * from a sandbox (RF_SB_LSM_UNIX_NAMES) nothing that answers a connect is
 * put there: no socket made at the name (bind, mknod), no symlink, no
 * socket or symlink linked or renamed onto it, and no symlink or directory
 * made or moved onto a directory on its way (kind RF_UNIX_ANCESTOR), which
 * would bring a socket of the sandbox's own in below. Taking the name away
 * (unlink, rename of the server's socket or directory elsewhere) stays
 * allowed: nothing can be put back. So do regular files, fifos and
 * directories made at the name (they answer no connect), and moves within
 * the allowed names (nothing of the sandbox's is there to move).
 */

/* What, put at a name or on its way, can answer a connect there. */
static __always_inline bool answers_unix(struct dentry *d)
{
	__u32 fmt = BPF_CORE_READ(d, d_inode, i_mode) & S_IFMT;

	return fmt == S_IFSOCK || fmt == S_IFLNK || fmt == S_IFDIR;
}

/* The path in s->key (s->plen bytes) is an allowed name, or lies under an
 * allowed subtree, or (ways) is a directory on the way to one. A path too
 * long for a name is looked up by its first bytes without the terminator:
 * only a subtree can match it (a relative bind reaches such paths). */
static __always_inline bool unix_name_at(struct rf_lsm_scratch *s, const struct rf_sandbox *sb,
					 __u64 cgid, bool ways)
{
	__u8 *d = s->ukey.data;
	__u32 n = s->plen, bits;

	__builtin_memset(&s->ukey, 0, sizeof(s->ukey));
	bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX - 1, s->key.path);
	if (n > RF_UNIX_PATH_MAX - 1) {
		n = RF_UNIX_PATH_MAX - 1;
		bits = 1 + n;
	} else {
		bits = 2 + n;           /* the terminator read with the path */
	}
	d[0] = RF_UNIX_PATHNAME;
	s->ukey.cgroup_id = cgid;
	s->ukey.prefixlen = 64 + 8 * bits;
	if (rf_sb_lookup(&rf_unix, sb, cgid, &s->ukey))
		return true;
	if (!ways || bits != 2 + n)
		return false;
	d[0] = RF_UNIX_ANCESTOR;
	return rf_sb_lookup(&rf_unix, sb, cgid, &s->ukey) != NULL;
}

/* The new name (dir, dentry) of op: the hook's verdict. An unresolvable
 * name is refused: it cannot be shown not to be an allowed one. A link or
 * rename from (from_dir, from) inside the allowed names themselves moves
 * only what is already there (no socket or symlink of the sandbox's can
 * be: this refuses them) and is allowed: directories made and renamed in
 * an allowed subtree stay possible. */
static __always_inline int unix_name_op(const struct path *dir, struct dentry *dentry, __u32 op,
					bool ways, const struct path *from_dir,
					struct dentry *from)
{
	void *mnt = BPF_CORE_READ(dir, mnt);
	struct rf_lsm_scratch *s;
	struct rf_sandbox *sb;
	__u32 reason;
	__u64 cgid;
	int v;

	s = hook_scratch(RF_SB_LSM_UNIX_NAMES, RF_CLASS_FILE, &sb, &cgid, &v);
	if (!s)
		return v;
	reason = walk_path(s, mnt, dentry, false);
	if (!reason && !unix_name_at(s, sb, cgid, ways))
		return 0;
	if (!reason && from) {
		if (!walk_path(s, BPF_CORE_READ(from_dir, mnt), from, true) &&
		    unix_name_at(s, sb, cgid, false))
			return 0;
		walk_path(s, mnt, dentry, false);  /* the record names the new name */
	}
	return verdict(judge(sb, cgid, s, reason ? reason : RF_REASON_UNIX_NAME, RF_ACC_WRITE,
			     RF_CLASS_FILE, op));
}

SEC("lsm/path_unlink")
int BPF_PROG(rf_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	return ret ? ret : remove_op(dir, dentry, RF_OP_UNLINK);
}

SEC("lsm/path_rmdir")
int BPF_PROG(rf_path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	return ret ? ret : remove_op(dir, dentry, RF_OP_RMDIR);
}

SEC("lsm/path_mkdir")
int BPF_PROG(rf_path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode, int ret)
{
	return ret ? ret : write_op(dir, dentry, RF_OP_MKDIR, false);
}

SEC("lsm/path_mknod")
int BPF_PROG(rf_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	__u32 fmt = mode & S_IFMT;
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret)
		return ret;
	/* A device node would reach the device's data past every path rule. */
	if (fmt == S_IFCHR || fmt == S_IFBLK) {
		sb = sandbox_for(RF_SB_LSM_FILES, &cgid);
		if (sb)
			return verdict(boundary(sb, cgid, RF_OP_MKNOD, 0, mode));
	}
	ret = write_op(dir, dentry, fmt == S_IFREG || fmt == 0 ? RF_OP_CREATE : RF_OP_MKNOD,
		       false);
	/* bind() of a pathname socket makes its inode here */
	if (!ret && fmt == S_IFSOCK)
		ret = unix_name_op(dir, dentry, RF_OP_MKNOD, false, NULL, NULL);
	return ret;
}

SEC("lsm/path_symlink")
int BPF_PROG(rf_path_symlink, const struct path *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (!ret)
		ret = write_op(dir, dentry, RF_OP_SYMLINK, false);
	return ret ? ret : unix_name_op(dir, dentry, RF_OP_SYMLINK, true, NULL, NULL);
}

/* Both names of a link or rename: the existing one and the new one. */
static __always_inline int write_op_both(const struct path *old_dir, struct dentry *old_dentry,
					 const struct path *new_dir, struct dentry *new_dentry,
					 __u32 op)
{
	int r = write_op(old_dir, old_dentry, op, true);

	return r ? r : write_op(new_dir, new_dentry, op, false);
}

/* A link of a file that is not writable (or readable) here must not make
 * it reachable under a writable name. */
SEC("lsm/path_link")
int BPF_PROG(rf_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	if (!ret)
		ret = write_op_both(new_dir, old_dentry, new_dir, new_dentry, RF_OP_LINK);
	if (!ret && answers_unix(old_dentry))
		ret = unix_name_op(new_dir, new_dentry, RF_OP_LINK, true, new_dir, old_dentry);
	return ret;
}

/* The old name leaves its directory; an existing new name is replaced
 * (or exchanged) in its own. */
SEC("lsm/path_rename")
int BPF_PROG(rf_path_rename, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, unsigned int flags, int ret)
{
	int r = ret ? ret : write_op_both(old_dir, old_dentry, new_dir, new_dentry, RF_OP_RENAME);

	if (!r)
		r = write_op_path(old_dir, RF_OP_RENAME);
	if (!r && BPF_CORE_READ(new_dentry, d_inode))
		r = write_op_path(new_dir, RF_OP_RENAME);
	/* each name gets the other's inode in an exchange */
	if (!r && answers_unix(old_dentry))
		r = unix_name_op(new_dir, new_dentry, RF_OP_RENAME, true, old_dir, old_dentry);
	if (!r && (flags & RENAME_EXCHANGE) && answers_unix(new_dentry))
		r = unix_name_op(old_dir, old_dentry, RF_OP_RENAME, true, new_dir, new_dentry);
	return r;
}

SEC("lsm/path_truncate")
int BPF_PROG(rf_path_truncate, const struct path *path, int ret)
{
	return ret ? ret : write_op_path(path, RF_OP_TRUNCATE);
}

SEC("lsm/path_chmod")
int BPF_PROG(rf_path_chmod, const struct path *path, umode_t mode, int ret)
{
	return ret ? ret : write_op_path(path, RF_OP_CHMOD);
}

SEC("lsm/path_chown")
int BPF_PROG(rf_path_chown, const struct path *path, __u64 uid, __u64 gid, int ret)
{
	return ret ? ret : write_op_path(path, RF_OP_CHOWN);
}

/*
 * utimes and friends: inode_setattr names only the dentry. Its mounts in
 * the caller's namespace (bind mounts give one inode several names) are
 * on the superblock's list; allowed when a name under one of them is
 * writable. chmod, chown and truncate also pass here, but their path_*
 * hooks judged them already.
 */
#define RF_SETATTR_MOUNTS 4

/* Linux 6.1 lists a superblock's mounts on sb->s_mounts through
 * mount->mnt_instance; 6.8 chains them instead (sb->s_mounts is the first
 * mount, mount->mnt_next_for_sb the next), which vmlinux.h here has. CO-RE
 * ignores the ___v61 suffix when it matches these against the kernel. */
struct mount___v61 {
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

struct super_block___v61 {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

/* 1: a writable name under vfsmnt, else *denied = vfsmnt when it has one. */
static __always_inline bool setattr_mount_allows(struct rf_lsm_scratch *s, __u64 cgid,
						 void *vfsmnt, struct dentry *dentry,
						 void **denied)
{
	__u32 *v;

	if (walk_path(s, vfsmnt, dentry, true))
		return false;  /* not under this mount, or another namespace's */
	v = path_rule(NULL, s, cgid);
	if (v && (*v & RF_ACC_WRITE))
		return true;
	*denied = vfsmnt;
	return false;
}

/*
 * The other layout's relocations fail and libbpf poisons their
 * instructions, so each layout has its own loop under one exists-check:
 * the check is a load-time constant and the verifier never reaches the
 * other loop. (An exists-check inside a shared loop let the compiler
 * hoist the other layout's offsets above it: the object stopped loading.)
 */
static __always_inline int setattr_walk_mounts(struct rf_lsm_scratch *s, __u64 cgid,
					       struct super_block *fsb, struct dentry *dentry,
					       void **denied)
{
	if (bpf_core_field_exists(struct mount, mnt_next_for_sb)) {
		struct mount *m = BPF_CORE_READ(fsb, s_mounts);

		for (int i = 0; i < RF_SETATTR_MOUNTS && m; i++) {
			if (setattr_mount_allows(s, cgid, &m->mnt, dentry, denied))
				return 1;
			m = BPF_CORE_READ(m, mnt_next_for_sb);
		}
		return 0;
	}
	{
		void *head = (void *)fsb + bpf_core_field_offset(struct super_block___v61, s_mounts);
		struct list_head *pos = BPF_CORE_READ((struct super_block___v61 *)fsb, s_mounts.next);

		for (int i = 0; i < RF_SETATTR_MOUNTS; i++) {
			void *vfsmnt;

			if (!pos || (void *)pos == head)
				break;
			vfsmnt = (void *)pos - bpf_core_field_offset(struct mount___v61, mnt_instance) +
				 bpf_core_field_offset(struct mount, mnt);
			pos = BPF_CORE_READ(pos, next);
			if (setattr_mount_allows(s, cgid, vfsmnt, dentry, denied))
				return 1;
		}
	}
	return 0;
}

static __always_inline int judge_dentry_write(struct rf_sandbox *sb, __u64 cgid,
					      struct rf_lsm_scratch *s, struct dentry *dentry,
					      __u32 op);

static __always_inline int setattr_check(struct dentry *dentry, struct iattr *attr, int ret)
{
	struct rf_lsm_scratch *s;
	struct rf_sandbox *sb;
	unsigned int valid;
	__u64 cgid;
	int hv;

	if (ret)
		return ret;
	valid = BPF_CORE_READ(attr, ia_valid);
	if (!(valid & (ATTR_ATIME | ATTR_MTIME)) ||
	    (valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE)))
		return 0;
	s = hook_scratch(RF_SB_LSM_FILES, RF_CLASS_FILE, &sb, &cgid, &hv);
	if (!s)
		return hv;
	return judge_dentry_write(sb, cgid, s, dentry, RF_OP_UTIMES);
}

/*
 * A change to an inode named only by its dentry: allowed when a name of it
 * under one of its superblock's mounts in the caller's namespace (bind
 * mounts give one inode several names; at most RF_SETATTR_MOUNTS) is
 * writable. The hook's verdict.
 */
static __always_inline int judge_dentry_write(struct rf_sandbox *sb, __u64 cgid,
					      struct rf_lsm_scratch *s, struct dentry *dentry,
					      __u32 op)
{
	void *denied_mnt = NULL;

	if (setattr_walk_mounts(s, cgid, BPF_CORE_READ(dentry, d_sb), dentry, &denied_mnt))
		return 0;
	/* Denied: record the last name found (or that none was). */
	if (denied_mnt)
		return verdict(judge(sb, cgid, s, walk_path(s, denied_mnt, dentry, true),
				     RF_ACC_WRITE, RF_CLASS_FILE, op));
	s->plen = 0;
	return verdict(judge(sb, cgid, s, RF_REASON_BAD_PATH, RF_ACC_WRITE, RF_CLASS_FILE, op));
}

SEC("lsm/inode_setattr")
int BPF_PROG(rf_inode_setattr, struct dentry *dentry, struct iattr *attr, int ret)
{
	return setattr_check(dentry, attr, ret);
}

/* 6.3 added the mount's idmap in front. */
SEC("lsm/inode_setattr")
int BPF_PROG(rf_inode_setattr_v63, void *idmap, struct dentry *dentry, struct iattr *attr, int ret)
{
	return setattr_check(dentry, attr, ret);
}

/* ---- metadata writes: xattrs, ACLs, inode-changing ioctls (h13b) ---- */

/* Writes of the file named by dentry: an xattr (POSIX ACLs change the
 * mode without path_chmod; security.* skips the capability check once any
 * LSM hooks inode_setxattr), an ACL (6.2+: inode_set_acl). */
static __always_inline int dentry_write(struct dentry *dentry, __u32 op, int ret)
{
	struct rf_lsm_scratch *s;
	struct rf_sandbox *sb;
	__u64 cgid;
	int hv;

	if (ret)
		return ret;
	s = hook_scratch(RF_SB_LSM_FILES, RF_CLASS_FILE, &sb, &cgid, &hv);
	if (!s)
		return hv;
	return judge_dentry_write(sb, cgid, s, dentry, op);
}

SEC("lsm/inode_setxattr")
int BPF_PROG(rf_inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	return dentry_write(dentry, RF_OP_SETXATTR, ret);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(rf_inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	return dentry_write(dentry, RF_OP_REMOVEXATTR, ret);
}

/* 6.2+ (enforcer.c loads them only where the hooks exist): setxattr of
 * system.posix_acl_* no longer passes inode_setxattr. */
SEC("lsm/inode_set_acl")
int BPF_PROG(rf_inode_set_acl, void *idmap, struct dentry *dentry, const char *acl_name,
	     void *kacl, int ret)
{
	return dentry_write(dentry, RF_OP_SETXATTR, ret);
}

SEC("lsm/inode_remove_acl")
int BPF_PROG(rf_inode_remove_acl, void *idmap, struct dentry *dentry, const char *acl_name,
	     int ret)
{
	return dentry_write(dentry, RF_OP_REMOVEXATTR, ret);
}

/* ioctls that change the inode through any fd, a read-only one included. */
static __always_inline bool inode_ioctl(unsigned int cmd)
{
	return cmd == 0x40086602 /* FS_IOC_SETFLAGS */ || cmd == 0x40046602 /* 32-bit */ ||
	       cmd == 0x401c5820 /* FS_IOC_FSSETXATTR */ ||
	       cmd == 0x40087602 /* FS_IOC_SETVERSION */ || cmd == 0x40047602 /* 32-bit */ ||
	       cmd == 0x40806685 /* FS_IOC_ENABLE_VERITY */ ||
	       cmd == 0x800c6613 /* FS_IOC_SET_ENCRYPTION_POLICY */;
}

SEC("lsm/file_ioctl")
int BPF_PROG(rf_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret || !inode_ioctl(cmd))
		return ret;
	return judge_walked(file, RF_SB_LSM_FILES, RF_ACC_WRITE, RF_CLASS_FILE, RF_OP_INODE_IOCTL);
}

/* ---- end of metadata writes ---- */

/* ---- the process boundary ---- */

/* Is task t in the sandbox cgid (its cgroup or an ancestor)? */
static __always_inline bool task_in_sandbox(struct task_struct *t, __u64 cgid)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);

	for (int i = 0; i < RF_MAX_LEVEL; i++) {
		if (!cg)
			break;
		if (BPF_CORE_READ(cg, kn, id) == cgid)
			return true;
		/* self is the first member: the parent css is the parent cgroup */
		cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	}
	return false;
}

/* A hook acting on another task t: a boundary denial when t is outside
 * the caller's sandbox. */
static __always_inline int task_hook(int ret, struct task_struct *t, __u32 op, __u32 arg)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret)
		return ret;
	sb = boundary_sandbox(&cgid);
	if (!sb || task_in_sandbox(t, cgid))
		return 0;
	return verdict(boundary(sb, cgid, op, BPF_CORE_READ(t, tgid), arg));
}

SEC("lsm/bpf")
int BPF_PROG(rf_bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	return boundary_hook(ret, RF_OP_BPF, cmd);
}

/* 6.9 added "kernel" (the call came from a BPF program): judged alike. */
SEC("lsm/bpf")
int BPF_PROG(rf_bpf_v69, int cmd, union bpf_attr *attr, unsigned int size, bool kernel, int ret)
{
	return boundary_hook(ret, RF_OP_BPF, cmd);
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(rf_ptrace, struct task_struct *child, unsigned int mode, int ret)
{
	return task_hook(ret, child, RF_OP_PTRACE, mode);
}

SEC("lsm/task_kill")
int BPF_PROG(rf_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	return task_hook(ret, p, RF_OP_KILL, sig);
}

SEC("lsm/sb_mount")
int BPF_PROG(rf_sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	return boundary_hook(ret, RF_OP_MOUNT, flags);
}

SEC("lsm/move_mount")
int BPF_PROG(rf_move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	return boundary_hook(ret, RF_OP_MOVE_MOUNT, 0);
}

SEC("lsm/sb_umount")
int BPF_PROG(rf_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	return boundary_hook(ret, RF_OP_UMOUNT, flags);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(rf_sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	return boundary_hook(ret, RF_OP_PIVOT_ROOT, 0);
}

/* chroot would make every resolved path relative to the new root. */
SEC("lsm/path_chroot")
int BPF_PROG(rf_path_chroot, const struct path *path, int ret)
{
	return boundary_hook(ret, RF_OP_CHROOT, 0);
}

SEC("lsm/userns_create")
int BPF_PROG(rf_userns_create, const struct cred *cred, int ret)
{
	return boundary_hook(ret, RF_OP_USERNS, 0);
}

/* clone3(CLONE_INTO_CGROUP) moves the child with no file opened. */
SEC("lsm/task_alloc")
int BPF_PROG(rf_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	if (!ret && !(clone_flags & CLONE_INTO_CGROUP))
		return 0;
	return boundary_hook(ret, RF_OP_CLONE_INTO_CGROUP, 0);
}

/* ---- network.unix: the peer's bound name, resolved ---- */

/*
 * The peer socket's name into s->ukey: a pathname socket by the resolved
 * path of its inode (symlinks and .. were resolved when it was found), an
 * abstract one by its name. 0 (allowed), or an rf_reason; an unnamed
 * peer (socketpair) has nothing to judge.
 */
/*
 * Identity: the socket must be named by the policy as it was bound, not
 * only as it is named now. A rename of the socket (or of a directory
 * above it) onto an allowed name leaves its inode's path allowed but its
 * bound address (the absolute sun_path given to bind) where it was. A
 * relative bound address says nothing without the binder's cwd: the
 * resolved path alone judges it. Into s->ukey; 0 or an rf_reason.
 */
static __always_inline __u32 check_bound_name(struct rf_lsm_scratch *s,
					      struct unix_address *addr, __u64 cgid, __u32 *n)
{
	__u8 *d = s->ukey.data;
	bool abstract;
	int alen;
	__u32 len;

	alen = BPF_CORE_READ(addr, len);
	len = alen > 2 ? alen - 2 : 0;  /* bytes of sun_path */
	if (len > RF_UNIX_PATH_MAX)
		len = RF_UNIX_PATH_MAX;
	__builtin_memset(&s->ukey, 0, sizeof(s->ukey));
	bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, &addr->name[0].sun_path);
	if (!len || d[1] != '/')
		return 0;
	return unix_lookup(&s->ukey, &s->scan, cgid, len, n, &abstract);
}

static __always_inline int check_peer(struct rf_sandbox *sb, __u64 cgid, struct sock *other,
				      __u32 type, __u32 op)
{
	struct unix_sock *u = (struct unix_sock *)other;
	struct rf_lsm_scratch *s;
	struct unix_address *addr;
	struct dentry *dentry;
	__u32 reason, n = 0, len;
	bool abstract = false;
	__u8 *d;
	int alen;

	addr = BPF_CORE_READ(u, addr);
	if (!addr)
		return ALLOW;
	s = scratch();
	if (!s)
		return no_scratch(sb, RF_CLASS_UNIX);
	__builtin_memset(&s->ukey, 0, sizeof(s->ukey));
	d = s->ukey.data;
	dentry = BPF_CORE_READ(u, path.dentry);
	if (dentry) {
		/* The peer's bound inode, as named in its own mount namespace
		 * (a sandbox may live in a copy of the namespace). */
		reason = walk_path_ns(s, BPF_CORE_READ(u, path.mnt), dentry, false, false);
		len = s->plen;
		if (!reason && len > RF_UNIX_PATH_MAX - 1)
			reason = RF_REASON_TOO_LONG;
		if (!reason) {
			bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, s->key.path);
			reason = unix_lookup(&s->ukey, &s->scan, cgid, len, &n, &abstract);
			if (!reason)
				reason = check_bound_name(s, addr, cgid, &n);
		} else if (len <= RF_UNIX_PATH_MAX - 1) {
			bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, s->key.path);
			n = len;
		}
	} else {
		alen = BPF_CORE_READ(addr, len);
		len = alen > 2 ? alen - 2 : 0;  /* bytes of sun_path */
		if (len > RF_UNIX_PATH_MAX)
			len = RF_UNIX_PATH_MAX;
		bpf_probe_read_kernel(&d[1], RF_UNIX_PATH_MAX, &addr->name[0].sun_path);
		if (len && d[1] != 0) {
			/* a pathname name without an inode: cannot be judged */
			reason = RF_REASON_BAD_PATH;
		} else {
			reason = unix_lookup(&s->ukey, &s->scan, cgid, len, &n, &abstract);
		}
	}
	if (!reason)
		return ALLOW;
	ev_reset(s);
	s->ev.family = AF_UNIX;
	s->ev.op = op;
	s->ev.reason = reason;
	s->ev.protocol = type;
	unix_event_path(&s->ev, d, n, abstract);
	return decide(sb, cgid, &s->ev, RF_CLASS_UNIX);
}

/* The sandbox a unix hook judges for; NULL when an earlier LSM denied
 * already (ret) or unix sockets are not restricted here. The hooks then
 * return ret: the earlier verdict, or 0. The peer is read only after. */
static __always_inline struct rf_sandbox *unix_sandbox(int ret, __u64 *cgid)
{
	struct rf_sandbox *sb;

	if (ret)
		return NULL;
	sb = sandbox_for(RF_SB_LSM_UNIX, cgid);
	if (!sb || (sb->flags & RF_SB_UNIX_UNRESTRICTED))
		return NULL;
	return sb;
}

SEC("lsm/unix_stream_connect")
int BPF_PROG(rf_unix_stream_connect, struct sock *sock, struct sock *other, struct sock *newsk,
	     int ret)
{
	__u64 cgid;
	struct rf_sandbox *sb = unix_sandbox(ret, &cgid);

	return sb ? verdict(check_peer(sb, cgid, other, BPF_CORE_READ(sock, sk_type),
				       RF_OP_UNIX_CONNECT_LSM)) : ret;
}

/* Datagrams: connect() and every send, to the peer found by name. */
SEC("lsm/unix_may_send")
int BPF_PROG(rf_unix_may_send, struct socket *sock, struct socket *other, int ret)
{
	__u64 cgid;
	struct rf_sandbox *sb = unix_sandbox(ret, &cgid);

	return sb ? verdict(check_peer(sb, cgid, BPF_CORE_READ(other, sk),
				       BPF_CORE_READ(sock, type), RF_OP_UNIX_SEND_LSM)) : ret;
}

/* ====================================================================
 * Issue 13 (h13a): other processes' scheduling and limits, signals
 * through file ownership, routing options on inet sockets. A block of
 * its own; the process boundary's helpers above are shared.
 * ==================================================================== */

#define RF_SIGKILL 9
#define RF_IPPROTO_IP 0
#define RF_IPPROTO_IPV6 41
#define RF_IP_OPTIONS 4
#define RF_IP_RETOPTS 7
#define RF_IPV6_2292PKTOPTIONS 6
#define RF_IPV6_2292RTHDR 5
#define RF_IPV6_RTHDR 57
#define RF_CMSG_MAX 16                  /* cmsgs walked; more: denied */

/* Nice, I/O priority, scheduling (sched_set*, affinity) and resource
 * limits of a process outside the sandbox: a boundary denial. */
SEC("lsm/task_setnice")
int BPF_PROG(rf_task_setnice, struct task_struct *p, int nice, int ret)
{
	return task_hook(ret, p, RF_OP_SETNICE, (__u32)nice);
}

SEC("lsm/task_setioprio")
int BPF_PROG(rf_task_setioprio, struct task_struct *p, int ioprio, int ret)
{
	return task_hook(ret, p, RF_OP_SETIOPRIO, (__u32)ioprio);
}

SEC("lsm/task_setscheduler")
int BPF_PROG(rf_task_setscheduler, struct task_struct *p, int ret)
{
	return task_hook(ret, p, RF_OP_SETSCHEDULER, 0);
}

SEC("lsm/task_setrlimit")
int BPF_PROG(rf_task_setrlimit, struct task_struct *p, unsigned int resource,
	     struct rlimit *new_rlim, int ret)
{
	return task_hook(ret, p, RF_OP_SETRLIMIT, resource);
}

/*
 * Signals a file sends to its owner (SIGIO/F_SETSIG on I/O, SIGURG,
 * dnotify) are sent by whoever makes the I/O happen, often from interrupt
 * context: the sender is no guide. So the sandbox that set the owner
 * (F_SETOWN, F_SETOWN_EX, F_NOTIFY, SIOCSPGRP all pass file_set_fowner)
 * is remembered per file, and a signal from that file to a process
 * outside that sandbox is refused. Landlock's signal scoping does the same.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);             /* struct file * */
	__type(value, __u64);           /* the sandbox's cgroup id */
} rf_fowners SEC(".maps");

/* 6.12 moved the owner out of struct file (file->f_owner, a pointer,
 * with a back pointer fown->file); 6.1 embeds it. */
struct fown_struct___v612 {
	struct file *file;
} __attribute__((preserve_access_index));

struct file___v612 {
	struct fown_struct___v612 *f_owner;
} __attribute__((preserve_access_index));

struct fown_struct___v61 {
	struct pid *pid;
} __attribute__((preserve_access_index));

struct file___v61 {
	struct fown_struct___v61 f_owner;
} __attribute__((preserve_access_index));

static __always_inline __u64 fown_file(struct fown_struct *fown)
{
	if (bpf_core_field_exists(((struct fown_struct___v612 *)0)->file))
		return (__u64)BPF_CORE_READ((struct fown_struct___v612 *)fown, file);
	return (__u64)((void *)fown - bpf_core_field_offset(struct file___v61, f_owner));
}

/* Direct loads (file is the hook's trusted argument): this runs for every
 * file freed on the host, sandboxed or not. */
static __always_inline bool file_has_owner(struct file *file)
{
	if (bpf_core_field_exists(((struct fown_struct___v612 *)0)->file))
		return ((struct file___v612 *)file)->f_owner != NULL;
	return ((struct file___v61 *)file)->f_owner.pid != NULL;
}

SEC("lsm/file_set_fowner")
int BPF_PROG(rf_file_set_fowner, struct file *file)
{
	__u64 key = (__u64)file, cgid;

	if (!boundary_sandbox(&cgid)) {
		bpf_map_delete_elem(&rf_fowners, &key);  /* an owner from outside now */
		return 0;
	}
	/* The hook cannot refuse: a file whose owner cannot be remembered
	 * could signal anyone, so its caller does not go on. */
	if (bpf_map_update_elem(&rf_fowners, &key, &cgid, BPF_ANY))
		bpf_send_signal(RF_SIGKILL);
	return 0;
}

SEC("lsm/file_send_sigiotask")
int BPF_PROG(rf_file_send_sigiotask, struct task_struct *tsk, struct fown_struct *fown, int sig,
	     int ret)
{
	struct rf_sandbox *sb;
	__u64 key, cgid, *owner;

	if (ret)
		return ret;
	key = fown_file(fown);
	owner = bpf_map_lookup_elem(&rf_fowners, &key);
	if (!owner)
		return 0;
	cgid = *owner;
	sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);
	if (!sb || task_in_sandbox(tsk, cgid))
		return 0;  /* the sandbox is gone, or the owner is one of its own */
	return verdict(boundary(sb, cgid, RF_OP_SIGIO, BPF_CORE_READ(tsk, tgid), (__u32)sig));
}

/* Only files that had an owner can be in rf_fowners: one load for the rest. */
SEC("lsm/file_free_security")
int BPF_PROG(rf_file_free_security, struct file *file)
{
	__u64 key = (__u64)file;

	if (file_has_owner(file))
		bpf_map_delete_elem(&rf_fowners, &key);
	return 0;
}

/*
 * Routing options while the network is confined: a routing header
 * (IPV6_RTHDR, RFC 2292's IPV6_2292PKTOPTIONS) or an IPv4 source route
 * (IP_OPTIONS) sends the packet to an address the connect/sendmsg
 * programs never saw. Refused, not judged: their first hop is in the
 * option, and an allowed first hop would still relay onwards.
 */
static __always_inline bool route_opt(int level, int name)
{
	return (level == RF_IPPROTO_IPV6 &&
		(name == RF_IPV6_RTHDR || name == RF_IPV6_2292PKTOPTIONS)) ||
	       (level == RF_IPPROTO_IP && name == RF_IP_OPTIONS);
}

static __always_inline bool route_cmsg(int level, int type)
{
	return (level == RF_IPPROTO_IPV6 && (type == RF_IPV6_RTHDR || type == RF_IPV6_2292RTHDR)) ||
	       (level == RF_IPPROTO_IP && type == RF_IP_RETOPTS);
}

/* The sandbox whose confined network a routing option would leave. */
static __always_inline struct rf_sandbox *route_sandbox(struct socket *sock, __u64 *cgid)
{
	struct rf_sandbox *sb = boundary_sandbox(cgid);
	__u16 family;

	if (!sb || (sb->flags & RF_SB_NET_UNRESTRICTED))
		return NULL;
	family = BPF_CORE_READ(sock, sk, __sk_common.skc_family);
	return family == AF_INET || family == AF_INET6 ? sb : NULL;
}

static __always_inline int route_deny(struct rf_sandbox *sb, __u64 cgid, __u32 op, int level,
				      int name)
{
	/* A boundary decision: no address to show, the option is the record. */
	return verdict(boundary(sb, cgid, op, 0, ((__u32)level << 16) | ((__u32)name & 0xffff)));
}

SEC("lsm/socket_setsockopt")
int BPF_PROG(rf_socket_setsockopt, struct socket *sock, int level, int optname, int ret)
{
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret || !route_opt(level, optname))
		return ret;
	sb = route_sandbox(sock, &cgid);
	return sb ? route_deny(sb, cgid, RF_OP_ROUTE_SOCKOPT, level, optname) : 0;
}

/* sendmsg's ancillary data: ____sys_sendmsg copied it into the kernel. */
struct cmsg_walk {
	void *ctl;
	__u64 len, off;
	int level, type;                /* the refused one, or level -1 */
};

static long cmsg_step(__u32 i, void *vctx)
{
	struct cmsg_walk *w = vctx;
	struct { __u64 len; int level, type; } h;

	if (w->off + sizeof(h) > w->len)
		return 1;
	if (bpf_probe_read_kernel(&h, sizeof(h), w->ctl + w->off) || h.len < sizeof(h)) {
		w->level = -2;          /* unreadable or malformed: not judged */
		return 1;
	}
	if (route_cmsg(h.level, h.type)) {
		w->level = h.level;
		w->type = h.type;
		return 1;
	}
	w->off += (h.len + 7) & ~7ULL;
	return 0;
}

SEC("lsm/socket_sendmsg")
int BPF_PROG(rf_socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	struct cmsg_walk w = { .level = -1 };
	struct rf_sandbox *sb;
	__u64 cgid;

	if (ret)
		return ret;
	w.len = BPF_CORE_READ(msg, msg_controllen);
	if (!w.len)
		return 0;
	sb = route_sandbox(sock, &cgid);
	if (!sb)
		return 0;
	if (BPF_CORE_READ_BITFIELD_PROBED(msg, msg_control_is_user))
		return route_deny(sb, cgid, RF_OP_ROUTE_CMSG, -1, 0);
	w.ctl = BPF_CORE_READ(msg, msg_control);
	bpf_loop(RF_CMSG_MAX, cmsg_step, &w, 0);
	if (w.level == -1 && w.off + 16 <= w.len)
		w.level = -2;           /* more cmsgs than walked */
	return w.level == -1 ? 0 : route_deny(sb, cgid, RF_OP_ROUTE_CMSG, w.level, w.type);
}

/*
 * A socket another process made, handed in over a unix socket
 * (SCM_RIGHTS) or taken with pidfd_getfd: the cgroup hooks judge and the
 * ledger counts a socket by the cgroup that made it, so an inet socket
 * from outside would connect and send past network.connect, the ledger and
 * egress_bytes, and a netlink socket would carry its maker's privileges.
 * Every family but unix is refused unless the socket was made inside this
 * sandbox (the fd is then not installed: recvmsg sets MSG_CTRUNC). Unix
 * sockets pass: a connect from here is judged by the caller (above).
 */
#define RF_S_IFSOCK 0140000

static __always_inline bool made_inside(struct sock *sk, __u64 cgid)
{
	struct cgroup *c = BPF_CORE_READ(sk, sk_cgrp_data.cgroup);

	/* the sandbox's cgroup or one below it (a delegated subtree) */
	for (int i = 0; c && i < RF_MAX_LEVEL; i++) {
		if (BPF_CORE_READ(c, kn, id) == cgid)
			return true;
		c = (struct cgroup *)BPF_CORE_READ(c, self.parent);
	}
	return false;
}

SEC("lsm/file_receive")
int BPF_PROG(rf_file_receive, struct file *file, int ret)
{
	struct rf_sandbox *sb;
	struct socket *sock;
	struct sock *sk;
	__u16 family;
	__u64 cgid;

	if (ret || (BPF_CORE_READ(file, f_inode, i_mode) & S_IFMT) != RF_S_IFSOCK)
		return ret;
	sb = boundary_sandbox(&cgid);
	if (!sb)
		return 0;
	sock = BPF_CORE_READ(file, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return 0;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (family == AF_UNIX || made_inside(sk, cgid))
		return 0;
	return verdict(boundary(sb, cgid, RF_OP_SOCK_RECEIVE, 0, family));
}
