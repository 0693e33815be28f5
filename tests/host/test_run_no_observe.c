/*
 * --no-observe, the operator's per-run choice: Landlock still refuses, the
 * refusal is not traced, the plan says so and what observing would cost,
 * and no syscall tracepoint is attached while only such sandboxes live.
 *
 * The bench's test-only switch (RINGFENCE_TEST_HOOKS=1
 * RINGFENCE_TEST_NO_OBSERVE=1, tests/bench/observe.sh): with both, a
 * Landlock sandbox still refuses what its policy refuses but the refusal
 * is not observed (no inferred kernel.deny line); with either alone the
 * run observes as always.
 */
#include "harness.h"
#include "pins.h"

static char tree[64];            /* /tmp/rf-noobs-XXXXXX */

static char *sub(const char *rel)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];

	snprintf(b, 256, "%s/%s", tree, rel);
	return b;
}

static void put(const char *rel, const char *text)
{
	int fd = open(sub(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	snprintf(tree, sizeof(tree), "/tmp/rf-noobs-XXXXXX");
	assert_non_null(mkdtemp(tree));
	chmod(tree, 0755);
	mkdir(sub("data"), 0755);
	mkdir(sub("secret"), 0755);
	put("data/a", "a\n");
	put("secret/s", "s\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	return tree[0] && system(cmd) ? -1 : 0;
}

/* Inferred file denials of secret/s in one run with hooks and no_observe
 * as RINGFENCE_TEST_HOOKS and RINGFENCE_TEST_NO_OBSERVE (NULL: unset). */
static size_t secret_denials(const char *hooks, const char *no_observe)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("secret/s"), "read", sub("data/a"),
			       NULL };
	char pol[2048], key[320], *out = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *d;
	size_t i, n = 0;

	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"noobs\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/data/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"%s\"],\"network\":\"unrestricted\"}",
		 tree, h_tool("rf-fs"));
	if (hooks)
		setenv("RINGFENCE_TEST_HOOKS", hooks, 1);
	if (no_observe)
		setenv("RINGFENCE_TEST_NO_OBSERVE", no_observe, 1);
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	unsetenv("RINGFENCE_TEST_HOOKS");
	unsetenv("RINGFENCE_TEST_NO_OBSERVE");
	/* Landlock refuses either way: only its observation may change */
	snprintf(key, sizeof(key), "read %s", sub("secret/s"));
	assert_string_equal(h_result(out, key), "EACCES");
	snprintf(key, sizeof(key), "read %s", sub("data/a"));
	assert_string_equal(h_result(out, key), "ok");
	tr = h_trace(tp);
	for (i = 0; (d = h_event(tr, "kernel.deny", i)); i++) {
		json_t *dst = json_object_get(d, "destination");

		assert_string_equal(json_string_value(json_object_get(d, "attribution")),
				    "inferred");
		if (!strcmp(json_string_value(json_object_get(dst, "path")), sub("secret/s")))
			n++;
	}
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
	return n;
}

static void no_observe_needs_the_test_hooks_gate(void **state)
{
	(void)state;
	assert_int_equal(secret_denials(NULL, NULL), 1);     /* the control */
	assert_int_equal(secret_denials(NULL, "1"), 1);      /* ignored alone */
	assert_int_equal(secret_denials("0", "1"), 1);       /* gate not "1" */
	assert_int_equal(secret_denials("1", NULL), 1);      /* the gate alone */
	assert_int_equal(secret_denials("1", "1"), 0);       /* both: not observed */
}

/* this build's pinned set (pins.h) */
#define PIN_DIR rf_pins__dir()

static char *policy_file(const char *mode)
{
	char pol[2048];

	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"noobs\",\"mode\":\"%s\","
		 "\"files\":{\"read\":[\"/usr/\",\"/etc/\",\"%s/data/\"]},"
		 "\"exec\":[\"/usr/\",\"%s\"],\"network\":\"unrestricted\"}",
		 mode, tree, h_tool("rf-fs"));
	return h_tempfile("policy", pol);
}

/* The plan event's "observation" of a trace. */
static void expect_observation(json_t *tr, const char *choice, bool tracepoints)
{
	json_t *plan = json_object_get(h_event(tr, "sandbox.plan", 0), "plan");
	json_t *o = json_object_get(plan, "observation");

	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "choice")), choice);
	assert_int_equal(json_is_true(json_object_get(o, "syscall_tracepoints")), tracepoints);
	assert_non_null(strstr(json_string_value(json_object_get(o, "host_cost")),
			       tracepoints ? "every task on the host" : "none"));
}

/* One run of rf-fs reading the secret and the data, with extra options:
 * the secret's inferred denials in its trace, whose observation is checked. */
static size_t run_fs(const char *const *extra, const char *choice, bool tracepoints)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("secret/s"), "read", sub("data/a"),
			       NULL };
	char *pol = policy_file("enforce"), *tp = h_tempfile("trace", NULL), *out = NULL, key[320];
	json_t *tr, *d;
	size_t i, n = 0;

	assert_int_equal(h_wait(h_spawn(pol, tp, extra, argv), &out, NULL), 0);
	snprintf(key, sizeof(key), "read %s", sub("secret/s"));
	assert_string_equal(h_result(out, key), "EACCES");  /* refused either way */
	snprintf(key, sizeof(key), "read %s", sub("data/a"));
	assert_string_equal(h_result(out, key), "ok");
	tr = h_trace(tp);
	expect_observation(tr, choice, tracepoints);
	for (i = 0; (d = h_event(tr, "kernel.deny", i)); i++)
		n += !strcmp(json_string_value(json_object_get(json_object_get(d, "destination"),
								  "path")), sub("secret/s"));
	json_decref(tr);
	unlink(tp);
	unlink(pol);
	free(tp);
	free(pol);
	free(out);
	return n;
}

static void no_observe_enforces_without_tracing(void **state)
{
	const char *const off[] = { "--no-observe", NULL };

	(void)state;
	assert_int_equal(run_fs(NULL, "on", true), 1);   /* the control */
	assert_int_equal(run_fs(off, "off", false), 0);
}

static int stdin_from(void *arg)
{
	return dup2(*(int *)arg, 0) < 0 ? -1 : 0;
}

/* The obs_ links pinned while a sandbox started with extra runs: it says
 * "up", then waits until its stdin (our pipe) closes. */
static int links_while_running(const char *const *extra)
{
	const char *argv[] = { "/usr/bin/sh", "-c", "echo up; read x; exit 0", NULL };
	char *pol = policy_file("enforce"), line[8] = "";
	int in[2], n;
	struct h_proc p;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	p = h_spawn_with(pol, NULL, extra, argv, stdin_from, &in[0]);
	close(in[0]);
	assert_int_equal(read(p.out_fd, line, 3), 3);
	n = h_count_prefixed(PIN_DIR, "obs_");
	close(in[1]);
	assert_int_equal(h_wait(p, NULL, NULL), 0);  /* sh: "up" said and EOF read */
	unlink(pol);
	free(pol);
	return n;
}

static void no_observe_attaches_no_tracepoint(void **state)
{
	const char *const off[] = { "--no-observe", NULL };

	(void)state;
	assert_int_equal(h_count_prefixed(PIN_DIR, "obs_"), 0);  /* nothing live */
	assert_true(links_while_running(NULL) > 0);             /* the control */
	assert_int_equal(h_count_prefixed(PIN_DIR, "obs_"), 0);  /* detached at its end */
	assert_int_equal(links_while_running(off), 0);
}

/* Audit mode records through the observe programs: with --no-observe its
 * file and exec classes have nothing to record with, and check refuses. */
static void no_observe_refuses_audit_mode(void **state)
{
	char *pol = policy_file("audit"), *out = NULL, *err = NULL;
	const char *args[] = { h_ringfence(), "check", "--no-observe", "--policy", pol, NULL };

	(void)state;
	assert_int_equal(h_wait(h_start(args, NULL, NULL), &out, &err), 126);
	assert_non_null(strstr(err, "--no-observe"));
	unlink(pol);
	free(pol);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_observe_needs_the_test_hooks_gate),
		cmocka_unit_test(no_observe_enforces_without_tracing),
		cmocka_unit_test(no_observe_attaches_no_tracepoint),
		cmocka_unit_test(no_observe_refuses_audit_mode),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
