/*
 * Host tests of a supervisor's death (issue 14): `ringfence run` killed
 * with SIGKILL at random instants of its start-up leaves nothing that one
 * `ringfence gc` does not remove, found from the kernel's state; killed
 * while its command runs, the reaper kills the sandbox (default) or lets
 * it run on confined (--keep-running) and cleans up once it ends; gc
 * removes what a dead supervisor and a dead reaper left, and stale probe
 * scratch cgroups.
 */
#include "harness.h"
#include "leaks.h"

#include <dirent.h>
#include <time.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "rf_abi.h"

#define CRASH_POLICY                                                              \
	"{\"version\":1,\"id\":\"crash\",\"files\":\"unrestricted\","             \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18191\"," \
	"\"127.0.0.1:18200-18210\",\"10.9.0.0/16:443\",\"[::1]:18191\"],"         \
	"\"unix\":[\"@rf-crash\"]}}"

#define KILLS 200

/* `ringfence gc [-q]`: its exit status; stdout into *ret_out. */
static int run_gc(bool quiet, char **ret_out)
{
	char cmd[1024], buf[4096];
	size_t len = 0, n;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s gc%s", h_sh(h_ringfence()), quiet ? " -q" : "");
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf + len, 1, sizeof(buf) - 1 - len, f)) > 0 && len < sizeof(buf) - 1)
		len += n;
	buf[len] = 0;
	while (fread(cmd, 1, sizeof(cmd), f) > 0)
		;
	st = pclose(f);
	if (ret_out)
		*ret_out = strdup(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Until cond(arg) holds, at most ms; whether it did. */
static bool within(int ms, bool (*cond)(const void *arg), const void *arg)
{
	for (; ms > 0; ms -= 20, usleep(20 * 1000))
		if (cond(arg))
			return true;
	return cond(arg);
}

static bool gone(const void *path)
{
	return !exists(path);
}

static bool no_registry(const void *prefix)
{
	return h_count_prefixed(RF_REGISTRY_DIR, prefix) == 0;
}

static bool ids_without(const void *id)
{
	struct h_idset s;

	h_map_ids(&s);
	return !h_idset_has(&s, *(const uint64_t *)id);
}

/* A sandbox whose command runs: its supervisor, cgroup path and id and
 * the command's pid. */
struct live {
	struct h_proc p;
	char cgpath[4096];
	uint64_t cgid;
	pid_t child;
	char *policy;
	char *trace;
};

static void start_live(struct live *l, const char *extra, const char *const *argv)
{
	const char *ex[] = { extra, NULL };
	json_t *reg;

	memset(l, 0, sizeof(*l));
	l->policy = h_tempfile("policy", CRASH_POLICY);
	l->trace = h_tempfile("trace", NULL);
	l->p = h_spawn(l->policy, l->trace, extra ? ex : NULL, argv);
	reg = h_wait_registered("crash-");
	l->cgid = (uint64_t)json_integer_value(json_object_get(reg, "cgroup_id"));
	l->child = (pid_t)json_integer_value(json_object_get(reg, "pid"));
	snprintf(l->cgpath, sizeof(l->cgpath), "%s",
		 json_string_value(json_object_get(reg, "cgroup_path")));
	assert_string_equal(json_string_value(json_object_get(reg, "on_supervisor_exit")),
			    extra ? "keep-running" : "kill");
	json_decref(reg);
}

static void kill_supervisor(struct live *l)
{
	int st;

	assert_int_equal(kill(l->p.pid, SIGKILL), 0);
	assert_int_equal(waitpid(l->p.pid, &st, 0), l->p.pid);
	/* the command may still hold the pipes: do not read them to the end */
	close(l->p.out_fd);
	close(l->p.err_fd);
}

static void free_live(struct live *l)
{
	unlink(l->policy);
	unlink(l->trace);
	free(l->policy);
	free(l->trace);
}

/* Orphans (reapers whose supervisor was killed, commands that outlived
 * it) are re-parented to this process, not to an init that may not reap. */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* After a test (a failed one included): no sandbox of it is left for the
 * next one to find first (h_wait_registered("crash-")). Killing the
 * command ends a live supervisor; gc removes what dead ones left. */
static int teardown_test(void **state)
{
	char path[700];
	struct dirent *de;
	DIR *d = opendir(h_cg_parent());

	(void)state;
	while (d && (de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, "crash-", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.kill", h_cg_parent(), de->d_name);
		f = fopen(path, "w");
		if (f) {
			fputs("1", f);
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	within(3000, no_registry, "crash-");
	reap_orphans();
	run_gc(true, NULL);
	return 0;
}

static int setup(void **state)
{
	const char *argv[] = { "/bin/true", NULL };

	(void)state;
	if (harness_require_root())
		return -1;
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* The pinned set exists from here on; nothing of an earlier crash. */
	if (h_run(CRASH_POLICY, NULL, argv, NULL, NULL) != 0)
		return -1;
	return run_gc(true, NULL) == 0 ? 0 : -1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* How long a whole run of /bin/true takes here (the longest of three). */
static useconds_t full_run_us(const char *policy)
{
	const char *argv[] = { "/bin/true", NULL };
	double t, worst = 0;
	int i;

	for (i = 0; i < 3; i++) {
		t = now_s();
		assert_int_equal(h_wait(h_spawn(policy, NULL, NULL, argv), NULL, NULL), 0);
		t = now_s() - t;
		worst = t > worst ? t : worst;
	}
	return (useconds_t)(worst * 1e6);
}

/*
 * The test: SIGKILL at 200 random instants of the start-up, then
 * one gc leaves nothing of those runs. Half the delays are 0-30 ms (the
 * issue's), half spread over a whole run on this host so every step is
 * hit; every other time the reaper dies first, so only gc (and the next
 * run's start) can find what is left.
 */
static void start_up_kills_leave_nothing_after_one_gc(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char *policy = h_tempfile("policy", CRASH_POLICY), *out = NULL;
	struct h_idset before, after;
	useconds_t span = full_run_us(policy);
	int i, st, finished = 0, left = 0;
	double t0 = now_s();
	size_t k;

	(void)state;
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	h_map_ids(&before);
	for (i = 0; i < KILLS; i++) {
		struct h_proc p = h_spawn(policy, NULL, NULL, argv);
		pid_t r;

		usleep(i & 2 ? (useconds_t)rand() % (span + 1) : (useconds_t)(rand() % 30001));
		if ((i & 1) && (r = h_reaper_of(p.pid)) > 0)
			kill(r, SIGKILL);
		kill(p.pid, SIGKILL);
		assert_int_equal(waitpid(p.pid, &st, 0), p.pid);
		finished += WIFEXITED(st);
		left += h_count_cgroups("crash-") > 0;
		close(p.out_fd);
		close(p.err_fd);
		reap_orphans();
	}
	assert_int_equal(run_gc(false, &out), 0);
	print_message("%d kills over 0-30 ms and 0-%u us (%d runs finished first, %d left a "
		      "sandbox cgroup) in %.1f s; gc removed %d things\n", KILLS,
		      (unsigned)span, finished, left, now_s() - t0, h_lines(out));
	free(out);
	/* the window between mkdir and exit was hit, not only the parsing */
	assert_true(left > 0);
	assert_int_equal(h_count_cgroups("crash-"), 0);
	assert_int_equal(h_count_cgroups("probe-"), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "crash-"), 0);
	h_map_ids(&after);
	for (k = 0; k < after.n; k++)
		if (!h_idset_has(&before, after.id[k]))
			fail_msg("map entries of cgroup id %llu are left",
				 (unsigned long long)after.id[k]);
	/* and a second gc finds nothing */
	assert_int_equal(run_gc(false, &out), 0);
	assert_string_equal(out, "");
	free(out);
	unlink(policy);
	free(policy);
}

/* Default: the sandbox dies with its supervisor, even under SIGKILL (and
 * a process the command forked too); the reaper removes everything. */
static void supervisor_kill_kills_the_sandbox(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "sleep 30 & exec sleep 31", NULL };
	struct live l;
	json_t *tr;

	(void)state;
	start_live(&l, NULL, argv);
	kill_supervisor(&l);
	assert_true(within(5000, gone, l.cgpath));
	assert_true(h_dead(l.child));
	assert_true(within(3000, no_registry, "crash-"));
	assert_true(within(3000, ids_without, &l.cgid));
	assert_int_equal(h_count_cgroups("crash-"), 0);
	/* the trace said so up front; no sandbox.exit after a SIGKILL */
	tr = h_trace(l.trace);
	assert_string_equal(json_string_value(json_object_get(h_event(tr, "sandbox.plan", 0),
							      "on_supervisor_exit")), "kill");
	assert_int_equal(h_count_events(tr, "sandbox.exit"), 0);
	json_decref(tr);
	free_live(&l);
}

static bool populated(const void *path)
{
	char file[4200], buf[256];
	FILE *f;
	bool p = false;

	snprintf(file, sizeof(file), "%s/cgroup.events", (const char *)path);
	f = fopen(file, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		if (!strcmp(buf, "populated 1\n"))
			p = true;
	fclose(f);
	return p;
}

/* `ringfence status --json` gives the sandbox of cgroup id cgid this state. */
static bool status_says(uint64_t cgid, const char *state)
{
	char cmd[600];
	json_t *arr, *e;
	bool found = false;
	size_t i;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s status --json", h_sh(h_ringfence()));
	f = popen(cmd, "r");
	assert_non_null(f);
	arr = json_loadf(f, 0, NULL);
	pclose(f);
	json_array_foreach(arr, i, e)
		if ((uint64_t)json_integer_value(json_object_get(e, "cgroup_id")) == cgid)
			found = !strcmp(json_string_value(json_object_get(e, "state")), state);
	json_decref(arr);
	return found;
}

/* --keep-running: the command outlives its supervisor, still confined;
 * gc leaves it alone; once it ends the reaper removes everything. */
static void keep_running_outlives_the_supervisor(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	char file[4200], *out = NULL;
	struct h_idset ids;
	struct live l;
	json_t *tr;
	FILE *f;

	(void)state;
	start_live(&l, "--keep-running", argv);
	kill_supervisor(&l);
	usleep(300 * 1000);
	assert_false(h_dead(l.child));
	assert_true(populated(l.cgpath));
	h_map_ids(&ids);
	assert_true(h_idset_has(&ids, l.cgid));     /* still confined */
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "crash-"), 1);
	assert_int_equal(run_gc(false, &out), 0);
	assert_string_equal(out, "");             /* not a leftover */
	free(out);
	assert_true(exists(l.cgpath));
	assert_true(status_says(l.cgid, "kept"));
	tr = h_trace(l.trace);
	assert_string_equal(json_string_value(json_object_get(h_event(tr, "sandbox.plan", 0),
							      "on_supervisor_exit")), "keep-running");
	json_decref(tr);

	/* it ends: the reaper cleans up */
	snprintf(file, sizeof(file), "%s/cgroup.kill", l.cgpath);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("1", f);
	fclose(f);
	assert_true(within(5000, gone, l.cgpath));
	assert_true(within(3000, no_registry, "crash-"));
	assert_true(within(3000, ids_without, &l.cgid));
	free_live(&l);
}

/* Supervisor and reaper both killed while the command runs: gc finds the
 * sandbox from the kernel's state, kills it and removes everything. */
static void gc_removes_what_a_dead_supervisor_and_reaper_left(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	char *out = NULL;
	struct h_idset ids;
	struct live l;
	pid_t r;

	(void)state;
	start_live(&l, NULL, argv);
	r = h_reaper_of(l.p.pid);
	assert_true(r > 0);
	assert_int_equal(kill(r, SIGKILL), 0);
	usleep(50 * 1000);
	kill_supervisor(&l);
	usleep(200 * 1000);
	assert_true(exists(l.cgpath));            /* nobody cleaned up */
	h_map_ids(&ids);
	assert_true(h_idset_has(&ids, l.cgid));
	assert_int_equal(run_gc(false, &out), 0);
	if (!strstr(out, l.cgpath) || !strstr(out, "registry file") ||
	    !strstr(out, "map entr"))
		fail_msg("gc did not report what it removed:\n%s", out);
	free(out);
	assert_false(exists(l.cgpath));
	assert_true(h_dead(l.child));
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "crash-"), 0);
	h_map_ids(&ids);
	assert_false(h_idset_has(&ids, l.cgid));
	assert_int_equal(run_gc(true, &out), 0);
	assert_string_equal(out, "");
	free(out);
	free_live(&l);
}

/* A pid that no process has now (a child that ended). */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* Scratch cgroups of dead probes (both naming schemes) go; a live
 * process's stays; a run is not misled by a stale one. */
static void gc_removes_dead_probe_scratch_cgroups(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char stale[700], old[700], mine[700], *out = NULL;

	(void)state;
	snprintf(stale, sizeof(stale), "%s/probe-%d-12345-0badf00d", h_cg_parent(), (int)dead_pid());
	snprintf(old, sizeof(old), "%s/probe-%d", h_cg_parent(), (int)dead_pid());
	/* ours, named as the probe names it: pid 1 with its real start time
	 * would do too, but this process is the one we know is alive */
	{
		char stat[64], buf[1024], *p;
		unsigned long long start = 0;
		int i;
		FILE *f;

		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)getpid());
		f = fopen(stat, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		p = strrchr(buf, ')');
		for (i = 3; i <= 22 && p; i++)
			p = strchr(p + 1, ' ');
		assert_non_null(p);
		sscanf(p, " %llu", &start);
		snprintf(mine, sizeof(mine), "%s/probe-%d-%llu-00c0ffee", h_cg_parent(),
			 (int)getpid(), start);
	}
	assert_int_equal(mkdir(stale, 0755), 0);
	assert_int_equal(mkdir(old, 0755), 0);
	assert_int_equal(mkdir(mine, 0755), 0);
	assert_int_equal(run_gc(false, &out), 0);
	if (!strstr(out, stale) || !strstr(out, old) || strstr(out, mine))
		fail_msg("gc output:\n%s", out);
	free(out);
	assert_false(exists(stale));
	assert_false(exists(old));
	assert_true(exists(mine));
	/* a run starts in spite of a stale one, and its start collects it */
	assert_int_equal(mkdir(stale, 0755), 0);
	assert_int_equal(h_run(CRASH_POLICY, NULL, argv, NULL, NULL), 0);
	assert_false(exists(stale));
	assert_true(exists(mine));
	assert_int_equal(rmdir(mine), 0);
}

/* A registry writer killed between its temp file and the exchange leaves
 * NAME.json.tmp: `ringfence gc` removes it, and so does a run's start
 * (which reads the directory again only when its listing met one). */
static void gc_removes_stale_registry_temp_files(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char tmp[700], *out = NULL;
	int fd;

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/crash-stale-0badf00d.json.tmp", RF_REGISTRY_DIR);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_gc(false, &out), 0);
	if (!strstr(out, "crash-stale-0badf00d.json.tmp"))
		fail_msg("gc output:\n%s", out);
	free(out);
	assert_false(exists(tmp));

	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(h_run(CRASH_POLICY, NULL, argv, NULL, NULL), 0);
	assert_false(exists(tmp));
}

/* A sandbox cgroup no registry file names (its supervisor and reaper died
 * between the mkdir and the file): a run's start sees the kernel count one
 * cgroup more than there are files, lists them and removes it. */
static void start_removes_a_cgroup_no_file_names(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char orphan[700];

	(void)state;
	snprintf(orphan, sizeof(orphan), "%s/crash-orphan-0badf00d", h_cg_parent());
	assert_int_equal(mkdir(orphan, 0755), 0);
	assert_int_equal(h_run(CRASH_POLICY, NULL, argv, NULL, NULL), 0);
	assert_false(exists(orphan));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(start_up_kills_leave_nothing_after_one_gc, teardown_test),
		cmocka_unit_test_teardown(supervisor_kill_kills_the_sandbox, teardown_test),
		cmocka_unit_test_teardown(keep_running_outlives_the_supervisor, teardown_test),
		cmocka_unit_test_teardown(gc_removes_what_a_dead_supervisor_and_reaper_left, teardown_test),
		cmocka_unit_test_teardown(gc_removes_dead_probe_scratch_cgroups, teardown_test),
		cmocka_unit_test_teardown(gc_removes_stale_registry_temp_files, teardown_test),
		cmocka_unit_test_teardown(start_removes_a_cgroup_no_file_names, teardown_test),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, NULL);
}
