/*
 * Unit tests of the step engine (lib/steps.c) and of the trace's
 * write errors (supervisor/observe/trace.c): undos run last first for the steps
 * that succeeded, and also for a failed step whose undo is owed before it
 * runs; a trace that cannot be written says so instead of dropping lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "steps.h"
#include "observe/trace.h"

struct log {
	char s[64];
	const char *fail;       /* this step fails */
};

static void note(struct log *l, const char *what)
{
	strncat(l->s, what, sizeof(l->s) - strlen(l->s) - 1);
}

#define STEP(n)                                                               \
	static int run_##n(void *ctx, struct rf_step_error *e)                \
	{                                                                     \
		struct log *l = ctx;                                          \
		note(l, #n);                                                  \
		if (l->fail && !strcmp(l->fail, #n))                          \
			return rf_error_set(&e->e, -EIO, NULL, "%s", "");     \
		return 0;                                                     \
	}                                                                     \
	static void undo_##n(void *ctx)                                       \
	{                                                                     \
		note(ctx, "~" #n);                                            \
	}
STEP(a)
STEP(b)
STEP(c)

static const struct rf_step steps[] = {
	{ "a", run_a, undo_a, 11, false },
	{ "b", run_b, undo_b, 12, true },   /* creates state: undo owed before */
	{ "c", run_c, undo_c, 13, false },
};

static int run_all(struct log *l, const char *last)
{
	struct rf_steps s = { .steps = steps, .n = 3 };
	int rc = steps__run(&s, l, last);

	steps__undo(&s, l);
	return rc;
}

static void test_order_and_undo(void **state)
{
	struct log l = { 0 };

	(void)state;
	assert_int_equal(run_all(&l, NULL), 0);
	assert_string_equal(l.s, "abc~c~b~a");
	memset(&l, 0, sizeof(l));
	assert_int_equal(run_all(&l, "b"), 0);
	assert_string_equal(l.s, "ab~b~a");
}

static void test_failure_undoes_what_is_owed(void **state)
{
	struct log l = { .fail = "c" };

	(void)state;
	/* c failed and owes nothing: only b and a are undone */
	assert_int_equal(run_all(&l, NULL), 13);
	assert_string_equal(l.s, "abc~b~a");
	/* b failed half-way: its undo is owed all the same */
	memset(&l, 0, sizeof(l));
	l.fail = "b";
	assert_int_equal(run_all(&l, NULL), 12);
	assert_string_equal(l.s, "ab~b~a");
	memset(&l, 0, sizeof(l));
	l.fail = "a";
	assert_int_equal(run_all(&l, NULL), 11);
	assert_string_equal(l.s, "a");
}

static void test_trace_dev_full(void **state)
{
	struct rf_trace *t = NULL;
	uint64_t n = 7;

	(void)state;
	assert_int_equal(trace__open("/dev/full", "t-00000000", &t), 0);
	assert_int_equal(trace__emit(t, "sandbox.plan", json_object()), -ENOSPC);
	/* the first error stays; nothing more is written */
	assert_int_equal(trace__emit(t, "sandbox.exit", json_object()), -ENOSPC);
	assert_int_equal(trace__error(t, &n), -ENOSPC);
	assert_int_equal(n, 0);
	trace__close(t);
}

static void test_trace_fifo_without_reader(void **state)
{
	char dir[] = "/tmp/rf-steps-XXXXXX", fifo[64];
	struct rf_trace *t = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/f", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(trace__open(fifo, "t-00000000", &t), -ENXIO);
	unlink(fifo);
	rmdir(dir);
}

static void test_trace_counts_lines(void **state)
{
	char path[] = "/tmp/rf-steps-trace-XXXXXX";
	struct rf_trace *t = NULL;
	uint64_t n = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trace__open(path, "t-00000000", &t), 0);
	assert_int_equal(trace__emit(t, "sandbox.plan", json_object()), 0);
	assert_int_equal(trace__emit(t, "sandbox.exit", json_object()), 0);
	assert_int_equal(trace__error(t, &n), 0);
	assert_int_equal(n, 2);
	trace__close(t);
	/* no path: dropped, never an error */
	assert_int_equal(trace__open(NULL, "t-00000000", &t), 0);
	assert_int_equal(trace__emit(t, "sandbox.plan", json_object()), 0);
	assert_int_equal(trace__error(t, NULL), 0);
	trace__close(t);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_undo),
		cmocka_unit_test(test_failure_undoes_what_is_owed),
		cmocka_unit_test(test_trace_dev_full),
		cmocka_unit_test(test_trace_fifo_without_reader),
		cmocka_unit_test(test_trace_counts_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
