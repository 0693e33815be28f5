/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fileio__write_atomic, the one way a file is written whole: the content
 * and mode it leaves, the temp file's names, nothing left behind when it
 * fails, the exchange (registry entries) and its fallback for a first file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fileio.h"

struct scratch {
	char dir[32];
	char path[64];
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "/tmp/rf-fileio-XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	snprintf(s->path, sizeof(s->path), "%s/out", s->dir);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	struct dirent *de;
	DIR *d = opendir(s->dir);

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dirfd(d), de->d_name, 0))
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	if (d)
		closedir(d);
	rmdir(s->dir);
	free(s);
	return 0;
}

/* The names in dir but . and .., sorted, space-separated. */
static void names(const char *dir, char *buf, size_t len)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort), i;
	size_t at = 0;

	buf[0] = 0;
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "",
					       v[i]->d_name);
		free(v[i]);
	}
	free(v);
}

static void assert_content(const char *path, const char *want)
{
	char buf[256];

	assert_int_equal(fileio__read_small(AT_FDCWD, path, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Every temp name and mode: the content replaced, the mode as asked (0:
 * the creation mode under the umask), only the file left in the directory. */
static void test_write_atomic_cases(void **state)
{
	static const struct {
		const char *name;
		struct fileio_atomic how;
		mode_t umask, want;
	} cases[] = {
		{ "unique, mode 0", { FILEIO_TMP_UNIQUE, 0, 0 }, 022, 0600 },
		{ "unique, 0644 under umask 077", { FILEIO_TMP_UNIQUE, 0644, FILEIO_FSYNC }, 077, 0644 },
		{ "pid, mode 0", { FILEIO_TMP_PID, 0, 0 }, 022, 0644 },
		{ "pid, mode 0 under umask 027", { FILEIO_TMP_PID, 0, 0 }, 027, 0640 },
		{ "pid, 0600", { FILEIO_TMP_PID, 0600, 0 }, 0, 0600 },
		{ "fixed, mode 0", { FILEIO_TMP_FIXED, 0, 0 }, 022, 0644 },
		{ "fixed, exchange", { FILEIO_TMP_FIXED, 0, FILEIO_EXCHANGE }, 022, 0644 },
		{ "fixed, 0640 exchange fsync",
		  { FILEIO_TMP_FIXED, 0640, FILEIO_EXCHANGE | FILEIO_FSYNC }, 0, 0640 },
	};
	struct scratch *s = *state;
	char left[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mode_t old = umask(cases[i].umask);
		int a = fileio__write_atomic(s->path, "first", 5, &cases[i].how);
		int b = fileio__write_atomic(s->path, "second\n", 7, &cases[i].how);

		umask(old);
		if (a || b)
			fail_msg("%s: %d %d", cases[i].name, a, b);
		assert_content(s->path, "second\n");
		if (mode_of(s->path) != cases[i].want)
			fail_msg("%s: mode %o, want %o", cases[i].name, mode_of(s->path),
				 cases[i].want);
		names(s->dir, left, sizeof(left));
		if (strcmp(left, "out"))
			fail_msg("%s: left %s", cases[i].name, left);
		assert_int_equal(unlink(s->path), 0);
	}
}

/* NULL: the defaults (a unique temp name); an empty file is a file. */
static void test_write_atomic_defaults(void **state)
{
	struct scratch *s = *state;
	char left[64];

	assert_int_equal(fileio__write_atomic(s->path, "", 0, NULL), 0);
	assert_content(s->path, "");
	names(s->dir, left, sizeof(left));
	assert_string_equal(left, "out");
}

/* A failed rename (a directory holds the name) or a failed open leaves the
 * directory as it was: no temp file, the name untouched. */
static void test_write_atomic_failure_cleans_up(void **state)
{
	static const enum fileio_tmp kinds[] = { FILEIO_TMP_UNIQUE, FILEIO_TMP_PID,
						 FILEIO_TMP_FIXED };
	struct scratch *s = *state;
	char sub[128], missing[128], left[128];
	size_t i;

	snprintf(sub, sizeof(sub), "%s/x", s->path);
	assert_int_equal(mkdir(s->path, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(missing, sizeof(missing), "%s/none/out", s->dir);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct fileio_atomic how = { .tmp = kinds[i] };
		int err = fileio__write_atomic(s->path, "x", 1, &how);

		if (err != -EISDIR)
			fail_msg("kind %zu: %d, want -EISDIR", i, err);
		names(s->dir, left, sizeof(left));
		if (strcmp(left, "out"))
			fail_msg("kind %zu: left %s", i, left);
		assert_int_equal(fileio__write_atomic(missing, "x", 1, &how), -ENOENT);
	}
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(s->path), 0);
}

/* The exchange puts the new file in place and removes the old one (its
 * last link gone, as after a rename); a first file falls back to rename. */
static void test_write_atomic_exchange(void **state)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_FIXED,
						  .flags = FILEIO_EXCHANGE };
	struct scratch *s = *state;
	struct stat st;
	char left[64];
	int old;

	assert_int_equal(fileio__write_atomic(s->path, "old", 3, &how), 0);
	old = open(s->path, O_RDONLY | O_CLOEXEC);
	assert_true(old >= 0);
	assert_int_equal(fileio__write_atomic(s->path, "new", 3, &how), 0);
	assert_content(s->path, "new");
	assert_int_equal(fstat(old, &st), 0);
	assert_int_equal(st.st_nlink, 0);
	close(old);
	names(s->dir, left, sizeof(left));
	assert_string_equal(left, "out");
}

/* A fixed name a killed writer left is truncated, not appended to; a link
 * planted there is not followed (its target stays as it was). */
static void test_write_atomic_stale_temp(void **state)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_FIXED };
	struct scratch *s = *state;
	char tmp[96], target[96];

	snprintf(tmp, sizeof(tmp), "%s.tmp", s->path);
	assert_int_equal(fileio__write_atomic(tmp, "a long stale leftover", 21, NULL), 0);
	assert_int_equal(fileio__write_atomic(s->path, "short", 5, &how), 0);
	assert_content(s->path, "short");
	assert_int_equal(access(tmp, F_OK), -1);

	snprintf(target, sizeof(target), "%s/target", s->dir);
	assert_int_equal(fileio__write_atomic(target, "keep", 4, NULL), 0);
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(fileio__write_atomic(s->path, "x", 1, &how), -ELOOP);
	assert_content(target, "keep");
	assert_content(s->path, "short");
	assert_int_equal(unlink(tmp), 0);
}

/* A full device is the write's errno, not a short success. */
static void test_write_all_errors(void **state)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	(void)state;
	if (fd < 0)
		skip();
	assert_int_equal(fileio__write_all(fd, "x", 1), -ENOSPC);
	close(fd);
	assert_int_equal(fileio__write_all(-1, "x", 1), -EBADF);
	assert_int_equal(fileio__write_all(-1, "", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_atomic_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_failure_cleans_up, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_exchange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_stale_temp, setup, teardown),
		cmocka_unit_test(test_write_all_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
