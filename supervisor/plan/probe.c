// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Backend probing. Every answer comes from the kernel accepting (or
 * refusing) a real program load and attach, never from a version number:
 * distributions backport and disable features at will.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/audit.h>
#include <linux/landlock.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "backends/boundary_consts.h"
#include "backends/enforcer.h"
#include "backends/runcache.h"
#include "backends/sandbox_limits.h"
#include "audit_nl.h"
#include "bpfutil.h"
#include "probe.h"
#include "privs.h"
#include "registry.h"
#include "probe.skel.h"

static void set_fail(struct rf_backend_probe *p, int err, const char *fmt, const char *what)
{
	p->ok = false;
	p->err = err;
	snprintf(p->detail, sizeof(p->detail), fmt, what, strerror(-err));
}

/* Is "bpf" in the kernel's active LSM list? Mounts securityfs if needed. */
static bool bpf_lsm_active(char *lsms, size_t len)
{
	const char *path = "/sys/kernel/security/lsm";
	char *tok, *save = NULL, copy[256];
	ssize_t n;
	int fd;

	snprintf(lsms, len, "unknown");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT &&
	    !mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, lsms, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	lsms[n] = 0;
	lsms[strcspn(lsms, "\n")] = 0;
	snprintf(copy, sizeof(copy), "%s", lsms);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return true;
	return false;
}

/*
 * A two-instruction LSM program with a bogus hook id: a kernel that
 * refuses the program type says EPERM before it even looks at the hook,
 * and then loading the real object (which parses the whole kernel BTF,
 * tens of milliseconds) would only say the same. Anything else: go on.
 */
static int lsm_type_refused(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	/* not libbpf's bpf_prog_load: no probe programs per run (bpfutil.h) */
	int fd = bpfutil__prog_load(BPF_PROG_TYPE_LSM, BPF_LSM_MAC, 1, insns, 2);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd == -EPERM ? -EPERM : 0;
}

static void probe_lsm(struct rf_caps *caps)
{
	struct rf_backend_probe *p = &caps->bpf_lsm;
	char lsms[256];
	/* This build's set loaded with its LSM object on this boot (bpffs
	 * is per boot) proves lsm/ programs load and attach here: no program
	 * loaded per run. Whether every link is still pinned is the enforcer
	 * step's to check (it reloads the set when one is not): looking at
	 * the 38 links here too cost ~1 ms of guest time a run in the 6.1 VM.
	 * Without this build's set: one map lookup. */
	bool pinned = enforcer__lsm_loaded();

	if (!pinned && lsm_type_refused()) {
		set_fail(p, -EPERM, "%s: %s", "load an lsm/ program");
		return;
	}
	struct probe_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	int err;

	/* The kernel loads and attaches LSM programs even when "bpf" is not
	 * an active LSM; they then never run. Only the active list says, and
	 * it costs no verifier pass: asked first. */
	if (!bpf_lsm_active(lsms, sizeof(lsms))) {
		p->err = -ENOPROTOOPT;
		snprintf(p->detail, sizeof(p->detail), "\"bpf\" is not an active LSM (%s): "
			 "its programs would never run", lsms);
		return;
	}
	if (pinned) {
		p->ok = true;
		snprintf(p->detail, sizeof(p->detail), "this build's lsm/ programs were loaded "
			 "and attached on this boot (its pinned set); active LSMs: %s", lsms);
		enforcer__probe_lsm_pinned(&caps->bpf_lsm_enforcer);
		return;
	}

	skel = probe_bpf__open();
	if (!skel) {
		set_fail(p, -errno, "%s: %s", "open lsm probe object");
		return;
	}
	err = probe_bpf__load(skel);
	if (err) {
		set_fail(p, err, "%s: %s", "load lsm/file_open program");
		goto cleanup;
	}
	/* Attaching a program that returns the earlier verdict changes
	 * nothing, and proves the hook is live. */
	link = bpf_program__attach_lsm(skel->progs.rf_probe_lsm);
	if (!link) {
		set_fail(p, -errno, "%s: %s", "attach lsm/file_open program");
		goto cleanup;
	}
	p->ok = true;
	p->err = 0;
	snprintf(p->detail, sizeof(p->detail), "lsm/file_open loaded and attached; active "
		 "LSMs: %s", lsms);
	/* This build's own LSM programs, for real: what the planner relies on. */
	enforcer__probe_lsm(&caps->bpf_lsm_enforcer);
cleanup:
	bpf_link__destroy(link);
	probe_bpf__destroy(skel);
}

static void probe_landlock(struct rf_caps *caps)
{
	struct rf_backend_probe *p = &caps->landlock;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	int fd;

	if (abi < 0) {
		set_fail(p, -errno, "%s: %s", "landlock_create_ruleset");
		return;
	}
	caps->landlock_abi = (int)abi;
	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0) {
		set_fail(p, -errno, "%s: %s", "landlock ruleset");
		return;
	}
	close(fd);
	p->ok = true;
	snprintf(p->detail, sizeof(p->detail), "landlock ABI %ld: ruleset created", abi);
}

static void probe_seccomp(struct rf_caps *caps)
{
	struct rf_backend_probe *p = &caps->seccomp;

	/* EFAULT for a NULL filter means the filter mode exists. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) == 0 || errno != EFAULT) {
		set_fail(p, -(errno ? errno : EINVAL), "%s: %s", "seccomp filter mode");
		return;
	}
	p->ok = true;
	snprintf(p->detail, sizeof(p->detail), "seccomp filter mode available");
}

/* MFD_NOEXEC_SEAL (Linux 6.3+): a memfd that can never be executed. */
/* The new mount API: a bad fd says EBADF where the syscall exists. */
static bool probe_mount_setattr(void)
{
	return syscall(SYS_mount_setattr, -1, "", 0, NULL, 0) < 0 && errno != ENOSYS;
}

/* PR_GET_MDWE answers (0: not set) from 6.3 on, EINVAL before. */
static bool probe_mdwe(void)
{
	return prctl(RF_PR_GET_MDWE, 0, 0, 0, 0) >= 0;
}

static bool probe_memfd_noexec(void)
{
	int fd = memfd_create("ringfence-probe", MFD_CLOEXEC | RF_MFD_NOEXEC_SEAL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Does this kernel take a type-2 (mobile IPv6) routing header in ancillary
 * data? Only with CONFIG_IPV6_MIP6; then sendmsg can carry one past the
 * seccomp layer. Asked through RFC 2292's sticky IPV6_2292PKTOPTIONS on a
 * socket that never sends: EINVAL without MIP6.
 */
static bool probe_ipv6_rthdr2(void)
{
	union { char buf[CMSG_SPACE(24)]; struct cmsghdr align; } u;
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (s < 0)
		return false;
	memset(&u, 0, sizeof(u));
	u.align.cmsg_level = IPPROTO_IPV6;
	u.align.cmsg_type = 57;                 /* IPV6_RTHDR */
	u.align.cmsg_len = CMSG_LEN(24);
	CMSG_DATA(&u.align)[1] = 2;             /* hdrlen */
	CMSG_DATA(&u.align)[2] = 2;             /* type 2 */
	CMSG_DATA(&u.align)[3] = 1;             /* segments_left */
	CMSG_DATA(&u.align)[8 + 15] = 1;        /* ::1 */
	ok = setsockopt(s, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */, u.buf, sizeof(u.buf)) == 0;
	close(s);
	return ok;
}

/* status.enabled from the AUDIT_GET sent on fd (audit_nl__request), or
 * -errno with *ret_what set. */
static int audit_get_enabled(int fd, const char **ret_what)
{
	struct audit_status st;
	int err = audit_nl__answer(fd, &st, ret_what);

	return err ? err : (int)st.enabled;
}

/* After probe_landlock (the ABI decides whether Landlock logs). */
static void probe_audit(struct rf_caps *caps, int fd, const char *what)
{
	struct rf_backend_probe *p = &caps->audit;
	int en = audit_get_enabled(fd, &what);

	caps->audit_enabled = en < 0 ? -1 : en;
	caps->landlock_audit_log = en > 0 && caps->landlock_abi >= 7;
	if (en < 0) {
		p->err = en;
		snprintf(p->detail, sizeof(p->detail), "%s: %s: the kernel's audit cannot be "
			 "read; Landlock denials are observed from failed syscalls instead",
			 what, strerror(-en));
		return;
	}
	p->ok = true;
	if (!en)
		snprintf(p->detail, sizeof(p->detail), "kernel audit is off: Landlock denials "
			 "are observed from failed syscalls instead (ringfence never turns "
			 "audit on)");
	else if (caps->landlock_abi < 7)
		snprintf(p->detail, sizeof(p->detail), "kernel audit is on%s, but Landlock ABI "
			 "%d logs no denials (7+ does): they are observed from failed syscalls",
			 en == 2 ? " (locked)" : "", caps->landlock_abi);
	else
		snprintf(p->detail, sizeof(p->detail), "kernel audit is on%s: Landlock ABI %d "
			 "logs its denials to it", en == 2 ? " (locked)" : "", caps->landlock_abi);
}

static int read_int_file(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC), v = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && sscanf(buf, "%d", &v) != 1)
		v = -1;
	return v;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define SCRATCH_PREFIX "probe-"
#define SCRATCH_TRIES 8

/*
 * A scratch cgroup named probe-<pid>-<start time>-<random>: the pid and
 * its start time tell gc whether its maker still runs (a reused pid has
 * another start time), the random part keeps a dead process's leftover
 * from ever being taken for ours. mkdir is the O_EXCL: EEXIST, next name.
 */
static int create_scratch(int parent_fd, const char *mount, char *name, size_t len,
			  struct rf_cgroup *cg)
{
	uint64_t start = registry__proc_start(getpid());
	char dir[PATH_MAX];
	uint32_t r;
	int i, err = -EEXIST;

	snprintf(dir, sizeof(dir), "%s/%s", mount, RF_CGROUP_PARENT);

	for (i = 0; i < SCRATCH_TRIES && err == -EEXIST; i++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -errno;
		snprintf(name, len, SCRATCH_PREFIX "%d-%llu-%08x", (int)getpid(),
			 (unsigned long long)start, r);
		err = cgroup__create_under(parent_fd, dir, name, cg);
	}
	return err;
}

bool probe__is_scratch(const char *name)
{
	return !strncmp(name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX));
}

bool probe__scratch_live(const char *name)
{
	unsigned long long start = 0;
	int pid = 0;

	/* Older builds named it probe-<pid>: live while that pid is. */
	if (sscanf(name, SCRATCH_PREFIX "%d-%llu-", &pid, &start) < 1 || pid <= 0)
		return false;
	if (!start)
		return kill(pid, 0) == 0 || errno == EPERM;
	return registry__proc_start(pid) == start;
}

static void probe_all_but_audit(struct rf_caps *caps, unsigned int flags);

/* mkdir's EAGAIN is the kernel's cgroup.max.descendants/max.depth */
#define ROOM_REFUSED "create a sandbox cgroup (refused by the kernel: " \
		     "cgroup.max.descendants or cgroup.max.depth of the ringfence cgroup reached)"

/* A cgroup's limit file (key NULL: "max" or a number) or a field of its
 * cgroup.stat: the value, LLONG_MAX for "max", -1 if unreadable (a
 * hierarchy's root has no limit files). */
static long long cg_value(int dfd, const char *file, const char *key)
{
	char buf[1024], *p;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!key)
		return !strncmp(buf, "max", 3) ? LLONG_MAX : strtoll(buf, NULL, 10);
	for (p = buf; (p = strstr(p, key)); p += strlen(key))
		if ((p == buf || p[-1] == '\n') && p[strlen(key)] == ' ')
			return strtoll(p + strlen(key) + 1, NULL, 10);
	return -1;
}

/* Would the kernel make a child of the ringfence cgroup? Its cgroup_mkdir
 * checks each ancestor: nr_descendants < max.descendants, and max.depth
 * above the new cgroup's depth below it; here the ringfence cgroup and
 * the mount's root (limits only where it is not the hierarchy's root,
 * e.g. in a cgroup namespace). 0: yes; -EAGAIN: no, as mkdir would say;
 * 1: cannot tell (a file unreadable), so try a mkdir. */
static int cgroup_room(int parent_fd, const char *mount)
{
	int fds[2] = { parent_fd, open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC) };
	int lvl, r = fds[1] < 0 ? 1 : 0;

	for (lvl = 0; lvl < 2 && !r; lvl++) {
		long long most = cg_value(fds[lvl], "cgroup.max.descendants", NULL);
		long long depth = cg_value(fds[lvl], "cgroup.max.depth", NULL);
		long long nr = 0;

		if (lvl == 1 && most < 0 && depth < 0)
			break;          /* the root: no limits */
		if (most != LLONG_MAX)
			nr = cg_value(fds[lvl], "cgroup.stat", "nr_descendants");
		if (most < 0 || depth < 0 || nr < 0)
			r = 1;
		else if (nr >= most || depth <= lvl)
			r = -EAGAIN;
	}
	if (fds[1] >= 0)
		close(fds[1]);
	return r;
}

static void cgroup_v2_ok(struct rf_caps *caps)
{
	caps->cgroup_v2.ok = true;
	snprintf(caps->cgroup_v2.detail, sizeof(caps->cgroup_v2.detail),
		 "cgroup2 at %s", caps->cgroup_mount);
	sandbox_limits__probe(caps);
}

/*
 * The kernel's answer to AUDIT_GET, kept for the next run (runcache.h:
 * this build, this boot): "off" with the CLOCK_BOOTTIME second it was
 * given, or "on". AUDIT_GET costs a kernel thread per question (kthreadd
 * makes it and the send waits for that: 0.08 ms quiet, 4 ms median with
 * both CPUs busy here), and the answer only decides how Landlock's
 * denials are observed, never what is denied. Only "off" is reused: taken
 * while audit is in fact on, it observes by the syscall tracepoints, which
 * see every denial too (what audit off does); an "on" taken while audit is
 * off would read a log Landlock never writes, so it is asked every time.
 */
#define AUDIT_CACHE "audit"

static long boottime_s(void)
{
	struct timespec ts;

	return clock_gettime(CLOCK_BOOTTIME, &ts) ? -1 : (long)ts.tv_sec;
}

/* The age in seconds of a kept "off", or -1 (none, "on", too old). */
static int audit_off_age(void)
{
	char buf[32] = "";
	long n = runcache__read(AUDIT_CACHE, buf, sizeof(buf) - 1), at, now = boottime_s();
	char *end;

	if (n <= 0 || strncmp(buf, "off ", 4) || now < 0)
		return -1;
	at = strtol(buf + 4, &end, 10);
	if (end == buf + 4 || *end != '\n' || at > now || now - at > RF_PROBE_AUDIT_REUSE_S)
		return -1;
	return (int)(now - at);
}

/* Keep the answer just asked: "off" always (its time renewed), "on" only
 * over a kept "off" (no write per run where audit stays on). */
static void audit_keep(const struct rf_caps *caps)
{
	char buf[32] = "";
	long now = boottime_s();
	int n;

	if (!caps->audit.ok || now < 0)
		return;
	if (caps->audit_enabled == 0) {
		n = snprintf(buf, sizeof(buf), "off %ld\n", now);
		runcache__write(AUDIT_CACHE, buf, (size_t)n);
	} else if (runcache__read(AUDIT_CACHE, buf, sizeof(buf) - 1) > 0 &&
		   !strncmp(buf, "off ", 4)) {
		runcache__write(AUDIT_CACHE, "on\n", 3);
	}
}

/* A kept "off" (RF_PROBE_AUDIT_REUSE_OFF): the caps as probe_audit sets
 * them for an answer "off". false: none to reuse. */
static bool audit_reuse_off(struct rf_caps *caps)
{
	int age = audit_off_age();

	if (age < 0)
		return false;
	caps->audit.ok = true;
	caps->audit_enabled = 0;
	caps->audit_age_s = age;
	caps->landlock_audit_log = false;
	snprintf(caps->audit.detail, sizeof(caps->audit.detail), "kernel audit is off (asked %d s "
		 "ago: an answer \"off\" is reused for %d s): Landlock denials are observed from "
		 "failed syscalls instead (ringfence never turns audit on)", age,
		 RF_PROBE_AUDIT_REUSE_S);
	return true;
}

void probe__run(struct rf_caps *caps, unsigned int flags)
{
	const char *what = NULL;
	int audit_fd;
	double t;

	memset(caps, 0, sizeof(*caps));
	caps->audit_age_s = -1;
	if (!(flags & RF_PROBE_AUDIT)) {
		probe_all_but_audit(caps, flags);
		caps->audit_enabled = -1;
		snprintf(caps->audit.detail, sizeof(caps->audit.detail),
			 "not probed: no class of this policy could use Landlock's log");
		return;
	}
	t = now_ms();
	if ((flags & RF_PROBE_AUDIT_REUSE_OFF) && audit_reuse_off(caps)) {
		caps->audit.ms = now_ms() - t;
		probe_all_but_audit(caps, flags);
		return;
	}
	/* Asked first, answered last: the kernel answers AUDIT_GET from a
	 * kernel thread it starts for it (the send waits until kthreadd has
	 * made it: 2-4 ms with both CPUs busy), which answers while the
	 * rest is probed. */
	audit_fd = audit_nl__request(&what);
	probe_all_but_audit(caps, flags);
	t = now_ms();
	probe_audit(caps, audit_fd, what);
	caps->audit.ms = now_ms() - t;
	audit_keep(caps);
}

static void probe_all_but_audit(struct rf_caps *caps, unsigned int flags)
{
	double t;
	struct utsname u;
	char name[64], why[sizeof(caps->cgroup_v2.detail) + 32];
	struct rf_cgroup cg = { .dir_fd = -1 };
	int err, parent_fd = -1;
	bool pinned_tried = false;

	if (uname(&u) == 0)
		snprintf(caps->kernel_release, sizeof(caps->kernel_release), "%s", u.release);
	caps->unprivileged_bpf_disabled =
		read_int_file("/proc/sys/kernel/unprivileged_bpf_disabled");

	t = now_ms();
	if (flags & RF_PROBE_LSM)
		probe_lsm(caps);
	else
		snprintf(caps->bpf_lsm.detail, sizeof(caps->bpf_lsm.detail),
			 "not probed: no class of this policy could use it");
	caps->bpf_lsm.ms = now_ms() - t;
	t = now_ms();
	probe_landlock(caps);
	caps->landlock.ms = now_ms() - t;
	t = now_ms();
	probe_seccomp(caps);
	caps->memfd_noexec_seal = probe_memfd_noexec();
	caps->mount_setattr = probe_mount_setattr();
	caps->mdwe = probe_mdwe();
	caps->ipv6_rthdr2 = probe_ipv6_rthdr2();
	caps->seccomp.ms = now_ms() - t;
	t = now_ms();
	enforcer__probe_observe(&caps->observe);
	caps->unix_bytes = enforcer__kernel_unix_bytes();
	caps->observe.ms = now_ms() - t;
	t = now_ms();

	err = cgroup__find_v2_mount(caps->cgroup_mount, sizeof(caps->cgroup_mount));
	if (err) {
		set_fail(&caps->cgroup_v2, err, "%s: %s", "find a cgroup2 mount");
		goto no_cgroup;
	}
	parent_fd = cgroup__open_parent(caps->cgroup_mount);
	if (parent_fd < 0) {
		set_fail(&caps->cgroup_v2, parent_fd, "%s: %s", "create the ringfence parent cgroup");
		goto no_cgroup;
	}
	/* This build's programs attached to it: no scratch cgroup (its mkdir
	 * also waits for the kernel's cgroup_mutex while an ended sandbox's
	 * cgroup is torn down: 2-3 ms in a third of back-to-back runs here).
	 * Whether one more cgroup fits is read from the limits instead, and
	 * the sandbox's own mkdir (step cgroup) is the last word. */
	if (!(flags & RF_PROBE_FRESH) && privs__have(RF_PRIVS_SUPERVISOR, why, sizeof(why))) {
		err = cgroup_room(parent_fd, caps->cgroup_mount);
		if (err < 0) {
			set_fail(&caps->cgroup_v2, err, "%s: %s", ROOM_REFUSED);
			goto no_cgroup;
		}
		pinned_tried = !err;
		caps->cgroup_v2.ms = now_ms() - t;
		t = now_ms();
		if (pinned_tried && !enforcer__probe_pinned(parent_fd, &caps->sock_addr,
							    &caps->unix_sock_addr)) {
			caps->sock_addr.ms = now_ms() - t;
			cgroup_v2_ok(caps);
			close(parent_fd);
			return;
		}
		t = now_ms() - caps->cgroup_v2.ms;  /* the scratch's time adds to it */
	}
	err = create_scratch(parent_fd, caps->cgroup_mount, name, sizeof(name), &cg);
	if (err) {
		/* mkdir's EAGAIN is the kernel's cgroup.max.descendants/max.depth */
		set_fail(&caps->cgroup_v2, err, "%s: %s",
			 err == -EAGAIN ? ROOM_REFUSED : "create a sandbox cgroup");
		goto no_cgroup;
	}
	cgroup_v2_ok(caps);

	/* The real enforcement programs, loaded and attached to a scratch
	 * cgroup, then thrown away. */
	caps->cgroup_v2.ms = now_ms() - t;
	t = now_ms();
	if (!(flags & RF_PROBE_FRESH) && !pinned_tried &&
	    !enforcer__probe_pinned(parent_fd, &caps->sock_addr, &caps->unix_sock_addr)) {
		caps->sock_addr.ms = now_ms() - t;
		cgroup__remove_unused(parent_fd, &cg);
		close(parent_fd);
		return;
	}
	enforcer__probe(cg.dir_fd, &caps->sock_addr, &caps->unix_sock_addr);
	caps->sock_addr.ms = now_ms() - t;
	t = now_ms();
	cgroup__remove_unused(parent_fd, &cg);
	caps->cgroup_v2.ms += now_ms() - t;
	close(parent_fd);
	return;

no_cgroup:
	if (parent_fd >= 0)
		close(parent_fd);
	/* the cgroup step's own reason, not a guessed ENOENT; a user who is
	 * not root is told that first */
	if (!privs__have(RF_PRIVS_SUPERVISOR, why, sizeof(why)) &&
	    (caps->cgroup_v2.err == -EPERM || caps->cgroup_v2.err == -EACCES)) {
		snprintf(caps->cgroup_v2.detail, sizeof(caps->cgroup_v2.detail), "%s", why);
		snprintf(why, sizeof(why), "%s", caps->cgroup_v2.detail);
	} else {
		snprintf(why, sizeof(why), "no cgroup2 to attach to: %s", caps->cgroup_v2.detail);
	}
	set_fail(&caps->sock_addr, caps->cgroup_v2.err, "%s%.0s", why);
	set_fail(&caps->unix_sock_addr, caps->cgroup_v2.err, "%s%.0s", why);
}
