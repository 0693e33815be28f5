/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ringfence learn` as a newcomer tries it first: a bare
 * `ringfence learn --out P --verify -- CMD`, run from a work directory
 * with the caller's own environment (this test's), on the commands people
 * reach for: gcc compiling and linking, `git commit`, python3 importing
 * json/sqlite3/email, make, tar. For each: learn exits 0, the policy is
 * enforce mode and confined, the command exits 0 under it with
 * `ringfence run` and prints what it printed while learning (learn's
 * stdout is the learning run's output then the --verify run's; each must
 * equal the enforced run's). A command that fails while learning (the
 * reported case: gcc with BASE's empty environment) makes learn fail
 * loudly, and a name the DNS gate answered is learned as name:port.
 */
#include "harness.h"

#include <ctype.h>
#include <signal.h>

#include "policy/policy.h"

#define DNS_PORT "5397"        /* this file's dnsmasq (test_dns_gate.c: 5399) */
#define SVC_ADDR "127.77.1.21"
#define SVC_PORT 18441
#define IP_PORT 18442

static char *work;

static int before(void **state)
{
	(void)state;
	work = h_workdir("learn-new");
	return 0;
}

static int after(void **state)
{
	(void)state;
	h_workdir_remove(work);
	return 0;
}

/* A shell line in the work directory, outside any sandbox. */
static void sh_in_work(const char *line)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", work, line);
	if (system(cmd))
		fail_msg("setup failed: %s", line);
}

static int chdir_work(void *arg)
{
	(void)arg;
	return chdir(work);
}

/* `ringfence ARGS... -- argv...` in the work directory: status, stdout,
 * stderr. */
static int rf_in_work(const char *const *args, const char *const *argv, char **ret_out,
		      char **ret_err)
{
	const char *all[96];
	int n = 0;

	all[n++] = h_ringfence();
	for (; *args; args++)
		all[n++] = *args;
	all[n++] = "--";
	for (; *argv && n < 95; argv++)
		all[n++] = *argv;
	all[n] = NULL;
	return h_wait(h_start(all, chdir_work, NULL), ret_out, ret_err);
}

/* Hex runs of 7 or more (commit ids) as "H": the only part of a
 * command's output here that differs from one run to the next. */
static char *normalized(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	assert_non_null(out);
	while (*s) {
		size_t n = 0;

		while (isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]))
			n++;
		if (n >= 7) {
			*o++ = 'H';
			s += n;
		} else {
			memcpy(o, s, n ? n : 1);
			o += n ? n : 1;
			s += n ? n : 1;
		}
	}
	*o = 0;
	return out;
}

/* learn's stdout is the output of each run it made (the learning runs,
 * then --verify's): two or more copies of the enforced run's. */
static void assert_same_output(const char *learned_out, const char *enforced_out)
{
	char *l = normalized(learned_out), *e = normalized(enforced_out);
	size_t le = strlen(e), ll = strlen(l), copies = 0;
	const char *p = l;

	while (le && (size_t)(p - l) < ll && !strncmp(p, e, le)) {
		p += le;
		copies++;
	}
	if (le ? (copies < 2 || *p) : ll != 0)
		fail_msg("learn's stdout is not copies of the enforced run's:\n--- learn:\n%s"
			 "--- enforced:\n%s---", learned_out, enforced_out);
	free(l);
	free(e);
}

/* The learned policy: valid, enforce mode, files/exec/network confined,
 * env.pass with PATH (the caller's environment) and no secret. */
static void assert_policy_ok(const char *path)
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };
	bool path_passed = false;
	size_t i;

	if (policy__load_file(path, &p, &e))
		fail_msg("learned policy invalid: %s: %s", e.where, e.why);
	assert_int_equal(p->mode, RF_MODE_ENFORCE);
	assert_int_equal(p->files, RF_CONFINE_ALLOWLIST);
	assert_int_equal(p->exec, RF_CONFINE_ALLOWLIST);
	assert_int_equal(p->net_connect, RF_CONFINE_ALLOWLIST);
	for (i = 0; i < p->n_env_pass; i++) {
		path_passed |= !strcmp(p->env_pass[i], "PATH");
		assert_null(strstr(p->env_pass[i], "RF_TEST_SECRET_TOKEN"));
	}
	assert_true(path_passed);
	policy__free(p);
}

/*
 * The newcomer's way: learn --out P --verify -- argv, then `ringfence run
 * -p P -- argv` again: both exit 0, the same output. Returns the
 * policy's path (static).
 */
static const char *learn_and_rerun_as(const char *const *argv, bool as_root)
{
	static char pol[600];
	const char *learn_args[] = { "learn", "--out", pol, "--verify", NULL, NULL, NULL };
	const char *run_args[] = { "run", "-q", "-p", pol, NULL, NULL, NULL };

	if (as_root) {
		learn_args[4] = run_args[4] = "--user";
		learn_args[5] = run_args[5] = "root";
	}
	char *lout = NULL, *lerr = NULL, *rout = NULL, *rerr = NULL;
	int rc;

	snprintf(pol, sizeof(pol), "%s/p.json", work);
	rc = rf_in_work(learn_args, argv, &lout, &lerr);
	if (rc != 0)
		fail_msg("learn exited %d:\n%s", rc, lerr);
	assert_non_null(strstr(lerr, "learn: the command exited 0 while learning"));
	assert_non_null(strstr(lerr, "learn --verify: 0 denials under the learned policy, and "
				     "the command exited 0 as while learning"));
	assert_non_null(strstr(lerr, "left out as secrets: "));
	assert_non_null(strstr(lerr, "RF_TEST_SECRET_TOKEN"));
	assert_null(strstr(lerr, "error:"));
	assert_policy_ok(pol);
	rc = rf_in_work(run_args, argv, &rout, &rerr);
	if (rc != 0)
		fail_msg("the command exited %d under the learned policy:\n%s", rc, rerr);
	assert_same_output(lout, rout);
	free(lout);
	free(lerr);
	free(rout);
	free(rerr);
	return pol;
}

static const char *learn_and_rerun(const char *const *argv)
{
	return learn_and_rerun_as(argv, false);
}

/* Root without --user runs the learned policy as a dynamic uid (issue 21),
 * which cannot reach root's home: git's global config and this host's
 * python3 (pyenv) live there, and git refuses a work tree another uid owns
 * (learn names them as file modes; tests/vm/guest/learn.sh shows it).
 * --user root learns and runs these as uid 0. */
static const char *learn_and_rerun_root(const char *const *argv)
{
	return learn_and_rerun_as(argv, true);
}

/* The reported case: gcc -O2 -o out/h h.c, compile and link. */
static void gcc_compiles_and_links(void **state)
{
	const char *argv[] = { "gcc", "-O2", "-o", "out/h", "h.c", NULL };
	char path[600], *out;

	(void)state;
	sh_in_work("mkdir out && printf '#include <stdio.h>\\nint main(void) { puts(\"hi\"); "
		   "return 0; }\\n' > h.c");
	learn_and_rerun(argv);
	/* the enforced build linked a program that runs */
	sh_in_work("rm -f ran.txt && ./out/h > ran.txt");
	snprintf(path, sizeof(path), "%s/ran.txt", work);
	out = h_read_all(open(path, O_RDONLY | O_CLOEXEC));
	assert_string_equal(out, "hi\n");
	free(out);
}

/* git commit in a repository of its own (--allow-empty: each run makes
 * one commit, so the runs can repeat it). */
static void git_commits(void **state)
{
	const char *argv[] = { "git", "commit", "--allow-empty", "-m", "learned", NULL };
	char path[600], *n;

	(void)state;
	sh_in_work("git init -q . && git config user.name Newcomer && "
		   "git config user.email new@example.org && echo a > a && git add a && "
		   "git commit -q -m first");
	learn_and_rerun_root(argv);
	/* first, then one each: learning, --verify, the enforced run */
	sh_in_work("git rev-list --count HEAD > count.txt");
	snprintf(path, sizeof(path), "%s/count.txt", work);
	n = h_read_all(open(path, O_RDONLY | O_CLOEXEC));
	assert_string_equal(n, "4\n");
	free(n);
}

static void python_imports(void **state)
{
	const char *argv[] = { "python3", "-c",
			       "import json, sqlite3, email\n"
			       "print(json.dumps({'sqlite': sqlite3.sqlite_version_info[0] >= 3, "
			       "'email': email.__name__}))", NULL };

	(void)state;
	learn_and_rerun_root(argv);
}

/* A tiny Makefile that compiles a program and runs it (a phony target:
 * every run does the same work, as the newcomer's second `make` after a
 * `make clean` would). */
static void make_builds_and_runs(void **state)
{
	const char *argv[] = { "make", NULL };

	(void)state;
	sh_in_work("printf '#include <stdio.h>\\nint main(void) { puts(\"built\"); return 0; }\\n'"
		   " > hello.c && printf '.PHONY: all\\nall:\\n\\tcc -O2 -o hello hello.c\\n"
		   "\\t./hello\\n' > Makefile");
	learn_and_rerun(argv);
}

static void tar_archives(void **state)
{
	const char *argv[] = { "tar", "-cvf", "src.tar", "src", NULL };
	char path[600], *list;

	(void)state;
	sh_in_work("mkdir src && echo one > src/a && echo two > src/b");
	learn_and_rerun(argv);
	sh_in_work("tar -tf src.tar | sort > list.txt");
	snprintf(path, sizeof(path), "%s/list.txt", work);
	list = h_read_all(open(path, O_RDONLY | O_CLOEXEC));
	assert_string_equal(list, "src/\nsrc/a\nsrc/b\n");
	free(list);
}

/* The reported case as it was: BASE's env passes nothing (as the old
 * default did), gcc cannot work, and learn says so and fails; --verify
 * is not run and nothing claims success. */
static void failed_learning_run_fails_loudly(void **state)
{
	char base[600], pol[600], *out = NULL, *err = NULL;
	const char *args[] = { "learn", "--policy", base, "--out", pol, "--verify", NULL };
	const char *argv[] = { "/usr/bin/gcc", "-O2", "-o", "out/h", "h.c", NULL };
	const char *plain[] = { "learn", "--out", pol, NULL };
	const char *missing[] = { "gcc", "-O2", "-o", "out/h", "no-such-file.c", NULL };

	(void)state;
	snprintf(base, sizeof(base), "%s/base.json", work);
	snprintf(pol, sizeof(pol), "%s/p.json", work);
	sh_in_work("mkdir out && printf 'int main(void) { return 0; }\\n' > h.c && "
		   "printf '{\"version\":1,\"id\":\"empty-env\",\"env\":{}}' > base.json");
	assert_int_equal(rf_in_work(args, argv, &out, &err), 1);
	assert_non_null(strstr(err, "ringfence: error: learn: the command exited 1 while "
				    "learning: the learning run failed"));
	assert_non_null(strstr(err, "it was not verified"));
	assert_non_null(strstr(err, "ran with BASE's \"env\" only"));
	assert_null(strstr(err, "learn --verify"));
	assert_null(strstr(err, "it allows what the command did"));
	free(out);
	free(err);
	/* with the caller's environment, a compile error fails it the same way */
	assert_int_equal(rf_in_work(plain, missing, &out, &err), 1);
	assert_non_null(strstr(err, "ringfence: error: learn: the command exited 1 while "
				    "learning"));
	assert_null(strstr(err, "ran with BASE's"));
	free(out);
	free(err);
}

/* ---- names through the DNS gate ---- */

static pid_t dnsmasq = -1;

static int start_dnsmasq(void)
{
	static const char *const recs[] = { "--host-record=svc.learn.test," SVC_ADDR ",30",
		NULL };

	dnsmasq = h_dnsmasq_start(atoi(DNS_PORT), recs);
	return dnsmasq > 0 ? 0 : -1;
}

static const char *client_py =
	"import socket, sys\n"
	"def talk(host, port):\n"
	"    s = socket.create_connection((host, port), timeout=5)\n"
	"    s.close()\n"
	"talk('svc.learn.test', int(sys.argv[1]))\n"
	"talk('127.0.0.1', int(sys.argv[2]))\n"
	"print('both ok')\n";

/* A connect through a name is learned as name:port (its private address
 * in rebind_allow, exactly), or with --wildcards as *.DOMAIN:port, one to
 * a bare address as address:port; the learned policy connects again,
 * through the gate. */
static void learn_names(const char *wildcards, const char *want_connect)
{
	char base[600], job[600], p1[8], p2[8], *out = NULL, *err = NULL;
	const char *args[] = { "learn", "--policy", base, "--out", "p.json", "--verify",
		wildcards, NULL };
	const char *argv[] = { "/usr/bin/python3", job, p1, p2, NULL };
	int l1 = h_listen_inet(AF_INET, SVC_ADDR, SVC_PORT, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", IP_PORT, SOCK_STREAM);
	json_t *pol, *net;
	FILE *f;

	if (access("/usr/sbin/dnsmasq", X_OK))
		skip();
	assert_int_equal(start_dnsmasq(), 0);
	snprintf(base, sizeof(base), "%s/base.json", work);
	snprintf(job, sizeof(job), "%s/client.py", work);
	snprintf(p1, sizeof(p1), "%d", SVC_PORT);
	snprintf(p2, sizeof(p2), "%d", IP_PORT);
	f = fopen(job, "w");
	assert_non_null(f);
	fputs(client_py, f);
	fclose(f);
	f = fopen(base, "w");
	assert_non_null(f);
	fputs("{\"version\":1,\"id\":\"learn-dns\",\"network\":{\"dns\":{\"upstream\":"
	      "[\"127.0.0.1:" DNS_PORT "\"]}}}", f);
	fclose(f);
	if (rf_in_work(args, argv, &out, &err) != 0)
		fail_msg("learn failed:\n%s", err);
	assert_string_equal(out, "both ok\nboth ok\n");
	free(out);
	free(err);
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/p.json", work);
		pol = json_load_file(path, 0, NULL);
	}
	assert_non_null(pol);
	net = json_object_get(pol, "network");
	{
		char *c = json_dumps(json_object_get(net, "connect"), JSON_COMPACT);
		char *d = json_dumps(json_object_get(net, "dns"), JSON_COMPACT | JSON_SORT_KEYS);

		assert_string_equal(c, want_connect);
		assert_string_equal(d, "{\"rebind_allow\":[\"" SVC_ADDR "\"],\"upstream\":"
				       "[\"127.0.0.1:" DNS_PORT "\"]}");
		free(c);
		free(d);
	}
	json_decref(pol);
	{
		const char *run_args[] = { "run", "-q", "-p", "p.json", NULL };

		assert_int_equal(rf_in_work(run_args, argv, &out, &err), 0);
		assert_string_equal(out, "both ok\n");
		free(out);
		free(err);
	}
	kill(dnsmasq, SIGTERM);
	waitpid(dnsmasq, NULL, 0);
	close(l1);
	close(l2);
}

static void names_the_gate_answered(void **state)
{
	(void)state;
	learn_names(NULL, "[\"127.0.0.1:18442\",\"svc.learn.test:18441\"]");
}

/* Only when asked: the name's registrable domain under a wildcard. */
static void names_as_wildcards_when_asked(void **state)
{
	(void)state;
	learn_names("--wildcards", "[\"*.learn.test:18441\",\"127.0.0.1:18442\"]");
}

static int setup(void **state)
{
	(void)state;
	/* a secret in the caller's environment: left out, by name */
	setenv("RF_TEST_SECRET_TOKEN", "not-for-the-sandbox", 1);
	return harness_require_root();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(gcc_compiles_and_links, before, after),
		cmocka_unit_test_setup_teardown(git_commits, before, after),
		cmocka_unit_test_setup_teardown(python_imports, before, after),
		cmocka_unit_test_setup_teardown(make_builds_and_runs, before, after),
		cmocka_unit_test_setup_teardown(tar_archives, before, after),
		cmocka_unit_test_setup_teardown(failed_learning_run_fails_loudly, before, after),
		cmocka_unit_test_setup_teardown(names_the_gate_answered, before, after),
		cmocka_unit_test_setup_teardown(names_as_wildcards_when_asked, before, after),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
