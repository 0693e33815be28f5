// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf/observe.bpf.c on its own: its skeleton loaded unpinned with its own
 * maps, the syscall table filled as the supervisor fills it, both programs
 * attached, a sandbox entry for a scratch cgroup of ours, and children
 * failing (or succeeding at) syscalls from inside and outside it.
 * Asserts on the records in rf_obs_access, rf_samples and the ring buffer:
 * a failed path syscall and a syscall a seccomp filter refused (which
 * never reaches sys_enter) are queued for the sandbox as candidates, never
 * as samples or ring-buffer decisions; their allowed twins and anything
 * outside the cgroup are not. rf_obs_verdict puts a judged record on the
 * ring buffer and refuses anything that is not a verdict.
 */
#include <pwd.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <seccomp.h>

#include "bpftest.h"
#include "rf_abi.h"
#include "backends/obs_syscalls.h"
#include "backends/unix_bytes.h"
#include "observe/observe.h"
#include "observe.skel.h"

static struct {
	struct observe_bpf *skel;
	struct bt_cgroup cg;
	struct bpf_link *enter, *exit;
	char dir[64];                   /* /tmp/rf-obs-prog-XXXXXX */
	char secret[96];                /* 0600 root: EACCES for nobody */
	char open_file[96];             /* 0644 */
	char secret_dot[100];           /* DIR/./secret: a dirfd + "./secret" */
	uid_t nobody;
	gid_t nogroup;
} T = { .cg.fd = -1 };

static int fd_of(struct bpf_map *m)
{
	return bpf_map__fd(m);
}

static void sandbox_put(uint32_t flags)
{
	struct rf_sandbox sb = { .flags = flags };
	struct rf_obs_sandbox obs = { 0 };

	assert_int_equal(bpf_map_update_elem(fd_of(T.skel->maps.rf_observe), &T.cg.id, &obs,
					     BPF_ANY), 0);
	bt_samples_make(fd_of(T.skel->maps.rf_samples), T.cg.id);
	assert_int_equal(bpf_map_update_elem(fd_of(T.skel->maps.rf_sandboxes), &T.cg.id, &sb,
					     BPF_ANY), 0);
}

static int n_samples(void)
{
	return bt_outer_count(fd_of(T.skel->maps.rf_samples), sizeof(struct rf_sample_key));
}

/* Candidate seq of the sandbox, from the queue. */
static int queued(uint64_t seq, struct rf_event *ev)
{
	struct rf_sample_key k = { .cgroup_id = T.cg.id, .seq = seq };

	return bpf_map_lookup_elem(fd_of(T.skel->maps.rf_obs_access), &k, ev) ? -errno : 0;
}

static int n_queued(void)
{
	return bt_map_count(fd_of(T.skel->maps.rf_obs_access), sizeof(struct rf_sample_key));
}

static int rb_count;
static struct rf_event rb_last;

static int on_rb(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size >= sizeof(rb_last))
		memcpy(&rb_last, data, sizeof(rb_last));
	rb_count++;
	return 0;
}

/* Records on the ring buffer since the last call. */
static int ring_records(void)
{
	struct ring_buffer *rb = ring_buffer__new(fd_of(T.skel->maps.rf_events), on_rb, NULL, NULL);

	assert_non_null(rb);
	rb_count = 0;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return rb_count;
}

static struct rf_obs_sandbox obs_get(void)
{
	struct rf_obs_sandbox o;

	assert_int_equal(bpf_map_lookup_elem(fd_of(T.skel->maps.rf_observe), &T.cg.id, &o), 0);
	return o;
}

/* ---- what the children do (return 0 or a positive errno) ---- */

static int become_nobody(void)
{
	return setresgid(T.nogroup, T.nogroup, T.nogroup) ||
	       setresuid(T.nobody, T.nobody, T.nobody) ? errno : 0;
}

static int act_open_as_nobody(void *path)
{
	int fd, e = become_nobody();

	if (e)
		return 100;
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/* As nobody, "secret" relative to the cwd, then relative to a dirfd. */
static int act_open_relative(void *dir)
{
	int dfd, e;

	if (chdir(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		return 102;
	e = become_nobody();
	if (e)
		return 100;
	if (open("secret", O_RDONLY) >= 0 || errno != EACCES)
		return 103;
	if (openat(dfd, "./secret", O_RDONLY) >= 0 || errno != EACCES)
		return 104;
	return EACCES;
}

static int act_open(void *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* ptrace refused by a seccomp filter of our own: never in sys_enter. */
static int act_ptrace_under_seccomp(void *unused)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	(void)unused;
	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0) ||
	    seccomp_load(ctx))
		return 101;
	seccomp_release(ctx);
	return ptrace(PTRACE_ATTACH, 1, 0, 0) ? errno : 0;
}

static int act_getpid(void *unused)
{
	(void)unused;
	return getpid() > 0 ? 0 : 1;
}

/* ---- fixtures ---- */

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	bpf_link__destroy(T.enter);
	bpf_link__destroy(T.exit);
	observe_bpf__destroy(T.skel);
	bt_cgroup_remove(&T.cg);
	if (T.dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", T.dir);
		if (system(cmd))
			return -1;
	}
	return 0;
}

static void put_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int group_setup(void **state)
{
	struct rf_obs_syscall *table;
	struct bpf_program *prog;
	struct passwd *pw = getpwnam("nobody");
	uint32_t nr, zero = 0;
	int pfd;

	(void)state;
	if (geteuid() != 0 || !pw) {
		fprintf(stderr, "test_observe_prog: needs root and a \"nobody\" user\n");
		return -1;
	}
	T.nobody = pw->pw_uid;
	T.nogroup = pw->pw_gid;
	snprintf(T.dir, sizeof(T.dir), "/tmp/rf-obs-prog-XXXXXX");
	assert_non_null(mkdtemp(T.dir));
	assert_int_equal(chmod(T.dir, 0755), 0);
	snprintf(T.secret, sizeof(T.secret), "%s/secret", T.dir);
	snprintf(T.open_file, sizeof(T.open_file), "%s/open", T.dir);
	snprintf(T.secret_dot, sizeof(T.secret_dot), "%s/./secret", T.dir);
	put_file(T.secret, 0600);
	put_file(T.open_file, 0644);
	assert_int_equal(bt_cgroup_scratch(&T.cg), 0);
	T.skel = observe_bpf__open();
	assert_non_null(T.skel);
	/* the unix byte programs this kernel takes, as enforcer.c's load */
	bpf_object__for_each_program(prog, T.skel->obj)
		if (!strncmp(bpf_program__name(prog), "rf_obs_unix_", 12))
			bpf_program__set_autoload(prog, unix_bytes__prog_loads(bpf_program__name(prog)));
	assert_int_equal(observe_bpf__load(T.skel), 0);
	bt_use_slots(fd_of(T.skel->maps.rf_sb_slots), fd_of(T.skel->maps.rf_slots));
	table = calloc(RF_OBS_SYSCALL_MAX, sizeof(*table));
	assert_non_null(table);
	obs_syscalls__table(table);
	for (nr = 0; nr < RF_OBS_SYSCALL_MAX; nr++)
		if (table[nr].op)
			assert_int_equal(bpf_map_update_elem(fd_of(T.skel->maps.rf_obs_syscalls),
							     &nr, &table[nr], BPF_ANY), 0);
	free(table);
	/* the scratch cgroup stands in for the ringfence parent */
	pfd = T.cg.fd;
	assert_int_equal(bpf_map_update_elem(fd_of(T.skel->maps.rf_obs_parent), &zero, &pfd,
					     BPF_ANY), 0);
	T.enter = bpf_program__attach_trace(T.skel->progs.rf_obs_enter);
	T.exit = bpf_program__attach_trace(T.skel->progs.rf_obs_exit);
	assert_non_null(T.enter);
	assert_non_null(T.exit);
	return 0;
}

/* Every test starts with an empty record and a fresh sandbox entry. */
static int test_setup(void **state)
{
	(void)state;
	bt_outer_clear(fd_of(T.skel->maps.rf_samples), sizeof(struct rf_sample_key));
	bt_map_clear(fd_of(T.skel->maps.rf_obs_access), sizeof(struct rf_sample_key));
	bt_map_clear(fd_of(T.skel->maps.rf_sandboxes), sizeof(uint64_t));
	ring_records();
	return 0;
}

/* ---- tests ---- */

static void failed_open_in_the_sandbox_is_recorded(void **state)
{
	struct rf_event ev;

	(void)state;
	sandbox_put(RF_SB_OBSERVE_PATHS);
	assert_int_equal(bt_run(&T.cg, act_open_as_nobody, T.secret), EACCES);
	/* a candidate for the supervisor: not a sample, not on the ring buffer */
	assert_int_equal(n_samples(), 0);
	assert_int_equal(ring_records(), 0);
	assert_int_equal(n_queued(), 1);
	assert_int_equal(obs_get().access_seq, 1);
	assert_int_equal(queued(0, &ev), 0);
	assert_int_equal(ev.verdict, 0);
	assert_int_equal(ev.class, RF_CLASS_FILE);
	assert_int_equal(ev.op, RF_OP_FILE_OPEN);
	assert_int_equal(ev.pid, bt_last_pid);
	assert_int_equal(ev.cgroup_id, T.cg.id);
	assert_true(ev.flags & RF_EVF_INFERRED);
	assert_false(ev.flags & (RF_EVF_ACCESS | RF_EVF_ERRNO_EPERM));
	assert_true(ev.flags & RF_EVF_SYSCALL);
	assert_int_equal(ev.syscall, seccomp_syscall_resolve_name("openat"));
	assert_string_equal(ev.path, T.secret);
	assert_int_equal(ev.path_len, strlen(T.secret));
	assert_int_equal(ev.arg & O_ACCMODE, O_RDONLY);
	assert_int_equal(obs_get().inferred[RF_CLASS_FILE], 1);
	/* its allowed twin: nothing */
	assert_int_equal(bt_run(&T.cg, act_open_as_nobody, T.open_file), 0);
	assert_int_equal(n_queued(), 1);
	assert_int_equal(n_samples(), 0);
}

/* Relative names are made absolute in the kernel, while the task is
 * there to ask (the cwd; a dirfd's file). */
static void relative_names_are_made_absolute(void **state)
{
	struct rf_event ev;
	int i;

	(void)state;
	sandbox_put(RF_SB_OBSERVE_PATHS);
	assert_int_equal(bt_run(&T.cg, act_open_relative, T.dir), EACCES);
	assert_int_equal(n_queued(), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(queued(i, &ev), 0);
		/* realpath: the kernel names the directory as it resolved it */
		assert_string_equal(ev.path, i == 0 ? T.secret : T.secret_dot);
		assert_false(ev.flags & RF_EVF_DIRFD);
	}
}

/* sys_exit alone (sys_enter is attached only for audit sandboxes): the
 * record is made from the registers at exit, relative names included;
 * scratch memory was taken for the failed calls only. */
static void sys_exit_alone_records_denials(void **state)
{
	struct rf_event ev;

	(void)state;
	bpf_link__destroy(T.enter);
	T.enter = NULL;
	sandbox_put(RF_SB_OBSERVE_PATHS);
	assert_int_equal(bt_run(&T.cg, act_open_as_nobody, T.secret), EACCES);
	assert_int_equal(n_queued(), 1);
	assert_int_equal(queued(0, &ev), 0);
	assert_int_equal(ev.op, RF_OP_FILE_OPEN);
	assert_string_equal(ev.path, T.secret);
	assert_int_equal(ev.arg & O_ACCMODE, O_RDONLY);
	assert_int_equal(ev.syscall, seccomp_syscall_resolve_name("openat"));
	assert_int_equal(bt_run(&T.cg, act_open_relative, T.dir), EACCES);
	assert_int_equal(n_queued(), 3);
	assert_int_equal(queued(1, &ev), 0);
	assert_string_equal(ev.path, T.secret);
	/* the allowed twin: nothing, and no scratch lost */
	assert_int_equal(bt_run(&T.cg, act_open_as_nobody, T.open_file), 0);
	assert_int_equal(n_queued(), 3);
	assert_int_equal(obs_get().scratch_lost, 0);
	T.enter = bpf_program__attach_trace(T.skel->progs.rf_obs_enter);
	assert_non_null(T.enter);
}

static void seccomp_refusal_reaches_sys_exit(void **state)
{
	struct rf_event ev;

	(void)state;
	sandbox_put(RF_SB_OBSERVE_BOUNDARY);
	assert_int_equal(bt_run(&T.cg, act_ptrace_under_seccomp, NULL), EPERM);
	assert_int_equal(n_samples(), 0);
	assert_int_equal(ring_records(), 0);
	assert_int_equal(n_queued(), 1);
	assert_int_equal(queued(0, &ev), 0);
	assert_int_equal(ev.class, RF_CLASS_PROCESS);
	assert_int_equal(ev.op, RF_OP_PTRACE);
	assert_int_equal(ev.reason, RF_REASON_BOUNDARY);
	assert_int_equal(ev.arg, PTRACE_ATTACH);
	assert_int_equal(ev.target_pid, 1);
	assert_true(ev.flags & RF_EVF_ERRNO_EPERM);
	assert_int_equal(ev.syscall, seccomp_syscall_resolve_name("ptrace"));
	assert_int_equal(obs_get().inferred[RF_CLASS_PROCESS], 1);
	/* an unwatched syscall, and a sandbox that does not ask: nothing */
	assert_int_equal(bt_run(&T.cg, act_getpid, NULL), 0);
	test_setup(NULL);
	sandbox_put(RF_SB_OBSERVE_PATHS);
	assert_int_equal(bt_run(&T.cg, act_ptrace_under_seccomp, NULL), EPERM);
	assert_int_equal(n_queued(), 0);
}

static void audit_records_successful_accesses_apart(void **state)
{
	struct rf_sample_key k = { .cgroup_id = 0 };
	struct rf_event ev;
	bool found = false;
	int fd;

	(void)state;
	sandbox_put(RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS);
	assert_int_equal(bt_run(&T.cg, act_open, T.open_file), 0);
	/* successes never take a sample slot, nor reach the ring buffer */
	assert_int_equal(n_samples(), 0);
	assert_int_equal(ring_records(), 0);
	fd = fd_of(T.skel->maps.rf_obs_access);
	for (k.cgroup_id = T.cg.id; k.seq < obs_get().access_seq; k.seq++) {
		assert_int_equal(bpf_map_lookup_elem(fd, &k, &ev), 0);
		assert_true(ev.flags & RF_EVF_ACCESS);
		found |= !strcmp(ev.path, T.open_file) && ev.op == RF_OP_FILE_OPEN;
	}
	assert_true(found);
}

static void nothing_outside_the_sandbox(void **state)
{
	(void)state;
	sandbox_put(RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY | RF_SB_OBSERVE_ACCESS);
	assert_int_equal(bt_run(NULL, act_open_as_nobody, T.secret), EACCES);
	assert_int_equal(bt_run(NULL, act_ptrace_under_seccomp, NULL), EPERM);
	assert_int_equal(bt_run(NULL, act_open, T.open_file), 0);
	assert_int_equal(n_samples(), 0);
	assert_int_equal(ring_records(), 0);
	assert_int_equal(obs_get().access_seq, 0);
	assert_int_equal(bt_map_count(fd_of(T.skel->maps.rf_obs_access),
				      sizeof(struct rf_sample_key)), 0);
}

static int run_verdict(struct rf_event *ev)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = ev, .ctx_size_in = sizeof(*ev));

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(T.skel->progs.rf_obs_verdict),
						&run), 0);
	return (int)run.retval;
}

/* The supervisor's verdict reaches the ring buffer as it was given (and
 * counts as a decision); a record without a verdict does not. */
static void verdict_program_publishes_verdicts_only(void **state)
{
	struct rf_event ev = { .kind = RF_EV_DECISION, .cgroup_id = 42, .class = RF_CLASS_FILE,
			       .op = RF_OP_FILE_OPEN, .verdict = RF_VERDICT_DENIED,
			       .flags = RF_EVF_INFERRED, .path = "/etc/shadow", .path_len = 11 };
	uint64_t decisions = bt_percpu_sum(fd_of(T.skel->maps.rf_stats), RF_STAT_DECISIONS);

	(void)state;
	assert_int_equal(run_verdict(&ev), 0);
	assert_int_equal(ring_records(), 1);
	assert_int_equal(memcmp(&rb_last, &ev, sizeof(ev)), 0);
	assert_int_equal(bt_percpu_sum(fd_of(T.skel->maps.rf_stats), RF_STAT_DECISIONS),
			 decisions + 1);
	ev.verdict = 0;
	assert_int_equal(run_verdict(&ev), 2);
	ev.verdict = RF_VERDICT_AUDITED;
	ev.kind = 0;
	assert_int_equal(run_verdict(&ev), 2);
	assert_int_equal(ring_records(), 0);
}

/* A refusal the seccomp listener answered takes the same program: made
 * the sandbox's next decision (stamped, numbered, kept as a sample) and
 * put on the ring buffer; none for a sandbox that is not there. */
static void verdict_program_publishes_listener_refusals(void **state)
{
	struct rf_event ev = { .cgroup_id = T.cg.id, .class = RF_CLASS_PROCESS,
			       .op = RF_OP_ROUTE_SOCKOPT, .reason = RF_REASON_BOUNDARY,
			       .flags = RF_EVF_INFERRED | RF_EVF_SYSCALL | RF_EVF_LISTENER };
	struct rf_sandbox sb;

	(void)state;
	sandbox_put(0);
	assert_int_equal(run_verdict(&ev), 0);
	assert_int_equal(run_verdict(&ev), 0);
	assert_int_equal(ring_records(), 2);
	assert_int_equal(rb_last.kind, RF_EV_DECISION);
	assert_int_equal(rb_last.verdict, RF_VERDICT_DENIED);
	assert_int_equal(rb_last.seq, 1);
	assert_true(rb_last.ts_boot_ns != 0);
	assert_int_equal(rb_last.op, RF_OP_ROUTE_SOCKOPT);
	assert_int_equal(n_samples(), 2);
	assert_int_equal(bpf_map_lookup_elem(fd_of(T.skel->maps.rf_sandboxes), &T.cg.id, &sb), 0);
	assert_int_equal(sb.deny_seq, 2);
	ev.cgroup_id = T.cg.id + 1;
	assert_int_equal(run_verdict(&ev), 3);
	assert_int_equal(ring_records(), 0);
}

#define T_(f) cmocka_unit_test_setup(f, test_setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_(failed_open_in_the_sandbox_is_recorded),
		T_(relative_names_are_made_absolute),
		T_(sys_exit_alone_records_denials),
		T_(seccomp_refusal_reaches_sys_exit),
		T_(audit_records_successful_accesses_apart),
		T_(nothing_outside_the_sandbox),
		T_(verdict_program_publishes_verdicts_only),
		T_(verdict_program_publishes_listener_refusals),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
