/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A walk up the dentry tree to the task's root, as the kernel's
 * prepend_path() does it, and the writing of the path it found: lsm.bpf.c
 * resolves the paths of its hooks with it, observe.bpf.c the directory of
 * a relative name. Each object drives it with its own bpf_loop callbacks
 * over its own scratch memory; the steps are here. Needs vmlinux.h,
 * bpf_core_read.h and rf_abi.h first.
 */
#ifndef RF_PATH_BPF_H
#define RF_PATH_BPF_H

/* The state of one walk, in map memory (see rf_common.bpf.h on bpf_loop
 * and older verifiers). */
struct rf_walk {
	struct dentry *dentry;
	void *vfsmnt;
	struct dentry *root_dentry;
	void *root_mnt;
	__u32 n;        /* components collected */
	__u32 total;    /* bytes they need: '/' + name each */
	__u32 off;      /* bytes written */
	__u32 reason;   /* 0 while walking; an rf_reason when it failed */
	__u32 done;
	__u32 _pad;
};

static __always_inline struct mount *real_mount(void *vfsmnt)
{
	return (struct mount *)(vfsmnt - bpf_core_field_offset(struct mount, mnt));
}

/* A walk from (vfsmnt, dentry) up to the current task's root. */
static __always_inline void walk_start(struct rf_walk *w, void *vfsmnt, struct dentry *dentry)
{
	struct task_struct *t = bpf_get_current_task_btf();

	__builtin_memset(w, 0, sizeof(*w));
	w->dentry = dentry;
	w->vfsmnt = vfsmnt;
	w->root_dentry = BPF_CORE_READ(t, fs, root.dentry);
	w->root_mnt = BPF_CORE_READ(t, fs, root.mnt);
}

/*
 * One step up: stop at the task's root or at the namespace's root mount
 * (w->done); cross mount points; a dentry that is its own parent without
 * being a mount root is cut off from the tree. comps (max entries, a
 * power of 2) collects the dentries leaf first; their names may need
 * max_len bytes. 1 to stop the loop, 0 to go on.
 */
static __always_inline long walk_up_step(struct rf_walk *w, __u64 *comps, __u32 max,
					 __u32 max_len)
{
	struct dentry *d = w->dentry, *parent;
	struct vfsmount *vm = w->vfsmnt;
	__u32 len, n;

	if (d == w->root_dentry && (void *)vm == w->root_mnt) {
		w->done = 1;
		return 1;
	}
	if (d == BPF_CORE_READ(vm, mnt_root)) {
		struct mount *m = real_mount(vm);
		struct mount *mp = BPF_CORE_READ(m, mnt_parent);

		if (!mp || mp == m) {
			w->done = 1;  /* the root mount of the namespace */
			return 1;
		}
		w->dentry = BPF_CORE_READ(m, mnt_mountpoint);
		w->vfsmnt = (void *)mp + bpf_core_field_offset(struct mount, mnt);
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d) {
		w->reason = RF_REASON_BAD_PATH;
		return 1;
	}
	n = w->n;
	if (n >= max) {
		w->reason = RF_REASON_TOO_LONG;
		return 1;
	}
	len = BPF_CORE_READ(d, d_name.len);
	w->total += 1 + len;
	if (w->total > max_len) {
		w->reason = RF_REASON_TOO_LONG;
		return 1;
	}
	comps[n & (max - 1)] = (__u64)d;
	w->n = n + 1;
	w->dentry = parent;
	return 0;
}

/*
 * Step i of writing the collected components root first into buf:
 * "/a/b/c", at most max_len bytes. A name is read name_read bytes at a
 * time (a power of 2 above max_len): buf has room for that at any offset
 * below max_len. 1 to stop the loop, 0 to go on.
 */
static __always_inline long walk_emit_step(struct rf_walk *w, const __u64 *comps, __u32 max,
					   __u32 i, char *buf, __u32 max_len, __u32 name_read)
{
	__u32 off = w->off, n = w->n;
	struct dentry *d;
	long r;

	if (i >= n)
		return 1;
	if (off >= max_len) {
		w->reason = RF_REASON_TOO_LONG;
		return 1;
	}
	d = (struct dentry *)comps[(n - 1 - i) & (max - 1)];
	buf[off & (name_read - 1)] = '/';
	off++;
	r = bpf_probe_read_kernel_str(&buf[off & (name_read - 1)], name_read,
				      BPF_CORE_READ(d, d_name.name));
	if (r < 1) {
		w->reason = RF_REASON_BAD_PATH;
		return 1;
	}
	off += r - 1;
	if (off > max_len) {
		w->reason = RF_REASON_TOO_LONG;
		return 1;
	}
	w->off = off;
	return 0;
}

#endif /* RF_PATH_BPF_H */
