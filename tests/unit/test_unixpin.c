/* The directories on the way to an allowed unix name (run/unixpin.h):
 * which are pinned and why the others are not, against a real tree. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "policy/policy.h"
#include "run/unixpin.h"

static char root[64];

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
	char p[256], t[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/rf-unixpin.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mk("w");
	mk("w/a");
	mk("w/a/b");
	mk("w/q");
	mk("w/other");
	snprintf(p, sizeof(p), "%s/w/f", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/w/l", root);
	snprintf(t, sizeof(t), "%s/w/other", root);
	return symlink(t, p);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct rf_policy *load(const char *unx, const char *write2)
{
	char json[2048];
	struct rf_policy *p = NULL;
	struct rf_error err;

	snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\",\"files\":{\"read\":[\"/usr/\"],"
		 "\"write\":[\"%s/w/\"%s]},\"exec\":\"unrestricted\",\"network\":"
		 "{\"connect\":[],\"unix\":[%s]}}", root, write2, unx);
	if (policy__load_string(json, &p, &err))
		fail_msg("%s: %s", err.where, err.why);
	return p;
}

/* Which entry is path (relative to root), or fail. */
static const struct unixpin_dir *find(const struct rf_unix_pins *pins, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (size_t i = 0; i < pins->n; i++)
		if (!strcmp(pins->v[i].path, p))
			return &pins->v[i];
	fail_msg("no entry %s", p);
	return NULL;
}

static void pins_of_present_and_absent_dirs(void **state)
{
	char unx[1024];
	struct rf_unix_pins pins;
	struct rf_policy *p;

	(void)state;
	/* a file name two levels down, a subtree, one absent, one through a
	 * symlink, one through a file, one at the rule's root (no way), an
	 * abstract name, and one name twice */
	snprintf(unx, sizeof(unx), "\"%s/w/a/b/s\",\"%s/w/q/\",\"%s/w/gone/x/s\",\"%s/w/l/s\","
		 "\"%s/w/f/s\",\"%s/w/top.sock\",\"@abs\",\"%s/w/a/b/t\"",
		 root, root, root, root, root, root, root);
	p = load(unx, "");
	assert_int_equal(unixpin__plan(p, NULL, 0, NULL, &pins), 0);
	assert_int_equal(pins.n, 7);
	assert_true(find(&pins, "w/a")->pinned);
	assert_true(find(&pins, "w/a/b")->pinned);
	assert_true(find(&pins, "w/q")->pinned);
	assert_int_equal(find(&pins, "w/gone")->why, UNIXPIN_ABSENT);
	assert_int_equal(find(&pins, "w/gone/x")->why, UNIXPIN_BELOW);
	assert_int_equal(find(&pins, "w/l")->why, UNIXPIN_SYMLINK);
	assert_int_equal(find(&pins, "w/f")->why, UNIXPIN_NOT_DIR);
	assert_int_equal(pins.n_open, 4);
	/* the ones bound, a parent before its child, and nothing else */
	assert_non_null(pins.pin_dirs[2]);
	assert_null(pins.pin_dirs[3]);
	assert_true(strstr(pins.pin_dirs[0], "/w/a") && strstr(pins.pin_dirs[1], "/w/a/b"));
	unixpin__free(&pins);
	policy__free(p);
}

/* Below a private mount nothing of the outside is: no gap, no pin. A name
 * outside every write rule, or a write rule below an allowed subtree, has
 * no way to pin (another write rule is another mount: EXDEV). */
static void private_and_unreached(void **state)
{
	char unx[512], w2[256], priv[256];
	struct launch_mount m = { .path = priv, .fstype = "tmpfs" };
	struct rf_unix_pins pins;
	struct rf_policy *p;
	json_t *j;

	(void)state;
	snprintf(priv, sizeof(priv), "%s/w/q", root);
	snprintf(unx, sizeof(unx), "\"%s/w/q/d/\",\"/run/x.sock\",\"%s/\"", root, root);
	snprintf(w2, sizeof(w2), ",\"%s/w/other/\"", root);
	p = load(unx, w2);
	assert_int_equal(unixpin__plan(p, &m, 1, NULL, &pins), 0);
	assert_int_equal(pins.n, 2);
	assert_int_equal(find(&pins, "w/q")->why, UNIXPIN_PRIVATE);
	assert_int_equal(find(&pins, "w/q/d")->why, UNIXPIN_PRIVATE);
	assert_int_equal(pins.n_open, 0);
	assert_null(pins.pin_dirs[0]);
	j = unixpin__json(&pins);
	assert_int_equal(json_array_size(json_object_get(j, "private")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "unpinned")), 0);
	json_decref(j);
	unixpin__free(&pins);
	policy__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pins_of_present_and_absent_dirs),
		cmocka_unit_test(private_and_unreached),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
