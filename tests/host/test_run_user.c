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
 * --strict).
 */
#include "harness.h"

#include <sched.h>
#include <sys/mount.h>

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
		cmocka_unit_test(unmappable_write_area_falls_back),
	};

	if (harness_require_root())
		return 1;
	/* the default user under sudo is the sudo user: not this test's case */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
