// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* launch/dynuser and the write areas a dynamic uid needs id-mapped. */
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

#include "launch/dynuser.h"
#include "launch/launch.h"

/* Every reason has its own name: the plan's user.why. */
static void test_why_names(void **state)
{
	(void)state;
	for (int i = 0; i < RF_USER_WHY_MAX; i++) {
		assert_string_not_equal(dynuser__why_name(i), "unknown");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(dynuser__why_name(i), dynuser__why_name(j));
	}
	assert_string_equal(dynuser__why_name(RF_USER_DYNAMIC), "dynamic");
	assert_string_equal(dynuser__why_name(RF_USER_ROOT_FALLBACK), "root-fallback");
	assert_string_equal(dynuser__why_name(RF_USER_WHY_MAX), "unknown");
}

/* The range: clear of systemd's DynamicUser= (61184-65519), its container
 * range's end (1879048191) and its foreign range (2147352576-). */
static void test_range(void **state)
{
	(void)state;
	assert_true(RF_DYNUSER_BASE > 1879048191U);
	assert_true(RF_DYNUSER_BASE + RF_DYNUSER_COUNT - 1 < 2147352576U);
}

static void test_path_within(void **state)
{
	(void)state;
	assert_true(launch__path_within("/tmp", "/tmp"));
	assert_true(launch__path_within("/tmp/a", "/tmp/"));
	assert_true(launch__path_within("/tmp/a/b", "/tmp"));
	assert_false(launch__path_within("/tmpx", "/tmp"));
	assert_false(launch__path_within("/tm", "/tmp"));
	assert_true(launch__path_within("/anything", "/"));
	assert_false(launch__path_within("/dev/shmem", "/dev/shm"));
}

/* Below a private mount or the scratch: never mapped; missing: skipped;
 * a directory always; /dev/null (0666) never. */
static void test_needs_map(void **state)
{
	struct launch_mount m[] = { { .path = "/dev/shm" }, { .path = "/tmp" } };
	char dir[] = "/var/tmp/rf-dynuser-XXXXXX", file[64];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_true(launch__rw_needs_map(m, 2, NULL, dir));
	assert_false(launch__rw_needs_map(m, 2, dir, dir));
	assert_false(launch__rw_needs_map(m, 2, NULL, "/tmp/x"));
	assert_false(launch__rw_needs_map(m, 1, NULL, "/dev/shm/y"));
	assert_false(launch__rw_needs_map(m, 2, NULL, "/dev/null"));
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_false(launch__rw_needs_map(m, 2, NULL, file));   /* missing */
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(file, 0644), 0);
	/* root's file: its owner decides; anyone else's: the map keeps it */
	assert_int_equal(launch__rw_needs_map(m, 2, NULL, file), getuid() == 0);
	assert_int_equal(chmod(file, 0666), 0);
	assert_false(launch__rw_needs_map(m, 2, NULL, file));
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_why_names),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_path_within),
		cmocka_unit_test(test_needs_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
