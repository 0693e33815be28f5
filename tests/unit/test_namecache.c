/*
 * Unit tests of the per-build, per-boot name cache (supervisor/backends/namecache.c
 * on runcache.c): a list written is read back whole; a file cut short,
 * with a name that is not one, or writable by others is not taken. Keyed
 * by this test binary's own build id under RF_RUN_DIR/cache; the file is
 * removed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/namecache.h"
#include "paths.h"

/* The file namecache__write made for kind "unittest_". */
static int cache_file(char *buf, size_t len)
{
	DIR *d = opendir(RF_RUN_DIR "/cache");
	struct dirent *de;
	int found = -ENOENT;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "names-unittest_-", 16)) {
			snprintf(buf, len, RF_RUN_DIR "/cache/%s", de->d_name);
			found = 0;
		}
	closedir(d);
	return found;
}

static void rewrite(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void roundtrip_and_refusals(void **state)
{
	char *names[] = { "rf_obs_enter", "rf_obs_exit" }, **v = NULL, path[512];
	size_t n = 0;

	(void)state;
	namecache__write("unittest_", names, 2);
	if (cache_file(path, sizeof(path)))
		skip();  /* not root: no RF_RUN_DIR to write in */
	assert_int_equal(namecache__read("unittest_", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "rf_obs_enter");
	assert_string_equal(v[1], "rf_obs_exit");
	free(v[0]);
	free(v[1]);
	free(v);
	rewrite(path, "rf_obs_enter\nrf_obs_exit\n", 0600);          /* cut short */
	assert_int_equal(namecache__read("unittest_", &v, &n), -EINVAL);
	rewrite(path, "rf_obs_enter\n../x\n.\n", 0600);              /* not a name */
	assert_int_equal(namecache__read("unittest_", &v, &n), -EINVAL);
	rewrite(path, "rf_obs_enter\n.\n", 0666);                    /* others may write */
	assert_int_equal(namecache__read("unittest_", &v, &n), -EINVAL);
	rewrite(path, "rf_obs_enter\n.\n", 0600);
	assert_int_equal(namecache__read("unittest_", &v, &n), 0);
	assert_int_equal(n, 1);
	free(v[0]);
	free(v);
	unlink(path);
	assert_int_equal(namecache__read("unittest_", &v, &n), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
