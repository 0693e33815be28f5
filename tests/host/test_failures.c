/*
 * Host tests of issue 14's "every failure says what happened and leaves
 * nothing half-made": each failure is a real kernel condition made for one
 * run (a private mount namespace, the ringfence cgroup's own limit; a
 * policy too large for its sandbox's maps is in test_sbmaps.c); each run
 * ends with its exit status and one reason on stderr, and afterwards `ringfence gc` finds nothing: no cgroup, registry
 * file or map entry of the run is left.
 */
#include "harness.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/sched.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "pins.h"
#include "rf_abi.h"

#define FAIL_POLICY(id)                                                                \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                 \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18371\"]}}"

#define PORT_OK 18371
#define PORT_NO 18372

/* Keys in one pinned map (all sandboxes'). */
static long map_keys(const char *pin, size_t key_size)
{
	unsigned char key[sizeof(struct rf_path_key)], next[sizeof(struct rf_path_key)];
	char path[256];
	long n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", rf_pins__dir(), pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	assert_true(key_size <= sizeof(key));
	while (!bpf_map_get_next_key(fd, n ? key : NULL, next)) {
		memcpy(key, next, key_size);
		n++;
	}
	close(fd);
	return n;
}

struct keycount {
	long sb, n4, un;
};

static struct keycount keys_now(void)
{
	struct keycount k = {
		map_keys("sandboxes", sizeof(uint64_t)),
		map_keys("net4", sizeof(struct rf_net4_key)),
		map_keys("unix", sizeof(struct rf_unix_key)),
	};

	return k;
}

/* stdout of `ringfence gc` (it prints one line per thing it removes). */
static char *gc_output(void)
{
	char cmd[600], buf[4096];
	size_t len = 0, n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s gc", h_sh(h_ringfence()));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (len < sizeof(buf) - 1 && (n = fread(buf + len, 1, sizeof(buf) - 1 - len, f)) > 0)
		len += n;
	buf[len] = 0;
	assert_int_equal(pclose(f), 0);
	return strdup(buf);
}

/* Nothing of the sandboxes named prefix* is left, and gc has nothing to do. */
static void assert_nothing_left(const char *prefix, struct keycount before)
{
	struct keycount after = keys_now();
	char *gc = gc_output();

	if (gc[0])
		fail_msg("gc found something left:\n%s", gc);
	free(gc);
	assert_int_equal(h_count_cgroups(prefix), 0);
	assert_int_equal(h_count_cgroups("probe-"), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, prefix), 0);
	assert_int_equal(after.sb, before.sb);
	assert_int_equal(after.n4, before.n4);
	assert_int_equal(after.un, before.un);
}

/* In the child: a private mount namespace, then setup (a function). */
static int private_ns(void *setup)
{
	int (*const *fn)(void) = setup;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	return (*fn)();
}

/* Runs `ringfence run` in a private mount namespace changed by ns_setup
 * first (nothing of it reaches the host's mounts); stderr into *ret_err. */
static int run_in_ns(int (*ns_setup)(void), const char *policy_json, const char *const *argv,
		     char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json);
	int rc = h_wait(h_spawn_with(policy, NULL, NULL, argv, private_ns, &ns_setup),
			ret_out, ret_err);

	unlink(policy);
	free(policy);
	return rc;
}

static int ro_registry(void)
{
	mkdir(RF_RUN_DIR, 0755);
	mkdir(RF_REGISTRY_DIR, 0755);
	return mount("tmpfs", RF_REGISTRY_DIR, "tmpfs", MS_RDONLY, "size=64k");
}

/* The registry directory is read-only: refused (126) before the command
 * starts, the reason names the directory and EROFS, nothing is left. */
static void registry_unwritable(void **state)
{
	const char *argv[] = { "/bin/echo", "ran", NULL };
	struct keycount before = keys_now();
	char *out, *err;

	(void)state;
	assert_int_equal(run_in_ns(ro_registry, FAIL_POLICY("fail-reg"), argv, &out, &err), 126);
	print_message("stderr: %s", err);
	assert_string_equal(out, "");
	assert_int_equal(h_lines(err), 1);
	assert_non_null(strstr(err, RF_REGISTRY_DIR));
	assert_non_null(strstr(err, strerror(EROFS)));
	assert_nothing_left("fail-reg-", before);
	free(out);
	free(err);
}

static int no_bpffs(void)
{
	return umount2("/sys/fs/bpf", MNT_DETACH);
}

/* Nothing mounted at /sys/fs/bpf: ringfence mounts a bpffs itself (its
 * documented start-up), loads and pins there, and enforces: the allowed
 * port connects, its neighbour is EPERM. */
static void bpffs_missing_is_mounted(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18371",
			       "tcp", "127.0.0.1", "18372", NULL };
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", PORT_OK, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", PORT_NO, SOCK_STREAM);
	struct keycount before = keys_now();
	char *out, *err;
	int rc;

	(void)state;
	rc = run_in_ns(no_bpffs, FAIL_POLICY("fail-bpffs"), argv, &out, &err);
	if (rc)
		fail_msg("exit %d: %s", rc, err);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18371"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18372"), "EPERM");
	assert_string_equal(err, "");
	/* the host's pins were never touched: their keys are as before */
	assert_nothing_left("fail-bpffs-", before);
	close(l1);
	close(l2);
	free(out);
	free(err);
}

/* No bpffs and none can be mounted (/sys/fs is a read-only tmpfs with only
 * the cgroup2 mount in it): refused (126), one line naming bpffs. */
static int no_bpffs_ro(void)
{
	char cg[512];

	snprintf(cg, sizeof(cg), "%s", h_cgroup2_mount());
	if (strncmp(cg, "/sys/fs/", 8)) {
		errno = ENOTSUP;
		return -1;
	}
	if (mount("tmpfs", "/sys/fs", "tmpfs", 0, "size=64k"))
		return -1;
	if (mkdir("/sys/fs/cgroup", 0755) || (strcmp(cg, "/sys/fs/cgroup") && mkdir(cg, 0755)))
		return -1;
	if (mount("none", cg, "cgroup2", 0, NULL))
		return -1;
	return mount(NULL, "/sys/fs", NULL, MS_REMOUNT | MS_RDONLY, "size=64k");
}

static void bpffs_cannot_be_mounted(void **state)
{
	const char *argv[] = { "/bin/echo", "ran", NULL };
	struct keycount before = keys_now();
	char *out, *err;

	(void)state;
	assert_int_equal(run_in_ns(no_bpffs_ro, FAIL_POLICY("fail-nobpf"), argv, &out, &err), 126);
	print_message("stderr: %s", err);
	assert_string_equal(out, "");
	assert_int_equal(h_lines(err), 1);
	assert_non_null(strstr(err, "bpffs"));
	assert_non_null(strstr(err, "/sys/fs/bpf"));
	assert_non_null(strstr(err, strerror(EROFS)));
	assert_nothing_left("fail-nobpf-", before);
	free(out);
	free(err);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static char saved_max[64];

static int restore_max_descendants(void **state)
{
	char path[700];

	(void)state;
	if (saved_max[0]) {
		snprintf(path, sizeof(path), "%s/cgroup.max.descendants", h_cg_parent());
		write_file(path, saved_max);
		saved_max[0] = 0;
	}
	return 0;
}

/* The kernel refuses the sandbox cgroup (cgroup.max.descendants of the
 * ringfence cgroup reached): refused (126) by run and by check alike, the
 * reason names the limit; nothing is left. */
static void cgroup_creation_refused(void **state)
{
	const char *argv[] = { "/bin/echo", "ran", NULL };
	struct keycount before = keys_now();
	char path[700], stat[4096] = "", *p, *out, *err, cmd[1200];
	long nr = -1;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/cgroup.max.descendants", h_cg_parent());
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(saved_max, sizeof(saved_max), f));
	fclose(f);
	snprintf(path, sizeof(path), "%s/cgroup.stat", h_cg_parent());
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(stat, 1, sizeof(stat) - 1, f) > 0);
	fclose(f);
	p = strstr(stat, "nr_descendants ");
	assert_non_null(p);
	nr = atol(p + strlen("nr_descendants "));
	/* no room for one more, whatever else lives there now */
	snprintf(cmd, sizeof(cmd), "%ld", nr);
	snprintf(path, sizeof(path), "%s/cgroup.max.descendants", h_cg_parent());
	write_file(path, cmd);

	assert_int_equal(h_run(FAIL_POLICY("fail-cg"), NULL, argv, &out, &err), 126);
	print_message("stderr: %s", err);
	assert_string_equal(out, "");
	/* one kernel condition, one line (not one per class it takes down) */
	assert_int_equal(h_lines(err), 1);
	assert_non_null(strstr(err, "cgroup.max.descendants"));
	assert_non_null(strstr(err, strerror(EAGAIN)));
	assert_null(strstr(err, "No such file"));
	free(out);
	free(err);

	/* check predicts the refusal with the same exit */
	p = h_tempfile("policy", FAIL_POLICY("fail-cg"));
	snprintf(cmd, sizeof(cmd), "%s check --policy %s >/dev/null 2>&1", h_sh(h_ringfence()), p);
	assert_int_equal(WEXITSTATUS(system(cmd)), 126);
	unlink(p);
	free(p);

	restore_max_descendants(NULL);
	assert_nothing_left("fail-cg-", before);
}

/* ringfence run as a child made by fn (which execs it); stdout and stderr
 * into *ret_out, *ret_err; the exit status. */
static int run_child(pid_t (*fn)(const char *const *args, void *arg), void *arg,
		     const char *policy_json, char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json);
	const char *args[] = { h_ringfence(), "run", "-q", "--policy", policy, "--",
			       "/bin/echo", "ran", NULL };
	int out[2], err[2], st, saved[2];
	pid_t pid;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	/* the child inherits these as its stdout and stderr */
	saved[0] = dup(1);
	saved[1] = dup(2);
	fflush(NULL);
	dup2(out[1], 1);
	dup2(err[1], 2);
	pid = fn(args, arg);
	dup2(saved[0], 1);
	dup2(saved[1], 2);
	close(saved[0]);
	close(saved[1]);
	assert_true(pid > 0);
	close(out[1]);
	close(err[1]);
	*ret_out = h_read_all(out[0]);
	*ret_err = h_read_all(err[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(policy);
	free(policy);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static pid_t fork_with_rlimit_as(const char *const *args, void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { *(rlim_t *)arg, *(rlim_t *)arg };

		if (setrlimit(RLIMIT_AS, &rl))
			_exit(98);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	return pid;
}

/* The supervisor has too little memory (RLIMIT_AS): one line, exit 123
 * (not a refusal of the policy, not the command's), the command never
 * ran, and nothing is left. With enough, the same run works. */
static void supervisor_out_of_memory(void **state)
{
	rlim_t sizes[] = { 16ul << 20, 32ul << 20 }, enough = 256ul << 20;
	struct keycount before = keys_now();
	char *out, *err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(run_child(fork_with_rlimit_as, &sizes[i], FAIL_POLICY("fail-oom"),
					   &out, &err), 123);
		print_message("RLIMIT_AS %lu MiB: %s", (unsigned long)(sizes[i] >> 20), err);
		assert_string_equal(out, "");
		assert_int_equal(h_lines(err), 1);
		assert_non_null(strstr(err, "out of memory"));
		assert_non_null(strstr(err, "RLIMIT_AS"));
		free(out);
		free(err);
	}
	assert_int_equal(run_child(fork_with_rlimit_as, &enough, FAIL_POLICY("fail-oom"),
				   &out, &err), 0);
	assert_string_equal(out, "ran\n");
	free(out);
	free(err);
	assert_nothing_left("fail-oom-", before);
}

/* A pid that no process has now, for clone3's set_tid. */
static pid_t free_pid(void)
{
	char p[64];
	long max = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	pid_t pid;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	/* clone3's set_tid takes only pids below pid_max */
	for (pid = getpid() + 7919; ; pid += 13) {
		if (pid >= max - 1 || pid < 300)
			pid = 300 + (getpid() % 1000);
		snprintf(p, sizeof(p), "/proc/%d", (int)pid);
		if (access(p, F_OK))
			return pid;
	}
}

static pid_t clone_with_pid(const char *const *args, void *arg)
{
	pid_t want = *(pid_t *)arg;
	struct clone_args ca = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)&want,
		.set_tid_size = 1,
	};
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));

	if (pid == 0) {
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	return (pid_t)pid;
}

/*
 * Scratch cgroups a dead run left, named for the very pid the next run
 * gets (clone3's set_tid picks it): the old probe-<pid> form and the
 * current probe-<pid>-<start>-<random> form with another start time. The
 * run is not refused ("no cgroup2 to attach to" was the old symptom), it
 * runs the command, its start-up gc removes the second, the next gc the
 * first.
 */
static void stale_scratch_dirs(void **state)
{
	struct keycount before = keys_now();
	char old_form[700], new_form[700], *out, *err;
	pid_t pid = free_pid();
	int rc;

	(void)state;
	snprintf(old_form, sizeof(old_form), "%s/probe-%d", h_cg_parent(), (int)pid);
	snprintf(new_form, sizeof(new_form), "%s/probe-%d-1-deadbeef", h_cg_parent(), (int)pid);
	assert_int_equal(mkdir(old_form, 0755), 0);
	assert_int_equal(mkdir(new_form, 0755), 0);
	rc = run_child(clone_with_pid, &pid, FAIL_POLICY("fail-stale"), &out, &err);
	print_message("pid %d: exit %d: %s", (int)pid, rc, err);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "ran\n");
	assert_string_equal(err, "");
	/* the current form: another start time, so dead; gone already */
	assert_int_equal(access(new_form, F_OK), -1);
	free(out);
	free(err);
	/* the old form names only a pid, which was live during the run: the
	 * next gc takes it */
	out = gc_output();
	assert_non_null(strstr(out, old_form));
	free(out);
	assert_int_equal(access(old_form, F_OK), -1);
	assert_nothing_left("fail-stale-", before);
}

static int setup(void **state)
{
	const char *argv[] = { "/bin/true", NULL };

	(void)state;
	if (harness_require_root())
		return -1;
	/* the pinned set exists, so the key counts have a baseline */
	return h_run(FAIL_POLICY("fail-setup"), NULL, argv, NULL, NULL) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_unwritable),
		cmocka_unit_test(bpffs_missing_is_mounted),
		cmocka_unit_test(bpffs_cannot_be_mounted),
		cmocka_unit_test_teardown(cgroup_creation_refused, restore_max_descendants),
		cmocka_unit_test(supervisor_out_of_memory),
		cmocka_unit_test(stale_scratch_dirs),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
