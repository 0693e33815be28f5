/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* seccomp filters (libseccomp): the process boundary and the syscalls policy. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "boundary_consts.h"
#include "sandbox_seccomp.h"

/* open_tree_attr (6.15) is newer than libseccomp 2.5.4's table and these
 * kernel headers: 467 on x86-64 and on the unified (asm-generic) table. */
#if defined(__NR_open_tree_attr)
#define RF_NR_OPEN_TREE_ATTR __NR_open_tree_attr
#elif defined(__x86_64__) || defined(__aarch64__)
#define RF_NR_OPEN_TREE_ATTR 467
#endif

/* clone's flags are the first argument, except on s390 (newsp, flags, ...). */
#if defined(__s390__) || defined(__s390x__)
#define RF_CLONE_FLAGS_ARG 1
#else
#define RF_CLONE_FLAGS_ARG 0
#endif

#define RF_LOW32 0xffffffffULL

static const unsigned long long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

/* Refused outright with EPERM. */
static const char *const boundary_eperm[] = {
	"bpf", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"mount", "umount2", "move_mount", "fsopen", "fsconfig", "fsmount",
	"fspick", "open_tree", "mount_setattr", "pivot_root", "setns",
	"keyctl", "add_key", "request_key", "perf_event_open",
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "userfaultfd",
	/* what io_uring submits never passes through seccomp */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
};

struct rule_count {
	uint64_t nrs[RF_SECCOMP_NR_WORDS]; /* the numbers with a rule */
	unsigned syscalls;  /* distinct syscalls with a rule */
	unsigned rules;     /* seccomp_rule_add calls */
	bool added_execve;  /* allowlist: execve was not listed */
	bool clone3_enosys; /* allowlist: clone3 was not listed */
	uint32_t refuse;    /* boundary: ERRNO(EPERM), or NOTIFY (the supervisor answers) */
	const struct rf_seccomp_sink *sink; /* each rule told to it too (an OCI profile) */
};

/* A syscall this architecture lacks: its number (< 0) is a libseccomp
 * pseudo number or __NR_SCMP_ERROR. */
int sandbox_seccomp__resolve(const char *name)
{
	int nr;

	if (!name)
		return -ENOENT;
	nr = seccomp_syscall_resolve_name(name);
	return nr < 0 ? -ENOENT : nr;
}

static void nr_set(uint64_t *set, int nr)
{
	if (nr >= 0 && nr < RF_SECCOMP_NR_MAX)
		set[nr / 64] |= 1ULL << (nr % 64);
}

bool sandbox_seccomp__nr_in(const uint64_t *set, int nr)
{
	return nr >= 0 && nr < RF_SECCOMP_NR_MAX && (set[nr / 64] >> (nr % 64)) & 1;
}

/* A rule as the sink sees it: the syscall by its native name, the action
 * as the kernel's SECCOMP_RET_* value, the comparisons as libseccomp's. */
static int sink_rule(const struct rf_seccomp_sink *sink, uint32_t action, int nr,
		     unsigned n_cmp, const struct scmp_arg_cmp *cmp, struct rf_error *err)
{
	struct rf_seccomp_cmp c[RF_SECCOMP_SINK_CMP_MAX];
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	unsigned i;
	int r;

	if (!name || n_cmp > RF_SECCOMP_SINK_CMP_MAX) {
		free(name);
		return rf_error_set(err, -EINVAL, "seccomp", "syscall %d: no name on this "
				    "architecture, or %u comparisons", nr, n_cmp);
	}
	for (i = 0; i < n_cmp; i++)
		c[i] = (struct rf_seccomp_cmp){ cmp[i].arg, (int)cmp[i].op, cmp[i].datum_a,
						cmp[i].datum_b };
	r = sink->rule(sink->arg, name, action, c, n_cmp);
	free(name);
	return r < 0 ? rf_error_set(err, r, "seccomp", "recording a rule: %s", strerror(-r)) : 0;
}

static int add_rule(scmp_filter_ctx ctx, struct rule_count *c, uint32_t action, int nr,
		    const char *name, unsigned n_cmp, const struct scmp_arg_cmp *cmp,
		    struct rf_error *err)
{
	int r;

	nr_set(c->nrs, nr);
	r = seccomp_rule_add_exact_array(ctx, action, nr, n_cmp, cmp);
	if (r < 0)
		return rf_error_set(err, r, "seccomp", "adding the rule for %s: %s", name,
				    strerror(-r));
	return c->sink ? sink_rule(c->sink, action, nr, n_cmp, cmp, err) : 0;
}

/* n EPERM rules on one syscall, one comparison each (rules on one syscall
 * with one action are OR'ed). Nothing when this architecture lacks it. */
static int add_cmp_rules(scmp_filter_ctx ctx, const char *name,
			 const struct scmp_arg_cmp *cmp, size_t n,
			 struct rule_count *c, struct rf_error *err)
{
	int nr = seccomp_syscall_resolve_name(name);
	size_t i;
	int r;

	if (nr < 0)
		return 0;
	for (i = 0; i < n; i++) {
		r = add_rule(ctx, c, c->refuse, nr, name, 1, &cmp[i], err);
		if (r < 0)
			return r;
		c->rules++;
	}
	c->syscalls++;
	return 0;
}

/* The kernel takes ioctl's cmd as an unsigned int and drops the upper 32
 * bits of the register. A 64-bit compare against 0x5412 would let
 * 0x1_00005412 through and still reach TIOCSTI, so compare the low 32 bits
 * only: (arg & 0xffffffff) == cmd. */
static int add_ioctl_rules(scmp_filter_ctx ctx, struct rule_count *c, struct rf_error *err)
{
	const struct scmp_arg_cmp cmp[] = {
		SCMP_A1_64(SCMP_CMP_MASKED_EQ, RF_LOW32, TIOCSTI),
		SCMP_A1_64(SCMP_CMP_MASKED_EQ, RF_LOW32, TIOCLINUX),
	};

	return add_cmp_rules(ctx, "ioctl", cmp, sizeof(cmp) / sizeof(cmp[0]), c, err);
}

/* One rule per namespace bit: (flags & bit) == bit. libseccomp has no
 * "masked not-equal", and rules on one syscall with one action are OR'ed.
 * For clone, CLONE_NEWTIME (0x80) lies in the exit-signal byte: that only
 * refuses exit signals >= 128, which are no valid signal anyway. */
static int add_ns_flag_rules(scmp_filter_ctx ctx, const char *name, unsigned arg,
			     struct rule_count *c, struct rf_error *err)
{
	struct scmp_arg_cmp cmp[sizeof(ns_flags) / sizeof(ns_flags[0])];
	size_t i;

	for (i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		cmp[i] = SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ,
							  ns_flags[i], ns_flags[i]);
	return add_cmp_rules(ctx, name, cmp, i, c, err);
}

/*
 * personality: allow only the query 0xffffffff and PER_LINUX (0); the
 * kernel reads the low 32 bits. libseccomp refuses two comparisons of one
 * argument in a rule, and "low32 != 0 && low32 != ~0" is no single
 * comparison, so cover that set with masked compares: a value that is
 * neither all zeros nor all ones has, cyclically, a set bit i followed by a
 * clear bit i+1. 32 rules (bit i set, bit i+1 clear); none matches 0 or ~0.
 */
static int add_personality_rules(scmp_filter_ctx ctx, struct rule_count *c,
				 struct rf_error *err)
{
	struct scmp_arg_cmp cmp[32];
	unsigned i;

	for (i = 0; i < 32; i++) {
		unsigned long long set = 1ULL << i, clear = 1ULL << ((i + 1) % 32);

		cmp[i] = SCMP_A0_64(SCMP_CMP_MASKED_EQ, set | clear, set);
	}
	return add_cmp_rules(ctx, "personality", cmp, 32, c, err);
}

/* ---- Landlock's holes (h13b): what Landlock has no right for ---- */

/* Newer than libseccomp 2.5.4's table: the x86-64 and asm-generic numbers.
 * op: how the supervisor names a refusal its listener is told of. */
static const struct { const char *name; int nr; uint16_t op; } meta_eperm[] = {
	{ "chmod", -1, RF_OP_CHMOD }, { "fchmod", -1, RF_OP_CHMOD },
	{ "fchmodat", -1, RF_OP_CHMOD }, { "fchmodat2", 452, RF_OP_CHMOD },
	{ "chown", -1, RF_OP_CHOWN }, { "fchown", -1, RF_OP_CHOWN },
	{ "lchown", -1, RF_OP_CHOWN }, { "fchownat", -1, RF_OP_CHOWN },
	{ "utime", -1, RF_OP_UTIMES }, { "utimes", -1, RF_OP_UTIMES },
	{ "futimesat", -1, RF_OP_UTIMES }, { "utimensat", -1, RF_OP_UTIMES },
	{ "setxattr", -1, RF_OP_SETXATTR }, { "lsetxattr", -1, RF_OP_SETXATTR },
	{ "fsetxattr", -1, RF_OP_SETXATTR }, { "setxattrat", 463, RF_OP_SETXATTR },
	{ "removexattr", -1, RF_OP_REMOVEXATTR }, { "lremovexattr", -1, RF_OP_REMOVEXATTR },
	{ "fremovexattr", -1, RF_OP_REMOVEXATTR }, { "removexattrat", 466, RF_OP_REMOVEXATTR },
};

/* A syscall's number here: libseccomp's, else newer (> 0) than its table
 * (x86-64 and asm-generic share those numbers); -1 where this
 * architecture lacks it. */
static int nr_of(const char *name, int newer)
{
	int nr = seccomp_syscall_resolve_name(name);

#if defined(__x86_64__) || defined(__aarch64__)
	if (nr < 0 && newer > 0)
		nr = newer;
#endif
	return nr < 0 ? -1 : nr;
}

/* meta_eperm[i]'s number here, or -1 where this architecture lacks it. */
static int meta_nr(size_t i)
{
	return nr_of(meta_eperm[i].name, meta_eperm[i].nr);
}

/* ioctls that change an inode through any fd, a read-only one included
 * (inode flags, fsxattr, the generation, fs-verity). Compared on the low
 * 32 bits, like add_ioctl_rules. */
static const unsigned long long inode_ioctls[] = {
	0x40086602 /* FS_IOC_SETFLAGS */, 0x40046602 /* FS_IOC32_SETFLAGS */,
	0x401c5820 /* FS_IOC_FSSETXATTR */, 0x40087602 /* FS_IOC_SETVERSION */,
	0x40047602 /* FS_IOC32_SETVERSION */, 0x40806685 /* FS_IOC_ENABLE_VERITY */,
	0x800c6613 /* FS_IOC_SET_ENCRYPTION_POLICY */,
};

static int add_meta_rules(scmp_filter_ctx ctx, struct rule_count *c, struct rf_error *err)
{
	size_t i;
	int nr, r;

	for (i = 0; i < sizeof(meta_eperm) / sizeof(meta_eperm[0]); i++) {
		nr = meta_nr(i);
		if (nr < 0)
			continue;  /* not on this architecture */
		r = add_rule(ctx, c, c->refuse, nr, meta_eperm[i].name, 0, NULL, err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
	}
	return 0;
}

static int add_hole_rules(scmp_filter_ctx ctx, unsigned int holes, struct rule_count *c,
			  struct rf_error *err)
{
	struct scmp_arg_cmp cmp[sizeof(inode_ioctls) / sizeof(inode_ioctls[0])];
	size_t i;
	int r = 0;

	if (holes & RF_SECCOMP_HOLE_FS_META)
		r = add_meta_rules(ctx, c, err);
	if (r >= 0 && (holes & RF_SECCOMP_HOLE_FS_IOCTL)) {
		for (i = 0; i < sizeof(cmp) / sizeof(cmp[0]); i++)
			cmp[i] = SCMP_A1_64(SCMP_CMP_MASKED_EQ, RF_LOW32, inode_ioctls[i]);
		r = add_cmp_rules(ctx, "ioctl", cmp, i, c, err);
	}
	if (r >= 0 && (holes & RF_SECCOMP_HOLE_MEMFD)) {
		/* Only memfds that can never become executable. */
		cmp[0] = SCMP_A1_64(SCMP_CMP_MASKED_EQ, 0x0008U /* MFD_NOEXEC_SEAL */, 0);
		r = add_cmp_rules(ctx, "memfd_create", cmp, 1, c, err);
	}
	return r;
}

/* ---- end of Landlock's holes ---- */

/* ---- issue 13: socket options that redirect traffic, and other
 * processes' scheduling and limits (closed here where no BPF-LSM program
 * judges them) ---- */

/* One refusing rule of n comparisons (AND) on one syscall. */
static int add_and_rule(scmp_filter_ctx ctx, const char *name, const struct scmp_arg_cmp *cmp,
			unsigned n, struct rule_count *c, struct rf_error *err)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (nr < 0)
		return 0;
	r = add_rule(ctx, c, c->refuse, nr, name, n, cmp, err);
	if (r < 0)
		return r;
	c->rules++;
	return 0;
}

/*
 * setsockopt(level, optname): the kernel reads both as int, so compare the
 * low 32 bits. A routing header (IPV6_RTHDR, or RFC 2292's sticky
 * IPV6_2292PKTOPTIONS) or an IPv4 source route (IP_OPTIONS) sends the
 * packet to an address the connect/sendmsg hooks never saw. Ancillary data
 * on sendmsg is out of seccomp's reach (a gap of this backend).
 */
static int add_net_opt_rules(scmp_filter_ctx ctx, struct rule_count *c, struct rf_error *err)
{
	static const struct { int level, opt; } opts[] = {
		{ IPPROTO_IPV6, 57 /* IPV6_RTHDR */ },
		{ IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */ },
		{ IPPROTO_IP, 4 /* IP_OPTIONS */ },
	};
	size_t i;
	int r;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		const struct scmp_arg_cmp cmp[] = {
			SCMP_A1_64(SCMP_CMP_MASKED_EQ, RF_LOW32, opts[i].level),
			SCMP_A2_64(SCMP_CMP_MASKED_EQ, RF_LOW32, opts[i].opt),
		};

		r = add_and_rule(ctx, "setsockopt", cmp, 2, c, err);
		if (r < 0)
			return r;
	}
	c->syscalls++;
	return 0;
}

/*
 * A pid (or who) other than 0, the caller, may name a process outside the
 * sandbox: seccomp cannot tell, so only 0 passes. A 64-bit "!= 0" refuses
 * every register whose low 32 bits name another process, and more.
 * PRIO_USER and IOPRIO_WHO_USER reach every process of the uid.
 */
static int add_task_rules(scmp_filter_ctx ctx, struct rule_count *c, struct rf_error *err)
{
	static const char *const by_pid[] = {
		"sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity",
	};
	const struct scmp_arg_cmp who = SCMP_A1_64(SCMP_CMP_NE, 0, 0);
	const struct scmp_arg_cmp prio_user = SCMP_A0_64(SCMP_CMP_MASKED_EQ, RF_LOW32, 2);
	const struct scmp_arg_cmp ioprio_user = SCMP_A0_64(SCMP_CMP_MASKED_EQ, RF_LOW32, 3);
	const struct scmp_arg_cmp prlimit_set[] = {
		SCMP_A0_64(SCMP_CMP_NE, 0, 0), SCMP_A2_64(SCMP_CMP_NE, 0, 0),
	};
	const struct scmp_arg_cmp pid = SCMP_A0_64(SCMP_CMP_NE, 0, 0);
	size_t i;
	int r;

	r = add_and_rule(ctx, "setpriority", &who, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "setpriority", &prio_user, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "ioprio_set", &who, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "ioprio_set", &ioprio_user, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "prlimit64", prlimit_set, 2, c, err);
	for (i = 0; !r && i < sizeof(by_pid) / sizeof(by_pid[0]); i++)
		r = add_and_rule(ctx, by_pid[i], &pid, 1, c, err);
	c->syscalls += 3 + sizeof(by_pid) / sizeof(by_pid[0]);
	return r;
}

/* W^X as systemd's MemoryDenyWriteExecute= does it: seccomp cannot tell
 * whether a mapping was executable before, so mprotect never adds
 * PROT_EXEC; the ELF loader maps its segments with mmap. */
static int add_wx_rules(scmp_filter_ctx ctx, struct rule_count *c, struct rf_error *err)
{
	const uint64_t wx = PROT_WRITE | PROT_EXEC;
	const struct scmp_arg_cmp mmap_wx = SCMP_A2_64(SCMP_CMP_MASKED_EQ, wx, wx);
	const struct scmp_arg_cmp prot_x = SCMP_A2_64(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC);
	const struct scmp_arg_cmp shm_x = SCMP_A2_64(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC);
	int r;

	r = add_and_rule(ctx, "mmap", &mmap_wx, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "mprotect", &prot_x, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "pkey_mprotect", &prot_x, 1, c, err);
	if (!r)
		r = add_and_rule(ctx, "shmat", &shm_x, 1, c, err);
	return r;
}

/*
 * Setuid and setgid files, as systemd's RestrictSUIDSGID= refuses them: a
 * file the command marks so in a write area is root's on the host (uid 0,
 * or the dynamic uid id-mapped to 0), and any host user who runs it later
 * would run it as root. Refused on every backend: S_ISUID or S_ISGID in
 * the mode of chmod, creat, mkdir, mknod, or open with O_CREAT or
 * O_TMPFILE (arguments 1-based). openat2's mode is in memory seccomp
 * cannot read: ENOSYS, so callers fall back to openat.
 */
static const struct suid_call {
	const char *name;
	int nr;                 /* where libseccomp 2.5.4 lacks it (x86-64, asm-generic) */
	uint16_t op;
	uint8_t mode_arg, flags_arg;
} suid_calls[] = {
	{ "chmod", -1, RF_OP_CHMOD, 2, 0 },     { "fchmod", -1, RF_OP_CHMOD, 2, 0 },
	{ "fchmodat", -1, RF_OP_CHMOD, 3, 0 },  { "fchmodat2", 452, RF_OP_CHMOD, 3, 0 },
	{ "creat", -1, RF_OP_CREATE, 2, 0 },    { "open", -1, RF_OP_CREATE, 3, 2 },
	{ "openat", -1, RF_OP_CREATE, 4, 3 },   { "mkdir", -1, RF_OP_MKDIR, 2, 0 },
	{ "mkdirat", -1, RF_OP_MKDIR, 3, 0 },   { "mknod", -1, RF_OP_MKNOD, 2, 0 },
	{ "mknodat", -1, RF_OP_MKNOD, 3, 0 },
};


static int add_suid_rule(scmp_filter_ctx ctx, const struct suid_call *s, int nr,
			 uint64_t bit, uint64_t create, struct rule_count *c,
			 struct rf_error *err)
{
	struct scmp_arg_cmp cmp[2];
	unsigned n = 0;
	int r;

	cmp[n++] = (struct scmp_arg_cmp){ .arg = s->mode_arg - 1u, .op = SCMP_CMP_MASKED_EQ,
					  .datum_a = bit, .datum_b = bit };
	if (s->flags_arg)
		cmp[n++] = (struct scmp_arg_cmp){ .arg = s->flags_arg - 1u,
						  .op = SCMP_CMP_MASKED_EQ,
						  .datum_a = create, .datum_b = create };
	r = add_rule(ctx, c, c->refuse, nr, s->name, n, cmp, err);
	if (r < 0)
		return r;
	c->rules++;
	return 0;
}

static int add_suid_rules(scmp_filter_ctx ctx, unsigned int holes, struct rule_count *c,
			  struct rf_error *err)
{
	static const uint64_t bits[] = { S_ISUID, S_ISGID };
	/* O_TMPFILE holds O_DIRECTORY: its own bit alone tells it */
	static const uint64_t creates[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY };
	size_t i, b, k;
	int nr, r;

	for (i = 0; i < sizeof(suid_calls) / sizeof(suid_calls[0]); i++) {
		const struct suid_call *s = &suid_calls[i];

		nr = nr_of(s->name, s->nr);
		/* not on this architecture; or every chmod refused already */
		if (nr < 0 || (s->op == RF_OP_CHMOD && (holes & RF_SECCOMP_HOLE_FS_META)))
			continue;
		for (b = 0; b < 2; b++)
			for (k = 0; k < (s->flags_arg ? 2u : 1u); k++) {
				r = add_suid_rule(ctx, s, nr, bits[b], creates[k], c, err);
				if (r < 0)
					return r;
			}
		c->syscalls++;
	}
	nr = seccomp_syscall_resolve_name("openat2");
#ifdef __x86_64__
	if (nr < 0)
		nr = 437;
#endif
	if (nr < 0)
		return 0;
	r = add_rule(ctx, c, SCMP_ACT_ERRNO(ENOSYS), nr, "openat2", 0, NULL, err);
	if (r < 0)
		return r;
	c->syscalls++;
	c->rules++;
	return 0;
}

/* A refusal of the setuid rules, named as the call it was. */
static bool suid_fields(int nr, const uint64_t args[6], struct rf_event *ev)
{
	size_t i;

	for (i = 0; i < sizeof(suid_calls) / sizeof(suid_calls[0]); i++) {
		const struct suid_call *s = &suid_calls[i];

		if (nr_of(s->name, s->nr) != nr || !(args[s->mode_arg - 1] & (S_ISUID | S_ISGID)))
			continue;
		ev->op = s->op;
		ev->class = RF_CLASS_FILE;
		ev->arg = (uint32_t)args[s->mode_arg - 1];
		return true;
	}
	return false;
}

static int add_net_task_rules(scmp_filter_ctx ctx, unsigned int holes, struct rule_count *c,
			      struct rf_error *err)
{
	int r = 0;

	if (holes & RF_SECCOMP_HOLE_NET_OPTS)
		r = add_net_opt_rules(ctx, c, err);
	if (!r && (holes & RF_SECCOMP_HOLE_TASKS))
		r = add_task_rules(ctx, c, err);
	if (!r && (holes & RF_SECCOMP_HOLE_WX))
		r = add_wx_rules(ctx, c, err);
	return r;
}

/* The hole rules' syscalls other than meta_eperm's, as the supervisor
 * names a refusal: { name, op, class, arg, target } (arg and target: the
 * 1-based syscall argument kept in the record, 0 none). */
static const struct hole_call {
	const char *name;
	uint16_t op;
	uint8_t class, arg, target;
} hole_calls[] = {
	{ "memfd_create", RF_OP_MEMFD_CREATE, RF_CLASS_EXEC, 2, 0 },
	{ "mmap", RF_OP_MMAP_EXEC, RF_CLASS_EXEC, 3, 0 },
	{ "mprotect", RF_OP_MPROTECT_EXEC, RF_CLASS_EXEC, 3, 0 },
	{ "pkey_mprotect", RF_OP_MPROTECT_EXEC, RF_CLASS_EXEC, 3, 0 },
	{ "shmat", RF_OP_MMAP_EXEC, RF_CLASS_EXEC, 3, 0 },
	{ "setsockopt", RF_OP_ROUTE_SOCKOPT, RF_CLASS_PROCESS, 0, 0 },
	{ "setpriority", RF_OP_SETNICE, RF_CLASS_PROCESS, 3, 2 },
	{ "ioprio_set", RF_OP_SETIOPRIO, RF_CLASS_PROCESS, 3, 2 },
	{ "prlimit64", RF_OP_SETRLIMIT, RF_CLASS_PROCESS, 2, 1 },
	{ "sched_setscheduler", RF_OP_SETSCHEDULER, RF_CLASS_PROCESS, 0, 1 },
	{ "sched_setparam", RF_OP_SETSCHEDULER, RF_CLASS_PROCESS, 0, 1 },
	{ "sched_setattr", RF_OP_SETSCHEDULER, RF_CLASS_PROCESS, 0, 1 },
	{ "sched_setaffinity", RF_OP_SETSCHEDULER, RF_CLASS_PROCESS, 0, 1 },
};

static bool inode_ioctl(uint64_t cmd)
{
	size_t i;

	for (i = 0; i < sizeof(inode_ioctls) / sizeof(inode_ioctls[0]); i++)
		if ((cmd & RF_LOW32) == inode_ioctls[i])
			return true;
	return false;
}

/* op, class, arg and target of a hole refusal; false: not a hole syscall. */
static bool hole_fields(int nr, const uint64_t args[6], struct rf_event *ev)
{
	size_t i;

	if (nr == seccomp_syscall_resolve_name("ioctl")) {
		if (!inode_ioctl(args[1]))
			return false;  /* TIOCSTI and TIOCLINUX: the boundary's own */
		ev->op = RF_OP_INODE_IOCTL;
		ev->class = RF_CLASS_FILE;
		ev->arg = (uint32_t)args[1];
		return true;
	}
	for (i = 0; i < sizeof(meta_eperm) / sizeof(meta_eperm[0]); i++) {
		if (meta_nr(i) == nr) {
			ev->op = meta_eperm[i].op;
			ev->class = RF_CLASS_FILE;
			return true;
		}
	}
	for (i = 0; i < sizeof(hole_calls) / sizeof(hole_calls[0]); i++) {
		const struct hole_call *h = &hole_calls[i];

		if (seccomp_syscall_resolve_name(h->name) != nr)
			continue;
		ev->op = h->op;
		ev->class = h->class;
		/* as the BPF-LSM hook records it: level << 16 | optname */
		ev->arg = h->op == RF_OP_ROUTE_SOCKOPT ?
				  (uint32_t)args[1] << 16 | ((uint32_t)args[2] & 0xffff) :
			  h->arg ? (uint32_t)args[h->arg - 1] : 0;
		ev->target_pid = h->target ? (uint32_t)args[h->target - 1] : 0;
		return true;
	}
	return false;
}

bool sandbox_seccomp__hole_record(int nr, const uint64_t args[6], struct rf_event *ev)
{
	if (!hole_fields(nr, args, ev) && !suid_fields(nr, args, ev))
		return false;
	ev->reason = RF_REASON_BOUNDARY;
	ev->syscall = (uint16_t)nr;
	ev->flags = RF_EVF_INFERRED | RF_EVF_SYSCALL | RF_EVF_ERRNO_EPERM;
	if (ev->class == RF_CLASS_FILE || ev->class == RF_CLASS_EXEC)
		ev->need = ev->class == RF_CLASS_FILE ? RF_ACC_WRITE : RF_ACC_EXEC;
	return true;
}

static int add_boundary_rules(scmp_filter_ctx ctx, struct rule_count *c,
			      struct rf_error *err)
{
	size_t i;
	int nr, r;

	for (i = 0; i < sizeof(boundary_eperm) / sizeof(boundary_eperm[0]); i++) {
		nr = seccomp_syscall_resolve_name(boundary_eperm[i]);
		if (nr < 0)
			continue;  /* not on this architecture */
		r = add_rule(ctx, c, c->refuse, nr, boundary_eperm[i], 0, NULL, err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
	}
#ifdef RF_NR_OPEN_TREE_ATTR
	/* open_tree + mount_setattr in one call: the same mount family */
	nr = seccomp_syscall_resolve_name("open_tree_attr");
	r = add_rule(ctx, c, c->refuse, nr >= 0 ? nr : RF_NR_OPEN_TREE_ATTR,
		     "open_tree_attr", 0, NULL, err);
	if (r < 0)
		return r;
	c->syscalls++;
	c->rules++;
#endif
	/* clone3's flags live in memory seccomp cannot read: ENOSYS makes libc
	 * fall back to clone, whose flags are checked below. */
	nr = seccomp_syscall_resolve_name("clone3");
	if (nr >= 0) {
		r = add_rule(ctx, c, SCMP_ACT_ERRNO(ENOSYS), nr, "clone3", 0, NULL, err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
	}
	r = add_ns_flag_rules(ctx, "clone", RF_CLONE_FLAGS_ARG, c, err);
	if (r < 0)
		return r;
	r = add_ns_flag_rules(ctx, "unshare", 0, c, err);
	if (r < 0)
		return r;
	r = add_personality_rules(ctx, c, err);
	if (r < 0)
		return r;
	r = add_ioctl_rules(ctx, c, err);
	if (r < 0 || c->refuse != SCMP_ACT_NOTIFY)
		return r;
	/* The supervisor's listener answers the refusals. Without it (it
	 * died) they fail ENOSYS, and a filter the sandbox added with a
	 * listener of its own would be notified first and could let the call
	 * run: so no new listener, refused with ERRNO, which outranks NOTIFY
	 * whatever the listeners do. */
	r = add_rule(ctx, c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), "seccomp", 2,
		     (const struct scmp_arg_cmp[]){
			     SCMP_A0_64(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER, 0),
			     SCMP_A1_64(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
					SECCOMP_FILTER_FLAG_NEW_LISTENER) }, err);
	if (r < 0)
		return r;
	c->syscalls++;
	c->rules++;
	return 0;
}

/* $.syscalls.allow[i] as a number, or -EINVAL naming the entry. */
static int resolve_listed(const struct rf_syscalls *sc, size_t i, struct rf_error *err)
{
	char where[64];
	int nr = sandbox_seccomp__resolve(sc->allow[i]);

	if (nr >= 0)
		return nr;
	snprintf(where, sizeof(where), "$.syscalls.allow[%zu]", i);
	return rf_error_set(err, -EINVAL, where, "unknown syscall \"%s\" on this architecture",
			    sc->allow[i]);
}

/* Allow each listed name; the rest EPERM. */
static int add_allowlist_rules(scmp_filter_ctx ctx, const struct rf_syscalls *sc,
			       struct rule_count *c, struct rf_error *err)
{
	bool execve_listed = false, clone3_listed = false;
	size_t i, j;
	int nr, r;

	for (i = 0; i < sc->n_allow; i++) {
		nr = resolve_listed(sc, i, err);
		if (nr < 0)
			return nr;
		execve_listed |= !strcmp(sc->allow[i], "execve");
		clone3_listed |= !strcmp(sc->allow[i], "clone3");
		for (j = 0; j < i; j++)
			if (!strcmp(sc->allow[j], sc->allow[i]))
				break;
		if (j < i)
			continue;  /* listed twice: one rule */
		r = add_rule(ctx, c, SCMP_ACT_ALLOW, nr, sc->allow[i], 0, NULL, err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
	}
	/* the launcher execs the command after installing the filter */
	if (!execve_listed) {
		r = add_rule(ctx, c, SCMP_ACT_ALLOW, SCMP_SYS(execve), "execve", 0, NULL,
			     err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
		c->added_execve = true;
	}
	/* ...and, when that exec fails, must still be able to exit: without
	 * exit_group the child would crash instead of exiting 126/127.
	 * Ending the process grants nothing. */
	for (i = 0; i < 2; i++) {
		const char *name = i ? "exit" : "exit_group";

		for (j = 0; j < sc->n_allow; j++)
			if (!strcmp(sc->allow[j], name))
				break;
		if (j < sc->n_allow)
			continue;
		r = add_rule(ctx, c, SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(name), name, 0,
			     NULL, err);
		if (r < 0)
			return r;
		c->syscalls++;
		c->rules++;
	}
	/* An unlisted clone3 answers ENOSYS, not EPERM, so libc falls back to
	 * clone (checked against the list). With the boundary filter also
	 * installed, an EPERM here would win over its ENOSYS: the kernel keeps
	 * the newest filter's answer among equal actions. */
	nr = seccomp_syscall_resolve_name("clone3");
	if (!clone3_listed && nr >= 0) {
		r = add_rule(ctx, c, SCMP_ACT_ERRNO(ENOSYS), nr, "clone3", 0, NULL, err);
		if (r < 0)
			return r;
		c->rules++;
		c->clone3_enosys = true;
	}
	return 0;
}

/* The fd the launcher's call nr uses before the listener is handed over
 * (RF_CHILD_FD_ERR, RF_CHILD_FD_NOTIFY), -1 for any other syscall. */
static int launch_fd(int nr)
{
	if (nr == SCMP_SYS(write))
		return RF_CHILD_FD_ERR;
	if (nr == SCMP_SYS(sendmsg))
		return RF_CHILD_FD_NOTIFY;
	return -1;
}

/* The first argument with which the launcher's call nr is never handed to
 * the listener (launch_fd; "deny": also prctl(PR_SET_SECCOMP), which
 * installs build_launch_close and can only narrow what a task may do),
 * -1: none. */
static long launch_exempt(int nr, bool deny)
{
	if (deny && nr == SCMP_SYS(prctl))
		return PR_SET_SECCOMP;
	return launch_fd(nr);
}

/*
 * The profile in the listener's filter (default allow): every number below
 * RF_SECCOMP_NR_MAX it does not list (execve, exit and exit_group always
 * listed) goes to the supervisor, which answers EPERM ("deny") or lets
 * the call through ("alert") and reports the first of each number. In
 * alert mode a number the boundary has rules for keeps them alone (an
 * unconditional rule would replace its conditional ones): it reaches the
 * supervisor when the boundary refuses it. clone3 keeps its ENOSYS, so
 * libc falls back to clone.
 */
static int add_profile_rules(scmp_filter_ctx ctx, const struct rf_syscalls *sc, bool deny,
			     const struct rule_count *bc, struct rf_seccomp *ret,
			     struct rule_count *c, struct rf_error *err)
{
	static const char *const always[] = { "execve", "exit", "exit_group" };
	uint64_t listed[RF_SECCOMP_NR_WORDS] = { 0 };
	int clone3 = seccomp_syscall_resolve_name("clone3"), nr, r;
	char name[32];
	size_t i;

	for (i = 0; i < sc->n_allow; i++) {
		nr = resolve_listed(sc, i, err);
		if (nr < 0)
			return nr;
		nr_set(listed, nr);
	}
	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		nr_set(listed, seccomp_syscall_resolve_name(always[i]));
	for (nr = 0; nr < RF_SECCOMP_NR_MAX; nr++) {
		if (sandbox_seccomp__nr_in(listed, nr))
			continue;
		nr_set(ret->prof_out, nr);
		if (nr == clone3 || (!deny && sandbox_seccomp__nr_in(bc->nrs, nr)))
			continue;
		snprintf(name, sizeof(name), "syscall %d", nr);
		r = add_rule(ctx, c, SCMP_ACT_NOTIFY, nr, name, launch_exempt(nr, deny) >= 0,
			     (const struct scmp_arg_cmp[]){ SCMP_A0_64(SCMP_CMP_NE,
					(scmp_datum_t)launch_exempt(nr, deny), 0) }, err);
		if (r < 0)
			return r;
		nr_set(ret->prof_notify, nr);
		c->syscalls++;
		c->rules++;
	}
	if (clone3 >= 0 && !sandbox_seccomp__nr_in(listed, clone3) &&
	    !sandbox_seccomp__nr_in(bc->nrs, clone3)) {
		r = add_rule(ctx, c, SCMP_ACT_ERRNO(ENOSYS), clone3, "clone3", 0, NULL, err);
		if (r < 0)
			return r;
		c->rules++;
		c->clone3_enosys = true;
	}
	/* some 460 rules: a binary tree on the number, not a linear scan */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		return rf_error_set(err, r, "seccomp", "binary-tree filter: %s", strerror(-r));
	return 0;
}

/* Export through a memfd (2.5.4 has no in-memory export) into a malloc'd
 * array the child can hand to the kernel without allocating. */
static int export_filter(scmp_filter_ctx ctx, struct rf_seccomp_filter *ret,
			 struct rf_error *err)
{
	struct sock_filter *insns = NULL;
	struct stat st;
	size_t size, done = 0;
	ssize_t n;
	int fd, r;

	fd = memfd_create("ringfence-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		rf_error_set(err, r, "seccomp", "memfd_create: %s", strerror(-r));
		return r;
	}
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0) {
		rf_error_set(err, r, "seccomp", "exporting the filter: %s", strerror(-r));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		rf_error_set(err, r, "seccomp", "fstat of the exported filter: %s", strerror(-r));
		goto out;
	}
	size = (size_t)st.st_size;
	if (size == 0 || size % sizeof(struct sock_filter) ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		r = -E2BIG;
		rf_error_set(err, r, "seccomp", "exported filter of %zu bytes is not 1..%d instructions",
			 size, BPF_MAXINSNS);
		goto out;
	}
	insns = malloc(size);
	if (!insns) {
		r = -ENOMEM;
		rf_error_set(err, r, "seccomp", "out of memory");
		goto out;
	}
	while (done < size) {
		n = pread(fd, (char *)insns + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			rf_error_set(err, r, "seccomp", "reading the exported filter: %s",
				 strerror(-r));
			goto out;
		}
		done += (size_t)n;
	}
	ret->insns = insns;
	ret->len = (unsigned short)(size / sizeof(struct sock_filter));
	insns = NULL;
	r = 0;
out:
	free(insns);
	close(fd);
	return r;
}

/* Native architecture only: seccomp_init() adds just that one, so i386
 * (int 0x80, AUDIT_ARCH_I386) fails the arch check; on x86-64 libseccomp
 * also sends x32 numbers (>= __X32_SYSCALL_BIT) to the bad-arch action. */
static int new_ctx(uint32_t def_action, scmp_filter_ctx *ret, struct rf_error *err)
{
	scmp_filter_ctx ctx;
	int r;

	ctx = seccomp_init(def_action);
	if (!ctx) {
		return rf_error_set(err, -ENOMEM, "seccomp", "seccomp_init failed");
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r >= 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (r < 0) {
		rf_error_set(err, r, "seccomp", "setting filter attributes: %s", strerror(-r));
		seccomp_release(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

int sandbox_seccomp__build(const struct rf_policy *policy, bool boundary, unsigned int holes,
			   struct rf_seccomp *ret, struct rf_error *err)
{
	return sandbox_seccomp__build_notify(policy, boundary, holes, false, ret, err);
}

/* "deny", after the hand-over: refuse the launcher's two exceptions
 * (launch_fd) the profile does not list; no listener, so never reported. */
static int build_launch_close(const struct rf_seccomp *sc, struct rf_seccomp_filter *ret,
			      struct rf_error *err)
{
	static const int nrs[] = { SCMP_SYS(write), SCMP_SYS(sendmsg) };
	struct rule_count c = { 0 };
	scmp_filter_ctx ctx = NULL;
	size_t i;
	int r = new_ctx(SCMP_ACT_ALLOW, &ctx, err);

	for (i = 0; r >= 0 && i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		if (!sandbox_seccomp__nr_in(sc->prof_notify, nrs[i]))
			continue;
		r = add_rule(ctx, &c, SCMP_ACT_ERRNO(EPERM), nrs[i], "launcher fd", 1,
			     (const struct scmp_arg_cmp[]){ SCMP_A0_64(SCMP_CMP_EQ,
					(scmp_datum_t)launch_fd(nrs[i]), 0) }, err);
		c.rules++;
	}
	if (r >= 0 && c.rules)
		r = export_filter(ctx, ret, err);
	if (ctx)
		seccomp_release(ctx);
	return r;
}

/* The filter with the listener (or the boundary's without one): the
 * boundary's rules (boundary), then the profile's (merged). */
static int build_listened(const struct rf_policy *policy, bool boundary, unsigned int holes,
			  bool merged, bool deny, struct rule_count *bc, struct rule_count *pc,
			  struct rf_seccomp *ret, struct rf_error *err)
{
	scmp_filter_ctx ctx = NULL;
	int r = new_ctx(SCMP_ACT_ALLOW, &ctx, err);

	if (r < 0)
		return r;
	if (boundary) {
		r = add_boundary_rules(ctx, bc, err);
		if (r >= 0)
			r = add_hole_rules(ctx, holes, bc, err);
		if (r >= 0)
			r = add_net_task_rules(ctx, holes, bc, err);
		if (r >= 0)
			r = add_suid_rules(ctx, holes, bc, err);
	}
	if (r >= 0 && merged) {
		r = add_profile_rules(ctx, &policy->syscalls, deny, bc, ret, pc, err);
		ret->profile = r >= 0;
		ret->prof_alert = !deny;
	}
	if (r >= 0)
		r = export_filter(ctx, &ret->boundary, err);
	seccomp_release(ctx);
	return r;
}

int sandbox_seccomp__build_notify(const struct rf_policy *policy, bool boundary,
				  unsigned int holes, bool notify, struct rf_seccomp *ret,
				  struct rf_error *err)
{
	struct rule_count bc = { .refuse = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM) };
	struct rule_count ac = { 0 }, pc = { 0 };
	scmp_filter_ctx ctx = NULL;
	bool profile = policy && policy->syscalls.present;
	bool deny = profile && policy->syscalls.on_violation == RF_VIOLATION_DENY;
	/* With a listener the profile is its filter's: the supervisor answers
	 * and reports calls outside it (no syscall tracepoint). Without one,
	 * "deny" is a filter of its own and "alert" has none. */
	bool merged = profile && notify;
	bool allowlist = deny && !merged;
	size_t off = 0;
	int r;

	memset(ret, 0, sizeof(*ret));

	/* Names are resolved at plan time whatever becomes of them. */
	if (profile && !allowlist && !merged) {
		for (size_t i = 0; i < policy->syscalls.n_allow; i++)
			if (resolve_listed(&policy->syscalls, i, err) < 0)
				return -EINVAL;
	}

	if (boundary || merged) {
		r = build_listened(policy, boundary, holes, merged, deny, &bc, &pc, ret, err);
		if (r < 0)
			goto out;
		ret->notify = notify;
		ret->boundary_rules = boundary;
	}

	if (merged && deny) {
		r = build_launch_close(ret, &ret->allowlist, err);
		if (r < 0)
			goto out;
	}
	if (allowlist) {
		r = new_ctx(SCMP_ACT_ERRNO(EPERM), &ctx, err);
		if (r < 0)
			goto out;
		r = add_allowlist_rules(ctx, &policy->syscalls, &ac, err);
		if (r < 0)
			goto out;
		r = export_filter(ctx, &ret->allowlist, err);
		if (r < 0)
			goto out;
	}

	if (boundary)
		off += (size_t)snprintf(ret->summary, sizeof(ret->summary),
			"boundary: default allow, %u rules on %u syscalls "
			"(EPERM%s; clone3 ENOSYS), %u insns", bc.rules, bc.syscalls,
			notify ? " answered by the supervisor's listener, ENOSYS without it; "
				 "no new listener" : "", ret->boundary.len);
	if (merged && off < sizeof(ret->summary))
		off += (size_t)snprintf(ret->summary + off, sizeof(ret->summary) - off,
			"%sprofile (%s): %zu syscalls listed, exit, exit_group and execve "
			"always; %u other numbers go to the supervisor's listener (%s; each "
			"reported once)%s%s, %u insns",
			off ? "; " : "", deny ? "deny" : "alert", policy->syscalls.n_allow,
			pc.syscalls, deny ? "EPERM" : "let through, ENOSYS without it",
			deny || !boundary ? "" : ", the boundary's own syscalls when it refuses them",
			pc.clone3_enosys ? ", clone3 ENOSYS" : "", ret->boundary.len);
	if (allowlist && off < sizeof(ret->summary))
		off += (size_t)snprintf(ret->summary + off, sizeof(ret->summary) - off,
			"%sallowlist: default EPERM, %u syscalls allowed%s, exit and exit_group "
			"always%s, %u insns",
			off ? "; " : "", ac.syscalls,
			ac.added_execve ? " (execve added for the launcher)" : "",
			ac.clone3_enosys ? ", clone3 ENOSYS" : "",
			ret->allowlist.len);
	if (off && off < sizeof(ret->summary))
		snprintf(ret->summary + off, sizeof(ret->summary) - off,
			 "; other architectures and x32 killed");
	if (!off)
		snprintf(ret->summary, sizeof(ret->summary), "no seccomp filter");
	r = 0;
out:
	if (ctx)
		seccomp_release(ctx);
	if (r < 0)
		sandbox_seccomp__free(ret);
	return r;
}

int sandbox_seccomp__allowlist_rules(const struct rf_policy *policy,
				     const struct rf_seccomp_sink *sink, struct rf_error *err)
{
	struct rule_count ac = { .sink = sink };
	scmp_filter_ctx ctx = NULL;
	int r;

	if (!policy->syscalls.present || policy->syscalls.on_violation != RF_VIOLATION_DENY)
		return rf_error_set(err, -EINVAL, "$.syscalls", "%s",
				    policy->syscalls.present ? "on_violation is \"alert\": no "
				    "allowlist to enforce" : "missing: the policy lists no syscalls");
	/* the same rules as the supervisor's allowlist filter, also built */
	r = new_ctx(SCMP_ACT_ERRNO(EPERM), &ctx, err);
	if (r >= 0)
		r = add_allowlist_rules(ctx, &policy->syscalls, &ac, err);
	if (ctx)
		seccomp_release(ctx);
	return r < 0 ? r : 0;
}

void sandbox_seccomp__free(struct rf_seccomp *f)
{
	if (!f)
		return;
	free(f->boundary.insns);
	free(f->allowlist.insns);
	memset(f, 0, sizeof(*f));
}

/* Async-signal-safe: only prctl and seccomp. The boundary first so it
 * also covers the second one; both filters then apply and the stricter
 * answer wins. A notifying boundary's listener comes back in *ret_listener
 * (else -1), to be handed over before the allowlist, which may refuse
 * what that takes. */
int sandbox_seccomp__install_boundary(const struct rf_seccomp *f, int *ret_listener)
{
	struct sock_fprog prog = { .len = f->boundary.len, .filter = f->boundary.insns };
	long fd;

	*ret_listener = -1;
	if (!f->boundary.len)
		return 0;
	if (!f->notify)
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0 ? -errno : 0;
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		     &prog);
	if (fd < 0)
		return -errno;
	*ret_listener = (int)fd;
	return 0;
}

int sandbox_seccomp__install_allowlist(const struct rf_seccomp *f)
{
	struct sock_fprog prog = { .len = f->allowlist.len, .filter = f->allowlist.insns };

	if (!f->allowlist.len)
		return 0;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0 ? -errno : 0;
}

int sandbox_seccomp__install(const struct rf_seccomp *f)
{
	int listener, r = sandbox_seccomp__install_boundary(f, &listener);

	if (listener >= 0)
		(void)close(listener);  /* no one to answer: refusals fail ENOSYS */
	return r < 0 ? r : sandbox_seccomp__install_allowlist(f);
}
