/* supervisor/sandbox_limits: cpu.max text, the output relay's budget, the
 * wall-clock deadline and the cgroup counters, without root (pipes, a
 * timerfd and a directory standing in for the sandbox cgroup). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan/plan.h"
#include "backends/sandbox_limits.h"

static void plan_with(struct rf_plan *plan, enum rf_limit l, uint64_t value)
{
	plan->limits[l].set = true;
	plan->limits[l].value = value;
	plan->limits[l].be = plan__limit_backend(l);
	plan->limits[l].enforced = true;
}

static void cpu_max_is_quota_of_a_100ms_period(void **state)
{
	char buf[64];

	(void)state;
	sandbox_limits__cpu_max(20, buf, sizeof(buf));
	assert_string_equal(buf, "20000 100000");
	sandbox_limits__cpu_max(250, buf, sizeof(buf));
	assert_string_equal(buf, "250000 100000");
	sandbox_limits__cpu_max(1, buf, sizeof(buf));
	assert_string_equal(buf, "1000 100000");
}

/* What the relay passed on to dest. */
static char *drain(int fd)
{
	static char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* Up to the budget everything goes on; the read that passes it delivers
 * only what fits, and marks output_bytes reached, once. */
static void relay_delivers_exactly_the_budget(void **state)
{
	struct rf_plan plan = { 0 };
	struct rf_limits_watch w;
	struct rf_error e = { 0 };
	struct rf_cgroup cg = { .dir_fd = -1 };
	int dest[2][2], cmd[2], i;
	json_t *j;

	(void)state;
	plan_with(&plan, RF_LIMIT_OUTPUT, 10);
	assert_int_equal(sandbox_limits__watch_init(&w, &plan, &e), 0);
	assert_true(w.child_w[0] >= 10 && w.child_w[1] >= 10);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pipe2(dest[i], O_CLOEXEC | O_NONBLOCK), 0);
		w.dest[i] = dest[i][1];
		cmd[i] = dup(w.child_w[i]);   /* the command's copies, kept open */
	}
	assert_int_equal(sandbox_limits__watch_start(&w, &cg), 0);
	assert_int_equal(w.child_w[0], -1);  /* the supervisor's copies closed */
	assert_int_equal(write(cmd[0], "hello", 5), 5);
	assert_int_equal(write(cmd[1], "wor", 3), 3);
	assert_false(sandbox_limits__on_fd(&w, w.out_r[0]));
	assert_false(sandbox_limits__on_fd(&w, w.out_r[1]));
	assert_string_equal(drain(dest[0][0]), "hello");
	assert_string_equal(drain(dest[1][0]), "wor");
	assert_int_equal(w.hit, RF_LIMIT_MAX);
	/* 8 so far: "ld" fills the budget, "!!" goes past it. */
	assert_int_equal(write(cmd[0], "ld!!", 4), 4);
	assert_true(sandbox_limits__on_fd(&w, w.out_r[0]));
	assert_string_equal(drain(dest[0][0]), "ld");
	assert_int_equal(w.hit, RF_LIMIT_OUTPUT);
	assert_int_equal(w.out_delivered, 10);
	assert_int_equal(w.out_read, 12);
	j = sandbox_limits__exceeded_json(&w);
	assert_string_equal(json_string_value(json_object_get(j, "limit")), "output_bytes");
	assert_int_equal(json_integer_value(json_object_get(j, "value")), 12);
	assert_int_equal(json_integer_value(json_object_get(j, "threshold")), 10);
	assert_int_equal(json_integer_value(json_object_get(j, "delivered")), 10);
	json_decref(j);
	/* Past the budget nothing more goes on, and the hit is not reported twice. */
	assert_int_equal(write(cmd[1], "more", 4), 4);
	assert_false(sandbox_limits__on_fd(&w, w.out_r[1]));
	assert_string_equal(drain(dest[1][0]), "");
	/* The writers gone: drain reads to EOF and closes. */
	close(cmd[0]);
	close(cmd[1]);
	sandbox_limits__drain(&w);
	assert_int_equal(w.out_r[0], -1);
	assert_int_equal(w.out_r[1], -1);
	sandbox_limits__watch_close(&w);
	for (i = 0; i < 2; i++) {
		close(dest[i][0]);
		close(dest[i][1]);
	}
}

/* A reader that stops reading never holds the relay: the destination's
 * pipe full, each event returns at once, the rest waits in the buffer
 * (and the command's pipe is no longer read once that is full); read, it
 * goes on when the destination has room; never read, the end drops it. */
static void relay_never_blocks_on_a_full_reader(void **state)
{
	struct rf_plan plan = { 0 };
	struct rf_limits_watch w;
	struct rf_cgroup cg = { .dir_fd = -1 };
	static char chunk[65536], sink[65536];
	int dest[2], cmd, i, full;
	size_t total = 0, got = 0;
	ssize_t n;

	(void)state;
	memset(chunk, 'x', sizeof(chunk));
	plan_with(&plan, RF_LIMIT_OUTPUT, 100000000);
	assert_int_equal(sandbox_limits__watch_init(&w, &plan, NULL), 0);
	/* a blocking destination, as a shell's pipe is */
	assert_int_equal(pipe2(dest, O_CLOEXEC), 0);
	full = fcntl(dest[1], F_SETPIPE_SZ, 4096);
	assert_true(full >= 4096);
	w.dest[0] = dest[1];
	cmd = dup(w.child_w[0]);
	assert_int_equal(fcntl(cmd, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(sandbox_limits__watch_start(&w, &cg), 0);
	assert_true(w.out[0].fd >= 0 && w.out[0].fd != dest[1]);
	/* the inherited description is left as it was */
	assert_false(fcntl(dest[1], F_GETFL) & O_NONBLOCK);
	for (i = 0; i < 8; i++) {
		n = write(cmd, chunk, sizeof(chunk));
		if (n > 0)
			total += (size_t)n;
		/* returns at once although nobody reads dest */
		assert_false(sandbox_limits__on_fd(&w, w.out_r[0]));
	}
	assert_true(total > (size_t)full + RF_OUT_RELAY_BUF);
	assert_int_equal(w.out[0].len, RF_OUT_RELAY_BUF);   /* full: no more reads */
	/* the reader reads: the buffer moves on as the destination takes it */
	while ((n = read(dest[0], sink, sizeof(sink))) > 0) {
		got += (size_t)n;
		if (!w.out[0].len)
			break;
		assert_false(sandbox_limits__on_fd(&w, w.out[0].fd));
		if (w.out[0].len < RF_OUT_RELAY_BUF / 2)
			break;
	}
	assert_true(got > (size_t)full);
	/* never read again: the end drops the rest after a second's stall */
	close(cmd);
	sandbox_limits__drain(&w);
	assert_true(w.out_dropped > 0);
	assert_int_equal(w.out[0].len, 0);
	sandbox_limits__watch_close(&w);
	close(dest[0]);
	close(dest[1]);
}

static void wall_clock_deadline_fires(void **state)
{
	struct rf_plan plan = { 0 };
	struct rf_limits_watch w;
	struct rf_cgroup cg = { .dir_fd = -1 };
	struct pollfd p;
	int fds[3];
	char text[128];

	(void)state;
	plan_with(&plan, RF_LIMIT_WALL, 1);
	assert_int_equal(sandbox_limits__watch_init(&w, &plan, NULL), 0);
	assert_int_equal(w.out_r[0], -1);              /* no relay without output_bytes */
	assert_int_equal(sandbox_limits__watch_start(&w, &cg), 0);
	assert_int_equal(sandbox_limits__watch_fds(&w, fds), 1);
	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	assert_int_equal(poll(&p, 1, 3000), 1);
	assert_true(sandbox_limits__on_fd(&w, fds[0]));
	assert_int_equal(w.hit, RF_LIMIT_WALL);
	assert_int_equal(w.hit_threshold, 1);
	assert_int_equal(w.hit_value, 1);
	sandbox_limits__hit_text(&w, text, sizeof(text));
	assert_string_equal(text, "limit wall_seconds=1 reached");
	assert_int_equal(w.timer_fd, -1);
	sandbox_limits__watch_close(&w);
}

static void write_file(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* memory.events oom_kill and pids.events max, as the kernel writes them. */
static void cgroup_counters_name_the_limit(void **state)
{
	char dir[] = "/tmp/rf-limits-cg-XXXXXX";
	struct rf_plan plan = { 0 };
	struct rf_limits_watch w;
	struct rf_cgroup cg;
	json_t *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	cg.dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cg.dir_fd >= 0);
	plan_with(&plan, RF_LIMIT_MEMORY, 32);
	plan_with(&plan, RF_LIMIT_PIDS, 8);
	assert_int_equal(sandbox_limits__watch_init(&w, &plan, NULL), 0);
	assert_int_equal(sandbox_limits__watch_start(&w, &cg), 0);
	write_file(cg.dir_fd, "memory.events", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 0\n");
	write_file(cg.dir_fd, "pids.events", "max 0\n");
	assert_false(sandbox_limits__check_cgroup(&w));   /* reclaim at max is no halt */
	write_file(cg.dir_fd, "memory.events", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 2\n");
	write_file(cg.dir_fd, "memory.peak", "33554433\n");
	assert_true(sandbox_limits__check_cgroup(&w));
	assert_int_equal(w.hit, RF_LIMIT_MEMORY);
	assert_int_equal(w.hit_value, 33);                /* MiB, rounded up */
	assert_int_equal(w.hit_threshold, 32);
	j = sandbox_limits__exceeded_json(&w);
	assert_int_equal(json_integer_value(json_object_get(j, "oom_kills")), 2);
	assert_string_equal(json_string_value(json_object_get(j, "unit")), "MiB");
	json_decref(j);
	assert_false(sandbox_limits__check_cgroup(&w));   /* once */
	sandbox_limits__watch_close(&w);

	plan.limits[RF_LIMIT_MEMORY].set = false;
	assert_int_equal(sandbox_limits__watch_init(&w, &plan, NULL), 0);
	assert_int_equal(sandbox_limits__watch_start(&w, &cg), 0);
	write_file(cg.dir_fd, "pids.events", "max 3\n");
	write_file(cg.dir_fd, "pids.current", "8\n");
	assert_true(sandbox_limits__check_cgroup(&w));
	assert_int_equal(w.hit, RF_LIMIT_PIDS);
	assert_int_equal(w.hit_value, 8);
	assert_int_equal(w.hit_events, 3);
	sandbox_limits__watch_close(&w);
	unlinkat(cg.dir_fd, "memory.events", 0);
	unlinkat(cg.dir_fd, "memory.peak", 0);
	unlinkat(cg.dir_fd, "pids.events", 0);
	unlinkat(cg.dir_fd, "pids.current", 0);
	close(cg.dir_fd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_max_is_quota_of_a_100ms_period),
		cmocka_unit_test(relay_delivers_exactly_the_budget),
		cmocka_unit_test(relay_never_blocks_on_a_full_reader),
		cmocka_unit_test(wall_clock_deadline_fires),
		cmocka_unit_test(cgroup_counters_name_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
