/* The user-space half of observe.bpf.c (supervisor/observe/observe.c): the syscall
 * table, which sandboxes ask for observation, and the matching of inferred
 * records against the policy (no kernel, no privileges). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include <seccomp.h>

#include "backends/obs_syscalls.h"
#include "observe/observe.h"
#include "plan/plan.h"
#include "policy/policy.h"
#include "backends/sandbox_seccomp.h"

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err;

	if (policy__load_string(json, &p, &err))
		fail_msg("%s: %s", err.where, err.why);
	return p;
}

/* This development host: Landlock ABI 7, seccomp, observe; no bpf-lsm. */
static struct rf_caps caps_host(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	c.cgroup_v2.ok = c.sock_addr.ok = c.unix_sock_addr.ok = true;
	c.landlock.ok = c.seccomp.ok = c.observe.ok = true;
	c.landlock_abi = 7;
	c.bpf_lsm.err = -1;
	return c;
}

struct fx {
	struct rf_policy *p;
	struct rf_plan plan;
	struct rf_observer o;
};

static void fx_init(struct fx *f, const char *json)
{
	struct rf_caps c = caps_host();

	f->p = load(json);
	plan__compile(f->p, &c, NULL, &f->plan);
	assert_true(f->plan.ok);
	assert_int_equal(observe__init(&f->o, f->p, &f->plan), 0);
}

static void fx_free(struct fx *f)
{
	observe__free(&f->o);
	policy__free(f->p);
}

#define POLICY_FS "{\"version\":1,\"id\":\"o\",\"files\":{\"read\":[\"/usr/\"]," \
		  "\"write\":[\"/tmp/\"]},\"exec\":[\"/usr/bin/true\"]," \
		  "\"network\":\"unrestricted\"}"

static struct rf_event path_ev(enum rf_class c, enum rf_op op, const char *path, uint32_t arg)
{
	struct rf_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.class = c;
	ev.op = op;
	ev.arg = arg;
	ev.pid = (uint32_t)getpid();
	ev.flags = RF_EVF_INFERRED | RF_EVF_SYSCALL;
	ev.target_pid = (uint32_t)-100;  /* AT_FDCWD */
	snprintf(ev.path, sizeof(ev.path), "%s", path);
	ev.path_len = strlen(ev.path);
	if (path[0] != '/')
		ev.flags |= RF_EVF_DIRFD;
	return ev;
}

static void table_names_this_architectures_numbers(void **state)
{
	struct rf_obs_syscall *t = calloc(RF_OBS_SYSCALL_MAX, sizeof(*t));
	int nr;

	(void)state;
	obs_syscalls__table(t);
	nr = seccomp_syscall_resolve_name("openat");
	assert_int_equal(t[nr].op, RF_OP_FILE_OPEN);
	assert_int_equal(t[nr].class, RF_CLASS_FILE);
	assert_int_equal(t[nr].path, 2);
	assert_int_equal(t[nr].dirfd, 1);
	nr = seccomp_syscall_resolve_name("ptrace");
	assert_int_equal(t[nr].op, RF_OP_PTRACE);
	assert_int_equal(t[nr].class, RF_CLASS_PROCESS);
	assert_int_equal(t[nr].path, 0);
	assert_int_equal(t[nr].target, 2);
	nr = seccomp_syscall_resolve_name("getpid");
	assert_int_equal(t[nr].op, 0);  /* not watched */
	free(t);
}

/* The observe programs' part of a sandbox's flags (the planner's). */
#define OBS(fx) (plan__sandbox_flags(&(fx).plan, (fx).p, true) & RF_OBSERVE_FLAGS)

static void sandbox_flags_follow_the_plan(void **state)
{
	struct fx f, a, u;

	(void)state;
	/* The boundary's refusals come from the supervisor's seccomp
	 * listener where the observe programs load: no BOUNDARY flag. */
	fx_init(&f, POLICY_FS);
	assert_true(f.plan.install.seccomp_notify);
	/* exec on landlock: the loader run as the program is killed at exec */
	assert_int_equal(OBS(f), RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_LOADER);
	fx_init(&a, "{\"version\":1,\"id\":\"a\",\"mode\":\"audit\",\"files\":{\"read\":[\"/usr/\"]},"
		    "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	assert_int_equal(OBS(a),
			 RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS);
	fx_init(&u, "{\"version\":1,\"id\":\"u\",\"files\":\"unrestricted\","
		    "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	assert_int_equal(OBS(u), 0);
	/* A boundary that refuses with ERRNO itself is seen at sys_exit. */
	f.plan.install.seccomp_notify = false;
	u.plan.install.seccomp_notify = false;
	assert_int_equal(OBS(f), RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY |
					 RF_SB_OBSERVE_LOADER);
	assert_int_equal(OBS(u), RF_SB_OBSERVE_BOUNDARY);
	fx_free(&f);
	fx_free(&a);
	fx_free(&u);
}

/* Landlock logs its own denials (audit on, ABI 7+): enforce mode observes
 * no failed path syscall; audit mode still does. The loader check (exec on
 * landlock) needs only the exec tracepoint (once per exec on the host). */
static void no_path_observation_when_landlock_logs(void **state)
{
	struct rf_caps c = caps_host();
	struct fx f, a;

	(void)state;
	c.landlock_abi = 7;
	c.landlock_audit_log = true;
	f.p = load(POLICY_FS);
	plan__compile(f.p, &c, NULL, &f.plan);
	assert_int_equal(f.plan.c[RF_CLASS_FILE].observed, RF_OBSV_KERNEL_AUDIT);
	assert_int_equal(f.plan.c[RF_CLASS_EXEC].observed, RF_OBSV_KERNEL_AUDIT);
	/* no syscall tracepoint: the exec one alone kills the loader */
	assert_int_equal(OBS(f), RF_SB_OBSERVE_LOADER);
	assert_false(plan__tracepoints(&f.plan));
	assert_true(plan__exec_tracepoint(&f.plan));
	assert_false(f.plan.gaps & (1ull << RF_GAP_EXEC_LOADER));
	/* a boundary refusing with ERRNO itself still needs sys_exit */
	f.plan.install.seccomp_notify = false;
	assert_int_equal(OBS(f), RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_LOADER);
	f.plan.install.seccomp_notify = true;
	/* the audit socket refused: inferred again */
	plan__landlock_unlogged(&f.plan, &c);
	assert_int_equal(f.plan.c[RF_CLASS_FILE].observed, RF_OBSV_INFERRED);
	assert_int_equal(f.plan.c[RF_CLASS_EXEC].observed, RF_OBSV_INFERRED);
	/* the syscall tracepoints attached after all; the loader killed as before */
	assert_int_equal(OBS(f), RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_LOADER);
	assert_false(f.plan.gaps & (1ull << RF_GAP_EXEC_LOADER));
	a.p = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\",\"files\":{\"read\":[\"/usr/\"]},"
		   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	plan__compile(a.p, &c, NULL, &a.plan);
	assert_int_equal(a.plan.c[RF_CLASS_FILE].observed, RF_OBSV_AUDIT_INFERRED);
	assert_int_equal(OBS(a),
			 RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS);
	policy__free(f.p);
	policy__free(a.p);
}

/* The bench's switch needs both variables, each exactly "1". */
static void test_no_observe_is_gated_on_test_hooks(void **state)
{
	(void)state;
	unsetenv("RINGFENCE_TEST_HOOKS");
	unsetenv("RINGFENCE_TEST_NO_OBSERVE");
	assert_false(observe__test_disabled());
	setenv("RINGFENCE_TEST_NO_OBSERVE", "1", 1);
	assert_false(observe__test_disabled());
	setenv("RINGFENCE_TEST_HOOKS", "0", 1);
	assert_false(observe__test_disabled());
	setenv("RINGFENCE_TEST_HOOKS", "1", 1);
	assert_true(observe__test_disabled());
	setenv("RINGFENCE_TEST_NO_OBSERVE", "yes", 1);
	assert_false(observe__test_disabled());
	unsetenv("RINGFENCE_TEST_NO_OBSERVE");
	assert_false(observe__test_disabled());
	unsetenv("RINGFENCE_TEST_HOOKS");
}

static void failed_open_outside_the_policy_is_a_denial(void **state)
{
	struct fx f;
	struct rf_event ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/usr/../etc//./shadow",
				     O_RDONLY);
	char be[32];

	(void)state;
	fx_init(&f, POLICY_FS);
	assert_true(observe__judge(&f.o, &ev));
	assert_string_equal(ev.path, "/etc/shadow");
	assert_int_equal(ev.need, RF_ACC_READ);
	assert_int_equal(ev.reason, RF_REASON_NO_RULE);
	assert_int_equal(ev.verdict, RF_VERDICT_DENIED);
	assert_int_equal(f.o.inferred[RF_CLASS_FILE], 1);
	assert_string_equal(observe__backend(&f.o, &ev, be, sizeof(be)), "landlock-abi7");
	/* a write open where only read is granted: access-not-allowed */
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/usr/share/x", O_WRONLY | O_TRUNC);
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(ev.need, RF_ACC_WRITE);
	assert_int_equal(ev.have, RF_ACC_READ);
	assert_int_equal(ev.reason, RF_REASON_ACCESS);
	/* O_CREAT of a name that does not exist: a create, needing write */
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/usr/rf-no-such-file", O_WRONLY | O_CREAT);
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(ev.op, RF_OP_CREATE);
	assert_int_equal(ev.need, RF_ACC_WRITE);
	fx_free(&f);
}

/* EACCES where the policy allows it is the file's mode, not ringfence. */
static void failure_the_policy_allows_is_not_a_denial(void **state)
{
	struct fx f;
	struct rf_event ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/tmp/x", O_RDWR);

	(void)state;
	fx_init(&f, POLICY_FS);
	assert_false(observe__judge(&f.o, &ev));
	assert_int_equal(f.o.not_policy, 1);
	/* Landlock has no chmod rules: never its denial */
	ev = path_ev(RF_CLASS_FILE, RF_OP_CHMOD, "/etc/passwd", 0644);
	assert_false(observe__judge(&f.o, &ev));
	/* a kernel record is not for the matcher */
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/etc/shadow", O_RDONLY);
	ev.flags = 0;
	assert_false(observe__judge(&f.o, &ev));
	fx_free(&f);
}

static void relative_path_resolves_against_the_cwd(void **state)
{
	struct fx f;
	struct rf_event ev = path_ev(RF_CLASS_FILE, RF_OP_MKDIR, "sub/dir", 0755);
	char cwd[512];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/usr"), 0);
	fx_init(&f, POLICY_FS);
	assert_true(observe__judge(&f.o, &ev));
	assert_string_equal(ev.path, "/usr/sub/dir");
	assert_int_equal(ev.reason, RF_REASON_ACCESS);
	assert_int_equal(chdir(cwd), 0);
	/* its process is gone: the name stays relative, unresolved */
	ev = path_ev(RF_CLASS_FILE, RF_OP_MKDIR, "sub/dir", 0755);
	ev.pid = 0x7ffffff0;
	assert_true(observe__judge(&f.o, &ev));
	assert_string_equal(ev.path, "sub/dir");
	assert_int_equal(ev.reason, RF_REASON_BAD_PATH);
	fx_free(&f);
}

static void exec_outside_and_audited_access(void **state)
{
	struct fx f, a;
	struct rf_event ev = path_ev(RF_CLASS_EXEC, RF_OP_EXEC, "/usr/bin/false", 0);

	(void)state;
	fx_init(&f, POLICY_FS);
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(ev.need, RF_ACC_EXEC);
	assert_int_equal(f.o.inferred[RF_CLASS_EXEC], 1);
	/* audit: a successful access the policy would refuse is audited */
	fx_init(&a, "{\"version\":1,\"id\":\"a\",\"mode\":\"audit\",\"files\":{\"read\":[\"/usr/\"]},"
		    "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/etc/hostname", O_RDONLY);
	ev.flags |= RF_EVF_ACCESS;
	assert_true(observe__judge(&a.o, &ev));
	assert_int_equal(ev.verdict, RF_VERDICT_AUDITED);
	assert_int_equal(a.o.audited[RF_CLASS_FILE], 1);
	assert_int_equal(a.o.inferred[RF_CLASS_FILE], 0);
	/* the same access again: traced once */
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/etc/hostname", O_RDONLY);
	ev.flags |= RF_EVF_ACCESS;
	assert_false(observe__judge(&a.o, &ev));
	assert_int_equal(a.o.repeats, 1);
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/etc/hostname", O_RDWR);
	ev.flags |= RF_EVF_ACCESS;
	assert_true(observe__judge(&a.o, &ev));  /* another access to it */
	ev = path_ev(RF_CLASS_FILE, RF_OP_FILE_OPEN, "/usr/lib/os-release", O_RDONLY);
	ev.flags |= RF_EVF_ACCESS;
	assert_false(observe__judge(&a.o, &ev));
	assert_int_equal(a.o.not_policy, 0);  /* a success is no failure */
	fx_free(&f);
	fx_free(&a);
}

static void boundary_records_by_their_arguments(void **state)
{
	struct fx f;
	struct rf_event ev;
	char be[32];

	(void)state;
	fx_init(&f, POLICY_FS);
	memset(&ev, 0, sizeof(ev));
	ev.flags = RF_EVF_INFERRED | RF_EVF_SYSCALL;
	ev.class = RF_CLASS_PROCESS;
	ev.reason = RF_REASON_BOUNDARY;  /* as boundary_exit and notify.c make it */
	ev.op = RF_OP_NAMESPACE;
	ev.arg = CLONE_NEWUSER;
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(ev.op, RF_OP_USERNS);
	assert_string_equal(observe__backend(&f.o, &ev, be, sizeof(be)), "seccomp");
	ev.op = RF_OP_NAMESPACE;
	ev.arg = CLONE_NEWNET;
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(ev.op, RF_OP_NAMESPACE);
	ev.arg = 0;  /* a plain clone that failed for another reason */
	assert_false(observe__judge(&f.o, &ev));
	ev.op = RF_OP_TTY_IOCTL;
	ev.arg = 0x5412;  /* TIOCSTI */
	assert_true(observe__judge(&f.o, &ev));
	ev.arg = 0x5401;  /* TCGETS */
	assert_false(observe__judge(&f.o, &ev));
	ev.op = RF_OP_PTRACE;
	ev.arg = 16;
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(f.o.inferred[RF_CLASS_PROCESS], 4);
	fx_free(&f);
}

/* The hole rules' refusals, as the seccomp listener describes them: every
 * one a denial of the seccomp boundary, in the class of what it closes. */
static void hole_records_are_boundary_denials(void **state)
{
	const uint64_t rthdr[6] = { 3, IPPROTO_IPV6, 57, 0, 0, 0 };
	const uint64_t nice[6] = { PRIO_PROCESS, 4242, 5, 0, 0, 0 };
	const uint64_t memfd[6] = { 0, MFD_CLOEXEC, 0, 0, 0, 0 };
	const uint64_t setflags[6] = { 3, 0x40086602, 0, 0, 0, 0 };
	const uint64_t tiocsti[6] = { 0, 0x5412, 0, 0, 0, 0 };
	struct fx f;
	struct rf_event ev;
	char be[32];

	(void)state;
	fx_init(&f, POLICY_FS);
	memset(&ev, 0, sizeof(ev));
	assert_true(sandbox_seccomp__hole_record(SYS_setsockopt, rthdr, &ev));
	assert_int_equal(ev.op, RF_OP_ROUTE_SOCKOPT);
	assert_int_equal(ev.class, RF_CLASS_PROCESS);
	assert_int_equal(ev.arg, IPPROTO_IPV6 << 16 | 57);
	assert_true(observe__judge(&f.o, &ev));
	assert_string_equal(observe__backend(&f.o, &ev, be, sizeof(be)), "seccomp");
	memset(&ev, 0, sizeof(ev));
	assert_true(sandbox_seccomp__hole_record(SYS_setpriority, nice, &ev));
	assert_int_equal(ev.op, RF_OP_SETNICE);
	assert_int_equal(ev.target_pid, 4242);
	assert_true(observe__judge(&f.o, &ev));
	memset(&ev, 0, sizeof(ev));
	assert_true(sandbox_seccomp__hole_record(SYS_fchmod, nice, &ev));
	assert_int_equal(ev.op, RF_OP_CHMOD);
	assert_int_equal(ev.class, RF_CLASS_FILE);
	assert_true(observe__judge(&f.o, &ev));  /* no path: the filter refused it */
	assert_string_equal(observe__backend(&f.o, &ev, be, sizeof(be)), "seccomp");
	memset(&ev, 0, sizeof(ev));
	assert_true(sandbox_seccomp__hole_record(SYS_ioctl, setflags, &ev));
	assert_int_equal(ev.op, RF_OP_INODE_IOCTL);
	memset(&ev, 0, sizeof(ev));
	assert_true(sandbox_seccomp__hole_record(SYS_memfd_create, memfd, &ev));
	assert_int_equal(ev.op, RF_OP_MEMFD_CREATE);
	assert_int_equal(ev.class, RF_CLASS_EXEC);
	assert_true(observe__judge(&f.o, &ev));
	assert_int_equal(f.o.exec_denied[0], 0);  /* no path to blame */
	/* the boundary's own refusals are not holes */
	assert_false(sandbox_seccomp__hole_record(SYS_ioctl, tiocsti, &ev));
	assert_false(sandbox_seccomp__hole_record(SYS_ptrace, tiocsti, &ev));
	assert_int_equal(f.o.inferred[RF_CLASS_PROCESS], 2);
	assert_int_equal(f.o.inferred[RF_CLASS_FILE], 1);
	assert_int_equal(f.o.inferred[RF_CLASS_EXEC], 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_names_this_architectures_numbers),
		cmocka_unit_test(sandbox_flags_follow_the_plan),
		cmocka_unit_test(no_path_observation_when_landlock_logs),
		cmocka_unit_test(test_no_observe_is_gated_on_test_hooks),
		cmocka_unit_test(failed_open_outside_the_policy_is_a_denial),
		cmocka_unit_test(failure_the_policy_allows_is_not_a_denial),
		cmocka_unit_test(relative_path_resolves_against_the_cwd),
		cmocka_unit_test(exec_outside_and_audited_access),
		cmocka_unit_test(boundary_records_by_their_arguments),
		cmocka_unit_test(hole_records_are_boundary_denials),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
