/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unit tests of librf.a's small modules: the generated syscall table
 * agrees with libseccomp (which only the supervisor links), the one error
 * type renders one line, the cleanup helpers release and hand over.
 */
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
#include <cmocka.h>
#include <seccomp.h>

#include "cleanup.h"
#include "fileio.h"
#include "error.h"
#include "sysnames.h"
#include "timefmt.h"
#include "inotify_each.h"
#include <sys/stat.h>

static void test_sysnames_agree_with_libseccomp(void **state)
{
	int nr, both = 0;

	(void)state;
	for (nr = 0; nr < 512; nr++) {
		char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		const char *ours = sysnames__name(nr);

		if (s && strcmp(s, "UNKNOWN") && ours[0]) {
			assert_string_equal(ours, s);
			assert_int_equal(sysnames__nr(ours), nr);
			both++;
		}
		free(s);
	}
	assert_true(both > 300);   /* x86_64 has ~360 */
}

static void test_sysnames_known_and_unknown(void **state)
{
	(void)state;
	assert_string_equal(sysnames__name(sysnames__nr("ptrace")), "ptrace");
	assert_true(sysnames__nr("openat") >= 0);
	assert_int_equal(sysnames__nr("no_such_syscall"), -1);
	assert_string_equal(sysnames__name(-1), "");
	assert_string_equal(sysnames__name(100000), "");
}

static void test_error_renders_one_line(void **state)
{
	struct rf_error e = { 0 };
	char buf[1024];

	(void)state;
	assert_int_equal(rf_error_set(&e, -EINVAL, "$.id", "must match %s", "[a-z]"), -EINVAL);
	assert_int_equal(e.err, -EINVAL);
	assert_string_equal(rf_error_str(&e, buf, sizeof(buf)), "$.id: must match [a-z]");
	assert_int_equal(rf_error_hint(&e, "rename it"), -EINVAL);
	assert_string_equal(rf_error_str(&e, buf, sizeof(buf)), "$.id: must match [a-z]; rename it");
	rf_error_wrap(&e, "policy p.json");
	assert_string_equal(e.where, "policy p.json: $.id");
	assert_int_equal(rf_error_set(NULL, -ENOENT, NULL, "x"), -ENOENT);
	rf_error_set(&e, -ENOENT, NULL, "no such thing");
	assert_string_equal(rf_error_str(&e, buf, sizeof(buf)), "no such thing");
}

static int take(char **ret)
{
	_cleanup_free_ char *p = strdup("x");

	if (!p)
		return -ENOMEM;
	*ret = TAKE_PTR(p);
	assert_null(p);
	return 0;
}

static void test_cleanup_take(void **state)
{
	char *s = NULL;
	int kept;

	(void)state;
	assert_int_equal(take(&s), 0);
	assert_string_equal(s, "x");
	free(s);
	{
		_cleanup_close_ int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		kept = TAKE_FD(fd);
		assert_int_equal(fd, -1);
	}
	assert_int_equal(fcntl(kept, F_GETFD), FD_CLOEXEC);  /* still open */
	{
		_cleanup_close_ int fd = kept;
		(void)fd;
	}
	assert_int_equal(fcntl(kept, F_GETFD), -1);          /* closed at scope end */
}

static void test_timefmt_rfc3339(void **state)
{
	char buf[64];

	(void)state;
	timefmt__rfc3339(0, 7, 3, buf, sizeof(buf));
	assert_string_equal(buf, "1970-01-01T00:00:00.007Z");
	timefmt__rfc3339(1764592496, 123456789, 9, buf, sizeof(buf));
	assert_string_equal(buf, "2025-12-01T12:34:56.123456789Z");
}

static void count_creates(const struct inotify_event *ev, void *ctx)
{
	if (ev->mask & IN_CREATE)
		(*(int *)ctx)++;
}

static void test_inotify_each_drains(void **state)
{
	char dir[] = "/tmp/rf-inotify-XXXXXX", path[64];
	int fd, wd, n, creates = 0, i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(fd >= 0);
	wd = inotify_add_watch(fd, dir, IN_CREATE);
	assert_true(wd >= 0);
	assert_int_equal(inotify__each(fd, count_creates, &creates), 0);  /* empty */
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	n = inotify__each(fd, count_creates, &creates);
	assert_int_equal(n, 3);
	assert_int_equal(creates, 3);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		rmdir(path);
	}
	rmdir(dir);
	close(fd);
}

/* A flat-keyed kernel file: the key at a line's start, whole (cgroup.stat
 * has nr_descendants and nr_dying_descendants). */
static void test_fileio_read_key(void **state)
{
	char path[] = "/tmp/rf-key-XXXXXX";
	const char *text = "nr_dying_descendants 2\nnr_descendants 5\nbad x\n";
	uint64_t v = 0;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	assert_int_equal(fileio__read_key(path, "nr_descendants", &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(fileio__read_key(path, "nr_dying_descendants", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(fileio__read_key(path, "descendants", &v), -ENOENT);
	assert_int_equal(fileio__read_key(path, "bad", &v), -ENOENT);
	unlink(path);
	assert_int_equal(fileio__read_key(path, "nr_descendants", &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysnames_agree_with_libseccomp),
		cmocka_unit_test(test_sysnames_known_and_unknown),
		cmocka_unit_test(test_error_renders_one_line),
		cmocka_unit_test(test_cleanup_take),
		cmocka_unit_test(test_timefmt_rfc3339),
		cmocka_unit_test(test_inotify_each_drains),
		cmocka_unit_test(test_fileio_read_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
