/*
 * Host integration tests: denials reach the human on stderr. `run -v`
 * prints each as it is drained (rate-limited, with a count of the rest);
 * without -v the exit summary lists the first three; -q prints none.
 * Real denials: connects refused by the cgroup-sock-addr programs.
 */
#include "harness.h"

#include <poll.h>

#define POLICY                                                                    \
	"{\"version\":1,\"id\":\"denials\",\"files\":\"unrestricted\","           \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18190\"]," \
	"\"unix\":\"unrestricted\"}}"

#define DENY_LINE(port)                                                           \
	"denied: network connect4 127.0.0.2:" port " tcp (not in network.connect)\n"

static int setup(void **state)
{
	(void)state;
	return harness_require_root();
}

/* Both pipes at once: -v writes far more than a pipe holds to stderr
 * (libbpf speaks too) while stdout is still open. */
static int wait_both(struct h_proc p, char **ret_out, char **ret_err)
{
	struct pollfd fds[2] = { { .fd = p.out_fd, .events = POLLIN },
				 { .fd = p.err_fd, .events = POLLIN } };
	size_t len[2] = { 0, 0 }, cap[2] = { 4096, 4096 };
	char *buf[2] = { malloc(4096), malloc(4096) };
	int open_fds = 2, st = 0, i;

	while (open_fds) {
		assert_true(poll(fds, 2, -1) > 0);
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			if (cap[i] - len[i] < 2048) {
				cap[i] *= 2;
				buf[i] = realloc(buf[i], cap[i]);
				assert_non_null(buf[i]);
			}
			n = read(fds[i].fd, buf[i] + len[i], cap[i] - len[i] - 1);
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else {
				len[i] += (size_t)n;
			}
		}
	}
	buf[0][len[0]] = 0;
	buf[1][len[1]] = 0;
	*ret_out = buf[0];
	*ret_err = buf[1];
	assert_int_equal(waitpid(p.pid, &st, 0), p.pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* `ringfence run [flag] --policy P -- argv`: its status; stderr in err. */
static int run_rf(const char *flag, const char *const *argv, char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", POLICY);
	const char *args[32];
	int n = 0, i, rc;
	struct h_proc p;

	args[n++] = h_ringfence();
	args[n++] = "run";
	if (flag)
		args[n++] = flag;
	args[n++] = "--policy";
	args[n++] = policy;
	args[n++] = "--";
	for (i = 0; argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	p = h_start(args, NULL, NULL);
	rc = wait_both(p, ret_out, ret_err);
	unlink(policy);
	free(policy);
	return rc;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/* The exit summary line (unchanged by this feature), and what follows. */
static const char *after_summary(const char *err, const char *counts)
{
	char want[256];
	const char *p;

	snprintf(want, sizeof(want), ": exited 0; kernel denials: %s\n", counts);
	p = strstr(err, want);
	if (!p)
		fail_msg("no summary line \"%s\" in:\n%s", want, err);
	return p + strlen(want);
}

static void verbose_prints_each_denial(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.2", "9", "tcp", "127.0.0.2",
			       "10", "tcp", "127.0.0.2", "11", NULL };
	char *out, *err;

	(void)state;
	assert_int_equal(run_rf("-v", argv, &out, &err), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.2:9"), "EPERM");
	assert_int_equal(count(err, "ringfence: denied: "), 3);
	assert_non_null(strstr(err, "ringfence: " DENY_LINE("9")));
	assert_non_null(strstr(err, "ringfence: " DENY_LINE("10")));
	assert_non_null(strstr(err, "ringfence: " DENY_LINE("11")));
	/* all shown: no count of the rest, and no list after the summary */
	assert_null(strstr(err, "not shown"));
	assert_string_equal(after_summary(err, "3 (network 3, unix 0, file 0, exec 0, process 0)"),
			    "");
	free(out);
	free(err);
}

static void verbose_is_rate_limited(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "burst", "200", "127.0.0.1", "9", NULL };
	char *out, *err, want[128];
	int shown;

	(void)state;
	assert_int_equal(run_rf("-v", argv, &out, &err), 0);
	assert_non_null(strstr(out, "burst 127.0.0.1:9 ok=0 EPERM=200 other=0"));
	shown = count(err, "ringfence: denied: network connect4 127.0.0.1:9 tcp (port not allowed)\n");
	assert_true(shown >= 1);
	assert_true(shown <= 50);
	snprintf(want, sizeof(want), "ringfence: %d more denials not shown; see --trace\n",
		 200 - shown);
	assert_string_equal(after_summary(err, "200 (network 200, unix 0, file 0, exec 0, "
					       "process 0)"), want);
	free(out);
	free(err);
}

static void summary_lists_the_first_three(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.2", "9", "tcp", "127.0.0.2",
			       "10", "tcp", "127.0.0.2", "11", "tcp", "127.0.0.2", "12", "tcp",
			       "127.0.0.2", "13", NULL };
	const char *none[] = { "/bin/true", NULL };
	char *out, *err;

	(void)state;
	assert_int_equal(run_rf(NULL, argv, &out, &err), 0);
	assert_string_equal(after_summary(err, "5 (network 5, unix 0, file 0, exec 0, process 0)"),
			    "ringfence:   " DENY_LINE("9")
			    "ringfence:   " DENY_LINE("10")
			    "ringfence:   " DENY_LINE("11")
			    "ringfence:   and 2 more; see --trace\n");
	free(out);
	free(err);
	/* none: the summary line is the last word */
	assert_int_equal(run_rf(NULL, none, &out, &err), 0);
	assert_string_equal(after_summary(err, "0 (network 0, unix 0, file 0, exec 0, process 0)"),
			    "");
	assert_null(strstr(err, "denied:"));
	free(out);
	free(err);
}

static void quiet_prints_no_denial(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.2", "9", "tcp", "127.0.0.2",
			       "10", NULL };
	char *out, *err;

	(void)state;
	assert_int_equal(run_rf("-q", argv, &out, &err), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.2:10"), "EPERM");
	assert_null(strstr(err, "denied"));
	assert_null(strstr(err, "kernel denials"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verbose_prints_each_denial),
		cmocka_unit_test(verbose_is_rate_limited),
		cmocka_unit_test(summary_lists_the_first_three),
		cmocka_unit_test(quiet_prints_no_denial),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, NULL);
}
