/*
 * Host tests: every sandbox's own PID namespace and /proc, its private
 * /dev/shm and its /tmp (issue 21). Each refusal is tried from inside the
 * sandbox next to its allowed twin: processes outside are not in /proc
 * (their cmdline, stat, status and maps cannot be read) while the
 * sandbox's own are; an outside POSIX shm object is not in /dev/shm
 * while the sandbox's own /dev/shm works; a policy writing /tmp/ gets a
 * private /tmp unless files.tmp says "shared". The command is PID 2, its
 * exit status passes through unchanged, orphans are reaped, and the
 * trace reports host pids.
 */
#include "harness.h"

#include <sys/mman.h>

#define READS "\"/usr/\", \"/etc/\", \"/proc/\", \"/dev/\""

static char *policy_text(const char *write, const char *tmp)
{
	char *s = NULL;

	assert_true(asprintf(&s,
			     "{\"version\":1,\"id\":\"pidns\",\"files\":{\"read\":[" READS
			     "],\"write\":[\"/dev/null\"%s%s]%s%s%s},\"exec\":[\"/usr/\"],"
			     "\"network\":{\"connect\":[],\"unix\":[]}}",
			     write[0] ? "," : "", write, tmp ? ",\"tmp\":\"" : "", tmp ? tmp : "",
			     tmp ? "\"" : "") > 0);
	return s;
}

/* `sh -c script` in a sandbox of that policy: exit status, stdout. */
static int run_sh(const char *write, const char *tmp, const char *trace, const char *script,
		  char **ret_out)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	char *pol = policy_text(write, tmp), *err = NULL;
	int rc = h_run(pol, trace, argv, ret_out, &err);

	if (rc != 0 && rc < 100)
		fprintf(stderr, "%s", err);
	free(err);
	free(pol);
	return rc;
}

/* ps inside lists the sandbox only; /proc/PID of a process outside
 * (this test, a sibling of the same uid) is not there, its own is. */
static void proc_shows_only_the_sandbox(void **state)
{
	char script[1024], *out = NULL;
	pid_t me = getpid();
	int rc;

	(void)state;
	snprintf(script, sizeof(script),
		 "echo self=$$; echo list=$(ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' ');"
		 "for f in cmdline stat status maps; do"
		 " echo outside-$f=$(cat /proc/%d/$f 2>&1 > /dev/null | grep -c 'No such file');"
		 " cat /proc/self/$f > /dev/null 2>&1 && echo own-$f=read || echo own-$f=no; done;"
		 "echo ps=$(ps -e -o pid= | tr -d ' ' | tr '\\n' ' ')",
		 (int)me);
	rc = run_sh("", NULL, NULL, script, &out);
	assert_int_equal(rc, 0);
	if (!strstr(out, "self=2\n"))
		fail_msg("the command is not PID 2 of its namespace:\n%s", out);
	for (const char *f = "cmdline\0stat\0status\0maps\0"; *f; f += strlen(f) + 1) {
		char no[64], yes[64];

		snprintf(no, sizeof(no), "outside-%s=1\n", f);
		snprintf(yes, sizeof(yes), "own-%s=read\n", f);
		if (!strstr(out, no) || !strstr(out, yes))
			fail_msg("/proc/PID/%s: outside readable or own not:\n%s", f, out);
	}
	/* The shell, ls/grep/tr of the pipeline, ps: small pids only, and
	 * neither the init (hidden: not ptraceable) nor any host process. */
	{
		const char *l = strstr(out, "\nps=");   /* not "maps=" */
		char *end;
		long n = 0;

		assert_non_null(l);
		for (l += 4; *l && *l != '\n'; l = end) {
			long pid = strtol(l, &end, 10);

			if (end == l)
				break;
			if (pid < 2 || pid > 64)
				fail_msg("ps inside lists pid %ld:\n%s", pid, out);
			n++;
		}
		if (n < 2)
			fail_msg("ps inside lists %ld processes, expected the sandbox's:\n%s", n, out);
	}
	free(out);
}

/* The exit status passes through unchanged: a code, and a signal. */
static void exit_status_passes_through(void **state)
{
	char *trace = h_tempfile("trace", NULL), *out = NULL;
	json_t *t, *ex;

	(void)state;
	assert_int_equal(run_sh("", NULL, NULL, "exit 7", &out), 7);
	free(out);
	assert_int_equal(run_sh("", NULL, trace, "kill -SEGV $$", &out), 128 + SIGSEGV);
	free(out);
	t = h_trace(trace);
	ex = h_event(t, "sandbox.exit", 0);
	assert_non_null(ex);
	assert_int_equal(json_integer_value(json_object_get(ex, "signal")), SIGSEGV);
	json_decref(t);
	unlink(trace);
	free(trace);
}

/* An orphan (its parent exits first) is re-parented to the namespace's
 * init, which reaps it: no zombie is left inside. */
static void orphans_are_reaped(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(run_sh("", NULL, NULL,
				"(sh -c 'exit 0' &) ; (sh -c 'exit 0' &) ; sleep 0.5;"
				"echo zombies=$(ps -e -o stat= | grep -c '^Z')", &out), 0);
	if (!strstr(out, "zombies=0\n"))
		fail_msg("orphans left as zombies:\n%s", out);
	free(out);
}

/* The trace's kernel.deny pid is the host pid of the process that was
 * refused (its NSpid ends in its pid inside), read while it still runs. */
static void trace_pids_are_host_pids(void **state)
{
	const char *argv[] = { "/bin/bash", "-c",
			       "echo > /dev/tcp/127.0.0.1/9; sleep 3", NULL };
	char *trace = h_tempfile("trace", NULL), *pol = policy_text("", NULL);
	char *policy = h_tempfile("policy", pol);
	struct h_proc p = h_spawn(policy, trace, NULL, argv);
	long pid = 0;
	char line[256] = "";

	(void)state;
	for (int i = 0; i < 250 && !pid; i++) {
		FILE *f = fopen(trace, "r");
		char buf[65536];

		while (f && fgets(buf, sizeof(buf), f)) {
			json_t *o = json_loads(buf, 0, NULL);

			if (o && !strcmp(json_string_value(json_object_get(o, "event")) ?: "",
					 "kernel.deny"))
				pid = (long)json_integer_value(json_object_get(o, "pid"));
			json_decref(o);
		}
		if (f)
			fclose(f);
		if (!pid)
			h_sleep_ms(20);
	}
	if (pid > 0) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f) && strncmp(line, "NSpid:", 6))
			;
		if (f)
			fclose(f);
	}
	kill(p.pid, SIGTERM);
	h_wait(p, NULL, NULL);
	if (pid <= 2)
		fail_msg("no kernel.deny with a host pid in the trace (pid %ld)", pid);
	{
		long host = 0, inside = 0;

		if (sscanf(line, "NSpid:\t%ld\t%ld", &host, &inside) != 2 || host != pid ||
		    inside != 2)
			fail_msg("kernel.deny pid %ld is not the host pid of the command (PID 2 "
				 "inside): /proc/%ld/status says \"%s\"", pid, pid, line);
	}
	unlink(policy);
	unlink(trace);
	free(policy);
	free(pol);
	free(trace);
}

/* An outside POSIX shm object is not in the sandbox's /dev/shm (readable
 * by the policy); the sandbox's own shm works and stays inside. */
static void dev_shm_is_private(void **state)
{
	char name[64], script[512], own[64], path[128], *out = NULL;
	int fd, rc;

	(void)state;
	snprintf(name, sizeof(name), "/rf-pidns-outside-%d", (int)getpid());
	snprintf(own, sizeof(own), "rf-pidns-own-%d", (int)getpid());
	fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "outside-secret\n", 15), 15);
	close(fd);
	/* shm_open(NAME) is open("/dev/shm/NAME"): the shell's own file there
	 * is the sandbox's shm object (tests/attack's posix-shm-own uses
	 * shm_open itself). */
	snprintf(script, sizeof(script),
		 "cat /dev/shm%s 2>/dev/null || echo outside=unseen;"
		 "echo own > /dev/shm/%s && echo own=$(cat /dev/shm/%s)",
		 name, own, own);
	rc = run_sh("\"/dev/shm/\"", NULL, NULL, script, &out);
	shm_unlink(name);
	assert_int_equal(rc, 0);
	if (strstr(out, "outside-secret") || !strstr(out, "outside=unseen"))
		fail_msg("the host's shm object was read inside:\n%s", out);
	if (!strstr(out, "own=own"))
		fail_msg("the sandbox's own POSIX shm did not work:\n%s", out);
	snprintf(path, sizeof(path), "/dev/shm/%s", own);
	if (access(path, F_OK) == 0) {
		unlink(path);
		fail_msg("the sandbox's shm object reached the host's /dev/shm");
	}
	free(out);
}

/* files.write "/tmp/": a private /tmp (the host's files unseen, its own
 * gone after); files.tmp "shared" keeps the host's. */
static void tmp_private_unless_shared(void **state)
{
	char outside[128], mark[128], script[512], *out = NULL, *trace = h_tempfile("trace", NULL);
	json_t *t, *ns;
	int fd;

	(void)state;
	/* from a cwd below /tmp (a checkout there, as CI's) the host's /tmp
	 * is kept: started from / here */
	assert_int_equal(chdir("/"), 0);
	snprintf(outside, sizeof(outside), "/tmp/rf-pidns-host-%d", (int)getpid());
	snprintf(mark, sizeof(mark), "/tmp/rf-pidns-mark-%d", (int)getpid());
	fd = open(outside, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	snprintf(script, sizeof(script),
		 "test -e %s && echo host=seen || echo host=unseen; echo in > %s && echo wrote",
		 outside, mark);

	assert_int_equal(run_sh("\"/tmp/\"", NULL, trace, script, &out), 0);
	if (!strstr(out, "host=unseen\n") || !strstr(out, "wrote\n"))
		fail_msg("private /tmp:\n%s", out);
	if (access(mark, F_OK) == 0)
		fail_msg("a private /tmp's file reached the host's /tmp");
	t = h_trace(trace);
	ns = json_object_get(json_object_get(h_event(t, "sandbox.plan", 0), "plan"), "namespaces");
	assert_string_equal(json_string_value(json_object_get(ns, "tmp")), "private");
	assert_string_equal(json_string_value(json_object_get(ns, "dev_shm")), "private");
	assert_string_equal(json_string_value(json_object_get(ns, "pid")), "private");
	json_decref(t);
	free(out);

	assert_int_equal(run_sh("\"/tmp/\"", "shared", trace, script, &out), 0);
	if (!strstr(out, "host=seen\n") || !strstr(out, "wrote\n"))
		fail_msg("shared /tmp:\n%s", out);
	if (access(mark, F_OK) != 0)
		fail_msg("files.tmp \"shared\": the file is not in the host's /tmp");
	t = h_trace(trace);
	ns = json_object_get(json_object_get(h_event(t, "sandbox.plan", 0), "plan"), "namespaces");
	assert_string_equal(json_string_value(json_object_get(ns, "tmp")), "shared");
	assert_string_equal(json_string_value(json_object_get(ns, "tmp_why")), "files.tmp");
	json_decref(t);
	free(out);
	unlink(mark);
	unlink(outside);
	unlink(trace);
	free(trace);
}

/* Started from below a private /tmp, the cwd would be the host's hidden
 * directory: refused (126) with the way out named where files.tmp asks
 * for it; by default such a command keeps the host's /tmp (its files). */
static int chdir_below_tmp(void *arg)
{
	return chdir((const char *)arg);
}

static void cwd_below_private_tmp_refused(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char dir[] = "/tmp/rf-pidns-cwd-XXXXXX", *pol = policy_text("\"/tmp/\"", "private");
	char *policy = h_tempfile("policy", pol), *err = NULL, *trace = h_tempfile("trace", NULL);
	char *dflt = policy_text("\"/tmp/\"", NULL), *dpolicy = h_tempfile("policy", dflt);
	const char *touch[] = { "/bin/sh", "-c", "echo x > ./here", NULL };
	char here[64];
	json_t *t, *ns;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	rc = h_wait(h_spawn_with(policy, NULL, NULL, argv, chdir_below_tmp, dir), NULL, &err);
	if (rc != 126 || !strstr(err, "files.tmp"))
		fail_msg("cwd below a private /tmp: exit %d:\n%s", rc, err);
	free(err);
	rc = h_wait(h_spawn_with(dpolicy, trace, NULL, touch, chdir_below_tmp, dir), NULL, &err);
	snprintf(here, sizeof(here), "%s/here", dir);
	if (rc != 0 || access(here, F_OK))
		fail_msg("cwd below /tmp, files.tmp unset: exit %d, its file not in the host's "
			 "directory:\n%s", rc, err);
	t = h_trace(trace);
	ns = json_object_get(json_object_get(h_event(t, "sandbox.plan", 0), "plan"), "namespaces");
	assert_string_equal(json_string_value(json_object_get(ns, "tmp")), "shared");
	assert_non_null(strstr(json_string_value(json_object_get(ns, "tmp_why")), "starts below"));
	json_decref(t);
	unlink(here);
	unlink(trace);
	unlink(dpolicy);
	free(trace);
	free(dpolicy);
	free(dflt);
	rmdir(dir);
	unlink(policy);
	free(policy);
	free(pol);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proc_shows_only_the_sandbox),
		cmocka_unit_test(exit_status_passes_through),
		cmocka_unit_test(orphans_are_reaped),
		cmocka_unit_test(trace_pids_are_host_pids),
		cmocka_unit_test(dev_shm_is_private),
		cmocka_unit_test(tmp_private_unless_shared),
		cmocka_unit_test(cwd_below_private_tmp_refused),
	};

	if (harness_require_root())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
