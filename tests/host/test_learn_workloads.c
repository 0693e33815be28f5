/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ringfence learn` on real workloads, on this kernel (Landlock + seccomp,
 * files and exec observed from the syscalls in audit mode): python3 reading
 * a data directory and writing an output directory, gcc compiling a file,
 * python3 talking to a loopback server. For each: learn --verify succeeds
 * with zero denials, the learned policy passes `check`, and a deliberately
 * extra action (reading /etc/shadow, connecting elsewhere) is refused under
 * it, with a kernel.deny in the trace. The same workloads rerun under
 * their learned policies with a live ringfence-monitor raise no alert.
 */
#include "harness.h"

#include <signal.h>

#include "policy/policy.h"

#define SRV_PORT 18431
#define OTHER_PORT 18432

static char *work;   /* per-run scratch directory */
/* A live ringfence-monitor for the whole group: the benign reruns under
 * their learned policies must raise no alert. */
static struct h_mon mon;

/* Alerts the monitor wrote about sandboxes whose policy id starts with
 * id_prefix (unmapped.policy_id of each NDJSON record). */
static int alerts_for(const char *id_prefix)
{
	char *all, *line, *save = NULL;
	int fd = open(mon.out, O_RDONLY | O_CLOEXEC), n = 0;

	if (fd < 0)
		return 0;
	all = h_read_all(fd);
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *id = json_string_value(json_object_get(json_object_get(o, "unmapped"),
								   "policy_id"));

		assert_non_null(o);  /* every line is a record */
		if (id && !strncmp(id, id_prefix, strlen(id_prefix)))
			n++;
		json_decref(o);
	}
	free(all);
	return n;
}

static int setup(void **state)
{
	int rc = harness_require_root();

	(void)state;
	if (!rc) {
		h_mon_init(&mon, "learn", false);
		h_mon_start(&mon, NULL);
	}
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return h_mon_done(&mon);
}

/* Rerun argv under the learned policy with its id changed to fp-<tag>,
 * so the monitor's alerts, if any, are told apart. */
static void benign_rerun(const char *learned, const char *tag, const char *const *argv)
{
	json_t *p = json_load_file(learned, 0, NULL);
	char id[64], path[700];

	assert_non_null(p);
	snprintf(id, sizeof(id), "fp-%s", tag);
	json_object_set_new(p, "id", json_string(id));
	snprintf(path, sizeof(path), "%s/benign.json", work);
	assert_int_equal(json_dump_file(p, path, 0), 0);
	json_decref(p);
	assert_int_equal(h_wait(h_spawn(path, NULL, NULL, argv), NULL, NULL), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int before(void **state)
{
	char path[512];

	(void)state;
	work = h_workdir("learn-work");
	snprintf(path, sizeof(path), "%s/data", work);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/out", work);
	assert_int_equal(mkdir(path, 0755), 0);
	return 0;
}

static int after(void **state)
{
	(void)state;
	h_workdir_remove(work);
	return 0;
}

/* ringfence learn --policy BASE --out OUT --verify -- argv: exit status. */
static int learn(const char *base_json, const char *out_path, const char *const *argv,
		 char **ret_err)
{
	char *base = h_tempfile("base", base_json);
	const char *args[64];
	int n = 0, rc;

	args[n++] = h_ringfence();
	args[n++] = "learn";
	args[n++] = "--policy";
	args[n++] = base;
	args[n++] = "--out";
	args[n++] = out_path;
	args[n++] = "--verify";
	args[n++] = "--";
	for (; *argv && n < 63; argv++)
		args[n++] = *argv;
	args[n] = NULL;
	rc = h_wait(h_start(args, NULL, NULL), NULL, ret_err);
	unlink(base);
	free(base);
	return rc;
}

/* The learned policy is valid, enforce mode, and `ringfence check` takes it. */
static void assert_learned_ok(const char *path, int rc, const char *err)
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };

	if (rc != 0)
		fail_msg("learn exited %d:\n%s", rc, err);
	assert_non_null(strstr(err, "learn --verify: 0 denials under the learned policy"));
	if (policy__load_file(path, &p, &e))
		fail_msg("learned policy invalid: %s: %s", e.where, e.why);
	assert_int_equal(p->mode, RF_MODE_ENFORCE);
	assert_int_equal(p->files, RF_CONFINE_ALLOWLIST);  /* learned, not unrestricted */
	assert_int_equal(p->exec, RF_CONFINE_ALLOWLIST);
	policy__free(p);
	h_assert_checks(path);
}

/* Run argv under the learned policy with a trace, extra options first
 * (NULL: none); its stdout. */
static int run_learned_opts(const char *policy, const char *const *extra,
			    const char *const *argv, char **ret_out, char **ret_trace)
{
	char trace[600];
	int rc;

	snprintf(trace, sizeof(trace), "%s/trace.jsonl", work);
	rc = h_wait(h_spawn(policy, trace, extra, argv), ret_out, NULL);
	*ret_trace = h_read_all(open(trace, O_RDONLY | O_CLOEXEC));
	return rc;
}

/* Root without --user runs it as a dynamic uid, which /etc/shadow's mode
 * refuses before the policy is asked (issue 21): the policy's refusal is
 * proven as --user root. */
static const char *const as_root[] = { "--user", "root", NULL };

static int run_learned(const char *policy, const char *const *argv, char **ret_out,
		       char **ret_trace)
{
	char trace[600];
	int rc;

	snprintf(trace, sizeof(trace), "%s/trace.jsonl", work);
	rc = h_wait(h_spawn(policy, trace, NULL, argv), ret_out, NULL);
	*ret_trace = h_read_all(open(trace, O_RDONLY | O_CLOEXEC));
	return rc;
}

static const char *python_job =
	"import os, socket, sys\n"
	"d = os.path.dirname(os.path.abspath(__file__))\n"
	"total = 0\n"
	"for n in sorted(os.listdir(d + '/data')):\n"
	"    with open(d + '/data/' + n) as f:\n"
	"        total += sum(int(x) for x in f.read().split())\n"
	"with open(d + '/out/result.txt', 'w') as f:\n"
	"    f.write(str(total))\n"
	"print('total', total)\n"
	"if 'shadow' in sys.argv:\n"
	"    try:\n"
	"        open('/etc/shadow').read()\n"
	"        print('shadow ok')\n"
	"    except PermissionError:\n"
	"        print('shadow EACCES')\n";

static void python_data_job(void **state)
{
	char job[600], path[600], out_path[600], *err = NULL, *out = NULL, *trace = NULL;
	const char *argv[] = { "/usr/bin/python3", job, NULL, NULL };
	int i, rc;

	(void)state;
	snprintf(job, sizeof(job), "%s/job.py", work);
	write_file(job, python_job);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/data/part%d.txt", work, i);
		write_file(path, "1 2 3\n");
	}
	snprintf(out_path, sizeof(out_path), "%s/learned.json", work);
	rc = learn("{\"version\":1,\"id\":\"learn-py\"}", out_path, argv, &err);
	assert_learned_ok(out_path, rc, err);
	free(err);
	benign_rerun(out_path, "py", argv);
	/* the extra action: /etc/shadow is refused, the job itself still works */
	argv[2] = "shadow";
	assert_int_equal(run_learned_opts(out_path, as_root, argv, &out, &trace), 0);
	assert_non_null(strstr(out, "total 36"));
	assert_non_null(strstr(out, "shadow EACCES"));
	assert_non_null(strstr(trace, "\"path\":\"/etc/shadow\""));
	free(out);
	free(trace);
	/* as the dynamic uid: refused by its mode, not said to be the policy's */
	assert_int_equal(run_learned(out_path, argv, &out, &trace), 0);
	assert_non_null(strstr(out, "shadow EACCES"));
	assert_null(strstr(trace, "\"path\":\"/etc/shadow\""));
	assert_null(strstr(trace, "\"inferred_file_modes\":0"));
	free(out);
	free(trace);
}

static void gcc_compiles(void **state)
{
	char src[600], obj[600], out_path[600], *err = NULL, *out = NULL, *trace = NULL;
	const char *argv[] = { "/usr/bin/gcc", "-c", src, "-o", obj, NULL };
	const char *extra[] = { "/usr/bin/gcc", "-E", "-x", "c", "/etc/shadow", NULL };
	int rc;

	(void)state;
	snprintf(src, sizeof(src), "%s/data/hello.c", work);
	snprintf(obj, sizeof(obj), "%s/out/hello.o", work);
	write_file(src, "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n");
	snprintf(out_path, sizeof(out_path), "%s/learned.json", work);
	rc = learn("{\"version\":1,\"id\":\"learn-gcc\",\"env\":{\"pass\":[\"PATH\"]}}",
		   out_path, argv, &err);
	assert_learned_ok(out_path, rc, err);
	free(err);
	benign_rerun(out_path, "gcc", argv);
	unlink(obj);
	/* the learned build runs again... */
	assert_int_equal(run_learned(out_path, argv, &out, &trace), 0);
	assert_int_equal(access(obj, F_OK), 0);
	assert_null(strstr(trace, "\"event\":\"kernel.deny\""));
	free(out);
	free(trace);
	/* ...and gcc reading /etc/shadow under it is refused */
	assert_int_not_equal(run_learned_opts(out_path, as_root, extra, &out, &trace), 0);
	assert_non_null(strstr(trace, "\"path\":\"/etc/shadow\""));
	free(out);
	free(trace);
	/* as the dynamic uid: refused by its mode, not said to be the policy's */
	assert_int_not_equal(run_learned(out_path, extra, &out, &trace), 0);
	assert_null(strstr(trace, "\"path\":\"/etc/shadow\""));
	assert_null(strstr(trace, "\"inferred_file_modes\":0"));
	free(out);
	free(trace);
}

static const char *python_client =
	"import socket, sys\n"
	"def talk(port):\n"
	"    s = socket.create_connection(('127.0.0.1', port), timeout=5)\n"
	"    s.sendall(b'hello')\n"
	"    s.close()\n"
	"talk(int(sys.argv[1]))\n"
	"print('server ok')\n"
	"if len(sys.argv) > 2:\n"
	"    try:\n"
	"        talk(int(sys.argv[2]))\n"
	"        print('other ok')\n"
	"    except PermissionError:\n"
	"        print('other EPERM')\n";

static void python_fetches_from_loopback(void **state)
{
	char job[600], out_path[600], port[8], other[8], *err = NULL, *out = NULL, *trace = NULL;
	const char *argv[] = { "/usr/bin/python3", job, port, NULL, NULL };
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", SRV_PORT, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", OTHER_PORT, SOCK_STREAM);
	int rc;

	(void)state;
	snprintf(job, sizeof(job), "%s/client.py", work);
	write_file(job, python_client);
	snprintf(port, sizeof(port), "%d", SRV_PORT);
	snprintf(other, sizeof(other), "%d", OTHER_PORT);
	snprintf(out_path, sizeof(out_path), "%s/learned.json", work);
	rc = learn("{\"version\":1,\"id\":\"learn-net\"}", out_path, argv, &err);
	assert_learned_ok(out_path, rc, err);
	free(err);
	benign_rerun(out_path, "net", argv);
	/* connecting elsewhere is refused by the kernel */
	argv[3] = other;
	assert_int_equal(run_learned(out_path, argv, &out, &trace), 0);
	assert_non_null(strstr(out, "server ok"));
	assert_non_null(strstr(out, "other EPERM"));
	assert_non_null(strstr(trace, "\"attribution\":\"kernel\""));
	free(out);
	free(trace);
	close(l1);
	close(l2);
}

/* The benign reruns above, under their learned policies, with a live
 * monitor: no alert at all (past the sample interval and the linger). */
static void no_false_positives(void **state)
{
	const char *argv[3 * 30 + 2];
	int i, n = 0, waited;

	(void)state;
	/* The control: 30 denied connects in a sandbox of its own do alert,
	 * so the monitor, its output and alerts_for() see what they should. */
	argv[n++] = h_tool("rf-net");
	for (i = 0; i < 30; i++) {
		argv[n++] = "tcp";
		argv[n++] = "127.0.0.1";
		argv[n++] = "18439";
	}
	argv[n] = NULL;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"ctl-burst\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}",
			       NULL, argv, NULL, NULL), 0);
	for (waited = 0; waited < 10000 && !alerts_for("ctl-"); waited += 250)
		usleep(250000);
	assert_true(alerts_for("ctl-") > 0);
	usleep(2500000);   /* past the sample interval and the linger */
	assert_int_equal(kill(mon.pid, 0), 0);  /* the monitor ran throughout */
	if (alerts_for("fp-"))
		fail_msg("false positives: see %s", mon.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(python_data_job, before, after),
		cmocka_unit_test_setup_teardown(gcc_compiles, before, after),
		cmocka_unit_test_setup_teardown(python_fetches_from_loopback, before, after),
		cmocka_unit_test(no_false_positives),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
