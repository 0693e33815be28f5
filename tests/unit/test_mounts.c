// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* lib/mounts: mount points by type, one list or two from one reading. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mounts.h"

static bool has(char **v, const char *path)
{
	for (; v && *v; v++)
		if (!strcmp(*v, path))
			return true;
	return false;
}

static size_t count(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Two lists from one reading are the two lists read one at a time. */
static void test_two_lists(void **state)
{
	char **a = NULL, **b = NULL, **a1 = NULL, **b1 = NULL;
	size_t i;

	(void)state;
	assert_int_equal(mounts__list2("proc", &a, "sysfs,cgroup2", &b), 0);
	assert_true(has(a, "/proc"));
	assert_true(has(b, "/sys"));
	assert_false(has(a, "/sys"));
	assert_int_equal(mounts__list("proc", &a1), 0);
	assert_int_equal(mounts__list("sysfs,cgroup2", &b1), 0);
	assert_int_equal(count(a), count(a1));
	assert_int_equal(count(b), count(b1));
	for (i = 0; i < count(b); i++)
		assert_string_equal(b[i], b1[i]);
	mounts__free(a);
	mounts__free(b);
	mounts__free(a1);
	mounts__free(b1);
}

/* A type nothing is mounted as: an empty list, not NULL. */
static void test_none(void **state)
{
	char **v = NULL, **w = NULL;

	(void)state;
	assert_int_equal(mounts__list2("no-such-fs", &v, "proc", &w), 0);
	assert_non_null(v);
	assert_null(v[0]);
	assert_true(count(w) >= 1);
	mounts__free(v);
	mounts__free(w);
	mounts__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_lists),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
