/* seccomp backend tests: each probe runs in a forked child that sets
 * no_new_privs, installs the filters and reports the call's errno through
 * a pipe (or dies). No root needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/personality.h>
#include <linux/seccomp.h>
#include <asm/unistd.h>
#include <cmocka.h>

#include "policy/policy.h"
#include "backends/boundary_consts.h"
#include "backends/sandbox_seccomp.h"

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif

#define CHILD_SETUP_FAILED 111

struct outcome {
	bool reported;     /* the probe ran and wrote its result */
	int result;        /* 0 or the probe's errno */
	bool killed;
	int sig;           /* when killed */
	int exit_code;     /* when exited */
};

typedef int (*probe_fn)(long arg);

static int errno_of(long r)
{
	return r < 0 ? errno : 0;
}

/* exit_group without _exit(): under ASan a noreturn call first runs
 * __asan_handle_no_return, whose sigaltstack an allowlist refuses. */
static void child_exit(int code)
{
	syscall(SYS_exit_group, code);
}

static int child_main(int fd, const struct rf_seccomp *f, probe_fn fn, long arg)
{
	static const int sigs[] = { SIGSEGV, SIGILL, SIGFPE, SIGBUS, SIGSYS };
	struct rlimit no_core = { 0, 0 };
	size_t i;
	int res;

	/* cmocka's handlers would longjmp into the test runner */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);  /* SIGSYS would dump core */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_SETUP_FAILED;
	if (f && sandbox_seccomp__install(f) < 0)
		return CHILD_SETUP_FAILED;
	res = fn(arg);
	if (write(fd, &res, sizeof(res)) != sizeof(res))
		return CHILD_SETUP_FAILED;
	return 0;
}

/* f NULL: no filter (control runs). */
static struct outcome run_probe(const struct rf_seccomp *f, probe_fn fn, long arg)
{
	struct outcome o = { 0 };
	int p[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_exit(child_main(p[1], f, fn, arg));
		abort();
	}
	close(p[1]);
	do
		n = read(p[0], &o.result, sizeof(o.result));
	while (n < 0 && errno == EINTR);
	o.reported = n == sizeof(o.result);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	o.killed = WIFSIGNALED(status);
	o.sig = o.killed ? WTERMSIG(status) : 0;
	o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return o;
}

/* The probe ran under the filter and got errno want (0: succeeded). */
static void expect_result(const struct rf_seccomp *f, const char *what,
			  probe_fn fn, long arg, int want)
{
	struct outcome o = run_probe(f, fn, arg);

	if (!o.reported || o.killed || o.exit_code != 0)
		fail_msg("%s: no result (killed %d sig %d exit %d)", what, o.killed,
			 o.sig, o.exit_code);
	if (o.result != want)
		fail_msg("%s: errno %d (%s), expected %d (%s)", what, o.result,
			 strerror(o.result), want, strerror(want));
}

static void expect_killed(const struct rf_seccomp *f, const char *what,
			  probe_fn fn, long arg, int sig)
{
	struct outcome o = run_probe(f, fn, arg);

	if (!o.killed || o.sig != sig)
		fail_msg("%s: expected death by signal %d, got killed %d sig %d "
			 "exit %d result %d", what, sig, o.killed, o.sig,
			 o.exit_code, o.reported ? o.result : -1);
}

/* ---- probes: harmless arguments; unfiltered they fail or do nothing ---- */

static int p_bpf(long a) { (void)a; return errno_of(syscall(SYS_bpf, -1, NULL, 0)); }
static int p_ptrace(long a)
{
	(void)a;  /* peeking at oneself untraced: ESRCH without the filter */
	return errno_of(syscall(SYS_ptrace, 2 /* PTRACE_PEEKDATA */, getpid(), NULL, NULL));
}
static int p_process_vm_readv(long a)
{
	(void)a;
	return errno_of(syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0));
}
static int p_process_vm_writev(long a)
{
	(void)a;
	return errno_of(syscall(SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 0));
}
static int p_mount(long a) { (void)a; return errno_of(syscall(SYS_mount, NULL, NULL, NULL, 0, NULL)); }
static int p_umount2(long a)
{
	(void)a;
	return errno_of(syscall(SYS_umount2, "/nonexistent-ringfence", 0));
}
static int p_move_mount(long a)
{
	(void)a;
	return errno_of(syscall(SYS_move_mount, -1, "", -1, "", 0));
}
static int p_fsopen(long a) { (void)a; return errno_of(syscall(SYS_fsopen, NULL, 0)); }
static int p_fsconfig(long a) { (void)a; return errno_of(syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0)); }
static int p_fsmount(long a) { (void)a; return errno_of(syscall(SYS_fsmount, -1, 0, 0)); }
static int p_fspick(long a) { (void)a; return errno_of(syscall(SYS_fspick, -1, "", 0)); }
static int p_open_tree(long a)
{
	(void)a;
	return errno_of(syscall(SYS_open_tree, -1, "/nonexistent-ringfence", 0));
}
static int p_open_tree_attr(long a)
{
	(void)a;
	return errno_of(syscall(SYS_open_tree_attr, -1, "/nonexistent-ringfence", 0, NULL, 0));
}
static int p_mount_setattr(long a)
{
	(void)a;
	return errno_of(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0));
}
static int p_pivot_root(long a) { (void)a; return errno_of(syscall(SYS_pivot_root, NULL, NULL)); }
static int p_setns(long a) { (void)a; return errno_of(syscall(SYS_setns, -1, 0)); }
static int p_keyctl(long a) { (void)a; return errno_of(syscall(SYS_keyctl, 9999, 0, 0, 0, 0)); }
static int p_add_key(long a) { (void)a; return errno_of(syscall(SYS_add_key, NULL, NULL, NULL, 0, 0)); }
static int p_request_key(long a) { (void)a; return errno_of(syscall(SYS_request_key, NULL, NULL, NULL, 0)); }
static int p_perf_event_open(long a)
{
	(void)a;
	return errno_of(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
}
static int p_kexec_load(long a) { (void)a; return errno_of(syscall(SYS_kexec_load, 0, 0, NULL, 0)); }
static int p_kexec_file_load(long a)
{
	(void)a;
	return errno_of(syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0));
}
static int p_init_module(long a) { (void)a; return errno_of(syscall(SYS_init_module, NULL, 0, "")); }
static int p_finit_module(long a) { (void)a; return errno_of(syscall(SYS_finit_module, -1, "", 0)); }
static int p_delete_module(long a)
{
	(void)a;
	return errno_of(syscall(SYS_delete_module, "rf_no_such_module", O_NONBLOCK));
}
static int p_userfaultfd(long a) { (void)a; return errno_of(syscall(SYS_userfaultfd, O_CLOEXEC)); }
static int p_io_uring_setup(long a) { (void)a; return errno_of(syscall(SYS_io_uring_setup, 0, NULL)); }
static int p_io_uring_enter(long a)
{
	(void)a;
	return errno_of(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
}
static int p_io_uring_register(long a)
{
	(void)a;
	return errno_of(syscall(SYS_io_uring_register, -1, 0, NULL, 0));
}

/* CLONE_SIGHAND without CLONE_VM: the kernel says EINVAL before creating
 * anything, so only the filter can answer EPERM. */
static int p_clone_flags(long flags)
{
	long r = syscall(SYS_clone, (unsigned long)flags | CLONE_SIGHAND, NULL, NULL, NULL, 0);

	if (r == 0)
		child_exit(0);
	return errno_of(r);
}

/* CLONE_VFORK is no unshare flag: EINVAL unless the filter answers first. */
static int p_unshare_invalid(long flags)
{
	return errno_of(syscall(SYS_unshare, (unsigned long)flags | CLONE_VFORK));
}

static int p_unshare(long flags) { return errno_of(syscall(SYS_unshare, (unsigned long)flags)); }
static int p_clone3(long a) { (void)a; return errno_of(syscall(SYS_clone3, NULL, 0)); }
static int p_personality(long v) { return errno_of(syscall(SYS_personality, (unsigned long)v)); }

static int p_ioctl(long cmd)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char c = 'x';
	int r;

	if (fd < 0)
		return errno;
	r = errno_of(syscall(SYS_ioctl, fd, (unsigned long)cmd, &c));
	close(fd);
	return r;
}

static int p_getpid(long a) { (void)a; return errno_of(syscall(SYS_getpid)); }

/* An allow-all filter of the caller's own, with a listener when a != 0. */
static int p_seccomp_filter(long a)
{
	struct sock_filter allow = { BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW };
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 a ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);

	if (r > 0)
		close((int)r);
	return errno_of(r);
}
static int p_getppid(long a) { (void)a; return errno_of(syscall(SYS_getppid)); }
static int p_uname(long a)
{
	char buf[512];

	(void)a;
	return errno_of(syscall(SYS_uname, buf));
}
static int p_write(long a)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int r;

	(void)a;
	if (fd < 0)
		return errno;
	r = syscall(SYS_write, fd, "x", 1) == 1 ? 0 : errno;
	close(fd);
	return r;
}
static int p_write_bad_fd(long a)
{
	(void)a;  /* EBADF: the call reached the kernel */
	return errno_of(syscall(SYS_write, -1, "x", 1));
}
static int p_execve_missing(long a)
{
	char *argv[] = { (char *)"x", NULL };

	(void)a;
	return errno_of(syscall(SYS_execve, "/nonexistent-ringfence/x", argv, NULL));
}

static int p_fork(long a)
{
	int status;
	pid_t pid;

	(void)a;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		child_exit(7);
	if (waitpid(pid, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : EPROTO;
}

static void *thread_main(void *arg)
{
	return arg;
}

static int p_pthread_create(long a)
{
	pthread_t t;
	void *ret = NULL;
	int r;

	(void)a;
	r = pthread_create(&t, NULL, thread_main, &ret);
	if (r)
		return r;
	r = pthread_join(t, &ret);
	return r ? r : ret == &ret ? 0 : EPROTO;
}

static int p_seccomp_mode(long a)
{
	(void)a;  /* 0: no filter installed */
	return (int)prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
}

#if defined(__x86_64__)
/* i386 getpid (20) through the compat entry: AUDIT_ARCH_I386. */
static int p_int80_getpid(long a)
{
	long ret;

	(void)a;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "0"(20L)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret > 0 ? 0 : (int)-ret;
}

static int p_x32_getpid(long a)
{
	(void)a;
	return errno_of(syscall(__X32_SYSCALL_BIT | __NR_getpid));
}
#endif

/* ---- a classic-BPF evaluator ----
 * For what libseccomp emits, to ask the filter about inputs this kernel
 * cannot produce (i386 without IA32 emulation) and about many argument
 * values at once. Any other opcode fails the test. */
static uint32_t bpf_run(const struct rf_seccomp_filter *f, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	size_t pc = 0;

	while (pc < f->len) {
		const struct sock_filter *in = &f->insns[pc++];
		uint32_t k = in->k;

		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k % 4 || k > sizeof(*d) - 4)
				fail_msg("bpf: load at offset %u", k);
			memcpy(&a, (const char *)d + k, sizeof(a));
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				fail_msg("bpf: scratch slot %u", k);
			if (in->code == (BPF_LD | BPF_MEM))
				a = mem[k];
			else if (in->code == (BPF_LDX | BPF_MEM))
				x = mem[k];
			else
				mem[k] = in->code == BPF_ST ? a : x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= k;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
			a |= k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == k ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > k ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= k ? in->jt : in->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & k ? in->jt : in->jf;
			break;
		case BPF_RET | BPF_K:
			return k;
		case BPF_RET | BPF_A:
			return a;
		default:
			fail_msg("bpf: opcode %#x at %zu", in->code, pc - 1);
		}
	}
	fail_msg("bpf: ran off the end");
	return 0;
}

static uint32_t bpf_answer(const struct rf_seccomp_filter *f, uint32_t arch, int nr,
			   const uint64_t *args, size_t n_args)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = nr;
	if (n_args)
		memcpy(d.args, args, n_args * sizeof(args[0]));
	return bpf_run(f, &d);
}

#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)

/* ---- fixtures ---- */

/* sandbox_seccomp__build with the error rendered as it is printed. */
static int sc_build(const struct rf_policy *p, bool boundary, struct rf_seccomp *f,
		    char *why, size_t why_len)
{
	struct rf_error e = { 0 };
	int r = sandbox_seccomp__build(p, boundary, 0, f, &e);

	rf_error_str(&e, why, why_len);
	if (r < 0)
		assert_int_equal(e.err, r);
	return r;
}

static struct rf_seccomp build_boundary(void)
{
	struct rf_seccomp f;
	char why[256];

	assert_int_equal(sc_build(NULL, true, &f, why, sizeof(why)), 0);
	assert_true(f.boundary.len > 0);
	assert_int_equal(f.allowlist.len, 0);
	return f;
}

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err;

	if (policy__load_string(json, &p, &err) != 0)
		fail_msg("policy: %s: %s", err.where, err.why);
	return p;
}

#define POLICY_HEAD "{\"version\":1,\"id\":\"t\",\"files\":\"unrestricted\"," \
		    "\"exec\":\"unrestricted\","

static struct rf_seccomp build_policy(const char *syscalls_json, bool boundary)
{
	char json[1024];
	struct rf_policy *p;
	struct rf_seccomp f;
	char why[256];
	int r;

	snprintf(json, sizeof(json), POLICY_HEAD "\"syscalls\":%s}", syscalls_json);
	p = load(json);
	r = sc_build(p, boundary, &f, why, sizeof(why));
	policy__free(p);
	if (r != 0)
		fail_msg("build: %d: %s", r, why);
	return f;
}

/* ---- boundary ---- */

struct boundary_case {
	const char *name;
	probe_fn fn;
};

#define CASE(n) { #n, p_##n }
static const struct boundary_case boundary_cases[] = {
	CASE(bpf), CASE(ptrace), CASE(process_vm_readv), CASE(process_vm_writev),
	CASE(mount), CASE(umount2), CASE(move_mount), CASE(fsopen), CASE(fsconfig),
	CASE(fsmount), CASE(fspick), CASE(open_tree),
#if defined(__x86_64__) || defined(__aarch64__)
	CASE(open_tree_attr),
#endif
	CASE(mount_setattr), CASE(pivot_root), CASE(setns), CASE(keyctl),
	CASE(add_key), CASE(request_key), CASE(perf_event_open), CASE(kexec_load),
	CASE(kexec_file_load), CASE(init_module), CASE(finit_module),
	CASE(delete_module), CASE(userfaultfd), CASE(io_uring_setup),
	CASE(io_uring_enter), CASE(io_uring_register),
};

static const long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

static void boundary_refuses_each_listed_syscall_with_eperm(void **state)
{
	struct rf_seccomp f = build_boundary();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(boundary_cases) / sizeof(boundary_cases[0]); i++)
		expect_result(&f, boundary_cases[i].name, boundary_cases[i].fn, 0, EPERM);
	sandbox_seccomp__free(&f);
}

/* A notifying boundary whose listener is gone (install() closes it: the
 * supervisor died): every refusal still fails, ENOSYS; the caller cannot
 * add a listener of its own (it would be notified first and could let a
 * refused call run), but can add a plain filter; the rest works. */
static void notify_boundary_without_listener_still_refuses(void **state)
{
	struct rf_seccomp f;
	struct rf_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(sandbox_seccomp__build_notify(NULL, true, 0, true, &f, &err), 0);
	assert_true(f.notify);
	assert_non_null(strstr(f.summary, "no new listener"));
	for (i = 0; i < sizeof(boundary_cases) / sizeof(boundary_cases[0]); i++)
		expect_result(&f, boundary_cases[i].name, boundary_cases[i].fn, 0, ENOSYS);
	expect_result(&f, "unshare(CLONE_NEWUSER)", p_unshare, CLONE_NEWUSER, ENOSYS);
	expect_result(&f, "seccomp with a listener", p_seccomp_filter, 1, EPERM);
	expect_result(&f, "seccomp without", p_seccomp_filter, 0, 0);
	expect_result(&f, "getpid", p_getpid, 0, 0);
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	expect_result(NULL, "seccomp with a listener, no filter", p_seccomp_filter, 1, 0);
	sandbox_seccomp__free(&f);
}

/* The EPERMs above come from the filter: unfiltered, the probes whose
 * answer does not depend on privileges say something else. */
static void probes_without_filter_are_not_eperm(void **state)
{
	size_t i;

	(void)state;
	expect_result(NULL, "process_vm_readv", p_process_vm_readv, 0, 0);
	expect_result(NULL, "process_vm_writev", p_process_vm_writev, 0, 0);
	expect_result(NULL, "clone3(NULL, 0)", p_clone3, 0, EINVAL);
	expect_result(NULL, "ioctl TIOCSTI", p_ioctl, TIOCSTI, ENOTTY);
	expect_result(NULL, "ioctl 0x100005412", p_ioctl, 0x100005412L, ENOTTY);
	expect_result(NULL, "setns(-1)", p_setns, 0, EBADF);
	for (i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		expect_result(NULL, "clone(ns|SIGHAND)", p_clone_flags, ns_flags[i], EINVAL);
		expect_result(NULL, "unshare(ns|VFORK)", p_unshare_invalid, ns_flags[i], EINVAL);
	}
}

static void boundary_refuses_every_namespace_flag_in_clone_and_unshare(void **state)
{
	struct rf_seccomp f = build_boundary();
	char what[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		snprintf(what, sizeof(what), "clone(%#lx)", ns_flags[i]);
		expect_result(&f, what, p_clone_flags, ns_flags[i], EPERM);
		snprintf(what, sizeof(what), "unshare(%#lx)", ns_flags[i]);
		expect_result(&f, what, p_unshare_invalid, ns_flags[i], EPERM);
	}
	/* the kernel reads clone flags as 64 bits; bits above 32 change nothing */
	expect_result(&f, "clone(NEWUSER | 1<<40)", p_clone_flags,
		      (long)(CLONE_NEWUSER | (1UL << 40)), EPERM);
	sandbox_seccomp__free(&f);
}

static void boundary_unshare_newuser_eperm_unshare_zero_allowed(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_result(&f, "unshare(CLONE_NEWUSER)", p_unshare, CLONE_NEWUSER, EPERM);
	expect_result(&f, "unshare(CLONE_NEWNS)", p_unshare, CLONE_NEWNS, EPERM);
	expect_result(&f, "unshare(0)", p_unshare, 0, 0);
	expect_result(&f, "unshare(CLONE_FILES)", p_unshare, CLONE_FILES, 0);
	sandbox_seccomp__free(&f);
}

static void boundary_clone_with_newuser_flag_eperm(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_result(&f, "clone(CLONE_NEWUSER)", p_clone_flags, CLONE_NEWUSER, EPERM);
	sandbox_seccomp__free(&f);
}

static void boundary_clone3_enosys_and_libc_falls_back_to_clone(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	expect_result(&f, "fork", p_fork, 0, 0);
	expect_result(&f, "pthread_create", p_pthread_create, 0, 0);
	sandbox_seccomp__free(&f);
}

static void boundary_ioctl_tiocsti_tioclinux_eperm_upper_bits_ignored(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_result(&f, "ioctl TIOCSTI", p_ioctl, TIOCSTI, EPERM);
	expect_result(&f, "ioctl TIOCLINUX", p_ioctl, TIOCLINUX, EPERM);
	/* the kernel truncates cmd to 32 bits: these are TIOCSTI/TIOCLINUX too */
	expect_result(&f, "ioctl 0x100005412", p_ioctl, 0x100005412L, EPERM);
	expect_result(&f, "ioctl 0xffffffff0000541c", p_ioctl, (long)0xffffffff0000541cUL, EPERM);
	/* other ioctls reach the kernel (/dev/null is no tty) */
	expect_result(&f, "ioctl TIOCGWINSZ", p_ioctl, 0x5413, ENOTTY);
	expect_result(&f, "ioctl 0x5412 + 1<<16", p_ioctl, 0x15412, ENOTTY);
	sandbox_seccomp__free(&f);
}

static void boundary_personality_only_query_and_per_linux(void **state)
{
	static const long refused[] = {
		PER_LINUX32, ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, 1, 0x80000000L,
		0x7fffffffL, 0xfffffffeL, 0x100000008L, (long)0xffffffff00000008UL,
	};
	struct rf_seccomp f = build_boundary();
	char what[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(what, sizeof(what), "personality(%#lx)", refused[i]);
		expect_result(&f, what, p_personality, refused[i], EPERM);
	}
	expect_result(&f, "personality(0xffffffff)", p_personality, 0xffffffffL, 0);
	expect_result(&f, "personality(PER_LINUX)", p_personality, PER_LINUX, 0);
	/* upper bits are ignored by the kernel: still the query */
	expect_result(&f, "personality(0x1ffffffff)", p_personality, 0x1ffffffffL, 0);
	sandbox_seccomp__free(&f);
}

static void boundary_allows_ordinary_calls(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_result(&f, "getpid", p_getpid, 0, 0);
	expect_result(&f, "write", p_write, 0, 0);
	expect_result(&f, "uname", p_uname, 0, 0);
	sandbox_seccomp__free(&f);
}

#if defined(__x86_64__)
static void boundary_kills_i386_int80_syscall(void **state)
{
	struct rf_seccomp f = build_boundary();
	struct outcome o = run_probe(NULL, p_int80_getpid, 0);

	(void)state;
	if (!o.reported || o.result != 0) {
		sandbox_seccomp__free(&f);
		/* No IA32 emulation here: int 0x80 faults with or without us.
		 * The VM's smoke suite runs this check on a kernel that has it. */
		print_message("SKIP: this kernel has no IA32 emulation (int $0x80 faults "
			      "without any filter); checked in the VM (tests/vm/guest/smoke.sh)\n");
		skip();
	}
	expect_killed(&f, "int $0x80 getpid", p_int80_getpid, 0, SIGSYS);
	sandbox_seccomp__free(&f);
}

/* libseccomp's x86-64 filter sends nr >= __X32_SYSCALL_BIT to the bad-arch
 * action: kill, whether or not the kernel has x32. */
static void boundary_kills_x32_syscall(void **state)
{
	struct rf_seccomp f = build_boundary();

	(void)state;
	expect_killed(&f, "x32 getpid", p_x32_getpid, 0, SIGSYS);
	sandbox_seccomp__free(&f);
}

static void allowlist_kills_i386_and_x32_syscalls(void **state)
{
	struct rf_seccomp f = build_policy("{\"allow\":[\"write\",\"exit_group\",\"getpid\"]}",
					   false);
	struct outcome o = run_probe(NULL, p_int80_getpid, 0);

	(void)state;
	expect_killed(&f, "x32 getpid", p_x32_getpid, 0, SIGSYS);
	if (o.reported && o.result == 0)
		expect_killed(&f, "int $0x80 getpid", p_int80_getpid, 0, SIGSYS);
	sandbox_seccomp__free(&f);
}
#endif

#if defined(__x86_64__)
/* Exhaustive where cheap, pseudo-random elsewhere: the personality
 * argument is refused unless its low 32 bits are 0 or 0xffffffff. */
static void boundary_personality_rules_match_spec_by_evaluation(void **state)
{
	struct rf_seccomp f = build_boundary();
	uint64_t v, seed = 0x9e3779b97f4a7c15ULL;
	uint32_t want, got;
	unsigned i, j;

	(void)state;
	for (i = 0; i < 70000; i++) {
		if (i < 32)
			v = 1ULL << i;                        /* one bit */
		else if (i < 64)
			v = 0xffffffffULL & ~(1ULL << (i - 32)); /* all but one */
		else if (i < 64 + 32 * 32) {
			j = i - 64;                           /* two bits */
			v = (1ULL << (j / 32)) | (1ULL << (j % 32));
		} else {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			v = seed;
			if (i % 4 == 0)
				v &= 0xffffffff00000000ULL;   /* PER_LINUX, high junk */
			else if (i % 4 == 1)
				v |= 0xffffffffULL;           /* query, high junk */
		}
		want = (uint32_t)v == 0 || (uint32_t)v == 0xffffffffU ?
		       SECCOMP_RET_ALLOW : RET_EPERM;
		got = bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_personality, &v, 1);

		if (got != want)
			fail_msg("personality(%#llx): %#x, expected %#x",
				 (unsigned long long)v, got, want);
	}
	sandbox_seccomp__free(&f);
}

static void boundary_ioctl_rules_ignore_upper_cmd_bits_by_evaluation(void **state)
{
	struct rf_seccomp f = build_boundary();
	static const uint64_t highs[] = { 0, 1, 0x80000000, 0xffffffff, 0x12345678 };
	uint64_t args[2] = { 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(highs) / sizeof(highs[0]); i++) {
		args[1] = highs[i] << 32 | TIOCSTI;
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2),
				 RET_EPERM);
		args[1] = highs[i] << 32 | TIOCLINUX;
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2),
				 RET_EPERM);
		args[1] = highs[i] << 32 | 0x5413;  /* TIOCGWINSZ */
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2),
				 SECCOMP_RET_ALLOW);
	}
	sandbox_seccomp__free(&f);
}

/* The boundary with issue 13's rules (holes), built without a policy. */
static struct rf_seccomp build_holes(unsigned int holes)
{
	struct rf_seccomp f;
	struct rf_error e = { 0 };

	assert_int_equal(sandbox_seccomp__build(NULL, true, holes, &f, &e), 0);
	return f;
}

/* Routing options: refused by level and name (low 32 bits); other
 * options, and these names at other levels, pass. Nothing without the bit. */
static void holes_net_opts_refuse_routing_options_by_evaluation(void **state)
{
	struct rf_seccomp f = build_holes(RF_SECCOMP_HOLE_NET_OPTS);
	struct rf_seccomp plain = build_holes(0);
	static const uint64_t refused[][2] = {
		{ 41, 57 }, { 41, 6 }, { 0, 4 }, { 1ULL << 32 | 41, 57 }, { 41, 7ULL << 32 | 57 },
	};
	static const uint64_t allowed[][2] = {
		{ 41, 16 /* IPV6_UNICAST_HOPS */ }, { 0, 2 /* IP_TTL */ }, { 1, 4 /* SO_... */ },
		{ 6, 57 }, { 41, 4 },
	};
	uint64_t args[3] = { 3, 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		args[1] = refused[i][0];
		args[2] = refused[i][1];
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_setsockopt, args, 3),
				 RET_EPERM);
		assert_int_equal(bpf_answer(&plain.boundary, AUDIT_ARCH_X86_64, SYS_setsockopt,
					    args, 3), SECCOMP_RET_ALLOW);
	}
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		args[1] = allowed[i][0];
		args[2] = allowed[i][1];
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_setsockopt, args, 3),
				 SECCOMP_RET_ALLOW);
	}
	sandbox_seccomp__free(&f);
	sandbox_seccomp__free(&plain);
}

/* Other processes: only pid/who 0 (the caller) passes; PRIO_USER and
 * IOPRIO_WHO_USER never; prlimit64 may still read another's limits. */
static void holes_tasks_only_the_caller_by_evaluation(void **state)
{
	struct rf_seccomp f = build_holes(RF_SECCOMP_HOLE_TASKS);
	const struct rf_seccomp_filter *b = &f.boundary;
	static const int by_pid[] = { SYS_sched_setscheduler, SYS_sched_setparam,
				      SYS_sched_setattr, SYS_sched_setaffinity };
	uint64_t a[4] = { 0, 0, 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(by_pid) / sizeof(by_pid[0]); i++) {
		a[0] = 0;
		assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, by_pid[i], a, 3), SECCOMP_RET_ALLOW);
		a[0] = 1234;
		assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, by_pid[i], a, 3), RET_EPERM);
		a[0] = 1ULL << 32;      /* low 32 bits 0, still refused: a superset */
		assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, by_pid[i], a, 3), RET_EPERM);
	}
	/* setpriority(which, who, prio), ioprio_set(which, who, prio) */
	a[0] = 0 /* PRIO_PROCESS */, a[1] = 0, a[2] = 5;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_setpriority, a, 3), SECCOMP_RET_ALLOW);
	a[1] = 1234;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_setpriority, a, 3), RET_EPERM);
	a[0] = 2 /* PRIO_USER */, a[1] = 0;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_setpriority, a, 3), RET_EPERM);
	a[0] = 1 /* IOPRIO_WHO_PROCESS */, a[1] = 0;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_ioprio_set, a, 3), SECCOMP_RET_ALLOW);
	a[1] = 1234;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_ioprio_set, a, 3), RET_EPERM);
	a[0] = 3 /* IOPRIO_WHO_USER */, a[1] = 0;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_ioprio_set, a, 3), RET_EPERM);
	/* prlimit64(pid, resource, new, old) */
	a[0] = 1234, a[1] = 4, a[2] = 0, a[3] = 0x7000;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_prlimit64, a, 4), SECCOMP_RET_ALLOW);
	a[2] = 0x7000;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_prlimit64, a, 4), RET_EPERM);
	a[0] = 0;
	assert_int_equal(bpf_answer(b, AUDIT_ARCH_X86_64, SYS_prlimit64, a, 4), SECCOMP_RET_ALLOW);
	sandbox_seccomp__free(&f);
}

/* Landlock's holes (RF_SECCOMP_HOLE_*): metadata writes, inode-flag
 * ioctls, memfds that could become executable; each only when asked. */
static void boundary_holes_by_evaluation(void **state)
{
	unsigned int all = RF_SECCOMP_HOLE_FS_META | RF_SECCOMP_HOLE_FS_IOCTL |
			   RF_SECCOMP_HOLE_MEMFD;
	const int meta[] = { SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chown, SYS_fchown,
			     SYS_lchown, SYS_fchownat, SYS_utimensat, SYS_setxattr,
			     SYS_fsetxattr, SYS_lsetxattr, SYS_removexattr, SYS_fremovexattr,
			     452 /* fchmodat2 */, 463 /* setxattrat */ };
	uint64_t args[2] = { 0, 0 };
	struct rf_seccomp f, none;
	struct rf_error e;
	size_t i;

	(void)state;
	assert_int_equal(sandbox_seccomp__build(NULL, true, all, &f, &e), 0);
	assert_int_equal(sandbox_seccomp__build(NULL, true, 0, &none, &e), 0);
	for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
		assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, meta[i], args, 2),
				 RET_EPERM);
		assert_int_equal(bpf_answer(&none.boundary, AUDIT_ARCH_X86_64, meta[i], args, 2),
				 SECCOMP_RET_ALLOW);
	}
	args[1] = 1ull << 32 | 0x40086602;  /* FS_IOC_SETFLAGS, upper bits ignored */
	assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2), RET_EPERM);
	assert_int_equal(bpf_answer(&none.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2),
			 SECCOMP_RET_ALLOW);
	args[1] = 0x80086601;               /* FS_IOC_GETFLAGS */
	assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ioctl, args, 2),
			 SECCOMP_RET_ALLOW);
	args[1] = 0x0001;                   /* MFD_CLOEXEC */
	assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_memfd_create, args, 2),
			 RET_EPERM);
	args[1] = 0x0001 | 0x0008;          /* + MFD_NOEXEC_SEAL */
	assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_memfd_create, args, 2),
			 SECCOMP_RET_ALLOW);
	sandbox_seccomp__free(&f);
	sandbox_seccomp__free(&none);
}

/* What the kernel would be told for an i386 or x32 entry, asked of the
 * filters directly: this host may lack IA32 emulation (int 0x80 faults). */
static void filters_kill_i386_and_x32_by_evaluation(void **state)
{
	struct rf_seccomp f = build_policy("{\"allow\":[\"getpid\",\"write\"]}", true);
	const struct rf_seccomp_filter *v[] = { &f.boundary, &f.allowlist };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(bpf_answer(v[i], AUDIT_ARCH_I386, 20 /* getpid */, NULL, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(bpf_answer(v[i], AUDIT_ARCH_I386, 0, NULL, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(bpf_answer(v[i], AUDIT_ARCH_X86_64,
					    __X32_SYSCALL_BIT | SYS_getpid, NULL, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(bpf_answer(v[i], AUDIT_ARCH_X86_64,
					    __X32_SYSCALL_BIT | 521 /* x32 ptrace */, NULL, 0),
				 SECCOMP_RET_KILL_PROCESS);
		assert_int_equal(bpf_answer(v[i], AUDIT_ARCH_X86_64, SYS_getpid, NULL, 0),
				 SECCOMP_RET_ALLOW);
	}
	assert_int_equal(bpf_answer(&f.boundary, AUDIT_ARCH_X86_64, SYS_ptrace, NULL, 0),
			 RET_EPERM);
	assert_int_equal(bpf_answer(&f.allowlist, AUDIT_ARCH_X86_64, SYS_getppid, NULL, 0),
			 RET_EPERM);
	sandbox_seccomp__free(&f);
}
#endif

/* ---- allowlist ---- */

static void allowlist_allows_listed_refuses_others_with_eperm(void **state)
{
	struct rf_seccomp f = build_policy(
		"{\"allow\":[\"read\",\"write\",\"exit_group\",\"exit\",\"getpid\","
		"\"openat\",\"close\",\"rt_sigreturn\"]}", false);

	(void)state;
	assert_int_equal(f.boundary.len, 0);
	assert_true(f.allowlist.len > 0);
	expect_result(&f, "getpid", p_getpid, 0, 0);
	expect_result(&f, "write", p_write, 0, 0);
	expect_result(&f, "write(-1)", p_write_bad_fd, 0, EBADF);
	expect_result(&f, "getppid", p_getppid, 0, EPERM);
	expect_result(&f, "uname", p_uname, 0, EPERM);
	expect_result(&f, "unshare(0)", p_unshare, 0, EPERM);
	/* not listed, still allowed: the launcher execs after installing */
	expect_result(&f, "execve", p_execve_missing, 0, ENOENT);
	/* unlisted clone3: ENOSYS so libc falls back to (checked) clone */
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	assert_non_null(strstr(f.summary, "execve added"));
	sandbox_seccomp__free(&f);
}

static void allowlist_and_boundary_stricter_answer_wins(void **state)
{
	struct rf_seccomp f = build_policy(
		"{\"allow\":[\"write\",\"exit_group\",\"getpid\",\"ptrace\",\"clone3\","
		"\"personality\",\"execve\"]}", true);

	(void)state;
	assert_true(f.boundary.len > 0);
	assert_true(f.allowlist.len > 0);
	expect_result(&f, "getpid", p_getpid, 0, 0);
	expect_result(&f, "ptrace (listed)", p_ptrace, 0, EPERM);
	expect_result(&f, "clone3 (listed)", p_clone3, 0, ENOSYS);
	expect_result(&f, "personality(PER_LINUX32) (listed)", p_personality, PER_LINUX32, EPERM);
	expect_result(&f, "personality(query) (listed)", p_personality, 0xffffffffL, 0);
	expect_result(&f, "getppid (unlisted)", p_getppid, 0, EPERM);
	assert_null(strstr(f.summary, "execve added"));
	sandbox_seccomp__free(&f);
}

static void allowlist_unlisted_clone3_stays_enosys_under_boundary(void **state)
{
	struct rf_seccomp f = build_policy(
		"{\"allow\":[\"write\",\"exit_group\",\"clone\"]}", true);

	(void)state;
	/* equal actions: the kernel keeps the newest filter's errno */
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	sandbox_seccomp__free(&f);
}

static void allowlist_unknown_name_is_einval_naming_the_entry(void **state)
{
	struct rf_policy *p = load(POLICY_HEAD "\"syscalls\":{\"allow\":"
				   "[\"read\",\"nosuchcall\",\"write\"]}}");
	struct rf_seccomp f;
	char why[256];

	(void)state;
	assert_int_equal(sc_build(p, true, &f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why,
		"$.syscalls.allow[1]: unknown syscall \"nosuchcall\" on this architecture");
	assert_null(f.boundary.insns);
	assert_int_equal(f.boundary.len, 0);
	assert_null(f.allowlist.insns);
	sandbox_seccomp__free(&f);
	policy__free(p);
}

/* libseccomp knows socketcall, but x86-64 has no such syscall */
static void allowlist_name_of_another_architecture_is_einval(void **state)
{
	struct rf_policy *p = load(POLICY_HEAD "\"syscalls\":{\"allow\":[\"socketcall\"]}}");
	struct rf_seccomp f;
	char why[256];

	(void)state;
#if defined(__x86_64__)
	assert_int_equal(sc_build(p, false, &f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why,
		"$.syscalls.allow[0]: unknown syscall \"socketcall\" on this architecture");
#else
	(void)f;
	(void)why;
#endif
	policy__free(p);
}

/* "alert" profiles are the monitor's: no allowlist filter is built, the
 * boundary still is, and the names are still checked. */
static void allowlist_on_violation_alert_builds_no_allowlist(void **state)
{
	struct rf_policy *p = load(POLICY_HEAD "\"syscalls\":{\"allow\":[\"read\"],"
				   "\"on_violation\":\"alert\"}}");
	struct rf_policy *bad = load(POLICY_HEAD "\"syscalls\":{\"allow\":[\"nosuchcall\"],"
				     "\"on_violation\":\"alert\"}}");
	struct rf_seccomp f;
	char why[256];

	(void)state;
	assert_int_equal(sc_build(p, true, &f, why, sizeof(why)), 0);
	assert_int_equal(f.allowlist.len, 0);
	assert_true(f.boundary.len > 0);
	sandbox_seccomp__free(&f);
	assert_int_equal(sc_build(bad, true, &f, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "$.syscalls.allow[0]"));
	policy__free(p);
	policy__free(bad);
}

/*
 * A profile in the listener's filter, as the supervisor builds it where
 * the observe programs load: alert mode hands the listener every unlisted
 * number the boundary has no rules for (ptrace stays the boundary's),
 * deny mode every unlisted one (clone3 keeps ENOSYS in both). With the
 * listener closed (the supervisor gone, as sandbox_seccomp__install does)
 * every call outside the profile fails ENOSYS, in alert mode too: it fails
 * closed. Without a listener: "alert" installs nothing, "deny" is the
 * default-EPERM allowlist.
 */
static void profile_in_the_listeners_filter(void **state)
{
#define PROFILE_ALLOW "\"syscalls\":{\"allow\":[\"read\",\"write\",\"close\",\"getpid\"],"
	struct rf_policy *alert = load(POLICY_HEAD PROFILE_ALLOW "\"on_violation\":\"alert\"}}");
	struct rf_policy *deny = load(POLICY_HEAD PROFILE_ALLOW "\"on_violation\":\"deny\"}}");
#undef PROFILE_ALLOW
	struct rf_error err = { 0 };
	struct rf_seccomp f;

	(void)state;
	assert_int_equal(sandbox_seccomp__build_notify(alert, true, 0, true, &f, &err), 0);
	assert_true(f.notify && f.profile && f.prof_alert && f.boundary_rules);
	assert_int_equal(f.allowlist.len, 0);
	assert_true(sandbox_seccomp__nr_in(f.prof_notify, SYS_getppid));
	assert_true(sandbox_seccomp__nr_in(f.prof_out, SYS_getppid));
	assert_false(sandbox_seccomp__nr_in(f.prof_out, SYS_getpid));
	assert_false(sandbox_seccomp__nr_in(f.prof_out, SYS_execve));
	assert_false(sandbox_seccomp__nr_in(f.prof_out, SYS_exit_group));
	assert_true(sandbox_seccomp__nr_in(f.prof_out, SYS_ptrace));
	assert_false(sandbox_seccomp__nr_in(f.prof_notify, SYS_ptrace));
	assert_false(sandbox_seccomp__nr_in(f.prof_notify, SYS_clone3));
	expect_result(&f, "getpid (listed)", p_getpid, 0, 0);
	expect_result(&f, "getppid (alert, no listener)", p_getppid, 0, ENOSYS);
	expect_result(&f, "ptrace (the boundary's)", p_ptrace, 0, ENOSYS);
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	sandbox_seccomp__free(&f);

	assert_int_equal(sandbox_seccomp__build_notify(deny, false, 0, true, &f, &err), 0);
	assert_true(f.notify && f.profile && !f.prof_alert && !f.boundary_rules);
	assert_true(f.allowlist.len > 0);       /* the launcher's write and sendmsg, closed */
	assert_true(sandbox_seccomp__nr_in(f.prof_notify, SYS_ptrace));
	expect_result(&f, "getpid (listed)", p_getpid, 0, 0);
	expect_result(&f, "getppid (deny, no listener)", p_getppid, 0, ENOSYS);
	expect_result(&f, "clone3", p_clone3, 0, ENOSYS);
	sandbox_seccomp__free(&f);

	assert_int_equal(sandbox_seccomp__build_notify(alert, true, 0, false, &f, &err), 0);
	assert_false(f.profile);
	assert_int_equal(f.allowlist.len, 0);
	expect_result(&f, "getppid (alert, no listener at all)", p_getppid, 0, 0);
	sandbox_seccomp__free(&f);
	assert_int_equal(sandbox_seccomp__build_notify(deny, true, 0, false, &f, &err), 0);
	assert_false(f.profile);
	expect_result(&f, "getppid (deny allowlist)", p_getppid, 0, EPERM);
	sandbox_seccomp__free(&f);
	policy__free(alert);
	policy__free(deny);
}

/* policy.c refuses duplicates; a hand-built policy may still have them */
static void allowlist_duplicate_names_are_one_rule(void **state)
{
	char *names[] = { (char *)"write", (char *)"write", (char *)"exit_group",
			  (char *)"getpid", (char *)"getpid" };
	struct rf_policy p;
	struct rf_seccomp f;
	char why[256];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.syscalls.present = true;
	p.syscalls.allow = names;
	p.syscalls.n_allow = 5;
	assert_int_equal(sc_build(&p, false, &f, why, sizeof(why)), 0);
	/* write, exit_group, getpid; execve and exit added */
	assert_non_null(strstr(f.summary, "5 syscalls allowed"));
	expect_result(&f, "getpid", p_getpid, 0, 0);
	sandbox_seccomp__free(&f);
}

/* ---- resolve, summary, free, install ---- */

static void resolve_read_and_unknown_name(void **state)
{
	(void)state;
	assert_int_equal(sandbox_seccomp__resolve("read"), SYS_read);
	assert_int_equal(sandbox_seccomp__resolve("execve"), SYS_execve);
	assert_int_equal(sandbox_seccomp__resolve("nosuchcall"), -ENOENT);
	assert_int_equal(sandbox_seccomp__resolve(""), -ENOENT);
	assert_int_equal(sandbox_seccomp__resolve(NULL), -ENOENT);
}

static void summary_is_one_line_describing_both_filters(void **state)
{
	struct rf_seccomp f = build_policy("{\"allow\":[\"read\",\"write\"]}", true);

	(void)state;
	assert_null(strchr(f.summary, '\n'));
	assert_non_null(strstr(f.summary, "boundary: default allow"));
	/* read, write; execve, exit_group and exit added */
	assert_non_null(strstr(f.summary, "allowlist: default EPERM, 5 syscalls allowed"));
	assert_non_null(strstr(f.summary, "execve added"));
	assert_non_null(strstr(f.summary, "x32"));
	sandbox_seccomp__free(&f);
}

static void no_filters_requested_builds_nothing_and_installs_nothing(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"t\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\"}");
	struct rf_seccomp f;
	char why[256];

	(void)state;
	assert_int_equal(sc_build(p, false, &f, why, sizeof(why)), 0);
	assert_int_equal(f.boundary.len, 0);
	assert_int_equal(f.allowlist.len, 0);
	expect_result(&f, "PR_GET_SECCOMP after an empty install", p_seccomp_mode, 0, 0);
	sandbox_seccomp__free(&f);
	policy__free(p);
}

static void free_accepts_zeroed_struct_and_twice(void **state)
{
	struct rf_seccomp f;

	(void)state;
	memset(&f, 0, sizeof(f));
	sandbox_seccomp__free(&f);
	sandbox_seccomp__free(NULL);
	f = build_boundary();
	sandbox_seccomp__free(&f);
	assert_null(f.boundary.insns);
	assert_int_equal(f.boundary.len, 0);
	sandbox_seccomp__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probes_without_filter_are_not_eperm),
		cmocka_unit_test(boundary_refuses_each_listed_syscall_with_eperm),
		cmocka_unit_test(boundary_refuses_every_namespace_flag_in_clone_and_unshare),
		cmocka_unit_test(boundary_unshare_newuser_eperm_unshare_zero_allowed),
		cmocka_unit_test(boundary_clone_with_newuser_flag_eperm),
		cmocka_unit_test(boundary_clone3_enosys_and_libc_falls_back_to_clone),
		cmocka_unit_test(boundary_ioctl_tiocsti_tioclinux_eperm_upper_bits_ignored),
		cmocka_unit_test(boundary_personality_only_query_and_per_linux),
		cmocka_unit_test(boundary_allows_ordinary_calls),
#if defined(__x86_64__)
		cmocka_unit_test(boundary_kills_i386_int80_syscall),
		cmocka_unit_test(boundary_kills_x32_syscall),
		cmocka_unit_test(allowlist_kills_i386_and_x32_syscalls),
		cmocka_unit_test(boundary_personality_rules_match_spec_by_evaluation),
		cmocka_unit_test(boundary_ioctl_rules_ignore_upper_cmd_bits_by_evaluation),
		cmocka_unit_test(boundary_holes_by_evaluation),
		cmocka_unit_test(filters_kill_i386_and_x32_by_evaluation),
		cmocka_unit_test(holes_net_opts_refuse_routing_options_by_evaluation),
		cmocka_unit_test(holes_tasks_only_the_caller_by_evaluation),
#endif
		cmocka_unit_test(allowlist_allows_listed_refuses_others_with_eperm),
		cmocka_unit_test(allowlist_and_boundary_stricter_answer_wins),
		cmocka_unit_test(allowlist_unlisted_clone3_stays_enosys_under_boundary),
		cmocka_unit_test(allowlist_unknown_name_is_einval_naming_the_entry),
		cmocka_unit_test(allowlist_name_of_another_architecture_is_einval),
		cmocka_unit_test(allowlist_on_violation_alert_builds_no_allowlist),
		cmocka_unit_test(profile_in_the_listeners_filter),
		cmocka_unit_test(allowlist_duplicate_names_are_one_rule),
		cmocka_unit_test(resolve_read_and_unknown_name),
		cmocka_unit_test(summary_is_one_line_describing_both_filters),
		cmocka_unit_test(no_filters_requested_builds_nothing_and_installs_nothing),
		cmocka_unit_test(free_accepts_zeroed_struct_and_twice),
		cmocka_unit_test(notify_boundary_without_listener_still_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
