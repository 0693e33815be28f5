/*
 * Unit tests of the kept boundary filter (supervisor/backends/seccomp_cache.c): a
 * filter read back from the cache is the one compiled, instruction for
 * instruction, for each notify/holes combination; a policy with a
 * "syscalls" section is never served from it; a damaged file is compiled
 * again. Keyed by this test binary's build id (runcache.h); its files are
 * removed.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "paths.h"
#include "policy/policy.h"
#include "backends/seccomp_cache.h"

/* The cache's seccomp-* files before the tests: the ones to keep. */
static char *before[256];
static size_t n_before;

static bool existed(const char *name)
{
	size_t i;

	for (i = 0; i < n_before; i++)
		if (!strcmp(before[i], name))
			return true;
	return false;
}

static int snapshot(void **state)
{
	DIR *d = opendir(RF_RUN_DIR "/cache");
	struct dirent *de;

	(void)state;
	while (d && (de = readdir(d)) && n_before < 256)
		before[n_before++] = strdup(de->d_name);
	if (d)
		closedir(d);
	return 0;
}

/* Each seccomp-* file these tests made: removed, or (tag in its name)
 * damaged instead. How many were seen. */
static int each_new(const char *damage_tag)
{
	DIR *d = opendir(RF_RUN_DIR "/cache");
	struct dirent *de;
	char path[512];
	int n = 0;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "seccomp-", 8) || existed(de->d_name))
			continue;
		snprintf(path, sizeof(path), RF_RUN_DIR "/cache/%s", de->d_name);
		if (damage_tag && strstr(de->d_name, damage_tag)) {
			FILE *f = fopen(path, "r+");

			assert_non_null(f);
			fputs("junk", f);
			fclose(f);
		} else if (!damage_tag) {
			unlink(path);
		}
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void same(const struct rf_seccomp *a, const struct rf_seccomp *b)
{
	assert_int_equal(a->boundary.len, b->boundary.len);
	assert_memory_equal(a->boundary.insns, b->boundary.insns,
			    a->boundary.len * sizeof(*a->boundary.insns));
	assert_int_equal(a->notify, b->notify);
	assert_string_equal(a->summary, b->summary);
	assert_int_equal(b->allowlist.len, 0);
}

static void cached_equals_compiled(void **state)
{
	unsigned int holes[] = { 0, 3, 24 };
	struct rf_error e = { 0 };
	size_t i, k;

	(void)state;
	if (geteuid() != 0)
		skip();
	for (k = 0; k < 2; k++)
		for (i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
			struct rf_seccomp fresh, first, again;

			assert_int_equal(sandbox_seccomp__build_notify(NULL, true, holes[i], k,
								       &fresh, &e), 0);
			assert_int_equal(seccomp_cache__build_notify(NULL, true, holes[i], k,
								     &first, &e), 0);
			assert_int_equal(seccomp_cache__build_notify(NULL, true, holes[i], k,
								     &again, &e), 0);
			same(&fresh, &first);
			same(&fresh, &again);
			sandbox_seccomp__free(&fresh);
			sandbox_seccomp__free(&first);
			sandbox_seccomp__free(&again);
		}
	assert_int_equal(each_new(NULL), 6);
}

static void damaged_file_is_compiled_again(void **state)
{
	struct rf_error e = { 0 };
	struct rf_seccomp fresh, got;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(seccomp_cache__build_notify(NULL, true, 0, false, &got, &e), 0);
	sandbox_seccomp__free(&got);
	assert_int_equal(each_new("-b1h0n0-"), 1);
	assert_int_equal(sandbox_seccomp__build_notify(NULL, true, 0, false, &fresh, &e), 0);
	assert_int_equal(seccomp_cache__build_notify(NULL, true, 0, false, &got, &e), 0);
	same(&fresh, &got);
	sandbox_seccomp__free(&fresh);
	sandbox_seccomp__free(&got);
	assert_int_equal(each_new(NULL), 1);
}

static void syscalls_policy_is_compiled(void **state)
{
	struct rf_policy p;
	struct rf_error e = { 0 };
	struct rf_seccomp got;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.syscalls.present = true;
	p.syscalls.on_violation = RF_VIOLATION_DENY;
	assert_int_equal(seccomp_cache__build_notify(&p, true, 0, false, &got, &e), 0);
	/* an allowlist (exit, exit_group and execve at least) came with it */
	assert_true(got.allowlist.len > 0);
	sandbox_seccomp__free(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(cached_equals_compiled, snapshot),
		cmocka_unit_test(damaged_file_is_compiled_again),
		cmocka_unit_test(syscalls_policy_is_compiled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
