/*
 * Host tests: root without --user runs the command as a dynamic uid, not
 * uid 0 (issue 21; systemd DynamicUser=). Each refusal is tried from
 * inside the sandbox next to its allowed twin: a root-0600 file the policy
 * lets it read is refused (--user root still reads it); the policy's write
 * areas (id-mapped: root's files there are the command's, what it makes is
 * root's on disk) and the scratch take its writes, nothing else of the
 * host's does (nothing left for the uid's next holder); files
 * "unrestricted" runs as uid 0, said. The plan's user says which uid ran and why;
 * two sandboxes at once get two uids; a write area that cannot be
 * id-mapped falls back to uid 0 with the gap process.root (refused under
 * --strict). A released uid leaves no lock file in RF_DYNUSER_DIR, many
 * runs at once never share a uid, and the lock protocol never gives one
 * uid two holders while its files come and go.
 */
#include "harness.h"

#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>

#include "launch/dynuser.h"

#define DYN_BASE 1879048192L
#define DYN_COUNT 65536L

/* A fresh directory under base the dynamic uid may enter (mkdtemp's 0700
 * would refuse it for that alone). */
static char *h_dir_at(const char *base, const char *tag)
{
	char *d = NULL;

	assert_true(asprintf(&d, "%s/rf-user-%s-XXXXXX", base, tag) > 0);
	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0755), 0);
	return d;
}

static char *h_dir(const char *tag)
{
	return h_dir_at("/tmp", tag);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* A policy reading /usr, /etc, /dev, /proc and read_dir, writing /dev/null
 * and write_dir (either may be NULL), with limits (NULL: none). */
static char *policy(const char *read_dir, const char *write_dir, const char *limits)
{
	char *s = NULL;

	assert_true(asprintf(&s,
			     "{\"version\":1,\"id\":\"dynuser\",\"files\":{\"read\":[\"/usr/\","
			     "\"/etc/\",\"/dev/\",\"/proc/\"%s%s%s],\"write\":[\"/dev/null\"%s%s%s]},"
			     "\"exec\":[\"/usr/\"],\"network\":{\"connect\":[],\"unix\":[]}%s%s}",
			     read_dir ? ",\"" : "", read_dir ? read_dir : "", read_dir ? "/\"" : "",
			     write_dir ? ",\"" : "", write_dir ? write_dir : "",
			     write_dir ? "/\"" : "", limits ? ",\"limits\":" : "",
			     limits ? limits : "") > 0);
	return s;
}

/* `sh -c script` under the policy text, extra options first: exit status,
 * stdout; the trace's sandbox.plan user object in *ret_user (if asked). */
static int run_sh(const char *pol, const char *const *extra, const char *script, char **ret_out,
		  json_t **ret_user)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	char *pfile = h_tempfile("policy", pol), *trace = h_tempfile("trace", NULL), *err = NULL;
	int rc = h_wait(h_spawn(pfile, trace, extra, argv), ret_out, &err);

	if (rc != 0)
		fprintf(stderr, "rc %d: %s", rc, err);
	if (ret_user) {
		json_t *t = h_trace(trace), *plan = h_event(t, "sandbox.plan", 0);

		assert_non_null(plan);
		*ret_user = json_incref(json_object_get(plan, "user"));
		assert_non_null(*ret_user);
		json_decref(t);
	}
	unlink(pfile);
	unlink(trace);
	free(pfile);
	free(trace);
	free(err);
	return rc;
}

static long user_int(json_t *u, const char *k)
{
	return (long)json_integer_value(json_object_get(u, k));
}

static const char *user_why(json_t *u)
{
	return json_string_value(json_object_get(u, "why"));
}

static void assert_dynamic(json_t *u)
{
	long uid = user_int(u, "uid");

	assert_string_equal(user_why(u), "dynamic");
	if (uid < DYN_BASE || uid >= DYN_BASE + DYN_COUNT)
		fail_msg("dynamic uid %ld outside the range", uid);
	assert_int_equal(user_int(u, "gid"), uid);
}

/* The command's ids: the plan's dynamic uid, its gid alone, no capability. */
static void dynamic_uid_runs_the_command(void **state)
{
	char *pol = policy(NULL, NULL, NULL), *out = NULL, want[128];
	json_t *u = NULL;

	(void)state;
	assert_int_equal(run_sh(pol, NULL, "echo u=$(id -u) g=$(id -g) G=$(id -G);"
				"grep -E '^Cap(Prm|Eff)' /proc/self/status | tr -s '\\t' ' '",
				&out, &u), 0);
	assert_dynamic(u);
	snprintf(want, sizeof(want), "u=%ld g=%ld G=%ld\n", user_int(u, "uid"),
		 user_int(u, "uid"), user_int(u, "uid"));
	if (!strstr(out, want) || !strstr(out, "CapPrm: 0000000000000000") ||
	    !strstr(out, "CapEff: 0000000000000000"))
		fail_msg("expected %s and no capabilities:\n%s", want, out);
	json_decref(u);
	free(out);
	free(pol);
}

/* --user root: uid 0, asked for; --user 65534: that user. */
static void user_option_says_why(void **state)
{
	const char *root[] = { "--user", "root", NULL }, *nobody[] = { "--user", "65534", NULL };
	char *pol = policy(NULL, NULL, NULL), *out = NULL;
	json_t *u = NULL;

	(void)state;
	assert_int_equal(run_sh(pol, root, "id -u", &out, &u), 0);
	assert_string_equal(out, "0\n");
	assert_string_equal(user_why(u), "root");
	assert_int_equal(user_int(u, "uid"), 0);
	json_decref(u);
	free(out);
	assert_int_equal(run_sh(pol, nobody, "id -u", &out, &u), 0);
	assert_string_equal(out, "65534\n");
	assert_string_equal(user_why(u), "user");
	json_decref(u);
	free(out);
	free(pol);
}

/* A root-0600 file the policy lets it read: refused to the dynamic uid,
 * read by --user root; its 0644 neighbour read by both. */
static void root_private_file_refused(void **state)
{
	const char *root[] = { "--user", "root", NULL };
	char *d = h_dir("read"), *pol = policy(d, NULL, NULL), *out = NULL, script[512];

	(void)state;
	write_file(strcat(strcpy(script, d), "/secret"), "s3cret\n", 0600);
	write_file(strcat(strcpy(script, d), "/open"), "open\n", 0644);
	snprintf(script, sizeof(script),
		 "cat %s/secret 2>/dev/null || echo secret-refused; cat %s/open", d, d);
	assert_int_equal(run_sh(pol, NULL, script, &out, NULL), 0);
	if (strstr(out, "s3cret") || !strstr(out, "secret-refused\n") || !strstr(out, "open\n"))
		fail_msg("the dynamic uid read root's 0600 file or not the 0644 one:\n%s", out);
	free(out);
	assert_int_equal(run_sh(pol, root, script, &out, NULL), 0);
	if (!strstr(out, "s3cret\n") || !strstr(out, "open\n"))
		fail_msg("--user root did not read both:\n%s", out);
	free(out);
	snprintf(script, sizeof(script), "%s/secret", d);
	unlink(script);
	snprintf(script, sizeof(script), "%s/open", d);
	unlink(script);
	rmdir(d);
	free(d);
	free(pol);
}

/* The plan's gaps name process.root. */
static bool gap_root(json_t *plan_ev)
{
	json_t *gaps = json_object_get(json_object_get(plan_ev, "plan"), "gaps"), *g;
	bool gap = false;
	size_t i;

	json_array_foreach(gaps, i, g)
		gap |= !strcmp(json_string_value(json_object_get(g, "gap")), "process.root");
	return gap;
}

/* files "unrestricted": no dynamic uid, which could leave files in the
 * host's world-writable places for the uid's next holder (nothing else
 * keeps it from writing them): uid 0, said (root-fallback, the reason, gap
 * process.root); --strict refuses. */
static void unrestricted_runs_as_uid_0_said(void **state)
{
	const char *strict[] = { "--strict", NULL };
	const char *pol = "{\"version\":1,\"id\":\"dynuser-open\",\"files\":\"unrestricted\","
			  "\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}";
	const char *argv[] = { "/bin/sh", "-c", "id -u", NULL };
	char *pfile = h_tempfile("policy", pol), *trace = h_tempfile("trace", NULL);
	char *out = NULL, *err = NULL;
	json_t *t, *u;

	(void)state;
	assert_int_equal(h_wait(h_spawn(pfile, trace, NULL, argv), &out, NULL), 0);
	assert_string_equal(out, "0\n");
	free(out);
	t = h_trace(trace);
	u = json_object_get(h_event(t, "sandbox.plan", 0), "user");
	assert_string_equal(user_why(u), "root-fallback");
	assert_non_null(strstr(json_string_value(json_object_get(u, "fallback")),
			       "files are unrestricted"));
	assert_true(gap_root(h_event(t, "sandbox.plan", 0)));
	json_decref(t);
	assert_int_not_equal(h_wait(h_spawn(pfile, NULL, strict, argv), &out, &err), 0);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "process.root"));
	free(out);
	free(err);
	unlink(pfile);
	unlink(trace);
	free(pfile);
	free(trace);
}

/* The write area, id-mapped: the dynamic uid makes files and appends to
 * root's; inside they are its own, on disk root's. */
static void write_area_is_mapped(void **state)
{
	char *d = h_dir("write"), *pol = policy(NULL, d, NULL), *out = NULL, path[256];
	char script[1024], want[64];
	json_t *u = NULL;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/old", d);
	write_file(path, "old\n", 0644);
	snprintf(script, sizeof(script),
		 "cd %s && echo new > new && mkdir sub && echo deep > sub/f && echo more >> old"
		 " && echo inside=$(stat -c %%u new) && echo old-owner=$(stat -c %%u old)", d);
	assert_int_equal(run_sh(pol, NULL, script, &out, &u), 0);
	assert_dynamic(u);
	snprintf(want, sizeof(want), "inside=%ld\nold-owner=%ld\n", user_int(u, "uid"),
		 user_int(u, "uid"));
	if (!strstr(out, want))
		fail_msg("expected %s:\n%s", want, out);
	for (const char *f = "new\0sub\0sub/f\0old\0"; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", d, f);
		assert_int_equal(stat(path, &st), 0);
		if (st.st_uid != 0 || st.st_gid != 0)
			fail_msg("%s is %u:%u on disk, expected root's", path, st.st_uid,
				 st.st_gid);
	}
	snprintf(path, sizeof(path), "%s/old", d);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 9);
	for (const char *f = "sub/f\0sub\0new\0old\0"; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", d, f);
		(void)(remove(path));
	}
	rmdir(d);
	json_decref(u);
	free(out);
	free(d);
	free(pol);
}

/* The scratch tmpfs is the dynamic uid's: it writes there. */
static void scratch_is_the_uids(void **state)
{
	char *d = h_dir("scratch"), limits[256], *pol, *out = NULL, script[512], want[64];
	json_t *u = NULL;

	(void)state;
	snprintf(limits, sizeof(limits), "{\"scratch\":{\"path\":\"%s\",\"size_mb\":1}}", d);
	pol = policy(NULL, d, limits);
	snprintf(script, sizeof(script), "echo hi > %s/f && cat %s/f && echo owner=$(stat -c %%u %s)",
		 d, d, d);
	assert_int_equal(run_sh(pol, NULL, script, &out, &u), 0);
	assert_dynamic(u);
	snprintf(want, sizeof(want), "hi\nowner=%ld\n", user_int(u, "uid"));
	assert_string_equal(out, want);
	json_decref(u);
	free(out);
	free(pol);
	rmdir(d);
	free(d);
}

/* Nothing a dynamic uid makes is its own on the host, for the uid's next
 * holder to find: a host 1777 directory outside its write areas takes no
 * file, what it makes in its write area is root's on disk (the twin). */
static void nothing_left_for_the_next_holder(void **state)
{
	char *w = h_dir("mine"), *pub = h_dir_at("/var/tmp", "left");
	char *pol = policy(NULL, w, NULL), script[1024], path[256], *out = NULL;
	struct stat st;

	(void)state;
	assert_int_equal(chmod(pub, 01777), 0);
	snprintf(script, sizeof(script),
		 "touch %s/left 2>/dev/null && echo left || echo refused; "
		 "mkdir %s/d && touch %s/d/f && echo made", pub, w, w);
	assert_int_equal(run_sh(pol, NULL, script, &out, NULL), 0);
	assert_string_equal(out, "refused\nmade\n");
	snprintf(path, sizeof(path), "%s/left", pub);
	assert_int_equal(stat(path, &st), -1);
	for (const char *f = "d/f\0d\0"; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", w, f);
		assert_int_equal(stat(path, &st), 0);
		if (st.st_uid != 0 || st.st_gid != 0)
			fail_msg("%s is %u:%u on disk, expected root's", path, st.st_uid,
				 st.st_gid);
		(void)remove(path);
	}
	free(out);
	rmdir(pub);
	rmdir(w);
	free(pub);
	free(w);
	free(pol);
}

/* Two sandboxes at once hold two uids: the first waits in its write area
 * for a file the test makes once the second has run. */
static void two_sandboxes_two_uids(void **state)
{
	char *d = h_dir("two"), *pol = policy(NULL, d, NULL), *pfile = h_tempfile("policy", pol);
	char script[512], go[256], *out1 = NULL, *out2 = NULL;
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct h_proc p;
	struct stat st;

	(void)state;
	snprintf(go, sizeof(go), "%s/go", d);
	snprintf(script, sizeof(script),
		 "id -u; touch %s/started; while [ ! -e %s ]; do sleep 0.05; done", d, go);
	p = h_spawn(pfile, NULL, NULL, argv);
	snprintf(script, sizeof(script), "%s/started", d);
	for (int i = 0; i < 600 && stat(script, &st) < 0; i++)
		usleep(50000);
	assert_int_equal(stat(script, &st), 0);
	assert_int_equal(run_sh(pol, NULL, "id -u", &out2, NULL), 0);
	write_file(go, "", 0644);
	assert_int_equal(h_wait(p, &out1, NULL), 0);
	if (atol(out1) < DYN_BASE || atol(out2) < DYN_BASE || atol(out1) == atol(out2))
		fail_msg("two sandboxes ran as %s and %s", out1, out2);
	unlink(go);
	unlink(script);
	rmdir(d);
	unlink(pfile);
	free(pfile);
	free(out1);
	free(out2);
	free(pol);
	free(d);
}

/* A write area on ramfs (no id-mapped mounts), mounted in this test's own
 * mount namespace: uid 0, said in the plan with the gap process.root;
 * --strict refuses the run. Last: the namespace stays this process's. */
static void unmappable_write_area_falls_back(void **state)
{
	const char *strict[] = { "--strict", NULL };
	char *d = h_dir("ramfs"), *pol = policy(NULL, d, NULL), *out = NULL, *err = NULL;
	char *pfile, *trace;
	const char *argv[] = { "/bin/sh", "-c", "id -u", NULL };
	json_t *u, *t, *gaps, *g;
	bool gap = false;
	size_t i;

	(void)state;
	assert_int_equal(unshare(CLONE_NEWNS), 0);
	assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	assert_int_equal(mount("ramfs", d, "ramfs", 0, "mode=0755"), 0);
	pfile = h_tempfile("policy", pol);
	trace = h_tempfile("trace", NULL);
	assert_int_equal(h_wait(h_spawn(pfile, trace, NULL, argv), &out, NULL), 0);
	assert_string_equal(out, "0\n");
	free(out);
	t = h_trace(trace);
	u = json_object_get(h_event(t, "sandbox.plan", 0), "user");
	assert_string_equal(user_why(u), "root-fallback");
	assert_int_equal(user_int(u, "uid"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(u, "fallback")), d));
	/* the plan's gaps name it */
	gaps = json_object_get(json_object_get(h_event(t, "sandbox.plan", 0), "plan"), "gaps");
	json_array_foreach(gaps, i, g)
		gap |= !strcmp(json_string_value(json_object_get(g, "gap")), "process.root");
	if (!gap)
		fail_msg("no gap process.root in the plan: %s", json_dumps(gaps, 0));
	json_decref(t);
	/* --strict refuses it, naming it; nothing runs */
	assert_int_not_equal(h_wait(h_spawn(pfile, NULL, strict, argv), &out, &err), 0);
	assert_string_equal(out, "");
	if (!strstr(err, "process: --strict: the backend leaves known gaps (process.root"))
		fail_msg("--strict did not refuse process.root:\n%s", err);
	free(out);
	free(err);
	unlink(pfile);
	unlink(trace);
	free(pfile);
	free(trace);
	assert_int_equal(umount(d), 0);
	rmdir(d);
	free(d);
	free(pol);
}


static bool lock_file_of(long uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), RF_DYNUSER_DIR "/%ld", uid);
	return stat(path, &st) == 0;
}

/* Started, each waits in d for d/go; their uids (stdout) once all ran. */
#define PARALLEL_RUNS 12

/* Many runs at once: twelve sandboxes, all alive together (each waits
 * for the go file the test makes once all have started), hold twelve
 * uids, each with its lock file while held; after them, none of those
 * uids has a file left. */
static void parallel_runs_distinct_uids_no_files_left(void **state)
{
	char *d = h_dir("par"), *pol = policy(NULL, d, NULL), *pfile = h_tempfile("policy", pol);
	char script[512], go[256], path[256], *out[PARALLEL_RUNS] = { 0 };
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct h_proc p[PARALLEL_RUNS];
	long uid[PARALLEL_RUNS];
	int i, j, fd, started = 0;

	(void)state;
	snprintf(go, sizeof(go), "%s/go", d);
	for (i = 0; i < PARALLEL_RUNS; i++) {
		snprintf(script, sizeof(script), "id -u > %s/started-%d; id -u; "
			 "while [ ! -e %s ]; do sleep 0.05; done", d, i, go);
		p[i] = h_spawn(pfile, NULL, NULL, argv);
	}
	for (int t = 0; t < 1200 && started < PARALLEL_RUNS; t++) {
		struct stat st;

		for (started = i = 0; i < PARALLEL_RUNS; i++) {
			snprintf(path, sizeof(path), "%s/started-%d", d, i);
			started += stat(path, &st) == 0 && st.st_size > 0;
		}
		if (started < PARALLEL_RUNS)
			usleep(50000);
	}
	assert_int_equal(started, PARALLEL_RUNS);
	/* all alive now: each one's lock file is there */
	for (i = 0; i < PARALLEL_RUNS; i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/started-%d", d, i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		text = h_read_all(fd);
		uid[i] = atol(text);
		free(text);
		if (uid[i] < DYN_BASE || uid[i] >= DYN_BASE + DYN_COUNT)
			fail_msg("run %d ran as %ld", i, uid[i]);
		if (!lock_file_of(uid[i]))
			fail_msg("run %d holds uid %ld without its lock file", i, uid[i]);
		for (j = 0; j < i; j++)
			if (uid[j] == uid[i])
				fail_msg("runs %d and %d share uid %ld", j, i, uid[i]);
		unlink(path);
	}
	write_file(go, "", 0644);
	for (i = 0; i < PARALLEL_RUNS; i++) {
		assert_int_equal(h_wait(p[i], &out[i], NULL), 0);
		assert_int_equal(atol(out[i]), uid[i]);
		free(out[i]);
	}
	for (i = 0; i < PARALLEL_RUNS; i++)
		if (lock_file_of(uid[i]))
			fail_msg("uid %ld released, its lock file is still there", uid[i]);
	unlink(go);
	rmdir(d);
	unlink(pfile);
	free(pfile);
	free(pol);
	free(d);
}

/* A supervisor SIGKILLed: its lock went with it, and its reaper removes
 * the file (the uid is free again, nothing is left of it). */
static void killed_supervisors_file_goes(void **state)
{
	char *d = h_dir("kill"), *pol = policy(NULL, d, NULL), *pfile = h_tempfile("policy", pol);
	char script[512], path[256], *text;
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct h_proc p;
	struct stat st;
	long uid;
	int fd, i;

	(void)state;
	snprintf(path, sizeof(path), "%s/uid", d);
	snprintf(script, sizeof(script), "id -u > %s/uid.tmp && mv %s/uid.tmp %s; sleep 30",
		 d, d, path);
	p = h_spawn(pfile, NULL, NULL, argv);
	for (i = 0; i < 600 && stat(path, &st) < 0; i++)
		usleep(20000);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	text = h_read_all(fd);
	uid = atol(text);
	free(text);
	assert_true(uid >= DYN_BASE && uid < DYN_BASE + DYN_COUNT);
	assert_true(lock_file_of(uid));
	assert_int_equal(kill(p.pid, SIGKILL), 0);
	assert_int_equal(h_wait(p, NULL, NULL), 128 + SIGKILL);
	for (i = 0; i < 500 && lock_file_of(uid); i++)
		usleep(20000);
	if (lock_file_of(uid))
		fail_msg("the killed supervisor's uid %ld still has its lock file", uid);
	unlink(path);
	rmdir(d);
	unlink(pfile);
	free(pfile);
	free(pol);
	free(d);
}

/* `ringfence check` takes a uid too (the plan says which): released, no
 * file; a file no run holds (a SIGKILLed supervisor's) goes with
 * `ringfence gc`, a held one stays. */
static void check_and_gc_leave_no_released_file(void **state)
{
	char *pol = policy(NULL, NULL, NULL), *pfile = h_tempfile("policy", pol), *out = NULL;
	const char *gc[] = { h_ringfence(), "gc", "-v", NULL };
	const char *check[] = { h_ringfence(), "check", "--policy", pfile, NULL };
	long stale = DYN_BASE + DYN_COUNT - 1, held = DYN_BASE + DYN_COUNT - 2;
	char path[64];
	json_t *doc;
	int fd, hfd;

	(void)state;
	assert_int_equal(h_wait(h_start(check, NULL, NULL), &out, NULL), 0);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	assert_dynamic(json_object_get(doc, "user"));
	if (lock_file_of(user_int(json_object_get(doc, "user"), "uid")))
		fail_msg("check released its uid and left its lock file");
	json_decref(doc);
	free(out);
	/* the stale one: made and left unlocked, as a dead holder leaves it */
	snprintf(path, sizeof(path), RF_DYNUSER_DIR "/%ld", stale);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	hfd = dynuser__lock_uid((uid_t)held);
	if (hfd == -EAGAIN)
		skip();  /* a real run holds it: nothing to prove with it */
	assert_true(hfd >= 0);
	assert_int_equal(h_wait(h_start(gc, NULL, NULL), &out, NULL), 0);
	if (lock_file_of(stale))
		fail_msg("gc left the file of uid %ld, which no run holds:\n%s", stale, out);
	if (!lock_file_of(held))
		fail_msg("gc removed the file of uid %ld, which is held", held);
	free(out);
	{
		struct rf_dynuser d = { .uid = (uid_t)held, .lock_fd = hfd, .userns_fd = -1 };

		dynuser__release(&d);
	}
	assert_false(lock_file_of(held));
	unlink(pfile);
	free(pfile);
	free(pol);
}

/* The protocol itself, where it is raced: processes take and release one
 * uid as fast as they can while a shared count of its holders must never
 * pass one (a lock on a file already unlinked by the last holder would
 * make two). */
#define RACERS 6
#define RACE_ROUNDS 200

static void one_uid_never_two_holders(void **state)
{
	uid_t uid = (uid_t)(DYN_BASE + DYN_COUNT - 3);
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid[RACERS];
	int i, st;

	(void)state;
	assert_true(shared != MAP_FAILED);
	shared[0] = shared[1] = shared[2] = 0;  /* holders now, most ever, takes */
	for (i = 0; i < RACERS; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i])
			continue;
		for (int r = 0, tries = 0; r < RACE_ROUNDS && tries < 1000000; tries++) {
			struct rf_dynuser d = { .uid = uid, .userns_fd = -1 };
			int n;

			d.lock_fd = dynuser__lock_uid(uid);
			if (d.lock_fd < 0) {
				if (d.lock_fd != -EAGAIN)
					_exit(2);
				continue;
			}
			r++;
			n = __atomic_add_fetch(&shared[0], 1, __ATOMIC_SEQ_CST);
			if (n > __atomic_load_n(&shared[1], __ATOMIC_SEQ_CST))
				__atomic_store_n(&shared[1], n, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&shared[2], 1, __ATOMIC_SEQ_CST);
			sched_yield();
			__atomic_sub_fetch(&shared[0], 1, __ATOMIC_SEQ_CST);
			dynuser__release(&d);
		}
		_exit(0);
	}
	for (i = 0; i < RACERS; i++) {
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	if (shared[1] != 1)
		fail_msg("uid %u had %d holders at once (%d takes)", uid, shared[1], shared[2]);
	/* each took it RACE_ROUNDS times among the others, and its file is
	 * gone after */
	assert_int_equal(shared[2], RACERS * RACE_ROUNDS);
	assert_false(lock_file_of(uid));
	munmap(shared, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dynamic_uid_runs_the_command),
		cmocka_unit_test(user_option_says_why),
		cmocka_unit_test(root_private_file_refused),
		cmocka_unit_test(unrestricted_runs_as_uid_0_said),
		cmocka_unit_test(write_area_is_mapped),
		cmocka_unit_test(scratch_is_the_uids),
		cmocka_unit_test(nothing_left_for_the_next_holder),
		cmocka_unit_test(two_sandboxes_two_uids),
		cmocka_unit_test(parallel_runs_distinct_uids_no_files_left),
		cmocka_unit_test(killed_supervisors_file_goes),
		cmocka_unit_test(check_and_gc_leave_no_released_file),
		cmocka_unit_test(one_uid_never_two_holders),
		cmocka_unit_test(unmappable_write_area_falls_back),
	};

	if (harness_require_root())
		return 1;
	/* the default user under sudo is the sudo user: not this test's case */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
