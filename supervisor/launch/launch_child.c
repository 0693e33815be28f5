/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The launched child, from clone3 to exec: syscalls and async-signal-safe calls only. */
#include <errno.h>
#include <stddef.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "launch.h"
#include "launch_internal.h"
#include "backends/boundary_consts.h"
#include "backends/sandbox_landlock.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Where the supervisor keeps each of the child's fixed fds (RF_CHILD_FDS,
 * backends/boundary_consts.h): a field of the plan, < 0 when this run has
 * none. */
#define CHILD_SRC_ERR offsetof(struct launch_plan, err_w)
#define CHILD_SRC_LL offsetof(struct launch_plan, ll_fd)
#define CHILD_SRC_NOTIFY offsetof(struct launch_plan, notify_w)
#define CHILD_SRC_DEVPTS offsetof(struct launch_plan, devpts_fd)
#define CHILD_SRC_FAN offsetof(struct launch_plan, fan_fd)
#define CHILD_SRC_IDMAP offsetof(struct launch_plan, idmap_fd)

/* The child's fixed fds: one row per line of RF_CHILD_FDS, so a line
 * without its CHILD_SRC_ fails the build. */
static const struct child_fd {
	int fd;           /* its number in the child */
	size_t src;       /* CHILD_SRC_: the supervisor's copy */
	const char *what;
} fixed_fds[] = {
#define CHILD_FD(name, num, what) { RF_CHILD_FD_##name, CHILD_SRC_##name, what },
	RF_CHILD_FDS(CHILD_FD)
#undef CHILD_FD
};
_Static_assert(N_OF(fixed_fds) == RF_CHILD_FD_COUNT, "fixed_fds covers RF_CHILD_FDS");

/* Locked so the command can neither regain capabilities through uid 0
 * (exec, setuid) nor keep them across a uid change. */
#define CHILD_SECUREBITS                                                    \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |     \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED)

void launch_child__copy_what(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

static _Noreturn void child_fail(int fd, enum launch_stage stage, int err, const char *what)
{
	struct child_err ce = { .stage = stage, .err = err };

	launch_child__copy_what(ce.what, sizeof(ce.what), what);
	if (write(fd, &ce, sizeof(ce)) < 0) {
		/* nothing left to tell (a syscalls allowlist without write):
		 * the status alone still says not found or not runnable */
	}
	_exit(stage == LAUNCH_STAGE_EXEC && err == ENOENT ? 127 : 126);
}

/* child_fail with "verb what" (what: a fixed fd's words). */
static _Noreturn void child_fail_fd(int fd, int err, const char *verb, const char *what)
{
	char msg[sizeof(((struct child_err *)0)->what)];
	size_t n;

	launch_child__copy_what(msg, sizeof(msg), verb);
	for (n = 0; msg[n]; n++)
		;
	launch_child__copy_what(msg + n, sizeof(msg) - n, what);
	child_fail(fd, LAUNCH_STAGE_SETUP, err, msg);
}

static int child_fd_src(const struct launch_plan *p, const struct child_fd *f)
{
	return *(const int *)(const void *)((const char *)p + f->src);
}

static int close_above(int fd)
{
	struct rlimit rl;

	if (close_range((unsigned)fd + 1, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* pre-5.9 kernel: walk the descriptor table */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1U << 20))
		rl.rlim_cur = 1U << 20;
	for (rlim_t i = (rlim_t)fd + 1; i < rl.rlim_cur; i++)
		(void)close((int)i);
	return 0;
}

/* Drop the bounding set; caps above the kernel's last give EINVAL. */
static int drop_bounding(int last_cap)
{
	for (int c = 0; c <= last_cap; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && c > 0)
			return 0;
		return -errno;
	}
	return 0;
}

static bool caps_all_clear(int last_cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &hdr, d) < 0)
		return false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return false;
	for (int c = 0; c <= last_cap; c++) {
		int b = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
		int a = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);

		if (b < 0 && errno == EINVAL)
			break;
		if (b != 0 || a != 0)
			return false;
	}
	return true;
}

static bool groups_match(const struct launch_plan *p)
{
	gid_t g[64];
	int n = getgroups(0, NULL);

	if (n < 0 || (size_t)n != p->n_groups)
		return false;
	if ((size_t)n > sizeof(g) / sizeof(g[0]))
		return true; /* too many to copy here; the count matched */
	if (getgroups(n, g) != n)
		return false;
	for (int i = 0; i < n; i++)
		if (g[i] != p->groups[i])
			return false;
	return true;
}

/* The supervisor's handlers and ignores, then its mask (it blocks the
 * signals it reads through a signalfd; blocked everything for the
 * clone). The raw syscall also resets the signals glibc keeps for
 * itself (32, 33), which an ignoring ancestor would otherwise pass
 * through exec. Failing for SIGKILL/SIGSTOP is expected. */
static void child_reset_signals(int err_w)
{
	sigset_t none;

	for (int sig = 1; sig < _NSIG; sig++) {
		struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; }
			ksa = { .handler = SIG_DFL };

		(void)syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		child_fail(err_w, LAUNCH_STAGE_SETUP, errno, "sigprocmask");
}

/* Copy every fixed fd this run has above all the fixed numbers (hi[i], -1
 * none): a source may sit at another's number. A source on 0-2 (the
 * caller's stdio was closed) is closed, as is the pipe's read end there.
 * The error pipe's copy, to report through until the moves. */
static int child_fds_lift(const struct launch_plan *p, int err_r, int top, int *hi)
{
	int efd = p->err_w;
	size_t i;

	for (i = 0; i < N_OF(fixed_fds); i++) {
		int src = child_fd_src(p, &fixed_fds[i]);

		hi[i] = -1;
		if (src >= 0 && (hi[i] = fcntl(src, F_DUPFD_CLOEXEC, top + 1)) < 0)
			child_fail_fd(efd, errno, "F_DUPFD ", fixed_fds[i].what);
	}
	for (i = 0; i < N_OF(fixed_fds); i++) {
		int src = child_fd_src(p, &fixed_fds[i]);

		if (fixed_fds[i].fd == RF_CHILD_FD_ERR)
			efd = hi[i];
		if (src >= 0 && src <= STDERR_FILENO)
			(void)close(src);
	}
	if (err_r <= STDERR_FILENO)
		(void)close(err_r);
	return efd;
}

/*
 * The relays and the pty on 0-2, the fixed fds (fixed_fds[]) at their
 * numbers, nothing else above stderr. 0-2 are filled before the fixed fds
 * move and the moves are from copies above them all (child_fds_lift): a
 * source, a relay or the pty may sit at a fixed number, and no move may
 * clobber what is still to be moved or read.
 */
static void child_fds(const struct launch_opts *o, const struct launch_plan *p, int err_r)
{
	int hi[N_OF(fixed_fds)], top = 0, efd, r;
	size_t i;

	for (i = 0; i < N_OF(fixed_fds); i++)
		top = fixed_fds[i].fd > top ? fixed_fds[i].fd : top;
	efd = child_fds_lift(p, err_r, top, hi);
	/* dup2 leaves 0-2 inheritable. */
	if (o->stdout_fd > 2 && dup2(o->stdout_fd, STDOUT_FILENO) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "dup2 stdout");
	if (o->stderr_fd > 2 && dup2(o->stderr_fd, STDERR_FILENO) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "dup2 stderr");
	for (r = 0; o->tty_fd > 2 && r <= 2; r++)
		if (o->tty_std[r] && dup2(o->tty_fd, r) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "dup2 pty");
	for (i = 0; i < N_OF(fixed_fds); i++) {
		if (hi[i] < 0)
			(void)close(fixed_fds[i].fd);  /* not this run's: nothing may sit there */
		else if (dup3(hi[i], fixed_fds[i].fd, O_CLOEXEC) < 0)
			child_fail_fd(efd, errno, "dup3 ", fixed_fds[i].what);
	}
	r = close_above(top);
	if (r < 0)
		child_fail(RF_CHILD_FD_ERR, LAUNCH_STAGE_SETUP, -r, "close_range");
}

/* Mark one mount (its mount point as this namespace sees it). A mount
 * point gone or hidden by another mount is not reachable by path, and the
 * kernel's internal filesystems (nsfs bind mounts) refuse mount marks
 * (EINVAL): skipped. The root must take it (a mask this kernel refuses). */
static void child_mark(const struct launch_opts *o, const char *mp, int efd)
{
	bool root = mp[0] == '/' && !mp[1];

	if (fanotify_mark(RF_CHILD_FD_FAN, FAN_MARK_ADD | FAN_MARK_MOUNT, o->fanotify_mask,
			  AT_FDCWD, mp) == 0 || errno == ENOENT || errno == ENOTDIR ||
	    errno == EACCES || (errno == EINVAL && !root))
		return;
	child_fail(efd, LAUNCH_STAGE_SETUP, errno, "fanotify_mark of a mount");
}

/*
 * monitor.files: every mount of this namespace, now that it has its last
 * one, marked with the supervisor's group: the copies of the caller's
 * mounts (its list, by path), then this namespace's own /proc, private
 * mounts and scratch. Then the group is closed: the command never holds it.
 */
static void child_watch_mounts(const struct launch_opts *o, const struct launch_plan *p,
			       int efd)
{
	size_t i;

	if (p->fan_fd < 0)
		return;
	/* the host's mounts are never marked */
	if (!p->new_ns)
		child_fail(efd, LAUNCH_STAGE_SETUP, EINVAL, "monitor.files: no mount namespace");
	child_mark(o, "/", efd);
	for (i = 0; o->fanotify_mounts && o->fanotify_mounts[i]; i++)
		child_mark(o, o->fanotify_mounts[i], efd);
	child_mark(o, "/proc", efd);
	/* the write rules' copies (read-only tree, id-mapping) went back
	 * where the host may have no mount point */
	for (i = 0; i < p->n_rw; i++)
		if (p->rw_fds[i] >= 0)
			child_mark(o, p->rw_sorted[i], efd);
	for (i = 0; o->ro_tree && o->pin_dirs && o->pin_dirs[i]; i++)
		child_mark(o, o->pin_dirs[i], efd);
	for (i = 0; i < o->n_mounts; i++)
		child_mark(o, o->mounts[i].path, efd);
	if (o->scratch_path)
		child_mark(o, o->scratch_path, efd);
	(void)close(RF_CHILD_FD_FAN);
}

/* The pty on the first of fds 0-2 that holds it: this session's
 * controlling terminal, this process group its foreground. */
static void child_ctty(const struct launch_opts *o, int efd)
{
	int fd;

	for (fd = 0; o->tty_fd > 2 && fd <= 2; fd++)
		if (o->tty_std[fd]) {
			if (ioctl(fd, TIOCSCTTY, 0) < 0)
				child_fail(efd, LAUNCH_STAGE_SETUP, errno, "TIOCSCTTY");
			return;
		}
}

/*
 * Never the invoking shell's terminal, so the command cannot push input
 * into it (TIOCSTI), stop or resize it, or signal the caller's process
 * group. With a pty of its own (the caller had a terminal on fds 0-2): a
 * session of its own, the pty its controlling terminal (job control,
 * /dev/tty); the supervisor forwards the rest (child_own_tty, after the
 * fds moved). Without one: a process group of its own, and the caller's
 * controlling terminal, if any, dropped here, before anything confines
 * this process (TIOCNOTTY on the supervisor's /dev/tty: /dev/tty then has
 * nothing behind it, and only a session leader could take a terminal
 * again). Not setsid() there: a new session is a new scheduler autogroup,
 * and moving into it waits for a CPU (1-4 ms a run on a loaded host;
 * docs/benchmarks.md).
 */
static void child_leave_caller_tty(const struct launch_opts *o, const struct launch_plan *p,
				   int efd)
{
	if (o->tty_fd > 2)
		return;
	if (setpgid(0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setpgid");
	if (p->ctty_fd >= 0 && ioctl(p->ctty_fd, TIOCNOTTY) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "TIOCNOTTY");
}

static void child_own_tty(const struct launch_opts *o, int efd)
{
	if (o->tty_fd <= 2)
		return;
	if (setsid() < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setsid");
	child_ctty(o, efd);
}

/*
 * Landlock has no right for chmod, chown, utimes or xattrs: the kernel's
 * own refusal is a read-only mount. A detached copy of each write rule's
 * tree is taken first (its mounts keep their flags), then every mount
 * becomes read-only, then the copies go back over their paths. For a
 * dynamic uid the copies are id-mapped first (dynuser.h): root's files
 * there are the command's, what it makes there is root's on disk. Without
 * ro_tree (BPF-LSM judges the files) only those copies are made.
 */
static void child_ro_tree(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	struct mount_attr idmap = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = RF_CHILD_FD_IDMAP };
	size_t i;

	for (i = 0; i < p->n_rw; i++) {
		if (!o->ro_tree && !p->rw_map[i])
			continue;
		p->rw_fds[i] = (int)syscall(SYS_open_tree, AT_FDCWD, p->rw_sorted[i],
					    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (p->rw_fds[i] < 0 && errno != ENOENT && errno != ENOTDIR)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "open_tree of a write rule");
		if (p->rw_fds[i] >= 0 && p->idmap_fd >= 0 && p->rw_map[i] &&
		    syscall(SYS_mount_setattr, p->rw_fds[i], "", AT_EMPTY_PATH | AT_RECURSIVE,
			    &idmap, sizeof(idmap)) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "id-mapping a write rule");
	}
	if (p->idmap_fd >= 0)
		(void)close(RF_CHILD_FD_IDMAP);
	if (o->ro_tree &&
	    syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount_setattr read-only");
	for (i = 0; i < p->n_rw; i++) {
		if (p->rw_fds[i] < 0)
			continue;
		if (syscall(SYS_move_mount, p->rw_fds[i], "", AT_FDCWD, p->rw_sorted[i],
			    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "move_mount of a write rule");
		(void)close(p->rw_fds[i]);
	}
	/* On the trees just moved back, a parent first; recursive, so the
	 * mounts below one (a nested write rule's, the host's) stay seen. */
	for (i = 0; o->ro_tree && o->pin_dirs && o->pin_dirs[i]; i++)
		if (mount(o->pin_dirs[i], o->pin_dirs[i], NULL, MS_BIND | MS_REC, NULL) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno,
				   "bind a directory on the way to a unix name");
	if (p->rw_cwd && chdir(p->rw_cwd) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "chdir after the read-only tree");
}

/*
 * bpffs and mqueue mounts are covered by an empty read-only tmpfs, not
 * unmounted: an unmount makes the kernel wait for an expedited RCU grace
 * period (namespace_unlock), 0.1 ms on a quiet host and 2-15 ms on a busy
 * one, inside the clone the supervisor waits for; a mount waits for none.
 * What is below stays out of reach all the same: the command holds no
 * capability (no umount2), the process boundary refuses umount2,
 * move_mount, open_tree and new namespaces, and in a user namespace of
 * its own the kernel would lock the cover to what it covers (MNT_LOCKED).
 * ENOENT/ENOTDIR: the path is below a cover made just before.
 */
static void child_hide_mounts(const struct launch_opts *o, int efd)
{
	for (size_t i = 0; o->detach_mounts && o->detach_mounts[i]; i++)
		if (mount("ringfence-hidden", o->detach_mounts[i], "tmpfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555") < 0 &&
		    errno != ENOENT && errno != ENOTDIR)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "cover bpffs");
}

/* Private mounts first: a mount below must not propagate to the host's
 * namespace through shared peer groups. */
static void child_mounts(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	size_t i;

	if (!p->new_ns)
		return;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount private");
	for (i = 0; i < p->n_ro; i++)
		if (mount(NULL, o->ro_mounts[i], NULL,
			  MS_BIND | MS_REMOUNT | MS_RDONLY | p->ro_flags[i], NULL) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "remount cgroup2 read-only");
	child_hide_mounts(o, efd);
	if (o->ro_tree || p->idmap_fd >= 0)
		child_ro_tree(o, p, efd);
	/* The sandbox's own ptys, and no one else's: every devpts mount of
	 * the host is gone (detach_mounts), the caller's terminal with it. */
	if (p->devpts_fd >= 0) {
		if (syscall(SYS_move_mount, RF_CHILD_FD_DEVPTS, "", AT_FDCWD, "/dev/pts",
			    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "move_mount a private /dev/pts");
		(void)close(RF_CHILD_FD_DEVPTS);
	}
	/* The PID namespace's own processes, and no one else's: hidepid
	 * also hides what the command could not ptrace, the init (not
	 * dumpable) included (systemd ProtectProc=ptraceable). Not
	 * "invisible": it exempts the mount's gid (0 unless given), so a
	 * command of gid 0 would see everything. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "hidepid=ptraceable") < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount /proc");
	for (i = 0; i < o->n_mounts; i++) {
		const struct launch_mount *m = &o->mounts[i];

		if (mount(m->fstype, m->path, m->fstype, m->flags, m->data) < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount a private tmpfs");
	}
	/* A scratch below a private /tmp goes over a directory made here. */
	if (o->scratch_path && p->mkdir_scratch && mkdir(o->scratch_path, 0755) < 0 &&
	    errno != EEXIST)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mkdir scratch");
	/* Over the host's directory, seen only in this namespace. */
	if (o->scratch_path && mount("ringfence-scratch", o->scratch_path, "tmpfs",
				     MS_NOSUID | MS_NODEV, p->scratch_opts) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "mount scratch tmpfs");
	/* Off the host's hidden directory, onto the tmpfs now over it. */
	if (p->chdir_scratch && chdir(o->scratch_path) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "chdir into the scratch tmpfs");
	else if (!p->chdir_scratch && p->chdir_mount && chdir(p->chdir_mount) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "chdir into a private tmpfs");
}

static void child_drop_privs(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	int r;

	/* Needs CAP_SETPCAP, like the bounding-set drop: while still root.
	 * (--keep-caps, a test-only mode, keeps them all: the caller made
	 * sure a kernel-side boundary is in force without them.) */
	if (!o->keep_caps && prctl(PR_SET_SECUREBITS, CHILD_SECUREBITS, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "securebits");
	r = o->keep_caps ? 0 : drop_bounding(p->last_cap);
	if (r < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, -r, "capbset_drop");
	if (!o->keep_caps && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "ambient_clear");

	/* Raw syscalls, not the libc wrappers: glibc broadcasts set*id to
	 * every thread it believes exists, and after a raw clone3 its thread
	 * list still describes the parent. Only this task must change. */
	if (syscall(SYS_setgroups, p->n_groups, p->groups) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setgroups");
	if (syscall(SYS_setresgid, o->gid, o->gid, o->gid) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setresgid");
	if (syscall(SYS_setresuid, o->uid, o->uid, o->uid) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "setresuid");
	/* SECBIT_NO_SETUID_FIXUP kept the sets across setresuid: clear now */
	if (!o->keep_caps && syscall(SYS_capset, &hdr, caps) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "no_new_privs");
}

/* Trust but verify: a silently ignored step must not exec. */
static void child_verify(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (getresuid(&ru, &eu, &su) < 0 || ru != o->uid || eu != o->uid || su != o->uid)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify uid");
	if (getresgid(&rg, &eg, &sg) < 0 || rg != o->gid || eg != o->gid || sg != o->gid)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify gid");
	if (!groups_match(p))
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify groups");
	if (!o->keep_caps && !caps_all_clear(p->last_cap))
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify caps");
	if (!o->keep_caps && prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != CHILD_SECUREBITS)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify securebits");
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		child_fail(efd, LAUNCH_STAGE_SETUP, EPERM, "verify no_new_privs");
}

/* Send the boundary's listener to the supervisor, and keep no copy past
 * execve: the command could answer its own refusals with it. Before the
 * allowlist, which may refuse sendmsg. */
static void child_hand_listener(int listener, int efd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char c = 'L';
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	__builtin_memset(u.buf, 0, sizeof(u.buf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	__builtin_memcpy(CMSG_DATA(cm), &listener, sizeof(listener));
	if (sendmsg(RF_CHILD_FD_NOTIFY, &m, MSG_NOSIGNAL) < 0)
		child_fail(efd, LAUNCH_STAGE_SETUP, errno, "hand over the seccomp listener");
	/* Both close at execve (O_CLOEXEC): no close() here, which a syscalls
	 * profile in the listener's filter would hand to a supervisor that
	 * does not hold the listener yet. */
}

/* The kernel-side confinement of this task, last: Landlock, then the
 * seccomp filters (which must still allow execve). */
static void child_confine(const struct launch_opts *o, const struct launch_plan *p, int efd)
{
	int r;

	/* Kept across execve and fork, and never cleared again. */
	if (o->mdwe && (prctl(RF_PR_SET_MDWE, RF_PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) < 0 ||
			prctl(RF_PR_GET_MDWE, 0, 0, 0, 0) != (int)RF_PR_MDWE_REFUSE_EXEC_GAIN))
		child_fail(efd, LAUNCH_STAGE_SETUP, errno ? errno : EPERM, "prctl PR_SET_MDWE");
	if (p->ll_fd >= 0 && o->proc_landlock_access) {
		r = sandbox_landlock__add_path(RF_CHILD_FD_LL, "/proc", o->proc_landlock_access);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock rule on /proc");
	}
	for (size_t i = 0; p->ll_fd >= 0 && i < o->n_ll_later; i++) {
		r = sandbox_landlock__add_later(RF_CHILD_FD_LL, &o->ll_later[i]);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock rule below /proc");
	}
	for (size_t i = 0; p->ll_fd >= 0 && i < o->n_mounts; i++) {
		if (!o->mounts[i].landlock_access)
			continue;
		r = sandbox_landlock__add_path(RF_CHILD_FD_LL, o->mounts[i].path,
					       o->mounts[i].landlock_access);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock rule on a private tmpfs");
	}
	if (p->ll_fd >= 0 && p->devpts_fd >= 0 && o->devpts_landlock_access) {
		r = sandbox_landlock__add_path(RF_CHILD_FD_LL, "/dev/pts", o->devpts_landlock_access);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock rule on /dev/pts");
	}
	if (p->ll_fd >= 0 && o->scratch_path && o->scratch_landlock_access) {
		r = sandbox_landlock__add_path(RF_CHILD_FD_LL, o->scratch_path,
					       o->scratch_landlock_access);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock rule on scratch");
	}
	if (p->ll_fd >= 0) {
		r = sandbox_landlock__restrict(RF_CHILD_FD_LL);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "landlock_restrict_self");
		(void)close(RF_CHILD_FD_LL);
	}
	if (o->seccomp) {
		int listener;

		r = sandbox_seccomp__install_boundary(o->seccomp, &listener);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "seccomp");
		if (listener >= 0)
			child_hand_listener(listener, efd);
		r = sandbox_seccomp__install_allowlist(o->seccomp);
		if (r < 0)
			child_fail(efd, LAUNCH_STAGE_SETUP, -r, "seccomp");
	}
}

/* execvp's rules: a missing candidate moves on, EACCES is remembered,
 * anything else stops the search. */
static _Noreturn void child_exec(const struct launch_opts *o, const struct launch_plan *p,
				 char *const *envp, int efd)
{
	bool eacces = false;

	for (size_t i = 0; i < p->n_cands; i++) {
		int e;

		execve(p->cands[i], o->argv, envp);
		e = errno;
		if (!p->searched)
			child_fail(efd, LAUNCH_STAGE_EXEC, e, "execve");
		switch (e) {
		case EACCES:
			eacces = true;
			break;
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			child_fail(efd, LAUNCH_STAGE_EXEC, e, "execve");
		}
	}
	child_fail(efd, LAUNCH_STAGE_EXEC, eacces ? EACCES : ENOENT, "execve");
}

_Noreturn void launch_child__main(const struct launch_opts *o, const struct launch_plan *p,
				  char *const *envp, int err_r)
{
	child_reset_signals(p->err_w);
	child_leave_caller_tty(o, p, p->err_w);
	child_fds(o, p, err_r);
	child_own_tty(o, RF_CHILD_FD_ERR);
	child_mounts(o, p, RF_CHILD_FD_ERR);
	child_watch_mounts(o, p, RF_CHILD_FD_ERR);
	child_drop_privs(o, p, RF_CHILD_FD_ERR);
	child_verify(o, p, RF_CHILD_FD_ERR);
	child_confine(o, p, RF_CHILD_FD_ERR);
	child_exec(o, p, envp, RF_CHILD_FD_ERR);
}
