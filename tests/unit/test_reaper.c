/*
 * Unit tests of the reaper's re-executed clean-up (supervisor/run/reaper.c,
 * RF_REAPER_CMD): it acts only for a supervisor that is gone, so a stray
 * `ringfence __reap` never tears down a live sandbox.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "run/reaper.h"
#include "registry.h"

static void usage_errors(void **state)
{
	char *few[] = { RF_REAPER_CMD, "sb-1", "/nonexistent/sb-1", "0", NULL };
	char *bad[] = { RF_REAPER_CMD, "sb-1", "/nonexistent/sb-1", "0", "x", "1", NULL };

	(void)state;
	assert_int_equal(reaper__main(4, few), 2);
	assert_int_equal(reaper__main(6, bad), 2);
}

static void live_supervisor_is_left_alone(void **state)
{
	char pid[16], start[24];
	char *argv[] = { RF_REAPER_CMD, "sb-1", "/nonexistent/sb-1", "0", pid, start, NULL };

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(start, sizeof(start), "%llu",
		 (unsigned long long)registry__proc_start(getpid()));
	assert_int_equal(reaper__main(6, argv), 2);
	/* (a dead supervisor's clean-up touches the host's pins and
	 * cgroups: tests/host/test_run_crash.c) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(live_supervisor_is_left_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
