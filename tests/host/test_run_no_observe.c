/*
 * The bench's test-only switch (RINGFENCE_TEST_HOOKS=1
 * RINGFENCE_TEST_NO_OBSERVE=1, tests/bench/observe.sh): with both, a
 * Landlock sandbox still refuses what its policy refuses but the refusal
 * is not observed (no inferred kernel.deny line); with either alone the
 * run observes as always.
 */
#include "harness.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_observe_needs_the_test_hooks_gate),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
